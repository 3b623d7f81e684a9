import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// NFC Forum Type 3 Tag (FeliCa) NDEF procedures: the Attribute Information Block, sessions in
/// Core NFC terms, the report's block map and the diagnosis of failed writes (T3T 1.0 §7).
private let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA]

/// Frames of an NFC-F exchange: LEN, payload, CRC-F (JIS X 6319-4).
private struct FeliCaTrace {
  var frames: [Frame] = []
  var timeNs: Int64 = 0
  /// Frames as a Proxmark3 logs them: sync code `B2 4D` first, technology not said.
  var proxmark3 = false
  /// Frames as a pcap (link type 264) holds them: technology not said, no sync code.
  var technologyUnsaid = false

  mutating func add(
    _ dir: Direction, _ payload: [UInt8], gapNs: Int64 = 2_000_000, damaged: Bool = false
  ) {
    timeNs += gapNs
    let body = [UInt8(payload.count + 1)] + payload
    let crc = CRC.crcF(body) ^ (damaged ? 0x0101 : 0)
    let i = frames.count
    frames.append(
      Frame(
        index: i, timeNs: timeNs, direction: dir, event: nil,
        data: (proxmark3 ? [0xB2, 0x4D] : []) + body + [UInt8(crc >> 8), UInt8(crc & 0xFF)],
        bits: nil, parityErrors: [],
        technology: proxmark3 || technologyUnsaid ? .unknown : .nfcF,
        location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0)))
  }

  /// A frame of bytes as given (another technology's), technology not said.
  mutating func raw(_ dir: Direction, _ data: [UInt8], gapNs: Int64 = 2_000_000) {
    timeNs += gapNs
    let i = frames.count
    frames.append(
      Frame(
        index: i, timeNs: timeNs, direction: dir, event: nil, data: data, bits: nil,
        parityErrors: [], technology: .unknown,
        location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0)))
  }

  func decoded() -> [DecodedFrame] {
    var decoder = FrameDecoder()
    return frames.map { decoder.decode($0) }
  }

  /// SENSF_REQ for 12FC answered by a card of IC code `ic` (PMm byte 1; F1h FeliCa Lite-S).
  mutating func poll(ic: UInt8 = 0xF1) {
    add(.reader, [0x00, 0x12, 0xFC, 0x01, 0x00])
    add(.tag, [0x01] + idm + [0x00, ic, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
  }

  /// Block list elements of 2 bytes (block below 256) or 3 bytes (`00` flag, block
  /// little-endian).
  static func blockList(_ blocks: [Int]) -> [UInt8] {
    [UInt8(blocks.count)]
      + blocks.flatMap {
        $0 < 256 ? [0x80, UInt8($0)] : [0x00, UInt8($0 & 0xFF), UInt8($0 >> 8)]
      }
  }

  /// CHECK of `blocks` answered with `data` (nil: unanswered; `damaged`: with a bad CRC).
  mutating func check(_ blocks: [Int], _ data: [UInt8]?, damaged: Bool = false) {
    add(.reader, [0x06] + idm + [0x01, 0x0B, 0x00] + Self.blockList(blocks))
    if let data {
      add(.tag, [0x07] + idm + [0, 0, UInt8(data.count / 16)] + data, damaged: damaged)
    }
  }

  /// UPDATE of `blocks` with `data`, answered with status flags `flags` (nil: unanswered).
  mutating func update(_ blocks: [Int], _ data: [UInt8], flags: [UInt8]? = [0, 0]) {
    add(.reader, [0x08] + idm + [0x01, 0x09, 0x00] + Self.blockList(blocks) + data)
    if let flags { add(.tag, [0x09] + idm + flags) }
  }

  func sessions() throws -> [SessionAnalysis] {
    try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
  }

  func diagnose() throws -> DiagnosisReport {
    try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
  }
}

private func aib(
  nmaxb: Int = 13, writeOn: Bool = false, rw: UInt8 = 1, ln: Int, version: UInt8 = 0x10,
  nbw: UInt8 = 1
) -> [UInt8] {
  Type3AttributeBlock(
    parsing: [
      version, 4, nbw, UInt8(nmaxb >> 8), UInt8(nmaxb & 0xFF), 0, 0, 0, 0, writeOn ? 0x0F : 0, rw,
      UInt8(ln >> 16), UInt8((ln >> 8) & 0xFF), UInt8(ln & 0xFF), 0, 0,
    ])!.serialized()
}

private func padded(_ b: [UInt8], _ blocks: Int) -> [UInt8] {
  b + [UInt8](repeating: 0, count: blocks * 16 - b.count)
}

/// URI record https://example.com (16 bytes).
private let message: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)

private func analyze(_ path: String) throws -> [SessionAnalysis] {
  let input = try TraceInput(path: path)
  let format = try FormatRegistry(BuiltinFormats.all).detect(input)
  return try SessionAnalysisRun(importer: try format.open(input)).sessions
}

