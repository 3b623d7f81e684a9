import Foundation
import Testing

@testable import NFCTrace

/// Findings of the eleventh session's passes (ISO-DEP/Type 4 edge cases, Type 2 memory audit,
/// new user): each with the value the standard or datasheet gives.
/// `frame` as a capture that kept only its first `keeping` bytes leaves it (a pcap snap
/// length, NFC-Laboratory's truncated flag): no CRC to check, flag `truncated`.
func cutByCapture(_ frame: inout Frame, keeping: Int) {
  frame.data = Array(frame.data.prefix(keeping))
  frame.crc = .notCaptured
  frame.sourceFlags = ["truncated"]
}

@Suite struct Pass15ISODEPTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// Activation and the NDEF query (NLEN 0) with I-blocks numbered by hand; returns the next
  /// reader block number.
  private func queried(_ b: inout TraceBuilder) -> UInt8 {
    b.activateType4()
    b.queryType4()
    // selectType4CC (2) + READ CC + SELECT E104 + READ NLEN: 5 exchanges from block 0.
    return 1
  }

  /// The write finishes (final NLEN answered 9000), then the phone's presence checks go
  /// unanswered because the tag was taken away: writeNDEF had returned, it is not interrupted
  /// (it was `interrupted`, Core NFC 100).
  @Test(arguments: [[0xB2], [0xA2], [0x02]] as [[UInt8]])
  func unansweredPresenceCheckAfterTheLastAnswerInterruptsNothing(_ check: [UInt8]) throws {
    var b = TraceBuilder()
    var n = queried(&b)
    for c: [UInt8] in [
      [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00],
      [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03],
    ] {
      b.reader([0x02 | n] + c)
      b.tag([0x02 | n] + Self.ok)
      n ^= 1
    }
    // R(NAK)/R(ACK) with the reader's next number, or an empty I-block (ISO/IEC 14443-4 §7.5.6).
    let pcb = check[0] | n
    b.reader([pcb], gapUs: 100_000)
    b.reader([pcb], gapUs: 100_000)
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .ok)
    let report = try b.diagnose()
    #expect(report.finding("write-interrupted") == nil)
  }

  /// A write that only set NLEN 0 over the old message, then the tag left (its presence check
  /// unanswered): interrupted, not a finished write.
  @Test func presenceSilenceAfterOnlyNLENZeroInterruptsTheWrite() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.reader([0xB2], gapUs: 100_000)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .interrupted)
  }

  /// The tag's final answer after an S(WTX) exchange was missed; the reader's next I-block
  /// toggled: unknown, as without S(WTX) (it was interrupted).
  @Test func missedAnswerAfterWTXIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 3)
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x03])
    b.tag([0xF2, 0x01])
    b.reader([0xF2, 0x01])
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02], gapUs: 5_000)
    b.tag([0x02, 0x00, 0x03, 0x90, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded.flatMap { $0.findings.map(\.code) } == ["answer-not-captured"])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.contains { $0.detail("answer_not_captured") != nil })
    #expect(!s.operations.contains { $0.outcome == .interrupted })
  }

  /// A damaged answer whose reader went on (toggled block): the outcome is unknown, not ok.
  @Test func damagedAnswerThenToggledBlockIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00])
    b.tag([0x03, 0x90, 0x00], badCRC: true)
    b.reader([0x02, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03])
    b.tag([0x02, 0x90, 0x00])
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF && write.outcome == .unknown)
  }

  /// A presence check left unanswered while an APDU is outstanding is still the tag's silence.
  @Test func rNAKAfterAnUnansweredAPDUStillInterrupts() throws {
    var b = TraceBuilder()
    let n = queried(&b)
    b.reader([0x02 | n, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00])
    b.reader([0xB2 | n], gapUs: 100_000)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .interrupted)
  }

  /// 6A84 to an UPDATE past the CC's NDEF file size: the writer wrote more than fits, which
  /// writeNDEF never sends (402 first): `t4t-write-past-file` without 401 (it was the generic
  /// `t4t-error-status` → 401).
  @Test func sw6A84PastTheFileIsTheWritersOwnOverflow() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(maxSize: 0x0020)
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    b.tag([0x02, 0x00, 0x00, 0x90, 0x00])
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x02, 0x28] + Array(repeating: 0x78, count: 40))
    b.tag([0x03, 0x6A, 0x84])
    let f = try #require(try b.diagnose().finding("t4t-write-past-file"))
    #expect(f.severity == .error && f.coreNFCError == nil)
    #expect(
      f.message.contains("the write ends at byte 42, and the CC gives the NDEF file 32 bytes"))
  }

  /// 6700 to a READ BINARY whose Le (20) exceeds the CC's MLe (16): named as such (it was the
  /// generic `t4t-wrong-length`, whose fix spoke of writeNDEF).
  @Test func readLargerThanMLeRefusedIsNamed() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x10, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x14] + Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x14], [0x67, 0x00])
    let f = try #require(try b.diagnose().finding("t4t-le-exceeds-mle"))
    #expect(f.severity == .error)
    #expect(
      f.message.hasPrefix("The READ BINARY asked for 20 bytes (Le) but the tag's CC sets MLe = 16"))
  }

  /// A READ BINARY answered with 2 of the message's 5 bytes, then the tag leaves: the
  /// unanswered presence checks after it do interrupt readNDEF (its procedure had not
  /// finished). Only after a finished procedure are they harmless.
  @Test func presenceCheckSilenceInterruptsAnUnfinishedRead() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x02], [0xD0, 0x00] + Self.ok)
    b.reader([0xB2], gapUs: 100_000)
    b.reader([0xB2], gapUs: 100_000)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .readNDEF)
    #expect(s.operations.last?.outcome == .interrupted)
  }

  /// A reader block damaged in the sniffer's copy still counts: the tag answered it, and the
  /// reader's next block has the next number (it was flagged `unexpected-block-number`).
  @Test func damagedReaderBlockStillCounts() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02], badCRC: true)
    b.tag([0x02, 0x00, 0x00, 0x90, 0x00])
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x00, 0x02])
    b.tag([0x03, 0x00, 0x00, 0x90, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    #expect(!decoded.flatMap { $0.findings.map(\.code) }.contains("unexpected-block-number"))
  }

  /// An UPDATE's answer cut by the capture (no status word in it): the write's outcome is not
  /// known and its bytes stay unacknowledged (it was "SUCCEEDED").
  @Test func cutAnswerLeavesTheWriteUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], Self.ok)
    var frames = b.frames
    let last = frames.count - 1
    cutByCapture(&frames[last], keeping: 1)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.operations.last?.outcome == .unknown)
    let image = try #require(s.memory.filesEnd[0xE104])
    #expect(image.state(2) == .unacknowledged)
  }

  /// An answer the capture cut before its first byte (NFC-Laboratory truncated flag, no data)
  /// is an answer whose content is lost: the write is unknown (it was FAILED, "got no answer").
  @Test func answerCutBeforeItsFirstByteIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], Self.ok)
    var frames = b.frames
    let last = frames.count - 1
    cutByCapture(&frames[last], keeping: 0)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .unknown)
  }

  /// The 9000 to the data's UPDATE is missing from the capture, but the reader's next I-block
  /// toggled its number, which it does only on receiving an answer (ISO/IEC 14443-4 §7.5.3 PCD
  /// rule B): the sniffer missed it. Not `unexpected-block-number` and not an interruption.
  @Test func toggledBlockNumberAfterASilenceMeansTheAnswerWasMissed() throws {
    var b = TraceBuilder()
    var n = queried(&b)
    b.reader([0x02 | n, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00])
    b.tag([0x02 | n] + Self.ok)
    n ^= 1
    b.reader([0x02 | n, 0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00])
    let unanswered = b.frames.count - 1
    n ^= 1
    b.reader([0x02 | n, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], gapUs: 1_500)
    b.tag([0x02 | n] + Self.ok)
    let (decoded, _) = decodeAll(b.frames)
    let toggled = decoded[unanswered + 1].findings.map(\.code)
    #expect(toggled == ["answer-not-captured"])
    #expect(decoded[unanswered + 1].findings.first?.frames == [unanswered, unanswered + 1])
    // What the missed answer said is not known: the outcome and the verdict are `unknown`,
    // neither an interruption blamed on the tag nor a success.
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .unknown)
    #expect(s.operations.last?.detail("answer_not_captured") == .int(unanswered))
    let report = try b.diagnose()
    #expect(report.finding("write-interrupted") == nil)
    #expect(report.sessions.first?.verdicts.last?.verdict == .unknown)
    let missed = try #require(report.finding("answer-not-captured"))
    #expect(missed.severity == .info && missed.frames == [unanswered])
  }

  /// The writer replaced the old 47-byte message's bytes while NLEN 47 stood, then lost the
  /// tag: `unsafe-write-order` (data first), as on Type 2 (it had only write-interrupted).
  @Test func type4DataOverTheOldMessageBeforeNLENIsUnsafe() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 47)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x20] + Array(repeating: 0x78, count: 32), Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x22, 0x20] + Array(repeating: 0x78, count: 32), nil)
    let f = try #require(try b.diagnose().finding("unsafe-write-order"))
    #expect(
      f.cause == "the message data was written over the old message while its NLEN still stood")
    #expect(f.frames == [b.frames.count - 3])
  }

  /// The sniffer missed the middle part of the tag's chained answer: the reader's R(ACK)
  /// toggled (it received that part). The chain has a hole, so its bytes are not handed on as
  /// the answer (they were joined and placed at wrong offsets).
  @Test func missedMiddlePartOfATagChainLeavesAHole() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x09])
    b.tag([0x12, 0x01, 0x02, 0x03])
    b.reader([0xA3])
    // The tag's I(1) chained part 04 05 06 is not in the capture.
    b.reader([0xA2], gapUs: 800)
    b.tag([0x02, 0x07, 0x08, 0x09, 0x90, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    let codes = decoded.flatMap { $0.findings.map(\.code) }
    #expect(codes == ["answer-not-captured"])
    let last = try #require(decoded.last)
    #expect(last.innermost?.summary == "I-block 0 (last of a chain with a part not captured)")
    #expect(last.layer(.iso7816) == nil)
  }

  /// A data UPDATE the capture cut (its header only) stays in the writeNDEF it belongs to (it
  /// split it into writeNDEF · transceive · writeNDEF).
  @Test func cutUpdateStaysInTheWrite() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], Self.ok)
    var frames = b.frames
    let cut = frames.count - 4
    cutByCapture(&frames[cut], keeping: 5)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
  }

  /// While the tag chains its answer, a chained block arrives damaged; the reader sends R(ACK)
  /// with the same number again (ISO/IEC 14443-4 §7.5.4 rule 5) and the tag repeats the block.
  /// The damaged block does not count, so the second R(ACK) has the expected number.
  @Test func damagedChainedBlockDoesNotToggleTheNumbers() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x08])
    b.tag([0x12, 0x01, 0x02, 0x03])
    b.reader([0xA3])
    b.tag([0x13, 0x04, 0x05, 0x06], badCRC: true)
    b.reader([0xA3])
    b.tag([0x13, 0x04, 0x05, 0x06])
    b.reader([0xA2])
    b.tag([0x02, 0x07, 0x08, 0x90, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    let codes = decoded.flatMap { $0.findings.map(\.code) }
    #expect(!codes.contains("unexpected-block-number"))
    #expect(codes.filter { $0 == "bad-crc" }.count == 1)
    // 3 + 3 + 4 bytes: the repeated block replaced the damaged one.
    #expect(decoded.last?.layer(.isoDEP)?.field("reassembled_length") == .int(10))
    #expect(decoded.last?.innermost?.summary == "READ BINARY: 8 byte(s)")
  }
}

