import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the 2026-12-07 eighth session.
@Suite struct Pass47Type5Tests {
  typealias B = Type5ProcedureTests.Builder

  /// A 3-byte NDEF TLV length (`FF hi lo`) split over two blocks: the evidence is the WRITE
  /// that completed the length (block 2, written last), not the one that wrote its `FF`.
  @Test func tooLargeNamesTheWriteThatCompletedASplitLength() throws {
    var b = B()
    // CC E1 40 40 01: a 512-byte T5T area.
    b.detect(area: [0x03, 0x00, 0xFE], cc: [0xE1, 0x40, 0x40, 0x01])
    b.write(1, [0x00, 0x00, 0x03, 0xFF])
    b.write(2, [0x02, 0x10, 0xD1, 0x01])
    let block2 = b.frames.count
    for block in 3...6 { b.write(block, [0x41, 0x41, 0x41, 0x41]) }
    let r = try b.diagnose()
    let f = try #require(r.finding("message-too-large"))
    #expect(f.cause.hasPrefix("the message its NDEF TLV length announces (528 bytes)"))
    #expect(f.frames == [block2 - 2, block2 - 1])
  }
}

@Suite struct Pass47ImportTests {
  private func frames(_ text: String) throws -> [Frame] {
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "14a.txt", bytes: Data(text.utf8)))
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return out
  }

  private static let rule =
    "------------+------------+-----+------------------------------+-----+----------"

  /// The preamble names ISO14443A: the frames are NFC-A, as the binary trace's importer says
  /// of a trace whose parity verifies (they were `unknown`, JSON `"technology":"unknown"`).
  @Test func preambleNamingISO14443AMakesTheFramesNFCA() throws {
    let text = """
      [=] ISO14443A - all times are in carrier periods (1/13.56MHz)

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(Self.rule)
                0 |       1056 | Rdr |26                            |     | REQA
             2228 |       4596 | Tag |44  00                        |     |

      """
    #expect(try frames(text).map(\.technology) == [.nfcA, .nfcA])
  }

  /// The 2015 client printed `iso14443a` and `iClass` over every listing: no protocol named,
  /// the frames settle it.
  @Test func preambleNamingTwoProtocolsLeavesTheTechnologyOpen() throws {
    let text = """
      iso14443a - All times are in carrier periods (1/13.56Mhz)
      iClass    - Timings are not as accurate

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(Self.rule)
                0 |       1056 | Rdr |26                            |     | REQA

      """
    #expect(try frames(text).map(\.technology) == [.unknown])
  }
}

@Suite struct Pass47Type2Tests {
  /// An NTAG215 (two NULL TLVs, the NDEF TLV at byte 18) written length-last with a 303-byte
  /// message: `03 00` on page 4, the data from byte 22 (`00 00` where the 3-byte length's
  /// bytes go), then the final length's first page `00 00 03 FF`, and nothing more. The field
  /// reads `FF 00 00`: length 0, the procedure's last step left out. It was INTERRUPTED with no
  /// finding (the last length write holds `FF` alone, which gives no length).
  @Test func finalThreeByteLengthHalfWrittenIsUnfinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x00, 0x00, 0x03, 0x00, 0xFE])
    let message: [UInt8] =
      [0xC1, 0x01, 0x00, 0x00, 0x01, 0x28, 0x55, 0x04] + Array(repeating: 0x7A, count: 295)
    let data: [UInt8] = [0x00, 0x00] + message + [0xFE]
    b.write(4, [0x00, 0x00, 0x03, 0x00])
    for (n, start) in stride(from: 0, to: data.count, by: 4).enumerated() {
      b.write(5 + n, Array((Array(data[start...]) + [0, 0, 0]).prefix(4)))
    }
    b.write(4, [0x00, 0x00, 0x03, 0xFF])
    let last = b.frames.count - 2
    let r = try b.diagnose()
    let f = try #require(r.finding("write-unfinished"))
    #expect(f.severity == .error)
    #expect(f.frames.last == last)
    #expect(
      f.message.hasSuffix(
        "The last write (page 4) began the 3-byte length (FF), but the page holding its two "
          + "length bytes was not written after it: they are still the 00 00 written before, "
          + "so the field reads FF 00 00, length 0."))
    #expect(r.sessions[0].verdicts.last?.verdict == .interrupted)
  }
}

