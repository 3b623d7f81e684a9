import Foundation
import NFCTrace
import TestSupport
import Testing

private func importAll(_ input: TraceInput) throws -> ([Frame], [TraceWarning]) {
  var importer = try LibnfcLogImporter(input: input)
  var frames: [Frame] = []
  while let frame = try importer.next() { frames.append(frame) }
  return (frames, importer.warnings)
}

private let page3to6: [UInt8] = [
  0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x19, 0xD1, 0x01, 0x15, 0x55, 0x04,
]

/// Both fixtures hold the same exchanges: the frames must be identical, only lines differ.
private func expectType2ReadWrite(_ frames: [Frame]) throws {
  try #require(frames.count == 12)
  #expect(
    frames.map(\.direction) == [
      .event, .event, .tag, .tag, .reader, .tag, .reader, .tag, .reader, .tag, .reader, .event,
    ])
  #expect(frames[0].event == .fieldOff)
  #expect(frames[1].event == .fieldOn)
  #expect(frames[11].event == .fieldOff)
  // InListPassiveTarget: SENS_RES 00 44 (MSB first) → ATQA 44 00 in air order; SAK 00.
  #expect(frames[2].data == [0x44, 0x00])
  #expect(frames[2].sourceFlags == ["pn53x-target-info", "uid=04a8ce6a5d2d80"])
  #expect(frames[3].data == [0x00])
  #expect(frames[3].sourceFlags == ["pn53x-target-info"])
  #expect(frames[4].data == [0x30, 0x03])  // READ 3, Tg byte stripped
  #expect(frames[5].data == page3to6)
  #expect(frames[6].data == [0x30, 0x07])
  #expect(frames[7].data == Array("youtu.be/dQw4w9W".utf8))
  #expect(frames[8].data == [0xA2, 0x0B, 0x67, 0x58, 0x63, 0x51])  // WRITE page 0x0B
  #expect(frames[9].data == [])
  #expect(frames[9].sourceFlags == ["pn53x-empty-answer"])
  #expect(frames[10].data == [0x30, 0x0B])  // InCommunicateThru, answered by a timeout
  for frame in frames[2...10] {
    #expect(frame.crc == .notCaptured)
    #expect(frame.technology == .nfcA)
    #expect(frame.timeNs == 0)
  }
  #expect(frames.map(\.index) == Array(0..<12))
  #expect(frames.map { $0.sourceTime?.value } == (0..<12).map { Int64($0) })
  #expect(frames.allSatisfy { $0.sourceTime?.unit == .order && $0.location.unit == "line" })
}

@Test func libnfcPN533Log() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log"))
  #expect(LibnfcLogImporter.format.sniff(input.head(), input.path) == 90)
  let (frames, warnings) = try importAll(input)
  try expectType2ReadWrite(frames)
  #expect(frames[0].location.record == 15)  // RFConfiguration TX line
  #expect(frames[2].location.record == 25)  // InListPassiveTarget answer
  #expect(frames[4].location.record == 27)
  #expect(frames[5].location.record == 29)
  #expect(frames[10].location.record == 39)
  try #require(warnings.count == 1)
  #expect(warnings[0].message == "InCommunicateThru status 0x01: timeout, the tag did not answer")
  #expect(warnings[0].location?.record == 41)
}

/// Lines a terminal or a logger prefixed (a time stamp before the priority) are still traffic:
/// every third TX/RX line prefixed gives the same frames (they were skipped, silently).
@Test func libnfcLinesWithAPrefixAreRead() throws {
  let text = try String(
    contentsOfFile: TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log"), encoding: .utf8)
  var traffic = 0
  let prefixed = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
    guard line.contains("TX: ") || line.contains("RX: ") else { return String(line) }
    traffic += 1
    return traffic % 3 == 0 ? "[12:00:03] host " + line : String(line)
  }
  let (frames, warnings) = try importAll(
    TraceInput(path: "prefixed.log", bytes: Data(prefixed.joined(separator: "\n").utf8)))
  try expectType2ReadWrite(frames)
  #expect(
    warnings.map(\.message) == ["InCommunicateThru status 0x01: timeout, the tag did not answer"])
}

