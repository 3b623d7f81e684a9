import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the thirteenth session: each with the value the standard or the stack gives.
@Suite struct Pass17QueryTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// NDEF detection stops when the NDEF file the CC names cannot be selected (T4T 2.0 §5.4.4):
  /// the stack reports the tag as not NDEF (Core NFC notSupported), not the CC's readWrite.
  @Test func refusedNDEFFileSelectMakesTheQueryNotSupported() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    let cc: [UInt8] = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04]
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + [0x08, 0x00, 0x00, 0x00] + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x6A, 0x82])
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.detail("status") == .string("notSupported"))
    #expect(query.detail("capacity") == nil)
    #expect(
      query.detail("rule")
        == .string(
          "SELECT NDEF file answered SW 6A82: NDEF detection stops at the NDEF file E104"))
    // Core NFC reports notSupported, not an error (as for a refused NDEF application); the
    // refusal is still the tag's fault to explain.
    #expect(query.outcome == .ok)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.coreNFCError == nil)
  }

  /// The same for READ NLEN refused (T4T 2.0 §5.4.5: the last detection step).
  @Test func refusedNLENReadMakesTheQueryNotSupported() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.detail("status") == .string("notSupported"))
    #expect(
      query.detail("rule")
        == .string(
          "READ NLEN answered SW 6982: NDEF detection stops at the NDEF file E104"))
    #expect(query.outcome == .ok)
  }

  /// 6A86 / 6B00 to a SELECT: its P1 P2 are the selection control (ISO/IEC 7816-4 §11.1.1),
  /// not an offset; it was `t4t-offset-out-of-range` with "keep offsets inside the file".
  @Test func incorrectP1P2ToSelectIsNoOffsetError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x86])
    let r = try b.diagnose()
    #expect(r.finding("t4t-offset-out-of-range") == nil)
    let f = try #require(r.finding("t4t-error-status"))
    #expect(
      f.cause == "the tag refused this form of SELECT (P1 P2) (SW 6A86 to SELECT CC file e103)")
  }

  /// An UPDATE answered 6100 was carried out (ISO/IEC 7816-4 §5.6: data waits for GET
  /// RESPONSE): a write that then never set its final NLEN is `write-unfinished` as with 9000
  /// (the 61xx answer hid it behind a warning).
  @Test func updateAnswered61xxStillCountsForAnUnfinishedWrite() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00], [0x61, 0x00])
    let r = try b.diagnose()
    #expect(r.finding("write-unfinished")?.severity == .error)
    #expect(r.finding("t4t-get-response")?.severity == .warning)
  }

  /// A Type 4 tag with a 32-byte NDEF file holding 3 bytes, its NLEN just set to 0 by a write.
  private func smallFileWriteStarted() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(maxSize: 0x20)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x03] + Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    return b
  }

  /// A write past the NDEF file (6A84) can only be the app's own sendCommand(apdu:): the
  /// message it emptied names no 401 beside `t4t-write-past-file`'s none.
  @Test func ownWritesBySizeNameNoWriteNDEFError() throws {
    var b = smallFileWriteStarted()
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x35] + [UInt8](repeating: 0x41, count: 0x35), [0x6A, 0x84])
    let r = try b.diagnose()
    #expect(r.finding("t4t-write-past-file")?.coreNFCError == nil)
    let emptied = try #require(r.finding("ndef-emptied"))
    #expect(emptied.coreNFCError == nil)
  }

  /// A tag that accepted an NLEN past its file (53 bytes in a 32-byte file, capacity 30)
  /// holds a message readers trusting the CC reject: bad content, not SUCCEEDED.
  @Test func acceptedOversizedNLENIsBadContent() throws {
    var b = smallFileWriteStarted()
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x20] + [UInt8](repeating: 0x41, count: 0x20), Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x35], Self.ok)
    let r = try b.diagnose()
    let s = try #require(r.sessions.first)
    #expect(s.findings.first?.code == "message-too-large")
    let write = try #require(s.analysis.operations.lastIndex { $0.kind == .writeNDEF })
    #expect(s.verdicts.first { $0.operation == write }?.verdict == .succeededWithBadContent)
  }

  /// A Type 4 tag with a mapping 3.0 CC (ENLEN file E104) detected, its ENLEN read as 0.
  static func emptyENLENFileQueried() -> TraceBuilder {
    var e = TraceBuilder()
    e.activateType4()
    e.selectType4CC()
    e.apdu([0x00, 0xB0, 0x00, 0x00, 0x11], TraceBuilder.enlenCC + Self.ok)
    e.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    e.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x00] + Self.ok)
    return e
  }

  /// A writer that writes a 2-byte NLEN (T4T 2.0) to a file whose CC gives a 4-byte ENLEN
  /// (mapping 3.0): readers read a wrong length and message; it was SUCCEEDED with only
  /// "message too large" (1 102 081 bytes) to say so.
  @Test func twoByteNLENOnAnENLENFile() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    e.apdu([0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00], Self.ok)
    e.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x05], Self.ok)
    let r = try e.diagnose()
    let s = try #require(r.sessions.first)
    #expect(s.findings.first?.code == "t4t-nlen-size-mismatch")
    #expect(s.findings.first?.coreNFCError == nil)
    // The ENLEN readers see (0005D101h) was never meant: no "message too large" beside it.
    #expect(r.finding("message-too-large") == nil)
    let write = try #require(s.analysis.operations.lastIndex { $0.kind == .writeNDEF })
    #expect(s.verdicts.first { $0.operation == write }?.verdict == .succeededWithBadContent)
  }

  /// NLEN and message in one UPDATE on an ENLEN file (s17): the 2-byte length counting the
  /// message written with it is the mismatch, not a message of 1 364 225 bytes.
  @Test func nlenWithMessageOnAnENLENFile() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu([0x00, 0xD6, 0x00, 0x00, 0x07, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00], Self.ok)
    let r = try e.diagnose()
    #expect(r.sessions[0].findings.map(\.code) == ["t4t-nlen-size-mismatch"])
  }

  /// A 4-byte ENLEN with the message on a 2-byte NLEN file (s18): readers see NLEN 0. It was
  /// an unfinished write ("the final NLEN never was") blamed on the session ending.
  @Test func enlenWithMessageOnAnNLENFile() throws {
    var e = TraceBuilder()
    e.activateType4()
    e.queryType4(nlen: 0)
    e.apdu(
      [0x00, 0xD6, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00],
      Self.ok)
    let r = try e.diagnose()
    let s = try #require(r.sessions.first)
    #expect(s.findings.first?.code == "t4t-nlen-size-mismatch")
    #expect(s.findings.first?.cause.hasPrefix("the writer wrote a 4-byte ENLEN") == true)
    #expect(r.finding("write-unfinished") == nil)
    #expect(r.finding("ndef-emptied") == nil)
  }

  /// A lock written at the 2.0 write-access offset (0Eh) of a mapping 3.0 CC (review s20c):
  /// it changed the maximum size's last byte; the tag stays writable.
  @Test func lockAtTheMapping20OffsetOfAMapping30CC() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], Self.ok)
    e.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0xFF], Self.ok)
    let update = e.frames.count - 2
    let f = try #require(try e.diagnose().finding("t4t-cc-lock-misplaced"))
    #expect(f.severity == .warning)
    #expect(f.frames == [update])
    #expect(f.coreNFCError == nil)
    #expect(f.message.contains("the write access is at 10h"))
  }

  /// A D7 write at offset 10000h of a T4T 3.0 file lies past the 64 KiB memory image: the
  /// report says so in a note (it dropped the bytes without a word; attack review).
  @Test func writePastTheMemoryImageIsNoted() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu(
      [0x00, 0xD7, 0x00, 0x00, 0x09, 0x54, 0x03, 0x01, 0x00, 0x00, 0x53, 0x02, 0x41, 0x41], Self.ok)
    // The image records the write when the tag acknowledges it.
    let answer = e.frames.count - 1
    let report = TagReport(session: try sessions(e)[0])
    #expect(
      report.notes.contains(
        "file E104: bytes from offset 65536 on (first at frame \(answer)) lie past the 64 KiB "
          + "memory image and are not shown"))
  }

  /// An update of the whole maximum size (0Bh–0Eh) is no lock at the wrong offset (late
  /// review: it was t4t-cc-lock-misplaced).
  @Test func maxSizeUpdateIsNoMisplacedLock() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], Self.ok)
    e.apdu([0x00, 0xD6, 0x00, 0x0B, 0x04, 0x00, 0x00, 0x10, 0xFF], Self.ok)
    #expect(try e.diagnose().finding("t4t-cc-lock-misplaced") == nil)
  }

  /// Two reads past the 64 KiB image, the higher one first: the note names the lowest offset
  /// (the memory table stops before it; late review).
  @Test func beyondImageNoteNamesTheLowestOffset() throws {
    var e = Self.emptyENLENFileQueried()
    e.apdu(
      [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x01, 0x11, 0x70, 0x02],
      [0x53, 0x02, 0x41, 0x41] + Self.ok)
    e.apdu(
      [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0xFF, 0xFA, 0x10],
      [0x53, 0x10] + Array(repeating: 0x42, count: 16) + Self.ok)
    let report = TagReport(session: try sessions(e)[0])
    #expect(
      report.notes.contains {
        $0.hasPrefix("file E104: bytes from offset 65536 on (first at frame \(e.frames.count - 1))")
      })
  }

  @Test func lengthFieldSizeHeuristic() {
    #expect(Type4LengthFieldRule.wrongSize([0x00, 0x00, 0x00, 0x14], fieldSize: 2))
    #expect(!Type4LengthFieldRule.wrongSize([0x00, 0x00, 0x00, 0x00], fieldSize: 2))
    #expect(!Type4LengthFieldRule.wrongSize([0x00, 0x02, 0xD1, 0x01], fieldSize: 2))
    #expect(Type4LengthFieldRule.wrongSize([0x00, 0x02, 0xD1, 0x01], fieldSize: 4))
    #expect(!Type4LengthFieldRule.wrongSize([0x00, 0x00, 0x00, 0x02, 0xD1, 0x01], fieldSize: 4))
  }

  /// A refused UPDATE's reason names the command once, and an ENLEN file's answers say ENLEN
  /// as its commands do (T4T 3.0); they said "UPDATE NLEN refused: UPDATE NLEN failed: …"
  /// and "UPDATE NLEN: 4 byte(s) written" after "UPDATE ENLEN 0".
  @Test func refusalReasonAndENLENLabels() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(
      s.operations.last?.reason == "UPDATE NLEN refused: SW 6982 security status not satisfied")

    var e = TraceBuilder()
    e.activateType4()
    e.selectType4CC()
    e.apdu([0x00, 0xB0, 0x00, 0x00, 0x11], TraceBuilder.enlenCC + Self.ok)
    e.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    e.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00], Self.ok)
    let (frames, _) = decodeAll(e.frames)
    let answer = try #require(frames.last?.layer(.type4))
    #expect(answer.summary == "UPDATE ENLEN: 4 byte(s) written at offset 0")
  }
}

