import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

// USB captures of PN53x / ACR122 readers (Traces/usb/, built from the libnfc log fixtures by
// make_usb_captures.py): the frames recovered from the bulk transfers must be the ones the
// libnfc importer recovers from the same traffic, timed by the USB packets.

private func libnfcFrames(_ log: String) throws -> [Frame] {
  var importer = try LibnfcLogImporter(input: TraceInput(path: TestPaths.traces("libnfc/" + log)))
  var frames: [Frame] = []
  while let frame = try importer.next() { frames.append(frame) }
  return frames
}

/// What both importers must agree on: everything but time and location.
private func air(_ frames: [Frame]) -> [String] {
  frames.map {
    "\($0.direction) \($0.event.map(\.rawValue) ?? "") \(Hex.string($0.data)) \($0.bits ?? 8) "
      + "\($0.crc) \($0.technology) \($0.sourceFlags)"
  }
}

@Suite struct USBCaptureTests {
  @Test(arguments: [
    ("usb/pn533-t2t-usbmon-mmapped.pcap", "pn533_scl3711_t2t_read_write.log"),
    ("usb/pn533-t4t-usbmon.pcap", "pn533_t4t_ndef_read_write.log"),
    ("usb/acr122u-t2t-usbpcap.pcap", "acr122u_t2t_read_write.log"),
  ])
  func sameFramesAsTheLibnfcLog(capture: String, log: String) throws {
    let result = try importPcap(TraceInput(path: TestPaths.traces(capture)))
    #expect(result.error == nil)
    let expected = try libnfcFrames(log)
    #expect(air(result.frames) == air(expected))
    #expect(result.frames.map(\.index) == Array(0..<expected.count))
    // Times come from the USB packets: increasing, starting at the first packet.
    #expect(zip(result.frames, result.frames.dropFirst()).allSatisfy { $0.timeNs <= $1.timeNs })
    #expect(result.frames.allSatisfy { $0.location.unit == "packet" })
  }

