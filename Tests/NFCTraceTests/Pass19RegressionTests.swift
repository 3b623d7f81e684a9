import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// The frame findings of frames `b`, with the index of the frame each is on.
func frameFindings(_ b: TraceBuilder) throws -> [(frame: Int, finding: Finding)] {
  var out: [(Int, Finding)] = []
  _ = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) { item in
    if case .frame(let f) = item { out += f.findings.map { (f.frame.index, $0) } }
  }
  return out
}

/// The text timeline of frames `b`, as `nfctrace timeline` streams it.
func streamedTimeline(_ b: TraceBuilder) throws -> [String] {
  let out = OutputBuffer(fd: nil)
  let r = TimelineTextRenderer(out: out, color: false)
  _ = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) { item in
    switch item {
    case .frame(let f): r.render(f)
    case .event(let e): r.render(e)
    case .session: break
    }
  }
  r.finish()
  return out.text.split(separator: "\n").map(String.init)
}

/// A queried Type 4 tag, one UPDATE BINARY of NLEN 5 and a 5-byte message, its 9000 seen
/// only damaged, and the reader's R(NAK) asking for it again.
func updateAnsweredDamaged() -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4()
  b.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x07, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00])
  b.tag([0x03, 0x90, 0x00], badCRC: true)
  b.reader([0xB3])
  return b
}

/// An NTAG213 queried (an empty NDEF TLV) and written with the length-last procedure (a 9-byte
/// URI message), every WRITE acknowledged.
func writtenNTAG213() -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
  b.write(4, [0x03, 0x00, 0xD1, 0x01])
  b.write(5, [0x05, 0x55, 0x04, 0x61])
  b.write(6, [0x2E, 0x63, 0x6F, 0xFE])
  b.write(4, [0x03, 0x09, 0xD1, 0x01])
  return b
}

/// Findings of the fifteenth session: each with the value the standard or the stack gives.
@Suite struct Pass19Type4CCTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// An activated Type 4 tag with the NDEF application and the CC file selected.
  private func ccSelected() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    return b
  }

  /// A queried Type 4 tag whose CC answer is `cc`.
  private func queried(cc: [UInt8]) -> TraceBuilder {
    var b = ccSelected()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + Self.ok)
    return b
  }

  /// MLe 10 and read access 05: T4T 2.0 §5.1.2 allows MLe from 000Fh and access 00, 80–FE,
  /// FF only (libnfc-nci's rw_t4t_validate_cc_file refuses both). Each value is an
  /// `invalid-cc` on the CC's answer at its CC byte offset; diagnose names both in one warning.
  @Test func invalidValuesAreFlagged() throws {
    let cc: [UInt8] =
      [0x00, 0x0F, 0x20, 0x00, 0x0A, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x05, 0x00]
    let b = queried(cc: cc)
    let found = try frameFindings(b).filter { $0.finding.code == "invalid-cc" }
    #expect(found.map(\.frame) == [13, 13])
    #expect(found.map(\.finding.offset) == [3, 13])
    #expect(
      found.first?.finding.message
        == "Type 4 Capability Container: CC byte offset 3: MLe 10 is below 15 (000Fh), the "
        + "least a Type 4 tag may declare")
    let f = try #require(try b.diagnose().finding("t4t-cc-invalid-value"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.frames == [13])
    #expect(f.message.contains("CC byte offset 13: read access 05 is RFU (00, 80–FE or FF)"))
    // The values are still used: the query's status comes from the CC, whose read access
    // other than 00 makes NDEF detection fail (diff-sim 2026-12-04c A1).
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.detail("status") == .string("notSupported"))
    #expect(
      query.detail("rule")
        == .string(
          "CC NDEF file read access 05 (RFU): NDEF detection needs 00 or a proprietary 80–FE"))
    #expect(query.detail("mle") == .int(10))
  }

  /// Reserved NDEF file id (E103, the CC itself), MLc 0 and a maximum size below 5.
  @Test func reservedFileIDAndSizes() {
    let cc = try? CapabilityContainer4(parsing: [
      0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x00, 0x04, 0x06, 0xE1, 0x03, 0x00, 0x04, 0x00, 0xFF,
    ])
    #expect(
      cc?.valueProblems.map(\.description) == [
        "CC byte offset 5: MLc 0 is RFU: the least is 1",
        "CC byte offset 9: NDEF file id E103 is reserved (E102, E103, 3F00, 3FFF, FFFF, 0000)",
        "CC byte offset 11: maximum NDEF file size 4 is RFU (valid: 5 to 65534)",
      ])
  }

  /// The Extended NDEF File Control TLV (mapping 3.0) puts its access bytes at TLV + 8 and 9;
  /// a valid CC has no problems; file id 0000 is allowed in mapping 1.0 only.
  @Test func extendedTLVOffsetsAndValidCC() {
    var bytes = TraceBuilder.enlenCC
    bytes[16] = 0x20
    let cc = try? CapabilityContainer4(parsing: bytes)
    #expect(cc?.valueProblems.map(\.offset) == [16])
    #expect((try? CapabilityContainer4(parsing: TraceBuilder.enlenCC))?.valueProblems == [])
    let v1: [UInt8] =
      [0x00, 0x0F, 0x10, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00]
    #expect((try? CapabilityContainer4(parsing: v1))?.valueProblems == [])
    var v2 = v1
    v2[2] = 0x20
    #expect((try? CapabilityContainer4(parsing: v2))?.valueProblems.map(\.offset) == [9])
  }
}

