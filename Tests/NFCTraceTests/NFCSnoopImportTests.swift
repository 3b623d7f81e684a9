import Foundation
import NFCTrace
import NFCTraceAndroid
import TestSupport
import Testing

private func importSnoop(_ input: TraceInput) throws -> ([Frame], [TraceWarning]) {
  var importer = try NFCSnoopImporter(input: input)
  var frames: [Frame] = []
  while let frame = try importer.next() { frames.append(frame) }
  return (frames, importer.warnings)
}

private let dumpsys = "android/android-dumpsys-nfc.txt"

/// Android NFC snoop logs (Traces/android/, built by make_nfcsnoop.py): NCI packets of a phone
/// reading and writing an NTAG213, reading a Type 4 tag, and losing the NTAG mid-write.
@Suite struct NFCSnoopImportTests {
  @Test func framesFromTheNCIPackets() throws {
    let input = try TraceInput(path: TestPaths.traces(dumpsys))
    #expect(NFCSnoopImporter.format.sniff(input.head(), input.path) == 95)
    let (frames, warnings) = try importSnoop(input)
    try #require(frames.count == 47)
    // RF_INTF_ACTIVATED_NTF: SENS_RES 44 00 (air order), UID, SEL_RES 00.
    #expect(frames[0].data == [0x44, 0x00])
    #expect(frames[0].sourceFlags == [ReaderChipFlag.targetInfo, "uid=049c5e1a2b6180"])
    #expect(frames[1].data == [0x00])
    // READ 0 as the stack sent it; its answer without NCI's status octet.
    #expect(frames[2].data == [0x30, 0x00])
    #expect(frames[3].data.count == 16)
    #expect(frames[3].timeNs - frames[2].timeNs == 750_000)
    #expect(frames[2].sourceTime == SourceTime(1_700_000_000_230_600, .microseconds))
    // The 4-bit ACK: status 14 (4 valid bits).
    #expect(frames[7].data == [0x0A])
    #expect(frames[7].bits == 4)
    // ISO-DEP: ATS rebuilt with its TL; the 105-byte answer joined from 3 NCI segments.
    #expect(frames[21].data == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
    #expect(frames[33].data.count == 107)
    #expect(frames[33].sourceFlags == [ReaderChipFlag.isoDEPPayload])
    #expect(frames[18].event == .fieldOff)
    #expect(
      warnings.map(\.message) == [
        "CORE_INTERFACE_ERROR_NTF: status B2, RF timeout; the tag did not answer"
      ])
    #expect(warnings[0].location?.record == 74)
    #expect(warnings[0].location?.offset == 1210)
  }

  @Test func sessionsAsTheAppSawThem() throws {
    let importer = try NFCSnoopImporter(input: TraceInput(path: TestPaths.traces(dumpsys)))
    let sessions = try SessionAnalysisRun(importer: importer).sessions
    #expect(
      sessions.map { $0.operations.map(\.shortText) } == [
        ["connect ok", "queryNDEFStatus readWrite 142 B", "writeNDEF ok"],
        ["connect ok", "queryNDEFStatus readWrite 254 B", "readNDEF ok"],
        ["connect ok", "queryNDEFStatus readWrite 142 B", "writeNDEF interrupted"],
      ])
  }

  @Test func filteredLogSaysHowToCaptureTheData() throws {
    let input = try TraceInput(path: TestPaths.traces("android/android-dumpsys-nfc-filtered.txt"))
    let (frames, warnings) = try importSnoop(input)
    #expect(frames.map(\.data) == [[0x44, 0x00], [0x00], []])
    #expect(warnings.count == 1)
    #expect(
      warnings.first?.message.hasPrefix("data packets are logged without their payload") == true)
  }

  @Test(arguments: [
    ("mState=on\n", TraceError.Kind.unsupported, "no NFC snoop log"),
    (
      "--- BEGIN:NFCSNOOP_LOG_SUMMARY (9 bytes in) ---\nAgAAAAAAAAAAeJwDAAAAAAE=\n--- END:NFCSNOOP_LOG_SUMMARY ---\n",
      .malformed, "snoop log version 2 is not supported (expected 1)"
    ),
    (
      "--- BEGIN:NFCSNOOP_LOG_SUMMARY (9 bytes in) ---\nAQAAAAAAAAAAeJxLTEpO\n--- END:NFCSNOOP_LOG_SUMMARY ---\n",
      .malformed,
      "the snoop log's compressed data cannot be read past 3 decompressed bytes: the "
        + "compressed stream is cut short"
    ),
  ])
  func badInputIsAnErrorThatSaysWhy(text: String, kind: TraceError.Kind, message: String) {
    let input = TraceInput(path: "bad.txt", bytes: Data(text.utf8))
    let error = #expect(throws: TraceError.self) { try importSnoop(input) }
    #expect(error?.kind == kind)
    #expect(error?.message.hasPrefix(message) == true)
    #expect(error?.location.file == "bad.txt")
  }
}

