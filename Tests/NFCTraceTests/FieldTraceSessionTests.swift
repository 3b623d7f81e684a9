import NFCTrace
import TestSupport
import Testing

/// Sessions of real captures from other tools (../shared/traces), for the operation outcomes
/// that only such traces showed wrong.
private func analyzeFile(_ relative: String) throws -> [SessionAnalysis] {
  let input = try TraceInput(path: TestPaths.shared(relative))
  let format = try FormatRegistry(BuiltinFormats.all).detect(input)
  return try SessionAnalysisRun(importer: try format.open(input)).sessions
}

@Suite struct FieldTraceSessionTests {
  /// DESFire native commands wrapped in CLA 90 answer 9100 (OK) and 91AF (additional frame):
  /// normal processing, not a refusal (nfc-facts §3.4). They were reported as "APDU refused".
  @Test func desfireNormalStatusWordsDoNotFailTheTransceive() throws {
    let sessions = try analyzeFile("public/nfc-laboratory/test_NFC-A_212kbps_001.json")
    let ops = try #require(sessions.first?.operations)
    #expect(ops.map(\.kind) == [.transceive])
    #expect(ops[0].outcome == .ok)
    #expect(ops[0].reason == nil)
    let report = try diagnoseFile(
      TestPaths.shared("public/nfc-laboratory/test_NFC-A_212kbps_001.json"))
    #expect(!report.codes.contains("apdu-refused"))
  }

  /// An error status word to an app's own APDU still fails it (SW 6E00, CLA not supported).
  @Test func errorStatusWordStillFailsTheTransceive() throws {
    let sessions = try analyzeFile("public/nfc-laboratory/test_NFC-A_424kbps_001.json")
    let op = try #require(sessions.first?.operations.first)
    #expect(op.kind == .transceive)
    #expect(op.outcome == .failed)
    #expect(op.detail("sw") == .string("6e00"))
    let report = try diagnoseFile(
      TestPaths.shared("public/nfc-laboratory/test_NFC-A_424kbps_001.json"))
    #expect(report.finding("apdu-refused")?.frames == [0, 1])
  }

