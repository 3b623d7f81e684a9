import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// Frames, warnings and the error that stopped an import.
struct ImportResult {
  var frames: [Frame] = []
  var warnings: [TraceWarning] = []
  var error: TraceError?
}

/// Reads `input` with the `pcap` format until the end or the first error.
func importPcap(_ input: TraceInput) throws -> ImportResult {
  var importer = try PcapFormats.pcap.open(input)
  var result = ImportResult()
  do {
    while let frame = try importer.next() { result.frames.append(frame) }
  } catch let error as TraceError {
    result.error = error
  }
  result.warnings = importer.warnings
  return result
}

/// Reads a file under `../shared/traces/`.
func importShared(_ relative: String) throws -> ImportResult {
  try importPcap(TraceInput(path: TestPaths.shared(relative)))
}

/// The bytes of a file under `../shared/traces/`.
func sharedBytes(_ relative: String) throws -> Data {
  try Data(contentsOf: URL(fileURLWithPath: TestPaths.shared(relative)))
}

/// A fresh path in the temporary directory.
func temporaryPath(_ suffix: String) -> String {
  FileManager.default.temporaryDirectory
    .appendingPathComponent("nfctrace-\(UUID().uuidString)\(suffix)").path
}

/// A frame for writing tests; `timeNs` defaults to 0.5 ms per index.
func frame(
  _ index: Int, _ direction: Direction, _ data: [UInt8], crc: CRCStatus = .unchecked,
  event: FrameEvent? = nil, timeNs: Int64? = nil
) -> Frame {
  Frame(
    index: index, timeNs: timeNs ?? Int64(index) * 500_000, direction: direction, event: event,
    data: data, crc: crc,
    location: SourceLocation(file: "test", unit: "frame", record: index + 1, offset: 0))
}

private let t2t = "derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"
private let t4t = "derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"
private let nfcgate = "derived/synthetic/synthetic_nfcgate_style.pcapng"

@Suite struct PcapImportTests {
  @Test func type2ReadWriteNakFrames() throws {
    let result = try importShared(t2t)
    #expect(result.error == nil)
    #expect(result.warnings.isEmpty)
    let frames = result.frames
    try #require(frames.count == 25)
    #expect(frames[0].direction == .event)
    #expect(frames[0].event == .fieldOn)
    #expect(frames[0].data.isEmpty)
    #expect(frames[0].timeNs == 0)
    #expect(frames[0].sourceTime == SourceTime(1_700_000_000_000_000_000, .nanoseconds))
    #expect(frames[0].location.record == 1 && frames[0].location.offset == 24)
    #expect(frames[0].location.unit == "packet")
    // REQA, then ATQA 44 00.
    #expect(frames[1].direction == .reader && frames[1].data == [0x26])
    #expect(frames[1].timeNs == 350_000 && frames[1].location.offset == 44)
    #expect(frames[2].direction == .tag && frames[2].data == [0x44, 0x00])
    // WRITE page 4, CRC included, and the 4-bit ACK (bits left to the decoder).
    let write = frames[15]
    #expect(write.direction == .reader)
    #expect(write.data == [0xA2, 0x04, 0x03, 0x00, 0xFE, 0x00, 0xE2, 0x51])
    #expect(write.crc == .unchecked && write.technology == .unknown)
    #expect(write.location.record == 16 && write.location.offset == 409)
    #expect(write.timeNs == 5_250_000)
    #expect(frames[16].direction == .tag && frames[16].data == [0x0A] && frames[16].bits == nil)
    // WRITE page 0x28 → NAK 00.
    #expect(frames[19].data.prefix(2) == [0xA2, 0x28])
    #expect(frames[20].direction == .tag && frames[20].data == [0x00])
    #expect(frames[24].event == .fieldOff && frames[24].location.offset == 642)
    #expect(frames.map(\.index) == Array(0..<25))
    #expect(frames.filter { $0.direction == .reader }.count == 12)
    #expect(frames.filter { $0.direction == .tag }.count == 11)
  }

  @Test func type4FailedUpdateFrames() throws {
    let result = try importShared(t4t)
    #expect(result.error == nil)
    let frames = result.frames
    try #require(frames.count == 30)
    #expect(frames[0].event == .fieldOn)
    // I-block 02 carrying UPDATE BINARY 00 D6 00 00 02 00 00 (NLEN = 0), CRC D4 B6.
    #expect(frames[25].direction == .reader)
    #expect(frames[25].data == [0x02, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00, 0xD4, 0xB6])
    #expect(frames[25].location.record == 26 && frames[25].location.offset == 699)
    #expect(frames[26].direction == .tag && frames[26].data == [0x02, 0x69, 0x82, 0xFB, 0x05])
    #expect(frames[29].direction == .event && frames[29].event == .fieldOff)
    #expect(frames[29].timeNs == 10_150_000)
    #expect(frames[29].location.record == 30 && frames[29].location.offset == 800)
  }

  @Test(arguments: [
    ("hf_14a_mfu-sim", 306), ("hf_14a_mfu", 22), ("hf_14a_reader_7b_rats", 16),
    ("hf_visa_apple_ecp", 34),
  ])
  func text2pcapFrameCounts(name: String, count: Int) throws {
    let result = try importShared("derived/pcap/\(name).text2pcap.pcapng")
    #expect(result.error == nil)
    // Only the time-base warning of the text2pcap route (the first gaps, or the first
    // answers behind Apple ECP polls, show it).
    #expect(result.warnings.allSatisfy { $0.message.contains("text2pcap route") })
    #expect(result.warnings.count == 1)
    #expect(result.frames.count == count)
    // text2pcap writes only 0xFE/0xFF and an if_tsresol of 9 (ns).
    #expect(result.frames.allSatisfy { $0.direction != .event && $0.crc == .unchecked })
    #expect(result.frames.allSatisfy { $0.sourceTime?.unit == .nanoseconds })
    #expect(result.frames.map(\.location.record) == Array(1...count))
  }