@Suite struct Type3TagTests {
  @Test func attributeBlockFieldsChecksumAndStatus() throws {
    let bytes: [UInt8] = [
      0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0x19, 0x00, 0x3C,
    ]
    let a = try #require(Type3AttributeBlock(parsing: bytes))
    #expect(a.versionText == "1.0")
    #expect(a.nbr == 4 && a.nbw == 1 && a.nmaxb == 13 && a.capacity == 208)
    #expect(a.ln == 25 && a.messageBlocks == 2)
    #expect(a.checksum == 0x3C && a.checksumValid)
    #expect(a.ndefStatus.status == .readWrite && a.ndefStatus.capacity == 208)
    #expect(a.serialized() == bytes)
    #expect(Type3AttributeBlock(parsing: bytes.prefix(15)) == nil)

    var wrongSum = bytes
    wrongSum[15] = 0x3D
    let bad = try #require(Type3AttributeBlock(parsing: wrongSum))
    #expect(bad.ndefStatus.status == .notSupported)
    #expect(
      bad.invalidReason
        == "the Attribute Information Block's checksum is 003D, the sum of its bytes 0–13 is 003C")
    let v2 = try #require(Type3AttributeBlock(parsing: aib(ln: 0, version: 0x20)))
    #expect(v2.ndefStatus.status == .notSupported)
    let readOnly = try #require(Type3AttributeBlock(parsing: aib(rw: 0, ln: 16)))
    #expect(readOnly.ndefStatus.status == .readOnly && readOnly.ndefStatus.capacity == 208)
    let rfu = try #require(Type3AttributeBlock(parsing: aib(rw: 2, ln: 16)))
    #expect(rfu.ndefStatus.status == .readOnly)
  }

  /// The shipped trace: detection, read, the three-step write, then a new session's read.
  @Test func shippedWriteTraceIsReconstructedInCoreNFCTerms() throws {
    let sessions = try analyze(TestPaths.traces("felica/t3t-write-ok.json"))
    #expect(sessions.count == 2)
    let first = try #require(sessions.first)
    #expect(
      first.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .writeNDEF])
    #expect(first.operations.map(\.outcome) == [.ok, .ok, .ok, .ok])
    #expect(first.operations[1].detail("status") == .string("readWrite"))
    #expect(first.operations[1].detail("capacity") == .int(208))
    #expect(first.operations[2].detail("message") == .hex(message))
    #expect(first.operations[3].firstFrame == 6 && first.operations[3].lastFrame == 13)
    let second = try #require(sessions.last)
    let read = try #require(second.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.detail("ndef_length") == .int(25))
    let uri: [UInt8] = [0xD1, 0x01, 0x15, 0x55, 0x04] + Array("nfctrace.example/t3t".utf8)
    #expect(read.detail("message") == .hex(uri))
    let report = TagReport(session: second)
    #expect(report.layout == .type3)
    #expect(report.end.type3AIB?.ln == 25)
    #expect(report.rows().map(\.address) == [0, 1, 2])
    #expect(report.rows().allSatisfy { $0.isBlock })
  }

  @Test func tornWriteLeavesWriteFlagOn() throws {
    let report = try diagnoseFile(TestPaths.traces("felica/t3t-write-torn.json"))
    #expect(report.codes == ["write-interrupted", "t3t-write-flag-on"])
    let f = try #require(report.finding("t3t-write-flag-on"))
    #expect(f.frames == [6, 7, 10])
    #expect(f.severity == .warning)
    #expect(
      f.message.contains(
        "Ln is still 16 while data block 1 already holds new bytes and data block 2 may hold "
          + "new bytes (the tag did not acknowledge their UPDATE)"))
    let s = try #require(try analyze(TestPaths.traces("felica/t3t-write-torn.json")).first)
    let r = TagReport(session: s)
    #expect(r.end.type3AIB?.writeInProgress == true)
    #expect(
      r.notes.first
        == "block 2 written without an answer: the tag may hold the old or the new bytes "
        + "there, and the message may mix both")
  }

  @Test func refusedUpdateIsDiagnosedWithItsStatusFlags() throws {
    let report = try diagnoseFile(TestPaths.traces("felica/t3t-update-refused.json"))
    let f = try #require(report.finding("t3t-update-refused"))
    #expect(f.frames == [6, 7])
    #expect(f.coreNFCError?.code == 401)
    #expect(f.cause == "the tag refused the UPDATE (status flags FF A8)")
    #expect(f.message.contains("illegal block number (out of the service's range)"))
    #expect(!report.codes.contains("write-failed"))
    // Block 0 refused as out of range: no service, not a message too long (the fix said
    // "keep the message within NmaxB × 16 bytes").
    #expect(f.fix.hasPrefix("Block 0 is the Attribute Information Block"))
    #expect(report.sessions[0].analysis.operations[3].detail("refused_block") == .int(0))
  }

  /// Every UPDATE answered, but the last step (block 0 with WriteF OFF) never sent.
  @Test func writeWithoutFinalAttributeBlockIsUnfinished() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    let op = try #require(try t.sessions().first?.operations.last)
    #expect(op.kind == .writeNDEF)
    #expect(op.outcome == .interrupted)
    #expect(op.detail("unfinished") == .string("write-flag-off"))
  }

  /// Two complete writes in one session are two writeNDEF calls.
  @Test func secondWriteStartsANewCall() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 0))
    for _ in 0..<2 {
      t.update([0], aib(writeOn: true, ln: 0))
      t.update([1], padded(message, 1))
      t.update([0], aib(ln: 16))
    }
    let ops = try #require(try t.sessions().first?.operations)
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .writeNDEF])
    #expect(ops.map(\.outcome) == [.ok, .ok, .ok, .ok])
    #expect(ops[3].firstFrame == 10)
  }

  /// Proxmark3 logs FeliCa frames from the sync code `B2 4D` on: they are NFC-F frames all
  /// the same (the sync code is the physical layer's).
  @Test func proxmark3SyncCodeIsSkipped() throws {
    var t = FeliCaTrace()
    t.proxmark3 = true
    t.poll()
    t.check([0], aib(ln: 16))
    t.check([1], padded(message, 1))
    let s = try #require(try t.sessions().first)
    #expect(s.tag.technology == .nfcF)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations.last?.detail("message") == .hex(message))
    var decoder = FrameDecoder()
    let first = decoder.decode(t.frames[0])
    #expect(first.frame.crc == .ok)
    #expect(first.frame.data.prefix(2) == [0xB2, 0x4D])
    // A frame whose LEN does not fit after the sync code stays raw.
    #expect(!CRC.hasNFCFSync([0xB2, 0x4D, 0x09, 0x00, 0x12, 0xFC]))
  }

  /// A tag whose RW Flag says read-only but which accepts UPDATEs: the app's own writes; the
  /// explanation is the Attribute Information Block's, not a CC's.
  @Test func readOnlyTagAcceptingWritesNamesTheRWFlag() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(rw: 0, ln: 16))
    t.update([0], aib(writeOn: true, rw: 0, ln: 16))
    t.update([1], padded(message, 1))
    t.update([0], aib(rw: 0, ln: 16))
    let f = try #require(try t.diagnose().finding("write-to-read-only-tag"))
    #expect(
      f.message.contains("The Attribute Information Block's RW Flag is what NDEF readers obey"))
    #expect(f.fix.hasSuffix("leave its RW Flag at 01h instead of setting it to 00h."))
  }

  /// RW Flag set to 00 outside a write is Core NFC's writeLock; the tag is readOnly after.
  @Test func rwFlagToReadOnlyIsWriteLock() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(rw: 0, ln: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(s.operations.last?.outcome == .ok)
    #expect(TagReport(session: s).ndefStatus?.status == .readOnly)
  }

  @Test func lnPastNmaxBIsReported() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(nmaxb: 1, ln: 40))
    let f = try #require(try t.diagnose().finding("t3t-ln-exceeds-capacity"))
    #expect(f.frames == [3])
    #expect(f.message.contains("announces an NDEF message of 40 bytes (Ln)"))
  }

  /// The CHECK answer of block 0 carries the decoded Attribute Information Block; an UPDATE
  /// refusal names its status flags.
  @Test func timelineAnnotatesAttributeBlockAndStatusFlags() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([1], padded(message, 1), flags: [0x01, 0xA8])
    var decoder = FrameDecoder()
    let decoded = t.frames.map { decoder.decode($0) }
    #expect(
      decoded[3].innermost?.field("attribute_information")
        == .string(
          "Ver 1.0, Nbr 4, Nbw 1, NmaxB 13 (208 bytes), WriteF OFF, RW 01, Ln 16, checksum ok"))
    #expect(
      decoded[5].innermost?.summary
        == "UPDATE refused: status flags 01 a8 (illegal block number (out of the service's "
        + "range), block list element 1)")
  }

  /// A real FeliCa Lite-S capture (nfc-laboratory): system blocks read (ID 82h, MC 88h with
  /// MC_SYS_OP 00h), then an Attribute Information Block of zeros, then every block dumped.
  @Test func realLiteSCaptureIsNotNDEFFormatted() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-F_212kbps_003.json")
    let sessions = try analyze(path)
    let s = try #require(sessions.first)
    #expect(s.operations.map(\.kind) == [.transceive, .queryNDEFStatus, .transceive])
    #expect(s.ndefStatus?.status == .notSupported)
    #expect(
      s.ndefStatusReason
        == "block 0 is all zeros: no Attribute Information Block (never NDEF formatted); the Memory "
        + "Configuration (block 88h, frame 5) has MC_SYS_OP 00: NDEF is disabled on this FeliCa "
        + "Lite / Lite-S, which then does not answer a poll for the NDEF system code 12FC")
    // The system blocks (80h on) are not NDEF memory: blocks 0–14 only.
    #expect(s.memory.type3End.count == 15 * 16)
  }

  /// The Memory Configuration block decoded in the timeline (FeliCa Lite-S MC, block 88h).
  @Test func memoryConfigurationIsDecoded() throws {
    let mc = try #require(FeliCaLiteMemoryConfiguration(parsing: [0xFF, 0x3F, 0x00, 0x01]))
    #expect(mc.ndefEnabled)
    #expect(mc.readOnlyBlocks.isEmpty)
    #expect(
      mc.summary
        == "user blocks 0–13 writable, system blocks read-only (MC_ALL 00), NDEF enabled "
        + "(MC_SYS_OP 01)")
    let locked = try #require(FeliCaLiteMemoryConfiguration(parsing: [0x01, 0x00, 0xFF, 0x00]))
    #expect(locked.readOnlyBlocks == Array(1...13))
    #expect(FeliCaLiteMemoryConfiguration(parsing: [0x01, 0x00]) == nil)
  }

  /// The product from the PMm's IC code; FeliCa Lite-S has 14 user blocks.
  @Test func productFromPMm() throws {
    let s = try #require(try analyze(TestPaths.traces("felica/t3t-write-ok.json")).first)
    #expect(s.tag.pmm == [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00])
    #expect(s.tag.product == "FeliCa Lite-S (RC-S966)")
    #expect(s.tag.memoryBytes == 224)
  }

  /// A FeliCa Lite-S write with MAC (nfcpy `write_with_mac`): UPDATE of the data block and
  /// MAC_A (91h) together. The MAC_A block rides along: the write is a writeNDEF and only the
  /// NDEF block is in the memory image.
  @Test func writeWithMACIsAWriteNDEF() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0, 0x91], aib(writeOn: true, ln: 16) + [UInt8](repeating: 0xAB, count: 16))
    t.update([1, 0x91], padded(message, 1) + [UInt8](repeating: 0xAB, count: 16))
    t.update([0, 0x91], aib(ln: 16) + [UInt8](repeating: 0xAB, count: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.last?.outcome == .ok)
    #expect(s.memory.type3End.count == 32)
  }
}

