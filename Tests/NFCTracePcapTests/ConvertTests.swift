import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

// `nfctrace convert` as the library does it: importer → PcapWriter / PcapngWriter, then the
// files are read back by tshark (the oracle): every frame is there, the times are the source's
// (Proxmark3 carrier ticks × 1/13.56 MHz), CRCs verify where the source captured them, and
// libnfc frames (whose CRC the PN53x strips) use the CRC-not-captured events 0xFA / 0xFB.

private let tshark: String? = {
  let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
  return paths.map { "\($0)/tshark" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

/// tshark's field output, one array of columns per packet.
private func tsharkRows(_ file: String, _ fields: [String]) throws -> [[String]] {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: tshark ?? "tshark")
  p.arguments = ["-r", file, "-T", "fields"] + fields.flatMap { ["-e", $0] }
  let out = Pipe()
  p.standardOutput = out
  p.standardError = FileHandle.nullDevice
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return String(decoding: data, as: UTF8.self).split(separator: "\n")
    .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
}

/// All frames of an importer, and the same frames written as pcap and pcapng in a folder of
/// their own (`dir`, which the caller removes).
private func convert(_ importer: any TraceImporter, name: String) throws
  -> (frames: [Frame], pcap: String, pcapng: String, dir: URL)
{
  var importer = importer
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
    "nfctrace-convert-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  let pcap = dir.appendingPathComponent("\(name).pcap").path
  let pcapng = dir.appendingPathComponent("\(name).pcapng").path
  var w = try PcapWriter(path: pcap)
  var wng = try PcapngWriter(path: pcapng)
  for f in frames {
    try w.write(f)
    try wng.write(f)
  }
  try w.close()
  try wng.close()
  return (frames, pcap, pcapng, dir)
}

private let fields = [
  "frame.number", "frame.time_relative", "iso14443.event", "iso14443.crc.status",
]

@Test(.enabled(if: tshark != nil, "tshark not installed (scripts/setup.sh --test)"))
func proxmark3TraceConvertsWithRealTimesAndVerifiedCRCs() throws {
  let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))
  let (frames, pcap, pcapng, dir) = try convert(
    try Proxmark3BinaryImporter(input: input), name: "mfu-sim")
  defer { try? FileManager.default.removeItem(at: dir) }
  #expect(frames.count == 306)
  for file in [pcap, pcapng] {
    let rows = try tsharkRows(file, fields)
    #expect(rows.count == frames.count, "\(file): every frame is read")
    #expect(rows.enumerated().allSatisfy { $0.element.first == String($0.offset + 1) })
    // Times: the gap between the REQA (frame 1) and the next REQA after the ECP polling
    // (frame 4) is (ticks₄ − ticks₁) / 13.56 MHz; tshark reads it from the ns timestamps.
    let ticks = frames.map { $0.sourceTime?.value ?? -1 }
    let gapNs = Double(ticks[3] - ticks[0]) * 1e9 / 13_560_000
    let tsharkGapNs = (Double(rows[3][1]) ?? 0) * 1e9 - (Double(rows[0][1]) ?? 0) * 1e9
    #expect(abs(tsharkGapNs - gapNs) < 2, "\(file): \(tsharkGapNs) ns vs \(gapNs) ns")
    #expect(abs(gapNs - 349_711_357) < 2)  // 349.711 ms of idle field between two pollings
    // Every frame is data from the reader (0xFE) or the tag (0xFF): the CRC was captured.
    for (f, row) in zip(frames, rows) {
      #expect(row[2] == (f.direction == .reader ? "0xfe" : "0xff"), "frame \(f.index)")
    }
    // CRC: where tshark checks one, its verdict is CRC_A's (1 good, 0 bad; 2 = tshark did
    // not verify, which tshark 4.0 does for some ISO-DEP I-blocks).
    let checked = zip(frames, rows).filter { ["0", "1"].contains($0.1[3]) }
    #expect(checked.count == 84, "\(file): \(checked.count) CRCs verified by tshark")
    for (f, row) in checked {
      #expect(row[3] == (CRC.hasValidCRCA(f.data) ? "1" : "0"), "frame \(f.index)")
    }
    #expect(checked.allSatisfy { $0.1[3] == "1" })
    let unverified = zip(frames, rows).filter { $0.1[3] == "2" }
    #expect(unverified.allSatisfy { CRC.hasValidCRCA($0.0.data) })
  }
}