extension Pass19Type4CCTests {
  /// An 80-byte NDEF message: one Text record ("en", 73 × "a").
  static let textMessage80: [UInt8] =
    [0xD1, 0x01, 0x4C, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x61, count: 73)

  /// A READ BINARY with Le 80 after a CC with MLe 59, answered 9000: the reader broke T4T's
  /// limit and this tag let it (others refuse with 6700): a warning without a Core NFC error.
  /// The READ CC's own Le is not judged by the MLe its answer brings.
  @Test func leAboveMLeAcceptedIsAWarning() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x50)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x50], Self.textMessage80 + Self.ok)
    let r = try b.diagnose()
    #expect(r.codes == ["t4t-le-exceeds-mle"])
    let f = try #require(r.finding("t4t-le-exceeds-mle"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.frames == [b.frames.count - 2, b.frames.count - 1])
    #expect(f.cause.hasSuffix("(this tag accepted it; others refuse)"))
  }

  /// The same READ left unanswered: an error, the tag lost (100).
  @Test func leAboveMLeUnansweredIsAnError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x50)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x50], nil)
    let f = try #require(try b.diagnose().finding("t4t-le-exceeds-mle"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagConnectionLost)
  }
}

extension Pass19Type4CCTests {
  /// READ CC Le 15 answered with 10 bytes and 9000 by a tag whose CCLEN is 15: its CC file is
  /// shorter than CCLEN (a READ past a file's end is answered 6282, ISO/IEC 7816-4 §5.6).
  @Test func shortCCAnswerIsFlagged() throws {
    var b = ccSelected()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1] + Self.ok)
    let found = try frameFindings(b).filter { $0.finding.code == "invalid-cc" }
    #expect(found.map(\.frame) == [13])
    #expect(
      found.first?.finding.message
        == "Type 4 Capability Container: the tag answered 10 of the 15 byte(s) asked for at "
        + "offset 0 with 9000, ending at CC byte 10 before CCLEN 15: its CC file is shorter "
        + "than CCLEN says")
    // A whole CC read with Le 00 (256) is no short answer.
    var whole = ccSelected()
    whole.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x00],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + Self.ok)
    #expect(try frameFindings(whole).isEmpty)
  }
}

extension Pass19Type4CCTests {
  /// Le 00 asks for whatever the file holds, up to 256 (ISO/IEC 7816-4 §5.1): answered, it is
  /// no breach of MLe.
  @Test func leZeroAnsweredIsNoBreach() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x50)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x00], Self.textMessage80 + [0x62, 0x82])
    #expect(try b.diagnose().codes == [])
  }
}

/// Type 2 findings of the fifteenth session's session-reconstruction pass.
@Suite struct Pass19Type2Tests {
  private static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
  /// Page 0: UID0–2 and BCC0 = 88h ⊕ UID0 ⊕ UID1 ⊕ UID2 (ISO/IEC 14443-3 §6.5.4).
  private static let page0: [UInt8] = [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22]
  private static let ccPage0: [UInt8] =
    page0 + [0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x3E, 0x00]

