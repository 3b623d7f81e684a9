import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Commands sent to a tag the reader itself halted — with HLTA, or with an S(DESELECT) the tag
/// answered (ISO/IEC 14443-4 §8: the PICC enters HALT) — and woken with REQA, which a halted
/// tag ignores (ISO/IEC 14443-3 §6.3): the silence is the reader's doing (review4 k7, h9).
@Suite struct Pass27HaltedTagTests {
  /// A Type 4 query, S(DESELECT) answered, REQA unanswered (frames 18–20).
  private func deselectThenREQA() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0xC2])
    b.tag([0xC2])
    b.add(.reader, [0x26], crc: false, bits: 7)
    return b
  }

  /// READ after HLTA and REQA: was "the tag left the field or stopped answering".
  @Test func readAfterHaltNamesTheHalt() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x30, 0xD1, 0x01])
    b.reader([0x50, 0x00])
    b.add(.reader, [0x26], crc: false, bits: 7)
    b.reader([0x30, 0x04])
    let r = try b.diagnose()
    #expect(r.codes == ["read-interrupted"])
    let f = try #require(r.finding("read-interrupted"))
    #expect(f.frames == [14, 16])
    #expect(
      f.cause
        == "the reader halted the tag (HLTA at #14) and sent readNDEF's commands without waking it")
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.fix.hasPrefix("Do not send HLTA (50 00) in the middle of a session"))
  }

  /// Anticollision unanswered after an answered S(DESELECT) and REQA: the connect names the
  /// deselect (it gave antenna advice).
  @Test func connectAfterDeselectNamesTheDeselect() throws {
    var b = deselectThenREQA()
    b.reader([0x93, 0x20], crc: false)
    let f = try #require(try b.diagnose().finding("connect-failed"))
    #expect(f.frames == [18, 21])
    #expect(
      f.cause
        == "connect failed: the reader halted the tag (S(DESELECT) at #18) and did not wake it")
    #expect(
      f.fix
        == "Wake a halted tag with WUPA (52), not REQA (26); Core NFC's own reconnect "
        + "(session.restartPolling() or connect(to:)) does.")
  }

  /// An UPDATE BINARY after the deselect and REQA (no file selected since: a raw command):
  /// it never reached the tag.
  @Test func commandAfterDeselectNamesTheDeselect() throws {
    var b = deselectThenREQA()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], nil)
    let r = try b.diagnose()
    #expect(r.codes == ["command-interrupted"])
    let f = try #require(r.finding("command-interrupted"))
    #expect(f.frames == [18, 21])
    #expect(f.cause.hasPrefix("the reader halted the tag (S(DESELECT) at #18)"))
    #expect(f.fix.hasPrefix("After S(DESELECT) the tag is halted"))
  }

  /// A deselect the tag did not answer halts nothing known: the silence keeps its generic
  /// reading.
  @Test func unansweredDeselectIsNoHalt() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0xC2])
    b.add(.reader, [0x26], crc: false, bits: 7)
    b.reader([0x93, 0x20], crc: false)
    let f = try #require(try b.diagnose().finding("connect-failed"))
    #expect(f.cause == "connect failed: the tag did not answer the activation")
  }
}