extension Pass47Type2Tests {
  /// An NTAG215 whose CC declares 1016 bytes (CC2 7F): the report's NDEF status keeps
  /// queryNDEFStatus's capacity (from the CC) and says what the user memory holds; its finding
  /// no longer says the capacity stops at the user memory (it did not).
  @Test func ccExceedingMemoryStatusSaysBothCapacities() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x7F, 0x00, 0x03, 0x00, 0xFE])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let report = TagReport(session: s)
    #expect(report.ndefStatus?.capacity == 1012)
    #expect(
      report.ndefStatus?.reason?.hasSuffix(
        "queryNDEFStatus counts it from the CC, which declares more than the tag has: its user "
          + "memory holds a message of at most 500 bytes") == true)
    let f = try #require(report.end.tlvFindings.first { $0.code == "t2t-cc-exceeds-memory" })
    #expect(
      f.message.hasSuffix(
        "counted from the CC, as queryNDEFStatus counts it, the capacity is 1012 bytes (nfcpy's "
          + "and Android's rule), the user memory holds a message of at most 500 bytes"))
  }
}

@Suite struct Pass47Type4Tests {
  /// A Type 4 tag queried (NLEN 20), then written length-last up to the final NLEN: NLEN 0,
  /// then the message data at offset 2, both answered 9000. Returns the builder and the
  /// message.
  static func writtenUpToTheFinalNLEN() -> (TraceBuilder, [UInt8]) {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    let ok: [UInt8] = [0x90, 0x00]
    let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(message.count)] + message, ok)
    return (b, message)
  }

  /// The answer to the final NLEN's UPDATE BINARY cut after its PCB and SW1 (`03 90`, no CRC:
  /// `frame-too-short`): the tag answered the block, so it processed it (ISO/IEC 14443-4 §7.5),
  /// but the status word is not in the capture. The write is unknown and the NLEN may be the
  /// new one; it was "the final NLEN never was: the tag holds an empty message", with no
  /// finding.
  @Test func finalNLENAnswerCutByTheCaptureIsUnknown() throws {
    var (b, message) = Self.writtenUpToTheFinalNLEN()
    b.reader([0x02 | b.blockNumber, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)])
    b.tag([0x02 | b.blockNumber, 0x90], crc: false)
    let cut = b.frames.count - 1
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let op = try #require(s.operations.last)
    #expect(op.kind == .writeNDEF)
    #expect(op.outcome == .unknown)
    #expect(op.detail("answer_cut") == .bool(true))
    #expect(s.memory.filesEnd[0xE104]?.state(1) == .unacknowledged)
    let f = try #require(try b.diagnose().finding("answer-not-captured"))
    #expect(f.frames == [cut])
    #expect(f.cause == "the capture cut the tag's answer short")
  }

  /// The same final NLEN answered `90 00` with a bad CRC and nothing after: the tag answered,
  /// so the NLEN may be the new one. The report showed the message emptied while the verdict
  /// said the tag carried the command out.
  @Test func finalNLENAnswerDamagedLeavesTheLengthUnacknowledged() throws {
    var (b, message) = Self.writtenUpToTheFinalNLEN()
    b.reader([0x02 | b.blockNumber, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)])
    b.tag([0x02 | b.blockNumber, 0x90, 0x00], badCRC: true)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.outcome == .unknown)
    let file = try #require(s.memory.filesEnd[0xE104])
    #expect(file.state(0) == .unacknowledged && file.state(1) == .unacknowledged)
    #expect(file.known(0, 2) == [0x00, UInt8(message.count)])
  }
}

