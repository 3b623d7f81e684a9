import Foundation
import NFCTrace
import TestSupport
import Testing

private func importAll(_ input: TraceInput) throws -> ([Frame], [TraceWarning]) {
  var importer = try NFCLabImporter(input: input)
  var frames: [Frame] = []
  while let frame = try importer.next() { frames.append(frame) }
  return (frames, importer.warnings)
}

private func lab(_ name: String) throws -> TraceInput {
  try TraceInput(path: TestPaths.shared("public/nfc-laboratory/\(name).json"))
}

/// Frame counts per ../shared/traces/public/SOURCES.md, reader/tag split and techs counted
/// from the files.
private let expectations: [(String, Int, Int, Int, Set<Technology>)] = [
  ("test_NFC-A_106kbps_001", 10, 5, 5, [.nfcA]),
  ("test_NFC-A_106kbps_002", 10, 5, 5, [.nfcA]),
  ("test_NFC-A_106kbps_003", 17, 10, 7, [.nfcA]),
  ("test_NFC-A_106kbps_004", 8, 4, 4, [.nfcA]),
  ("test_NFC-A_106kbps_212kbps_001", 25, 13, 12, [.nfcA]),
  ("test_NFC-A_106kbps_424kbps_001", 16, 8, 8, [.nfcA]),
  ("test_NFC-A_212kbps_001", 8, 4, 4, [.nfcA]),
  ("test_NFC-A_424kbps_001", 6, 3, 3, [.nfcA]),
  ("test_NFC-A_424kbps_002", 66, 33, 33, [.nfcA]),
  ("test_NFC-B_106kbps_001", 5, 3, 2, [.nfcB]),
  ("test_NFC-B_106kbps_002", 8, 5, 3, [.nfcB]),
  ("test_NFC-F_212kbps_001", 7, 4, 3, [.nfcF, .nfcV]),
  ("test_NFC-F_212kbps_002", 18, 9, 9, [.nfcF]),
  ("test_NFC-F_212kbps_003", 60, 30, 30, [.nfcF]),
  ("test_NFC-F_212kbps_004", 2, 1, 1, [.nfcF]),
  ("test_NFC-V_26kbps_001", 12, 6, 6, [.nfcV]),
  ("test_NFC-V_26kbps_002", 8, 4, 4, [.nfcV]),
  ("test_POLL_ABF_001", 10, 10, 0, [.nfcA, .nfcB, .nfcF]),
  ("test_POLL_AB_001", 4, 4, 0, [.nfcA, .nfcB]),
]

@Test(arguments: expectations)
func nfcLabFileImportsWithExactCounts(
  _ name: String, _ count: Int, _ readers: Int, _ tags: Int, _ techs: Set<Technology>
) throws {
  let input = try lab(name)
  #expect(NFCLabImporter.format.sniff(input.head(), input.path) == 95)
  let (frames, warnings) = try importAll(input)
  #expect(frames.count == count)
  #expect(frames.filter { $0.direction == .reader }.count == readers)
  #expect(frames.filter { $0.direction == .tag }.count == tags)
  #expect(Set(frames.map(\.technology)) == techs)
  #expect(frames.map(\.index) == Array(0..<count))
  #expect(frames.first?.timeNs == 0)
  #expect(warnings.isEmpty)
  #expect(frames.allSatisfy { $0.location.unit == "frame" && $0.sourceTime?.unit == .nanoseconds })
}

@Test func nfcLabMifareClassicWUPAAndEncryptedFrames() throws {
  let (frames, _) = try importAll(try lab("test_NFC-A_106kbps_001"))
  try #require(frames.count == 10)
  let wupa = frames[0]
  #expect(wupa.data == [0x52])
  #expect(wupa.bits == 7)
  #expect(wupa.isShortFrame)
  #expect(wupa.direction == .reader)
  #expect(wupa.sourceTime == SourceTime(1_080_600, .nanoseconds))
  #expect(wupa.durationNs == 76_000)
  #expect(wupa.location.record == 1)
  #expect(wupa.location.offset == 20)  // the first `{` inside "frames": [
  #expect(frames[1].data == [0x04, 0x00])
  #expect(frames[1].direction == .tag)
  #expect(frames[1].bits == nil)
  #expect(frames[1].timeNs == 166_200)
  #expect(frames[2].data == [0x93, 0x70, 0x46, 0x30, 0xAC, 0xC9, 0x13, 0x08, 0xFA])
  #expect(frames[4].data == [0x60, 0x08, 0xBD, 0xF7])
  #expect(frames[4].crc == .unchecked)
  #expect(frames[4].sourceFlags.isEmpty)
  // Frames 6–10 carry frameFlags 2 (Encrypted): Crypto1 ciphertext after AUTH.
  for frame in frames[5...] {
    #expect(frame.sourceFlags == ["encrypted"])
    #expect(frame.crc == .encrypted)
  }
  #expect(frames[9].timeNs == 7_859_300)
  #expect(frames[9].data.count == 18)
}