/// NFC-F (JIS X 6319-4, NFC Forum Digital §8, T3T 1.0 §5): frames decoded, the IDm identifies
/// the card. They were kept raw ("not decoded yet"), and a card's session had no identity.
@Suite struct Pass17FeliCaTests {
  private static func nfcF(_ index: Int, _ dir: Direction, _ body: [UInt8], timeUs: Int64)
    -> Frame
  {
    let crc = CRC.crcF(body)
    var f = TestFrame.make(index, dir, body + [UInt8(crc >> 8), UInt8(crc & 0xFF)])
    f.timeNs = timeUs * 1000
    f.technology = .nfcF
    return f
  }

  private static let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA]
  private static let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]

  @Test func pollingCheckAndUpdateAreDecoded() {
    let frames = [
      Self.nfcF(0, .reader, [0x06, 0x00, 0x12, 0xFC, 0x01, 0x03], timeUs: 0),
      Self.nfcF(1, .tag, [0x14, 0x01] + Self.idm + Self.pmm + [0x12, 0xFC], timeUs: 3000),
      // CHECK: 1 service (000B, little-endian), 2 blocks: 2-byte elements 80 00 and 80 01.
      Self.nfcF(
        2, .reader, [0x12, 0x06] + Self.idm + [0x01, 0x0B, 0x00, 0x02, 0x80, 0x00, 0x80, 0x01],
        timeUs: 6000),
      Self.nfcF(
        3, .tag,
        [0x2D, 0x07] + Self.idm + [0x00, 0x00, 0x02] + [UInt8](repeating: 0x10, count: 32),
        timeUs: 8000),
      // UPDATE block 1 (3-byte element 00 01 00) of service 0009, refused with A1.
      Self.nfcF(
        4, .reader,
        [0x21, 0x08] + Self.idm + [0x01, 0x09, 0x00, 0x01, 0x00, 0x01, 0x00]
          + [UInt8](repeating: 0xAA, count: 16), timeUs: 10000),
      Self.nfcF(5, .tag, [0x0C, 0x09] + Self.idm + [0x01, 0xA1], timeUs: 12000),
    ]
    let (out, _) = decodeAll(frames)
    #expect(out.allSatisfy { $0.frame.crc == .ok && $0.undecodedReason == nil })
    #expect(
      out.map { $0.innermost?.summary ?? "" } == [
        "SENSF_REQ system code 12FC (NDEF, Type 3 Tag), system code request, 4 time slot(s)",
        "SENSF_RES IDm 01 2e 4c d8 a3 16 52 ba, system code 12FC (NDEF, Type 3 Tag)",
        "CHECK blocks 0, 1 of service 000B (NDEF)",
        "CHECK ok: 2 block(s) → 10 10 10 10 … — Attribute Information: Ver 1.0, Nbr 16, "
          + "Nbw 16, NmaxB 4112 (65792 bytes), WriteF 10, RW 10, Ln 1052688, checksum wrong",
        "UPDATE block 1 of service 0009 (NDEF)",
        "UPDATE refused: status flags 01 a1 (illegal number of services, block list element 1)",
      ])
    #expect(out[0].startsActivation)
    #expect(out[1].completedUID == Self.idm)
    #expect(out[3].completedUID == nil)  // the same card
    #expect(out[5].innermost?.field("success") == .bool(false))
  }

  /// A damaged CRC-F is bad; a LEN that does not fit the frame keeps it raw with the reason.
  @Test func badCRCAndWrongLength() {
    var bad = Self.nfcF(0, .reader, [0x06, 0x00, 0xFF, 0xFF, 0x00, 0x00], timeUs: 0)
    bad.data[7] ^= 0xFF
    var short = TestFrame.make(1, .tag, [0x12, 0x01, 0x01])
    short.technology = .nfcF
    let (out, _) = decodeAll([bad, short])
    #expect(out[0].frame.crc == .bad)
    #expect(out[0].innermost?.name == "SENSF_REQ")
    #expect(
      out[1].undecodedReason
        == "NFC-F frame: LEN 18 does not match the frame's 3 bytes (LEN counts itself and the "
        + "payload, CRC-F follows)")
  }

  /// A CHECK whose block list is cut (2 blocks announced, 1 element) stays raw with the
  /// reason; a CHECK answer with fewer than 16 bytes per block says so.
  @Test func cutBlockListsAreNamed() {
    let cut = Self.nfcF(
      0, .reader, [0x10, 0x06] + Self.idm + [0x01, 0x0B, 0x00, 0x02, 0x80, 0x00], timeUs: 0)
    let short = Self.nfcF(
      1, .tag, [0x1D, 0x07] + Self.idm + [0x00, 0x00, 0x02] + [UInt8](repeating: 0, count: 16),
      timeUs: 2000)
    let (out, _) = decodeAll([cut, short])
    #expect(out[0].undecodedReason == "CHECK is too short (16 bytes with LEN) for its parameters")
    #expect(
      out[1].innermost?.summary
        == "CHECK ok: 2 block(s) → 00 00 00 00 … — 16 data bytes for 2 block(s) of 16")
  }

  /// A successful CHECK answer that stops at its status flags says it is cut (it showed a
  /// bare `CHECK ok`).
  @Test func checkAnswerWithoutBlockCountIsNamed() {
    let cut = Self.nfcF(0, .tag, [0x0C, 0x07] + Self.idm + [0x00, 0x00], timeUs: 0)
    let (out, _) = decodeAll([cut])
    #expect(
      out[0].innermost?.summary
        == "CHECK ok — no block count or data after the status flags (cut short)")
  }

  /// A real NFC-Laboratory capture of three polls: each is a connect of the card, whose IDm
  /// is the session's identifier (no ISO/IEC 7816-6 manufacturer: an IDm is not a UID).
  @Test func nfcLabFeliCaSessionHasTheIDm() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-F_212kbps_004.json")
    let input = try TraceInput(path: path)
    let format = try FormatRegistry(BuiltinFormats.all).detect(input)
    let s = try #require(try SessionAnalysisRun(importer: try format.open(input)).sessions.first)
    #expect(s.tag.uidString == "01:2E:4C:D8:A3:16:52:BA")
    #expect(s.tag.manufacturer == nil)
    #expect(s.operations.map(\.kind) == [.connect])
    #expect(s.operations.map(\.outcome) == [.ok])
  }
}