@Test func libnfcACR122Log() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/acr122u_t2t_read_write.log"))
  let (frames, warnings) = try importAll(input)
  try expectType2ReadWrite(frames)
  #expect(frames[2].location.record == 26)  // answer fetched by GET RESPONSE
  #expect(frames[5].location.record == 29)
  try #require(warnings.count == 1)
  #expect(warnings[0].message.hasPrefix("InCommunicateThru status 0x01"))
}

/// A PN53x normal information frame around `tfiPD`, as hex.
private func pn53x(_ tfiPD: [UInt8]) -> String {
  let len = UInt8(tfiPD.count)
  let dcs = 0 &- tfiPD.reduce(0, &+)
  return Hex.string([0, 0, 0xFF, len, 0 &- len] + tfiPD + [dcs, 0], separator: " ")
}

@Test func libnfcUARTSplitRXAndSpacesInsteadOfTabs() throws {
  let answer = pn53x([0xD5, 0x41, 0x00] + page3to6).split(separator: " ")
  let log = """
    debug    libnfc.chip.pn53x    InDataExchange
    debug    libnfc.driver.pn532_uart    TX: 55 55 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \(pn53x([0xD4, 0x40, 0x01, 0x30, 0x03]))
    debug    libnfc.bus.uart    RX: 00 00 ff 00 ff 00
    debug    libnfc.bus.uart    RX: \(answer[0..<5].joined(separator: " "))
    debug    libnfc.bus.uart    RX: \(answer[5..<20].joined(separator: " "))
    debug    libnfc.bus.uart    RX: \(answer[20...].joined(separator: " "))
    nfc-mfultralight uses libnfc 1.8.0
    """
  let (frames, warnings) = try importAll(TraceInput(path: "uart.log", bytes: Data(log.utf8)))
  try #require(frames.count == 2)
  #expect(frames[0].data == [0x30, 0x03])
  #expect(frames[1].data == page3to6)
  #expect(frames[1].location.record == 6)
  #expect(warnings.isEmpty)
}

@Test func libnfcSevenBitWakeUpAndStatusErrors() throws {
  let log = [
    "debug\tlibnfc.driver.pn53x_usb\tTX: " + pn53x([0xD4, 0x08, 0x63, 0x3D, 0x07]),
    "debug\tlibnfc.driver.pn53x_usb\tRX: " + pn53x([0xD5, 0x09]),
    "debug\tlibnfc.driver.pn53x_usb\tTX: " + pn53x([0xD4, 0x42, 0x40]),
    "debug\tlibnfc.driver.pn53x_usb\tRX: " + pn53x([0xD5, 0x43, 0x00, 0x0A]),
    "debug\tlibnfc.driver.pn53x_usb\tTX: " + pn53x([0xD4, 0x40, 0x01, 0x30, 0x04]),
    "debug\tlibnfc.driver.pn53x_usb\tRX: " + pn53x([0xD5, 0x41, 0x02]),
    "debug\tlibnfc.driver.pn53x_usb\tRX: 00 00 ff 03 fd d5 41 00 00 00",
    "debug\tlibnfc.driver.pn53x_usb\tTX: 00 00 ff 0g",
  ].joined(separator: "\n")
  var importer = try LibnfcLogImporter(input: TraceInput(path: "m.log", bytes: Data(log.utf8)))
  var frames: [Frame] = []
  // The bad hex line (line 8) is skipped with a warning, not an error.
  while let frame = try importer.next() { frames.append(frame) }
  #expect(importer.warnings.last?.location?.record == 8)
  try #require(frames.count == 5)
  #expect(frames[0].data == [0x40])
  #expect(frames[0].bits == 7)  // BitFraming TxLastBits = 7 (magic wake-up)
  #expect(frames[1].data == [0x0A])
  #expect(frames[2].data == [0x30, 0x04])
  #expect(frames[2].bits == nil)  // InDataExchange ignores TxLastBits
  // Status 02 (CRC error): the tag answered, damaged — an empty tag frame with a bad CRC.
  #expect(frames[3].data == [] && frames[3].crc == .bad)
  #expect(frames[3].sourceFlags == [ReaderChipFlag.damagedAnswer])
  #expect(frames[4].data == [])  // the frame with the bad DCS is still used, with a warning
  #expect(frames[4].crc == .notCaptured)
  #expect(
    importer.warnings.map(\.message) == [
      "InDataExchange status 0x02: CRC error in the tag's answer",
      "PN53x frame data checksum (DCS) does not verify",
      "TX line skipped: expected hex bytes separated by spaces",
    ])
}