@Suite struct Pass15Type2Tests {
  static let ntag213: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
  static let ntag215: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

  private func analysed(_ b: TraceBuilder) throws -> SessionAnalysis {
    try #require(try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
  }

  /// Page 3 (CC) and page 2's lock bytes are one-time programmable: a WRITE ORs its bits in.
  /// Written without reading them first, a 00 byte tells nothing (it was `00`, so the CC read
  /// "notSupported (CC0 is 0x00)"), and BCC1/internal byte cannot be written at all.
  @Test func otpWritesToUnreadPagesLeaveTheUnsetBytesUnknown() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.write(3, [0x00, 0x00, 0x00, 0x0F])
    b.write(2, [0x00, 0x00, 0x08, 0x00])
    let s = try analysed(b)
    let image = s.memory.type2End
    #expect(image.known(12, 3) == nil)
    #expect(image.known(15, 1) == [0x0F])
    #expect(image.known(8, 2) == nil)
    #expect(image.known(10, 1) == [0x08])
    #expect(image.known(11, 1) == nil)
    let report = TagReport(session: s)
    #expect(report.end.status == nil)
    #expect(report.end.locks?.lock0 == 0x08 && report.end.locks?.lock1 == nil)
  }

  /// When the page was read, the OR applies and keeps BCC1 and the internal byte. (LOCK0 02h:
  /// BL 9–4 freezes the lock bits of pages 4–9, not the CC's; 01h, BL-CC, would freeze it.)
  @Test func otpWritesToReadPagesAreORed() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x02, 0x00]
        + [0xE1, 0x10, 0x3E, 0x00])
    b.write(3, [0x00, 0x00, 0x00, 0x0F])
    b.write(2, [0x00, 0x00, 0x08, 0x00])
    let image = try analysed(b).memory.type2End
    #expect(image.known(8, 8) == [0x44, 0x48, 0x0A, 0x00, 0xE1, 0x10, 0x3E, 0x0F])
  }

  /// A lock write the tag never acknowledged may or may not have been programmed: the report
  /// does not state the pages it would lock as locked.
  @Test func unacknowledgedDynamicLockWriteLocksNothingForSure() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(130, [0x00, 0x00, 0x00, 0xBD])
    b.write(130, [0xFF, 0xFF, 0xFF, 0x00], .none)
    let report = TagReport(session: try analysed(b))
    #expect(report.end.locks?.dynamic == nil)
    #expect(
      report.end.unknowns.contains(
        "dynamic lock page 130 written without acknowledgement: whether its bits are set is "
          + "unknown"))
  }

  /// NTAG213 with the factory Lock Control TLV: a 137-byte message fills the data area
  /// (pages 4–39); the app's loop writes the Terminator into page 40, the dynamic lock bytes
  /// (7 bits set for good). That is `t2t-write-past-data-area`, not a success.
  @Test func terminatorWrittenIntoTheDynamicLockPageIsAnOverflow() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
    // Lock Control TLV (5 bytes) then the NDEF TLV at byte 21: T, L = 137, 137 value bytes.
    var area: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x89]
    area += [0xD1, 0x01, 0x85, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x61, count: 130)
    #expect(area.count == 144)
    for page in 0..<36 { b.write(4 + page, Array(area[(page * 4)..<(page * 4 + 4)])) }
    b.write(40, [0xFE, 0x00, 0x00, 0x00])
    let report = try b.diagnose()
    let f = try #require(report.finding("t2t-write-past-data-area"))
    #expect(f.severity == .error)
    #expect(f.message.contains("page 40 ← fe 00 00 00 (dynamic lock bytes: 7 bits set for good"))
  }

  /// A writeLock that set CC3 to 0F and the static lock bytes but not the NTAG215's dynamic
  /// lock bytes (read as 00): queryNDEFStatus says .readOnly, yet pages 16–127 stay writable
  /// (it said "SUCCEEDED — no problem found").
  @Test func writeLockWithoutTheDynamicBitsLeavesPagesWritable() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x00, 0x00]
        + [0xE1, 0x10, 0x3E, 0x00])
    b.read(130, [0x00, 0x00, 0x00, 0xBD])
    b.write(3, [0x00, 0x00, 0x00, 0x0F])
    b.write(2, [0x00, 0x00, 0xFF, 0xFF])
    let f = try #require(try b.diagnose().finding("t2t-lock-incomplete"))
    #expect(f.severity == .warning && f.coreNFCError == nil)
    #expect(f.cause == "the lock left pages 16–127 of the data area writable")
  }

  /// The NDEF TLV of an NTAG213 (after its Lock Control TLV) announces 140 bytes where the
  /// data area holds 137 after it: corrupt on the tag (it said "no writes, nothing failed").
  @Test func ndefLengthPastTheDataAreaIsCorrupt() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x8C, 0xD1])
    let f = try #require(try b.diagnose().finding("t2t-ndef-length-past-area"))
    #expect(f.severity == .error)
    // Bytes 23–162, the 2 lock bytes at 160–161 (Lock Control TLV) skipped: the end is 165.
    #expect(f.message.contains("announces 140 bytes, which would end at byte 165"))
    #expect(f.message.contains("the CC's data area ends at byte 160"))
  }

  /// PWD and PACK read back as zeros (the tag never returns them) are shown as zeros in JSON,
  /// as in the text report (JSON said "present (masked)"); one locked page is "page 3 locked".
  @Test func zeroPasswordReadBackAndOneLockedPage() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x08, 0x00]
        + [0xE1, 0x10, 0x12, 0x00])
    b.read(41, [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
    let report = TagReport(session: try analysed(b))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(out.text.contains("\"pwd\":\"00000000\",\"pack\":\"0000\""))
    let text = ReportText.render(report)
    #expect(text.contains("LOCK0 08 LOCK1 00: page 3 locked"))
  }

  /// A query that read only pages 0–3: the capacity (142 on an NTAG213) is counted from byte
  /// 16, which the status reason now says (the factory Lock Control TLV makes it 137).
  @Test func capacityWithoutTheNDEFTLVSaysItIsCountedFromTheAreaStart() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x00, 0x00]
        + [0xE1, 0x10, 0x12, 0x00])
    let s = try analysed(b)
    #expect(s.ndefStatus?.capacity == 142)
    #expect(
      s.ndefStatusReason
        == "CC3 write access 0 (free); capacity counted from byte 16: the NDEF TLV was not read")
  }

  /// CFGLCK (CFG1 ACCESS bit 6) freezes CFG0 and CFG1: a NAK there is a locked page, not an
  /// unexplained refusal.
  @Test func nakOnConfigurationAfterCFGLCKIsALockedPage() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(41, [0x04, 0x00, 0x00, 0xFF, 0x40, 0x05, 0x00, 0x00])
    b.write(41, [0x04, 0x00, 0x00, 0x10], .nak(0x0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.cause.hasPrefix("the configuration pages are locked (CFGLCK)"))
    #expect(f.message.hasPrefix("CFG1's ACCESS byte (0x40) has CFGLCK set"))
  }

  /// Ultralight C (no GET_VERSION, answers AUTHENTICATE): AUTH0 in page 2Ah protects page 16;
  /// the fix names the 3DES AUTHENTICATE, not NTAG's PWD_AUTH/PACK.
  @Test func ultralightCNAKUnderAUTH0NamesThe3DESAuthentication() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF, 0, 1, 2, 3, 4, 5, 6, 7])
    b.activateType2()
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x00, 0x00]
        + [0xE1, 0x10, 0x12, 0x00])
    b.read(40, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00])
    b.write(16, [0x41, 0x42, 0x43, 0x44], .nak(0x0))
    let f = try #require(try b.diagnose().finding("t2t-nak-password"))
    #expect(f.cause.hasPrefix("the page is protected by the 3DES key and no authentication"))
    #expect(f.fix.contains("AUTHENTICATE 1A 00") && !f.fix.contains("PACK"))
  }

  /// The safe message size of a CC larger than the NTAG213's memory counts the Lock Control
  /// TLV before the NDEF TLV: 144 − 5 − 2 = 137 bytes (it said 142).
  @Test func ccExceedingMemoryAdviceCountsTheTLVsBefore() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag213)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
    let f = try #require(try b.diagnose().finding("t2t-cc-exceeds-memory"))
    #expect(f.fix.hasPrefix("Keep messages within 137 bytes on this tag"))
    #expect(f.message.contains("only pages past the tag's last page are refused (NAK)"))
  }
}