extension Pass47Type4Tests {
  /// The tag answers the reader's first chained I-block with an I-block (`02 67 00`): the
  /// operation is unknown, and its verdict too (it was INTERRUPTED with no finding).
  @Test func chainAnsweredBeforeItsLastPartIsUnknownWithAFinding() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    let part = b.frames.count
    b.reader([0x12 | b.blockNumber, 0x00, 0xD6, 0x00, 0x02, 0x20, 0xD1, 0x01, 0x1C, 0x55])
    b.tag([0x02 | b.blockNumber, 0x67, 0x00])
    let r = try b.diagnose()
    let f = try #require(r.finding("chain-answered-early"))
    #expect(f.frames == [part, part + 1])
    #expect(f.severity == .warning && f.coreNFCError == nil)
    #expect(r.sessions[0].verdicts.last?.verdict == .unknown)
  }
}

extension Pass47Type4Tests {
  /// S(DESELECT) with no answer in the capture, then a new activation the tag answers: a tag
  /// still in the PROTOCOL state ignores REQA/WUPA, so it was deselected (its answer missed):
  /// two sessions, as after an answered S(DESELECT). They were one.
  @Test func unansweredDeselectThenAnActivationSplitsTheSession() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    b.reader([0xC2])
    b.activateType4()
    b.queryType4(nlen: 0x14)
    let s = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
    #expect(s.count == 2)
    #expect(
      s.map { $0.operations.map(\.kind) } == [
        [.connect, .queryNDEFStatus], [.connect, .queryNDEFStatus],
      ])
  }

  /// An unanswered S(DESELECT) the reader follows with I-blocks the tag answers was not taken:
  /// the session goes on.
  @Test func unansweredDeselectFollowedByAnsweredBlocksKeepsTheSession() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    b.reader([0xC2])
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x14, 0x90, 0x00])
    let s = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
    #expect(s.count == 1)
  }
}

extension Pass47ImportTests {
  /// A listing pasted without its Start and End columns (forum posts of Tesla key-card sniffs):
  /// header `Src | Data | CRC | Annotation`, rows `Rdr | 26 | | REQA`, a frame continued on a
  /// row that lost its last columns. Read in order (`.order` source time, every frame at 0),
  /// short frames' bits from their byte, one warning. Every row was skipped (exit 3).
  @Test func listingWithoutTimeColumnsIsReadInOrder() throws {
    let text = """
      Src | Data (! denotes parity error)           | CRC | Annotation
      Rdr | 26                                      |     | REQA  # poll
      Tag | 48  00                                  |     | ATQA
      Rdr | 0a  00  00  a4  04  00  0a  f4  65  73  6c  61  4c  6f  67  69  |     |
          | 63  f8  09                              |  ok | ?
      Tag | 0a  00  6d  00  83  5f                  |  ok |
          | 90  00   

      """
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "edited.txt", bytes: Data(text.utf8)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    #expect(frames.map(\.direction) == [.reader, .tag, .reader, .tag])
    #expect(frames.map(\.bits) == [7, nil, nil, nil])
    #expect(frames[2].data.count == 19 && frames[2].data.suffix(3) == [0x63, 0xF8, 0x09])
    #expect(frames[3].data == [0x0A, 0x00, 0x6D, 0x00, 0x83, 0x5F, 0x90, 0x00])
    #expect(frames.map { $0.sourceTime?.value } == [0, 1, 2, 3])
    #expect(frames.allSatisfy { $0.timeNs == 0 && $0.sourceTime?.unit == .order })
    #expect(importer.warnings.count == 1)
    #expect(importer.warnings.first?.location?.record == 2)
    // Recognised without --input-format.
    #expect(Proxmark3TextSniffer.score(head: Array(text.utf8), path: "x") == 80)
    let rows = "Rdr | 26 |     | REQA\nTag | 48  00 |     |\n"
    #expect(Proxmark3TextSniffer.score(head: Array(rows.utf8), path: "x") == 80)
  }
}

