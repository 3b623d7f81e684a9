import Foundation
import TestSupport
import Testing

@testable import NFCTrace

// MARK: helpers

private let uriExampleCom: [UInt8] = Hex.bytes("d1010c55046578616d706c652e636f6d") ?? []
private let uid7: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

private func scenario(
  _ tag: TagSpec, _ actions: [ScenarioAction], faults: [ScenarioFault] = [],
  reader: ReaderKind = .ios, seed: UInt64 = 7
) -> Scenario {
  Scenario(name: "test", seed: seed, tag: tag, reader: reader, actions: actions, faults: faults)
}

private func ntag215(ndef: [UInt8]? = uriExampleCom) -> TagSpec {
  TagSpec(type: .ntag215, uid: uid7, ndef: ndef)
}

private let readActions: [ScenarioAction] = [.connect, .queryNDEFStatus, .readNDEF, .disconnect]

private func frames(_ r: SimulationResult, _ direction: Direction) -> [Frame] {
  r.frames.filter { $0.direction == direction }
}

/// Reader frames that carry CRC_A: all but REQA/WUPA and anticollision (SEL + NVB < 70).
private func needsCRC(_ f: Frame) -> Bool {
  if f.direction == .reader {
    if f.isShortFrame { return false }
    if [0x93, 0x95, 0x97].contains(f.data[0]), f.data.count > 1, f.data[1] != 0x70 { return false }
    return true
  }
  // Tag: not ATQA (2 bytes), anticollision answers (5 bytes, no CRC) or 4-bit ACK/NAK.
  return f.bits == nil && f.data.count != 2 && !(f.data.count == 5 && !CRC.hasValidCRCA(f.data))
}

private func op(_ r: SimulationResult, _ kind: String) -> GroundTruth.Operation? {
  r.truth.operations.first { $0.kind == kind }
}

private func ackCount(_ r: SimulationResult) -> Int {
  frames(r, .tag).filter { $0.bits == 4 && $0.data == [0x0A] }.count
}

// MARK: Type 2

@Test func ntag215IOSReadOfURIRecord() throws {
  let r = try Simulator.run(scenario(ntag215(), readActions))
  // field on, WUPA/ATQA, 2 × (anticollision + SELECT), GET_VERSION, READ 3, READ 4, READ 8 … HLTA, field off
  #expect(r.frames.count == 21)
  #expect(r.frames.first?.event == .fieldOn)
  #expect(r.frames.last?.event == .fieldOff)
  let read3 = try #require(r.frames.firstIndex { $0.data.prefix(2) == [0x30, 0x03] })
  #expect(Array(r.frames[read3 + 1].data.prefix(4)) == [0xE1, 0x10, 0x3E, 0x00])
  #expect(Array(r.frames[read3 + 1].data.prefix(8).suffix(4)) == [0x03, 0x10, 0xD1, 0x01])
  #expect(r.frames[1].data == [0x52] && r.frames[1].bits == 7)
  #expect(r.frames[2].data == [0x44, 0x00])
  #expect(r.frames[4].data == [0x88, 0x04, 0xA1, 0xB2, 0x9F])  // CT + UID0-2 + BCC
  for f in r.frames where f.direction != .event && needsCRC(f) {
    #expect(CRC.hasValidCRCA(f.data), "frame \(f.index) \(Hex.string(f.data))")
  }
  for f in r.frames {
    #expect(f.location.file == "simulated:test" && f.location.unit == "frame")
    #expect(f.location.record == f.index + 1)
  }
  #expect(r.truth.ndefStatus == .readWrite)
  #expect(r.truth.capacity == 492)
  #expect(r.truth.ndefRead == uriExampleCom)
  #expect(r.truth.expectedError == nil)
  #expect(
    r.truth.operations.map(\.kind) == [
      "poll", "connect", "queryNDEFStatus", "readNDEF", "disconnect",
    ])
}