  @Test func pcapngPacketOffsets() throws {
    let frames = try importShared("derived/pcap/hf_14a_mfu.text2pcap.pcapng").frames
    try #require(frames.count == 22)
    // SHB 216 bytes + IDB 56 bytes; the EPB of a 5-byte packet is 40 bytes.
    #expect(frames[0].location.offset == 272)
    #expect(frames[0].data == [0x26])
    #expect(frames[1].location.offset == 312)
  }

  @Test func nfcgateInterfacesAndPrefix() throws {
    let result = try importShared(nfcgate)
    #expect(result.error == nil)
    let messages = result.warnings.map(\.message)
    let skipped = result.warnings.first { $0.message.hasPrefix("skipped") }
    #expect(skipped?.message == "skipped interface 1 (link type 147, LINKTYPE_USER0, 1 packet)")
    #expect(skipped?.location?.offset == 60)  // the second IDB (SHB 28 + IDB 32 bytes)
    #expect(messages.contains { $0.hasPrefix("NFCGate capture") && $0.contains("0x02") })
    let frames = result.frames
    try #require(frames.count == 8)
    #expect(frames.allSatisfy { $0.crc == .notCaptured })
    // A Type 2 capture (first command GET_VERSION 60h) is not taken for APDUs.
    #expect(frames.allSatisfy { $0.sourceFlags.isEmpty })
    // GET_VERSION → NTAG215 version 00 04 04 02 01 00 11 03.
    #expect(frames[0].direction == .reader && frames[0].data == [0x60])
    #expect(frames[1].direction == .tag)
    #expect(frames[1].data == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    // READ 3: CC E1 10 3E 00, then the NDEF TLV 03 14 D1 01 10 55 04 "examp".
    #expect(frames[2].direction == .reader && frames[2].data == [0x30, 0x03])
    #expect(
      frames[3].data == [
        0xE1, 0x10, 0x3E, 0x00, 0x03, 0x14, 0xD1, 0x01, 0x10, 0x55, 0x04, 0x65, 0x78, 0x61,
        0x6D, 0x70,
      ])
    #expect(frames[4].data == [0x30, 0x04])
    #expect(frames[6].data == [0x30, 0x08])
    // Page 8 onwards: "om/nfc", terminator TLV FE.
    #expect(frames[7].data.prefix(7) == [0x6F, 0x6D, 0x2F, 0x6E, 0x66, 0x63, 0xFE])
    // Packet numbers and offsets are those of the original file (packet 1 was interface 1).
    #expect(frames[0].location.record == 2 && frames[0].location.offset == 136)
    #expect(frames[7].location.record == 9 && frames[7].location.offset == 456)
    #expect(frames[0].sourceTime == SourceTime(1_764_000_000_002_000_000, .nanoseconds))
    #expect(frames[1].timeNs == 400_000)
  }

  @Test func nfcgateContentRuleOnSingleInterfaceFile() throws {
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path)
    let exchange: [(Direction, [UInt8])] = [
      (.reader, [0x02, 0x30, 0x04]), (.tag, [0x02] + Array(repeating: 0x11, count: 16)),
      (.reader, [0x02, 0x30, 0x08]), (.tag, [0x02] + Array(repeating: 0x22, count: 16)),
    ]
    for (i, (direction, data)) in exchange.enumerated() {
      try writer.write(frame(i, direction, data, crc: .notCaptured))
    }
    try writer.close()
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.map(\.data) == exchange.map { Array($0.1.dropFirst()) })
    #expect(result.warnings.count == 1)
    #expect(result.warnings.first?.message.hasPrefix("NFCGate-style capture") == true)
  }

  /// A pcap of `exchange` as NFCGate writes it (the CRC-dropped events, `02` before every
  /// frame); the caller removes the file.
  private func nfcgatePcap(_ exchange: [(Direction, String)]) throws -> String {
    let path = temporaryPath(".pcap")
    var writer = try PcapWriter(path: path)
    for (i, (direction, hex)) in exchange.enumerated() {
      try writer.write(frame(i, direction, [0x02] + (Hex.bytes(hex) ?? []), crc: .notCaptured))
    }
    try writer.close()
    return path
  }

  /// NFCGate relaying an IsoDep tag captures the APDUs (the phone's controller builds the
  /// ISO-DEP blocks): after the 0x02 is removed they are APDUs, not Type 2 commands, and a
  /// refused UPDATE BINARY is a failed writeNDEF (importer realism pass, finding 1).
  @Test func nfcgateIsoDepCaptureIsReadAsAPDUs() throws {
    let path = try nfcgatePcap([
      (.reader, "00a4040007d276000085010100"), (.tag, "9000"), (.reader, "00a4000c02e103"),
      (.tag, "9000"), (.reader, "00b000000f"), (.tag, "000f20003b00340406e10400ff00009000"),
      (.reader, "00a4000c02e104"), (.tag, "9000"), (.reader, "00b0000002"), (.tag, "00149000"),
      (.reader, "00d60000020000"), (.tag, "6982"),
    ])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.first?.data == Hex.bytes("00a4040007d276000085010100"))
    #expect(result.frames.allSatisfy { $0.sourceFlags == [ReaderChipFlag.isoDEPPayload] })
    #expect(result.warnings.map(\.message).contains { $0.hasPrefix("NFCGate capture of APDUs") })
    let report = try DiagnosisRun(importer: try PcapImporter(input: try TraceInput(path: path)))
      .diagnose()
    let finding = report.findings.first { $0.code == "t4t-security-not-satisfied" }
    #expect(finding?.coreNFCError?.code == 401)
    #expect(finding?.frames == [10, 11])
  }

  /// Two taps in one NFCGate capture (a Type 2 tag, then an IsoDep one): each reader command
  /// says whether it is an APDU, and its answer follows it (attacker pass, finding 3).
  @Test func nfcgateTwoTapsAreDecodedEachAsItIs() throws {
    let path = try nfcgatePcap([
      (.reader, "3004"), (.tag, "0300fe00000000000000000000000000"), (.reader, "3008"),
      (.tag, "00000000000000000000000000000000"), (.reader, "00a4040007d276000085010100"),
      (.tag, "9000"), (.reader, "00b0000002"), (.tag, "00149000"),
    ])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.prefix(4).allSatisfy { $0.sourceFlags.isEmpty })
    #expect(result.frames.suffix(4).allSatisfy { $0.sourceFlags == [ReaderChipFlag.isoDEPPayload] })
  }

  /// The second step of a two-step raw command (SECTOR_SELECT's `01 00 00 00`) looks like an
  /// APDU header but is raw (review of this session).
  @Test func nfcgateSecondStepStaysRaw() throws {
    let path = try nfcgatePcap([
      (.reader, "3004"), (.tag, "0300fe00000000000000000000000000"), (.reader, "c2ff"),
      (.tag, "0a"), (.reader, "01000000"), (.reader, "3004"),
      (.tag, "0300fe00000000000000000000000000"),
    ])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.allSatisfy { $0.sourceFlags.isEmpty })
  }

  @Test func isoDepBlocksKeepTheirPCB() throws {
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path)
    // I-blocks toggle 02/03: not NFCGate even though the CRC is dropped.
    let blocks: [[UInt8]] = [
      [0x02, 0x00, 0xB0], [0x02, 0x90, 0x00], [0x03, 0x00], [0x03, 0x90],
    ]
    for (i, data) in blocks.enumerated() {
      try writer.write(frame(i, i % 2 == 0 ? .reader : .tag, data, crc: .notCaptured))
    }
    try writer.close()
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.map(\.data) == blocks)
    #expect(result.warnings.isEmpty)
  }

  @Test func llcpIsNotSupportedYet() throws {
    let file = "derived/synthetic/synthetic_llcp_snep_put.pcap"
    let error = #expect(throws: TraceError.self) { try importShared(file) }
    #expect(error?.kind == .unsupported)
    #expect(
      error?.message
        == "link type 245 (LINKTYPE_NFC_LLCP) is not supported yet; expected link type 264 "
        + "(LINKTYPE_ISO_14443), or a USB capture of a PN53x or CCID reader (189, 220, 249)")
    #expect(error?.location.file == TestPaths.shared(file))
  }

  /// The hand-built usbmon captures of ../shared (PN533 frames; ACR122 CCID), which tshark
  /// decodes with its pn532_hci and acr122 dissectors: InListPassiveTarget, READ 4 answered
  /// with 15 bytes, WRITE 4 answered empty, InCommunicateThru READ 4 timed out.
  @Test(arguments: [
    "derived/synthetic/synthetic_usbmon_acr122_ccid.pcap",
    "derived/synthetic/synthetic_usbmon_pn533_scl3711_framing.pcap",
  ])
  func usbmonCapturesOfReaders(file: String) throws {
    let result = try importShared(file)
    #expect(result.error == nil)
    #expect(
      result.frames.map { "\($0.direction) \(Hex.string($0.data))" } == [
        "tag 4400", "tag 00", "reader 3004", "tag e11012000103a00c340319d1011555",
        "reader a204e1101200", "tag ", "reader 3004",
      ])
    #expect(result.frames.allSatisfy { $0.technology == .nfcA && $0.crc == .notCaptured })
    #expect(
      result.warnings.map(\.message) == [
        "InCommunicateThru status 0x01: timeout, the tag did not answer"
      ])
  }

  @Test func truncatedRecordKeepsEarlierFrames() throws {
    // Packet 16 (WRITE a2 04) starts at 409; its 16-byte record header ends at 425.
    let bytes = try sharedBytes(t2t).prefix(430)
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try bytes.write(to: URL(fileURLWithPath: path))
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.count == 15)
    #expect(result.frames.last?.data.prefix(7) == [0x6C, 0x65, 0x2E, 0x63, 0x6F, 0x6D, 0xFE])
    let error = try #require(result.error)
    #expect(error.kind == .truncated)
    #expect(error.location == SourceLocation(file: path, unit: "packet", record: 16, offset: 409))
    #expect(error.message.contains("truncated dump file"))
  }

  @Test func truncatedRecordHeaderInMemory() throws {
    let bytes = try sharedBytes(t2t).prefix(415)
    let result = try importPcap(TraceInput(path: "-", bytes: Data(bytes)))
    #expect(result.frames.count == 15)
    let error = try #require(result.error)
    #expect(error.kind == .truncated)
    #expect(error.location == SourceLocation(file: "-", unit: "packet", record: 16, offset: 409))
  }

  @Test func truncatedMixedInterfacePcapng() throws {
    // Cuts the 56-byte block of packet 5 (offset 264) of the NFCGate file.
    let bytes = try sharedBytes(nfcgate).prefix(300)
    let result = try importPcap(TraceInput(path: "cut.pcapng", bytes: Data(bytes)))
    #expect(
      result.frames.map(\.data) == [
        [0x60], [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03], [0x30, 0x03],
      ])
    let error = try #require(result.error)
    #expect(error.kind == .truncated)
    #expect(error.location.record == 5 && error.location.offset == 264)
  }

  @Test func truncatedSingleInterfacePcapng() throws {
    // hf_14a_mfu: EPBs of 40 bytes from 272; cut inside packet 3 (312 + 40 = 352).
    let bytes = try sharedBytes("derived/pcap/hf_14a_mfu.text2pcap.pcapng").prefix(370)
    let result = try importPcap(TraceInput(path: "-", bytes: Data(bytes)))
    #expect(result.frames.count == 2)
    let error = try #require(result.error)
    #expect(error.kind == .truncated)
    #expect(error.location.record == 3 && error.location.offset == 352)
  }

  @Test func inMemoryInputMatchesFile() throws {
    let fromFile = try importShared(t4t).frames
    let fromMemory = try importPcap(TraceInput(path: "-", bytes: sharedBytes(t4t))).frames
    #expect(fromMemory.count == 30)
    #expect(fromMemory.map(\.data) == fromFile.map(\.data))
    #expect(fromMemory.map(\.location.offset) == fromFile.map(\.location.offset))
    #expect(fromMemory.first?.location.file == "-")
  }

  @Test func emptyAndHeaderOnlyInputs() throws {
    let empty = #expect(throws: TraceError.self) {
      try importPcap(TraceInput(path: "-", bytes: Data()))
    }
    #expect(empty?.kind == .truncated)
    let pcapHeader = try importPcap(TraceInput(path: "-", bytes: sharedBytes(t2t).prefix(24)))
    #expect(pcapHeader.frames.isEmpty && pcapHeader.error == nil)
    // The NFCGate file's SHB alone (28 bytes).
    let shb = try importPcap(TraceInput(path: "-", bytes: sharedBytes(nfcgate).prefix(28)))
    #expect(shb.frames.isEmpty && shb.error == nil)
    let cutHeader = #expect(throws: TraceError.self) {
      try importPcap(TraceInput(path: "-", bytes: sharedBytes(t2t).prefix(10)))
    }
    #expect(cutHeader?.kind == .truncated)
    #expect(cutHeader?.location.record == 0 && cutHeader?.location.offset == 0)
  }

  @Test func unknownEventAndLengthMismatchAreWarnings() throws {
    var bytes = try sharedBytes(t2t)
    bytes[44 + 16 + 1] = 0xF0  // packet 2 (REQA): event byte
    bytes[65 + 16 + 3] = 0x09  // packet 3 (ATQA): length field 2 → 9
    let result = try importPcap(TraceInput(path: "edited.pcap", bytes: bytes))
    #expect(result.error == nil)
    #expect(result.frames.count == 24)
    #expect(result.frames[1].data == [0x44, 0x00] && result.frames[1].index == 1)
    try #require(result.warnings.count == 2)
    #expect(result.warnings[0].message.contains("unknown ISO 14443 pseudo-header event 0xf0"))
    #expect(result.warnings[0].location?.record == 2 && result.warnings[0].location?.offset == 44)
    #expect(
      result.warnings[1].message
        == "pseudo-header length field says 9 bytes but 2 follow; using the 2 captured bytes")
    #expect(result.warnings[1].location?.record == 3)
  }

  @Test func microsecondPcapKeepsMicroseconds() throws {
    var bytes = try sharedBytes(t2t)
    // The µs magic (little-endian): the fraction field 350000 now means 0.35 s.
    bytes.replaceSubrange(0..<4, with: [0xD4, 0xC3, 0xB2, 0xA1])
    let frames = try importPcap(TraceInput(path: "us.pcap", bytes: bytes)).frames
    try #require(frames.count == 25)
    #expect(frames[1].timeNs == 350_000_000)
    #expect(frames[1].sourceTime == SourceTime(1_700_000_000_350_000, .microseconds))
  }

  @Test func sniffRecognisesMagics() {
    let sniff = PcapFormats.pcap.sniff
    #expect(sniff([0xD4, 0xC3, 0xB2, 0xA1, 2, 0], "x") == 95)
    #expect(sniff([0xA1, 0xB2, 0xC3, 0xD4, 0, 2], "x.pcap") == 100)
    #expect(sniff([0x4D, 0x3C, 0xB2, 0xA1], "x") == 95)
    #expect(sniff([0xA1, 0xB2, 0x3C, 0x4D], "x") == 95)
    #expect(sniff([0x0A, 0x0D, 0x0D, 0x0A, 0x1C, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A], "x") == 95)
    #expect(sniff([0x0A, 0x0D, 0x0D, 0x0A], "y.pcapng") == 85)
    #expect(sniff(Array("Start | End".utf8), "x.pcap") == 0)
    #expect(PcapFormats.all.map(\.name) == ["pcap"])
  }
}

