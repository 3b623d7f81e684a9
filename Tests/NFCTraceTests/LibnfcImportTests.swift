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
  do {
    while let frame = try importer.next() { frames.append(frame) }
    Issue.record("expected a TraceError for the bad hex line")
  } catch let error as TraceError {
    #expect(error.kind == .malformed)
    #expect(error.location.record == 8)
    #expect(error.location.unit == "line")
  }
  try #require(frames.count == 4)
  #expect(frames[0].data == [0x40])
  #expect(frames[0].bits == 7)  // BitFraming TxLastBits = 7 (magic wake-up)
  #expect(frames[1].data == [0x0A])
  #expect(frames[2].data == [0x30, 0x04])
  #expect(frames[2].bits == nil)  // InDataExchange ignores TxLastBits
  #expect(frames[3].data == [])  // the frame with the bad DCS is still used, with a warning
  #expect(
    importer.warnings.map(\.message) == [
      "InDataExchange status 0x02: CRC error in the tag's answer",
      "PN53x frame data checksum (DCS) does not verify",
    ])
}

@Test func libnfcSniffRejectsOtherText() throws {
  #expect(LibnfcLogImporter.format.sniff(Array("Filetype: Flipper NFC device".utf8), "x.nfc") == 0)
  let lab = try TraceInput(path: TestPaths.shared("public/nfc-laboratory/test_POLL_AB_001.json"))
  #expect(LibnfcLogImporter.format.sniff(lab.head(), lab.path) == 0)
}