/// Static block-lock bits freeze lock bits (nfc-facts §4.4; NTAG213/215/216 datasheet §8.5.2):
/// a WRITE of page 2 after them cannot set the lock bits they freeze (hunt-lock s03, s20).
@Suite struct Pass27BlockLockTests {
  /// Pages 0–3 of an NTAG213 whose LOCK0 is `lock0`, CC E1 10 12 00.
  private func readLocks(_ lock0: UInt8) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, [0x04, 0x11, 0x22, 0xA1, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, lock0, 0x00])
    return b
  }

  private func locks(_ b: TraceBuilder) throws -> [UInt8]? {
    try #require(try sessions(b).first).memory.type2End.known(10, 2)
  }

  /// BL 9–4 set before: the lock bits of pages 4–9 stay clear, the others are set.
  @Test func blockLockedLockBitsStayClear() throws {
    var b = readLocks(0x02)
    b.write(2, [0x00, 0x00, 0xFF, 0xFF])
    #expect(try locks(b) == [0x0F, 0xFC])
  }

  /// All three block-lock bits set before: the WRITE locks no page.
  @Test func allBlockLocksFreezeEveryLockBit() throws {
    var b = readLocks(0x07)
    b.write(2, [0x00, 0x00, 0xF8, 0xFF])
    #expect(try locks(b) == [0x07, 0x00])
  }

  /// Block-lock bits set by the same WRITE freeze only later writes.
  @Test func blockLocksOfTheSameWriteFreezeLaterOnes() throws {
    var b = readLocks(0x00)
    b.write(2, [0x00, 0x00, 0x0F, 0x01])
    b.write(2, [0x00, 0x00, 0xF0, 0xFF])
    #expect(try locks(b) == [0x0F, 0x01])
  }
}

/// S(WTX) is the tag asking for more time, not its answer (ISO/IEC 14443-4 §7.3): the diff
/// compares the answer that follows, timed from the command (hunt-diff h4-fsd256-wtx).
@Suite struct Pass27WaitingTimeDiffTests {
  static let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
  static let answer: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x90, 0x00]

  private func sides() throws -> TraceDiff {
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    a.apdu(Self.read, Self.answer)
    b.reader([0x02] + Self.read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01], gapUs: 5000)  // S(WTX) request, WTXM 1
      b.reader([0xF2, 0x01])
    }
    b.tag([0x02] + Self.answer, gapUs: 5000)
    return TraceDiff(a: try diffSide(a), b: try diffSide(b))
  }

  @Test func theAnswerAfterWaitingTimeIsCompared() throws {
    let d = try sides()
    #expect(d.exchanges.filter { !$0.same }.isEmpty)
    let last = try #require(d.b.exchanges.last { !$0.chainStep })
    #expect(last.answerSummary == d.a.exchanges.last?.answerSummary)
    #expect(last.responseFrame == 23)
    #expect(d.b.exchanges.filter(\.chainStep).count == 2)
  }

  /// The time the extensions took is the command's response time, flagged in TIMING; the
  /// reader's S(WTX) responses are steps of that wait, not exchanges of their own.
  @Test func theWaitShowsInTiming() throws {
    let d = try sides()
    let last = try #require(d.timing.last)
    #expect(last.a?.exchanges == 1)
    #expect(last.b?.exchanges == 1)
    #expect(last.notable.map(\.why) == ["response"])
    let b = try #require(last.notable.first?.bResponseNs)
    #expect(b > 15_000_000)
  }
}

/// A response whose CRC failed on one side only: the `(bad CRC)` mark can fall past the cut of
/// a long summary, so the pair gets a line saying so (hunt-diff h4-fsd256-nak).
@Test func diffTextNamesACRCFailedOnOneSide() throws {
  var a = TraceBuilder()
  a.activateType2(version: ntag213Version)
  var b = a
  let data: [UInt8] = [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE]
  a.read(3, data)
  b.reader([0x30, 0x03])
  b.tag(Array((data + Array(repeating: 0, count: 16)).prefix(16)), badCRC: true)
  let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
  let x = try #require(d.exchanges.first { !$0.same })
  let lines = DiffText.firstDifference(d.a.exchanges[x.a ?? -1], d.b.exchanges[x.b ?? -1])
  #expect(
    lines.map { $0.replacingOccurrences(of: " ", with: "") } == ["responseCRC:ok│bad"])
}

/// A WRITE refused by a static lock bit the trace wrote itself (hunt-lock s09, s13).
@Suite struct Pass27OwnLockTests {
  static let pages0to3: [UInt8] =
    [0x04, 0x11, 0x22, 0xA1, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x00, 0x00]
    + [0xE1, 0x10, 0x12, 0x00]