/// A pcapng block: type, total length, body, total length again.
private func pcapngBlock(_ type: Int, _ body: [UInt8]) -> [UInt8] {
  let length = 12 + body.count
  return le(type, 4) + le(length, 4) + body + le(length, 4)
}

/// Little-endian bytes of `v` (`n` bytes).
private func le(_ v: Int, _ n: Int) -> [UInt8] {
  (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
}

/// Byte offsets after the reader stopped asking `ftell` per packet (review of the streaming
/// work): counted record positions must stay right where libpcap moves differently.
@Suite struct PcapOffsetTests {
  /// A record longer than the snap length is cut and its rest skipped: offsets after it must
  /// still be the file's. pcap: µs little-endian, snap length 8, link type 264.
  @Test func offsetsAfterARecordLongerThanTheSnapLength() throws {
    var bytes: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1] + le(2, 2) + le(4, 2) + le(0, 8) + le(8, 4)
      + le(264, 4)
    func record(_ payload: [UInt8]) {
      bytes += le(1, 4) + le(0, 4) + le(payload.count, 4) + le(payload.count, 4) + payload
    }
    record([0x00, 0xFE, 0x00, 0x08, 0x30, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])  // 24…52
    record([0x00, 0xFE])  // 52…70: too short for the pseudo-header
    bytes += le(1, 4) + le(0, 4) + le(40, 4) + le(40, 4) + [0x00, 0xFE]  // cut at 70
    let result = try importPcap(TraceInput(path: "snap.pcap", bytes: Data(bytes)))
    #expect(result.frames.count == 1)
    #expect(result.warnings.compactMap(\.location?.offset).contains(52))
    #expect(result.warnings.allSatisfy { $0.location?.offset != 48 })
    #expect(
      result.error?.location
        == SourceLocation(file: "snap.pcap", unit: "packet", record: 3, offset: 70))
  }

  /// A frame the snap length cut (captured 16 of 22 bytes) lost its CRC to the capture: its
  /// CRC is not-captured and it is flagged truncated, not a damaged frame (field engineer
  /// pass 2, x-08).
  @Test func frameCutBySnapLengthIsNotDamaged() throws {
    var bytes: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1] + le(2, 2) + le(4, 2) + le(0, 8) + le(16, 4) + le(264, 4)
    let answer: [UInt8] = [0x00, 0xFF, 0x00, 0x12] + Array(repeating: 0x61, count: 18)
    bytes += le(1, 4) + le(0, 4) + le(16, 4) + le(answer.count, 4) + Array(answer.prefix(16))
    let result = try importPcap(TraceInput(path: "cut.pcap", bytes: Data(bytes)))
    let frame = try #require(result.frames.first)
    #expect(frame.data.count == 12)
    #expect(frame.crc == .notCaptured)
    #expect(frame.sourceFlags == ["truncated"])
    #expect(result.warnings.first?.message.hasPrefix("packet captured 16 of its 22 bytes") == true)
    // The pseudo-header's length (18) counts the packet as sent: no second warning about it.
    #expect(result.warnings.count == 1)
    // Cut below the pseudo-header: skipped, and the warning says the snap length did it.
    var short: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1] + le(2, 2) + le(4, 2) + le(0, 8) + le(2, 4) + le(264, 4)
    short += le(1, 4) + le(0, 4) + le(2, 4) + le(5, 4) + [0x00, 0xFE]
    let skipped = try importPcap(TraceInput(path: "short.pcap", bytes: Data(short)))
    #expect(skipped.frames.isEmpty)
    #expect(
      skipped.warnings.first?.message.hasSuffix(
        "(the snap length cut the packet: captured 2 of its 5 bytes)") == true)
  }

  /// Two link-type-264 interfaces in one pcapng (two sniffers, a merged capture): only the
  /// first is read and the second is skipped with a warning, instead of their frames being
  /// interleaved as one exchange (field engineer pass 2, x-02).
  @Test func secondISO14443InterfaceIsSkipped() throws {
    let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    func epb(_ interface: Int, _ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        6,
        le(interface, 4) + le(0, 4) + le(1, 4) + le(payload.count, 4) + le(payload.count, 4)
          + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4))
    }
    let reqa: [UInt8] = [0x00, 0xFF, 0x00, 0x01, 0x26]
    let atqa: [UInt8] = [0x00, 0xFE, 0x00, 0x02, 0x44, 0x00]
    let bytes =
      shb + idb + idb + epb(0, reqa) + epb(1, reqa) + epb(0, atqa) + epb(1, atqa) + epb(1, atqa)
    let result = try importPcap(TraceInput(path: "two.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 2)
    let warning = try #require(result.warnings.first)
    #expect(
      warning.message.hasPrefix(
        "skipped interface 1 (link type 264, LINKTYPE_ISO_14443, 3 packets): a second interface of the same link type"
      ))
  }

  /// Interfaces of link types 264 and 147 (NFCGate's pair) whose frames lack NFCGate's 0x02
  /// prefix: another tool's capture, read as ordinary ISO 14443 frames (CRC included). Every
  /// frame was warned "does not start with the 0x02 prefix" and read CRC-less, losing the UID.
  @Test func user0InterfaceWithoutThePrefixIsNoNFCGateCapture() throws {
    let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb264 = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    let idb147 = pcapngBlock(1, le(147, 2) + le(0, 2) + le(0, 4))
    func epb(_ interface: Int, _ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        6,
        le(interface, 4) + le(0, 4) + le(1, 4) + le(payload.count, 4) + le(payload.count, 4)
          + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4))
    }
    func frame(_ event: UInt8, _ data: [UInt8]) -> [UInt8] {
      [0x00, event] + le(data.count, 2).reversed() + data
    }
    let select = CRC.appendingCRCA([0x93, 0x70, 0x88, 0x04, 0xA8, 0x1D, 0x39])
    let bytes =
      shb + idb264 + idb147 + epb(1, [0x01]) + epb(0, frame(0xFF, [0x26]))
      + epb(0, frame(0xFE, [0x44, 0x00])) + epb(0, frame(0xFF, [0x93, 0x20]))
      + epb(0, frame(0xFE, [0x88, 0x04, 0xA8, 0x1D, 0x39])) + epb(0, frame(0xFF, select))
      + epb(0, frame(0xFE, CRC.appendingCRCA([0x04])))
    let result = try importPcap(TraceInput(path: "user0.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 6)
    #expect(result.frames[4].data == select)
    #expect(!result.warnings.contains { $0.message.contains("does not start with the 0x02") })
    #expect(
      result.warnings.contains {
        $0.message.hasPrefix("interfaces of link types 264 and 147 (as NFCGate writes), but")
      })
  }

  /// Simple Packet Blocks carry no time stamp: the frames are numbered in order (unit
  /// `order`, no timing analyses) with one warning; every gap read 0 ms, silently.
  @Test func simplePacketBlocksAreUntimed() throws {
    let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    func spb(_ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        3, le(payload.count, 4) + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4))
    }
    // Twelve packets: past the 8 frames read ahead, the numbering goes on without a gap.
    var bytes = shb + idb
    for _ in 0..<4 {
      bytes +=
        spb([0x00, 0xFF, 0x00, 0x01, 0x26]) + spb([0x00, 0xFE, 0x00, 0x02, 0x44, 0x00])
        + spb([0x00, 0xFF, 0x00, 0x02, 0x93, 0x20])
    }
    let result = try importPcap(TraceInput(path: "spb.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 12)
    #expect(result.frames.allSatisfy { $0.sourceTime?.unit == .order })
    #expect(result.frames.map { $0.sourceTime?.value } == (0..<12).map { Int64($0) })
    #expect(result.warnings.count == 1)
    #expect(
      result.warnings.first?.message.hasPrefix("the packets carry no time (the first ") == true)
  }

  /// pcapng where libpcap refuses a block the walk accepted (a second section of major
  /// version 2): the error names the block's offset, not 0.
  @Test func pcapngErrorPastTheWalkedPackets() throws {
    let shb1 = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    func epb(_ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        6, le(0, 4) + le(0, 4) + le(1, 4) + le(payload.count, 4) + le(payload.count, 4) + payload)
    }
    let reqa = epb([0x00, 0xFF, 0x00, 0x01, 0x26, 0x00, 0x00, 0x00])
    let atqa = epb([0x00, 0xFE, 0x00, 0x02, 0x44, 0x00, 0x00, 0x00])
    let shb2 = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(2, 2) + le(0, 2) + le(-1, 8))
    let bytes = shb1 + idb + reqa + atqa + shb2
    let second = shb1.count + idb.count + reqa.count + atqa.count
    let result = try importPcap(TraceInput(path: "v2.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 2)
    let error = try #require(result.error)
    #expect(error.location.record == 3)
    #expect(error.location.offset == second)
  }
}

