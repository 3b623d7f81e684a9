import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the 2026-12-07 (ninth) session's hunt.
@Suite struct Pass48RegressionTests {
  /// A libnfc log: READ 7 timed out (PN53x status 01h), the stack sent it again and the chip
  /// got the answer with a bad CRC (status 02h). The tag answered, so it did not leave: the
  /// readNDEF failed on the damaged answer, not "interrupted: no answer" (it said so).
  @Test func damagedAnswerToARetryIsNoSilence() throws {
    let lines = [
      "InListPassiveTarget",
      "TX: 00 00 ff 04 fc d4 4a 01 00 e1 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 0f f1 d5 4b 01 01 00 44 00 07 04 a8 ce 6a 5d 2d 80 a5 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 03 b8 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 13 ed d5 41 00 e1 10 12 00 01 03 a0 0c 34 03 19 d1 01 15 55 04 a7 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 01 e9 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 02 e8 00",
    ]
    let log = lines.map { line in
      line.hasPrefix("TX") || line.hasPrefix("RX")
        ? "debug\tlibnfc.driver.pn53x_usb\t" + line : "debug\tlibnfc.chip.pn53x\t" + line
    }.joined(separator: "\n")
    let input = TraceInput(path: "retry.log", bytes: Data(log.utf8))
    let run = try SessionAnalysisRun(importer: try LibnfcLogImporter(input: input))
    let op = try #require(run.sessions.first?.operations.last)
    #expect(op.kind == .readNDEF)
    #expect(op.outcome == .failed)
    #expect(
      op.reason
        == "the reader received the tag's answer to READ page 7 damaged (CRC, parity or framing "
        + "error) and reported the command failed: the tag answered, but what it answered is "
        + "unknown")
    #expect(op.unansweredFrames == [4])
  }
}

/// Type 5 refusals with error 10h (block not available, ISO/IEC 15693-3 §7.4.2): the fix says
/// what the CC's MLEN and GET SYSTEM INFORMATION show of the block, and an app's own block
/// writes are named with NFCISO15693Tag's calls, not sendMiFareCommand's NAK.
@Suite struct Pass48Type5Tests {
  typealias B = Type5ProcedureTests.Builder

  static func refused(blocks: Int, cc: [UInt8], at block: Int) throws -> DiagnosisFinding {
    var b = B()
    b.inventory()
    b.systemInformation(blocks: blocks, size: 4)
    b.read(0, cc)
    b.read(
      1, count: 4, Array((Type5ProcedureTests.tlv + Array(repeating: 0, count: 16)).prefix(16)))
    let tlv = Type5ProcedureTests.tlv
    for n in 1...block {
      let data = Array(tlv[(n - 1) * 4..<n * 4])
      b.write(n, data, answer: n == block ? [0x01, 0x10] : [0x00])
    }
    return try #require(try b.diagnose().finding("t5t-write-refused"))
  }

  /// A block past GET SYSTEM INFORMATION's memory (5 blocks: 20 bytes) under a CC whose MLEN
  /// declares more; a block inside the memory under that CC (28 blocks: the fix no longer says
  /// block 3 does not exist); a block inside both (80).
  @Test(arguments: [
    (
      5, 5,
      "Block 5 does not exist on this tag: GET SYSTEM INFORMATION reports 20 bytes: the CC's "
        + "MLEN declares 260 bytes (CC included), more than the tag has, so the message was "
        + "larger than the tag."
    ),
    (
      28, 3,
      "Block 3 is inside the memory GET SYSTEM INFORMATION reports and the T5T area the CC "
        + "declares, yet the tag answered 10h"
    ),
    (
      80, 3,
      "Block 3 is inside the memory GET SYSTEM INFORMATION reports and the T5T area the CC "
        + "declares, yet the tag answered 10h"
    ),
  ])
  func refusedWithError10h(blocks: Int, at block: Int, fix: String) throws {
    let f = try Self.refused(blocks: blocks, cc: Type5ProcedureTests.cc, at: block)
    #expect(f.fix.hasPrefix(fix))
  }

  @Test func blockPastTheArea() throws {
    let f = try Self.refused(blocks: 80, cc: [0xE1, 0x40, 0x02, 0x01], at: 5)
    #expect(
      f.fix.hasPrefix(
        "Block 5 lies past the T5T area the CC declares (MLEN: 20 bytes, CC included)"))
    #expect(
      f.message.hasSuffix(
        "These writes were the app's own (NFCISO15693Tag's writeSingleBlock / "
          + "writeMultipleBlocks), which fail an ISO 15693 error response with 102 "
          + "(readerTransceiveErrorTagResponseError, the error code under "
          + "NFCISO15693TagResponseErrorKey), not writeNDEF's 401."))
    #expect(f.coreNFCError == .tagResponseError)
  }
}