/// A byte that is not base64 in the middle of the section: the frames of the packets before it
/// are shown, then the error names the line and byte.
@Test func snoopLogDamagedMidSectionKeepsTheFramesBeforeIt() throws {
  var text = try String(contentsOfFile: TestPaths.traces(dumpsys), encoding: .utf8)
  var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  lines[6] = String(lines[6].prefix(60)) + "#" + String(lines[6].dropFirst(61))
  text = lines.joined(separator: "\n")
  var importer = try NFCSnoopImporter(input: TraceInput(path: "cut.txt", bytes: Data(text.utf8)))
  var frames: [Frame] = []
  let error = #expect(throws: TraceError.self) {
    while let frame = try importer.next() { frames.append(frame) }
  }
  #expect(frames.count == 19)  // the first session, whole
  #expect(frames.allSatisfy { $0.sourceTime == nil })
  #expect(error?.kind == .malformed)
  #expect(error?.location.unit == "line")
  #expect(error?.location.record == 7)
  #expect(error?.location.offset == 431)
  #expect(error?.message.hasPrefix("byte 23 is not base64") == true)
}

/// NCI packets one by one.
@Suite struct NCIInterpreterTests {
  private func activatedT2T() -> NCIInterpreter {
    var nci = NCIInterpreter()
    let tech: [UInt8] = [0x44, 0x00, 0x04, 1, 2, 3, 4, 0x01, 0x00]
    _ = nci.packet(
      [0x61, 0x05, UInt8(11 + tech.count), 0x01, 0x01, 0x02, 0x00, 0xFF, 0x01, UInt8(tech.count)]
        + tech + [0, 0, 0, 0], received: true)
    return nci
  }