extension PcapOffsetTests {
  /// libpcap's complaint about the first Interface Description Block names that block's
  /// offset (here 44, after a section header with a 12-byte option), not byte 0.
  @Test func interfaceBlockErrorNamesItsOffset() throws {
    let option = le(1, 2) + le(8, 2) + Array("comment!".utf8)  // opt_comment, 8 bytes
    let shb = pcapngBlock(
      0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8) + option + le(0, 4))
    // if_tsresol 20 (10⁻²⁰ s): more than libpcap accepts.
    let idb = pcapngBlock(
      1, le(264, 2) + le(0, 2) + le(0, 4) + le(9, 2) + le(1, 2) + [20, 0, 0, 0])
    #expect(shb.count == 44)
    let input = TraceInput(path: "idb.pcapng", bytes: Data(shb + idb))
    #expect {
      try importPcap(input)
    } throws: {
      let e = $0 as? TraceError
      return e?.location.offset == 44 && e?.message.contains("if_tsresol") == true
    }
  }
}

extension PcapOffsetTests {
  /// The first packets read ahead at time 0, a later one timed: frames are timed from it on,
  /// with a second warning (the first said "no packet carries a time" and nothing was timed).
  @Test func timedPacketAfterUntimedOnes() throws {
    var bytes: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1] + le(2, 2) + le(4, 2) + le(0, 8) + le(65535, 4) + le(264, 4)
    func record(usec: Int, _ payload: [UInt8]) {
      bytes += le(0, 4) + le(usec, 4) + le(payload.count, 4) + le(payload.count, 4) + payload
    }
    for _ in 0..<12 { record(usec: 0, [0x00, 0xFE, 0x00, 0x01, 0x26]) }
    record(usec: 4200, [0x00, 0xFF, 0x00, 0x02, 0x44, 0x00])
    let result = try importPcap(TraceInput(path: "late.pcap", bytes: Data(bytes)))
    #expect(result.frames.count == 13)
    #expect(result.frames.prefix(12).allSatisfy { $0.sourceTime?.unit == .order })
    #expect(result.frames[12].timeNs == 4_200_000)
    #expect(result.frames[12].sourceTime?.unit == .microseconds)
    #expect(
      result.warnings.map(\.message).contains(
        "this packet carries a time, after packets without one: frames are timed from here"))
  }
}