/// ISO/IEC 15693-3 §10.3.2: STAY QUIET (02h) is always addressed and never answered. In a
/// Proxmark3 `hf 15` listing it was left raw (CRC_B, "not decoded yet") and its silence read
/// as the tag leaving the field.
@Suite struct Pass48StayQuietTests {
  @Test func stayQuietInAnISO15693ListingIsDecoded() throws {
    let rows = [
      ("0", "20480", "Rdr", "26  01  00  F6  0A"),
      ("36752", "85905", "Tag", "00  00  03  DD  A3  B1  14  01  04  E0  B5  81"),
      ("140145", "193394", "Rdr", "22  20  03  DD  A3  B1  14  01  04  E0  00  C2  F7"),
      ("209666", "238338", "Tag", "00  E1  40  0E  01  A9  EA"),
      ("292578", "341731", "Rdr", "22  02  03  DD  A3  B1  14  01  04  E0  B4  EE"),
      ("412243", "465492", "Rdr", "22  20  03  DD  A3  B1  14  01  04  E0  01  4B  E6"),
      ("481764", "510436", "Tag", "00  03  10  D1  01  45  38"),
    ]
    let listing =
      [
        "[=] ISO15693 / iCLASS - all times are in carrier periods (1/13.56MHz)", "",
        "      Start |        End | Src | Data (! denotes parity error)  | CRC | Annotation",
        "------------+------------+-----+--------------------------------+-----+-----------",
      ]
      + rows.map { "\($0.0) | \($0.1) | \($0.2) |\($0.3) |  ok | " }
    let input = TraceInput(
      path: "stay-quiet.txt", bytes: Data(listing.joined(separator: "\n").utf8))
    let run = try SessionAnalysisRun(importer: try Proxmark3TextImporter(input: input))
    let s = try #require(run.sessions.first)
    let quiet = try #require(s.operations.first { $0.firstFrame == 4 })
    #expect(quiet.kind == .transceive)
    #expect(quiet.outcome == .ok)
    #expect(FrameDecoder.isISO15693Request(hx15("22 02 03 DD A3 B1 14 01 04 E0 B4 EE")))
    #expect(FrameDecoder.isAddressedISO15693Request(hx15("22 02 03 DD A3 B1 14 01 04 E0 B4 EE")))
  }

  private func hx15(_ s: String) -> [UInt8] {
    s.split(separator: " ").compactMap { UInt8($0, radix: 16) }
  }
}

/// `diff` compared frame indices inside an operation's reason and frame-valued details, so two
/// sessions that differ only in where they sit in their traces "differed" (docs/json.md: frame
/// indices are never compared).
@Suite struct Pass48DiffTests {
  @Test func frameNumbersInReasonsAndDetailsAreNotCompared() {
    var a = Operation(kind: .transceive, frame: 10)
    var b = Operation(kind: .transceive, frame: 16)
    a.interrupt("no answer to frame 16: the tag left the field", frame: 16)
    b.interrupt("no answer to frame 22: the tag left the field", frame: 22)
    a.set("answer_not_captured", .int(633))
    b.set("answer_not_captured", .int(650))
    #expect(TraceDiff.operationDifferences(a, b).isEmpty)
    b.set("nak_code", .int(0))
    #expect(TraceDiff.operationDifferences(a, b).map(\.field) == ["details.nak_code"])
    var c = Operation(kind: .transceive, frame: 16)
    c.interrupt("no answer to frame 22: the tag stopped answering", frame: 22)
    #expect(
      TraceDiff.operationDifferences(a, c).map(\.field) == [
        "reason", "details.answer_not_captured",
      ])
  }

  @Test func withoutFrameNumbers() {
    #expect(
      TraceDiff.withoutFrameNumbers(
        "frames 4–6 of frame 12 (frame 3), a 16-byte frame, frames 4, 7 and 9, set (at #12) "
          + "frame 12-byte") == "frames N of frame N (frame N), a 16-byte frame, frames N, set "
        + "(at #N) frame N-byte")
  }
}

/// An app's READ of a page past a message its readNDEF already read whole (READ 4, READ 8 read
/// the message and its Terminator; then READ 16) is its own `transceive`, as README says; it
/// was folded into the readNDEF.
@Suite struct Pass48ReadPastMessageTests {
  @Test func jumpPastAWholeMessageIsTransceive() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    let message: [UInt8] = [0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    let pages = message + [0xFE] + Array(repeating: 0, count: 64)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00] + Array(pages[0..<12]))
    b.read(4, Array(pages[0..<16]))
    b.read(8, Array(pages[16..<32]))
    b.read(16, Array(repeating: 0, count: 16))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .transceive])
  }
}