  /// What used to vanish without a word: a reserved message type, a header length that
  /// disagrees with the packet, a Frame-interface answer without its status octet, segments
  /// whose last one never comes (attack pass).
  @Test func oddPacketsAreWarned() {
    var nci = activatedT2T()
    #expect(
      nci.packet([0x80, 0x00, 0x01, 0x00], received: true).warnings == [
        "NCI packet of reserved message type 4 (NCI 2.0 §3.4); ignored"
      ])
    #expect(
      nci.packet([0x00, 0x00, 0x05, 0x30, 0x04], received: false).warnings == [
        "NCI packet header announces 5 payload bytes, 2 were logged; using those logged"
      ])
    #expect(
      nci.packet([0x00, 0x00, 0x00], received: true).warnings == [
        "data message on the Frame RF interface without its status octet; ignored"
      ])
    let empty = nci.packet([0x00, 0x00, 0x01, 0x00], received: true)
    #expect(empty.frames.count == 1)  // status 00 alone: an empty answer (reader-chip ACK)
    var frameless = activatedT2T()
    _ = frameless.packet([0x10, 0x00, 0x02, 0x30, 0x04], received: false)  // PBF 1
    #expect(
      frameless.finish().warnings == [
        "the log ends inside a segmented reader data message (2 bytes without its last "
          + "segment, PBF 0); not shown"
      ])
    _ = frameless.packet([0x10, 0x00, 0x01, 0x30], received: true)
    #expect(
      frameless.packet([0x61, 0x06, 0x02, 0x00, 0x00], received: true).warnings == [
        "the tag was deactivated inside a segmented tag data message (1 bytes without its last "
          + "segment, PBF 0); not shown"
      ])
  }

  /// Status 02 (RF frame corrupted): the tag answered and the controller got the frame
  /// damaged: a tag frame with a bad CRC and `reader-damaged-answer`, its bytes kept.
  @Test func corruptedAnswerIsADamagedFrame() {
    var nci = activatedT2T()
    #expect(nci.packet([0x00, 0x00, 0x02, 0x30, 0x04], received: false).frames.count == 1)
    let out = nci.packet([0x00, 0x00, 0x03, 0x0A, 0x0B, 0x02], received: true)
    #expect(out.frames.map(\.data) == [[0x0A, 0x0B]])
    #expect(out.frames.first?.crc == .bad)
    #expect(out.frames.first?.flags == [ReaderChipFlag.damagedAnswer])
    #expect(out.warnings == ["the tag's answer arrived damaged: status 02, RF frame corrupted"])
    // Another status (B2, RF timeout) is still no answer.
    let timeout = nci.packet([0x00, 0x00, 0x01, 0xB2], received: true)
    #expect(timeout.frames.isEmpty)
    #expect(timeout.warnings == ["the tag's answer did not arrive: status B2, RF timeout"])
  }

  @Test func nci1AckWithStatusOK() {
    var nci = activatedT2T()
    let out = nci.packet([0x00, 0x00, 0x02, 0x0A, 0x00], received: true)
    #expect(out.frames.map(\.data) == [[0x0A]])
    #expect(out.frames.first?.bits == nil)
  }

  /// ISO-DEP in NFC-A poll mode: Activation Parameters Length, RATS Response Length, the ATS
  /// without TL (NCI §7.3.1); the ATS frame gets its TL back.
  @Test func isoDEPActivationParameters() {
    var nci = NCIInterpreter()
    let tech: [UInt8] = [0x44, 0x03, 0x04, 1, 2, 3, 4, 0x01, 0x20]
    let act: [UInt8] = [0x06, 0x05, 0x75, 0x77, 0x81, 0x02, 0x80]
    let out = nci.packet(
      [
        0x61, 0x05, UInt8(10 + tech.count + act.count), 0x01, 0x02, 0x04, 0x00, 0xFF, 0x01,
        UInt8(tech.count),
      ] + tech + [0x00, 0x00, 0x00] + act, received: true)
    #expect(
      out.frames.map(\.data) == [[0x44, 0x03], [0x20], [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]])
    #expect(out.warnings.isEmpty)
    // NFC-B poll: SENSB_RES without its 50; the ATQB frame gets it back, the PUPI is the UID.
    let sensb: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, 0x00, 0x81, 0x71]
    let b = nci.packet(
      [
        0x61, 0x05, UInt8(11 + 1 + sensb.count), 0x01, 0x02, 0x04, 0x01, 0xFF, 0x01,
        UInt8(sensb.count + 1), UInt8(sensb.count),
      ] + sensb + [0x01, 0, 0, 0], received: true)
    #expect(b.frames.map(\.data) == [[0x50] + sensb])
    #expect(b.frames.first?.technology == .nfcB)
    let (decoded, decoder) = decodeAll([
      Frame(
        index: 0, timeNs: 0, direction: .tag, data: [0x50] + sensb, crc: .notCaptured,
        technology: .nfcB, sourceFlags: [ReaderChipFlag.targetInfo],
        location: SourceLocation(file: "t", unit: "NCI packet", record: 1, offset: 0))
    ])
    #expect(decoded[0].layers.last?.name == "ATQB")
    #expect(decoded[0].completedUID == [0x11, 0x22, 0x33, 0x44])
    #expect(decoder.context.technology == .nfcB)
    let f = nci.packet(
      [0x61, 0x05, 0x0A, 0x01, 0x01, 0x03, 0x02, 0xFF, 0x01, 0x00, 0, 0, 0], received: true)
    #expect(
      f.warnings == [
        "NFC-F activation parameters: bit rate, then a SENSF_RES of 16 or 18 bytes expected "
          + "(NCI §7.3.1)"
      ])
    // NFC-F poll: bit rate, SENSF_RES length 18, IDm PMm system code → the card's SENSF_RES.
    let sensf: [UInt8] =
      [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA, 0x00, 0xF1, 0, 0, 0, 0x01, 0x43, 0x00]
      + [0x12, 0xFC]
    let params: [UInt8] = [0x01, UInt8(sensf.count)] + sensf
    let header: [UInt8] = [
      0x61, 0x05, UInt8(10 + params.count), 0x01, 0x01, 0x03, 0x02, 0xFF, 0x01,
      UInt8(params.count),
    ]
    let felica = nci.packet(header + params + [0, 0, 0], received: true)
    #expect(felica.warnings.isEmpty)
    #expect(felica.frames.map(\.data) == [[0x14, 0x01] + sensf])
    #expect(felica.frames.first?.technology == .nfcF)
    // Listen mode: the phone is the card; what follows is not shown as tag traffic.
    let listen = nci.packet(
      [0x61, 0x05, 0x0A, 0x01, 0x02, 0x04, 0x80, 0xFF, 0x01, 0x00, 0, 0, 0], received: true)
    #expect(listen.warnings.first?.hasPrefix("activated in listen mode") == true)
    #expect(nci.packet([0x00, 0x00, 0x02, 0x00, 0xA4], received: true).frames.isEmpty)
  }

  @Test func shortPacketsAndDataBeforeActivation() {
    var nci = NCIInterpreter()
    #expect(nci.packet([0x00, 0x00], received: true).warnings.count == 1)
    #expect(
      nci.packet([0x00, 0x00, 0x02, 0x30, 0x04], received: false).warnings == [
        "data sent before any tag was activated; ignored"
      ])
    // An activation notification cut short is reported, not read past its end.
    #expect(
      nci.packet([0x61, 0x05, 0x08, 0x01, 0x01, 0x02, 0x00, 0xFF, 0x01, 0x20], received: true)
        .warnings == [
          "NCI packet header announces 8 payload bytes, 7 were logged; using those logged",
          "RF_INTF_ACTIVATED_NTF shorter than its fields",
        ])
  }
}