extension Pass47Type2Tests {
  /// An NFC-formatted Ultralight C (no GET_VERSION): its Lock Control TLV `01 03 A0 10 44`
  /// declares 16 lock bits at page 40 (LOCK2, LOCK3). The report showed a LOCK4 too (the
  /// page's third byte, which no lock bit fills).
  @Test func lockControlTLVOfSixteenBitsShowsTwoLockBytes() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE])
    b.read(40, [0x00, 0x00, 0x00, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let dynamic = try #require(TagReport(session: s).end.locks?.dynamic)
    #expect(dynamic.page == 40)
    #expect(dynamic.bytes == [0x00, 0x00])
    #expect(dynamic.lock4 == nil)
    #expect(dynamic.pagesPerBit == 4)
  }
}

extension Pass47Type2Tests {
  /// A query that read the CC but not the NDEF TLV (READ 0: pages 0–3):
  /// the capacity is counted from byte 16, an upper bound, and `sessions` says so.
  @Test func capacityWithoutTheNDEFTLVIsAnUpperBound() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    // READ 0: pages 0–3, the CC last (the data area from page 4 is not read).
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0x00, 0x00]
        + [0xE1, 0x10, 0x12, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.detail("capacity_upper_bound") == .bool(true))
    #expect(query.outcomeText == "readWrite ≤142 B")
  }
}

extension Pass47Type4Tests {
  /// The final NLEN's answer arrives damaged, the reader sends R(NAK), and the tag sends its
  /// answer again intact: 6A82, a refusal. Nothing was written: the NLEN stays the 0 written
  /// before (the damaged copy must not leave the bytes "written without acknowledgement").
  @Test func damagedAnswerThenAnIntactRefusalWritesNothing() throws {
    var (b, message) = Self.writtenUpToTheFinalNLEN()
    let block = b.blockNumber
    b.reader([0x02 | block, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)])
    b.tag([0x02 | block, 0x90, 0x00], badCRC: true)
    b.reader([0xB2 | block])
    b.tag([0x02 | block, 0x6A, 0x82])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.outcome == .failed)
    let file = try #require(s.memory.filesEnd[0xE104])
    #expect(file.known(0, 2) == [0x00, 0x00])
    #expect(file.state(0) != .unacknowledged && file.state(1) != .unacknowledged)
    #expect(try b.diagnose().finding("ndef-emptied") != nil)
  }
}

extension Pass47ImportTests {
  /// A stray row without times before a timed listing (two pastes in one file): the timed
  /// rows that follow are read as timed, their continuation rows' data included (they lost
  /// their bytes after the first untimed row: the untimed mode stayed on).
  @Test func timedRowsAfterAnUntimedOneKeepTheirContinuations() throws {
    let text = """
      Rdr | 52                                    |     | WUPA
            Start |        End | Src | Data (! denotes parity error)           | CRC | Annotation
      ------------+------------+-----+-----------------------------------------+-----+----------
                0 |       1056 | Rdr |30  04  26  ee                           |  ok | READ(4)
             2228 |      23028 | Tag |03  0b  d1  01  07  55  04  61  2e  62  63  00  fe  00  00  00  00  00  |     |
                  |            |     |00  00  00                               |     |

      """
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "two.txt", bytes: Data(text.utf8)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    #expect(frames.count == 3)
    #expect(frames.last?.data.count == 21)
    #expect(frames.dropFirst().allSatisfy { $0.sourceTime?.unit == .proxmarkTicks })
  }
}

extension Pass47Type4Tests {
  /// 63C1 to an UPDATE BINARY of message data: a warning whose SW1 63 says the non-volatile
  /// memory changed (ISO/IEC 7816-4 §5.1.3), so the bytes may be on the tag (written without
  /// acknowledgement), as after 6581. They were taken as not written.
  @Test func warning63xxToAnUpdateLeavesItsBytesUncertain() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(message.count)] + message, [0x63, 0xC1])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.outcome == .failed)
    let file = try #require(s.memory.filesEnd[0xE104])
    #expect(file.state(2) == .unacknowledged)
    #expect(file.known(2, message.count) == message)
  }
}

