import Foundation
import TestSupport
import Testing

@testable import NFCTrace

// MARK: - Frame building

/// An importer over frames built in memory.
struct MemoryImporter: TraceImporter {
  private var frames: [Frame]
  private var position = 0
  var warnings: [TraceWarning] { [] }

  init(input: TraceInput) throws { frames = [] }
  init(frames: [Frame]) { self.frames = frames }

  mutating func next() throws -> Frame? {
    guard position < frames.count else { return nil }
    defer { position += 1 }
    return frames[position]
  }
}

/// Builds air frames (ISO 14443-3 A activation, Type 2 commands, ISO-DEP I-blocks) with
/// correct CRC_A and BCC, and times in ns.
struct TraceBuilder {
  private(set) var frames: [Frame] = []
  var timeNs: Int64 = 0
  /// Default gap before each frame, µs.
  var gapUs: Int64 = 400
  private var block: UInt8 = 0
  /// The reader's current ISO-DEP block number (its next I-block's).
  var blockNumber: UInt8 { block }

  mutating func add(
    _ dir: Direction, _ bytes: [UInt8], crc: Bool, bits: Int? = nil, gapUs: Int64? = nil,
    badCRC: Bool = false, parity: [Int] = [], event: FrameEvent? = nil
  ) {
    timeNs += (gapUs ?? self.gapUs) * 1000
    var data = crc ? CRC.appendingCRCA(bytes) : bytes
    if badCRC, let last = data.indices.last { data[last] ^= 0xFF }
    let i = frames.count
    frames.append(
      Frame(
        index: i, timeNs: timeNs, direction: dir, event: event, data: data, bits: bits,
        parityErrors: parity, technology: .nfcA,
        location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0)))
    // The frame's own duration, so the next gap starts after it (106 kbit/s).
    timeNs += Int64(data.count) * 9 * 128 * 1_000_000_000 / 13_560_000
  }

  mutating func reader(_ b: [UInt8], crc: Bool = true, gapUs: Int64? = nil, badCRC: Bool = false) {
    add(.reader, b, crc: crc, gapUs: gapUs, badCRC: badCRC)
  }
  mutating func tag(
    _ b: [UInt8], crc: Bool = true, gapUs: Int64? = nil, badCRC: Bool = false, parity: [Int] = []
  ) {
    add(.tag, b, crc: crc, gapUs: gapUs, badCRC: badCRC, parity: parity)
  }
  mutating func event(_ e: FrameEvent, gapUs: Int64? = nil) {
    add(.event, [], crc: false, gapUs: gapUs, event: e)
  }

  static func bcc(_ b: [UInt8]) -> UInt8 { b.reduce(0, ^) }

  /// REQA, ATQA `04 00`, ANTICOLLISION and SELECT CL1 of a 4-byte `uid`, the SELECT answered
  /// by `sak` (nil: left for the caller to answer).
  mutating func activateSingle(_ uid: [UInt8], sak: UInt8?, gapUs: Int64? = nil) {
    add(.reader, [0x26], crc: false, gapUs: gapUs)
    tag([0x04, 0x00], crc: false)
    reader([0x93, 0x20], crc: false)
    tag(uid + [Self.bcc(uid)], crc: false)
    reader([0x93, 0x70] + uid + [Self.bcc(uid)])
    if let sak { tag([sak]) }
  }

  /// WUPA (`wupaBits` valid bits; nil: a whole byte, as pcap stores it) + two cascade levels
  /// for a 7-byte UID, SAK 00; GET_VERSION when `version` is given.
  mutating func activateType2(
    uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], version: [UInt8]? = nil,
    wupa: Bool = true, wupaBits: Int? = 7
  ) {
    add(.reader, [wupa ? 0x52 : 0x26], crc: false, bits: wupaBits)
    tag([0x44, 0x00], crc: false)
    let cl1 = [0x88] + Array(uid[0..<3])
    reader([0x93, 0x20], crc: false)
    tag(cl1 + [Self.bcc(cl1)], crc: false)
    reader([0x93, 0x70] + cl1 + [Self.bcc(cl1)])
    tag([0x04])
    let cl2 = Array(uid[3..<7])
    reader([0x95, 0x20], crc: false)
    tag(cl2 + [Self.bcc(cl2)], crc: false)
    reader([0x95, 0x70] + cl2 + [Self.bcc(cl2)])
    tag([0x00])
    if let version {
      reader([0x60])
      tag(version)
    }
  }

  /// READ page → 16 bytes.
  mutating func read(_ page: Int, _ data: [UInt8]) {
    reader([0x30, UInt8(page)])
    tag(Array((data + Array(repeating: 0, count: 16)).prefix(16)))
  }

  /// READ page 3 answered with `cc` and then pages 0–2 of the default UID: the READ rolled
  /// over at page 4, as on a tag read-protected from there (AUTH0 = 4, PROT set; NXP
  /// NTAG213/215/216 datasheet §8.8).
  mutating func readCCRolledOver(_ cc: [UInt8] = [0xE1, 0x10, 0x12, 0x00]) {
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let page0 = Array(uid[0..<3]) + [0x88 ^ 0x04 ^ 0x11 ^ 0x22]
    read(3, cc + page0 + Array(uid[3..<7]) + [0x00, 0x48, 0x00, 0x00])
  }

  enum T2Answer {
    case ack
    case nak(UInt8)
    case none
  }

  /// Marks a parity error on byte `index` of the last frame built.
  mutating func parityError(at index: Int = 0) {
    if !frames.isEmpty { frames[frames.count - 1].parityErrors = [index] }
  }

  /// A tag's 4-bit answer (ACK `0A`, NAK `00`/`01`/`04`/`05`); `bits` as the capture counted.
  mutating func add4Bit(_ value: UInt8, bits: Int = 4) {
    add(.tag, [value], crc: false, bits: bits)
  }

  /// WRITE page ← 4 bytes, answered ACK, NAK or nothing.
  mutating func write(_ page: Int, _ data: [UInt8], _ answer: T2Answer = .ack) {
    reader([0xA2, UInt8(page)] + data)
    switch answer {
    case .ack: add(.tag, [0x0A], crc: false, bits: 4)
    case .nak(let c): add(.tag, [c], crc: false, bits: 4)
    case .none: break
    }
  }

  /// REQA + one cascade level (4-byte UID), SAK 20, RATS (FSDI) / ATS with FSCI `fsci` and
  /// TB1 = `tb`.
  mutating func activateType4(
    uid: [UInt8] = [0x08, 0x12, 0x34, 0x56], fsdi: UInt8 = 8, fsci: UInt8 = 8, tb: UInt8 = 0x70,
    answerRATS: Bool = true
  ) {
    add(.reader, [0x26], crc: false, bits: 7)
    tag([0x04, 0x00], crc: false)
    reader([0x93, 0x20], crc: false)
    tag(uid + [Self.bcc(uid)], crc: false)
    reader([0x93, 0x70] + uid + [Self.bcc(uid)])
    tag([0x20])
    reader([0xE0, fsdi << 4])
    if answerRATS { tag([0x05, 0x70 | fsci, 0x80, tb, 0x02]) }
    block = 0
  }

  /// One APDU in an I-block and its answer (nil: no answer); `tagGapUs` sets the answer delay.
  mutating func apdu(_ c: [UInt8], _ r: [UInt8]?, tagGapUs: Int64? = nil) {
    reader([0x02 | block] + c)
    if let r { tag([0x02 | block] + r, gapUs: tagGapUs) }
    block ^= 1
  }

  /// One APDU in an I-block whose answer `r` the tag chains in I-blocks of at most `part` bytes
  /// of INF, the reader fetching each next part with R(ACK) (ISO/IEC 14443-4 §7.5.2).
  mutating func apdu(_ c: [UInt8], chainedAnswer r: [UInt8], part: Int) {
    reader([0x02 | block] + c)
    var rest = r[...]
    while rest.count > part {
      tag([0x12 | block] + rest.prefix(part))
      rest = rest.dropFirst(part)
      block ^= 1
      reader([0xA2 | block])
    }
    tag([0x02 | block] + rest)
    block ^= 1
  }

  /// One APDU sent in chained I-blocks of at most `part` bytes of INF each, every part but the
  /// last acknowledged by R(ACK) (ISO/IEC 14443-4 §7.5.2), then the answer `r`.
  mutating func chainedAPDU(_ c: [UInt8], part: Int, _ r: [UInt8]) {
    var rest = c[...]
    while rest.count > part {
      reader([0x12 | block] + rest.prefix(part))
      tag([0xA2 | block])
      rest = rest.dropFirst(part)
      block ^= 1
    }
    apdu(Array(rest), r)
  }

  /// SELECT of the NDEF application, then of the CC file (T4T 2.0 §5.4.2–5.4.3), both 9000.
  mutating func selectType4CC() {
    let ok: [UInt8] = [0x90, 0x00]
    apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok)
    apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], ok)
  }

  /// A T4T 3.0 CC (Extended NDEF File Control TLV 06 08: file E104 of 64 KiB, ENLEN).
  static let enlenCC: [UInt8] =
    [0x00, 0x11, 0x30, 0x00, 0xFF, 0x00, 0xFF, 0x06, 0x08, 0xE1, 0x04]
    + [0x00, 0x01, 0x00, 0x00, 0x00, 0x00]

  /// The Type 4 NDEF query up to the NDEF file's SELECT, with a CC whose NDEF File Control TLV
  /// gives the maximum file size `maxSize` and read access `read`: SELECT application, SELECT
  /// and READ the CC, SELECT E104 (NLEN not read).
  mutating func selectType4NDEFFile(maxSize: UInt16 = 0x0100, read: UInt8 = 0x00) {
    let ok: [UInt8] = [0x90, 0x00]
    selectType4CC()
    apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04]
        + [UInt8(maxSize >> 8), UInt8(maxSize & 0xFF), read, 0x00] + ok)
    apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
  }

  /// The Type 4 NDEF query: SELECT application, CC (MLc `mlc`, write access `write`), NDEF
  /// file E104, NLEN `nlen`.
  mutating func queryType4(mlc: UInt8 = 0x34, write: UInt8 = 0x00, nlen: UInt16 = 0) {
    let ok: [UInt8] = [0x90, 0x00]
    selectType4CC()
    apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, mlc, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, write]
        + ok)
    apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [UInt8(nlen >> 8), UInt8(nlen & 0xFF)] + ok)
  }

  /// Runs the diagnosis over the frames built.
  func diagnose(expect: [UInt8]? = nil) throws -> DiagnosisReport {
    try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: expect)
  }
}