  /// A SELECT of a file outside the NDEF application (MF 3F00) answered 6110 (61xx: normal
  /// processing, more data) is no NDEF-procedure step: no failed operation, no error finding.
  /// An NDEF-procedure command answered 61xx does not fail either (ISO/IEC 7816-4: done, data
  /// for GET RESPONSE), but T4T expects 9000 there: `t4t-get-response` warns.
  @Test func normalStatusOutsideTheNDEFProceduresIsNoFailure() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x3F, 0x00], [0x61, 0x10])
    let report = try b.diagnose()
    #expect(report.errors.isEmpty)
    let ops = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
      .flatMap(\.operations)
    #expect(ops.allSatisfy { $0.outcome != .failed })

    var c = TraceBuilder()
    c.activateType4()
    c.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
    c.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x61, 0x10])
    let query = try SessionAnalysisRun(importer: MemoryImporter(frames: c.frames)).sessions
      .flatMap(\.operations).first { $0.kind == .queryNDEFStatus }
    #expect(query?.outcome == .unknown)  // the CC was never read
    #expect(query?.detail("sw") == nil)
    let warning = try #require(try c.diagnose().finding("t4t-get-response"))
    #expect(warning.severity == .warning)
    #expect(warning.frames.count == 2)
  }

  /// NTAG I2C SECTOR_SELECT part 2 is acknowledged by silence (nfc-facts §4.1): not an
  /// unanswered command, not an interrupted operation.
  @Test func sectorSelectSilenceIsSuccess() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0xC2, 0xFF])
    b.tag([0x0A], crc: false)
    b.reader([0x00, 0x00, 0x00, 0x00])
    b.read(3, page3(cc: [0xE1, 0x10, 0x6D, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames))
    let ops = try #require(run.sessions.first).operations
    #expect(ops.map(\.kind) == [.connect, .transceive, .queryNDEFStatus])
    #expect(ops[1].outcome == .ok && ops[1].unansweredFrames.isEmpty)
    #expect(try b.diagnose().errors.isEmpty)
  }

  /// A query whose READ of the CC got no usable answer has no status and is not ok: it failed
  /// on an answer that is no READ answer (an empty frame is no reader-chip ACK — only writes
  /// are answered by ACK — and, from a source that keeps whole bytes only, a dropped 4-bit
  /// NAK).
  @Test func queryWithoutCCFails() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x30, 0x03])
    b.tag([], crc: false)
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    )
    .operations
    #expect(ops.last?.kind == .queryNDEFStatus)
    #expect(ops.last?.outcome == .failed)
    #expect(
      ops.last?.reason
        == "answer to READ page 3 not understood: READ answer has 0 byte(s), expected 16")
    #expect(ops.last?.failedFrames == [b.frames.count - 1])
  }

  /// An empty answer to PWD_AUTH is no PACK (from a source that keeps whole bytes only, a
  /// dropped 4-bit NAK): the authentication failed; it was reported "ok".
  @Test func undecodableAnswerFailsItsOperation() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0x1B, 0x11, 0x22, 0x33, 0x44])
    b.tag([], crc: false)
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations
    let auth = try #require(ops.last)
    #expect(auth.kind == .authenticate)
    #expect(auth.outcome == .failed)
    #expect(auth.reason?.hasPrefix("answer to PWD_AUTH") == true)
    #expect(
      auth.reason?.contains("not understood: PWD_AUTH answer has 0 byte(s), expected 2") == true)
  }

  /// A WRITE past an identified product's last page (NTAG213: 0x2C) is no writeNDEF — Core
  /// NFC never writes there — but the app's own command, like one on its config pages.
  @Test func writePastTheLastPageIsATransceive() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.write(45, [0x00, 0x00, 0x00, 0x00], .nak(0x00))
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations
    #expect(ops.last?.kind == .transceive)
    #expect(ops.last?.outcome == .failed)
  }

  /// An original MIFARE Ultralight NAKs the stack's GET_VERSION probe (nfc-facts §4.6): the
  /// connect is not failed. With CC2 = 06 (48 bytes) it has 16 pages, so READ 14 wraps and
  /// its last 8 bytes are pages 0–1 (nfc-facts §4.1), not pages 16–17.
  @Test func ultralightGetVersionNAKAndReadWrap() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x60])
    b.tag([0x00], crc: false)
    b.activateType2()
    b.read(3, page3(cc: [0xE1, 0x10, 0x06, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    let uidPages: [UInt8] = [0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66]
    b.read(14, [0xAA, 0xAA, 0xAA, 0xAA, 0xBB, 0xBB, 0xBB, 0xBB] + uidPages)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.prefix(2).map(\.outcome) == [.ok, .ok])
    #expect(
      s.operations[0].detail("get_version")
        == .string("refused: MIFARE Ultralight, Ultralight C or NTAG203")
    )
    #expect(s.memory.type2End.known(0, 8) == uidPages)
    #expect(s.memory.type2End.known(64, 4) == nil)
  }

  /// A READ answer whose CRC fails (a sniffer's damaged copy) does not overwrite bytes an
  /// intact answer showed: the NDEF length stays 0x14 from READ 3, not 0x40 from the damage.
  @Test func damagedReadAnswerDoesNotOverwriteMemory() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, page3(cc: [0xE1, 0x10, 0x3E, 0x00], then: [0x03, 0x14, 0xD1, 0x01]))
    b.reader([0x30, 0x04])
    b.tag([0x03, 0x40, 0xD1, 0x01] + Array(repeating: 0x61, count: 12), badCRC: true)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.memory.type2End.known(16, 4) == [0x03, 0x14, 0xD1, 0x01])
    #expect(s.memory.type2End.known(20, 4) == [0, 0, 0, 0])  // from READ 3, not the damaged 61s
  }

  /// A Type 4 capture that starts after the NDEF file was selected: READ BINARY of 2 bytes at
  /// offset 0 is taken for NLEN (t4t-file-assumed), so the read and the write show as
  /// readNDEF and writeNDEF instead of one transceive with "no writes".
  @Test func type4CaptureStartingMidSession() throws {
    var b = TraceBuilder()
    let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04] + Array("a.io".utf8)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, UInt8(message.count), 0x90, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x02, UInt8(message.count)], message + [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(message.count)] + message, [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)], [0x90, 0x00])
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames))
    let s = try #require(run.sessions.first)
    #expect(s.operations.map(\.kind) == [.queryNDEFStatus, .readNDEF, .writeNDEF])
    #expect(s.operations[0].outcome == .unknown)
    #expect(s.operations[1].detail("message") == .hex(message))
    #expect(s.operations[2].outcome == .ok)
    let pipeline = try DiagnosisRun(importer: MemoryImporter(frames: b.frames))
    #expect(pipeline.diagnose().sessions.first?.verdicts.map(\.kind) == [.writeNDEF])
  }

  /// A Type 2 capture without the CC read: the WRITEs after the one to page 4 continue that
  /// writeNDEF (they were a separate transceive).
  @Test func type2WriteWithoutCCIsOneOperation() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x69, 0x6F, 0xFE])
    b.write(4, [0x03, 0x09, 0xD1, 0x01])
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    )
    .operations
    #expect(ops.map(\.kind) == [.connect, .writeNDEF])
    #expect(ops[1].detail("pages_acknowledged") == .string("4,5,6,4"))
  }
}
