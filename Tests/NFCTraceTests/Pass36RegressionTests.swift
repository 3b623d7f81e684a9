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

  /// A SAK after a poll whose ATQA is not in the trace: the tag answered the poll (it answers
  /// SELECT only in READY state) and the capture missed the ATQA (test_NFC-A_106kbps_003 #12).
  @Test func sakAfterAPollWithoutATQA() throws {
    let frames = [
      TestFrame.make(0, .reader, [0x26], bits: 7),
      TestFrame.make(1, .reader, CRC.appendingCRCA([0x93, 0x70, 0x04, 0x3C, 0x70, 0x02, 0x4A])),
      TestFrame.make(2, .tag, CRC.appendingCRCA([0x08])),
    ]
    let out = decodeAll(frames).0
    #expect(out[2].findings.map(\.code) == ["atqa-not-captured"])
    #expect(out[2].findings.first?.frames == [0, 2])
    // With the ATQA captured, nothing is said.
    let full = decodeAll([
      frames[0], TestFrame.make(1, .tag, [0x04, 0x00]),
      TestFrame.make(2, .reader, frames[1].data), TestFrame.make(3, .tag, frames[2].data),
    ]).0
    #expect(full[3].findings.isEmpty)
  }
}