/// Turns a frame.json into the `-j` JSON-lines stream nfc-lab prints (snake_case keys, a
/// `flags` array without the short-frame bit, lower-case colon hex), with carrier events and
/// a status line around it.
private func jsonLines(from name: String) throws -> Data {
  let document = try Data(contentsOf: URL(fileURLWithPath: try lab(name).path))
  let root = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
  let frames = try #require(root["frames"] as? [[String: Any]])
  var lines: [String] = [
    #"{"date_time":0,"frame_type":256,"sample_end":0,"sample_rate":10000000,"sample_start":0,"tech":"UNKNOWN","tech_type":256,"time_end":0,"time_start":0,"timestamp":0,"type":"CarrierOff"}"#,
    #"{"date_time":0.0000038,"frame_type":257,"tech":"UNKNOWN","tech_type":256,"time_end":3.8e-06,"time_start":3.8e-06,"type":"CarrierOn"}"#,
  ]
  for frame in frames {
    let mask = frame["frameFlags"] as? Int ?? 0
    var flags: [String] = []
    if mask & 0x02 != 0 { flags.append("encrypted") }
    flags.append(frame["frameType"] as? Int == 258 ? "request" : "response")
    let object: [String: Any] = [
      "data": (frame["frameData"] as? String ?? "").lowercased(),
      "frame_type": frame["frameType"] ?? 0, "tech_type": frame["techType"] ?? 0,
      "time_start": frame["timeStart"] ?? 0, "time_end": frame["timeEnd"] ?? 0,
      "flags": flags,
    ]
    let line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    lines.append(String(decoding: line, as: UTF8.self))
  }
  lines.append("Finish capture, time limit reached!")
  return Data((lines.joined(separator: "\n") + "\n").utf8)
}

@Test func nfcLabJSONLinesStream() throws {
  let input = TraceInput(
    path: "capture.jsonl", bytes: try jsonLines(from: "test_NFC-A_106kbps_001"))
  #expect(NFCLabImporter.format.sniff(input.head(), input.path) == 90)
  let (frames, warnings) = try importAll(input)
  try #require(frames.count == 12)
  #expect(frames[0].direction == .event)
  #expect(frames[0].event == .fieldOff)
  #expect(frames[0].data.isEmpty)
  #expect(frames[1].event == .fieldOn)
  #expect(frames[1].timeNs == 3_800)
  #expect(frames[2].data == [0x52])
  #expect(frames[2].bits == 7)  // inferred: -j has no short-frame flag
  #expect(frames[2].sourceFlags == ["short-frame-inferred"])
  #expect(frames[2].timeNs == 1_080_600)
  #expect(frames[2].location.unit == "line")
  #expect(frames[2].location.record == 3)
  #expect(frames[3].data == [0x04, 0x00])
  #expect(frames[3].bits == nil)
  #expect(frames[11].sourceFlags == ["encrypted"])
  #expect(frames[11].crc == .encrypted)
  #expect(frames.filter { $0.direction == .reader }.count == 5)
  #expect(warnings.count == 1)
  #expect(warnings.first?.location?.record == 13)
}

