import NFCTrace
import TestSupport
import Testing

/// Findings of an expert review of the shared captures (2026-12-05).
@Suite struct Pass36RegressionTests {
  /// The tag's I-block toggled from its last one with no reader block between: the tag
  /// answered a command the capture missed (hf_visa_apple_transit_bypass #53, #62), not a
  /// numbering error of the tag's.
  @Test func tagIBlockAfterAMissedCommandIsNoNumberingError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    b.tag([0x02, 0x41, 0x42, 0x90, 0x00])
    b.tag([0x03, 0x43, 0x44, 0x90, 0x00])
    let frames = decodeAll(b.frames).0
    let last = try #require(frames.last)
    #expect(last.findings.map(\.code) == ["command-not-captured"])
    #expect(last.findings.first?.severity == .info)
    // A wrong number in answer to a captured command is still the tag's error.
    var c = TraceBuilder()
    c.activateType4()
    c.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    c.tag([0x03, 0x41, 0x42, 0x90, 0x00])
    let answer = try #require(decodeAll(c.frames).0.last)
    #expect(answer.findings.map(\.code) == ["unexpected-block-number"])
  }
}