  /// READ 132 of an NTAG215 not identified by GET_VERSION returns pages 132–134 and rolls over
  /// to page 0: that is the end of its 135 pages (nfc-facts §4.1), not AUTH0 protection.
  @Test func rollOverAtAProductsLastPageIsTheEndOfMemory() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(0, Self.ccPage0)
    b.read(
      132, [0x00, 0x00, 0x00, 0xBD, 0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00] + Self.page0)
    let s = try #require(try sessions(b).first)
    #expect(!s.operations.contains { $0.detail("read_protected_from") != nil })
    // The same roll-over inside the memory (after page 15 of an NTAG215-sized read) is AUTH0.
    var p = TraceBuilder()
    p.activateType2()
    p.read(0, Self.ccPage0)
    p.read(12, [UInt8](repeating: 0, count: 12) + Self.page0)
    let q = try #require(try sessions(p).first)
    #expect(q.operations.contains { $0.detail("read_protected_from") == .int(15) })
  }

  /// libnfc-nci's detection reads the dynamic lock bytes where T2T puts them without a Lock
  /// Control TLV: byte 16 + CC2 × 8 (page 80h for CC2 3Eh; nfc-facts §5.2). That READ is part
  /// of the query, not the app's own transceive.
  @Test func defaultLockReadJoinsTheQuery() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(0, Self.ccPage0)
    b.read(4, [0x03, 0x00, 0xFE])
    b.read(0x80, [])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations.last?.lastFrame == b.frames.count - 1)
  }

  /// A dump tool's GET_VERSION, HLTA and re-selection: the second session on the same UID
  /// keeps the product the first one identified.
  @Test func productCarriesToTheNextSessionOnTheSameUID() throws {
    let ntag215: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
    var b = TraceBuilder()
    b.activateType2(version: ntag215)
    b.reader([0x50, 0x00])
    b.activateType2()
    b.read(0, Self.ccPage0)
    let all = try sessions(b)
    #expect(all.count == 2)
    #expect(all.last?.tag.product == "NTAG215")
    #expect(all.last?.tag.version == nil)
  }
}

extension Pass19Type4CCTests {
  /// 6700 to a READ BINARY with Le 00, then the same read with Le 16 answered: the reader got
  /// past it (like 6Cxx), so readNDEF is ok and the refusal a warning without a Core NFC error.
  @Test func readRefused6700ThenSmallerLeRecovers() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x00], [0x67, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x10], Array(repeating: 0xD1, count: 0x10) + Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations.last?.outcome == .ok)
    let f = try #require(try b.diagnose().finding("t4t-le-exceeds-mle"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(
      f.message.hasSuffix(
        "The reader read again with another Le and the tag answered, so the read went on."))
  }
}

@Suite struct Pass19ISODEPTests {
  /// The tag's I-block that ends the reader's chain answers a command no layer saw whole: it is
  /// not the answer to the reader's earlier, unanswered READ (ISO/IEC 14443-4 §7.5.2).
  @Test func answerEndingAChainPairsWithNoEarlierCommand() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x10])  // unanswered
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x00, 0x14, 0x00, 0x12])
    b.tag([0x02, 0x90, 0x00])
    let frames = decodeAll(b.frames).0
    let last = try #require(frames.last)
    #expect(last.findings.contains { $0.code == "incomplete-chain" })
    #expect(last.layer(.type4) == nil)
    #expect(last.layer(.iso7816)?.name == "response")
  }
}