  @Test func pn533Type2TimesAndPacketsAndIgnoredDevices() throws {
    let result = try importPcap(
      TraceInput(path: TestPaths.traces("usb/pn533-t2t-usbmon-mmapped.pcap")))
    // READ 3 (frame 4) is the OUT submission of packet 36 (2 packets of other devices first,
    // 2 per transfer, a keyboard report after every 4th); its answer the IN completion of
    // packet 42, after the ACK's transfer: 150 µs per packet + 700 µs per answer.
    #expect(result.frames[4].data == [0x30, 0x03])
    #expect(result.frames[4].location.record == 36)
    #expect(result.frames[4].location.offset == 3020)
    #expect(result.frames[5].location.record == 42)
    #expect(result.frames[5].timeNs - result.frames[4].timeNs == 2_300_000)
    #expect(result.frames[4].sourceTime == SourceTime(1_700_000_000_012_250, .microseconds))
    #expect(
      result.warnings.map(\.message) == [
        "USB device 1.2: its first bulk data (55 53 42 43 10 00 00 00 …) is neither PN53x frames "
          + "nor CCID messages; its traffic is ignored unless one of its next 7 bulk transfers is",
        "InCommunicateThru status 0x01: timeout, the tag did not answer",
      ])
    #expect(result.warnings[0].location?.record == 1)
  }

  /// A USB capture of other devices only is an error that says what was expected.
  @Test func usbCaptureWithoutAReader() throws {
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    // usbmon (189): one bulk OUT of a USB disk, device 1.2.
    var bytes: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + Array(repeating: 0, count: 8)
    bytes += [0xFF, 0xFF, 0, 0, 189, 0, 0, 0]
    var header = Array(repeating: UInt8(0), count: 48)
    header[8] = 0x53  // 'S'
    header[9] = 3  // bulk
    header[10] = 0x02  // OUT
    header[11] = 2
    header[12] = 1
    header[36] = 4  // 4 bytes captured
    let packet = header + [0x55, 0x53, 0x42, 0x43]
    bytes += [1, 0, 0, 0, 0, 0, 0, 0, UInt8(packet.count), 0, 0, 0, UInt8(packet.count), 0, 0, 0]
    bytes += packet
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.isEmpty)
    #expect(result.error?.kind == .unsupported)
    #expect(
      result.error?.message
        == "USB capture (link type 189 (LINKTYPE_USB_LINUX)) without NFC reader traffic in its "
        + "1 packets: expected bulk transfers of PN53x frames (00 00 FF …) or CCID messages; "
        + "capture the reader's USB bus")
    #expect(result.error?.location.offset == 92)
    #expect(result.warnings.first?.message.hasPrefix("USB device 1.2: its first bulk data") == true)
  }

  /// The chip frames a Type 4 tag's APDUs in ISO-DEP blocks itself: the APDUs decode down
  /// to NDEF, and the sessions are the app's.
  @Test func pn533Type4SessionsFromUSB() throws {
    let sessions = try analyzePcap(TestPaths.traces("usb/pn533-t4t-usbmon.pcap"))
    try #require(sessions.count == 1)
    #expect(
      sessions[0].operations.map(\.shortText) == [
        "connect ok", "queryNDEFStatus readWrite 48 B", "readNDEF ok", "writeNDEF ok",
      ])
  }

  /// A PC/SC application on a CCID reader (USBPcap): the reader's ATR and UID open each
  /// session; storage-card READ/UPDATE BINARY are the Type 2 READ/WRITE and MIFARE Classic
  /// READ/WRITE; card APDUs decode as APDUs; GENERAL AUTHENTICATE is the chip-form AUTH.
  @Test func pcscApplicationOnACCIDReader() throws {
    let path = TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap")
    let sessions = try analyzePcap(path)
    #expect(
      sessions.map { $0.operations.map(\.shortText) } == [
        [
          "connect ok", "queryNDEFStatus readWrite 142 B", "readNDEF ok", "writeNDEF ok",
          "readNDEF unknown",  // READ BINARY of 4 bytes: the message's first page only
        ],
        ["connect ok", "queryNDEFStatus readOnly 48 B", "readNDEF ok", "writeNDEF failed"],
        ["connect ok", "authenticate ok", "transceive ok"],
      ])
    #expect(
      sessions.map { $0.tag.product } == [
        "MIFARE Ultralight / NTAG (Type 2)", "Type 4 tag", "MIFARE Classic 1K",
      ])
    #expect(
      sessions.map { $0.tag.uidString } == [
        "04:3C:71:2A:5B:61:80", "04:52:6B:1A:2C:5E:80", "5E:1F:7A:33",
      ])
    let result = try importPcap(TraceInput(path: path))
    #expect(result.warnings.isEmpty)
    // READ BINARY with Le 4: the READ answer's first 4 bytes, flagged.
    let partial = try #require(result.frames.first { $0.data == [0x03, 0x0B, 0xD1, 0x01] })
    #expect(partial.sourceFlags == [ReaderChipFlag.readBinary])
    // The MIFARE Classic AUTH: 60 04, the key loaded under number 0, the UID.
    #expect(
      result.frames.contains {
        $0.data == [0x60, 0x04, 0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7, 0x5E, 0x1F, 0x7A, 0x33]
      })
  }

  /// A usbmon (189) pcap of bulk transfers of device 1.5: `(event, endpoint, status, data,
  /// URB length)` each.
  private func usbmon(_ packets: [(UInt8, UInt8, Int32, [UInt8], Int)]) throws -> String {
    var bytes: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0] + Array(repeating: 0, count: 8)
    bytes += [0xFF, 0xFF, 0, 0, 189, 0, 0, 0]
    for (k, (event, endpoint, status, data, urbLength)) in packets.enumerated() {
      var header = Array(repeating: UInt8(0), count: 48)
      header[8] = event
      header[9] = 3
      header[10] = endpoint
      header[11] = 5
      header[12] = 1
      header[15] = data.isEmpty ? 0x3C : 0
      withUnsafeBytes(of: status.littleEndian) { header.replaceSubrange(28..<32, with: $0) }
      withUnsafeBytes(of: UInt32(urbLength).littleEndian) {
        header.replaceSubrange(32..<36, with: $0)
      }
      withUnsafeBytes(of: UInt32(data.count).littleEndian) {
        header.replaceSubrange(36..<40, with: $0)
      }
      let packet = header + data
      bytes += [
        UInt8(k), 0, 0, 0, 0, 0, 0, 0, UInt8(packet.count), 0, 0, 0, UInt8(packet.count), 0, 0, 0,
      ]
      bytes += packet
    }
    let path = temporaryPath(".pcap")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  private func pn53x(_ tfiPD: [UInt8]) -> [UInt8] {
    let len = UInt8(tfiPD.count)
    return [0, 0, 0xFF, len, 0 &- len] + tfiPD + [0 &- tfiPD.reduce(0, &+), 0]
  }

  /// An IN completion with an error status (here -EPROTO) carries no answer; data the snap
  /// length cut is reported.
  @Test func failedAndCutTransfers() throws {
    let list = pn53x([0xD4, 0x4A, 0x01, 0x00])
    let target = pn53x([0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x04, 1, 2, 3, 4])
    let read = pn53x([0xD4, 0x40, 0x01, 0x30, 0x04])
    let answer = pn53x([0xD5, 0x41, 0x00] + Array(repeating: 0xEE, count: 16))
    let path = try usbmon([
      (0x53, 0x04, 0, list, list.count), (0x43, 0x84, 0, target, target.count),
      (0x53, 0x04, 0, read, read.count), (0x43, 0x84, -71, answer, answer.count),
      (0x53, 0x04, 0, read, read.count), (0x43, 0x84, 0, Array(answer.prefix(10)), answer.count),
    ])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.map(\.direction) == [.tag, .tag, .reader, .reader])
    #expect(
      result.warnings.map(\.message) == [
        "USB transfer failed (status -71): its data is not what the reader sent; ignored",
        "USB transfer captured without its last 16 bytes (snap length): the frame it carries "
          + "is incomplete",
      ])
    #expect(result.warnings.map { $0.location?.record } == [4, 6])
  }
}
