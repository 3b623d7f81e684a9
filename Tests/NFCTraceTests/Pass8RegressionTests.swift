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

  /// S(DESELECT) halts an ISO-DEP tag (ISO/IEC 14443-4 §8): a re-activation after it starts a
  /// new session, as after HLTA (field engineer pass 8 t4-16).
  @Test func deselectThenReactivationIsANewSession() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.reader([0xC2])
    b.tag([0xC2])
    b.activateType4()
    b.queryType4(nlen: 0)
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
    #expect(sessions.count == 2)
    #expect(
      sessions.map { $0.operations.map(\.kind) }
        == Array(repeating: [.connect, .queryNDEFStatus], count: 2))
  }

  /// FAST_READ past NTAG213's last page (2Ch), NAK 0: an address error, not radio trouble
  /// (field engineer pass 8 t2-04: "hold the phone flat").
  @Test func readPastTheLastPageIsNoRadioProblem() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0x3A, 0x00, 0x2F])
    b.add4Bit(0x00)
    let f = try #require(try b.diagnose().finding("read-failed"))
    #expect(f.message.contains("The NTAG213's last page is 44 (0x2C)"))
    #expect(f.message.hasSuffix("This is not a radio problem."))
    #expect(!f.fix.contains("Hold the phone"))
  }
}
