import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// `tshark` on PATH, or nil (the tshark checks are then skipped).
private let tsharkPath: String? = {
  let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
  return paths.map { "\($0)/tshark" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

/// tshark's field output for `file`, one line per packet.
private func tsharkFields(_ file: String, _ fields: [String]) throws -> [String] {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tsharkPath ?? "tshark")
  process.arguments = ["-r", file, "-T", "fields"] + fields.flatMap { ["-e", $0] }
  let out = Pipe()
  process.standardOutput = out
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}

private let base: Int64 = 1_700_000_000_000_000_000

/// Field on, REQA/ATQA with CRC-less bytes, a CRC-dropped READ exchange, field off.
private let sample: [Frame] = [
  frame(0, .event, [], event: .fieldOn, timeNs: 0),
  frame(1, .reader, [0x26], timeNs: 350_000),
  frame(2, .tag, [0x44, 0x00], timeNs: 700_000),
  frame(3, .reader, [0x30, 0x04], crc: .notCaptured, timeNs: 1_050_001),
  frame(4, .tag, [0x03, 0x00, 0xFE, 0x00], crc: .notCaptured, timeNs: 1_400_000),
  frame(5, .event, [], event: .fieldOff, timeNs: 2_000_000_123),
]

@Suite struct PcapWriterTests {
  private func writeSample() throws -> String {
    let path = temporaryPath(".pcap")
    var writer = try PcapWriter(path: path, baseEpochNs: base)
    for f in sample { try writer.write(f) }
    try writer.close()
    return path
  }

  @Test func roundTripThroughImporter() throws {
    let path = try writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    // Nanosecond pcap magic in host (little-endian) order, link type 264 at offset 20.
    #expect([UInt8](bytes.prefix(4)) == [0x4D, 0x3C, 0xB2, 0xA1])
    #expect([UInt8](bytes[20..<24]) == [0x08, 0x01, 0x00, 0x00])
    let result = try importPcap(TraceInput(path: path))
    #expect(result.error == nil && result.warnings.isEmpty)
    let frames = result.frames
    try #require(frames.count == sample.count)
    #expect(frames.map(\.direction) == sample.map(\.direction))
    #expect(frames.map(\.event) == sample.map(\.event))
    #expect(frames.map(\.data) == sample.map(\.data))
    #expect(
      frames.map(\.crc) == [
        .unchecked, .unchecked, .unchecked, .notCaptured, .notCaptured, .unchecked,
      ])
    #expect(frames.map(\.timeNs) == sample.map(\.timeNs))
    #expect(frames[3].sourceTime == SourceTime(base + 1_050_001, .nanoseconds))
    // 24-byte header, then 16-byte record headers: field on (4 bytes), REQA (5 bytes).
    #expect(frames.map(\.location.offset).prefix(3) == [24, 44, 65])
  }

  @Test(.enabled(if: tsharkPath != nil, "tshark is not on PATH"))
  func tsharkReadsTheWrittenFile() throws {
    let path = try writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let lines = try tsharkFields(
      path,
      [
        "frame.number", "iso14443.hdr_version", "iso14443.event", "iso14443.length_field",
        "frame.time_epoch",
      ])
    #expect(
      lines == [
        "1\t0x00\t0xfc\t0\t1700000000.000000000",
        "2\t0x00\t0xfe\t1\t1700000000.000350000",
        "3\t0x00\t0xff\t2\t1700000000.000700000",
        "4\t0x00\t0xfa\t2\t1700000000.001050001",
        "5\t0x00\t0xfb\t4\t1700000000.001400000",
        "6\t0x00\t0xfd\t0\t1700000002.000000123",
      ])
  }

  @Test(.enabled(if: tsharkPath != nil, "tshark is not on PATH"))
  func rewrittenNFCGateFileMatchesTshark() throws {
    // Import the NFCGate capture (prefix stripped) and write it back as plain 264 pcap.
    let frames = try importShared("derived/synthetic/synthetic_nfcgate_style.pcapng").frames
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path, baseEpochNs: 1_764_000_000_002_000_000)
    for f in frames { try writer.write(f) }
    try writer.close()
    let lines = try tsharkFields(path, ["frame.number", "iso14443.event", "frame.len"])
    #expect(
      lines == [
        "1\t0xfa\t5", "2\t0xfb\t12", "3\t0xfa\t6", "4\t0xfb\t20", "5\t0xfa\t6", "6\t0xfb\t20",
        "7\t0xfa\t6", "8\t0xfb\t20",
      ])
  }

  @Test func rejectsWhatLinkType264CannotHold() throws {
    let path = temporaryPath(".pcap")
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path)
    let noKind = #expect(throws: TraceError.self) {
      try writer.write(frame(0, .event, []))
    }
    #expect(noKind?.kind == .unsupported)
    let tooLong = #expect(throws: TraceError.self) {
      try writer.write(frame(1, .reader, [UInt8](repeating: 0, count: 65_536)))
    }
    #expect(tooLong?.kind == .unsupported)
    try writer.close()
    let closed = #expect(throws: TraceError.self) { try writer.write(frame(2, .reader, [0x26])) }
    #expect(closed?.kind == .unreadable)
    #expect(try importPcap(TraceInput(path: path)).frames.isEmpty)
  }

  @Test func unwritablePathThrows() {
    let error = #expect(throws: OutputError.self) {
      _ = try PcapWriter(path: "/nonexistent-dir/out.pcap")
    }
    #expect(error?.path == "/nonexistent-dir/out.pcap")
    #expect(error?.reason == "No such file or directory")
  }
}

/// A frame a snap length cut keeps its original length through a conversion: pcap and
/// pcapng records carry it, and the importer reads the cut again (it wrote the captured
/// length as the original one, and the converted file showed a short tag answer as a fault).
@Test func snappedFrameKeepsItsOriginalLength() throws {
  var cut = frame(0, .tag, [0x03, 0x00, 0xFE, 0x00], crc: .notCaptured, timeNs: 0)
  cut.sourceFlags = ["truncated"]
  cut.originalLength = 18
  for suffix in [".pcap", ".pcapng"] {
    let path = temporaryPath(suffix)
    defer { try? FileManager.default.removeItem(atPath: path) }
    if suffix == ".pcap" {
      var w = try PcapWriter(path: path)
      try w.write(cut)
      try w.close()
    } else {
      var w = try PcapngWriter(path: path)
      try w.write(cut)
      try w.close()
    }
    var importer = try PcapFormats.pcap.open(TraceInput(path: path))
    let back = try #require(try importer.next())
    #expect(back.data == cut.data)
    #expect(back.originalLength == 18)
    #expect(back.crc == .notCaptured)
    #expect(back.sourceFlags == ["truncated"])
    #expect(importer.warnings.first?.message.hasPrefix("packet captured 8 of its 22 bytes") == true)
  }
}