/// A pcap record's seconds are unsigned 32-bit: 2³¹ (January 2038) is one second after
/// 2³¹ − 1, not 136 years before it (libpcap sign-extends them).
@Test func recordSecondsPast2038AreUnsigned() throws {
  func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
  var file = le32(0xA1B2_3C4D) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65535) + le32(264)
  for (seconds, packet) in [
    (UInt32(0x7FFF_FFFF), [UInt8]([0, 0xFE, 0, 1, 0x26])),
    (0x8000_0000, [0, 0xFF, 0, 2, 0x44, 0]),
  ] {
    file += le32(seconds) + le32(0) + le32(UInt32(packet.count)) + le32(UInt32(packet.count))
    file += packet
  }
  let result = try importPcap(TraceInput(path: "y2038.pcap", bytes: Data(file)))
  #expect(result.frames.map(\.timeNs) == [0, 1_000_000_000])
  #expect(result.warnings.isEmpty)
}

/// A pcapng packet naming an interface no IDB describes is skipped with a warning; the packets
/// after it are read (libpcap stopped the whole file there).
@Test func packetOnAnUndefinedInterfaceIsSkipped() throws {
  func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
    let length = UInt32(12 + body.count)
    return le32(type) + le32(length) + body + le32(length)
  }
  func epb(_ interface: UInt32, _ micros: UInt32, _ data: [UInt8]) -> [UInt8] {
    let pad = [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    return block(
      6,
      le32(interface) + le32(0) + le32(micros) + le32(UInt32(data.count))
        + le32(UInt32(data.count)) + data + pad)
  }
  let reqa: [UInt8] = [0, 0xFE, 0, 1, 0x26]
  let atqa: [UInt8] = [0, 0xFF, 0, 2, 0x44, 0]
  let file =
    block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + [1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8))
    + block(1, [0x08, 0x01, 0, 0] + le32(0)) + epb(0, 1000, reqa) + epb(5, 2000, atqa)
    + epb(0, 3000, reqa) + epb(0, 4000, atqa)
  let result = try importPcap(TraceInput(path: "undefined.pcapng", bytes: Data(file)))
  #expect(result.error == nil)
  #expect(result.frames.filter { $0.direction != .event }.count == 3)
  #expect(result.warnings.count == 1)
  #expect(result.warnings.first?.message.hasPrefix("skipped packet 2: its interface id") == true)
  #expect(result.warnings.first?.location?.offset == 88)
}