  /// Reads pages 0–3, sets the lock bits of pages 4–7 (ACK at frame 15), reads page 0 back
  /// (answer at frame 17).
  private func locked() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, Self.pages0to3)
    b.write(2, [0x00, 0x00, 0xF0, 0x00])
    var back = Self.pages0to3
    back[10] = 0xF0
    b.read(0, back)
    return b
  }

  /// The read-back after the lock is no acknowledgement: the finding names the WRITE's ACK.
  @Test func namesTheAcknowledgementNotTheReadBack() throws {
    var b = locked()
    b.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.cause.hasPrefix("the page was locked by this session's own lock bits"))
    #expect(f.message.hasPrefix("Page 2, written in this session (acknowledged at #15)"))
    #expect(f.frames.first == 15)
  }

  /// Refused on a re-tap: the lock bits are an earlier session's, not this one's.
  @Test func lockBitsOfAnEarlierSession() throws {
    var b = locked()
    b.event(.fieldOff)
    b.activateType2(version: ntag213Version)
    b.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(0))
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-nak-locked-page"))
    #expect(f.cause.hasPrefix("the page was locked by lock bits written in an earlier session"))
    #expect(
      f.message.hasPrefix("Page 2, written in an earlier session (its lock bytes last seen at #17)")
    )
  }
}

/// Page 2 read, then its lock write left unanswered: the static lock bits are not known, but
/// page 2 was read (hunt-lock s11b: "not read (page 2)").
@Test func reportSaysUnacknowledgedStaticLocksAreNotKnown() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(0, Pass27OwnLockTests.pages0to3)
  b.write(40, [0xFF, 0xFF, 0xFF, 0x00])
  b.write(2, [0x00, 0x00, 0xFF, 0xFF], .none)
  let s = try #require(try sessions(b).first)
  let text = ReportText.render(TagReport(session: s), showSecrets: false)
  #expect(text.contains("static          not known (page 2 written without acknowledgement)\n"))
}

/// A lock sequence writing the dynamic lock bits where T2T's default layout puts them (16 +
/// CC2 × 8), on an NTAG215 whose lock page is 82h (hunt-lock s18): one writeLock, warned.
@Suite struct Pass27MisplacedLockTests {
  static let ntag215Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

  private func locked(page: Int) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215Version)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    b.write(3, [0xE1, 0x10, 0x3E, 0x0F])
    b.write(page, [0xFF, 0xFF, 0xFF, 0xFF])
    b.write(page + 1, [0xFF, 0xFF, 0xFF, 0x00])
    b.write(2, [0x00, 0x00, 0xFF, 0xFF])
    return b
  }

  @Test func defaultPlaceOnNTAG215IsUserMemory() throws {
    let b = locked(page: 0x80)
    let ops = try #require(try sessions(b).first).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    let f = try #require(try b.diagnose().finding("t2t-lock-misplaced"))
    #expect(f.frames == [16, 18])
    #expect(
      f.cause
        == "the dynamic lock bits went to pages 128–129, user memory on NTAG215; its lock page "
        + "is 130 (0x82)")
  }

  /// Outside a lock sequence the same pages are a message's.
  @Test func userPagesOutsideALockAreNoLock() throws {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215Version)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    b.write(0x80, [0xFF, 0xFF, 0xFF, 0xFF])
    #expect(try b.diagnose().finding("t2t-lock-misplaced") == nil)
  }
}