/// NTAG213 GET_VERSION answer (nfc-facts §4.6).
let ntag213Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]

/// A Type 2 data area after CC `cc`: pages 3…6 as one READ answer.
func page3(cc: [UInt8], then: [UInt8]) -> [UInt8] { cc + then }

/// The sessions of the frames `b` built.
func sessions(_ b: TraceBuilder) throws -> [SessionAnalysis] {
  try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
}

/// The diff side of the frames `b` built: the last session that touched a tag.
func diffSide(_ b: TraceBuilder) throws -> DiffSide {
  var recorder = ExchangeRecorder(selection: .init(sessions: [], lastWithTag: true))
  let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) {
    recorder.take($0)
  }
  recorder.finish()
  let index = try #require(recorder.defaultSession)
  let analysis = try #require(run.sessions.first { $0.info.index == index })
  let exchanges = try #require(recorder.exchanges(session: index, operations: analysis.operations))
  return DiffSide(path: "built", analysis: analysis, exchanges: exchanges)
}

/// Diagnoses a file with the built-in (non-pcap) formats.
func diagnoseFile(_ path: String, expect: [UInt8]? = nil) throws -> DiagnosisReport {
  let input = try TraceInput(path: path)
  let format = try FormatRegistry(BuiltinFormats.all).detect(input)
  return try DiagnosisRun(importer: try format.open(input)).diagnose(expected: expect)
}

extension DiagnosisReport {
  /// Codes of all findings.
  var codes: [String] { findings.map(\.code) }
  /// The first finding with `code`.
  func finding(_ code: String) -> DiagnosisFinding? { findings.first { $0.code == code } }
  /// Error findings.
  var errors: [DiagnosisFinding] { findings.filter { $0.severity == .error } }
}

// MARK: - Tests