@Test func type2TimingFollowsFDTAndProgrammingTime() throws {
  let message = Array(uriExampleCom.dropLast()) + [0x6E]
  let r = try Simulator.run(scenario(ntag215(), [.connect, .writeNDEF(message: message)]))
  let f = r.frames
  // ATQA starts 1236 ticks after WUPA (last bit 1) ends: FDT n = 9.
  let wupaEnd = (f[1].sourceTime?.value ?? 0) + 992
  #expect(f[2].sourceTime?.value == wupaEnd + 1236)
  #expect(f[1].durationNs == AirTiming.nanoseconds(ticks: 992))
  #expect(f[2].durationNs == AirTiming.nanoseconds(ticks: 2368))
  var writes = 0
  for (i, frame) in f.enumerated() where frame.data.first == 0xA2 && frame.direction == .reader {
    let ack = f[i + 1]
    #expect(ack.bits == 4 && ack.data == [0x0A])
    #expect(ack.durationNs == AirTiming.nanoseconds(ticks: 640))
    let gap = ack.timeNs - (frame.timeNs + (frame.durationNs ?? 0))
    #expect(gap >= 4_000_000)
    writes += 1
  }
  #expect(writes == 6)  // page 4 with L = 0, pages 5–8, page 4 with L = 16
}

@Test func removeAfterTwoWritesInterruptsTheWrite() throws {
  let message = [UInt8](repeating: 0x41, count: 40)
  let r = try Simulator.run(
    scenario(
      ntag215(), [.connect, .writeNDEF(message: message), .readNDEF],
      faults: [.removeAfterWrites(count: 2)]))
  #expect(ackCount(r) == 2)
  let writes = r.frames.filter { $0.direction == .reader && $0.data.first == 0xA2 }
  #expect(writes.count == 4)  // 2 acknowledged, the third sent twice (one retry)
  #expect(writes[2].data == writes[3].data)
  let third = try #require(writes.dropFirst(2).first)
  #expect(r.frames[third.index + 1].direction == .reader)  // unanswered
  #expect(r.frames[writes[3].index + 1].event == .fieldOff)
  let write = try #require(op(r, "writeNDEF"))
  #expect(write.outcome == .interrupted)
  #expect(write.error?.code == 100)
  #expect(r.truth.expectedError?.code == 100)
  #expect(op(r, "readNDEF")?.error?.code == 104)
  // Length-last: the tag keeps the old message's TLV with length 0 → the first page has L = 0.
  #expect(Array(r.truth.finalMemory[16..<18]) == [0x03, 0x00])
  #expect(r.truth.ndefWritten == nil)
}

/// A NAK inside writeNDEF reaches the app as 401 ndefReaderSessionErrorTagUpdateFailure
/// ("NDEF write failed", nfc-facts §8.2), as the diagnosis reports it.
@Test func nakOnPageFailsTheWriteWith401() throws {
  let r = try Simulator.run(
    scenario(
      ntag215(), [.connect, .writeNDEF(message: uriExampleCom)],
      faults: [.nakOnPage(page: 5, code: 0)]))
  let nak = try #require(r.frames.first { $0.direction == .tag && $0.bits == 4 && $0.data == [0] })
  #expect(r.frames[nak.index - 1].data.prefix(2) == [0xA2, 0x05])
  let write = try #require(op(r, "writeNDEF"))
  #expect(write.outcome == .failed && write.reason == "NAK 0" && write.error?.code == 401)
}

@Test func passwordProtectionNeedsPWDAuth() throws {
  var tag = ntag215()
  tag.auth0 = 4
  tag.pwd = HexBytes([0x12, 0x34, 0x56, 0x78])
  tag.pack = HexBytes([0xAB, 0xCD])
  let write = ScenarioAction.writeNDEF(message: uriExampleCom)
  let denied = try Simulator.run(scenario(tag, [.connect, write]))
  let nak = try #require(denied.frames.first { $0.bits == 4 && $0.direction == .tag })
  #expect(nak.data == [0x00])
  #expect(op(denied, "writeNDEF")?.error?.code == 401)

  let pwd: [UInt8] = [0x12, 0x34, 0x56, 0x78]
  let allowed = try Simulator.run(scenario(tag, [.connect, .authenticate(password: pwd), write]))
  #expect(op(allowed, "authenticate")?.reason == "PACK abcd")
  #expect(op(allowed, "writeNDEF")?.outcome == .ok)
  #expect(allowed.truth.ndefWritten == uriExampleCom)
  // PWD reads back as zeros but the memory keeps it.
  #expect(Array(allowed.truth.finalMemory[(0x85 * 4)..<(0x85 * 4 + 4)]) == pwd)

  let lost = try Simulator.run(
    scenario(
      tag, [.connect, .authenticate(password: pwd), write],
      faults: [.reactivateBeforeWrite]))
  #expect(op(lost, "writeNDEF")?.reason == "NAK 0")
  #expect(lost.truth.sessions.count == 2)  // HLTA + WUPA starts a new session
}