/// Type 2 diagnoses of the thirteenth session's write-failure pass.
@Suite struct Pass17Type2Tests {
  /// An NTAG213 (GET_VERSION) whose CC (144-byte data area) and empty NDEF TLV were read.
  private func emptyNTAG213() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    return b
  }

  /// An app's page loop writes a 207-byte message (TLV length CF) to an NTAG213 (capacity 142)
  /// until the tag NAKs page 45. The root cause is the size: `message-too-large` leads, and the
  /// torn message it left says a rewrite fails the same way (it said "write it again while the
  /// tag is held still", Core NFC 401), and that pages 45–56 do not exist.
  @Test func tooLargeMessageLeadsItsTornWrite() throws {
    var b = emptyNTAG213()
    b.write(4, [0x03, 0xCF, 0xD1, 0x01])
    for page in 5...44 { b.write(page, [0x79, 0x79, 0x79, 0x79]) }
    b.write(45, [0x79, 0x79, 0x79, 0x79], .nak(0x00))
    let r = try b.diagnose()
    let s = try #require(r.sessions.first)
    #expect(s.findings.first?.code == "message-too-large")
    #expect(
      s.findings.first?.cause
        == "the message its NDEF TLV length announces (207 bytes) is larger than the tag's "
        + "capacity (142 bytes)")
    let torn = try #require(r.finding("ndef-torn"))
    #expect(torn.coreNFCError == nil)
    // The NAK past the last page answered the app's own sendMiFareCommand: 102, not 401.
    #expect(r.finding("t2t-nak-beyond-memory")?.coreNFCError == .tagResponseError)
    #expect(torn.fix.hasPrefix("Shorten the message to at most 142 bytes"))
    #expect(
      torn.message.contains(
        "45 past the tag's last page 44 (bytes 180–224, pages 45–56): the tag has no such memory"))
  }
}