/// The reader's R(NAK) after an answer whose CRC failed is ISO-DEP's retry (ISO/IEC 14443-4
/// §7.5.4): the diff's timing counts it (hunt-diff h4-fsd256-nak: retries 0).
@Test func diffTimingCountsRNAKAsRetry() throws {
  var a = TraceBuilder()
  a.activateType4()
  a.queryType4(nlen: 0x14)
  var b = a
  let read = Pass27WaitingTimeDiffTests.read
  let answer = Pass27WaitingTimeDiffTests.answer
  a.apdu(read, answer)
  b.reader([0x02] + read)
  b.tag([0x02] + answer, badCRC: true)
  b.reader([0xB2])  // R(NAK), block 0
  b.tag([0x02] + answer)
  let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
  let last = try #require(d.timing.last)
  #expect(last.a?.retries == 0)
  #expect(last.b?.retries == 1)
}

/// Review5 of this pass's changes.
@Suite struct Pass27ReviewTests {
  /// The session's last READ, unanswered after the reader's HLTA: the halt, not a presence
  /// check after the tag was taken away (review5 p_hlta_presence).
  @Test func haltBeforeTheLastCommandIsNamed() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x30, 0xD1, 0x01])
    b.read(4, [0x03, 0x30, 0xD1, 0x01])
    b.reader([0x50, 0x00])
    b.reader([0x30, 0x00])
    let f = try #require(try b.diagnose().finding("command-interrupted"))
    #expect(f.frames == [16, 17])
    #expect(f.cause.hasPrefix("the reader halted the tag (HLTA at #16)"))
  }

  /// S(WTX), then the reader's R(NAK) for a lost block: the tag's block sent again is the
  /// command's answer (review5 w_wtxnak).
  @Test func rNAKDuringWaitingTimeKeepsTheWait() throws {
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    let read = Pass27WaitingTimeDiffTests.read
    let answer = Pass27WaitingTimeDiffTests.answer
    a.apdu(read, answer)
    b.reader([0x02] + read)
    b.tag([0xF2, 0x01])
    b.reader([0xF2, 0x01])
    b.reader([0xB2])  // R(NAK): the tag's answer to the S(WTX) was lost
    b.tag([0x02] + answer)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(d.exchanges.filter { !$0.same }.isEmpty)
  }

  /// An R(NAK) after an intact refusal is a presence check, not a retry (review5 r_a/r_b).
  @Test func rNAKAfterAnIntactAnswerIsNoRetry() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x6A, 0x82])
    b.reader([0xB3])
    b.tag([0xA3])
    let side = try diffSide(b)
    let ops = side.analysis.operations
    let indices = TraceDiff.group(side.exchanges, count: ops.count, chainSteps: true)
    #expect(indices.map { TimingComparison.timing($0, side.exchanges).retries }.reduce(0, +) == 0)
  }

  /// The lock bit was read from the tag; a later WRITE of page 2 set other bits: the bit is
  /// not that WRITE's doing (review5 w_read_then_other).
  @Test func lockBitReadBeforeAnotherLockWrite() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    var pages = Pass27OwnLockTests.pages0to3
    pages[10] = 0x10  // page 4 locked
    b.read(0, pages)
    b.write(2, [0x00, 0x00, 0x00, 0x01])  // page 8's bit
    b.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.cause.hasPrefix("the page is locked by a static lock bit"))
  }
}

/// S(WTX) between the parts of the reader's chained command (review5 c_midwtx): a step of the
/// chain, not an exchange of its own.
@Test func waitingTimeInsideTheReadersChainIsAStep() throws {
  var a = TraceBuilder()
  a.activateType4()
  a.queryType4(nlen: 0x14)
  var b = a
  let update: [UInt8] = [0x00, 0xD6, 0x00, 0x02, 0x08] + Array(repeating: 0x41, count: 8)
  a.chainedAPDU(update, part: 8, [0x90, 0x00])
  b.reader([0x12] + update.prefix(8))
  b.tag([0xF2, 0x01])
  b.reader([0xF2, 0x01])
  b.tag([0xA2])
  b.reader([0x03] + update.dropFirst(8))
  b.tag([0x03, 0x90, 0x00])
  let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
  #expect(d.exchanges.filter { !$0.same }.isEmpty)
  #expect(d.b.exchanges.filter(\.chainStep).count == 2)
}
