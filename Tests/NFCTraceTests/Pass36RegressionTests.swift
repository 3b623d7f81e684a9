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

  /// A WRITE of page 4 starting with no TLV tag on a tag whose CC says NDEF (a CC written one
  /// page too far) leaves no NDEF message: bad content, not "no problem found". On a tag whose
  /// CC is not NDEF's, page 4 is the app's own data.
  @Test func pageFourWithoutATLVIsBadContent() throws {
    for (cc, fires) in [([UInt8]([0xE1, 0x10, 0x12, 0x00]), true), ([0, 0, 0, 0], false)] {
      var b = TraceBuilder()
      b.activateType2()
      b.read(3, page3(cc: cc, then: [0x03, 0x00, 0xFE, 0x00]))
      b.write(4, [0xE1, 0x10, 0x12, 0x00])
      let r = try b.diagnose()
      let f = r.finding("t2t-no-tlv-at-page-4")
      #expect((f != nil) == fires)
      if fires {
        #expect(f?.cause == "the write put E1h at page 4, where a TLV must start")
        #expect(
          f?.message.hasSuffix("The bytes are a capability container, which belongs in page 3.")
            == true)
        let op = try #require(f?.operation)
        #expect(
          r.sessions[0].verdicts.first { $0.operation == op }?.verdict == .succeededWithBadContent)
      }
    }
  }

  /// A poll whose ATQA is in the trace (after a reader frame, here an Apple ECP frame) or an
  /// HLTA since the poll: the SAK says nothing of a missed ATQA.
  @Test func noMissedATQAWhenItIsInTheTrace() throws {
    let select = TestFrame.make(
      3, .reader, CRC.appendingCRCA([0x93, 0x70, 0x04, 0x3C, 0x70, 0x02, 0x4A]))
    let sak = TestFrame.make(4, .tag, CRC.appendingCRCA([0x08]))
    let withECP = decodeAll([
      TestFrame.make(0, .reader, [0x52], bits: 7),
      TestFrame.make(
        1, .reader,
        [0x6A, 0x02, 0xC8, 0x01, 0x00, 0x03, 0x00, 0x02, 0x79, 0x00, 0x00, 0x00, 0x00, 0xC2, 0xD8]),
      TestFrame.make(2, .tag, [0x04, 0x00]), select, sak,
    ]).0
    #expect(withECP[2].layers.first?.name == "ATQA")
    #expect(withECP[4].findings.isEmpty)
    let withHalt = decodeAll([
      TestFrame.make(0, .reader, [0x26], bits: 7),
      TestFrame.make(1, .reader, CRC.appendingCRCA([0x50, 0x00])),
      TestFrame.make(2, .reader, [0x93, 0x20]), select, sak,
    ]).0
    #expect(withHalt[4].findings.isEmpty)
  }

  /// The damaged-frames message counts the cluster apart from the session's total (it said
  /// "11 frame(s) … They come in a cluster" under a cause of 10).
  @Test func damagedClusterCountedApartFromTheTotal() throws {
    let report = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace"))
    let f = try #require(report.finding("rf-damaged-frames"))
    #expect(f.cause == "10 damaged frames close together (bad CRC or parity)")
    #expect(f.message.hasPrefix("11 frame(s) in this session arrived damaged"))
    #expect(f.message.contains("10 of them come in a cluster"))
  }
}
