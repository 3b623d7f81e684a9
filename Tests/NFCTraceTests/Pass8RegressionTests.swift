import NDEF
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

  /// T4T 3.0: READ BINARY with odd INS B1, the offset in a data object `54`, the answer's
  /// data in `53` (ISO/IEC 7816-4 §7.2.3), as readers use past offset 7FFFh (field engineer
  /// pass 8 t4-06: "readNDEF unknown", 32764 of 34000 bytes).
  @Test func oddInstructionReadBinaryFillsTheFile() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x11], TraceBuilder.enlenCC + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x05] + ok)
    b.apdu(
      [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x00, 0x04, 0x07],
      [0x53, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00] + ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let read = try #require(s.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.outcome == .ok)
    #expect(read.detail("message") == .hex([0xD1, 0x01, 0x01, 0x54, 0x00]))
    #expect(Type4Layer.offsetDataObject([0x54, 0x03, 0x00, 0x80, 0x00][...])?.0 == 0x8000)
    #expect(
      Type4Layer.discretionaryDataObject([0x53, 0x82, 0x00, 0x02, 0xAA, 0xBB][...]) == [0xAA, 0xBB])
    #expect(Type4Layer.discretionaryDataObject([0x53, 0x82, 0x00, 0x05, 0xAA][...]) == nil)
  }

  /// CHECK_TEARING_EVENT answered other than BDh: the counter's last increment was torn
  /// (field engineer pass 8 t2-02).
  @Test func tornCounterIsWarned() {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x3E, 0x02])
    b.tag([0x00])
    b.reader([0x3E, 0x01])
    b.tag([0xBD])
    let frames = decodeAll(b.frames).0
    let torn = frames.flatMap(\.findings).filter { $0.code == "ev1-counter-torn" }
    #expect(torn.count == 1)
    #expect(torn.first?.severity == .warning)
    #expect(frames.last?.innermost?.summary == "tearing flag bd (counter 1)")
  }

  /// VERIFY: 6300 (password required), 63C2 (wrong, 2 tries left), then 9000: the app gave the
  /// password, the operation is ok (field engineer pass 8 t4-15, ST M24SR).
  @Test func verifyAcceptedAfterRefusalsIsOK() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x00], [0x63, 0x00])
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x11, count: 16), [0x63, 0xC2])
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x22, count: 16), ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let verify = try #require(s.operations.last)
    #expect(verify.kind == .transceive)
    #expect(verify.outcome == .ok)
    #expect(verify.failedFrames.count == 2)
    // Without the accepted VERIFY the operation failed.
    var refused = TraceBuilder()
    refused.activateType4()
    refused.queryType4(nlen: 0)
    refused.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x11, count: 16), [0x63, 0xC2])
    let r = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: refused.frames)).sessions.first)
    #expect(r.operations.last?.outcome == .failed)
  }

  /// 6B00 to a READ inside the file size the CC declares: the tag's file is smaller than its
  /// CC says, not a reader mistake (field engineer pass 8 t4-09).
  @Test func offsetRefusedInsideTheDeclaredFileBlamesTheTag() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x40)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x20], [0x6B, 0x00])
    let f = try #require(try b.diagnose().finding("t4t-offset-out-of-range"))
    #expect(f.cause.hasPrefix("the tag refused an offset inside the file its CC declares"))
    // Past the declared size (255 bytes) the reader is at fault.
    var past = TraceBuilder()
    past.activateType4()
    past.queryType4(nlen: 0x40)
    past.apdu([0x00, 0xB0, 0x01, 0x00, 0x20], [0x6B, 0x00])
    let g = try #require(try past.diagnose().finding("t4t-offset-out-of-range"))
    #expect(g.cause.hasPrefix("the offset (P1 P2) is wrong for this file"))
  }

  /// A message whose value runs around 4 bytes a Memory Control TLV reserves (bytes 40–43,
  /// T2T 1.0 §2.3), written whole without those bytes: complete, not stopped short (review:
  /// the claimed bytes were counted as if contiguous).
  @Test func writeAroundAReservedAreaIsComplete() throws {
    let text = Array("abcdefghijklm".utf8)
    let message: [UInt8] = [0xD1, 0x01, 0x10, 0x54, 0x02, 0x65, 0x6E] + text
    let area: [UInt8] =
      [0x02, 0x03, 0xA0, 0x04, 0x02, 0x03, 0x14] + message.prefix(17) + [0, 0, 0, 0]
      + message.suffix(3) + [0xFE]
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE, 0x00])
    b.read(8, Array(repeating: 0, count: 16))  // the reserved bytes are known (zeros)
    for page in [4, 5, 6, 7, 8, 9, 11] {
      b.write(page, Array(area[((page - 4) * 4)..<((page - 3) * 4)]))
    }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.memory.type2Area?.ndef?.value == message)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .ok)
    #expect(
      Type2TLVArea.addresses(from: 38, count: 4, skipping: s.memory.type2Area?.reservedAreas ?? [])
        == [38, 39, 44, 45])
  }

  /// A read-modify-write erase (`03 00 D1 01`, the bytes after the length unchanged) and an
  /// erase ending in a Terminator are finished writes (review).
  @Test func erasesAreFinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.outcome == .ok)
    #expect(try b.diagnose().finding("write-unfinished") == nil)
  }

  /// A Type 4 write in a session that did not read the CC: the length field's size (NLEN or
  /// a 4-byte ENLEN) is unknown, so no stop is claimed from it (review: a whole ENLEN write
  /// after a re-activation read as "NLEN set to 0").
  @Test func type4WriteWithoutCCClaimsNoStop() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x04, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05], ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last { $0.kind == .writeNDEF })
    #expect(write.outcome == .ok)
  }

  /// 6Cxx to a READ, then the app's next call (an UPDATE at the same offset): no repeat, its
  /// own operation (review).
  @Test func wrongLeNotRepeatedLeavesTheNextCallAlone() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x00], [0x6C, 0x07])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.suffix(2).map(\.kind) == [.readNDEF, .writeNDEF])
    #expect(s.operations.suffix(2).map(\.outcome).first == .failed)
  }

  /// A READ answered with data and 61xx, the rest fetched by GET RESPONSE: both parts are the
  /// file's, in order (review).
  @Test func dataBefore61xxIsKept() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], [0xD1, 0x01, 0x01, 0x61, 0x02])
    b.apdu([0x00, 0xC0, 0x00, 0x00, 0x02], [0x54, 0x00] + ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.detail("message") == .hex([0xD1, 0x01, 0x01, 0x54, 0x00]))
  }

  /// The same message written again (data pages equal to the old ones) after the length was
  /// set to 0, and no final length: the tag is left empty, which is unfinished (attacker pass).
  @Test func sameMessageAgainWithoutFinalLengthIsUnfinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x01, 0x54, 0x00, 0xFE])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.outcome == .interrupted)
    #expect(s.operations.last?.detail("unfinished") == .string("final-length"))
  }

  /// Reserved bytes (a Memory Control TLV's page 6) between the NDEF TLV's T (byte 23) and
  /// its length (byte 28): the length is found past them, as the TLV reader finds it, so a
  /// write that never sets the final length is unfinished, and the finished one is one
  /// operation (attacker pass).
  @Test func lengthPastReservedBytesIsFound() throws {
    func trace(final: Bool) -> TraceBuilder {
      var b = TraceBuilder()
      b.activateType2()
      // The tag already has the layout: its old message is empty (`03 00 FE`).
      b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x02, 0x03, 0x60, 0x04, 0x02, 0x00, 0x00, 0x03])
      b.read(6, [0, 0, 0, 0, 0x00, 0xFE, 0x00, 0x00] + Array(repeating: 0, count: 8))
      b.write(7, [0x00, 0xD1, 0x01, 0x01])
      b.write(8, [0x54, 0x00, 0xFE, 0x00])
      if final { b.write(7, [0x05, 0xD1, 0x01, 0x01]) }
      return b
    }
    let area = Type2TLVArea(
      parsing: [0x02, 0x03, 0x60, 0x04, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0x05, 0xD1])
    #expect(area.ndefLengthAddress == 28)
    let cut = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: trace(final: false).frames))
        .sessions.first)
    #expect(cut.operations.last?.detail("unfinished") == .string("final-length"))
    let whole = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: trace(final: true).frames))
        .sessions.first)
    #expect(whole.operations.filter { $0.kind == .writeNDEF }.map(\.outcome) == [.ok])
  }
}