extension Pass17Type2Tests {
  /// A tag without GET_VERSION NAKs the probe and goes idle: the READ after it gets no answer
  /// until the reader activates it again. That is no phone moving away (it was an error,
  /// Core NFC 100, "hold the phone flat"): a note when the reader re-activated and read the
  /// tag, an error with the fix to re-activate after a NAK when it did not.
  @Test func readIgnoredAfterANAKedProbe() throws {
    func trace(reactivate: Bool) -> TraceBuilder {
      var b = TraceBuilder()
      b.activateType2(version: nil)
      b.reader([0x60])
      b.add4Bit(0x00)
      b.reader([0x30, 0x03])
      if reactivate {
        b.activateType2(version: nil)
        b.read(3, page3(cc: [0xE1, 0x10, 0x06, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
      }
      return b
    }
    let recovered = try #require(try trace(reactivate: true).diagnose().finding("read-interrupted"))
    #expect(recovered.severity == .info)
    #expect(recovered.coreNFCError == nil)
    #expect(
      recovered.cause
        == "the tag went idle after it refused GET_VERSION (NAK), and did not answer "
        + "queryNDEFStatus without a reactivation")
    let stuck = try #require(try trace(reactivate: false).diagnose().finding("read-interrupted"))
    #expect(stuck.severity == .error)
    #expect(stuck.coreNFCError == .tagConnectionLost)
    #expect(stuck.fix.hasPrefix("After any NAK, activate the tag again"))
  }
}

extension Pass17Type2Tests {
  /// A write that cleared the length (`03 00`) and stopped: on a tag the session had read
  /// empty, no old message was lost (it said "The old message is gone").
  @Test func emptiedTagThatWasEmptyLostNothing() throws {
    var b = emptyNTAG213()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x0C, 0x55, 0x04, 0x65], .none)
    let f = try #require(try b.diagnose().finding("ndef-emptied"))
    #expect(f.message.contains("The tag held an empty message before and still does"))
    #expect(!f.message.contains("The old message is gone"))
  }
}