/// An NTAG213-like tag: activation (GET_VERSION when `identified`), CC read with `cc`, TLV
/// area `area` (pages 4–6).
private func type2Tag(
  cc: [UInt8] = [0xE1, 0x10, 0x12, 0x00], area: [UInt8] = [0x03, 0x00, 0xFE],
  identified: Bool = true
) -> TraceBuilder {
  var b = TraceBuilder()
  b.event(.fieldOn)
  b.activateType2(version: identified ? ntag213Version : nil)
  b.read(3, cc + area)
  return b
}

/// TLV pages for message `m` (03 L m FE), padded to whole pages.
private func tlvPages(_ m: [UInt8]) -> [[UInt8]] {
  var bytes = [0x03, UInt8(m.count)] + m + [0xFE]
  while bytes.count % 4 != 0 { bytes.append(0) }
  return stride(from: 0, to: bytes.count, by: 4).map { Array(bytes[$0..<$0 + 4]) }
}

/// A URI record (short, well-known `U`) with payload `p`.
private func uriRecord(_ p: [UInt8]) -> [UInt8] { [0xD1, 0x01, UInt8(p.count), 0x55] + p }

@Suite struct DiagnoseTests {
  // MARK: Shipped demo traces

  @Test func tornDemoTraceIsInterruptedWithTornTLV() throws {
    let r = try diagnoseFile(TestPaths.traces("t2t-ntag215-write-torn.trace"))
    let s = try #require(r.sessions.first)
    #expect(s.verdicts == [OperationVerdict(operation: 3, kind: .writeNDEF, verdict: .interrupted)])
    let w = try #require(r.finding("write-interrupted"))
    #expect(w.severity == .error)
    #expect(w.coreNFCError == .tagConnectionLost)
    #expect(w.operation == 3)
    #expect(w.frames == [18, 19, 20, 21, 22, 23])  // the .trace has no field-on event
    #expect(w.message.contains("acknowledged pages 4–5"))
    #expect(w.message.contains("page 6 got no answer (2 attempts)"))
    let t = try #require(r.finding("ndef-torn"))
    #expect(t.coreNFCError?.code == 100)
    #expect(t.message.contains("claims 0x14 (20) bytes (bytes 18–37)"))
    #expect(t.message.contains("6 written and acknowledged now (bytes 18–23, pages 4–5)"))
    #expect(t.message.contains("4 written without acknowledgement (bytes 24–27, page 6"))
    #expect(t.message.contains("10 not written by this operation (bytes 28–37, pages 7–9"))
    #expect(r.finding("unsafe-write-order")?.frames == [18])
  }

  @Test func okDemoTracesSucceedWithoutErrors() throws {
    let t2 = try diagnoseFile(TestPaths.traces("t2t-ntag215-write-ok.trace"))
    #expect(t2.sessions[0].verdicts.map(\.verdict) == [.succeeded])
    #expect(t2.errors.isEmpty)
    #expect(t2.finding("ndef-torn") == nil)
    let t4 = try diagnoseFile(TestPaths.traces("t4t-write-ok.trace"))
    #expect(t4.sessions[0].verdicts.map(\.verdict) == [.succeeded])
    #expect(t4.findings.filter { $0.severity >= .warning }.isEmpty)
  }

  // MARK: Interrupted writes