@Suite struct Pass47DiffTests {
  /// The right password (PACK answered) against a wrong one (NAK 0): the first differing
  /// response byte masks A's PACK byte but shows B's NAK, which is no secret (it printed
  /// `•• │ ••`, which says nothing).
  @Test func firstDifferenceMasksOnlyEachSidesSecret() throws {
    func side(_ password: [UInt8], answer: [UInt8], crc: Bool) throws -> DiffSide {
      var b = TraceBuilder()
      b.activateType2(version: DiffReviewTests.ntag215)
      b.reader([0x1B] + password)
      b.tag(answer, crc: crc)
      return try diffSide(b)
    }
    let a = try side([0x31, 0x32, 0x33, 0x34], answer: [0xAB, 0xCD], crc: true)
    let b = try side([0x35, 0x36, 0x37, 0x38], answer: [0x00], crc: false)
    let text = DiffText.lines(TraceDiff(a: a, b: b)).joined(separator: "\n")
    let line = try #require(text.split(separator: "\n").first { $0.contains("response byte 0:") })
    #expect(line.hasSuffix("│ 00"))
    #expect(line.contains("response byte 0: ••"))
    #expect(!text.contains("ab cd") && !text.contains("31 32"))
  }
}

extension Pass47ImportTests {
  /// An ATQA 39.8 ms after the REQA before it (a real `hf list 14a` sniff): a tag answers a
  /// poll about 90 µs after it (ISO/IEC 14443-3 §6.2.1.1), so it answers a poll the sniffer
  /// missed; said as `poll-not-captured`. It passed as the REQA's answer without a word.
  @Test func atqaLongAfterItsPollSaysThePollWasMissed() throws {
    let rule = "------------+------------+-----+------------------------------+-----+----------"
    let text = """
      [=] ISO14443A - All times are in carrier periods (1/13.56MHz)

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(rule)
         36888432 |   36889488 | Rdr |26                            |     | REQA
         37428132 |   37430500 | Tag |04  00                        |     |
         38408992 |   38409984 | Rdr |52                            |     | WUPA
         38411236 |   38413604 | Tag |04  00                        |     |

      """
    let (decoded, _) = decodeAll(try frames(text))
    let late = try #require(decoded[1].findings.first { $0.code == "poll-not-captured" })
    #expect(late.frames == [0, 1])
    #expect(late.message.hasPrefix("ATQA 39.8 ms after the REQA/WUPA of frame 0"))
    // An ATQA 166 µs after its WUPA is the WUPA's.
    #expect(!decoded[3].findings.contains { $0.code == "poll-not-captured" })
  }
}

extension Pass47ImportTests {
  /// A reader chip's REQA and the ATQA it reported (CRC not captured, host-clock times 3 ms
  /// apart, as a USB capture has them): no `poll-not-captured`, the chip got the ATQA in time.
  @Test func readerChipATQALateByTheHostClockIsNoMissedPoll() throws {
    let here = SourceLocation(file: "usb", unit: "packet", record: 1, offset: 0)
    var reqa = Frame(
      index: 0, timeNs: 0, sourceTime: SourceTime(0, .nanoseconds), direction: .reader,
      data: [0x26], bits: 7, location: here)
    reqa.crc = .notCaptured
    var atqa = Frame(
      index: 1, timeNs: 3_000_000, sourceTime: SourceTime(3_000_000, .nanoseconds),
      direction: .tag, data: [0x44, 0x00], location: here)
    atqa.crc = .notCaptured
    let (decoded, _) = decodeAll([reqa, atqa])
    #expect(decoded[1].innermost?.name == "ATQA")
    #expect(!decoded[1].findings.contains { $0.code == "poll-not-captured" })
  }
}
