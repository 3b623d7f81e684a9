import Testing

@testable import NFCTrace

/// Pass 45: fixes of the 2026-12-07 (second) session outside the Type 5 procedures.
@Suite struct Pass45RegressionTests {
  /// A WRITE retried after a silence got through, but a later WRITE of the same writeNDEF was
  /// refused: `command-retried` no longer says the operation survived.
  @Test func retriedCommandInAFailedWriteDoesNotSayItSurvived() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x05, 0x54, 0x02, 0x65], .nak(0x00))
    let report = try b.diagnose()
    let retried = try #require(report.findings.first { $0.code == "command-retried" })
    #expect(
      retried.message.hasSuffix(
        "a later attempt got through. The writeNDEF operation still ended failed (its other "
          + "findings say why), and the radio link was marginal."))
    var ok = TraceBuilder()
    ok.event(.fieldOn)
    ok.activateType2(version: ntag213Version)
    ok.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    ok.write(4, [0x03, 0x00, 0xFE, 0x00], .none)
    ok.write(4, [0x03, 0x00, 0xFE, 0x00])
    let fine = try #require(try ok.diagnose().findings.first { $0.code == "command-retried" })
    #expect(fine.message.hasSuffix("The operation survived, but the radio link was marginal."))
  }
}