@Suite struct Type3DiffTests {
  /// The phone whose write completed against the one taken away: the blocks and the final
  /// messages are compared in Type 3 terms.
  @Test func diffComparesBlocksAndMessages() throws {
    let ok = try analyze(TestPaths.traces("felica/t3t-write-ok.json"))
    let torn = try analyze(TestPaths.traces("felica/t3t-write-torn.json"))
    let a = try #require(ok.first)
    let b = try #require(torn.first)
    let memory = MemoryComparison.differences(a, b)
    let end = memory.filter { $0.image == .end }
    #expect(end.map(\.unit) == [0, 2])
    #expect(end.allSatisfy { $0.isBlock && $0.file == nil })
    #expect(end.first?.bState == "written")
    #expect(end.last?.bState == "written-unacknowledged")
    let sideA = NDEFComparison.side(a)
    #expect(sideA.state == "message")
    #expect(sideA.message?.count == 25)
    let sideB = NDEFComparison.side(b)
    #expect(sideB.message?.count == 16)
    #expect(sideB.unacknowledgedBytes == 0)
  }
}

extension Type3DiffTests {
  /// A session that read and wrote blocks (CHECK, UPDATE) then one that only polled: the
  /// diff compares the first by default, as `report` reports it. CHECK and UPDATE did not
  /// count as touching the tag, so the poll was compared.
  @Test func defaultSessionIsTheLastThatCheckedOrUpdated() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 0))
    t.update([0], aib(writeOn: true, ln: 0))
    t.timeNs += 200_000_000
    t.poll()
    var recorder = ExchangeRecorder(selection: .init(lastWithTag: true))
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: t.frames)) {
      recorder.take($0)
    }
    recorder.finish()
    #expect(run.sessions.map(\.info.index) == [0, 1])
    #expect(TagReport.defaultSession(run.sessions)?.info.index == 0)
    #expect(recorder.lastTaggedSession == 1)
    #expect(recorder.lastTouchedSession == 0)
    #expect(recorder.defaultSession == 0)
    #expect(recorder.exchanges(session: 0, operations: [])?.count == 3)
    #expect(recorder.exchanges(session: 1, operations: [])?.count == 1)
  }
}

/// The diff side of the frames of `t`: its first session.
private func diffSide(_ t: FeliCaTrace) throws -> DiffSide {
  var recorder = ExchangeRecorder(selection: .init(sessions: [0], lastWithTag: false))
  let run = try SessionAnalysisRun(importer: MemoryImporter(frames: t.frames)) {
    recorder.take($0)
  }
  recorder.finish()
  let analysis = try #require(run.sessions.first)
  let exchanges = try #require(recorder.exchanges(session: 0, operations: analysis.operations))
  return DiffSide(path: "built", analysis: analysis, exchanges: exchanges)
}

extension Type3DiffTests {
  /// Two transceives whose commands do not align (REQUEST_SYSTEM_CODE against
  /// REQUEST_RESPONSE) cannot have a notable exchange: their medians (0.5 ms against 6 ms)
  /// still make the timing row differ. It was `=`.
  @Test func timingRowWithoutAlignedExchangesComparesMedians() throws {
    var a = FeliCaTrace()
    a.poll()
    a.add(.reader, [0x0C] + idm)
    a.add(.tag, [0x0D] + idm + [0x01, 0x12, 0xFC], gapNs: 500_000)
    var b = FeliCaTrace()
    b.poll()
    b.add(.reader, [0x04] + idm)
    b.add(.tag, [0x05] + idm + [0x00], gapNs: 6_000_000)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    let row = try #require(d.timing.last)
    #expect(row.notable.isEmpty)
    #expect(row.medianDiffers)
    let text = DiffText.timing(d)
    #expect(text.contains { $0.hasPrefix("≠ transceive ") })
    #expect(text.contains { $0.contains("median response differs (no exchange aligned)") })
    #expect(d.timing.first?.medianDiffers == false)
  }
}

@Suite struct Type3ContentTests {
  private static let uri: [UInt8] =
    [0xD1, 0x01, 0x15, 0x55, 0x04] + Array("nfctrace.example/t3t".utf8)

  /// `--expect` is compared with the Ln-byte message from block 1 as left.
  @Test func expectedMessageIsComparedWithTheBlocks() throws {
    let path = TestPaths.traces("felica/t3t-write-ok.json")
    #expect(try diagnoseFile(path, expect: Self.uri).findings.isEmpty)
    var other = Self.uri
    other[other.count - 1] = 0x75
    let f = try #require(
      try diagnoseFile(path, expect: other).finding("content-differs-from-expected"))
    #expect(f.severity == .error)
    #expect(f.frames == [13])
    #expect(
      f.message
        == "The app meant to write 25 bytes; the Ln on the tag claims 25 bytes, and the first 24 "
        + "bytes match the intended message (first difference at message byte 24).")
    let torn = try diagnoseFile(TestPaths.traces("felica/t3t-write-torn.json"), expect: Self.uri)
    let t = try #require(torn.finding("content-differs-from-expected"))
    #expect(t.severity == .info)
    #expect(t.message.hasSuffix("WriteF is still ON: the write did not finish."))
  }

  /// A completed write of a URI record whose payload starts with the scheme (no identifier
  /// code): the validator's finding, with the block's frame as evidence.
  @Test func malformedWrittenMessageIsReported() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 0))
    let bad: [UInt8] = [0xD1, 0x01, 0x0B, 0x55] + Array("https://a.b".utf8)
    t.update([0], aib(writeOn: true, ln: 0))
    t.update([1], padded(bad, 1))
    t.update([0], aib(ln: bad.count))
    let report = try t.diagnose()
    let codes = report.codes
    #expect(codes == ["uri-no-identifier-byte"])
    #expect(report.finding("uri-no-identifier-byte")?.frames == [7])
    #expect(report.sessions.first?.verdicts.last?.verdict == .succeededWithBadContent)
  }
}

/// The Type 3 procedures' edge cases: other cards' blocks from 80h, a lock after a write, a
/// retried write, block 0 read with the data, WriteF ON as found, a lying Ln, Status Flag 1
/// as a bitmap, the 71h warning, damaged answers.
@Suite struct Type3ProcedureEdgeTests {