@Test func libnfcSniffRejectsOtherText() throws {
  #expect(LibnfcLogImporter.format.sniff(Array("Filetype: Flipper NFC device".utf8), "x.nfc") == 0)
  let lab = try TraceInput(path: TestPaths.shared("public/nfc-laboratory/test_POLL_AB_001.json"))
  #expect(LibnfcLogImporter.format.sniff(lab.head(), lab.path) == 0)
}

/// InDataExchange with a target listed with its ATS: the chip builds the ISO-DEP blocks, the
/// log holds APDUs. They are flagged and decode as APDUs, down to the NDEF procedure.
@Test func libnfcType4APDUsFramedByTheChip() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/pn533_t4t_ndef_read_write.log"))
  let (frames, warnings) = try importAll(input)
  #expect(warnings.isEmpty)
  try #require(frames.count == 23)
  #expect(frames[3].data == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])  // ATS
  #expect(frames[4].data.prefix(4) == [0x00, 0xA4, 0x04, 0x00])  // SELECT, no PCB
  #expect(frames[4].sourceFlags == ["pn53x-iso-dep-payload"])
  #expect(frames[5].sourceFlags == ["pn53x-iso-dep-payload"])
  let (decoded, _) = decodeAll(frames)
  #expect(decoded[4].layers.map(\.protocolID) == [.isoDEP, .iso7816, .type4])
  #expect(decoded[4].layers[0].summary == "INF of I-blocks framed by the reader chip")
  #expect(decoded[4].layers[2].summary == "SELECT NDEF application")
  #expect(decoded[13].layers.last?.summary == "NLEN 10")
  #expect(decoded.allSatisfy { $0.undecodedReason == nil })
}

/// MIFARE Classic through a reader chip: AUTH with key and UID, and the one-frame WRITE, are
/// the chip's commands; it answers an empty frame and what follows stays plaintext.
@Test func libnfcMIFAREClassicCommandsCarriedOutByTheChip() throws {
  let uid: [UInt8] = [0x11, 0x22, 0x33, 0x44]
  let key: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
  let block4 = Array(repeating: UInt8(0x5A), count: 16)
  let exchanges: [([UInt8], [UInt8])] = [
    ([0x4A, 0x01, 0x00], [0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, 0x04] + uid),
    ([0x40, 0x01, 0x60, 0x04] + key + uid, [0x41, 0x00]),
    ([0x40, 0x01, 0x30, 0x04], [0x41, 0x00] + block4),
    ([0x40, 0x01, 0xA0, 0x05] + block4, [0x41, 0x00]),
  ]
  let log = exchanges.flatMap { command, answer in
    [
      "debug\tlibnfc.driver.pn53x_usb\tTX: " + pn53x([0xD4] + command),
      "debug\tlibnfc.driver.pn53x_usb\tRX: " + pn53x([0xD5] + answer),
    ]
  }.joined(separator: "\n")
  let (frames, _) = try importAll(TraceInput(path: "mfc.log", bytes: Data(log.utf8)))
  let (decoded, decoder) = decodeAll(frames)
  #expect(
    decoded.compactMap { $0.layers.last?.summary } == [
      "ATQA 0x0004 (UID size single, bit-frame anticollision) (reported by the reader chip)",
      "SAK 0x08 (UID complete, not ISO 14443-4: MIFARE Classic 1K) (reported by the reader chip)",
      "AUTH key A block 4 (sector 1) with key d3f7d3f7d3f7 (carried out by the reader chip)",
      "AUTH key A done (the reader chip reports success)",
      "READ block 4",
      "READ block 4 → 5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a",
      "WRITE block 5 ← 5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a (carried out by the reader chip)",
      "WRITE done (the reader chip reports success)",
    ])
  #expect(decoder.context.encrypted == false)
}