@Suite struct Pass15NativeTests {
  /// A MIFARE Plus in SL3 (ATS historical bytes `C1 05 2F 2F…`, the NXP MIFARE indicator)
  /// speaks native commands: `70 00 40 00` is First Authenticate of key block 0x4000, its
  /// answer's first byte 90 is the status, not the last two bytes as an SW (it read "SW f177",
  /// and the session `transceive failed`).
  @Test func mifarePlusNativeCommandsAreNotAPDUs() throws {
    var b = TraceBuilder()
    b.reader([0x26], crc: false)
    b.tag([0x44, 0x00], crc: false)
    let cl1: [UInt8] = [0x88, 0x04, 0x50, 0x5D]
    b.reader([0x93, 0x20], crc: false)
    b.tag(cl1 + [TraceBuilder.bcc(cl1)], crc: false)
    b.reader([0x93, 0x70] + cl1 + [TraceBuilder.bcc(cl1)])
    b.tag([0x04])
    let cl2: [UInt8] = [0x1A, 0xB7, 0x68, 0x80]
    b.reader([0x95, 0x20], crc: false)
    b.tag(cl2 + [TraceBuilder.bcc(cl2)], crc: false)
    b.reader([0x95, 0x70] + cl2 + [TraceBuilder.bcc(cl2)])
    b.tag([0x20])
    b.reader([0xE0, 0x80])
    b.tag([0x0C, 0x75, 0x77, 0x80, 0x02, 0xC1, 0x05, 0x2F, 0x2F, 0x00, 0x35, 0xC7])
    b.reader([0x02, 0x70, 0x00, 0x40, 0x00])
    b.tag([0x02, 0x90] + Array(repeating: 0xA5, count: 14) + [0xF1, 0x77])
    b.reader([0x03, 0x33, 0x04, 0x00, 0x01])
    b.tag([0x03, 0x09])
    let (decoded, _) = decodeAll(b.frames)
    let n = decoded.count
    #expect(
      decoded[n - 4].innermost?.summary == "MIFARE Plus First Authenticate (native command 0x70)")
    #expect(
      decoded[n - 3].innermost?.summary
        == "MIFARE Plus answer: status 0x90 (success), 16 byte(s)")
    #expect(decoded[n - 2].innermost?.field("block") == .int(4))
    #expect(decoded[n - 1].innermost?.field("success") == .bool(false))
    #expect(
      MIFAREPlusNative.answer([]).field("success") == .bool(false),
      "an empty answer has no status byte: not a success")
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.tag.product == "MIFARE Plus (ISO 14443-4)")
    // The Read's status 09 fails the transceive; the authentication's 90 did not.
    let op = try #require(s.operations.last)
    #expect(op.kind == .transceive && op.outcome == .failed)
    #expect(op.failedFrames == [n - 1])
  }
}