@Test func appAppendedCRCLeavesTheTagSilent() throws {
  let r = try Simulator.run(
    scenario(
      ntag215(), [.connect, .sendMiFareCommand(data: [0x30, 0x04])],
      faults: [.appAppendsCRC]))
  let sent = r.frames.filter { $0.data.first == 0x30 && $0.direction == .reader }
  #expect(sent.count == 2)
  #expect(sent[0].data == CRC.appendingCRCA([0x30, 0x04, 0x26, 0xEE]))
  let mifare = try #require(op(r, "sendMiFareCommand"))
  #expect(mifare.outcome == .failed && mifare.error?.code == 100)
}

@Test func secondTagCollidesInAnticollision() throws {
  let r = try Simulator.run(
    scenario(
      ntag215(), [.restartPolling, .connect],
      faults: [.secondTag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], polls: 1)]))
  let collided = r.frames.filter { $0.sourceFlags.contains("collision") }
  #expect(collided.count == 1)
  #expect(!(collided.first?.parityErrors.isEmpty ?? true))
  #expect(r.truth.operations.first?.reason == "2 tags")
  #expect(op(r, "restartPolling")?.reason == "1 tag")
  #expect(op(r, "connect")?.outcome == .ok)
  // Bit-oriented anticollision: SEL 93 with NVB low nibble ≠ 0 and a partial last byte.
  #expect(r.frames.contains { $0.data.first == 0x93 && $0.data.count > 2 && $0.data[1] != 0x70 })
  #expect(r.truth.sessions.last?.uid == uid7)
}

@Test func androidReadsWithFastReadAndWritesTerminatorLast() throws {
  let r = try Simulator.run(
    scenario(
      ntag215(), [.connect, .readNDEF, .writeNDEF(message: uriExampleCom)], reader: .android))
  #expect(r.frames.contains { $0.data.prefix(3) == [0x3A, 0x04, 0x08] })
  let writes = r.frames.filter { $0.direction == .reader && $0.data.first == 0xA2 }.map {
    $0.data[1]
  }
  #expect(writes == [4, 5, 6, 7, 8, 4, 8])
  #expect(r.truth.ndefWritten == uriExampleCom)
}

@Test func blankUltralightIsNotSupported() throws {
  let r = try Simulator.run(
    scenario(TagSpec(type: .type2Blank, uid: uid7), [.connect, .queryNDEFStatus, .readNDEF]))
  #expect(r.truth.ndefStatus == .notSupported)
  #expect(op(r, "queryNDEFStatus")?.reason == "notSupported, capacity 0")
  // GET_VERSION unanswered, then WUPA re-activation before READ 3.
  let getVersion = try #require(r.frames.firstIndex { $0.data.prefix(1) == [0x60] })
  #expect(r.frames[getVersion + 1].data == [0x52])
}

// MARK: Type 4

private func type4(mle: Int = 0x3B, write: Int = 0, ndef: [UInt8]) -> TagSpec {
  var t = TagSpec(type: .type4, uid: uid7, ndef: ndef)
  t.mle = mle
  t.writeAccess = write
  return t
}

@Test func type4ReadChunksByMLeAndReadOnlyUpdateGets6982() throws {
  let message = [UInt8](repeating: 0x55, count: 100)
  let update: [UInt8] = [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]
  let r = try Simulator.run(
    scenario(
      type4(write: 0xFF, ndef: message),
      [.connect, .queryNDEFStatus, .readNDEF, .sendCommand(apdu: update), .writeNDEF(message: [1])])
  )
  #expect(r.frames[2].data == [0x44, 0x03])
  let rats = try #require(r.frames.firstIndex { $0.data.prefix(2) == [0xE0, 0x80] })
  #expect(r.frames[rats + 1].data.prefix(6) == [0x06, 0x75, 0x00, 0x80, 0x02, 0x80])
  // READ BINARY APDUs: CC (0F), NLEN (02) twice, then 3B and 29 bytes from offsets 2 and 61.
  let reads = r.frames.filter {
    $0.direction == .reader && $0.data.count == 8 && $0.data[2] == 0xB0
  }
  .map { Array($0.data[3..<6]) }
  #expect(
    reads == [
      [0x00, 0x00, 0x0F], [0x00, 0x00, 0x02], [0x00, 0x00, 0x02], [0x00, 0x02, 0x3B],
      [0x00, 0x3D, 0x29],
    ])
  #expect(r.truth.ndefRead == message)
  #expect(r.truth.ndefStatus == .readOnly)
  #expect(r.truth.capacity == 2046)
  #expect(op(r, "sendCommand")?.reason == "SW 6982")
  let swFrame = try #require(r.frames.last { $0.direction == .tag && $0.data.count == 5 })
  #expect(swFrame.data.prefix(3).suffix(2) == [0x69, 0x82])
  #expect(op(r, "writeNDEF")?.error?.code == 400)
  // I-block numbering alternates 02/03 for reader and tag.
  let pcbs = r.frames.filter {
    $0.direction == .reader && $0.data.count > 3 && $0.data[0] & 0xE2 == 0x02
  }
  .map { $0.data[0] }
  #expect(Array(pcbs.prefix(4)) == [0x02, 0x03, 0x02, 0x03])
}