/// InAutoPoll (PN532, nfc-poll): type A targets carry InListPassiveTarget's target data; an
/// ISO/IEC 14443-4 target's ATS makes the following InDataExchange APDUs.
@Test func libnfcInAutoPollTargets() throws {
  let uid: [UInt8] = [0x04, 0x52, 0x6B, 0x1A, 0x2C, 0x5E, 0x80]
  let target: [UInt8] = [0x01, 0x03, 0x44, 0x20, 0x07] + uid + [0x05, 0x75, 0x77, 0x81, 0x02]
  let log = [
    "debug\tlibnfc.driver.pn532_uart\tTX: " + pn53x([0xD4, 0x60, 0x01, 0x02, 0x20, 0x11]),
    "debug\tlibnfc.driver.pn532_uart\tRX: "
      + pn53x([0xD5, 0x61, 0x02, 0x20, UInt8(target.count)] + target + [0x11, 0x02, 0x01, 0x02]),
    "debug\tlibnfc.driver.pn532_uart\tTX: "
      + pn53x([0xD4, 0x40, 0x01, 0x00, 0xB0, 0x00, 0x00, 0x02]),
    "debug\tlibnfc.driver.pn532_uart\tRX: " + pn53x([0xD5, 0x41, 0x00, 0x00, 0x0A, 0x90, 0x00]),
  ].joined(separator: "\n")
  let (frames, warnings) = try importAll(TraceInput(path: "poll.log", bytes: Data(log.utf8)))
  #expect(frames.map(\.data).prefix(3) == [[0x44, 0x03], [0x20], [0x05, 0x75, 0x77, 0x81, 0x02]])
  #expect(frames[0].sourceFlags == ["pn53x-target-info", "uid=04526b1a2c5e80"])
  #expect(frames[3].sourceFlags == ["pn53x-iso-dep-payload"])
  #expect(warnings.map(\.message) == ["InAutoPoll: target of type 0x11 not unpacked"])
}

/// A file without TX/RX lines (a lower log level, or another file forced with --input-format)
/// is an error, not an empty trace.
@Test func libnfcLogWithoutTrafficIsAnError() throws {
  let log = "debug\tlibnfc.general\tlog_level is set to 2\n"
  let error = #expect(throws: TraceError.self) {
    _ = try importAll(TraceInput(path: "quiet.log", bytes: Data(log.utf8)))
  }
  #expect(error?.kind == .unsupported)
  // The whole log was searched: named from its first line, as pm3-text's missing table is.
  #expect(error?.location.offset == 0)
  #expect(error?.message.hasPrefix("no libnfc TX:/RX: traffic lines") == true)
}

/// A log of junk records 1000 warnings and says so, instead of one per line.
@Test func libnfcWarningsAreCapped() throws {
  let line = "debug\tlibnfc.driver.pn53x_usb\tRX: 12 34 56 78 9a\n"
  let log = String(repeating: line, count: 3000)
  let (_, warnings) = try importAll(TraceInput(path: "junk.log", bytes: Data(log.utf8)))
  #expect(warnings.count == 1001)
  #expect(warnings.last?.message == "more than 1000 warnings; no more recorded")
}

/// The lines of the PN533 read/write fixture; its first 40 end after an InCommunicateThru
/// command (READ) and the chip's ACK, before the response.
private func pn533Lines() throws -> [Substring] {
  let path = TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log")
  return try String(contentsOfFile: path, encoding: .utf8).split(
    separator: "\n", omittingEmptySubsequences: false)
}