/// A command retried after a silence and then answered, a refusal included, shows the tag was
/// there: the silence interrupted nothing, and the refusal decides (2026-12-07 NCI/USB hunt).
@Suite struct Pass48RetryTests {
  /// WRITE page 5 unanswered, sent again and refused with NAK 0: writeNDEF failed on the NAK
  /// (it was "interrupted: no answer", Core NFC 100 beside the NAK's 401).
  @Test func refusalOfARetryIsAFailureNotAnInterruption() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE, 0x00] + Array(repeating: 0, count: 8))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x06, 0x55, 0x04, 0x62], .none)
    b.write(5, [0x06, 0x55, 0x04, 0x62], .nak(0))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let op = try #require(s.operations.last)
    #expect(op.kind == .writeNDEF)
    #expect(op.outcome == .failed)
    #expect(op.reason?.hasPrefix("NAK 0x0") == true)
    let report = try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(
      expected: nil)
    #expect(!report.codes.contains("write-interrupted"))
  }

  /// A PN53x (libnfc) session: MIFARE Classic AUTH refused by the chip (status 14h), the tag
  /// listed again (InListPassiveTarget), AUTH with the right key done, READ. The second
  /// activation is a connect of its own and the successful AUTH its own operation (it was
  /// folded into the failed authenticate).
  @Test func reactivationReportedByTheChipStartsAConnect() throws {
    let lines = [
      "TX: 00 00 ff 04 fc d4 4a 01 00 e1 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 0c f4 d5 4b 01 01 00 04 08 04 5e 1f 7a 33 a4 00",
      "TX: 00 00 ff 0f f1 d4 40 01 60 04 ff ff ff ff ff ff 5e 1f 7a 33 63 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 14 d6 00",
      "TX: 00 00 ff 04 fc d4 4a 01 00 e1 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 0c f4 d5 4b 01 01 00 04 08 04 5e 1f 7a 33 a4 00",
      "TX: 00 00 ff 0f f1 d4 40 01 60 04 a0 a1 a2 a3 a4 a5 5e 1f 7a 33 8e 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 00 ea 00",
      "TX: 00 00 ff 05 fb d4 40 01 30 04 b7 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 13 ed d5 41 00 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 72 00",
    ]
    let log = lines.map { "debug\tlibnfc.driver.pn53x_usb\t" + $0 }.joined(separator: "\n")
    let input = TraceInput(path: "mfc.log", bytes: Data(log.utf8))
    let run = try SessionAnalysisRun(importer: try LibnfcLogImporter(input: input))
    let s = try #require(run.sessions.first)
    #expect(
      s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "authenticate failed", "connect ok", "authenticate ok", "transceive ok",
      ])
  }
}

extension Pass48RetryTests {
  /// A PC/SC reader's `63 00` to READ page 3 (`ReaderFailure`: a NAK or no answer, the reader
  /// does not say), then the same READ answered: the query recovers (it stayed failed beside a
  /// readNDEF that went on).
  @Test func readerReportedFailureMadeUpByARetry() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    var frames = b.frames
    var t = frames.last?.timeNs ?? 0
    func add(_ direction: Direction, _ data: [UInt8], flags: [String] = []) {
      t += 1_000_000
      let i = frames.count
      frames.append(
        Frame(
          index: i, timeNs: t, direction: direction, data: data,
          crc: flags.isEmpty ? .unchecked : .notCaptured, technology: .nfcA, sourceFlags: flags,
          location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0)))
    }
    let cc: [UInt8] = [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9)
    add(.reader, CRC.appendingCRCA([0x30, 0x03]))
    add(.tag, [], flags: [ReaderChipFlag.readerFailure])
    add(.reader, CRC.appendingCRCA([0x30, 0x03]))
    add(.tag, CRC.appendingCRCA(cc))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .ok)
    #expect(query.failedFrames.count == 1)
    #expect(s.ndefStatus?.status == .readWrite)
  }
}

extension Pass48ReadPastMessageTests {
  /// FAST_READs in order past the message (4–11 holds it, then 12–19) stay in the readNDEF:
  /// the page after the last read is the last FAST_READ's end + 1, not its start + 4 (review).
  @Test func fastReadsInOrderStayInTheRead() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    let message: [UInt8] = [0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    let pages = message + [0xFE] + Array(repeating: 0, count: 64)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00] + Array(pages[0..<12]))
    b.reader([0x3A, 0x04, 0x0B])
    b.tag(Array(pages[0..<32]))
    b.reader([0x3A, 0x0C, 0x13])
    b.tag(Array(pages[32..<64]))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
  }
}

