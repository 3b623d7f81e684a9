import Foundation
import TestSupport
import Testing

@testable import NDEF
@testable import NFCTrace

/// The NFC Forum Type 5 Tag NDEF procedures over ISO/IEC 15693 (`Type5Procedure`): NDEF
/// detection, read, write and lock as Core NFC operations, the tag's memory and its report.
@Suite struct Type5ProcedureTests {
  /// UID E0 04 01 08 12 34 56 78 (an NXP tag), least significant byte first as on air.
  static let uid: [UInt8] = [0x78, 0x56, 0x34, 0x12, 0x08, 0x01, 0x04, 0xE0]
  /// CC E1 40 20 01: T5T 1.0, read and write always, MLEN 20h (256 bytes), READ MULTIPLE.
  static let cc: [UInt8] = [0xE1, 0x40, 0x20, 0x01]
  /// A URI record `https://www.example.com` (16 bytes) in its NDEF TLV, a Terminator and
  /// padding to 5 blocks of 4 bytes.
  static let message: [UInt8] =
    [0xD1, 0x01, 0x0C, 0x55, 0x02] + Array("example.com".utf8)
  static let tlv: [UInt8] = [0x03, 0x10] + message + [0xFE, 0x00]

  /// NFC-V frames of a reader and a tag, the ISO 15693 CRC appended.
  struct Builder {
    var frames: [Frame] = []

    mutating func add(_ direction: Direction, _ bytes: [UInt8]) {
      var f = TestFrame.make(
        frames.count, direction, CRC.appendingCRCB(bytes), time: Int64(frames.count) * 4_000_000)
      f.technology = .nfcV
      frames.append(f)
    }

    /// A request addressed to the tag, and its answer (none when nil).
    mutating func request(_ command: UInt8, _ parameters: [UInt8], answer: [UInt8]?) {
      add(.reader, [0x22, command] + uid + parameters)
      if let answer { add(.tag, answer) }
    }

    mutating func inventory() {
      add(.reader, [0x26, 0x01, 0x00])
      add(.tag, [0x00, 0x00] + uid)
    }

    mutating func systemInformation(blocks: Int, size: Int) {
      request(
        0x2B, [],
        answer: [0x00, 0x0F] + uid + [0x00, 0x00, UInt8(blocks - 1), UInt8(size - 1), 0x01])
    }

    mutating func read(_ block: Int, _ data: [UInt8]) {
      request(0x20, [UInt8(block)], answer: [0x00] + data)
    }

    mutating func read(_ block: Int, count: Int, _ data: [UInt8]) {
      request(0x23, [UInt8(block), UInt8(count - 1)], answer: [0x00] + data)
    }

    mutating func write(_ block: Int, _ data: [UInt8], answer: [UInt8]? = [0x00]) {
      request(0x21, [UInt8(block)] + data, answer: answer)
    }

    /// Inventory, the CC, and blocks 1–4 holding `area`.
    mutating func detect(area: [UInt8], cc: [UInt8] = Type5ProcedureTests.cc) {
      inventory()
      read(0, cc)
      read(1, count: 4, Array((area + Array(repeating: 0, count: 16)).prefix(16)))
    }

    /// The message's TLV written length first: block 1 with L = 0, blocks 2–5, block 1.
    mutating func writeLengthFirst(stopAfter blocks: Int = 6, refuseAt: Int? = nil) {
      let b = stride(from: 0, to: tlv.count, by: 4).map { Array(tlv[$0..<$0 + 4]) }
      write(1, [0x03, 0x00] + b[0].suffix(2))
      for i in 1..<min(b.count, blocks) {
        write(1 + i, b[i], answer: refuseAt == 1 + i ? [0x01, 0x12] : [0x00])
        if refuseAt == 1 + i { return }
      }
      if blocks > b.count { write(1, b[0]) }
    }

    func sessions() throws -> [SessionAnalysis] {
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    }

    func diagnose() throws -> DiagnosisReport {
      try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    }
  }