/// A log cut after a PN53x command whose response line never came (a copy stopped early): the
/// chip answers every command, so the import ends with a `truncated` error at the end of the
/// log, after the frames before the cut (it ended quietly and the READ counted as unanswered,
/// "the tag left the field").
@Test func libnfcLogCutAfterACommandIsTruncated() throws {
  let lines = try pn533Lines()
  let cut = lines.prefix(40).joined(separator: "\n") + "\n"
  var importer = try LibnfcLogImporter(input: TraceInput(path: "cut.log", bytes: Data(cut.utf8)))
  var frames: [Frame] = []
  do {
    while let f = try importer.next() { frames.append(f) }
    Issue.record("the cut log imported without an error")
  } catch let error as TraceError {
    #expect(error.kind == .truncated)
    #expect(error.message.hasPrefix("the log ends after a PN53x command with no response"))
  }
  #expect(frames.last?.direction == .reader)
  #expect(frames.last?.data.first == 0x30)
}

/// A log whose last command the host aborted (an ACK frame from the host, PN533 user manual
/// §6.2.1.3) ends normally: no response is due (it was reported as cut).
@Test func libnfcLogEndingWithAnAbortIsNotCut() throws {
  let lines = try pn533Lines()
  let aborted =
    lines.prefix(40).joined(separator: "\n")
    + "\ndebug\tlibnfc.driver.pn53x_usb\tTX: 00 00 ff 00 ff 00 \n"
  var importer = try LibnfcLogImporter(
    input: TraceInput(path: "abort.log", bytes: Data(aborted.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  #expect(frames.last?.data.first == 0x30)
}

/// A PN53x error frame (TFI 7F) answers the command: the log is not cut (it was exit 3).
@Test func libnfcErrorFrameAnswersTheCommand() throws {
  let lines = try pn533Lines()
  let text =
    lines.prefix(40).joined(separator: "\n")
    + "\ndebug\tlibnfc.driver.pn53x_usb\tRX: 00 00 ff 01 ff 7f 81 00 \n"
  var importer = try LibnfcLogImporter(input: TraceInput(path: "err.log", bytes: Data(text.utf8)))
  while try importer.next() != nil {}
  #expect(importer.warnings.contains { $0.message.hasPrefix("PN53x error frame") })
}

/// An acr122_usb log pasted into an issue tracker, its long TX/RX lines wrapped: the hex-only
/// lines are the rest of the line before (they were dropped and the file rejected). The
/// reader then returns an empty CCID DataBlock (length 0, bError FE: the command timed out):
/// the command got nothing, the log is complete (it was called cut).
@Test func wrappedACR122LinesAreJoinedAndAnEmptyAnswerEndsTheCommand() throws {
  let log = """
    debug\tlibnfc.chip.pn53x\tInListPassiveTarget
    debug\tlibnfc.driver.acr122_usb\tTX: 6f 0d 00 00 00 00 00 00 00 00 ff 00 00 00 08
    d4 4a 01 00 a0 d9 89 78
    debug\tlibnfc.driver.acr122_usb\tRX: 80 0e 00 00 00 00 00 00 81 00 d5 4b 01 01 00
    04 28 04 a0 d9 89 78 90 00
    debug\tlibnfc.chip.pn53x\tInDataExchange
    debug\tlibnfc.driver.acr122_usb\tTX: 6f 13 00 00 00 00 00 00 00 00 ff 00 00 00 0e
    d4 40 01 00 a4 04 00 06 f7 52 46 54 41 01
    debug\tlibnfc.driver.acr122_usb\tRX: 80 00 00 00 00 00 00 00 fe 00
    error\tlibnfc.driver.acr122_usb\tInvalid RDR_to_PC_DataBlock frame

    """
  let (frames, warnings) = try importAll(TraceInput(path: "w.log", bytes: Data(log.utf8)))
  #expect(frames.filter { $0.direction == .tag }.map(\.data) == [[0x04, 0x00], [0x28]])
  let sent = try #require(frames.last { $0.direction == .reader })
  #expect(sent.data == [0x00, 0xA4, 0x04, 0x00, 0x06, 0xF7, 0x52, 0x46, 0x54, 0x41, 0x01])
  #expect(warnings.first?.message.hasPrefix("line 3 holds only hex bytes: joined") == true)
  #expect(warnings.contains { $0.message.hasPrefix("CCID answer with 0 byte(s) of data") })
}

/// libnfc's pn532_spi driver logs every SPI transfer: the data-write byte `01` before each
/// command, status reads (`TX 02`, `RX 01`) and the answer in pieces, each after a data read
/// `03`. The same exchange as the PN533 USB log gives the same frames; before, every `03`
/// dropped the answer read so far and no tag answer was left.
@Test func libnfcPN532SPILog() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/pn532_spi_t2t_read_write.log"))
  #expect(LibnfcLogImporter.format.sniff(input.head(), input.path) == 90)
  let (frames, warnings) = try importAll(input)
  try expectType2ReadWrite(frames)
  #expect(frames[2].location.record == 100)  // the DCS of InListPassiveTarget's answer
  try #require(warnings.count == 1)
  #expect(warnings[0].message == "InCommunicateThru status 0x01: timeout, the tag did not answer")
  #expect(warnings[0].location?.record == 182)
}

/// A FeliCa InListPassiveTarget (BrTy 01) is shown as the polling request and the card's
/// SENSF_RES; InDataExchange carries whole NFC-F frames: the Type 3 NDEF procedures follow.
@Test func libnfcFeliCaTargetAndType3Read() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/pn533_t3t_ndef_read.log"))
  let (frames, warnings) = try importAll(input)
  #expect(warnings.isEmpty)
  let data = frames.filter { $0.direction != .event }
  #expect(data.first?.data == [0x06, 0x00, 0x12, 0xFC, 0x01, 0x00])
  #expect(data.first?.technology == .nfcF)
  #expect(data.dropFirst().first?.data.prefix(2) == [0x14, 0x01])
  let sessions = try SessionAnalysisRun(
    importer: try LibnfcLogImporter(
      input: try TraceInput(
        path: TestPaths.traces("libnfc/pn533_t3t_ndef_read.log")))
  ).sessions
  let s = try #require(sessions.first)
  #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
  #expect(s.tag.product == "FeliCa Lite-S (RC-S966)")
  #expect(
    s.operations.last?.detail("message")
      == .hex([0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)))
}