/// Findings of the fifteenth session's diagnosis pass.
@Suite struct Pass19DiagnosisTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// An NTAG213 queried (CC read, an empty NDEF TLV), ready for a write.
  private func ntag213() -> TraceBuilder {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    return b
  }

  /// The last part of a chained UPDATE damaged on the way: the reader's R(NAK), the tag's
  /// R(ACK), and the same last part sent again, answered 9000 (ISO/IEC 14443-4 §7.5.4 rules 6
  /// and 12). The command is complete; the write succeeded.
  @Test func chainsLastPartSentAgainCompletesTheCommand() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F]
    let update: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x0B, 0x00, 0x09] + message
    b.reader([0x13] + update.prefix(8))
    b.tag([0xA3])
    b.reader([0x02] + update.dropFirst(8), badCRC: true)
    b.reader([0xB2])
    b.tag([0xA3])
    b.reader([0x02] + update.dropFirst(8))
    b.tag([0x02] + Self.ok)
    let frames = decodeAll(b.frames).0
    let again = try #require(frames.dropLast().last)
    #expect(again.layer(.isoDEP)?.field("reassembled_length") == .int(update.count))
    #expect(again.layer(.iso7816)?.field("lc") == .int(11))
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.last?.outcome == .ok)
  }

  /// A 4-bit answer Bh is neither ACK (Ah) nor a NAK NXP defines (0, 1, 4, 5): a damaged ACK.
  /// The WRITE sent again and acknowledged completes the write; a warning, no Core NFC error.
  @Test func damagedACKThenRetryIsNoFailure() throws {
    var b = ntag213()
    b.write(4, [0x03, 0x05, 0xD1, 0x01])
    b.write(5, [0x01, 0x54, 0x00, 0xFE], .nak(0x0B))
    b.write(5, [0x01, 0x54, 0x00, 0xFE])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .ok)
    let f = try #require(try b.diagnose().finding("t2t-nak-transmission-error"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.message.hasPrefix("The answer to the WRITE of page 5 (0x5) was the 4-bit code Bh"))
  }

  /// A NAK on page 8 and a writeLock after it: the lock bits it set are no cause of the NAK
  /// (page 2 was not known before the refusal).
  @Test func lockBitsSetAfterTheNAKAreNoCause() throws {
    var b = ntag213()
    b.write(8, [0x00, 0x00, 0x00, 0x00], .nak(0))
    b.write(2, [0x00, 0x48, 0xFF, 0xFF])
    let r = try b.diagnose()
    #expect(r.finding("t2t-nak-locked-page") == nil)
    #expect(r.codes.contains("t2t-nak-unexplained"))
  }

  /// UPDATE BINARY with Lc 20 above MLc 16, refused 6700: writeNDEF stays within MLc, so the
  /// UPDATE was the app's own sendCommand(apdu:), which gets the status word, no error.
  @Test func lcAboveMLcRefusedNamesNoCoreNFCError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(mlc: 0x10, nlen: 0x05)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x14] + Array(repeating: 0x41, count: 20), [0x67, 0x00])
    let r = try b.diagnose()
    let f = try #require(r.finding("t4t-lc-exceeds-mlc"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == nil)
    #expect(r.findings.allSatisfy { $0.coreNFCError == nil })
  }
}

extension Pass19DiagnosisTests {
  /// One UPDATE BINARY of NLEN and the whole message with no answer — at once, or after the
  /// tag asked for more time with S(WTX): the tag holds the new message or the old one (or a
  /// mix had it lost power while programming), not "a length written before its data".
  @Test(arguments: [false, true])
  func oneUnansweredUpdateOfTheWholeMessageIsUncertain(wtx: Bool) throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x07, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00])
    if wtx {
      b.tag([0xF2, 0x02])
      b.reader([0xF2, 0x02])
    }
    let r = try b.diagnose()
    #expect(r.codes.sorted() == ["ndef-length-uncertain", "write-interrupted"])
    let f = try #require(r.finding("ndef-length-uncertain"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(
      f.message.hasPrefix(
        "The NLEN (0x5 (5)) and the whole 5-byte message went in one write, which got no answer"))
  }
}

extension Pass19DiagnosisTests {
  /// The length-last write's final length refused: NAK 0 / 1 did not program it, so the tag
  /// holds the length 0 the first step set (`ndef-emptied`); NAK 5 (EEPROM write error) may
  /// have, so the tag holds the new message or an empty one (`ndef-length-uncertain`), never
  /// a torn one.
  @Test(arguments: [0, 1, 5])
  func finalLengthRefused(nak: Int) throws {
    var b = ntag213()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x05, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x63, 0x6F, 0xFE])
    b.write(4, [0x03, 0x09, 0xD1, 0x01], .nak(UInt8(nak)))
    let r = try b.diagnose()
    #expect(r.finding("ndef-torn") == nil)
    if nak == 5 {
      let f = try #require(r.finding("ndef-length-uncertain"))
      #expect(
        f.cause
          == "the final write of the NDEF TLV length failed (NAK 5); the message bytes are all on the tag"
      )
      #expect(f.message.contains("the tag holds the complete new message or an empty message"))
    } else {
      #expect(r.finding("ndef-emptied") != nil)
    }
  }
}