  /// An UPDATE of more NDEF blocks than Nbw (the MAC_A riding along not counted), or a CHECK
  /// of more than Nbr, is warned on its operation: taken by this tag, or refused (A2h).
  @Test func blockCountPastNbrOrNbwIsWarned() throws {
    for refused in [false, true] {
      var t = FeliCaTrace()
      t.poll()
      t.check([0], aib(ln: 16))
      t.update([0], aib(writeOn: true, ln: 32))
      t.update([1, 2], padded(message, 2), flags: refused ? [0xFF, 0xA2] : [0, 0])
      let report = try t.diagnose()
      let f = try #require(report.finding("t3t-block-count-exceeded"))
      #expect(f.severity == .warning)
      #expect(f.frames == (refused ? [6, 7] : [6]))
      #expect(
        f.cause
          == "the reader's UPDATE of 2 NDEF blocks, Nbw 1: more blocks per command than block 0 allows"
      )
      #expect(
        f.message.hasSuffix(
          refused ? "The tag refused the command (frame 7)." : "(Status Flag 2 A2h)."))
      #expect(report.finding("t3t-update-refused") != nil || !refused)
    }
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.check([1, 2, 3, 4, 5], padded(message, 5))
    t.update([1, 0x91], padded(message, 2))
    let s = try #require(try t.sessions().first)
    #expect(s.operations[2].kind == .readNDEF)
    #expect(s.operations[2].detail("block_limit") == .string("CHECK of 5 NDEF blocks, Nbr 4"))
    #expect(s.operations[2].detail("block_limit_exceeded") == .int(4))
    #expect(s.operations[3].detail("block_limit_exceeded") == nil)
  }
  /// A card other than FeliCa Lite / Lite-S keeps NDEF data from block 80h on (NmaxB 200);
  /// on a Lite-S the same block is a system block.
  @Test func blocksFrom80hAreDataOnCardsOtherThanLite() throws {
    for (ic, kept) in [(UInt8(0x01), true), (0xF1, false)] {
      var t = FeliCaTrace()
      t.poll(ic: ic)
      // Ln covers every block (a CHECK past the message's blocks is no readNDEF).
      t.check([0], aib(nmaxb: 300, ln: 300 * 16))
      let block = [UInt8](repeating: 0xAB, count: 16)
      t.check([0x85, 0x12C], block + block)
      let s = try #require(try t.sessions().first)
      #expect(s.operations.last?.kind == (kept ? .readNDEF : .transceive))
      #expect(s.memory.type3End.known(0x85 * 16, 16) == (kept ? block : nil))
      #expect(s.memory.type3End.known(0x12C * 16, 16) == (kept ? block : nil))
      if kept {
        let rows = TagReport(session: s).rows().map(ReportText.label)
        #expect(rows.last == "   300")
      }
    }
  }

  /// Past NmaxB a block is no NDEF data: a FeliCa Lite-S's REG block (0Eh) after NmaxB 13.
  @Test func blocksPastNmaxBAreNotData() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    let block = [UInt8](repeating: 0x11, count: 16)
    t.check([1, 14], padded(message, 1) + block)
    t.check([14], block)
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .transceive])
    #expect(s.memory.type3End.known(16, 16) == padded(message, 1))
    #expect(s.memory.type3End.count == 32)
  }

  /// A block from 80h read before any Attribute Information Block is a dump tool's.
  @Test func blockFrom80hBeforeBlock0IsNotData() throws {
    var t = FeliCaTrace()
    t.poll(ic: 0x01)
    t.check([0x82], [UInt8](repeating: 1, count: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .transceive])
    #expect(s.memory.type3End.count == 0)
  }

  /// writeLock straight after a complete writeNDEF is its own call.
  @Test func lockAfterCompletedWriteIsWriteLock() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    t.update([0], aib(ln: 16))
    t.update([0], aib(rw: 0, ln: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .writeLock])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok, .ok])
  }

  /// The app's retry after the tag refused the first write is a second writeNDEF.
  @Test func retryAfterRefusedWriteIsANewCall() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16), flags: [0x01, 0xA9])
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    t.update([0], aib(ln: 16))
    let s = try #require(try t.sessions().first)
    #expect(
      s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .writeNDEF])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .failed, .ok])
    #expect(s.operations[3].firstFrame == 6)
  }

  /// Block 0 read with the data blocks, not valid: no message, and no empty-message finding.
  @Test func readWithInvalidBlock0Fails() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0, 1], aib(ln: 0, version: 0x20) + padded([], 1))
    let s = try #require(try t.sessions().first)
    let read = try #require(s.operations.last)
    #expect(read.kind == .readNDEF && read.outcome == .failed)
    #expect(read.detail("ndef_length") == nil)
    #expect(
      read.reason
        == "block 0 is no valid Attribute Information Block (mapping version 2.0 (Ver 20) is not "
        + "supported (major version 1)): the tag is not NDEF formatted, so there is no message "
        + "to read (T3T 1.0 §7.4.1)")
    #expect(!(try t.diagnose().codes.contains("ndef-empty-on-read")))
  }

  /// A tag found with WriteF ON is flagged although no write of the session set it.
  @Test func writeFlagOnAsFoundIsFlagged() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(writeOn: true, ln: 16))
    t.check([1], padded(message, 1))
    let report = try t.diagnose()
    let f = try #require(report.finding("t3t-write-flag-on"))
    #expect(f.frames == [3])
    #expect(f.cause == "the tag was found with WriteF ON in its Attribute Information Block")
  }

  /// Ln past NmaxB × 16: the read fails (not "stopped early"); a write leaving it is flagged.
  @Test func lnPastCapacityFailsTheReadAndFlagsTheWrite() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0, 1], aib(nmaxb: 1, ln: 40) + padded(message, 1))
    let s = try #require(try t.sessions().first)
    let read = try #require(s.operations.last)
    #expect(read.outcome == .failed)
    #expect(
      read.reason
        == "the Attribute Information Block's Ln 40 is larger than its NDEF area, NmaxB × 16 = "
        + "16 bytes: readers reject the message (T3T 1.0 §7.1)")
    #expect(try t.diagnose().finding("t3t-ln-exceeds-capacity")?.frames == [3])

    var w = FeliCaTrace()
    w.poll()
    w.check([0], aib(nmaxb: 1, ln: 0))
    w.update([0], aib(nmaxb: 1, writeOn: true, ln: 0))
    w.update([1], padded(message, 1))
    w.update([0], aib(nmaxb: 1, ln: 40))
    let f = try #require(try w.diagnose().finding("t3t-ln-exceeds-capacity"))
    #expect(f.frames == [9])
    #expect(f.operation == 2)
    w.check([0], aib(nmaxb: 1, ln: 40))
    let g = try #require(try w.diagnose().finding("t3t-ln-exceeds-capacity"))
    #expect(g.frames == [11])
    #expect(g.operation == 2)
  }

  /// Status Flag 1 is a bitmap of block list elements; B1h and B2h are FeliCa Lite-S codes.
  @Test func statusFlagsAreNamed() {
    #expect(
      FeliCaMessage.statusMeaning(0x04, 0xA8)
        == "illegal block number (out of the service's range), block list element 3")
    #expect(
      FeliCaMessage.statusMeaning(0x03, 0xB1)
        == "authentication required (the block is protected by MAC_A), block list elements 1, 2")
    #expect(
      FeliCaMessage.statusMeaning(0xFF, 0xB2) == "MAC error (the MAC_A sent does not match)")
  }

  /// Status Flag 2 71h (`FF 71`): written, the write goes on; a warning that the memory
  /// wears out.
  @Test func writeCountWarningStillWrites() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1), flags: [0xFF, 0x71])
    t.update([0], aib(ln: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.memory.type3End.known(16, 16) == padded(message, 1))
    #expect(s.memory.type3End.state(16) == .written)
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok])
    let report = try t.diagnose()
    #expect(report.codes == ["t3t-write-count-exceeded"])
    #expect(report.finding("t3t-write-count-exceeded")?.frames == [6, 7])
    var decoder = FrameDecoder()
    let answer = t.frames.map { decoder.decode($0) }[7].innermost
    #expect(
      answer?.summary
        == "UPDATE ok, with a warning: status flags ff 71 (memory write count exceeded (a "
        + "warning: the block was written, the memory is wearing out))")
  }

  /// An intact UPDATE whose answer is damaged may have been carried out: unacknowledged.
  @Test func damagedUpdateAnswerIsUnacknowledged() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    t.add(.reader, [0x08] + idm + [0x01, 0x09, 0x00] + FeliCaTrace.blockList([0]) + aib(ln: 16))
    t.add(.tag, [0x09] + idm + [0, 0], damaged: true)
    let s = try #require(try t.sessions().first)
    #expect(s.memory.type3End.state(0) == .unacknowledged)
    #expect(s.memory.type3AttributeBlock?.writeInProgress == false)
    #expect(!(try t.diagnose().codes.contains("t3t-write-flag-on")))
  }

  /// A torn write read back: the finding is the write's, not "found with WriteF ON".
  @Test func tornWriteReadBackIsTheWritesFinding() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    t.update([0], aib(ln: 16), flags: [0x01, 0xA9])
    t.check([0], aib(writeOn: true, ln: 16))
    let report = try t.diagnose()
    let f = try #require(report.finding("t3t-write-flag-on"))
    #expect(f.operation == 2)
    #expect(f.cause == "the write left WriteF ON in the Attribute Information Block")
    #expect(f.message.contains("data block 1 already holds new bytes"))
  }

  /// writeLock after a write the tag refused is its own call.
  @Test func lockAfterRefusedWriteIsWriteLock() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1), flags: [0x01, 0xA9])
    t.update([0], aib(rw: 0, ln: 16))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .writeLock])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .failed, .ok])
  }

  /// Block 0 read in the same CHECK already tells NmaxB for the blocks after it.
  @Test func block0InTheSameCheckAdmitsBlocksFrom80h() throws {
    var t = FeliCaTrace()
    t.poll(ic: 0x01)
    let block = [UInt8](repeating: 0xCD, count: 16)
    t.check([0, 0x85], aib(nmaxb: 300, ln: 16) + block)
    let s = try #require(try t.sessions().first)
    #expect(s.memory.type3End.known(0x85 * 16, 16) == block)
  }

  /// A CHECK answer with a bad CRC gives no block and no NDEF status.
  @Test func damagedAnswerIsNotTrusted() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16), damaged: true)
    let s = try #require(try t.sessions().first)
    #expect(s.memory.type3End.count == 0)
    #expect(s.ndefStatus == nil)
  }

  /// A CHECK answer whose block count differs from the request fails the read and records
  /// nothing; an older mapping version (0.x) is accepted, a newer one (2.x) is not.
  @Test func checkAnswerMustMatchTheRequest() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.check([1, 2], padded(message, 1))
    let s = try #require(try t.sessions().first)
    let read = try #require(s.operations.last)
    #expect(read.outcome == .failed)
    #expect(
      read.reason
        == "the CHECK of 2 blocks was answered with 1 block: the answer does not match the request")
    #expect(s.memory.type3End.known(16, 16) == nil)
    #expect(Type3AttributeBlock(parsing: aib(ln: 0, version: 0x05))?.invalidReason == nil)
    #expect(Type3AttributeBlock(parsing: aib(ln: 0, version: 0x20))?.invalidReason != nil)
  }

  /// A CHECK of no block says so.
  @Test func emptyBlockListIsNamed() {
    var t = FeliCaTrace()
    t.add(.reader, [0x06] + idm + [0x01, 0x0B, 0x00, 0x00])
    var decoder = FrameDecoder()
    #expect(
      decoder.decode(t.frames[0]).innermost?.summary
        == "CHECK an empty block list of service 000B (NDEF)")
  }

  /// A read of data blocks without block 0 does not know the message: unknown, not ok.
  @Test func readWithoutBlock0IsUnknown() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([1], padded(message, 1))
    let read = try #require(try t.sessions().first?.operations.last)
    #expect(read.kind == .readNDEF && read.outcome == .unknown)
    #expect(
      read.reason
        == "block 0 (the Attribute Information Block) was not read: the message's length, and "
        + "so the message, is unknown")
  }

  /// The SENSF_RES request data is what the SENSF_REQ's request code asked for.
  @Test func pollingRequestDataFollowsTheRequestCode() {
    var t = FeliCaTrace()
    t.add(.reader, [0x00, 0xFF, 0xFF, 0x02, 0x00])
    t.add(.tag, [0x01] + idm + [0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00, 0x00, 0x83])
    t.add(.reader, [0x00, 0x12, 0xFC, 0x01, 0x00])
    t.add(.tag, [0x01] + idm + [0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
    var decoder = FrameDecoder()
    let d = t.frames.map { decoder.decode($0).innermost?.summary ?? "" }
    #expect(d[1] == "SENSF_RES IDm 01 2e 4c d8 a3 16 52 ba, communication performance 0083")
    #expect(
      d[3] == "SENSF_RES IDm 01 2e 4c d8 a3 16 52 ba, system code 12FC (NDEF, Type 3 Tag)")
  }

  /// Block 88h is a Memory Configuration on a FeliCa Lite / Lite-S only.
  @Test func block88IsAMemoryConfigurationOnLiteOnly() throws {
    for (ic, isMC) in [(UInt8(0xF1), true), (0x01, false)] {
      var t = FeliCaTrace()
      t.poll(ic: ic)
      t.check([0], [UInt8](repeating: 0, count: 16))
      t.check([0x88], [0xFF, 0xFF, 0xFF, 0x00] + [UInt8](repeating: 0, count: 12))
      var decoder = FrameDecoder()
      let answer = t.frames.map { decoder.decode($0) }[5].innermost
      #expect((answer?.field("memory_configuration") != nil) == isMC)
      let s = try #require(try t.sessions().first)
      #expect((s.ndefStatusReason?.contains("MC_SYS_OP") ?? false) == isMC)
    }
  }

  /// An answer naming another IDm than the command's is not the addressed card's: the read
  /// fails, in the same session, and no block is taken from it.
  @Test func answerFromAnotherIDmFailsTheRead() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.add(.reader, [0x06] + idm + [0x01, 0x0B, 0x00] + FeliCaTrace.blockList([1]))
    let other: [UInt8] = [0x01, 0x2E, 0, 0, 0, 0, 0, 0x01]
    t.add(.tag, [0x07] + other + [0, 0, 1] + padded(message, 1))
    let sessions = try t.sessions()
    #expect(sessions.count == 1)
    let s = try #require(sessions.first)
    let read = try #require(s.operations.last)
    #expect(read.outcome == .failed)
    #expect(
      read.reason
        == "the CHECK answer names IDm 012E000000000001, not the 012E4CD8A31652BA the command "
        + "addressed")
    #expect(s.memory.type3End.known(16, 16) == nil)
  }

  /// Two cards answering one poll, then addressed in turn by IDm: each command and its answer
  /// are in the session of the card the command addresses.
  @Test func commandsToSeveralCardsJoinTheAddressedCardsSession() throws {
    let other: [UInt8] = [0x01, 0x2E, 0, 0, 0, 0, 0, 0x02]
    var t = FeliCaTrace()
    t.add(.reader, [0x00, 0x12, 0xFC, 0x01, 0x03])
    t.add(.tag, [0x01] + idm + [0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
    t.add(.tag, [0x01] + other + [0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
    func check(_ card: [UInt8], _ block: Int, _ data: [UInt8]) {
      t.add(.reader, [0x06] + card + [0x01, 0x0B, 0x00] + FeliCaTrace.blockList([block]))
      t.add(.tag, [0x07] + card + [0, 0, 1] + data)
    }
    check(other, 0, aib(ln: 16))
    check(idm, 0, aib(ln: 0))
    check(other, 1, padded(message, 1))
    let sessions = try t.sessions()
    #expect(sessions.map(\.tag.uid) == [idm, other, idm, other])
    #expect(sessions.allSatisfy { $0.tag.product == "FeliCa Lite-S (RC-S966)" })
    #expect(sessions.map { $0.operations.map(\.firstFrame) } == [[0], [2, 3], [5], [7]])
    #expect(sessions[2].operations.map(\.kind) == [.queryNDEFStatus])
    #expect(sessions[2].operations.map(\.outcome) == [.ok])
    let read = try #require(sessions[3].operations.last)
    #expect(read.kind == .readNDEF && read.outcome == .ok)
    #expect(read.detail("message") == .hex(message))
  }

  /// A capture that starts after the poll: the first command's IDm names the card.
  @Test func captureWithoutPollTakesTheIDmOfTheFirstCommand() throws {
    var t = FeliCaTrace()
    t.check([0], aib(ln: 16))
    t.check([1], padded(message, 1))
    let sessions = try t.sessions()
    #expect(sessions.count == 1)
    #expect(sessions.first?.tag.uid == idm)
    #expect(sessions.first?.operations.last?.detail("message") == .hex(message))
  }

  /// After a poll nobody answered, a command to the other card opens that card's session.
  @Test func commandAfterUnansweredPollNamesTheCard() throws {
    let other: [UInt8] = [0x01, 0x2E, 0, 0, 0, 0, 0, 0x02]
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.add(.reader, [0x00, 0x12, 0xFC, 0x01, 0x00])
    t.add(.reader, [0x06] + other + [0x01, 0x0B, 0x00] + FeliCaTrace.blockList([0]))
    t.add(.tag, [0x07] + other + [0, 0, 1] + aib(ln: 0))
    let sessions = try t.sessions()
    #expect(sessions.map(\.tag.uid) == [idm, other])
    #expect(sessions.first?.memory.type3AttributeBlock?.ln == 16)
  }

  /// A write refused at its first step set nothing: WriteF ON read after it is as found.
  @Test func refusedWriteIsNotBlamedForWriteFlagOn() throws {
    var t = FeliCaTrace()
    t.poll()
    t.update([0], aib(writeOn: true, ln: 16), flags: [0xFF, 0xA8])
    t.check([0], aib(writeOn: true, ln: 16))
    let f = try #require(try t.diagnose().finding("t3t-write-flag-on"))
    #expect(f.operation == 2)
    #expect(f.cause == "the tag was found with WriteF ON in its Attribute Information Block")
  }

  /// The Memory Configuration label follows the IC code of the card addressed, not the last
  /// card that answered the poll.
  @Test func memoryConfigurationFollowsTheAddressedCard() {
    let other: [UInt8] = [0x01, 0x2E, 0, 0, 0, 0, 0, 0x02]
    var t = FeliCaTrace()
    t.add(.reader, [0x00, 0x12, 0xFC, 0x01, 0x03])
    t.add(.tag, [0x01] + idm + [0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
    t.add(.tag, [0x01] + other + [0x00, 0x20, 0, 0, 0, 0x01, 0x43, 0x00, 0x12, 0xFC])
    t.check([0x88], [0xFF, 0xFF, 0xFF, 0x01] + [UInt8](repeating: 0, count: 12))
    var decoder = FrameDecoder()
    let answer = t.frames.map { decoder.decode($0) }[4].innermost
    #expect(answer?.field("memory_configuration") != nil)
  }

  /// IC codes 08h, 09h, 0Ch, 0Dh are FeliCa Standard cards inside the Mobile FeliCa range.
  @Test func productNamesForStandardChipsInsideTheMobileRange() {
    #expect(FeliCaProduct.name(icCode: 0x08) == "FeliCa Standard (RC-S952)")
    #expect(FeliCaProduct.name(icCode: 0x0D) == "FeliCa Standard (RC-S960)")
    #expect(FeliCaProduct.name(icCode: 0x06) == "Mobile FeliCa")
    #expect(FeliCaProduct.name(icCode: 0x14) == "Mobile FeliCa")
    #expect(FeliCaProduct.name(icCode: 0x20) == "FeliCa Standard (RC-S962)")
  }
}

extension Type3DiffTests {
  /// A Wi-Fi key in the NDEF service is masked in the CHECK answers that read it and the
  /// UPDATE that wrote it (by block × 16 + byte, the data after the block list; block 3 holds
  /// message bytes 32–47, all of the key), with the
  /// frames' CRC-F; the block-0 CHECK (Attribute Information Block) stays in clear.
  @Test func wifiKeyIsMaskedInCheckAndUpdate() throws {
    func trace(_ key: String) throws -> DiffSide {
      let message = DiffReviewTests.wifiMessage(key: key)
      var padded = message
      padded += Array(repeating: 0, count: (16 - padded.count % 16) % 16)
      let blocks = Array(1...(padded.count / 16))
      var t = FeliCaTrace()
      t.poll()
      t.check([0], aib(ln: message.count))
      t.check(blocks, padded)
      t.update([3], Array(padded[32..<48]))
      return try diffSide(t)
    }
    let d = TraceDiff(a: try trace("secret123"), b: try trace("secret124"))
    let secret = d.ndef.a.secretAddresses.type3
    #expect(secret == Set(16 + 26..<16 + 83))
    let check = try #require(d.a.exchanges.first { $0.commandSummary.hasPrefix("CHECK blocks 1,") })
    let data = check.responsePayload.map(Array.init) ?? []
    let start = data.count - 16 * 6
    #expect(check.secretResponse == Set((26..<83).map { start + $0 }))
    #expect(check.shownResponseHex?.hasSuffix("••••") == true)
    let aibRead = try #require(d.a.exchanges.first { $0.commandSummary.hasPrefix("CHECK block 0") })
    #expect(aibRead.secretResponse.isEmpty)
    let update = try #require(d.a.exchanges.first { $0.commandSummary.hasPrefix("UPDATE") })
    // Block 3 holds message bytes 16–31 (tag bytes 48–63): all of the key.
    let request = Array(update.requestPayload)
    #expect(update.secretRequest == Set(request.count - 16..<request.count))
    #expect(update.shownCommandSummary.hasPrefix("UPDATE block 3"))
    let text = DiffText.lines(d).joined(separator: "\n")
    #expect(!text.contains("73 65 63 72 65 74"))  // "secret"
  }
}

/// Damaged FeliCa frames (a bad CRC-F, JIS X 6319-4 §7) and other technologies' polls on an
/// NFC-F link, whatever the source says of the technology.
@Suite struct NFCFDamagedFrameTests {
  private static let summary =
    "CHECK response damaged (CRC-F mismatch): status flags and blocks not trusted"

  /// A CHECK answer with a bad CRC-F and the intact one of the reader's retry.
  private func retriedCheck(_ t: inout FeliCaTrace) {
    t.poll()
    t.check([0], aib(ln: 16), damaged: true)
    t.check([0], aib(ln: 16))
  }

  /// pcap / Proxmark3 (technology not said): on the NFC-F link the polling opened, a frame
  /// with the LEN structure and a bad CRC-F is a damaged NFC-F frame, not a type A one.
  @Test(arguments: [false, true]) func damagedAnswerOnAnNFCFLink(proxmark3: Bool) throws {
    var t = FeliCaTrace()
    t.technologyUnsaid = !proxmark3
    t.proxmark3 = proxmark3
    retriedCheck(&t)
    let answer = t.decoded()[3]
    #expect(answer.frame.technology == .nfcF)
    #expect(answer.frame.crc == .bad)
    #expect(answer.innermost?.protocolID == .felica)
    #expect(answer.innermost?.summary == Self.summary)
    #expect(answer.innermost?.field("success") == nil)
    #expect(answer.innermost?.field("data") == nil)
    #expect(answer.findings.map(\.code) == ["bad-crc"])
    #expect(answer.findings.first?.message == "CRC-F mismatch: expected 0e 9c, got 0f 9d")
    #expect(answer.findings.first?.offset == (proxmark3 ? 31 : 29))
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations.map(\.outcome) == [.ok, .ok])
    #expect(s.operations[1].firstFrame == 2 && s.operations[1].lastFrame == 5)
    #expect(s.operations[1].detail("capacity") == .int(208))
  }

  /// The same damaged answer in a source that says NFC-F (NFC-Laboratory) gets the finding
  /// too, and no "CHECK ok" or block data.
  @Test func damagedAnswerOfAnNFCFSource() throws {
    var t = FeliCaTrace()
    retriedCheck(&t)
    let out = t.decoded()
    #expect(out[3].frame.crc == .bad)
    #expect(out[3].innermost?.summary == Self.summary)
    #expect(out[3].innermost?.fields.map(\.key) == ["idm"])
    #expect(out[3].findings.map(\.message) == ["CRC-F mismatch: expected 0e 9c, got 0f 9d"])
    #expect(out[5].innermost?.field("success") == .bool(true))
    #expect(out[5].findings.isEmpty)
  }

  /// Outside an NFC-F link, a frame with a bad CRC-F is not taken for FeliCa from its shape
  /// alone: before any polling, and after a frame of another technology ended the link.
  @Test func noNFCFLinkNoDamagedFeliCa() throws {
    var t = FeliCaTrace()
    t.technologyUnsaid = true
    t.add(.tag, [0x07] + idm + [0, 0, 1] + aib(ln: 16), damaged: true)
    let alone = t.decoded()[0]
    #expect(alone.frame.technology == .unknown)
    #expect(alone.findings.first?.message.hasPrefix("CRC_A mismatch") == true)

    var u = FeliCaTrace()
    u.technologyUnsaid = true
    u.poll()
    u.raw(.reader, CRC.appendingCRCA([0x30, 0x04]))
    u.add(.tag, [0x07] + idm + [0, 0, 1] + aib(ln: 16), damaged: true)
    let afterTypeA = u.decoded()
    #expect(afterTypeA[0].frame.technology == .nfcF)
    #expect(afterTypeA[3].frame.technology == .unknown)
  }

  /// An ISO 15693 INVENTORY (`26 01 00` and its CRC) in the polling loop between FeliCa
  /// polls is no operation in a source that does not say the technology, as in one that does (`test_NFC-F_212kbps_001.json` and its pcap).
  @Test(arguments: [false, true]) func otherTechnologyPollBetweenFeliCaPolls(said: Bool) throws {
    var t = FeliCaTrace()
    t.technologyUnsaid = !said
    t.poll()
    t.raw(.reader, CRC.appendingCRCB([0x26, 0x01, 0x00]))
    if said { t.frames[2].technology = .nfcV }
    t.poll()
    let out = t.decoded()
    // Unsaid, its exact INVENTORY shape (flags, command 01h, mask length, CRC) names NFC-V.
    #expect(out[2].frame.technology == .nfcV)
    #expect(out[2].innermost?.name == "INVENTORY")
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .connect])
    #expect(s.operations.map(\.outcome) == [.ok, .ok])
  }

  /// The real trace and the same frames without their technology (what its pcap or `.trace`
  /// conversion holds) give the same operations.
  @Test func realTraceGivesTheSameOperationsWithoutTechnology() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-F_212kbps_001.json")
    var importer = try NFCLabImporter(input: try TraceInput(path: path))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    let unsaid = frames.map { f -> Frame in
      var f = f
      f.technology = .unknown
      return f
    }
    for set in [frames, unsaid] {
      let s = try SessionAnalysisRun(importer: MemoryImporter(frames: set)).sessions
      #expect(s.count == 1)
      #expect(s.first?.operations.map(\.kind) == [.connect, .connect, .connect])
      #expect(s.first?.operations.map(\.outcome) == [.ok, .ok, .ok])
    }
  }
}

/// Review findings on the Type 3 procedures (nfcpy `tt3.py` and test-tags.rst, Android
/// `rw_t3t.cc`, NFC Forum T3T 1.0 §7): where a write, a refusal or a block 0 leaves the tag,
/// and which fix follows.
@Suite struct Type3ReviewTests {
  /// A CHECK of `blocks` answered with status flags `flags`.
  private func refusedCheck(_ t: inout FeliCaTrace, _ blocks: [Int], _ flags: [UInt8]) {
    t.add(.reader, [0x06] + idm + [0x01, 0x0B, 0x00] + FeliCaTrace.blockList(blocks))
    t.add(.tag, [0x07] + idm + flags)
  }

  /// A complete write whose final UPDATE of block 0 (WriteF OFF, new Ln) has a wrong checksum
  /// leaves the tag not NDEF formatted: the write's verdict is bad content and the finding is
  /// the write's, not the earlier query's (which read a valid block 0).
  @Test func finalBlock0WithWrongChecksumIsTheWritesBadContent() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    var bad = aib(ln: 16)
    bad[15] &+= 1
    t.update([0], bad)
    let report = try t.diagnose()
    let s = try #require(report.sessions.first)
    #expect(s.verdicts.map(\.verdict) == [.succeededWithBadContent])
    #expect(s.verdicts.map(\.operation) == [2])
    #expect(report.codes == ["not-ndef-formatted"])
    let f = try #require(report.finding("not-ndef-formatted"))
    #expect(f.operation == 2)
    #expect(f.severity == .error)
    #expect(f.frames == [8, 9])
    #expect(f.coreNFCError == nil)
    #expect(
      f.cause
        == "the write left block 0 no valid Attribute Information Block: the tag is no longer "
        + "NDEF formatted")
    #expect(f.message.contains("checksum is 0034, the sum of its bytes 0–13 is 0033"))
    #expect(f.fix.hasPrefix("Write the message again with writeNDEF(_:completionHandler:)"))
    // With --expect too: one finding, the write's (no "never attempted").
    let expected = try DiagnosisRun(importer: MemoryImporter(frames: t.frames))
      .diagnose(expected: message)
    #expect(expected.findings.filter { $0.code == "not-ndef-formatted" }.map(\.operation) == [2])
    // Read back: the finding stays the write's, the read-back is evidence.
    t.check([0], bad)
    let back = try t.diagnose()
    #expect(back.finding("not-ndef-formatted")?.operation == 2)
    #expect(back.finding("not-ndef-formatted")?.frames == [8, 9, 11])
  }

  /// The write goes on to block NmaxB + 1 (a 39-byte message, NmaxB 2 = 32 bytes) and the tag
  /// refuses it (01 A8): that UPDATE is the write's, which fails; the finding says the message
  /// is larger than the NDEF area.
  @Test func updatePastNmaxBFailsTheWrite() throws {
    var t = FeliCaTrace()
    t.poll(ic: 0x01)
    t.check([0], aib(nmaxb: 2, ln: 0))
    t.update([0], aib(nmaxb: 2, writeOn: true, ln: 0))
    let long = [0xD1, 0x01, 0x23, 0x55, 0x04] + [UInt8](repeating: 0x61, count: 34)
    let data = padded(long, 3)
    t.update([1], Array(data[0..<16]))
    t.update([2], Array(data[16..<32]))
    t.update([3], Array(data[32..<48]), flags: [0x01, 0xA8])
    let s = try #require(try t.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations[2].outcome == .failed)
    #expect(s.operations[2].detail("refused_block") == .int(3))
    let report = try t.diagnose()
    #expect(report.codes == ["t3t-update-refused", "t3t-write-flag-on"])
    let f = try #require(report.finding("t3t-update-refused"))
    #expect(f.operation == 2)
    #expect(f.frames == [10, 11])
    #expect(
      f.cause
        == "the tag refused the UPDATE (status flags 01 A8): the message is larger than the "
        + "NDEF area")
    #expect(
      f.message.contains(
        "Block 3 is past the NDEF area (NmaxB 2: blocks 1 to 2, 32 bytes, queryNDEFStatus's "
          + "capacity): the message being written needs more than 32 bytes"))
    #expect(f.coreNFCError == nil)
    #expect(f.fix.hasPrefix("Keep the message within NmaxB × 16 bytes"))
    #expect(report.sessions[0].verdicts.map(\.verdict) == [.failed])
  }

  /// A CHECK of block 0 refused with status flags (01 A6: no such service) is an answer: the
  /// tag has no NDEF service, queryNDEFStatus reports notSupported, no radio failure.
  @Test func refusedCheckOfBlock0IsNotSupported() throws {
    var t = FeliCaTrace()
    t.poll()
    refusedCheck(&t, [0], [0x01, 0xA6])
    let q = try #require(try t.sessions().first?.operations.last)
    #expect(q.kind == .queryNDEFStatus)
    #expect(q.outcome == .ok)
    #expect(q.detail("status") == .string("notSupported"))
    #expect(q.detail("ndef_detection_failed") == .int(3))
    #expect(q.detail("status_flags") == .hex([0x01, 0xA6]))
    #expect(
      q.detail("rule")
        == .string(
          "the CHECK of block 0 (the Attribute Information Block) of service 000B was refused: "
            + "status flags 01 A6 (illegal service code (no such service), block list element "
            + "1); the tag has no readable NDEF service"))
    let report = try t.diagnose()
    #expect(report.codes == ["not-ndef-formatted"])
    #expect(report.finding("not-ndef-formatted")?.severity == .info)
    #expect(report.sessions[0].verdicts.isEmpty)
  }

  /// A tag found with WriteF ON: readNDEF fails (nfcpy reads only with WriteF 00h; a
  /// corrupted message), no message is decoded, and the fix is a rewrite, not the radio.
  @Test func readWithWriteFlagOnFails() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(writeOn: true, ln: 16))
    t.check([1], padded(message, 1))
    let read = try #require(try t.sessions().first?.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.outcome == .failed)
    #expect(read.detail("write_flag_on") == .bool(true))
    #expect(read.detail("ndef_unreadable") == .string("write-flag-on"))
    #expect(read.detail("message") == nil)
    #expect(
      read.reason
        == "the Attribute Information Block has WriteF ON (0Fh): a write began and never ended, "
        + "so Ln 16 and the data blocks may belong to two messages; readers take the data as "
        + "corrupted and read no message (T3T 1.0 §7.4.3)")
    let report = try t.diagnose()
    #expect(report.codes == ["read-failed", "t3t-write-flag-on"])
    let f = try #require(report.finding("read-failed"))
    #expect(f.operation == 2)
    #expect(f.coreNFCError == nil)
    #expect(f.fix.hasPrefix("Write the whole message again with writeNDEF(_:completionHandler:)"))
    #expect(!f.fix.contains("Hold the phone"))
    // Block 0 read with the data: the WriteF finding is the read's, an error.
    var u = FeliCaTrace()
    u.poll()
    u.check([0, 1], aib(writeOn: true, ln: 16) + padded(message, 1))
    let g = try u.diagnose()
    #expect(g.codes == ["t3t-write-flag-on"])
    #expect(g.finding("t3t-write-flag-on")?.severity == .error)
  }

  /// Status Flag 2 A8h refusing a data block (not block 0) gets the size fix, not block 0's.
  @Test func a8RefusalOfADataBlockGetsTheSizeFix() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1), flags: [0x01, 0xA8])
    let f = try #require(try t.diagnose().finding("t3t-update-refused"))
    #expect(f.fix.hasPrefix("Keep the message within NmaxB × 16 bytes"))
    #expect(f.coreNFCError?.code == 401)
    #expect(f.cause == "the tag refused the UPDATE (status flags 01 A8)")
  }

  /// Reads refused by status flags, or ruled out by block 0, get fixes from the answer, not
  /// the radio advice.
  @Test func refusedOrInvalidReadsGetNoRadioFix() throws {
    var a = FeliCaTrace()
    a.poll()
    a.check([0], aib(ln: 16))
    refusedCheck(&a, [1], [0x01, 0xA8])
    let fa = try #require(try a.diagnose().finding("read-failed"))
    #expect(fa.coreNFCError?.code == 102)
    #expect(fa.fix.hasPrefix("Read only blocks 1 to NmaxB of the NDEF service"))
    #expect(
      fa.message
        == "The tag refused the readNDEF's CHECK: CHECK of block 1 refused: status flags 01 A8 "
        + "(illegal block number (out of the service's range), block list element 1). The "
        + "refusal is the tag's answer, not a radio problem.")

    var b = FeliCaTrace()
    b.poll()
    b.check([0], aib(ln: 16))
    refusedCheck(&b, [1, 2, 3, 4], [0xFF, 0xA2])
    let fb = try #require(try b.diagnose().finding("read-failed"))
    #expect(fb.fix.hasPrefix("Read at most Nbr blocks per CHECK"))

    var c = FeliCaTrace()
    c.poll()
    c.check([0], aib(ln: 300))
    c.check([1, 2, 3, 4], [UInt8](repeating: 0, count: 64))
    let report = try c.diagnose()
    #expect(report.codes == ["read-failed", "t3t-ln-exceeds-capacity"])
    let fc = try #require(report.finding("read-failed"))
    #expect(fc.coreNFCError == nil)
    #expect(fc.fix == report.finding("t3t-ln-exceeds-capacity")?.fix)
    for f in [fa, fb, fc] { #expect(!f.fix.contains("Hold the phone")) }
  }

  /// Data blocks written over the old message before WriteF was set ON: an unsafe order; the
  /// procedure's own order is not flagged.
  @Test func dataBeforeWriteFlagIsAnUnsafeOrder() throws {
    let next = padded([0xD1, 0x01, 0x15, 0x55, 0x04] + Array("nfctrace.example/t3t".utf8), 2)
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([1], Array(next[0..<16]))
    t.update([2], Array(next[16..<32]))
    t.update([0], aib(ln: 25))
    let report = try t.diagnose()
    #expect(report.codes == ["unsafe-write-order"])
    let f = try #require(report.finding("unsafe-write-order"))
    #expect(f.operation == 2)
    #expect(f.frames == [4])
    #expect(f.severity == .warning)
    #expect(
      f.cause == "the data blocks were written over the old message before WriteF was set ON")
    #expect(f.message.contains("replaced blocks of the old 16-byte message"))
    #expect(report.sessions[0].verdicts.map(\.verdict) == [.succeeded])

    var ok = FeliCaTrace()
    ok.poll()
    ok.check([0], aib(ln: 16))
    ok.update([0], aib(writeOn: true, ln: 16))
    ok.update([1], Array(next[0..<16]))
    ok.update([2], Array(next[16..<32]))
    ok.update([0], aib(ln: 25))
    #expect(try ok.diagnose().codes.isEmpty)
  }

  /// One UPDATE of blocks 0 and 1 (Nbw 4) that sets WriteF ON in block 0 opens the procedure
  /// before its data: a safe order (it was `unsafe-write-order`, the flag checked too early).
  @Test func writeFlagSetInTheSameUpdateAsDataIsSafe() throws {
    let next = padded([0xD1, 0x01, 0x15, 0x55, 0x04] + Array("nfctrace.example/t3t".utf8), 2)
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16, nbw: 4))
    t.update([0, 1], aib(writeOn: true, ln: 16, nbw: 4) + Array(next[0..<16]))
    t.update([2], Array(next[16..<32]))
    t.update([0], aib(ln: 25, nbw: 4))
    let report = try t.diagnose()
    #expect(report.codes.isEmpty)
    #expect(report.sessions[0].verdicts.map(\.verdict) == [.succeeded])
  }

  /// A read-only FeliCa tag's note speaks of the RW Flag, not Type 2 lock bits.
  @Test func readOnlyNoteNamesTheRWFlag() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(rw: 0, ln: 16))
    let f = try #require(try t.diagnose().finding("tag-read-only"))
    #expect(f.frames == [2, 3])
    #expect(
      f.fix.contains("On a Type 3 tag read-only is the Attribute Information Block's RW Flag"))
    #expect(!f.fix.contains("lock bits"))
  }

  /// An empty Type 3 message is Ln = 0 in the report.
  @Test func emptyMessageIsLn0InTheReport() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 0))
    t.check([1], padded([], 1))
    let r = TagReport(session: try #require(try t.sessions().first))
    #expect(
      ReportText.render(r).contains(
        "NDEF message empty (Ln = 0 in the Attribute Information Block: formatted, no message)"))
    #expect(ReportJSON.note(r.end.message, type3: true) == "empty: Ln 0")
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(r, to: out)
    #expect(out.text.contains("\"ndef_note\":\"empty: Ln 0\""))
  }

  /// An UPDATE of block 0 of the NDEF service is decoded as the Attribute Information Block
  /// it writes.
  @Test func updateOfBlock0IsDecoded() {
    var t = FeliCaTrace()
    t.poll()
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1))
    let decoded = t.decoded()
    let summary =
      "Ver 1.0, Nbr 4, Nbw 1, NmaxB 13 (208 bytes), WriteF ON, RW 01, Ln 16, checksum ok"
    #expect(decoded[2].innermost?.field("attribute_information") == .string(summary))
    #expect(
      decoded[2].innermost?.summary
        == "UPDATE block 0 of service 0009 (NDEF) — Attribute Information: " + summary)
    #expect(decoded[4].innermost?.field("attribute_information") == nil)
  }
}