/// The dumpsys fixture with `edit` applied to its lines, imported until it ends or fails.
private func importEdited(_ edit: (inout [String]) -> Void) throws -> (
  frames: [Frame], warnings: [TraceWarning], error: TraceError?
) {
  let text = try String(contentsOfFile: TestPaths.traces(dumpsys), encoding: .utf8)
  var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  edit(&lines)
  var importer = try NFCSnoopImporter(
    input: TraceInput(path: "edited.txt", bytes: Data(lines.joined(separator: "\n").utf8)))
  var frames: [Frame] = []
  var error: TraceError?
  do {
    while let frame = try importer.next() { frames.append(frame) }
  } catch let e as TraceError { error = e }
  return (frames, importer.warnings, error)
}

@Suite struct SnoopLogDamageTests {
  /// A log cut in the middle of a base64 line (not a whole number of 4-character groups) still
  /// decodes up to the cut; it used to decode to nothing, with a false "section is empty".
  @Test func cutMidLineKeepsTheFramesBeforeTheCut() throws {
    let whole = try importEdited { _ in }
    let cut = try importEdited { lines in
      let end = lines.firstIndex { $0.hasPrefix("--- END:NFCSNOOP_LOG_SUMMARY") } ?? lines.count
      lines[6] = String(lines[6].prefix(61))
      lines.removeSubrange(7..<end)
    }
    #expect(cut.frames.count >= 19)
    #expect(cut.frames.count < whole.frames.count)
    #expect(!cut.warnings.contains { $0.message.contains("is empty") })
    #expect(cut.error?.message.hasSuffix("the compressed stream is cut short") == true)
    // The damage is named where the stream broke, not at the section's first line.
    #expect((cut.error?.location.record ?? 0) == 7)
  }