/// Ultralight C lock byte 2 (page 28h byte 0) locks 4-page groups, bits 0 and 4 being
/// block-locking bits (NXP MF0ICU2 datasheet §7.5.3); the diagnosis read it as NTAG213's, 2
/// pages per bit (2026-12-07 NTAG hunt).
@Suite struct Pass48UltralightCLockTests {
  /// Identified as an Ultralight C (AUTHENTICATE answered AFh), re-activated, CC and lock page
  /// read, LOCK2 ← `lock2` acknowledged, then WRITE `page` refused with NAK 0.
  /// An Ultralight C told by its answer to AUTHENTICATE (AFh), activated again, pages 0–3 read
  /// (CC E1 10 12 00).
  static func identifiedUltralightC() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF, 1, 2, 3, 4, 5, 6, 7, 8])
    b.activateType2()
    b.read(
      0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0, 0, 0xE1, 0x10, 0x12, 0])
    return b
  }

  static func diagnose(lock2: UInt8, page: Int) throws -> DiagnosisReport {
    var b = Self.identifiedUltralightC()
    b.read(0x28, [0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0])
    b.write(0x28, [lock2, 0, 0, 0])
    b.write(page, [1, 2, 3, 4], .nak(0))
    return try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(expected: nil)
  }

  @Test func bitFiveLocksPages28To31() throws {
    let r = try Self.diagnose(lock2: 0x20, page: 0x1C)
    #expect(
      r.finding("t2t-lock-cc-writable")?.cause.hasPrefix("lock bits set on pages 28–31") == true)
    #expect(r.finding("t2t-nak-locked-page") != nil)
  }

  @Test func blockLockingBitLocksNoPage() throws {
    let r = try Self.diagnose(lock2: 0x01, page: 0x10)
    #expect(r.finding("t2t-lock-cc-writable") == nil)
    #expect(r.finding("t2t-nak-locked-page") == nil)
  }
}

extension Pass48UltralightCLockTests {
  /// NTAG213: writeLock's WRITE of the dynamic lock page (never read) sets LOCK2 FF and LOCK3
  /// 0F: LOCK4 is not known, and `locks.dynamic.bytes` shows it `??` (it was left out).
  @Test func unknownLock4IsShownAsUnknown() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9))
    b.write(0x28, [0xFF, 0x0F, 0x00, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let d = try #require(TagReport(session: s).end.locks?.dynamic)
    #expect(d.bytes == [0xFF, 0x0F, 0x00])
    #expect(d.unknownBytes == [2])
  }
}

extension Pass48UltralightCLockTests {
  /// The report decodes an Ultralight C's lock byte 2 by its 4-page groups (it said "not
  /// decoded"): bit 5 locks pages 28–31, the block-locking bit 0 none.
  @Test func reportDecodesUltralightCLockBytes() throws {
    var b = Self.identifiedUltralightC()
    b.read(0x28, [0x21, 0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let locks = try #require(TagReport(session: s).end.locks)
    #expect(locks.dynamic?.page == 0x28)
    #expect(locks.dynamic?.bytes == [0x21, 0x00])
    #expect(locks.dynamic?.lockedRanges == [28...31])
    #expect(
      Type2Locks.ultralightCRanges(lock2: 0xEE) == [
        16...19, 20...23, 24...27, 28...31, 32...35, 36...39,
      ])
  }
}

/// A writeLock whose lock bits the block-locking bits already froze did nothing for those pages:
/// it was "SUCCEEDED — no problem found" (2026-12-07 NTAG hunt).
@Suite struct Pass48FrozenLockTests {
  /// An NTAG213 whose LOCK0 reads 02h (BL 9–4 set: the lock bits of pages 4–9 can no longer
  /// change), then a writeLock's acknowledged WRITE of page 2 with lock bytes `locks`.
  static func diagnose(locks: [UInt8]) throws -> DiagnosisReport {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x02, 0x00] + [
        0xE1, 0x10, 0x12, 0x00,
      ])
    b.write(2, [0x00, 0x48] + locks)
    return try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(expected: nil)
  }

  @Test func frozenLockBitsAreWarned() throws {
    let r = try Self.diagnose(locks: [0x10, 0x00])
    let f = try #require(r.finding("t2t-lock-bits-frozen"))
    #expect(f.cause == "the lock bits of page 4 were frozen by block-locking bits already set")
    #expect(f.severity == .warning)
    // A lock bit no block-locking bit freezes (page 10, BL 15–10 clear) is no finding.
    let r2 = try Self.diagnose(locks: [0x00, 0x04])
    #expect(r2.finding("t2t-lock-bits-frozen") == nil)
  }
}