extension Pass19DiagnosisTests {
  /// The UPDATE's 9000 reaches the capture damaged, the reader asks for it again (R(NAK)), the
  /// copy is damaged too, and the reader sends nothing more: the tag wrote, but whether the
  /// reader got the answer is unknown — not a plain success.
  @Test func lastAnswerOnlyDamagedIsUnknown() throws {
    var b = updateAnsweredDamaged()
    b.tag([0x03] + Self.ok, badCRC: true)
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .unknown)
    #expect(
      write.reason?.hasPrefix(
        "the tag's last answer (frame \(b.frames.count - 1)) is in the capture only damaged")
        == true)
    // An intact copy after the R(NAK) settles it: ok.
    var c = TraceBuilder()
    c.activateType4()
    c.queryType4()
    c.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x07, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00])
    c.tag([0x03] + Self.ok, badCRC: true)
    c.reader([0xB3])
    c.tag([0x03] + Self.ok)
    #expect(try sessions(c).first?.operations.last?.outcome == .ok)
  }
}

extension Pass19DiagnosisTests {
  /// Two writes in one session: each is judged by the message it wrote, not by the one the
  /// later write left on the tag.
  @Test func eachWriteIsJudgedByWhatItWrote() throws {
    let first: [UInt8] = [0xD1, 0x01, 0x03, 0x55, 0x04, 0x61, 0x62]
    let second: [UInt8] = [0xD1, 0x01, 0x03, 0x55, 0x04, 0x78, 0x79]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x09, 0x00, 0x07] + first, Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x09, 0x00, 0x07] + second, Self.ok)
    let r = try b.diagnose(expect: first)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .writeNDEF])
    let differs = r.findings.filter { $0.code == "content-differs-from-expected" }
    #expect(differs.map(\.operation) == [3])
  }
}

extension Pass19DiagnosisTests {
  /// The reader's last UPDATE and its R(NAK) both reach the capture damaged and get no answer:
  /// the tag may have ignored invalid frames (ISO/IEC 14443-4 §7.5.4), so the cause is the
  /// radio link, not only the tag leaving; the error stays 100.
  @Test func silenceAfterDamagedReaderFramesBlamesTheLink() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], badCRC: true)
    b.reader([0xB3], badCRC: true)
    let f = try #require(try b.diagnose().finding("write-interrupted"))
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.cause.hasSuffix("whose frames reached the capture damaged"))
    #expect(f.message.contains("a disturbed radio link"))
  }
}

@Suite struct Pass19DiscoveryTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let selectNDEF: [UInt8] =
    [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

  /// Core NFC's discovery of an ISO-DEP tag: the NDEF AID selected twice, then DESFire's
  /// GetVersion (nfc-facts §8.4), before the app's queryNDEFStatus. The discovery SELECTs
  /// and the GetVersion probe belong to connect; no phantom query of unknown status.
  @Test func discoverySelectsBelongToConnect() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.selectNDEF, Self.ok)
    b.apdu(Self.selectNDEF, Self.ok)
    b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x6A, 0x81])
    let discoveryEnd = b.frames.count - 1
    b.queryType4(nlen: 0)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations[0].lastFrame == discoveryEnd)
    #expect(s.operations[0].detail("ndef_application") == nil)
    #expect(s.operations[1].detail("status") == .string("readWrite"))
    // The streamed timeline shows the same: connect ends after the discovery's answers.
    let lines = try streamedTimeline(b)
    let end = try #require(lines.firstIndex { $0.contains("◂ connect ok") })
    #expect(lines[end - 1].hasPrefix("#\(discoveryEnd) "))
    #expect(!lines.contains { $0.contains("queryNDEFStatus unknown") })
  }

  /// The same SELECT followed by the CC's SELECT is the query's first step, placed there in
  /// the timeline too; unanswered, it is the query the silence interrupts.
  @Test func selectFollowedByDetectionIsTheQuery() throws {
    var b = TraceBuilder()
    b.activateType4()
    let connectEnd = b.frames.count - 1
    b.queryType4()
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations[0].lastFrame == connectEnd)
    #expect(s.operations[1].firstFrame == connectEnd + 1)
    #expect(s.operations[1].detail("ndef_application") == .bool(true))
    let lines = try streamedTimeline(b)
    let start = try #require(lines.firstIndex { $0.contains("▸ queryNDEFStatus") })
    #expect(lines[start + 1].hasPrefix("#\(connectEnd + 1) "))
    var c = TraceBuilder()
    c.activateType4()
    c.apdu(Self.selectNDEF, nil)
    let t = try #require(try sessions(c).first)
    #expect(t.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(t.operations[0].outcome == .ok)
    #expect(t.operations[1].outcome == .interrupted)
  }

}