/// `report` of Type 4 tags gets the notes Type 2 reports had: a write left torn or unconfirmed
/// was shown as a clean message with no note.
@Suite struct Pass17ReportTests {
  @Test func type4ReportNotesUnacknowledgedBytesAndAChangedNLEN() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 3)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x03], [0xD0, 0x00, 0x00, 0x90, 0x00])
    // NLEN first (unsafe order), then data the tag never answers.
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x08], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x08, 0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62], nil)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let report = TagReport(session: s)
    #expect(
      report.notes == [
        "file E104 bytes 2–9 written without acknowledgement: the tag may hold the old or the "
          + "new bytes there, and the message may mix both",
        "the NLEN is now 8 (was 3) but writeNDEF ended interrupted: unless every byte it "
          + "announces was written, the message is torn (nfctrace diagnose tells which)",
      ])
  }
}

extension Pass17Type2Tests {
  /// The same WRITE refused with NAK 5 three times: one `t2t-nak-eeprom-error` with every
  /// attempt as evidence (it was three, counted as three errors), and no `command-retried`
  /// (NAK 5 is an answer, not radio damage; it said "no answer or a damaged one", Core NFC 101).
  @Test func repeatedNAK5IsOneFindingAndNoRetryOfDamage() throws {
    var b = emptyNTAG213()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    for _ in 0..<3 { b.write(5, [0x0C, 0x55, 0x04, 0x65], .nak(0x05)) }
    let r = try b.diagnose()
    #expect(r.codes.filter { $0 == "t2t-nak-eeprom-error" }.count == 1)
    #expect(r.finding("t2t-nak-eeprom-error")?.frames.count == 6)
    #expect(
      r.finding("t2t-nak-eeprom-error")?.message.hasSuffix(
        "The same happened 3 times in this operation.") == true)
    #expect(r.finding("command-retried") == nil)
  }
}