  /// The real NFC-Laboratory capture of a phone detecting NDEF on an ICODE SLIX: the CC in
  /// block 0, blocks 1–27 holding an empty NDEF TLV (`03 00 FE`): readWrite, 112 − 4 − 2.
  @Test func realCaptureDetectsAnEmptyFormattedTag() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-V_26kbps_001.json")
    let s = try SessionAnalysisRun(importer: NFCLabImporter(input: TraceInput(path: path)))
      .sessions
    #expect(s.first?.operations.map(\.kind) == [.connect, .connect, .queryNDEFStatus])
    #expect(s.first?.ndefStatus?.status == .readWrite)
    #expect(s.first?.ndefStatus?.capacity == 106)
    let report = TagReport(session: try #require(s.first))
    #expect(report.layout == .type5)
    #expect(report.end.type5CC?.areaSize == 112)
    guard case .empty = report.end.message else {
      Issue.record("message \(report.end.message)")
      return
    }
    #expect(report.rows().count == 28)
    #expect(report.rows()[1].bytes == [0x03, 0x00, 0xFE, 0x00])
  }

  /// The other real capture: block 0 holds zeros, no CC: notSupported.
  @Test func realCaptureOfAnUnformattedTag() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-V_26kbps_002.json")
    let s = try SessionAnalysisRun(importer: NFCLabImporter(input: TraceInput(path: path)))
      .sessions
    let query = try #require(s.first?.operations.last)
    #expect(query.kind == .queryNDEFStatus)
    #expect(query.detail("status") == .string("notSupported"))
    #expect(
      query.detail("rule")
        == .string(
          "block 0 holds no Type 5 CC: it starts 00 00 00 00, not the magic number E1h or E2h "
            + "(NFC Forum T5T 1.0 §4.3.1)"))
  }

  /// A length-first write the tag acknowledged: writeNDEF ok, the message decoded in the
  /// report, the capacity capped by GET SYSTEM INFORMATION's 16 blocks of 4 bytes.
  @Test func writeNDEFAcknowledged() throws {
    var b = Builder()
    b.inventory()
    b.systemInformation(blocks: 16, size: 4)
    b.read(0, Self.cc)
    b.read(1, count: 4, [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 13))
    b.writeLengthFirst()
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok])
    #expect(s.operations[1].detail("capacity") == .int(58))
    let report = TagReport(session: s)
    guard case .decoded(let ndef) = report.end.message else {
      Issue.record("message \(report.end.message)")
      return
    }
    #expect(ndef.findings.isEmpty)
    #expect(ndef.records.count == 1)
    #expect(report.end.tlvArea?.ndef?.length == 16)
    #expect(report.changed)
    #expect(report.rows()[1].bytes == [0x03, 0x10, 0xD1, 0x01])
    #expect(report.rows()[1].state == .written)
    let text = ReportText.render(report)
    #expect(text.contains("  @4 (block 1.0)  NDEF Message  L=16\n"))
    #expect(text.contains("  T5T area        256 bytes (MLEN 20 × 8)\n"))
    #expect(text.contains("   └─ uri: \"https://www.example.com\"\n"))
  }

  /// A WRITE answered with error 12h (block locked): writeNDEF failed, `t5t-write-refused`,
  /// Core NFC 401.
  @Test func writeRefusedOnALockedBlock() throws {
    var b = Builder()
    b.detect(area: [0x03, 0x00, 0xFE])
    b.writeLengthFirst(refuseAt: 3)
    let s = try #require(try b.sessions().first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .failed)
    #expect(
      write.reason
        == "WRITE SINGLE BLOCK of block 3 refused: error 12h (block locked: its content cannot "
        + "be changed)")
    #expect(write.detail("error_code") == .hex([0x12]))
    let finding = try #require(try b.diagnose().findings.first)
    #expect(finding.code == "t5t-write-refused")
    #expect(finding.coreNFCError == .tagUpdateFailure)
    #expect(finding.frames == [10, 11])
    #expect(finding.fix.hasPrefix("Block 3 is locked: ISO 15693 LOCK BLOCK is permanent"))
  }

  /// The tag left during the write: interrupted, Core NFC 100; the unanswered block is
  /// unacknowledged in memory.
  @Test func tagRemovedDuringWrite() throws {
    var b = Builder()
    b.detect(area: [0x03, 0x00, 0xFE])
    b.writeLengthFirst(stopAfter: 2)
    b.write(3, Array(Self.tlv[8..<12]), answer: nil)
    let s = try #require(try b.sessions().first)
    #expect(s.operations.last?.outcome == .interrupted)
    #expect(s.memory.type5End.state(12) == .unacknowledged)
    let finding = try #require(try b.diagnose().findings.first)
    #expect(finding.code == "write-interrupted")
    #expect(finding.coreNFCError == .tagConnectionLost)
  }

  /// Every WRITE acknowledged but the last step, the new length, never sent: interrupted,
  /// `unfinished` length.
  @Test func writeThatNeverSetTheLength() throws {
    var b = Builder()
    b.detect(area: [0x03, 0x00, 0xFE])
    b.writeLengthFirst(stopAfter: 5)
    let s = try #require(try b.sessions().first)
    let write = try #require(s.operations.last)
    #expect(write.outcome == .interrupted)
    #expect(write.detail("unfinished") == .string("length"))
  }

  /// NDEF detection reads the CC and the TLV's header; readNDEF reads on: the message.
  @Test func readNDEF() throws {
    var b = Builder()
    b.inventory()
    b.read(0, Self.cc)
    b.read(1, count: 2, Array(Self.tlv[0..<8]))
    b.read(3, count: 4, Array(Self.tlv[8..<20]) + [0, 0, 0, 0])
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    let read = s.operations[2]
    #expect(read.outcome == .ok)
    #expect(read.detail("ndef_length") == .int(16))
    #expect(read.detail("message") == .hex(Self.message))
  }

  /// A read stopped before the message's end is unknown; the app's second read of block 1
  /// is its next call.
  @Test func readStoppedEarlyAndReadAgain() throws {
    var b = Builder()
    b.inventory()
    b.read(0, Self.cc)
    b.read(1, count: 2, Array(Self.tlv[0..<8]))
    b.read(3, Array(Self.tlv[8..<12]))
    b.read(3, count: 3, Array(Self.tlv[8..<20]))
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .readNDEF])
    #expect(s.operations[2].outcome == .unknown)
    #expect(s.operations[2].reason == "reads stopped before the end of the 16-byte message")
    #expect(s.operations[3].outcome == .ok)
  }

  /// CC write access 11b: readOnly.
  @Test func readOnlyCC() throws {
    var b = Builder()
    b.detect(area: Self.tlv, cc: [0xE1, 0x43, 0x20, 0x01])
    let s = try #require(try b.sessions().first)
    #expect(s.ndefStatus?.status == .readOnly)
    // MLEN 20h × 8 = 256 bytes after the 4-byte CC, the NDEF TLV at byte 4: 256 − 2.
    #expect(s.ndefStatus?.capacity == 254)
  }

  /// A CC without an NDEF TLV in an area read whole (a Terminator first): notSupported.
  @Test func noNDEFTLV() throws {
    var b = Builder()
    b.detect(area: [0xFE])
    let s = try #require(try b.sessions().first)
    #expect(s.ndefStatus?.status == .notSupported)
    #expect(
      s.operations.last?.detail("rule")
        == .string("no NDEF Message TLV in the T5T area (the CC alone does not make the tag NDEF)"))
  }

  /// writeLock: the CC written with write access 11b, then LOCK BLOCK of blocks 0–2.
  @Test func writeLock() throws {
    var b = Builder()
    b.detect(area: Self.tlv)
    b.write(0, [0xE1, 0x43, 0x20, 0x01])
    for block in 0..<3 { b.request(0x22, [UInt8(block)], answer: [0x00]) }
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(s.operations[2].outcome == .ok)
    #expect(s.operations[2].detail("locked_blocks") == .string("0, 1, 2"))
    #expect(TagReport(session: s).end.status?.status == .readOnly)
  }

  /// An 8-byte CC (E2h, MLEN in bytes 6–7) read with EXTENDED READ commands: the TLV area
  /// starts at byte 8.
  @Test func eightByteCCWithExtendedReads() throws {
    var b = Builder()
    b.inventory()
    b.request(0x30, [0x00, 0x00], answer: [0x00, 0xE2, 0x40, 0x00, 0x01])
    b.request(0x33, [0x01, 0x00, 0x05, 0x00], answer: [0x00, 0x00, 0x00, 0x01, 0x00] + Self.tlv)
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    // MLEN 0100h × 8 = 2048 bytes after the 8-byte CC; the NDEF TLV at byte 8: 2048, minus T
    // and a 3-byte L.
    #expect(s.ndefStatus?.capacity == 2044)
    let report = TagReport(session: s)
    #expect(report.end.type5CC?.eightBytes == true)
    #expect(report.end.tlvArea?.baseAddress == 8)
    guard case .decoded = report.end.message else {
      Issue.record("message \(report.end.message)")
      return
    }
  }

  /// `diff` of a write the tag acknowledged against one refused at block 3: the blocks and
  /// the final messages differ, block by block.
  @Test func diffComparesBlocksAndMessages() throws {
    var ok = Builder()
    ok.detect(area: [0x03, 0x00, 0xFE])
    ok.writeLengthFirst()
    var refused = Builder()
    refused.detect(area: [0x03, 0x00, 0xFE])
    refused.writeLengthFirst(refuseAt: 3)
    func side(_ b: Builder) throws -> DiffSide {
      var recorder = ExchangeRecorder(selection: .init(sessions: [], lastWithTag: true))
      let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) {
        recorder.take($0)
      }
      recorder.finish()
      let analysis = try #require(run.sessions.first)
      let exchanges = try #require(
        recorder.exchanges(session: 0, operations: analysis.operations))
      return DiffSide(path: "built", analysis: analysis, exchanges: exchanges)
    }
    let lines = DiffText.lines(TraceDiff(a: try side(ok), b: try side(refused)))
    let memory = lines.filter { $0.hasPrefix("≠ block ") }.map { String($0.prefix(23)) }
    #expect(
      memory == [
        "≠ block 1   03 10 d1 01", "≠ block 3   78 61 6d 70", "≠ block 4   6c 65 2e 63",
        "≠ block 5   6f 6d fe 00",
      ])
    #expect(lines.contains { $0.hasPrefix("≠ message, 16 B, 1 record") && $0.hasSuffix("│ empty") })
  }

  /// GET SYSTEM INFORMATION giving 32-byte blocks and WRITEs of 4-byte blocks (a capture
  /// mixing tags, or a lying answer): the write's settlement looks past the image's end
  /// without trapping, and the write stays ok.
  @Test func blockSizeDisagreeingWithTheWrites() throws {
    var b = Builder()
    b.inventory()
    b.systemInformation(blocks: 8, size: 32)
    b.read(0, Self.cc)
    b.write(1, [0x03, 0x00, 0xFE, 0x00])
    let s = try #require(try b.sessions().first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .ok)
    #expect(s.memory.type5BlockSize == 32)
  }

  /// Review findings on the first version of the Type 5 procedures.
  @Test func firstRefusalNamesTheOperationsError() throws {
    var b = Builder()
    b.detect(area: Self.tlv)
    b.write(0, [0xE1, 0x43, 0x20, 0x01])
    b.request(0x22, [0], answer: [0x00])
    b.request(0x22, [1], answer: [0x01, 0x11])
    b.request(0x22, [2], answer: [0x01, 0x14])
    let s = try #require(try b.sessions().first)
    let lock = try #require(s.operations.last)
    #expect(lock.kind == .writeLock)
    #expect(lock.reason == "LOCK BLOCK of block 1 refused: error 11h (block already locked)")
    #expect(lock.detail("error_code") == .hex([0x11]))
    #expect(lock.detail("refused_block") == .int(1))
    let finding = try #require(try b.diagnose().findings.first)
    #expect(finding.fix.hasPrefix("Block 1 was locked already: LOCK BLOCK of a locked block"))
  }

  /// A READ answer that does not hold count × GET SYSTEM INFORMATION's block size fails the
  /// read and records nothing.
  @Test func readAnswerOfTheWrongLength() throws {
    var b = Builder()
    b.inventory()
    b.systemInformation(blocks: 64, size: 4)
    b.read(0, Self.cc)
    b.read(1, count: 2, Array(Self.tlv[0..<12]))
    let s = try #require(try b.sessions().first)
    #expect(s.operations.last?.outcome == .failed)
    #expect(
      s.operations.last?.reason
        == "the READ MULTIPLE BLOCKS of 2 blocks was answered with 12 data bytes, not 2 × 4 (the "
        + "block size GET SYSTEM INFORMATION gave)")
    #expect(s.memory.type5End.count == 4)
  }

  /// A format (the CC written to a tag found not formatted, then the TLV) is the app's own
  /// writes, not writeNDEF; an 8-byte CC's first block written with write access 11b is one
  /// writeLock.
  @Test func formatIsTransceiveAndEightByteCCLocks() throws {
    var b = Builder()
    b.inventory()
    b.read(0, [0, 0, 0, 0])
    b.write(0, Self.cc)
    b.write(1, [0x03, 0x00, 0xFE, 0x00])
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    var c = Builder()
    c.inventory()
    c.request(0x30, [0x00, 0x00], answer: [0x00, 0xE2, 0x40, 0x00, 0x01])
    c.request(0x33, [0x01, 0x00, 0x05, 0x00], answer: [0x00, 0x00, 0x00, 0x01, 0x00] + Self.tlv)
    c.request(0x31, [0x00, 0x00, 0xE2, 0x43, 0x00, 0x01], answer: [0x00])
    c.request(0x32, [0x00, 0x00], answer: [0x00])
    let t = try #require(try c.sessions().first)
    #expect(t.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
  }

  /// MLEN 0: no T5T area, notSupported.
  @Test func noTypeFiveArea() throws {
    var b = Builder()
    b.detect(area: Self.tlv, cc: [0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00])
    let s = try #require(try b.sessions().first)
    #expect(s.ndefStatus?.status == .notSupported)
    #expect(
      s.operations.last?.detail("rule")
        == .string("the CC declares no T5T area (MLEN 0): there is no room for NDEF"))
  }

  /// With the option flag, an answer whose length fits no block size keeps its bytes as
  /// `data_with_status`: nothing goes into memory.
  @Test func optionFlagAnswerThatFitsNoBlockSize() {
    var b = Builder()
    b.inventory()
    b.add(.reader, [0x62, 0x23] + Self.uid + [0x01, 0x03])
    b.add(.tag, [0x00] + Array(repeating: 0x11, count: 17))
    let out = decodeAll(b.frames).0
    #expect(out[3].innermost?.field("data") == nil)
    #expect(
      out[3].innermost?.summary
        == "READ MULTIPLE BLOCKS response blocks 1–4: 17 byte(s) with security status bytes that "
        + "fit no block size: not split")
  }

  /// A WRITE of 4 bytes where GET SYSTEM INFORMATION gave 8-byte blocks cannot be placed: it
  /// is not recorded (it was stored at byte 4, inside block 0).
  @Test func writeOfTheWrongBlockSizeIsNotPlaced() throws {
    var b = Builder()
    b.inventory()
    b.systemInformation(blocks: 16, size: 8)
    b.read(0, [0xE1, 0x40, 0x10, 0x01, 0x03, 0x00, 0xFE, 0x00])
    b.write(1, [0xAA, 0xBB, 0xCC, 0xDD])
    let s = try #require(try b.sessions().first)
    #expect(s.memory.type5End.count == 8)
    #expect(s.memory.type5End.known(4, 4) == [0x03, 0x00, 0xFE, 0x00])
  }

  /// GET MULTIPLE BLOCK SECURITY STATUS showing blocks 1–2 locked while the CC says write
  /// always: `t5t-blocks-locked`, its evidence the status answer; none once the CC says never.
  @Test func lockedBlocksUnderAWriteAlwaysCC() throws {
    var b = Builder()
    b.detect(area: Self.tlv)
    b.request(0x2C, [0x00, 0x03], answer: [0x00, 0x00, 0x01, 0x01, 0x00])
    let finding = try #require(try b.diagnose().findings.first { $0.code == "t5t-blocks-locked" })
    #expect(finding.severity == .warning)
    #expect(finding.cause == "blocks 1–2 of the T5T area locked while the CC says write always")
    #expect(finding.frames == [7])
    #expect(finding.coreNFCError == nil)
    var c = Builder()
    c.detect(area: Self.tlv, cc: [0xE1, 0x43, 0x20, 0x01])
    c.request(0x2C, [0x00, 0x03], answer: [0x00, 0x00, 0x01, 0x01, 0x00])
    #expect(try c.diagnose().findings.contains { $0.code == "t5t-blocks-locked" } == false)
  }

  /// The block size GET SYSTEM INFORMATION gave in the tag's first session holds in its next
  /// (after the field went off): a READ answer of another length there fails, as in the first.
  @Test func blockSizeCarriesToTheTagsNextSession() throws {
    var b = Builder()
    b.inventory()
    b.systemInformation(blocks: 64, size: 4)
    b.read(0, Self.cc)
    var off = TestFrame.make(b.frames.count, .event, [], time: Int64(b.frames.count) * 4_000_000)
    off.event = .fieldOff
    b.frames.append(off)
    b.inventory()
    b.read(1, count: 2, Array(Self.tlv[0..<12]))
    let s = try b.sessions()
    try #require(s.count == 2)
    #expect(s[1].memory.type5BlockSize == 4)
    #expect(s[1].operations.last?.outcome == .failed)
    #expect(
      s[1].operations.last?.reason
        == "the READ MULTIPLE BLOCKS of 2 blocks was answered with 12 data bytes, not 2 × 4 (the "
        + "block size GET SYSTEM INFORMATION gave)")
  }
}