@Suite struct Pass15SessionTests {
  /// After a read, the reader polls again (REQA → ATQA) and selects nothing: that connect is
  /// not completed, and it carries no UID/SAK of its own (it read `connect ok` with the
  /// session's UID and SAK; the same pair at a session's start read `connect unknown`).
  @Test func pollWithoutSelectIsAConnectNotCompleted() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(4, [0x03, 0x00, 0xFE])
    b.reader([0x26], crc: false, gapUs: 10_000)
    b.tag([0x44, 0x00], crc: false)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let poll = try #require(s.operations.last)
    #expect(poll.kind == .connect && poll.outcome == .unknown)
    #expect(poll.detail("uid") == nil && poll.detail("sak") == nil)
    #expect(s.operations.first?.outcome == .ok)
  }
}

@Suite struct Pass15FramingTests {
  /// A 2-byte ISO-DEP block (`f2 01`, an S(WTX) whose CRC the sniffer cut) was shown as a frame
  /// that carries no CRC by protocol, with no finding: it is `frame-too-short`, still decoded.
  @Test func twoByteBlockWhereACRCIsExpectedIsTooShort() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    b.tag([0xF2, 0x01], crc: false)
    let (decoded, _) = decodeAll(b.frames)
    let last = try #require(decoded.last)
    #expect(last.findings.map(\.code) == ["frame-too-short"])
    #expect(last.frame.crc == .absent)
    #expect(last.innermost?.summary == "S(WTX) request WTXM 1")
  }

  /// An answer whose CRC fails carries no status word to trust: its last two bytes (`00 00`)
  /// are not a refusal (it was `apdu-refused`, "the tag answered 0000").
  @Test func damagedAnswerIsNoRefusal() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00])
    b.tag([0x02, 0x77, 0x0A, 0x82, 0x02, 0x00, 0x00], badCRC: true)
    let report = try b.diagnose()
    #expect(report.finding("apdu-refused") == nil)
    #expect(report.finding("rf-damaged-frames")?.severity == .info)
  }

  /// A Type 4 answer the capture cut (snap length, NFC-Laboratory's truncated flag) has no
  /// status word in it: its last two captured bytes were read as one (`SW e104`) and failed
  /// the query. A cut command is its header, not a malformed APDU.
  @Test func answersAndCommandsCutByTheCaptureHaveNoStatusWord() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
    b.tag([0x02, 0x90, 0x00])
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x00, 0x0F])
    b.tag([0x03, 0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04])
    var frames = b.frames
    for i in [frames.count - 4, frames.count - 1] {
      cutByCapture(&frames[i], keeping: 11)
    }
    let (decoded, _) = decodeAll(frames)
    let n = decoded.count
    #expect(
      decoded[n - 4].innermost?.summary == "SELECT P1 04 P2 00 (cut by the capture after 10 bytes)")
    #expect(decoded[n - 4].findings.isEmpty)
    #expect(decoded[n - 1].innermost?.field("sw") == nil)
    #expect(
      decoded[n - 1].innermost?.summary
        == "answer cut by the capture after 10 byte(s): no status word")
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(!s.operations.contains { $0.outcome == .failed })
  }
}