extension Pass17Type2Tests {
  /// A writer that writes a 47-byte message straight through the 8 bytes a Memory Control
  /// TLV reserves (`02 03 30 08 04`: page 12–13) acknowledged on every page: it did not stop,
  /// so the write is not interrupted ("only 41 of them were written"); its verdict is the bad
  /// content, with the reserved-area finding as the cause.
  @Test func writeThroughAReservedAreaIsNoTornWrite() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x02, 0x03, 0x30, 0x08, 0x04, 0x03, 0x00, 0xFE])
    let message: [UInt8] =
      [0xD1, 0x01, 0x2B, 0x55, 0x04] + Array("example.com/".utf8)
      + [UInt8](repeating: 0x6D, count: 30)
    let bytes = [0x04, 0x03, 0x00] + message + [0xFE]
    // Pages 5…: the NDEF TLV after the Memory Control TLV (byte 20 on), length 0 first.
    var pages: [[UInt8]] = stride(from: 0, to: bytes.count, by: 4).map {
      Array((bytes[$0...] + [0, 0, 0, 0]).prefix(4))
    }
    for (i, p) in pages.enumerated() { b.write(5 + i, p) }
    pages[0][2] = UInt8(message.count)
    b.write(5, pages[0])
    let r = try b.diagnose()
    let s = try #require(r.sessions.first)
    let write = try #require(s.analysis.operations.lastIndex { $0.kind == .writeNDEF })
    #expect(s.analysis.operations[write].outcome == .ok)
    #expect(s.verdicts.first { $0.operation == write }?.verdict == .succeededWithBadContent)
    #expect(s.findings.first?.code == "t2t-write-into-reserved-area")
  }
}