  @Test func type4InterruptedAfterNLENZeroEmptiesTheTag() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x04, 0xD1, 0x01, 0x00, 0x55], nil)
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.interrupted])
    #expect(r.finding("write-interrupted")?.coreNFCError == .tagConnectionLost)
    #expect(r.finding("ndef-emptied")?.severity == .warning)
    #expect(r.finding("ndef-torn") == nil)
    #expect(r.finding("unsafe-write-order") == nil)
  }

  /// Every command acknowledged, but after NLEN 0 and the data no final NLEN (field-eval
  /// s36): the tag is left empty — not a success.
  @Test func type4DataWithoutFinalNLENIsUnfinished() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x04, 0xD1, 0x01, 0x00, 0x55], [0x90, 0x00])
    b.event(.fieldOff)
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.interrupted])
    let f = try #require(r.finding("write-unfinished"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == nil)
    #expect(
      f.message.hasPrefix(
        "The writer set the NLEN to 0 and wrote the message data (1 UPDATE BINARY, all acknowledged)"
      ))
    #expect(r.finding("write-interrupted") == nil)
  }

  /// The Type 2 form (field-eval s35): pages 6–7 written after `03 00`, no final length.
  @Test func type2DataWithoutFinalLengthIsUnfinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x4F, 0xFE, 0x00])
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.interrupted])
    let f = try #require(r.finding("write-unfinished"))
    // Page 4 carries the message's first bytes after the cleared length (`03 00 D1 01`).
    #expect(f.message.contains("(pages 4–6, all acknowledged)"))
    #expect(f.frames.count == 3)
    // A write that only clears the length (an erase) is finished.
    var e = TraceBuilder()
    e.activateType2(version: ntag213Version)
    e.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    e.write(4, [0x03, 0x00, 0xFE, 0x00])
    #expect(try e.diagnose().finding("write-unfinished") == nil)
    let erase = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: e.frames)).sessions.first)
    #expect(erase.operations.last?.outcome == .ok)
  }

  /// The writer stopped after its first WRITE, `03 00 D1 01` (the cleared length and the
  /// message's first bytes): `sessions` says interrupted too, not ok (new-user pass: sessions
  /// and diagnose disagreed).
  @Test func firstPageOnlyIsUnfinishedInTheSession() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .interrupted)
    #expect(write.detail("unfinished") == .string("final-length"))
    #expect(
      write.reason
        == "the NDEF TLV length was set to 0 and message data written after it, but the final "
        + "NDEF TLV length never was: the tag holds an empty message")
    let f = try #require(try b.diagnose().finding("write-unfinished"))
    #expect(f.message.contains("(page 4, all acknowledged)"))
  }

  /// The real length written first, then one page of data, then nothing: the tag holds a
  /// torn message (new-user pass: "SUCCEEDED" with only unsafe-write-order).
  @Test func lengthFirstThenStoppedIsTorn() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x09, 0xD1, 0x01, 0x05, 0x54, 0x02, 0x65]))
    b.read(7, [0x6E, 0x61, 0x62, 0x63, 0xFE])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last)
    #expect(write.outcome == .interrupted)
    #expect(write.detail("unfinished") == .string("message-data"))
    #expect(
      write.reason
        == "the NDEF TLV length this write set (acknowledged at #\(write.firstFrame + 1)) claims "
        + "8 bytes, but only 6 of them were written before the writer stopped: the tag holds a "
        + "torn message")
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.last?.verdict == .interrupted)
    let f = try #require(r.finding("write-unfinished"))
    #expect(f.cause.hasPrefix("writeNDEF stopped before the end of its message"))
    #expect(f.frames == [write.firstFrame, write.firstFrame + 2])
    // The same write finished (page 6 too) is whole.
    b.write(6, [0x6E, 0x61, 0xFE, 0x00])
    let whole = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(whole.operations.last?.outcome == .ok)
  }

  /// An UPDATE longer than the tag's FSC (32 bytes, FSCI 2), not chained and not answered:
  /// the tag dropped it, which is said instead of "the phone moved away" (field-eval s17).
  @Test func unansweredFrameOverTheFSCIsBlamedOnItsSize() throws {
    var b = TraceBuilder()
    b.activateType4(fsci: 2)
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x28] + Array(repeating: 0x61, count: 40), nil)
    let r = try b.diagnose()
    let fsc = try #require(r.finding("command-exceeds-fsc"))
    #expect(fsc.severity == .error)
    #expect(fsc.coreNFCError == .tagConnectionLost)
    #expect(fsc.frames == [b.frames.count - 1])
    let lost = try #require(r.finding("write-interrupted"))
    #expect(lost.cause.hasSuffix("during writeNDEF: a frame longer than its FSC"))
    #expect(!lost.message.contains("phone moved away"))
    // Its fix is the frame size too, not holding the phone still (seventeenth session).
    #expect(lost.fix.hasPrefix("Nothing about holding the phone: send commands no longer than"))
  }

  /// Type 2, data first: pages of the old message rewritten while its length stood, the
  /// length last (field-eval s33; the Flipper emulation fixture's phone does this too).
  @Test func type2DataOverTheOldMessageBeforeItsLengthIsUnsafe() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x4F, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let r = try b.diagnose()
    let f = try #require(r.finding("unsafe-write-order"))
    #expect(
      f.cause == "the message data was written over the old message while its length still stood")
    #expect(f.frames == [b.frames.count - 6])
    #expect(
      f.message.hasPrefix(
        "The write (WRITE page 5 ← 04 54 02 65) replaced bytes of the old 5-byte message"))
    // Length 0 first, then the data, then the length: safe.
    var safe = TraceBuilder()
    safe.activateType2(version: ntag213Version)
    safe.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    safe.write(4, [0x03, 0x00, 0xD1, 0x01])
    safe.write(5, [0x04, 0x54, 0x02, 0x65])
    safe.write(6, [0x6E, 0x4F, 0xFE, 0x00])
    safe.write(4, [0x03, 0x08, 0xD1, 0x01])
    #expect(try safe.diagnose().finding("unsafe-write-order") == nil)
  }

  /// Review: a finished write followed by an erase in the same session, and an erase that
  /// wipes the pages after `03 00 FE`, are not write-unfinished (the end image's 0 is the
  /// erase's; zeros are no message).
  @Test func eraseAfterAWriteOrWithAWipeIsNotUnfinished() throws {
    let cc = page3(
      cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE])
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, cc)
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x4F, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    #expect(try b.diagnose().finding("write-unfinished") == nil)
    var wipe = TraceBuilder()
    wipe.activateType2(version: ntag213Version)
    wipe.read(3, cc)
    wipe.write(4, [0x03, 0x00, 0xFE, 0x00])
    for page in 5...8 { wipe.write(page, [0, 0, 0, 0]) }
    #expect(try wipe.diagnose().finding("write-unfinished") == nil)
  }

  @Test func type4NLENFirstThenLossIsTornAndUnsafe() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x08], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x04, 0xD1, 0x01, 0x04, 0x55], nil)
    let r = try b.diagnose()
    let t = try #require(r.finding("ndef-torn"))
    #expect(t.message.contains("NLEN on the tag now claims 0x8 (8) bytes"))
    #expect(r.finding("unsafe-write-order")?.cause.contains("NLEN") == true)
  }

  // MARK: Type 2 NAK causes

  @Test func nakOnStaticallyLockedPage() throws {
    for (lock, expected) in [(UInt8(0x20), true), (UInt8(0x00), false)] {
      var b = type2Tag()
      b.read(2, [0x44, 0x48, lock, 0x00])  // LOCK0 (byte 10) bit 5: page 5
      b.write(4, [0x03, 0x00, 0xFE, 0x00])
      b.write(5, [0xD1, 0x01, 0x00, 0x55], .nak(0))
      let r = try b.diagnose()
      #expect((r.finding("t2t-nak-locked-page") != nil) == expected)
      #expect(r.sessions[0].verdicts.map(\.verdict) == [.failed])
      #expect(r.errors.first?.coreNFCError == .tagUpdateFailure)
    }
  }

  @Test func nakBeyondMemoryOnlyPastTheLastPage() throws {
    var b = type2Tag()
    b.write(0x30, [1, 2, 3, 4], .nak(0))
    #expect(try b.diagnose().finding("t2t-nak-beyond-memory")?.cause.contains("48 (0x30)") == true)
    var c = type2Tag()
    c.write(0x20, [1, 2, 3, 4], .nak(0))
    let r = try c.diagnose()
    #expect(r.finding("t2t-nak-beyond-memory") == nil)
    #expect(r.finding("t2t-nak-unexplained") != nil)
  }

  @Test func nakUnderAUTH0WithoutPassword() throws {
    var b = type2Tag()
    b.read(0x29, [0x04, 0x00, 0x00, 0x10])  // CFG0: AUTH0 = 0x10
    b.write(0x10, [1, 2, 3, 4], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-password"))
    #expect(f.message.contains("AUTH0 = 16 (0x10)"))
    // Same NAK after an accepted PWD_AUTH in this activation: not a password problem.
    var c = type2Tag()
    c.read(0x29, [0x04, 0x00, 0x00, 0x10])
    c.reader([0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
    c.tag([0x00, 0x00])
    c.write(0x10, [1, 2, 3, 4], .nak(0))
    let r = try c.diagnose()
    #expect(r.finding("t2t-nak-password") == nil)
    #expect(r.finding("t2t-auth-lost-on-reactivation") == nil)
  }

  /// A refused PWD_AUTH (wrong password) is said as such, not as "no password was sent";
  /// and a WRITE left unanswered right after it, with no reactivation, is the tag gone idle
  /// after its NAK, not the phone moving away (field engineer pass, t2-25/t2-25b).
  @Test func refusedPasswordThenNAKOrSilence() throws {
    var b = type2Tag()
    b.read(0x29, [0x04, 0x00, 0x00, 0x10])
    b.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    b.add4Bit(0x00)
    let nakFrame = b.frames.count - 1
    b.activateType2()
    b.write(0x10, [1, 2, 3, 4], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-password"))
    #expect(f.cause.hasPrefix("the page is password protected and the password sent was refused"))
    #expect(f.frames.contains(nakFrame))
    // (Page 4, where a write starts: a first WRITE further up is the app's own command.)
    var c = type2Tag()
    c.read(0x29, [0x04, 0x00, 0x00, 0x04])
    c.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    c.add4Bit(0x00)
    c.write(4, [1, 2, 3, 4], .none)
    let w = try #require(try c.diagnose().finding("write-interrupted"))
    #expect(
      w.cause
        == "the tag went idle after it refused the password (NAK), and did not answer writeNDEF"
        + " without a reactivation")
    #expect(w.coreNFCError == .tagConnectionLost)
    #expect(w.fix.hasPrefix("Send the tag's password"))
    // The idle tag ignored the WRITE: it certainly did not land (it said "unknown").
    #expect(
      w.message.contains(
        "The write of page 4 got no answer: the idle tag ignored it, so it did not reach the "
          + "tag's memory."))
    // After a reactivation the silence is the field's again.
    var d = type2Tag()
    d.read(0x29, [0x04, 0x00, 0x00, 0x04])
    d.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    d.add4Bit(0x00)
    d.activateType2()
    d.write(4, [1, 2, 3, 4], .none)
    let x = try #require(try d.diagnose().finding("write-interrupted"))
    #expect(x.cause.hasPrefix("the tag left the field"))
  }

  /// Review: a NAK, then answered READs, then silence: the tag was not idle, it left. And a
  /// PWD_AUTH refused with NAK 4 is the authentication limit only when ACCESS sets one:
  /// with AUTHLIM 0 read it is a wrong password.
  @Test func nakFollowedByAnswersIsNoIdleTagAndNAK4IsAUTHLIMOnlyWhenSet() throws {
    var b = type2Tag()
    b.reader([0x30, 0x04])
    b.add4Bit(0x01)
    b.read(4, [])
    b.write(4, [1, 2, 3, 4], .none)
    let w = try #require(try b.diagnose().finding("write-interrupted"))
    #expect(w.cause.hasPrefix("the tag left the field"))
    var c = type2Tag()
    c.read(0x29, [0x04, 0x00, 0x00, 0x10])
    c.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    c.add4Bit(0x04)
    c.activateType2()
    c.write(0x10, [1, 2, 3, 4], .nak(0))
    let f = try #require(try c.diagnose().finding("t2t-nak-password"))
    #expect(
      f.cause
        == "the page is password protected and the password sent was refused (NAK 0 on WRITE "
        + "page 16 (0x10))")
    var d = type2Tag()
    d.read(0x29, [0x04, 0x00, 0x00, 0x10, 0x03])
    d.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    d.add4Bit(0x04)
    d.activateType2()
    d.write(0x10, [1, 2, 3, 4], .nak(0))
    let g = try #require(try d.diagnose().finding("t2t-nak-password"))
    #expect(
      g.cause
        == "the page is password protected and the tag refused PWD_AUTH with NAK 4 "
        + "(auth-counter/not allowed): most likely its authentication limit (AUTHLIM 3) is "
        + "reached (NAK 0 on WRITE page 16 (0x10))")
  }

  /// Expected silences (field engineer pass 2): GET_VERSION unanswered by a tag without it is
  /// an identification probe; the lone READ 0 nobody answers after the work is done is a
  /// presence check; neither is a lost connection.
  @Test func expectedSilencesAreNotes() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(0, [0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00])
    b.reader([0x60])
    let probe = try #require(try b.diagnose().finding("probe-not-answered"))
    #expect(probe.coreNFCError == nil && probe.severity == .info)
    var c = TraceBuilder()
    c.activateType2()
    c.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    c.write(4, [0x03, 0x00, 0xFE, 0x00])
    c.read(
      0,
      [
        0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x12,
        0x00,
      ])
    c.reader([0x30, 0x00], gapUs: 125_000)
    let r = try c.diagnose()
    #expect(r.sessions[0].findings.allSatisfy { $0.severity == .info })
    #expect(r.sessions[0].findings.allSatisfy { $0.coreNFCError == nil })
  }

  /// Dynamic lock bits are one-time programmable: writing zeros over set bits leaves them set,
  /// so a later NAK on a locked page is still explained (attacker pass: they were overwritten).
  @Test func dynamicLockBitsAreORed() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(40, [0xFF, 0xFF, 0xFF, 0xBD])
    b.write(40, [0x00, 0x00, 0x00, 0x00])
    b.write(16, [1, 2, 3, 4], .nak(0))
    #expect(try b.diagnose().finding("t2t-nak-locked-page") != nil)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.memory.type2End.known(160, 4) == [0xFF, 0xFF, 0xFF, 0xBD])
  }

  @Test func passwordLostOnReactivation() throws {
    var b = type2Tag()
    b.read(0x29, [0x04, 0x00, 0x00, 0x10])
    b.reader([0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
    b.tag([0x00, 0x00])
    b.activateType2(version: ntag213Version)
    b.write(0x10, [1, 2, 3, 4], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-auth-lost-on-reactivation"))
    #expect(f.coreNFCError == .tagResponseError || f.coreNFCError == .tagUpdateFailure)
    #expect(f.fix.contains("PWD_AUTH"))
  }

  @Test func nakTransmissionAndEEPROMCodes() throws {
    var b = type2Tag()
    b.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(1))
    #expect(try b.diagnose().codes.contains("t2t-nak-transmission-error"))
    var c = type2Tag()
    c.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(5))
    let r = try c.diagnose()
    #expect(r.codes.contains("t2t-nak-eeprom-error"))
    #expect(!r.codes.contains("t2t-nak-transmission-error"))
  }

  @Test func nakOnDynamicLockPageOfUnidentifiedTag() throws {
    var b = type2Tag(identified: false)
    b.write(0x28, [0, 0, 0, 0xBD], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-lock-page"))
    #expect(f.message.contains("144-byte NDEF data area"))
    // queryNDEFStatus reads only the CC: it cannot tell a locked tag (the fix said it could).
    #expect(f.fix.contains("queryNDEFStatus reads only the CC and does not tell"))
    #expect(!f.fix.contains("a locked or protected tag is .readOnly"))
    var c = type2Tag(identified: false)
    c.write(0x27, [0, 0, 0, 0], .nak(0))
    #expect(try c.diagnose().finding("t2t-nak-lock-page") == nil)
    // Lock bytes 00 00 00 lock nothing, and on an unidentified tag NAK 0 may also mean the
    // page does not exist: both are said.
    #expect(
      f.message.contains("this WRITE sets no lock bit (lock bytes 00 00 00: it would lock nothing)")
    )
    #expect(
      f.message.hasSuffix(
        "NAK 0 (invalid page address) is also what a smaller tag answers for a page it does not "
          + "have."))
    #expect(
      f.fix.contains(
        "changes nothing: the app need not send it. Identify the product with GET_VERSION "
          + "(0x60) before raw writes past the data area."))
    var d = type2Tag(identified: false)
    d.write(0x28, [0x01, 0, 0, 0xBD], .nak(4))
    let locking = try #require(try d.diagnose().finding("t2t-nak-lock-page"))
    #expect(!locking.message.contains("sets no lock bit"))
    #expect(!locking.message.contains("smaller tag"))
  }

  // MARK: Type 4 status words

  private func t4Update(_ cmd: [UInt8], sw: [UInt8], write: UInt8 = 0) throws -> DiagnosisReport {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: write)
    b.apdu(cmd, sw)
    return try b.diagnose()
  }

  @Test func sw6700TellsAnLeOnUpdateBinaryApart() throws {
    let withLe = try t4Update([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00], sw: [0x67, 0x00])
    // writeNDEF never sends an UPDATE BINARY with Le: the app's own sendCommand(apdu:) did,
    // which gets the status word and no NFCReaderError.
    #expect(withLe.finding("t4t-update-with-le") != nil)
    #expect(withLe.finding("t4t-update-with-le")?.coreNFCError == nil)
    let without = try t4Update([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], sw: [0x67, 0x00])
    #expect(without.finding("t4t-update-with-le") == nil)
    #expect(without.finding("t4t-wrong-length") != nil)
  }

  @Test func sw6982OnReadOnlyTagMapsTo400() throws {
    let r = try t4Update(
      [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], sw: [0x69, 0x82], write: 0xFF)
    let f = try #require(r.finding("t4t-security-not-satisfied"))
    #expect(f.coreNFCError == .tagNotWritable)
    #expect(f.message.contains("write access FF"))
    let ok = try t4Update([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], sw: [0x90, 0x00])
    #expect(ok.finding("t4t-security-not-satisfied") == nil)
  }

  @Test func sw6A82OnNDEFFileVersusForeignAID() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x82])
    let found = try b.diagnose()
    #expect(found.finding("t4t-file-not-found")?.severity == .error)
    var c = TraceBuilder()
    c.activateType4()
    c.apdu([0x00, 0xA4, 0x04, 0x00, 0x05, 0xA0, 0x00, 0x00, 0x00, 0x03, 0x00], [0x6A, 0x82])
    let r = try c.diagnose()
    #expect(r.finding("t4t-file-not-found") == nil)
    #expect(r.finding("apdu-refused")?.severity == .info)
    #expect(r.errors.isEmpty)
  }

  @Test func sw6A86And6581() throws {
    let p = try t4Update([0x00, 0xD6, 0x01, 0x00, 0x02, 0x00, 0x00], sw: [0x6A, 0x86])
    // A write starting past the file's end is no more writeNDEF's than one running past it
    // (hunt t4 2026-12-04c #2): past-file, no Core NFC error.
    let past = try #require(p.finding("t4t-write-past-file"))
    #expect(past.message.contains("the CC gives the NDEF file 255 bytes"))
    #expect(past.coreNFCError == nil)
    let m = try t4Update([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], sw: [0x65, 0x81])
    #expect(m.finding("t4t-memory-failure") != nil)
    #expect(m.finding("t4t-offset-out-of-range") == nil)
    // The fix names the error the finding gives (401), not 100 (field engineer, t4-21).
    #expect(m.finding("t4t-memory-failure")?.fix.contains("On error 401, call") == true)
  }

  /// A read-only Type 4 tag: the evidence shows the CC answer with the write access byte, and
  /// the fix does not claim it can never be writable (field engineer, t4-13).
  @Test func readOnlyType4TagEvidenceAndPermanence() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: 0xFF)
    let f = try #require(try b.diagnose().finding("tag-read-only"))
    #expect(f.frames.contains(b.frames.count - 5))  // the READ CC answer
    #expect(f.fix.contains("ChangeFileSettings"))
    #expect(!f.fix.contains("cannot be made writable again"))
  }

  @Test func lcLargerThanMLc() throws {
    let big = [0x00, 0xD6, 0x00, 0x02, 0x08] + [UInt8](repeating: 0x41, count: 8)
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(mlc: 0x04)
    b.apdu(big, [0x90, 0x00])
    let f = try #require(try b.diagnose().finding("t4t-lc-exceeds-mlc"))
    #expect(f.severity == .warning)
    #expect(f.message.contains("MLc = 4"))
    var c = TraceBuilder()
    c.activateType4()
    c.queryType4(mlc: 0x34)
    c.apdu(big, [0x90, 0x00])
    #expect(try c.diagnose().finding("t4t-lc-exceeds-mlc") == nil)
  }

  // MARK: Preconditions

  @Test func readOnlyTagWithExpectedMessageIsNotAttempted() throws {
    let b = type2Tag(cc: [0xE1, 0x10, 0x12, 0x0F])
    let r = try b.diagnose(expect: uriRecord([0x04, 0x61]))
    let f = try #require(r.finding("tag-read-only"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagNotWritable)
    #expect(r.sessions[0].verdicts.last?.verdict == .notAttempted)
    #expect(try b.diagnose().finding("tag-read-only")?.severity == .info)
    let rw = try type2Tag().diagnose(expect: uriRecord([0x04, 0x61]))
    #expect(rw.finding("tag-read-only") == nil)
    #expect(rw.sessions[0].verdicts.isEmpty)
  }

  @Test func messageTooLargeZeroLengthAndNotFormatted() throws {
    let big = try type2Tag().diagnose(expect: [UInt8](repeating: 0x41, count: 200))
    #expect(big.finding("message-too-large")?.coreNFCError == .tagSizeTooSmall)
    #expect(big.sessions[0].verdicts.last?.verdict == .notAttempted)
    let fits = try type2Tag().diagnose(expect: [UInt8](repeating: 0x41, count: 100))
    #expect(fits.finding("message-too-large") == nil)
    let empty = try type2Tag().diagnose(expect: [])
    #expect(empty.finding("zero-length-message")?.coreNFCError == .zeroLengthMessage)
    let raw = try type2Tag(cc: [0, 0, 0, 0]).diagnose(expect: [1, 2, 3])
    #expect(raw.finding("not-ndef-formatted")?.severity == .error)
    #expect(
      try type2Tag(cc: [0, 0, 0, 0]).diagnose().finding("not-ndef-formatted")?.severity == .info)
  }

  @Test func writtenLengthLargerThanCapacity() throws {
    var b = type2Tag()
    b.write(4, [0x03, 0xF0, 0xD1, 0x01])
    b.write(5, [0xEC, 0x55, 0x04, 0x41])
    #expect(try b.diagnose().finding("message-too-large")?.cause.contains("240 bytes") == true)
  }

  // MARK: Write order

  @Test func lengthZeroFirstIsSafe() throws {
    let m = uriRecord([0x04] + Array("x.io".utf8))
    var b = type2Tag()
    let pages = tlvPages(m)
    b.write(4, [0x03, 0x00] + Array(pages[0][2...]))
    for (i, p) in pages.enumerated().dropFirst() { b.write(4 + i, p) }
    b.write(4, pages[0])
    let r = try b.diagnose()
    #expect(r.finding("unsafe-write-order") == nil)
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.succeeded])
    #expect(r.findings.filter { $0.severity >= .warning }.isEmpty)
  }

  // MARK: Content

  private func written(_ m: [UInt8], expect: [UInt8]? = nil) throws -> DiagnosisReport {
    var b = type2Tag()
    for (i, p) in tlvPages(m).enumerated() { b.write(4 + i, p) }
    return try b.diagnose(expect: expect)
  }

  @Test func badContentFromAppMistakes() throws {
    let reserved = try written(uriRecord(Array("ahttps://www.baidu.com".utf8)))
    #expect(reserved.finding("uri-code-reserved") != nil)
    #expect(reserved.sessions[0].verdicts.map(\.verdict) == [.succeededWithBadContent])
    let noCode = try written(uriRecord(Array("https://example.com".utf8)))
    #expect(noCode.finding("uri-no-identifier-byte")?.severity == .error)
    let text = try written([0xD1, 0x01, 0x05, 0x54] + Array("hello".utf8))
    #expect(text.finding("text-no-status-byte") != nil)
    #expect(text.sessions[0].verdicts.map(\.verdict) == [.succeededWithBadContent])
    let good = try written(uriRecord([0x04] + Array("example.com".utf8)))
    #expect(good.sessions[0].verdicts.map(\.verdict) == [.succeeded])
  }

  @Test func expectedMessageComparedWithTheTag() throws {
    let m = uriRecord([0x04] + Array("example.com".utf8))
    #expect(try written(m, expect: m).finding("content-differs-from-expected") == nil)
    let other = uriRecord([0x04] + Array("example.org".utf8))
    let r = try written(m, expect: other)
    let f = try #require(r.finding("content-differs-from-expected"))
    #expect(f.severity == .error)
    #expect(f.message.contains("first difference at message byte 13"))
  }

  // MARK: RF

  @Test func damagedFrameClusterVersusSingle() throws {
    var b = type2Tag()
    for _ in 0..<3 {
      b.reader([0x30, 0x04])
      b.tag([UInt8](repeating: 0, count: 16), badCRC: true)
    }
    #expect(try b.diagnose().finding("rf-damaged-frames")?.severity == .warning)
    var c = type2Tag()
    c.reader([0x30, 0x04])
    c.tag([UInt8](repeating: 0, count: 16), badCRC: true)
    #expect(try c.diagnose().finding("rf-damaged-frames")?.severity == .info)
  }

  @Test func retriedCommand() throws {
    var b = type2Tag()
    b.reader([0x30, 0x08])
    b.read(8, [])
    let f = try #require(try b.diagnose().finding("command-retried"))
    #expect(f.severity == .warning)
    #expect(f.frames.count == 3)
    var c = type2Tag()
    c.reader([0x30, 0x08])
    c.read(9, [])
    #expect(try c.diagnose().finding("command-retried") == nil)
  }

  @Test func lateResponseAgainstFWT() throws {
    for (delayUs, late) in [(Int64(10_000), true), (Int64(1_000), false)] {
      var b = TraceBuilder()
      b.activateType4(tb: 0x40)  // FWI 4: FWT 4.833 ms
      b.apdu(
        [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00],
        [0x90, 0x00], tagGapUs: delayUs)
      #expect((try b.diagnose().finding("late-response") != nil) == late)
    }
  }

  /// FWT × WTXM is capped at FWT_max (4949 ms, ISO/IEC 14443-4 §7.3): with FWI 14 and WTXM
  /// 59 an answer 10 s later is late (spec audit: 292 s were allowed).
  @Test func temporaryFWTIsCappedAtFWTMax() throws {
    var b = TraceBuilder()
    b.activateType4(tb: 0xE0)  // FWI 14: FWT 4949 ms
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    b.tag([0xF2, 0x3B])
    b.reader([0xF2, 0x3B])
    b.tag([0x02, 0x00, 0x00, 0x90, 0x00], gapUs: 10_000_000)
    let f = try #require(try b.diagnose().finding("late-response"))
    #expect(f.frames.last == b.frames.count - 1)
    // The FWT in force is the S(WTX)'s, not the ATS's own (diagnose realism pass, finding 11).
    #expect(
      f.message.hasPrefix(
        "The tag asked for more time with S(WTX) (WTXM 59), extending its frame waiting time "
          + "(FWT, from the ATS) to 4949.03 ms, but took "))
    #expect(ISODEPTiming.maxFWTNs == 4_949_031_268)
    #expect(
      ISODEPTiming.temporaryFWTNs(fwt: ISODEPTiming.waitingTimeNs(4) ?? 0, wtxm: 59)
        == 59 * (ISODEPTiming.waitingTimeNs(4) ?? 0))
  }

  @Test func wtxStorm() throws {
    for (count, storm) in [(10, true), (2, false)] {
      var b = TraceBuilder()
      b.activateType4()
      b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
      for _ in 0..<count {
        b.tag([0xF2, 0x01])
        b.reader([0xF2, 0x01])
      }
      b.tag([0x02, 0x00, 0x00, 0x90, 0x00])
      #expect((try b.diagnose().finding("wtx-storm") != nil) == storm)
    }
  }

  @Test func responseLongerThanFSD() throws {
    for (fsdi, over) in [(UInt8(0), true), (UInt8(8), false)] {
      var b = TraceBuilder()
      b.activateType4(fsdi: fsdi)
      b.apdu([0x00, 0xB0, 0x00, 0x00, 0x14], [UInt8](repeating: 0x41, count: 20) + [0x90, 0x00])
      #expect((try b.diagnose().finding("response-exceeds-fsd") != nil) == over)
    }
  }

  @Test func rawCommandWithAppendedCRC() throws {
    var b = type2Tag()
    b.reader(CRC.appendingCRCA([0x30, 0x04]))
    let f = try #require(try b.diagnose().finding("raw-command-crc-appended"))
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.fix.contains("sendMiFareCommand"))
    var c = type2Tag()
    c.reader([0x30, 0x04])
    #expect(try c.diagnose().finding("raw-command-crc-appended") == nil)
  }

  // MARK: Several tags

  @Test func twoTagsBackToBack() throws {
    for (gapUs, several) in [(Int64(5_000), true), (Int64(1_000_000), false)] {
      var b = type2Tag()
      b.gapUs = gapUs
      b.activateType2(uid: [0x04, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44], version: ntag213Version)
      b.gapUs = 400
      b.read(3, [0xE1, 0x10, 0x12, 0x00])
      let r = try b.diagnose()
      #expect(r.sessions.count == 2)
      #expect((r.finding("several-tags") != nil) == several)
    }
  }

  @Test func badBCCSignalsSeveralTags() throws {
    var b = TraceBuilder()
    b.reader([0x26], crc: false)
    b.tag([0x44, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag([0x88, 0x04, 0x11, 0x22, 0x00], crc: false)
    let r = try b.diagnose()
    #expect(r.finding("several-tags")?.message.contains("bad BCC") == true)
  }

  // MARK: Whole traces

  @Test func noErrorsOnCleanRealTraces() throws {
    let dir = TestPaths.sharedTraces.appendingPathComponent("public/proxmark3")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
      .filter { $0.hasSuffix(".trace") }.sorted()
    #expect(files.count >= 20)
    for f in files {
      let r = try diagnoseFile(dir.appendingPathComponent(f).path)
      #expect(r.errors.isEmpty, "\(f): \(r.errors.map(\.code))")
    }
    let lab = TestPaths.sharedTraces.appendingPathComponent("public/nfc-laboratory")
    for f in try FileManager.default.contentsOfDirectory(atPath: lab.path)
    where f.hasSuffix(".json") {
      let r = try diagnoseFile(lab.appendingPathComponent(f).path)
      #expect(r.errors.isEmpty, "\(f): \(r.errors.map(\.code))")
    }
  }

  @Test func probesAndNotFormattedStayInformational() throws {
    let r = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))
    #expect(r.codes.contains("probe-not-answered"))
    #expect(r.findings.allSatisfy { $0.severity == .info })
    let c = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_14a_mfuc.trace"))
    #expect(c.finding("not-ndef-formatted")?.severity == .info)
  }

  @Test func jsonShape() throws {
    let r = try diagnoseFile(TestPaths.traces("t2t-ntag215-write-torn.trace"))
    let out = OutputBuffer(fd: nil)
    out.write("[")
    DiagnosisRender.json(r, to: out)
    out.write("]")
    let data = Data(out.text.utf8)
    let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    let s = try #require(doc.first)
    #expect(s["index"] as? Int == 0)
    let v = try #require(s["verdicts"] as? [[String: Any]])
    #expect(v.first?["verdict"] as? String == "interrupted")
    #expect(v.first?["kind"] as? String == "writeNDEF")
    let f = try #require((s["findings"] as? [[String: Any]])?.first)
    #expect(f["code"] as? String == "write-interrupted")
    #expect((f["core_nfc_error"] as? [String: Any])?["code"] as? Int == 100)
    #expect(
      (f["core_nfc_error"] as? [String: Any])?["name"] as? String
        == "readerTransceiveErrorTagConnectionLost")
    #expect(f["frames"] as? [Int] == [18, 19, 20, 21, 22, 23])
  }

  @Test func textLeadsWithVerdictThenEvidenceThenFix() throws {
    let r = try diagnoseFile(TestPaths.traces("t2t-ntag215-write-torn.trace"))
    let out = OutputBuffer(fd: nil)
    DiagnosisRender.text(r, frames: [:], to: out)
    let lines = out.text.split(separator: "\n").map(String.init)
    #expect(
      lines[1].hasPrefix(
        "writeNDEF (operation 3, frames 18–23): INTERRUPTED — the tag left the field"))
    let evidence = try #require(lines.firstIndex { $0.contains("evidence:") })
    let fix = try #require(lines.firstIndex { $0.contains("fix:") })
    #expect(evidence < fix)
  }
}