extension Pass19Type2Tests {
  /// An NTAG213 written with the length-last procedure, then `tail` added.
  private func written(_ tail: (inout TraceBuilder) -> Void) throws -> SessionAnalysis {
    var b = writtenNTAG213()
    tail(&b)
    return try #require(try sessions(b).first)
  }

  /// READ 0 repeated after a write is the stack's presence check (libnfc-nci reads block 0),
  /// a transceive, not a query; unanswered, the tag left during it, not during a query. READ 0
  /// followed by a READ of the data area is NDEF detection again.
  @Test func presenceChecksAfterAWriteAreNoQuery() throws {
    let page0 = Self.ccPage0.prefix(12) + [0xE1, 0x10, 0x12, 0x00]
    let checks = try written { b in
      b.reader([0x30, 0x00], gapUs: 125_000)
      b.tag(Array(page0))
      b.reader([0x30, 0x00], gapUs: 125_000)
      b.tag(Array(page0))
    }
    #expect(checks.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .transceive])
    #expect(checks.operations[2].outcome == .ok)
    let lost = try written { b in
      b.reader([0x30, 0x00], gapUs: 125_000)
    }
    #expect(lost.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .transceive])
    #expect(lost.operations[2].outcome == .ok)
    #expect(lost.operations[3].outcome == .interrupted)
    // READ 0 and the READ of the TLVs are detection (libnfc-nci); the next READ 4 reads.
    let detection = try written { b in
      b.read(0, Array(page0))
      b.read(4, [0x03, 0x09, 0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0xFE])
      b.read(4, [0x03, 0x09, 0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0xFE])
    }
    #expect(
      detection.operations.map(\.kind) == [
        .connect, .queryNDEFStatus, .writeNDEF, .queryNDEFStatus, .readNDEF,
      ])
  }
}