extension Pass17Type2Tests {
  /// A WRITE answered NAK 1 three times: the write's own finding gives 401; the retries are
  /// radio context and give no second error (it said 101 beside the 401).
  @Test func retriedNAK1GivesOneError() throws {
    var b = emptyNTAG213()
    for _ in 0..<3 { b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x01)) }
    let r = try b.diagnose()
    #expect(r.finding("t2t-nak-transmission-error")?.coreNFCError == .tagUpdateFailure)
    let retried = try #require(r.finding("command-retried"))
    #expect(retried.coreNFCError == nil)
  }
}

/// Importers meeting other tools' files.
@Suite struct Pass17ImportTests {
  /// A `trace list` paste cut inside the first column of its last row (`      10728`, no line
  /// end; also after a colour escape) is a cut file (exit 3), not a skipped line (exit 0).
  @Test func listingCutInsideTheStartColumn() throws {
    let listing = try String(
      decoding: Data(
        contentsOf: URL(
          fileURLWithPath: TestPaths.shared(
            "derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt"))), as: UTF8.self)
    let row = try #require(listing.range(of: "      74164 |"))
    for tail in ["      74164", "\u{1B}[33m      74164"] {
      let cut = String(listing[..<row.lowerBound]) + tail
      let run = try SessionAnalysisRun(
        importer: Proxmark3TextImporter(input: TraceInput(path: "c.txt", bytes: Data(cut.utf8))))
      #expect(run.error?.kind == .truncated)
      #expect(run.error?.location.record == 13)
    }
  }
}

extension Pass17ImportTests {
  /// libnfc's pn532_uart driver wakes the PN532 with `55 55` and zeros (PN532 user manual
  /// §7.2.11) before the first command, alone or in the same write: no frame, no warning (it
  /// gave "15 byte(s) outside a PN53x frame" and "incomplete PN53x command" on every log).
  @Test func pn532WakeUpIsNoGarbage() throws {
    for wake in [
      "TX: 55 55 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \ndebug\tlibnfc.bus.uart\tTX: 00 00 ff 02 fe d4 02 2a 00 ",
      "TX: 55 55 00 00 00 00 00 00 00 00 ff 02 fe d4 02 2a 00 ",
    ] {
      let log =
        "debug\tlibnfc.driver.pn532_uart\tAttempt to open: /dev/ttyUSB0 at 115200 baud.\n"
        + "debug\tlibnfc.bus.uart\t" + wake + "\n"
        + "debug\tlibnfc.bus.uart\tRX: 00 00 ff 00 ff 00 \n"
        + "debug\tlibnfc.bus.uart\tRX: 00 00 ff 06 fa \ndebug\tlibnfc.bus.uart\tRX: d5 03 \n"
        + "debug\tlibnfc.bus.uart\tRX: 32 01 06 07 \ndebug\tlibnfc.bus.uart\tRX: e8 00 \n"
      var importer = try LibnfcLogImporter(input: TraceInput(path: "u.log", bytes: Data(log.utf8)))
      while try importer.next() != nil {}
      #expect(importer.warnings.isEmpty)
    }
    #expect(
      PN53xHostLink.droppingHSUWakeUp([0x55, 0x55, 0x00, 0x00, 0x00, 0xFF, 0x02]) == [
        0x00, 0xFF, 0x02,
      ])
    #expect(PN53xHostLink.droppingHSUWakeUp([0x55, 0x55, 0x01]) == [0x55, 0x55, 0x01])
  }
}