  /// Base64 going on after its `=` padding is damage at that byte; what came before decodes.
  @Test func dataAfterPaddingIsDamageWhereItStarts() throws {
    let r = try importEdited { lines in
      lines[6] = String(lines[6].prefix(60)) + "=" + String(lines[6].dropFirst(61))
    }
    #expect(r.frames.count >= 19)
    #expect(r.error?.location.record == 7)
    #expect(r.error?.location.offset == 432)
    #expect(
      r.error?.message
        == "base64 continues after its padding '=': the text between the BEGIN and END lines "
        + "must be one base64 block")
  }

  /// The decoded binary (a section's base64 decoded, as the README lists it) is recognised by
  /// content, not only with --input-format.
  @Test func decodedBinaryIsDetected() throws {
    let text = try String(contentsOfFile: TestPaths.traces(dumpsys), encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init)
    let begin = try #require(lines.firstIndex { $0.hasPrefix("--- BEGIN:NFCSNOOP_LOG_SUMMARY") })
    let end = try #require(lines.firstIndex { $0.hasPrefix("--- END:NFCSNOOP_LOG_SUMMARY") })
    let binary = try #require(Data(base64Encoded: lines[(begin + 1)..<end].joined()))
    #expect(NFCSnoopImporter.format.sniff(Array(binary.prefix(64)), "log.bin") == 50)
    var importer = try NFCSnoopImporter(input: TraceInput(path: "log.bin", bytes: binary))
    var count = 0
    while try importer.next() != nil { count += 1 }
    #expect(count > 19)
  }
}

/// Findings of the importer review of 2026-12-06 (third session).
@Suite struct NCIReviewTests {
  private static let tech: [UInt8] = [0x44, 0x00, 0x04, 1, 2, 3, 4, 0x01, 0x00]
  private static let activation: [UInt8] =
    [0x01, 0x01, 0x02, 0x00, 0xFF, 0x01, UInt8(tech.count)] + tech + [0, 0, 0, 0]

  /// RF_INTF_ACTIVATED_NTF in two segments (PBF 1, then 0): joined, the tag is activated
  /// (the session was lost: "shorter than its fields", data before any activation).
  @Test func segmentedNotificationIsJoined() {
    var nci = NCIInterpreter()
    let a = Self.activation
    let first = nci.packet([0x71, 0x05, 8] + a.prefix(8), received: true)
    #expect(first.frames.isEmpty)
    #expect(first.warnings.isEmpty)
    let rest = Array(a.dropFirst(8))
    let second = nci.packet([0x61, 0x05, UInt8(rest.count)] + rest, received: true)
    #expect(second.warnings.isEmpty)
    #expect(second.frames.map(\.data) == [[0x44, 0x00], [0x00]])
    #expect(nci.packet([0x00, 0x00, 0x02, 0x30, 0x04], received: false).frames.count == 1)
  }