/// A pcapng time stamp past what 64-bit nanoseconds hold (after 2262; a 64-bit count of µs up
/// to 2⁶⁴ − 1) is held at the end of the range, with one warning, never wrapped to a negative
/// time (it was `seconds &* 1e9`: 1969 and -9223372036854.775 ms in the timeline).
@Test func pcapngTimePast2262IsHeldNotWrapped() throws {
  let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
  let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))  // µs resolution
  func epb(high: Int, low: Int, _ payload: [UInt8]) -> [UInt8] {
    pcapngBlock(
      6,
      le(0, 4) + le(high, 4) + le(low, 4) + le(payload.count, 4) + le(payload.count, 4)
        + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4))
  }
  func frame(_ event: UInt8, _ data: [UInt8]) -> [UInt8] {
    [0x00, event] + le(data.count, 2).reversed() + data
  }
  let bytes =
    shb + idb + epb(high: 0, low: 1, frame(0xFF, [0x26]))
    + epb(high: -1, low: -1, frame(0xFE, [0x44, 0x00]))
    + epb(high: -1, low: -1, frame(0xFF, [0x93, 0x20]))
  let result = try importPcap(TraceInput(path: "late.pcapng", bytes: Data(bytes)))
  #expect(result.frames.count == 3)
  #expect(result.frames.map(\.timeNs) == [0, Int64.max - 1_000, Int64.max - 1_000])
  #expect(
    result.warnings.filter { $0.message.hasPrefix("packet time is past 2262-04-11") }.count == 1)
  #expect(result.warnings.first?.location?.record == 2)
}