@Test func type4ChainsLongAnswersAndFailsWhenTheTagIgnoresFSD() throws {
  let message = [UInt8](repeating: 0x33, count: 300)
  let tag = type4(mle: 0xFF, ndef: message)
  let r = try Simulator.run(scenario(tag, [.connect, .readNDEF]))
  #expect(r.truth.ndefRead == message)
  #expect(r.frames.contains { $0.direction == .tag && $0.data.first == 0x12 })
  #expect(r.frames.contains { $0.direction == .reader && $0.data == CRC.appendingCRCA([0xA3]) })
  let broken = try Simulator.run(
    scenario(tag, [.connect, .readNDEF], faults: [.responseLongerThanFSD]))
  #expect(op(broken, "readNDEF")?.error?.code == 102)
}

@Test func type4WriteUsesNLENLastAndWTX() throws {
  let message = [UInt8](repeating: 0x44, count: 300)
  var tag = type4(mle: 0xFF, ndef: uriExampleCom)
  tag.mlc = 0x80
  tag.wtx = 1
  let r = try Simulator.run(scenario(tag, [.connect, .writeNDEF(message: message)]))
  #expect(op(r, "writeNDEF")?.outcome == .ok)
  #expect(Array(r.truth.finalMemory.prefix(2)) == [0x01, 0x2C])
  #expect(Array(r.truth.finalMemory[2..<302]) == message)
  let wtx = r.frames.filter { $0.data.first == 0xF2 }
  #expect(wtx.count == 2 * 5)  // 5 UPDATE BINARY (00 00, 128, 128, 44, NLEN), request + reply
  let removed = try Simulator.run(
    scenario(tag, [.connect, .writeNDEF(message: message)], faults: [.removeAfterWrites(count: 1)]))
  #expect(op(removed, "writeNDEF")?.outcome == .interrupted)
  #expect(Array(removed.truth.finalMemory.prefix(2)) == [0x00, 0x00])
}

// MARK: determinism, scenarios

@Test func sameSeedGivesIdenticalFrames() throws {
  let s = scenario(
    ntag215(), readActions + [.connect, .writeNDEF(message: uriExampleCom)],
    faults: [.noise(crcErrorRate: 0.05, parityErrorRate: 0.02)])
  let a = try Simulator.run(s)
  let b = try Simulator.run(s)
  #expect(a.frames.map(\.data) == b.frames.map(\.data))
  #expect(a.frames.map(\.timeNs) == b.frames.map(\.timeNs))
  #expect(a.frames.map(\.parityErrors) == b.frames.map(\.parityErrors))
  var other = s
  other.seed = 8
  #expect(try Simulator.run(other).frames.map(\.timeNs) != a.frames.map(\.timeNs))
}

@Test func sampleAppScenariosLoadAndRun() throws {
  let names = ["objc-nfcmanager", "ios11-nfchelper", "swift-nfchandler", "uikit-writer"]
  var results: [String: SimulationResult] = [:]
  for name in names {
    let s = try Scenario.load(path: TestPaths.traces("scenarios/\(name).json"))
    #expect(s.name == name)
    let again = try Scenario.decode(try s.jsonData())
    #expect(again == s)
    results[name] = try Simulator.run(s)
  }
  let objc = try #require(results["objc-nfcmanager"])
  #expect(objc.truth.operations.first?.reason == "2 tags")
  #expect(objc.truth.ndefWritten?.prefix(4) == [0xD9, 0x01, 0x17, 0x08])
  #expect(objc.truth.ndefWritten?.suffix(23).first == 0x61)
  #expect(objc.truth.expectedError == nil)
  // Polling round 1 (two tags: the second tag is selected first, bit 1 at the collision),
  // then the read session and the write session after restartPolling.
  #expect(
    objc.truth.sessions.map { Hex.string($0.uid) } == [
      "04112233445566", "04a1b2c3d4e5f6", "04a1b2c3d4e5f6", "04a1b2c3d4e5f6",
    ])
  #expect(
    objc.truth.sessions[2].operations.map(\.kind) == [
      "restartPolling", "connect", "queryNDEFStatus", "readNDEF", "disconnect",
    ])
  // An operation is listed in the session it ends in: restartPolling in the one it polls in
  // (after its field off), the two-tag polling round in the second tag's activation.
  #expect(objc.truth.sessions[1].operations.map(\.kind) == ["poll"])
  #expect(objc.truth.sessions[0].operations.isEmpty)
  let helper = try #require(results["ios11-nfchelper"])
  #expect(helper.truth.ndefRead?.count == 21)
  let handler = try #require(results["swift-nfchandler"])
  #expect(op(handler, "sendCommand")?.reason == "SW 6A82")
  #expect(handler.truth.ndefWritten?.suffix(19) == Array("https://example.com".utf8))
  let uikit = try #require(results["uikit-writer"])
  #expect(op(uikit, "writeNDEF")?.outcome == .ok)
  #expect(uikit.truth.capacity == 137)
}

