import TestSupport
import Testing

@testable import NFCTrace

/// The operations of a simulated scenario, as `kind outcome` (first frame).
private func operations(
  _ tag: TagSpec, reader: ReaderKind, _ actions: [ScenarioAction], faults: [ScenarioFault] = []
) throws -> [String] {
  let scenario = Scenario(
    name: "calls", seed: 1, tag: tag, reader: reader, actions: actions, faults: faults)
  let result = try Simulator.run(scenario)
  let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: result.frames)).sessions
  return sessions.flatMap(\.operations).map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
}

private let uri: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
private let longer: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x04] + Array("nfctrace.dev/ok!".utf8)

/// Two readNDEF or writeNDEF calls in a row are two operations (they were merged into one):
/// `CallBoundary` sees the procedure start over.
@Suite struct CallBoundaryTests {
  @Test(arguments: [ReaderKind.ios, .android])
  func twoReadsOnAType2Tag(_ reader: ReaderKind) throws {
    let ops = try operations(
      TagSpec(type: .ntag215, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: reader,
      [.connect, .queryNDEFStatus, .readNDEF, .readNDEF])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "readNDEF ok", "readNDEF ok"])
  }

  /// Length-last stacks (iOS: `03 00` first, the length last) step back to page 4 once per
  /// call; the second call's first WRITE starts a new operation.
  @Test(arguments: [ReaderKind.ios, .android])
  func twoWritesOnAType2Tag(_ reader: ReaderKind) throws {
    let ops = try operations(
      TagSpec(type: .ntag213, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: reader,
      [.connect, .queryNDEFStatus, .writeNDEF(message: uri), .writeNDEF(message: longer)])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok", "writeNDEF ok"])
  }

  @Test func twoReadsAndTwoWritesOnAType4Tag() throws {
    let ops = try operations(
      TagSpec(type: .type4, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: .ios,
      [
        .connect, .queryNDEFStatus, .readNDEF, .readNDEF, .writeNDEF(message: uri),
        .writeNDEF(message: longer),
      ])
    #expect(
      ops == [
        "connect ok", "queryNDEFStatus ok", "readNDEF ok", "readNDEF ok", "writeNDEF ok",
        "writeNDEF ok",
      ])
  }

  /// A WRITE refused with NAK 5 is sent again by the stack: the copies are one failed call
  /// (an app's second call with the same WRITE cannot be told from a retry and joins it).
  @Test func retriesOfARefusedWriteAreOneCall() throws {
    let ops = try operations(
      TagSpec(type: .ntag215, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: .ios,
      [.connect, .queryNDEFStatus, .writeNDEF(message: uri), .writeNDEF(message: uri)],
      faults: [.nakOnPage(page: 4, code: 5)])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "writeNDEF failed"])
  }

  /// Android retries an unanswered WRITE up to 5 times: WRITE 4 twice without answer, then
  /// acknowledged, is one writeNDEF that succeeded (it was an interrupted one and a second).
  @Test func twoSilentRetriesThenAnACKAreOneWrite() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE, 0x00])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x01, 0x55, 0x00, 0xFE])
    b.write(4, [0x03, 0x05, 0xD1, 0x01])
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations.filter { $0.kind == .writeNDEF }
    #expect(ops.count == 1)
    // The answered retry shows the tag stayed: the write succeeded, nothing was interrupted.
    #expect(ops.first?.outcome == .ok)
    #expect(ops.first?.unansweredFrames.count == 2)
    #expect(try !b.diagnose().codes.contains("write-interrupted"))
  }

  /// A NAK 1 on a data page, acknowledged on the retry, keeps one writeNDEF (t2-noisy-rf: the
  /// retry of WRITE page 7 is not the step back that starts the next call, and the final
  /// WRITE of the length to page 4 still belongs to the call).
  @Test func transmissionErrorRetryIsNotANewCall() throws {
    let input = try TraceInput(path: TestPaths.traces("generated/t2-noisy-rf.trace"))
    let sessions = try SessionAnalysisRun(importer: try Proxmark3BinaryImporter(input: input))
      .sessions
    let writes = sessions.flatMap(\.operations).filter { $0.kind == .writeNDEF }
    #expect(writes.count == 1)
    #expect(writes.first?.outcome == .ok)
    #expect(writes.first.map { [$0.firstFrame, $0.lastFrame] } == [37, 52])
    #expect(writes.first?.detail("pages_acknowledged") == .string("4,5,6,7,8,9,4"))
  }

  /// Android's Type 4 readNDEF keeps NLEN from the query and reads from offset 2: a second
  /// call reads offset 2 again (no NLEN re-read) and is a second operation.
  @Test func androidType4ReadsWithoutNLEN() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    let data: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], data + [0x90, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], data + [0x90, 0x00])
    let kinds = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations.map(\.kind)
    #expect(kinds.filter { $0 == .readNDEF }.count == 2)
  }

  /// ISO-DEP recovery: the tag's answer arrives damaged, the reader sends R(NAK), the tag
  /// sends the block again (ISO/IEC 14443-4 §7.5.4): the intact copy answers the READ.
  @Test func retransmittedType4AnswerIsPaired() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    let data: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x05])
    b.tag([0x03] + data + [0x90, 0x00], badCRC: true)
    b.reader([0xB3])
    b.tag([0x03] + data + [0x90, 0x00])
    let decoded = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let read = try #require(decoded.operations.first { $0.kind == .readNDEF })
    #expect(read.outcome == .ok)
    #expect(read.detail("message") == .hex(data))
  }
}