/// 2026-12-07 (ninth) hunt: an UPDATE of more blocks than Nbw refused with A2h (illegal number
/// of blocks) is a refusal of the count: writeNDEF keeps to Nbw, so the write was the app's own
/// (no 401), and the fix is about Nbw, not about the message reaching past NmaxB.
@Suite struct Type3NbwRefusalTests {
  @Test func refusalOfTooManyBlocksNamesNbw() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 32))
    t.update([1, 2], padded(message, 2), flags: [0xFF, 0xA2])
    let f = try #require(try t.diagnose().finding("t3t-update-refused"))
    #expect(
      f.cause == "the tag refused the UPDATE (status flags FF A2): it carried more blocks than Nbw")
    #expect(f.coreNFCError == .tagUpdateFailure)
    #expect(
      f.fix
        == "Send at most Nbw blocks (block 0's byte 2) per UPDATE (writeWithoutEncryption), or "
        + "leave writing to writeNDEF(_:completionHandler:).")
    #expect(f.message.contains("The UPDATE of 2 NDEF blocks, Nbw 1 lists more blocks than"))
  }

  /// A2h on an UPDATE within Nbw: the count the tag allows is smaller still; no claim that the
  /// NDEF service ends before the block.
  @Test func refusalWithinNbwKeepsTheCountFix() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16))
    t.update([1], padded(message, 1), flags: [0xFF, 0xA2])
    let f = try #require(try t.diagnose().finding("t3t-update-refused"))
    #expect(f.cause == "the tag refused the UPDATE (status flags FF A2)")
    #expect(f.fix.hasSuffix("the tag refused the number of blocks the command listed."))
  }
}

extension Type3NbwRefusalTests {
  /// A2h is the number of blocks, even on block 0: not the "no writable NDEF service" fix,
  /// which A8h on block 0 keeps (review).
  @Test func illegalNumberOfBlocksOnBlockZeroKeepsTheCountFix() throws {
    var t = FeliCaTrace()
    t.poll()
    t.check([0], aib(ln: 16))
    t.update([0], aib(writeOn: true, ln: 16), flags: [0xFF, 0xA2])
    let f = try #require(try t.diagnose().finding("t3t-update-refused"))
    #expect(f.fix.hasSuffix("the tag refused the number of blocks the command listed."))
  }
}