@Test func scenarioErrorsNameTheKey() throws {
  let bad = Data(
    #"{"name":"x","seed":1,"tag":{"type":"ntag215"},"reader":"ios","actions":[{"op":"jump"}]}"#.utf8
  )
  #expect(throws: SimulationError.self) { try Scenario.decode(bad) }
  do {
    _ = try Scenario.decode(bad)
  } catch let e as SimulationError {
    #expect(e.description.contains("actions.[0].op"))
  }
  let shortUID = scenario(TagSpec(type: .ntag213, uid: [1, 2, 3, 4]), readActions)
  #expect(
    throws: SimulationError.invalidValue(
      key: "tag.uid", message: "a Type 2 tag has a 7-byte UID, got 4 bytes")
  ) {
    try Simulator.run(shortUID)
  }
}

// MARK: Proxmark3 writers

@Test func proxmark3BinaryHasExpectedSizeAndFirstRecord() throws {
  let r = try Simulator.run(scenario(ntag215(), readActions))
  let data = Proxmark3TraceWriter.encode(r.frames)
  let expected = r.frames.filter { $0.direction != .event }
    .reduce(0) { $0 + 8 + $1.data.count + ($1.data.count - 1) / 8 + 1 }
  #expect(data.count == expected)
  // WUPA at 73 772 ticks (field-on guard 69 156 + reader gap 4 616), 992 ticks, 1 byte, 52,
  // parity byte 0 (0x52 has an odd number of ones).
  #expect(Array(data.prefix(10)) == [0x2C, 0x20, 0x01, 0x00, 0xE0, 0x03, 0x01, 0x00, 0x52, 0x00])
  #expect(r.frames[1].sourceTime?.value == 73_772)
  // ATQA record: tag bit set in the length field.
  #expect(Array(data[10..<18].suffix(2)) == [0x02, 0x80])
  let path = NSTemporaryDirectory() + "nfctrace-sim-\(UInt32.random(in: 0...UInt32.max)).trace"
  try Proxmark3TraceWriter.write(r.frames, to: path)
  defer { try? FileManager.default.removeItem(atPath: path) }
  var importer = try Proxmark3BinaryImporter(input: try TraceInput(path: path))
  var back: [Frame] = []
  while let f = try importer.next() { back.append(f) }
  let sent = r.frames.filter { $0.direction != .event }
  #expect(back.map(\.data) == sent.map(\.data))
  #expect(back.map(\.bits) == sent.map(\.bits))
  #expect(back.map(\.direction) == sent.map(\.direction))
  #expect(back.map { $0.sourceTime?.value } == sent.map { $0.sourceTime?.value })
}

@Test func proxmark3BinaryRoundTripsARealTrace() throws {
  let path = TestPaths.shared("public/proxmark3/hf_14a_mfu.trace")
  let original = try Data(contentsOf: URL(fileURLWithPath: path))
  var importer = try Proxmark3BinaryImporter(input: try TraceInput(path: path))
  var imported: [Frame] = []
  while let f = try importer.next() { imported.append(f) }
  #expect(Proxmark3TraceWriter.encode(imported) == original)
}