  /// A segment whose last one never comes is not joined to the next notification (its bytes
  /// would be read as that one's fields: final review).
  @Test func unfinishedSegmentIsNotJoinedToTheNext() {
    var nci = NCIInterpreter()
    _ = nci.packet([0x71, 0x05, 3] + Self.activation.prefix(3), received: true)
    let next = nci.packet([0x61, 0x06, 0x02, 0x01, 0x00], received: true)
    #expect(
      next.warnings == [
        "a segmented notification (GID 1, OID 5, 3 bytes) never got its last segment (PBF 0) "
          + "before another message; not shown"
      ])
    #expect(next.frames.isEmpty)  // deactivation to Sleep, read from its own bytes
    _ = nci.packet([0x71, 0x05, 2] + Self.activation.prefix(2), received: true)
    #expect(
      nci.finish().warnings == [
        "the log ends inside a segmented notification (GID 1, OID 5, 2 bytes without its last "
          + "segment, PBF 0); not shown"
      ])
  }

  /// Deactivation to Sleep (01) or Sleep_AF (02) keeps the field on; Idle (00) and
  /// Discovery (03) end the activation with a field-off.
  @Test func deactivationToSleepIsNoFieldOff() {
    for (type, fieldOff) in [(UInt8(0), true), (1, false), (2, false), (3, true)] {
      var nci = NCIInterpreter()
      _ = nci.packet([0x61, 0x05, UInt8(Self.activation.count)] + Self.activation, received: true)
      let out = nci.packet([0x61, 0x06, 0x02, type, 0x00], received: true)
      #expect(out.frames.map(\.event) == (fieldOff ? [.fieldOff] : []), "type \(type)")
    }
  }

  /// Data on another connection than the static RF one is warned once, not dropped in
  /// silence; the NFC-DEP interface (03) is named as such, not as proprietary.
  @Test func otherConnectionAndNFCDEPAreNamed() {
    var nci = NCIInterpreter()
    _ = nci.packet([0x61, 0x05, UInt8(Self.activation.count)] + Self.activation, received: true)
    #expect(
      nci.packet([0x01, 0x00, 0x02, 0x30, 0x04], received: false).warnings == [
        "data on NCI connection 1 (not the static RF connection 0, which carries the tag's "
          + "data) is not shown (reported once)"
      ])
    #expect(nci.packet([0x01, 0x00, 0x02, 0x30, 0x04], received: false).warnings.isEmpty)
    var dep = NCIInterpreter()
    var activation = Self.activation
    activation[1] = 0x03
    _ = dep.packet([0x61, 0x05, UInt8(activation.count)] + activation, received: true)
    #expect(
      dep.packet([0x00, 0x00, 0x02, 0xD4, 0x00], received: false).warnings == [
        "data on RF interface 0x03 (NFC-DEP, peer to peer) is not decoded (reported once)"
      ])
  }

  /// Android's empty I-block presence check on the ISO-DEP interface is named, not decoded
  /// as a broken APDU.
  @Test func emptyISODEPDataIsAPresenceCheck() {
    let frames = [Direction.reader, .tag].enumerated().map { i, d in
      Frame(
        index: i, timeNs: Int64(i), direction: d, data: [], crc: .notCaptured,
        technology: .nfcA, sourceFlags: [ReaderChipFlag.isoDEPPayload],
        location: SourceLocation(file: "t", unit: "frame", record: i, offset: 0))
    }
    let (decoded, _) = decodeAll(frames)
    #expect(
      decoded.map { $0.innermost?.summary } == [
        "empty I-block framed by the reader chip (presence check, no APDU)",
        "empty I-block (answer to the presence check)",
      ])
    #expect(decoded.allSatisfy { $0.undecodedReason == nil })
  }
}

/// Two `dumpsys nfc` outputs in one file (`>>`): the second prints the same ring buffer again,
/// and its repeated records are shown once, with a warning (they were shown twice, times
/// going back; importer review).
@Test func secondDumpOfTheSameRingBufferIsShownOnce() throws {
  let once = try importEdited { _ in }
  let twice = try importEdited { lines in lines += lines }
  #expect(twice.error == nil)
  #expect(twice.frames.count == once.frames.count)
  #expect(twice.frames.map(\.data) == once.frames.map(\.data))
  let repeats = twice.warnings.filter { $0.message.contains("repeats") }
  #expect(repeats.count == 1)
  #expect(
    repeats.first?.message.hasPrefix("this snoop section repeats ") == true
      && repeats.first?.message.hasSuffix(
        " record(s) of an earlier one (the same ring buffer dumped again: same time to the "
          + "µs, same packets, up to the earlier one's end); shown once") == true
  )
}