extension Pass17Type2Tests {
  /// A NAK to a WRITE of page 4 on an NTAG213 whose lock bytes (page 2) and AUTH0 (CFG0,
  /// page 41 = FFh) the session read: they leave the page writable, so the finding says
  /// neither explains it (it said "the trace does not show which" and asked to read them).
  @Test func unexplainedNAKWithTheConfigurationKnown() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(41, [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x00))
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(
      f.message.contains(
        "The lock bits and the password are ruled out (the lock bits read in this session leave "
          + "it writable; AUTH0 read in this session leaves the page free)"))
    #expect(!f.fix.contains("to see which applies"))
    // AUTH0 FFh was read: sending PWD_AUTH cannot help (the fix suggested it).
    #expect(!f.fix.contains("PWD_AUTH"))
    #expect(f.fix.contains("neither a password nor a lock is the cause"))
  }

  /// A tag that NAKed GET_VERSION is no NTAG21x or Ultralight EV1: the fix names the
  /// Ultralight C's 3DES authentication, not PWD_AUTH.
  @Test func unexplainedNAKOnATagWithoutGetVersion() throws {
    var b = TraceBuilder()
    b.activateType2(version: nil)
    b.reader([0x60])
    b.add4Bit(0x00)
    b.activateType2(version: nil)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x00))
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.fix.contains("AUTHENTICATE 1A 00"))
    #expect(!f.fix.contains("PWD_AUTH"))
  }
}

extension Pass17Type2Tests {
  /// A writer that skips an unaligned reserved area (Memory Control TLV `02 03 32 04`: bytes
  /// 50–53) writes its old bytes (00) back with the pages around it: that is no write into
  /// the area, and a write that stopped after page 12 is still unfinished (review: the
  /// reserved-area exemption took any write of those bytes as message data).
  @Test func skippedUnalignedReservedAreaKeepsAStopUnfinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x02, 0x03, 0x32, 0x04, 0x04, 0x03, 0x00, 0xFE])
    b.write(5, [0x04, 0x03, 0x28, 0xD1])
    for page in 6...11 { b.write(page, [0x6D, 0x6D, 0x6D, 0x6D]) }
    b.write(12, [0x6D, 0x6D, 0x00, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last { $0.kind == .writeNDEF })
    #expect(write.detail("unfinished") == .string("message-data"))
    #expect(try b.diagnose().finding("t2t-write-into-reserved-area") == nil)
  }
}

extension Pass17Type2Tests {
  /// An NTAG213 whose CC declares 872 bytes (CC2 6D) past its 144: a writeNDEF trusting the
  /// CC writes past the user memory itself, so the NAK at page 45 stays writeNDEF's 401 and the
  /// overflow finding says the CC sent it there (review: it was relabelled the app's own 102).
  @Test func ccOverstatingMemoryKeepsWriteNDEFsError() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x6D, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    for page in 5...44 { b.write(page, [0x79, 0x79, 0x79, 0x79]) }
    b.write(45, [0x79, 0x79, 0x79, 0x79], .nak(0x00))
    let r = try b.diagnose()
    #expect(r.finding("t2t-cc-exceeds-memory") != nil)
    #expect(r.finding("t2t-nak-beyond-memory")?.coreNFCError == .tagUpdateFailure)
    let overflow = try #require(r.finding("t2t-write-past-data-area"))
    #expect(
      overflow.message.hasSuffix(
        "The CC declares a data area up to page 221, past the user memory "
          + "(t2t-cc-exceeds-memory): Core NFC's writeNDEF, trusting it, writes there too."))
  }
}