extension PcapOffsetTests {
  /// Enhanced Packet Blocks (timed) then Simple Packet Blocks (no time): the untimed packets
  /// are placed at the last time, numbered in order, with one warning. They lay in 1970,
  /// −1.7 × 10⁹ s before the capture (2026-12-07 review).
  @Test func simplePacketBlocksAfterTimedOnesKeepTheLastTime() throws {
    let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    // 2023-11-14 22:13:20 UTC in µs (the default resolution): 1.7e15.
    let base = 1_700_000_000_000_000
    func epb(_ micros: Int, _ payload: [UInt8]) -> [UInt8] {
      let t = base + micros
      return pcapngBlock(
        6,
        le(0, 4) + le(t >> 32, 4) + le(t & 0xFFFF_FFFF, 4) + le(payload.count, 4)
          + le(payload.count, 4) + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4)
      )
    }
    func spb(_ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        3, le(payload.count, 4) + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4))
    }
    var bytes = shb + idb
    for i in 0..<9 { bytes += epb(i * 1000, [0x00, 0xFF, 0x00, 0x01, 0x26]) }
    bytes += spb([0x00, 0xFE, 0x00, 0x02, 0x44, 0x00]) + spb([0x00, 0xFF, 0x00, 0x02, 0x93, 0x20])
    let result = try importPcap(TraceInput(path: "mixed.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 11)
    #expect(result.frames.suffix(2).map(\.timeNs) == [8_000_000, 8_000_000])
    #expect(result.frames.suffix(2).map { $0.sourceTime?.unit } == [.order, .order])
    #expect(result.frames.suffix(2).map { $0.sourceTime?.value } == [9, 10])
    #expect(
      result.warnings.map(\.message) == [
        "packet without a time (a pcapng Simple Packet Block) after timed ones: placed at the "
          + "latest time so far, in order (said once)"
      ])
  }
}