/// An NFCSNOOP_LOG_SUMMARY section of `records` (absolute µs, received, NCI packet): preamble
/// (version 1, the newest time) and a zlib stream of one stored deflate block.
private func snoopSection(_ records: [(timeUs: Int64, received: Bool, packet: [UInt8])]) -> String {
  var raw: [UInt8] = []
  var last = records.first?.timeUs ?? 0
  for r in records {
    let delta = UInt32(r.timeUs - last)
    last = r.timeUs
    raw += [UInt8(r.packet.count & 0xFF), UInt8(r.packet.count >> 8)]
    raw += (0..<4).map { UInt8(delta >> (8 * $0) & 0xFF) } + [r.received ? 1 : 0] + r.packet
  }
  var a: UInt32 = 1
  var b: UInt32 = 0
  for byte in raw {
    a = (a + UInt32(byte)) % 65521
    b = (b + a) % 65521
  }
  let n = UInt16(raw.count)
  var zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF)]
  zlib += [UInt8(~n >> 8)] + raw
  zlib += [UInt8(b >> 8), UInt8(b & 0xFF), UInt8(a >> 8), UInt8(a & 0xFF)]
  let newest = records.last?.timeUs ?? 0
  let preamble = [UInt8(1)] + (0..<8).map { UInt8(truncatingIfNeeded: newest >> (8 * $0)) }
  return "--- BEGIN:NFCSNOOP_LOG_SUMMARY (\(raw.count) bytes in) ---\n"
    + Data(preamble + zlib).base64EncodedString() + "\n--- END:NFCSNOOP_LOG_SUMMARY ---\n"
}

/// Repeated records across snoop sections (attack pass): only the run that continues to the
/// earlier section's end is a repeat; numbering counts every record of the file; an older
/// section after a newer one is warned about.
@Suite struct SnoopSectionRepeatTests {
  private let t0: Int64 = 1_700_000_000_000_000
  private func record(_ k: Int64, _ packet: [UInt8], received: Bool = true) -> (
    timeUs: Int64, received: Bool, packet: [UInt8]
  ) { (t0 + k * 1000, received, packet) }
  private let activation: [UInt8] =
    [
      0x61, 0x05, 20, 0x01, 0x01, 0x02, 0x00, 0xFF, 0x01, 9, 0x44, 0x00, 0x04, 1, 2, 3, 4, 0x01,
      0x00, 0, 0, 0, 0,
    ]
  private let interfaceError: [UInt8] = [0x60, 0x08, 0x02, 0xB2, 0x00]

  private func load(_ text: String) throws -> ([Frame], [TraceWarning]) {
    try importSnoop(TraceInput(path: "s.txt", bytes: Data(text.utf8)))
  }

  @Test func repeatedRunIsDroppedAndNumberingCountsIt() throws {
    let a = [record(0, activation), record(1, [0x00, 0x00, 0x02, 0x30, 0x04], received: false)]
    let b = a + [record(2, interfaceError)]
    let (frames, warnings) = try load(snoopSection(a) + snoopSection(b))
    #expect(frames.filter { $0.direction == .reader }.count == 1)
    #expect(warnings.contains { $0.message.hasPrefix("this snoop section repeats 2 record(s)") })
    // The error is the file's fifth record (2 + 3), repeats included.
    let error = try #require(warnings.first { $0.message.hasPrefix("CORE_INTERFACE_ERROR_NTF") })
    #expect(error.location?.record == 5)
  }

  @Test func runThatStopsMatchingIsNoRepeat() throws {
    let a = [record(0, activation), record(1, [0x00, 0x00, 0x02, 0x30, 0x04], received: false)]
    let b = [record(0, activation), record(1, [0x00, 0x00, 0x02, 0x30, 0x05], received: false)]
    let (frames, warnings) = try load(snoopSection(a) + snoopSection(b))
    #expect(
      frames.filter { $0.direction == .reader }.map(\.data) == [[0x30, 0x04], [0x30, 0x05]])
    #expect(!warnings.contains { $0.message.contains("repeats") })
    #expect(
      warnings.contains {
        $0.message.hasPrefix("this snoop section starts 1 ms before the end of an earlier one")
      })
  }
}