private func expectFailure(
  _ json: String, kind: TraceError.Kind, framesBefore: Int, messageContains: String,
  record: Int? = nil
) {
  let input = TraceInput(path: "bad.json", bytes: Data(json.utf8))
  var frames = 0
  do {
    var importer = try NFCLabImporter(input: input)
    while try importer.next() != nil { frames += 1 }
    Issue.record("expected a TraceError")
  } catch let error as TraceError {
    #expect(error.kind == kind)
    #expect(error.message.contains(messageContains), "\(error.message)")
    if let record { #expect(error.location.record == record) }
    #expect(error.location.file == "bad.json")
  } catch {
    Issue.record("unexpected error \(error)")
  }
  #expect(frames == framesBefore)
}

private let goodFrame =
  #"{"frameData":"26","frameFlags":1,"frameType":258,"techType":257,"timeStart":0.5}"#

@Test func nfcLabWrongShapesNameTheFrame() {
  expectFailure("[1, 2]", kind: .malformed, framesBefore: 0, messageContains: "top level")
  expectFailure(
    #"{"frames": {"a": 1}}"#, kind: .malformed, framesBefore: 0,
    messageContains: "not an array")
  expectFailure(
    #"{"other": 1}"#, kind: .malformed, framesBefore: 0, messageContains: "no \"frames\"")
  expectFailure(
    #"{"frames": [\#(goodFrame), \#(goodFrame), {"frameType":259,"techType":257,"timeStart":0.6}]}"#,
    kind: .malformed, framesBefore: 2,
    messageContains: "poll/listen frame without frameData",
    record: 3)
  expectFailure(
    #"{"frames": [\#(goodFrame), 42]}"#, kind: .malformed, framesBefore: 1,
    messageContains: "expected a JSON object {…}", record: 2)
  expectFailure(
    #"{"frames": [\#(goodFrame), {"frameData":"zz","frameType":258,"timeStart":1}]}"#,
    kind: .malformed, framesBefore: 1, messageContains: "not hex", record: 2)
  expectFailure(
    #"{"frames": [\#(goodFrame), {"frameData":"26","frameType":258,"#, kind: .truncated,
    framesBefore: 1, messageContains: "inside frame 2", record: 2)
  expectFailure(
    #"{"frames": [\#(goodFrame)"#, kind: .truncated, framesBefore: 1,
    messageContains: "after 1 frames")
}

@Test func nfcLabFrameByteOffsetIsReported() throws {
  let json = #"{"frames": [\#(goodFrame),  \#(goodFrame)]}"#
  let (frames, _) = try importAll(TraceInput(path: "x.json", bytes: Data(json.utf8)))
  try #require(frames.count == 2)
  #expect(frames[0].location.offset == 12)
  #expect(frames[1].location.offset == 12 + goodFrame.utf8.count + 3)
  #expect(frames[1].timeNs == 0)
  #expect(
    frames[1].location.description == "x.json: frame 2, byte offset \(15 + goodFrame.utf8.count)")
}

@Test func nfcLabSniffRejectsOtherJSON() throws {
  let pm3 = try TraceInput(path: TestPaths.shared("public/proxmark3/ntag216-empty.json"))
  #expect(NFCLabImporter.format.sniff(pm3.head(), pm3.path) == 0)
  #expect(NFCLabImporter.format.sniff(Array("hello".utf8), "a.txt") == 0)
}

/// NFC-Laboratory flags a 4-bit listen frame (ACK/NAK) as short, like a 7-bit poll frame
/// (nfc-laboratory `NfcA.cpp`): the tag's `0A` is a 4-bit ACK, not a 7-bit frame, so a WRITE
/// answered by it is acknowledged.
@Test func nfcLabShortListenFrameIsFourBits() throws {
  let ack = #"{"frameData":"0A","frameFlags":1,"frameType":259,"techType":257,"timeStart":0.6}"#
  let json = #"{"frames": [\#(goodFrame), \#(ack)]}"#
  let (frames, _) = try importAll(TraceInput(path: "x.json", bytes: Data(json.utf8)))
  #expect(frames.map(\.bits) == [7, 4])
  #expect(frames.map(\.direction) == [.reader, .tag])
}

/// NFC-Laboratory 1.x exports: `frameCmd` (or `frameType`) 2 poll / 3 listen, `techType` 1 or
/// none for NFC-A, and its own flag bits (0x40 CRC error, 0x08 encrypted).
@Test func nfcLabVersionOneExports() throws {
  let json = #"""
    {"frames": [
      {"timeStart": 0.001, "frameCmd": 2, "frameFlags": 1, "frameData": "52"},
      {"timeStart": 0.002, "frameCmd": 3, "frameFlags": 0, "frameData": "44:00"},
      {"timeStart": 0.003, "frameType": 2, "techType": 1, "frameFlags": 64, "frameData": "30:04:26:EE"},
      {"timeStart": 0.004, "frameType": 3, "techType": 2, "frameFlags": 8, "frameData": "00"}
    ]}
    """#
  let (frames, warnings) = try importAll(TraceInput(path: "v1.json", bytes: Data(json.utf8)))
  #expect(warnings.isEmpty)
  #expect(frames.map(\.direction) == [.reader, .tag, .reader, .tag])
  #expect(frames.map(\.bits) == [7, nil, nil, nil])
  #expect(frames.map(\.technology) == [.nfcA, .nfcA, .nfcA, .nfcB])
  #expect(frames[2].sourceFlags == ["crc-error"])
  #expect(frames[3].sourceFlags == ["encrypted"])
  #expect(frames[1].timeNs == 1_000_000)
}

/// A one-line `frame.json` longer than 64 KiB is read as the document it is, frame by frame
/// (it was parsed whole to test for JSON lines, holding every frame as an object at once).
@Test func nfcLabOneLineDocumentPastTheLineLimit() throws {
  let frame = #"{"frameData":"26","frameFlags":1,"frameType":258,"techType":257,"timeStart":0.5}"#
  let json = #"{"frames": ["# + Array(repeating: frame, count: 1000).joined(separator: ",") + "]}"
  #expect(json.utf8.count > 65_536)
  let (frames, _) = try importAll(TraceInput(path: "one.json", bytes: Data(json.utf8)))
  #expect(frames.count == 1000)
}

/// What follows the `frames` array — a second `frames` key, a second export joined after the
/// first — is not read, and a warning says so with its offset.
@Test func nfcLabContentAfterTheFramesIsWarned() throws {
  let twice = #"{"frames": [\#(goodFrame)], "frames": [\#(goodFrame)]}"#
  let (f1, w1) = try importAll(TraceInput(path: "t.json", bytes: Data(twice.utf8)))
  #expect(f1.count == 1)
  #expect(w1.map(\.message) == [#"a second "frames" array in the export is not read"#])
  let first = #"{"frames": [\#(goodFrame)], "other": 1}"#
  let joined = first + "\n" + #"{"frames": []}"#
  let (f2, w2) = try importAll(TraceInput(path: "j.json", bytes: Data(joined.utf8)))
  #expect(f2.count == 1)
  #expect(w2.first?.message.hasPrefix("bytes after the export's top-level object") == true)
  #expect(w2.first?.location?.offset == first.utf8.count + 1)
}

/// The `nfc-lab -j` stream in the shape NFC-Laboratory's py_nfclab documents (`tech`, `type`,
/// `data`, `timestamp`, `time_start`) was not recognised without `--input-format` (importer
/// realism pass): it is, and it reads the same frames.
@Test func nfcLabJSONLinesWithShortKeysAreRecognised() throws {
  let text = """
    {"timestamp": 1e-05, "tech": "NfcA", "type": "CarrierOn", "length": 0, "data": "", "time_start": 1e-05, "time_end": 1e-05, "flags": []}
    {"timestamp": 5e-05, "tech": "NfcA", "type": "Poll", "length": 1, "data": "26", "time_start": 5e-05, "time_end": 0.000127, "flags": ["short-frame", "request"], "rate": 105938}
    {"timestamp": 0.000214, "tech": "NfcA", "type": "Listen", "length": 2, "data": "4400", "time_start": 0.000214, "time_end": 0.000388, "flags": ["response"], "rate": 105938}

    """
  let input = TraceInput(path: "live.jsonl", bytes: Data(text.utf8))
  #expect(NFCLabImporter.format.sniff(input.head(), input.path) == 85)
  let (frames, _) = try importAll(input)
  #expect(frames.map(\.direction) == [.event, .reader, .tag])
  #expect(frames[1].data == [0x26] && frames[1].bits == 7)
  #expect(frames[2].data == [0x44, 0x00])
}

/// A `-j` line with only `timestamp` (py_nfclab's other time key) was recognised, then refused
/// with "expected timeStart" (attacker pass, finding 4).
@Test func nfcLabJSONLinesWithOnlyTimestamp() throws {
  let text = """
    {"tech": "NfcA", "type": "Poll", "data": "26", "timestamp": 1.0, "flags": ["short-frame"]}
    {"tech": "NfcA", "type": "Listen", "data": "4400", "timestamp": 1.0002}

    """
  let (frames, _) = try importAll(TraceInput(path: "ts.jsonl", bytes: Data(text.utf8)))
  #expect(frames.map(\.data) == [[0x26], [0x44, 0x00]])
  #expect(frames[1].timeNs == 200_000)
}

/// A `techType` no NFC-Laboratory version defines is warned once per code, with the record's
/// place, and its frames still come through for the decoder to place by their bytes.
@Test func nfcLabUnknownTechTypeIsWarnedOnce() throws {
  let frame = { (t: Double) in
    #"{"frameData":"06:00:12:FC:01:00:DE:2C","frameFlags":0,"frameType":258,"techType":265,"timeStart":\#(t)}"#
  }
  let json = #"{"frames": [\#(frame(0.1)), \#(frame(0.2))]}"#
  let (frames, warnings) = try importAll(TraceInput(path: "odd.json", bytes: Data(json.utf8)))
  #expect(frames.count == 2)
  #expect(frames.map(\.technology) == [.unknown, .unknown])
  #expect(warnings.count == 1)
  #expect(
    warnings.first?.message.hasPrefix("techType 0x109 is not NFC-A, NFC-B, NFC-F or NFC-V") == true)
  #expect(warnings.first?.location?.record == 1)
}

/// NFC-Laboratory flags the tag nonce nt of a first authentication encrypted; it is
/// plaintext (no CRC, no `enc` mark), and what follows it is ciphertext.
@Test func nfcLabFirstNonceIsPlaintext() throws {
  let (frames, _) = try importAll(try lab("test_NFC-A_106kbps_001"))
  #expect(frames[5].crc == .encrypted)  // as the source flags it
  let (decoded, _) = decodeAll(frames)
  #expect(decoded[5].innermost?.summary == "AUTH tag nonce nt 49b5187d")
  #expect(decoded[5].frame.crc == .absent)
  #expect(decoded[6].frame.crc == .encrypted)
  #expect(decoded[7].frame.crc == .encrypted)
}