extension PcapOffsetTests {
  /// An Enhanced Packet Block whose time is 0 (a merged capture that starts its own clock at
  /// 0) is timed, not a Simple Packet Block: it keeps its time (a step back, warned).
  @Test func enhancedPacketAtTimeZeroKeepsItsTime() throws {
    let shb = pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    let idb = pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))
    func epb(_ micros: Int, _ payload: [UInt8]) -> [UInt8] {
      pcapngBlock(
        6,
        le(0, 4) + le(micros >> 32, 4) + le(micros & 0xFFFF_FFFF, 4) + le(payload.count, 4)
          + le(payload.count, 4) + payload + Array(repeating: 0, count: (4 - payload.count % 4) % 4)
      )
    }
    var bytes = shb + idb
    for i in 1...9 { bytes += epb(5_000_000 + i * 1000, [0x00, 0xFF, 0x00, 0x01, 0x26]) }
    bytes += epb(0, [0x00, 0xFF, 0x00, 0x01, 0x26])
    let result = try importPcap(TraceInput(path: "zero.pcapng", bytes: Data(bytes)))
    #expect(result.frames.count == 10)
    #expect(result.frames.last?.sourceTime?.unit == .microseconds)
    #expect(result.frames.last?.sourceTime?.value == 0)
    #expect(result.warnings.contains { $0.message.hasPrefix("packet time goes back") })
    #expect(!result.warnings.contains { $0.message.contains("Simple Packet Block") })
  }
}

extension PcapOffsetTests {
  /// Simple Packet Blocks (no time) before Enhanced Packet Blocks (timed): the untimed
  /// frames are numbered in order and the first timed packet starts the clock at 0. They
  /// were at 0 and the timed ones 1.7 × 10¹² ms later, counted from 1970 (2026-12-07 note).
  @Test func simplePacketBlocksBeforeTimedOnesDoNotCountFrom1970() throws {
    let reqa: [UInt8] = [0x00, 0xFE, 0x00, 0x01, 0x26]
    let atqa: [UInt8] = [0x00, 0xFF, 0x00, 0x02, 0x44, 0x00]
    let (spb, epb) = (Self.simplePacket, { Self.enhancedPacket(1_700_000_000_000_000 + $0, $1) })
    let bytes =
      Self.pcapngHeader + spb(reqa) + spb(atqa) + epb(0, reqa) + epb(100, atqa) + epb(5_100, reqa)
    let result = try importPcap(TraceInput(path: "spb-first.pcapng", bytes: Data(bytes)))
    #expect(result.frames.map(\.timeNs) == [0, 0, 0, 100_000, 5_100_000])
    #expect(result.frames.prefix(2).map { $0.sourceTime?.unit } == [.order, .order])
    #expect(
      result.frames.suffix(3).map { $0.sourceTime?.unit }
        == Array(repeating: .microseconds, count: 3))
    #expect(
      result.warnings.map(\.message) == [
        "this packet carries a time, after Simple Packet Blocks without one: frames are timed "
          + "from here"
      ])
  }
}

extension PcapOffsetTests {
  /// An Enhanced Packet Block stamped 0, then a Simple Packet Block, then timed ones: the
  /// clock keeps the first packet's 0 (it was restarted at the third, "after Simple Packet
  /// Blocks" said of a capture that began timed; review).
  @Test func enhancedPacketAtZeroThenSimplePacketKeepsTheClock() throws {
    let reqa: [UInt8] = [0x00, 0xFE, 0x00, 0x01, 0x26]
    let atqa: [UInt8] = [0x00, 0xFF, 0x00, 0x02, 0x44, 0x00]
    let (spb, epb) = (Self.simplePacket, Self.enhancedPacket)
    let bytes = Self.pcapngHeader + epb(0, reqa) + spb(atqa) + epb(100, reqa) + epb(5_100, atqa)
    let result = try importPcap(TraceInput(path: "epb0.pcapng", bytes: Data(bytes)))
    #expect(result.frames.map(\.timeNs) == [0, 0, 100_000, 5_100_000])
    #expect(
      !result.warnings.map(\.message).contains {
        $0.hasPrefix("this packet carries a time, after Simple Packet Blocks")
      })
  }
}

extension PcapOffsetTests {
  /// A Section Header and one link-type-264 Interface Description Block (µs resolution).
  static let pcapngHeader =
    pcapngBlock(0x0A0D_0D0A, le(0x1A2B_3C4D, 4) + le(1, 2) + le(0, 2) + le(-1, 8))
    + pcapngBlock(1, le(264, 2) + le(0, 2) + le(0, 4))

  static func padded(_ p: [UInt8]) -> [UInt8] {
    p + Array(repeating: 0, count: (4 - p.count % 4) % 4)
  }

  /// An Enhanced Packet Block of interface 0 at `micros` µs.
  static func enhancedPacket(_ micros: Int, _ payload: [UInt8]) -> [UInt8] {
    pcapngBlock(
      6,
      le(0, 4) + le(micros >> 32, 4) + le(micros & 0xFFFF_FFFF, 4) + le(payload.count, 4)
        + le(payload.count, 4) + padded(payload))
  }

  /// A Simple Packet Block: no interface, no time.
  static func simplePacket(_ payload: [UInt8]) -> [UInt8] {
    pcapngBlock(3, le(payload.count, 4) + padded(payload))
  }
}
