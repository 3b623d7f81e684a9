import Testing

@testable import NFCTrace

/// Findings of the eighth session's new-user, field engineer and NDEF auditor passes.
@Suite struct Pass8RegressionTests {
  /// Static lock bits lock pages 5–7 while the CC's write access is 00h: the query says
  /// readWrite, so the fix cannot be "check queryNDEFStatus" (new-user pass, item 3).
  @Test func lockedPageUnderAWritableCCGetsAFixThatCanWork() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0xE0, 0x00]
        + [0xE1, 0x10, 0x12, 0x00])
    b.write(5, [0x34, 0x03, 0x00, 0xD1], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(
      f.fix.hasPrefix(
        "The page is permanently read-only, but the CC's write access byte is still 00h"))
  }
}