/// A command APDU chained over several I-blocks belongs to the operation its APDU starts,
/// from its first block: the reader's chained UPDATE BINARY is the writeNDEF's, not the
/// readNDEF's before it (new-user pass).
@Suite struct ChainedCommandTests {
  @Test func chainedUpdateBinaryOpensTheWriteAtItsFirstBlock() throws {
    var b = TraceBuilder()
    b.activateType4(fsci: 2)
    b.queryType4(nlen: 5)
    let data: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], data + [0x90, 0x00])
    let readEnd = b.frames.count - 1
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    let message =
      [0xD1, 0x01, 0x28, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: UInt8(0x61), count: 38)
    b.chainedAPDU(
      [0x00, 0xD6, 0x00, 0x02, UInt8(message.count)] + message, part: 24, [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)], [0x90, 0x00])
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .writeNDEF])
    #expect(ops[2].lastFrame == readEnd)
    #expect(ops[3].firstFrame == readEnd + 1)
    #expect(ops[3].lastFrame == b.frames.count - 1)
    #expect(ops[3].outcome == .ok)
  }

  /// The same when the chained UPDATE is the first command of the write (no NLEN = 0 first).
  @Test func chainedUpdateAfterTheReadWithoutNLENFirst() throws {
    var b = TraceBuilder()
    b.activateType4(fsci: 2)
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x00, 0x90, 0x00])
    let writeStart = b.frames.count
    let message =
      [0x00, 0x2D, 0xD1, 0x01, 0x28, 0x54, 0x02, 0x65, 0x6E]
      + Array(repeating: UInt8(0x61), count: 38)
    b.chainedAPDU(
      [0x00, 0xD6, 0x00, 0x00, UInt8(message.count)] + message, part: 24, [0x90, 0x00])
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .writeNDEF])
    #expect(ops[3].firstFrame == writeStart)
    #expect(ops[3].outcome == .ok)
  }
}

/// A stack that detects NDEF, halts the tag, activates it again and writes (Android's
/// reconnect): the write after the reconnect starts at the NDEF TLV's page, which only the
/// earlier session read (field engineer pass, t2-35: "transceive ok").
@Suite struct ReconnectWriteTests {
  @Test func writeAfterReconnectIsWriteNDEF() throws {
    var b = TraceBuilder()
    b.activateType2()
    let lockControl: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34]
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: lockControl + [0x03, 0x00, 0xFE]))
    b.reader([0x50, 0x00])
    b.activateType2()
    b.write(5, [0x34, 0x03, 0x00, 0xD1])
    b.write(6, [0x01, 0x01, 0x54, 0x00])
    b.write(7, [0xFE, 0x00, 0x00, 0x00])
    b.write(5, [0x34, 0x03, 0x05, 0xD1])
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
    #expect(sessions.count == 2)
    #expect(sessions.last?.operations.map(\.kind) == [.connect, .writeNDEF])
  }
}