extension Pass19Type4CCTests {
  /// The report names each invalid CC value, in text and JSON (`problems`).
  @Test func reportNamesInvalidCCValues() throws {
    let cc: [UInt8] =
      [0x00, 0x0F, 0x20, 0x00, 0x0A, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
    let b = queried(cc: cc)
    let s = try #require(try sessions(b).first)
    let contents = TagContents(
      layout: .type4, type2: ByteImage(), files: s.memory.filesEnd, tag: s.tag)
    let parsed = try #require(contents.type4CC)
    #expect(parsed.valueProblems.map(\.offset) == [3])
    let text = ReportText.type4CC(parsed)
    #expect(
      text.contains(
        "CC byte offset 3: MLe 10 is below 15 (000Fh), the least a Type 4 tag may declare"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.cc(contents, to: out)
    #expect(
      out.text.hasSuffix(
        "\"problems\":[\"CC byte offset 3: MLe 10 is below 15 (000Fh), the least a Type 4 tag may declare\"]}"
      ))
  }
}

/// The review's cases for held operations: what the held frames do is theirs, not the
/// operation's before them.
@Suite struct Pass19HeldOperationTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let selectNDEF: [UInt8] =
    [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
  private static let page0: [UInt8] =
    [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22, 0x33, 0x44, 0x55, 0x66]
    + [0x00, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x12, 0x00]

  private func written() -> TraceBuilder { writtenNTAG213() }

  /// A presence check whose answer is damaged and sent again: the write stays ok; the damage
  /// is the presence check's. A READ of a configuration page after it makes no query.
  @Test func damagedPresenceCheckIsNotTheWrites() throws {
    var b = written()
    b.reader([0x30, 0x00], gapUs: 125_000)
    b.tag(Self.page0, badCRC: true)
    b.reader([0x30, 0x00])
    b.tag(Self.page0)
    b.read(0x29, [0x04, 0x00, 0x00, 0xFF])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .transceive])
    #expect(s.operations[2].outcome == .ok)
    #expect(s.operations[2].reason == nil)
  }

  /// Discovery SELECTs refused (a tag without the NDEF application) and then the GetVersion
  /// probe: all connect, no query; two discovery SELECTs and the end of the trace: no query
  /// either.
  @Test func refusedOrRepeatedDiscoveryMakesNoQuery() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.selectNDEF, [0x6A, 0x82])
    b.apdu(Self.selectNDEF, [0x6A, 0x82])
    b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x6A, 0x81])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect])
    #expect(s.ndefStatus == nil)
    var c = TraceBuilder()
    c.activateType4()
    c.apdu(Self.selectNDEF, Self.ok)
    c.apdu(Self.selectNDEF, Self.ok)
    let t = try #require(try sessions(c).first)
    #expect(t.operations.map(\.kind) == [.connect])
    #expect(t.operations[0].lastFrame == c.frames.count - 1)
  }

  /// A held SELECT and a chained command cut at the end: the query comes before the chain's
  /// transceive, in the list and in the timeline.
  @Test func heldSelectBeforeACutChainKeepsItsPlace() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.selectNDEF, Self.ok)
    let chain = b.frames.count
    b.reader([0x13, 0x90, 0x3D, 0x00, 0x00, 0x30, 0x11])
    b.tag([0xA3])
    b.reader([0x12, 0x22, 0x22])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations[1].lastFrame == chain - 1)
    #expect(s.operations[2].firstFrame == chain)
    let lines = try streamedTimeline(b)
    let query = try #require(lines.firstIndex { $0.contains("▸ queryNDEFStatus") })
    let transceive = try #require(lines.firstIndex { $0.contains("▸ transceive") })
    #expect(query < transceive)
    #expect(lines[query + 1].hasPrefix("#\(chain - 2) "))
  }

  /// An app's own SELECT long after connect (its code ran) is no discovery: it stays the
  /// query's first step even when the app's own APDU follows.
  @Test func lateSelectIsTheApps() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.timeNs += 2_000_000_000
    b.apdu(Self.selectNDEF, Self.ok)
    b.apdu([0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], [0x91, 0xAF])
    let s = try #require(try sessions(b).first)
    // 90 71 is AuthenticateEV2First: an authentication (sixteenth session).
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .authenticate])
  }

  /// The UPDATE's 9000 seen only damaged and the reader's R(NAK) unanswered: the tag wrote
  /// (its answer shows it), so the message is not "uncertain"; the write is interrupted.
  @Test func damagedSuccessIsAWriteThatLanded() throws {
    let b = updateAnsweredDamaged()
    let r = try b.diagnose()
    #expect(r.finding("ndef-length-uncertain") == nil)
    #expect(r.finding("ndef-torn") == nil)
    let f = try #require(r.finding("write-interrupted"))
    #expect(f.message.contains("The tag acknowledged 7 bytes at offset 0"))
  }
}

@Suite struct Pass19ImportTests {
  /// A `trace list` pasted as a quote (`> ` before each line, as GitHub issues and mail
  /// replies show it) reads as the listing itself.
  @Test func quotedListingReadsAsTheListing() throws {
    let path = TestPaths.shared("derived/proxmark3-text/hf_14a_mfu.list_14a.txt")
    let plain = try String(contentsOfFile: path, encoding: .utf8)
    let quoted = plain.split(separator: "\n", omittingEmptySubsequences: false)
      .map { "> " + $0 }.joined(separator: "\n")
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("quoted-\(UUID().uuidString).txt")
    try quoted.write(to: url, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: url) }
    func frames(_ p: String) throws -> [Frame] {
      var importer = try Proxmark3TextImporter(input: try TraceInput(path: p))
      var out: [Frame] = []
      while let f = try importer.next() { out.append(f) }
      return out
    }
    let a = try frames(path)
    let b = try frames(url.path)
    #expect(a.count > 10)
    #expect(b.map(\.data) == a.map(\.data))
    #expect(b.map(\.direction) == a.map(\.direction))
  }
}