@Test(.enabled(if: tshark != nil, "tshark not installed (scripts/setup.sh --test)"))
func libnfcLogConvertsWithCRCNotCapturedEvents() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/acr122u_t2t_read_write.log"))
  let (frames, pcap, pcapng, dir) = try convert(
    try LibnfcLogImporter(input: input), name: "acr122u")
  defer { try? FileManager.default.removeItem(at: dir) }
  #expect(frames.count == 12)
  for file in [pcap, pcapng] {
    let rows = try tsharkRows(file, fields)
    #expect(rows.count == frames.count, "\(file): every frame is read")
    let events = rows.map { $0.count > 2 ? $0[2] : "" }
    for (f, event) in zip(frames, events) {
      switch f.direction {
      case .reader: #expect(event == "0xfa", "frame \(f.index): reader data, CRC not captured")
      case .tag: #expect(event == "0xfb", "frame \(f.index): tag data, CRC not captured")
      case .event: #expect(event == (f.event == .fieldOn ? "0xfc" : "0xfd"))
      }
    }
    #expect(events.filter { $0 == "0xfa" }.count == 4)
    #expect(events.filter { $0 == "0xfb" }.count == 5)
    // No CRC bytes, so nothing for tshark to verify.
    #expect(rows.allSatisfy { $0.count < 4 || $0[3].isEmpty })
  }
}

/// ISO 14443-3 type B from a pcap (which does not say the technology), against tshark's
/// dissector: the same PUPI, FSC, FWI and CID support in ATQB, the same FSD and CID in ATTRIB
/// and its answer, and every CRC_B good.
@Test(.enabled(if: tshark != nil, "tshark not installed (scripts/setup.sh --test)"))
func typeBActivationMatchesTshark() throws {
  let input = try TraceInput(
    path: TestPaths.shared("public/nfc-laboratory/test_NFC-B_106kbps_001.json"))
  let (_, pcap, _, dir) = try convert(try NFCLabImporter(input: input), name: "nfc-b")
  defer { try? FileManager.default.removeItem(at: dir) }
  let rows = try tsharkRows(
    pcap,
    [
      "iso14443.pupi", "iso14443.max_frame_size", "iso14443.fwi", "iso14443.cid_supported",
      "iso14443.cid", "iso14443.crc.status",
    ])
  let importer = try PcapImporter(input: try TraceInput(path: pcap))
  var decoder = FrameDecoder()
  var decoded: [DecodedFrame] = []
  while let f = try importer.next() { decoded.append(decoder.decode(f)) }
  #expect(decoded.count == 5 && rows.count == 5)
  let atqb = try #require(decoded[1].layer(.iso14443B))
  #expect(atqb.name == "ATQB")
  #expect(
    rows[1][0] == "0x"
      + (atqb.field("pupi")?.description.replacingOccurrences(of: " ", with: "") ?? ""))
  #expect(rows[1][1] == atqb.field("fsc")?.description)
  #expect(rows[1][2] == atqb.field("fwi")?.description)
  #expect(rows[1][3] == (atqb.field("cid_supported") == .bool(true) ? "1" : "0"))
  let attrib = try #require(decoded[2].layer(.iso14443B))
  #expect(attrib.name == "ATTRIB")
  #expect(rows[2][1] == attrib.field("fsd")?.description)
  #expect(rows[2][4] == "0x0" + (attrib.field("cid")?.description ?? ""))
  #expect(rows[3][4] == "0x0" + (decoded[3].layer(.iso14443B)?.field("cid")?.description ?? ""))
  for (f, row) in zip(decoded.prefix(4), rows) {
    #expect(row[5] == "1" && f.frame.crc == .ok, "frame \(f.frame.index)")
  }
}

/// A converted libnfc log has all times 0 (the log has none): they are not taken for Proxmark3
/// ticks written as 0.1 ns, whose warning would send the user to convert the file again.
@Test func convertedLibnfcLogRaisesNoTickWarning() throws {
  let input = try TraceInput(path: TestPaths.traces("libnfc/acr122u_t2t_read_write.log"))
  let (_, pcap, pcapng, dir) = try convert(try LibnfcLogImporter(input: input), name: "zero-times")
  defer { try? FileManager.default.removeItem(at: dir) }
  for file in [pcap, pcapng] {
    let back = try importPcap(TraceInput(path: file))
    #expect(back.frames.count == 12)
    // Only the note that the packets carry no times (they are numbered in order).
    #expect(back.warnings.count == 1, "\(file): \(back.warnings.map(\.message))")
    #expect(back.warnings.first?.message.hasPrefix("the packets carry no time (the first ") == true)
    #expect(back.frames.allSatisfy { $0.sourceTime?.unit == .order })
  }
}