/// NTAG I2C 2K: the NDEF message continues from sector 0 into sector 1 after SECTOR_SELECT;
/// session memory numbers pages across sectors (sector × 256 + page), so sector 1's page 0
/// does not overwrite sector 0's UID page (field engineer pass, t2-30).
@Suite struct SectorSelectTests {
  @Test func messageAcrossSectorsIsOneRead() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03])
    b.read(0, [0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00])
    b.read(3, [0xE1, 0x10, 0xEA, 0x00, 0x03, 0xFF, 0x03, 0xF8])  // 1016-byte message
    for page in stride(from: 4, to: 256, by: 4) {
      let head: [UInt8] = page == 4 ? [0x03, 0xFF, 0x03, 0xF8] : [0x61, 0x61, 0x61, 0x61]
      b.read(page, head + Array(repeating: 0x61, count: 12))
    }
    b.reader([0xC2, 0xFF])
    b.add4Bit(0x0A)
    b.reader([0x01, 0x00, 0x00, 0x00])
    b.read(0, Array(repeating: 0x62, count: 12) + [0xFE, 0x00, 0x00, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(
      s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "queryNDEFStatus ok", "readNDEF ok",
      ])
    #expect(s.memory.type2End.known(0, 4) == [0x04, 0x11, 0x22, 0xBB])
    #expect(s.memory.type2End.known(1024, 4) == [0x62, 0x62, 0x62, 0x62])
    let ndef = try #require(s.memory.type2Area?.ndef)
    #expect(ndef.length == 1016 && ndef.isComplete)
  }

  /// A sector byte past NTAG I2C's sectors 0–3 is kept out of the session memory (an image of
  /// up to 64 KiB per session blew memory up; attacker pass).
  @Test func sectorsPastThreeAreNotInMemory() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0xC2, 0xFF])
    b.add4Bit(0x0A)
    b.reader([0x3F, 0x00, 0x00, 0x00])
    b.write(4, [1, 2, 3, 4])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.memory.type2End.count <= 1024)
    #expect(s.operations.last?.kind == .transceive)
  }
}

/// A Type 4 stack that reads NLEN and the message in one READ BINARY (offset 0, Le 00) after
/// the CC: that READ is the readNDEF, the status came from the CC (field engineer, t4-02).
@Suite struct WholeFileReadTests {
  @Test func nlenAndMessageInOneReadIsReadNDEF() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(maxSize: 0x0040)
    let ok: [UInt8] = [0x90, 0x00]
    let message: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x00], [0x00, 0x05] + message + Array(repeating: 0, count: 57) + ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(
      s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "queryNDEFStatus ok", "readNDEF ok",
      ])
    #expect(s.operations[1].detail("status") == .string("readWrite"))
    #expect(s.operations[2].detail("message") == .hex(message))
  }
}

/// The CC read again after writeLock is a query again, not a readNDEF claiming a message its
/// READ never covered (field engineer pass 2, t2-02).
@Suite struct CCReReadTests {
  @Test func ccReadAfterWriteLockIsAQuery() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x0F], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(
      s.operations.map(\.shortText) == [
        "connect ok", "queryNDEFStatus readWrite 142 B", "writeLock ok",
        "queryNDEFStatus readOnly 142 B",
      ])
  }
}

/// Android's Ndef.makeReadOnly on a tag that did not answer GET_VERSION: the write of the
/// dynamic lock bytes where the Lock Control TLV puts them (page 40) is part of writeLock,
/// not a writeNDEF (field engineer pass 2, android-02).
@Suite struct LockControlWriteTests {
  @Test func dynamicLockWriteFromTheLockControlTLVIsWriteLock() throws {
    var b = TraceBuilder()
    b.activateType2()
    let lockControl: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34]
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: lockControl + [0x03, 0x00, 0xFE]))
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    b.write(40, [0xFF, 0x0F, 0x00, 0xBD])
    b.write(2, [0x00, 0x48, 0xFF, 0xFF])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
  }
}