/// A TX/RX line with a damaged hex byte is skipped with a warning; the lines after it are
/// read (the whole import ended there, exit 3).
@Test func damagedHexLineIsSkipped() throws {
  let path = TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log")
  let original = try String(contentsOfFile: path, encoding: .utf8)
  let damaged = original.replacingOccurrences(
    of: "RX: 00 00 ff 13 ed d5 41 00 e1 10 12 00", with: "RX: 00 00 ff 13 ed d5 41 00 e 10 12 00")
  #expect(damaged != original)
  var importer = try LibnfcLogImporter(
    input: TraceInput(path: "damaged.log", bytes: Data(damaged.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  #expect(
    importer.warnings.first?.message
      == "RX line skipped: expected hex bytes separated by spaces")
  #expect(importer.warnings.first?.location?.record == 29)
  // The WRITE and the READ after the damaged line are still there.
  #expect(frames.contains { $0.data == [0xA2, 0x0B, 0x67, 0x58, 0x63, 0x51] })
}

/// A WRITE whose answer the PN533 received damaged (InDataExchange status 02h, CRC error): the
/// tag answered, so this is no silence — the WRITE failed (libnfc returned an error), the
/// page's bytes are unacknowledged, and the diagnosis says the reader saw the damage itself.
/// (A lone WRITE of page 11, past the NDEF TLV at page 5 where no NDEF write starts: the
/// program's own command, a transceive.)
@Test func libnfcDamagedAnswerFailsTheOperation() throws {
  let text = try String(
    contentsOfFile: TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log"), encoding: .utf8)
  let damaged = text.replacingOccurrences(
    of: "RX: 00 00 ff 03 fd d5 41 00 ea 00 ", with: "RX: 00 00 ff 03 fd d5 41 02 e8 00 ")
  try #require(damaged != text)
  let input = TraceInput(path: "damaged.log", bytes: Data(damaged.utf8))
  let run = try SessionAnalysisRun(importer: LibnfcLogImporter(input: input))
  let session = try #require(run.sessions.first)
  let write = try #require(session.operations.first { $0.kind == .transceive })
  #expect(write.outcome == .failed)
  #expect(
    write.reason
      == "the reader received the tag's answer to WRITE page 11 ← 67 58 63 51 damaged (CRC, "
      + "parity or framing error) and reported the command failed: the tag answered, but what it "
      + "answered is unknown")
  #expect(session.memory.type2End.state(44) == .unacknowledged)
  let report = try DiagnosisRun(
    importer: LibnfcLogImporter(input: TraceInput(path: "damaged.log", bytes: Data(damaged.utf8)))
  ).diagnose(expected: nil)
  let rf = try #require(report.sessions.first?.findings.first { $0.code == "rf-damaged-frames" })
  #expect(
    rf.message.hasSuffix(
      "The reader itself received them damaged and reported an error for the command."))
}

/// The same for an APDU the PN533 carried in ISO-DEP blocks: the READ BINARY of NLEN answered
/// with status 02h is a damaged answer (not "empty ISO-DEP frame"), and the query failed.
@Test func libnfcDamagedAPDUAnswer() throws {
  let text = try String(
    contentsOfFile: TestPaths.traces("libnfc/pn533_t4t_ndef_read_write.log"), encoding: .utf8)
  let damaged = text.replacingOccurrences(
    of: "RX: 00 00 ff 07 f9 d5 41 00 00 0a 90 00 50 00 ", with: "RX: 00 00 ff 03 fd d5 41 02 e8 00 "
  )
  try #require(damaged != text)
  let input = TraceInput(path: "damaged.log", bytes: Data(damaged.utf8))
  var frames: [DecodedFrame] = []
  let run = try SessionAnalysisRun(importer: LibnfcLogImporter(input: input)) {
    if case .frame(let f) = $0 { frames.append(f) }
  }
  let answer = try #require(frames.first { $0.frame.sourceFlags == [ReaderChipFlag.damagedAnswer] })
  #expect(answer.frame.index == 13)
  #expect(
    answer.innermost?.summary
      == "answer damaged (the reader received the tag's answer damaged and does not give its bytes)"
  )
  let query = try #require(run.sessions.first?.operations.first { $0.kind == .queryNDEFStatus })
  #expect(query.outcome == .failed)
  #expect(
    query.reason?.hasPrefix("the reader received the tag's answer to READ NLEN offset 0") == true)
}

/// The stack sends the command again after the chip reported its answer damaged, and this
/// time it comes intact: the operation goes on as before (a retry, as after a silence).
@Test func damagedAnswerRecoveredByTheRetry() throws {
  var b = TraceBuilder()
  b.activateType2()
  b.reader([0x30, 0x03])
  let at = b.frames.count
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
  var frames = b.frames
  var damaged = frames[at]
  damaged.direction = .tag
  damaged.data = []
  damaged.crc = .bad
  damaged.sourceFlags = [ReaderChipFlag.damagedAnswer]
  frames.insert(damaged, at: at)
  for i in frames.indices { frames[i].index = i }
  let s = try #require(
    try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
  let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
  #expect(query.outcome == .ok)
  #expect(query.reason == nil)
  // Without the retry, it failed.
  let cut = Array(frames.prefix(at + 1))
  let t = try #require(try SessionAnalysisRun(importer: MemoryImporter(frames: cut)).sessions.first)
  #expect(t.operations.last?.outcome == .failed)
}