extension Pass19ImportTests {
  /// The old Proxmark3 `hf mfu dump` layout: a 48-byte header (GET_VERSION 0–7, TBO, tearing,
  /// PACK, TBO1, READ_SIG 16–47), then the pages.
  @Test func oldMFUDumpLayoutIsRead() throws {
    let pages = try [UInt8](
      Data(
        contentsOf: URL(fileURLWithPath: TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin"))
      ))
    let version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
    let signature = [UInt8](repeating: 0x5A, count: 32)
    let header = version + [UInt8](repeating: 0, count: 8) + signature
    let dump = try #require(Proxmark3MFUBinaryDump.read(header + pages, path: "old.bin"))
    #expect(dump.version == version)
    #expect(dump.signature == signature)
    #expect(dump.pages.count == pages.count / 4)
    #expect(dump.pages.first == Array(pages[0..<4]))
    #expect(dump.counters.isEmpty)
  }
}

extension Pass19ImportTests {
  /// libnfc's pn532_i2c driver logs what it sends (TX) and never what it reads: such a log is
  /// complete, not cut; its commands are shown with a warning that says why no answer is.
  @Test func libnfcLogWithoutRXLinesIsNotCut() throws {
    let log =
      [
        "debug\tlibnfc.bus.i2c\tTX: 00 00 ff 04 fc d4 4a 01 00 e1 00 ",
        "debug\tlibnfc.bus.i2c\twrote 11 bytes successfully.",
        "debug\tlibnfc.chip.pn53x\tPN53x ACKed",
        "debug\tlibnfc.bus.i2c\tTX: 00 00 ff 05 fb d4 40 01 30 03 b8 00 ",
        "debug\tlibnfc.bus.i2c\twrote 12 bytes successfully.",
      ].joined(separator: "\n") + "\n"
    var importer = try LibnfcLogImporter(input: TraceInput(path: "i2c.log", bytes: Data(log.utf8)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    #expect(frames.contains { $0.data == [0x30, 0x03] })
    #expect(
      importer.warnings.last?.message.hasPrefix(
        "the log has TX lines but no RX line: this libnfc driver (pn532_i2c)") == true)
  }
}

extension Pass19Type4CCTests {
  /// A CC read in two pieces parses only with the second: its bad MLe (in the first piece) is
  /// named on the answer that completed the CC, once.
  @Test func ccReadInPiecesStillNamesItsInvalidValues() throws {
    var b = ccSelected()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x08], [0x00, 0x0F, 0x20, 0x00, 0x0A, 0x00, 0x34, 0x04] + Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x08, 0x07], [0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00] + Self.ok)
    let found = try frameFindings(b).filter { $0.finding.code == "invalid-cc" }
    #expect(found.map(\.frame) == [b.frames.count - 1])
    #expect(found.map(\.finding.offset) == [3])
  }
}

extension Pass19HeldOperationTests {
  /// Android's detection before a second write (READ 0, then READ 4 of the TLVs just written)
  /// is a query, not a readNDEF; a READ 0 left unanswered is the presence check the tag left
  /// during, even when the tag answers the next READ.
  @Test func detectionAfterAWriteIsAQuery() throws {
    var b = written()
    b.read(0, Self.page0)
    b.read(4, [0x03, 0x09, 0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    let s = try #require(try sessions(b).first)
    #expect(
      s.operations.map(\.kind) == [
        .connect, .queryNDEFStatus, .writeNDEF, .queryNDEFStatus, .writeNDEF,
      ])
    var c = written()
    c.reader([0x30, 0x00], gapUs: 125_000)
    c.read(4, [0x03, 0x09, 0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0xFE])
    let t = try #require(try sessions(c).first)
    #expect(t.operations[3].kind == .transceive)
    #expect(t.operations[3].outcome == .interrupted)
  }

  /// libnfc-nci's NDEF detection falls back to the mapping 1.0 AID after a refused 2.0
  /// SELECT: another AID is no discovery repeat, so the query's notSupported stands.
  @Test func v1FallbackIsNoDiscoveryRepeat() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.selectNDEF, [0x6A, 0x82])
    var v1 = Self.selectNDEF
    v1[11] = 0x00
    b.apdu(Array(v1.dropLast()), [0x6A, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.ndefStatus?.status == .notSupported)
  }
}