@Suite struct Pass15DumpTests {
  /// A Flipper version 4 ISO14443-4A file stores the ATS: the report shows it and speaks Type
  /// 4 terms (it said "ATS none" and listed Type 2 pages as unknown).
  @Test func flipperISO14443_4AFileKeepsItsATS() throws {
    var text = "Filetype: Flipper NFC device\nVersion: 4\nDevice type: ISO14443-4A\n"
    text += "UID: 04 5A 3C 12 8B 6E 80\nATQA: 00 44\nSAK: 20\nATS: 05 78 80 70 02\n"
    let dump = try #require(
      try TagDumpReader.read(TraceInput(path: "4a.nfc", bytes: Data(text.utf8))))
    #expect(dump.ats == [0x05, 0x78, 0x80, 0x70, 0x02])
    let report = TagReport(dump: dump)
    #expect(report.tag.ats == [0x05, 0x78, 0x80, 0x70, 0x02])
    #expect(report.end.unknowns == ["CC file E103 not read"])
  }

  /// Current Flipper firmware stores the ATS byte by byte: T0, TA(1), TB(1), TC(1), T1...Tk.
  @Test func flipperATSStoredByteByByte() throws {
    var text = "Filetype: Flipper NFC device\nVersion: 4\nDevice type: ISO14443-4A\n"
    text += "UID: 04 5A 3C 12 8B 6E 80\nATQA: 00 44\nSAK: 20\nT0: 78\nTA(1): 80\n"
    text += "TB(1): 70\nTC(1): 02\nT1...Tk: 80 31\n"
    let dump = try #require(
      try TagDumpReader.read(TraceInput(path: "4a.nfc", bytes: Data(text.utf8))))
    #expect(dump.ats == [0x07, 0x78, 0x80, 0x70, 0x02, 0x80, 0x31])
  }
}