@Test func proxmark3TextMatchesTheClientListing() throws {
  for name in ["hf_14a_mfu", "hf_14a_reader_7b_rats"] {
    var importer = try Proxmark3BinaryImporter(
      input: try TraceInput(path: TestPaths.shared("public/proxmark3/\(name).trace")))
    var imported: [Frame] = []
    while let f = try importer.next() { imported.append(f) }
    let writer = Proxmark3TextWriter(commandEcho: "[offline|script] pm3 --> trace list -1 -t 14a")
    let expected = try String(
      contentsOfFile: TestPaths.shared("derived/proxmark3-text/\(name).list_14a.txt"),
      encoding: .utf8)
    #expect(writer.text(for: imported) == expected, "\(name)")
  }
}

@Test func proxmark3TextMarksShortFramesAndCRC() throws {
  let r = try Simulator.run(scenario(ntag215(), [.connect, .writeNDEF(message: uriExampleCom)]))
  let text = Proxmark3TextWriter(includePreamble: false).text(for: r.frames)
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
  #expect(lines[2].hasSuffix("|52(7)" + String(repeating: " ", count: 67) + " |     | WUPA"))
  #expect(lines.contains { $0.contains("|0A(4)  ") })
  #expect(lines.contains { $0.hasSuffix("|  ok | WRITEBLOCK(4)") })
}

@Test func removeAfterFrameAndWriteLock() throws {
  // Frame 13 is the READ 3 command of queryNDEFStatus: it and its retry stay unanswered.
  let removed = try Simulator.run(
    scenario(ntag215(), readActions, faults: [.removeAfterFrame(frame: 13)]))
  #expect(removed.frames[13].data.prefix(2) == [0x30, 0x03])
  #expect(removed.frames[14].data == removed.frames[13].data)
  #expect(removed.frames[15].event == .fieldOff)
  #expect(op(removed, "queryNDEFStatus")?.outcome == .interrupted)
  #expect(op(removed, "readNDEF")?.error?.code == 104)

  let locked = try Simulator.run(
    scenario(ntag215(), [.connect, .writeLock, .writeNDEF(message: [])]))
  // iOS never read page 2: bytes 0–1 go out as 00 (the tag keeps its BCC1 and internal byte).
  let writes = locked.frames.filter { $0.direction == .reader && $0.data.first == 0xA2 }
    .map { Array($0.data[1..<6]) }
  #expect(
    writes == [
      [3, 0xE1, 0x10, 0x3E, 0x0F], [2, 0x00, 0x00, 0xFF, 0xFF], [0x82, 0xFF, 0xFF, 0xFF, 0x00],
    ])
  #expect(
    Array(locked.truth.finalMemory[8..<16]) == [
      0xC3 ^ 0xD4 ^ 0xE5 ^ 0xF6, 0x48, 0xFF, 0xFF, 0xE1, 0x10, 0x3E, 0x0F,
    ])
  #expect(op(locked, "writeNDEF")?.error?.code == 400)
}

/// FeliCa rows check CRC-F (the client's `felica_CRC_check`), not CRC_A, and carry no type A
/// annotation: a SENSF_REQ `06 …` was marked `!!`, and a LEN of 30h would read READBLOCK.
@Test func proxmark3TextChecksCRCFOfFeliCaFrames() throws {
  var importer = try NFCLabImporter(
    input: try TraceInput(path: TestPaths.traces("felica/t3t-write-ok.json")))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  var damaged = frames[0]
  damaged.data[damaged.data.count - 1] ^= 0xFF
  let rows = Proxmark3TextWriter(includePreamble: false).text(for: [frames[0], frames[1], damaged])
    .split(separator: "\n").dropFirst(2)
  #expect(rows.count == 4)  // the 22-byte SENSF_RES takes two lines
  #expect(rows.map { $0.hasSuffix("|  ok | ") } == [true, false, true, false])
  #expect(rows.last?.hasSuffix("|  !! | ") == true)
}

/// A listing of FeliCa frames only names the protocol as the client's `trace list -t felica`
/// does ("ISO18092 / FeliCa"); it said "ISO14443A".
@Test func proxmark3TextPreambleNamesFeliCa() throws {
  var importer = try NFCLabImporter(
    input: try TraceInput(path: TestPaths.traces("felica/t3t-write-ok.json")))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  let lines = Proxmark3TextWriter().text(for: frames).split(separator: "\n")
  #expect(lines[2] == "[=] ISO18092 / FeliCa - all times are in carrier periods (1/13.56MHz)")
  var mixed = frames[0]
  mixed.technology = .nfcA
  let mixedLines = Proxmark3TextWriter().text(for: [mixed, frames[1]]).split(separator: "\n")
  #expect(mixedLines[2] == "[=] ISO14443A - all times are in carrier periods (1/13.56MHz)")
}
