import Foundation
import TestSupport
import Testing

/// `convert` keeps the capture's clock (review of `convert`, finding 1): a pcap's dates are
/// kept, a capture whose time steps back is never written wrapped (years 2106, 2554), and a
/// time a pcap record cannot hold is clamped with a warning that says why.
@Suite struct ConvertClockCLITests {
  private let base = NSTemporaryDirectory() + "nfctrace-clock-\(UUID().uuidString)"

  private func remove(_ paths: String...) {
    for p in paths { try? FileManager.default.removeItem(atPath: p) }
  }

  private static func le32(_ v: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
  }

  private static func u32(_ b: [UInt8], _ o: Int) -> UInt64 {
    (0..<4).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * $1) }
  }

  /// A nanosecond pcap (link type 264) of `packets` (seconds, nanoseconds, pseudo-header event
  /// and data), as a test input.
  static func pcap(_ packets: [(UInt32, UInt32, UInt8, [UInt8])]) -> Data {
    var b: [UInt8] = [0x4D, 0x3C, 0xB2, 0xA1, 2, 0, 4, 0] + [UInt8](repeating: 0, count: 8)
    b += le32(65535) + le32(264)
    for (s, ns, event, data) in packets {
      let packet: [UInt8] = [0, event, 0, UInt8(data.count)] + data
      b += le32(s) + le32(ns) + le32(UInt32(packet.count)) + le32(UInt32(packet.count)) + packet
    }
    return Data(b)
  }

  /// Record times (ns since the Unix epoch) of a nanosecond pcap written by `convert`.
  static func pcapTimes(_ path: String) throws -> [UInt64] {
    let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var out: [UInt64] = []
    var o = 24
    while o + 16 <= b.count {
      out.append(u32(b, o) * 1_000_000_000 + u32(b, o + 4))
      o += 16 + Int(u32(b, o + 8))
    }
    return out
  }

  /// Enhanced Packet Block times (ns, `if_tsresol` 9) of a pcapng written by `convert`.
  static func pcapngTimes(_ path: String) throws -> [UInt64] {
    let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var out: [UInt64] = []
    var o = 0
    while o + 12 <= b.count {
      if u32(b, o) == 6 { out.append(u32(b, o + 12) << 32 | u32(b, o + 16)) }
      o += Int(u32(b, o + 4))
    }
    return out
  }

  /// A pcap whose third packet is 5 s earlier (a merged capture, 2023-11-14) comes out of pcap
  /// and pcapng with each packet at its own date (it was restarted at 1970-01-01 00:00:01 and
  /// the step back written in 2106, or 2554 in pcapng, with a warning blaming the format).
  @Test func pcapDatesAndStepBackKept() throws {
    let input = base + "-back.pcap"
    let (pcap, pcapng) = (base + "-out.pcap", base + "-out.pcapng")
    defer { remove(input, pcap, pcapng) }
    try Self.pcap([
      (1_700_000_010, 0, 0xFE, [0x26]), (1_700_000_010, 100_000, 0xFF, [0x44, 0x00]),
      (1_700_000_005, 0, 0xFE, [0x52]), (1_700_000_005, 100_000, 0xFF, [0x44, 0x00]),
    ]).write(to: URL(fileURLWithPath: input))
    let times: [UInt64] = [
      1_700_000_010_000_000_000, 1_700_000_010_000_100_000, 1_700_000_005_000_000_000,
      1_700_000_005_000_100_000,
    ]
    let importerWarning =
      "warning: \(input): packet 3, byte offset 67: packet time goes back by 5000.100 ms: the "
      + "capture was merged or its clock reset; times, gaps and durations across this point "
      + "are not meaningful\n"
    let run = CLI.run(["convert", input, "-o", pcap])
    #expect(run.stderr == importerWarning + "converted 4 frames → \(pcap) (pcap)\n")
    #expect(try Self.pcapTimes(pcap) == times)
    let ng = CLI.run(["convert", input, "-o", pcapng])
    #expect(ng.stderr == importerWarning + "converted 4 frames → \(pcapng) (pcapng)\n")
    #expect(try Self.pcapngTimes(pcapng) == times)
  }

  /// A shipped pcap converted to pcap keeps its capture date, 2025-11-30 10:53:20 UTC (it
  /// became 1970-01-01 00:00:01).
  @Test func shippedPcapKeepsItsDate() throws {
    let out = base + "-ok.pcap"
    defer { remove(out) }
    #expect(
      CLI.run(["convert", TestPaths.traces("t2t-ntag215-write-ok.pcap"), "-o", out]).status == 0)
    let source = try Self.pcapTimes(TestPaths.traces("t2t-ntag215-write-ok.pcap"))
    let times = try Self.pcapTimes(out)
    #expect(times.first == 1_764_500_000_000_000_000)
    #expect(times == source)
  }

  /// A Proxmark3 trace of two joined runs (the second restarts 7.499 s "earlier") has no date:
  /// its earliest frame is put at 1970-01-01 00:00:01 and every frame keeps its time (the
  /// restart was written in 2106).
  @Test func joinedProxmarkRunsKeepTheirTimes() throws {
    let (trace, pcap) = (base + "-joined.trace", base + "-joined.pcap")
    defer { remove(trace, pcap) }
    // Records at 7.5 s, 7.5025 s, then 1 ms and 3.5 ms (339 ticks are 25 µs exactly).
    var b: [UInt8] = []
    for (ticks, tag, data) in [
      (UInt32(101_700_000), false, [UInt8(0x26)]), (101_733_900, true, [0x44, 0x00]),
      (13_560, false, [0x26]), (47_460, true, [0x44, 0x00]),
    ] {
      b += Self.le32(ticks) + [0x20, 0x04] + [UInt8(data.count), tag ? 0x80 : 0] + data + [0]
    }
    try Data(b).write(to: URL(fileURLWithPath: trace))
    let run = CLI.run(["convert", trace, "-o", pcap])
    #expect(run.status == 0)
    #expect(!run.stderr.contains("cannot hold"))
    #expect(
      try Self.pcapTimes(pcap) == [8_499_000_000, 8_501_500_000, 1_000_000_000, 1_002_500_000])
  }

  /// A time past what a pcap record's 32-bit seconds hold is written at 2106-02-07 06:28:15.999999999
  /// (not wrapped), and the warning names the frame, its date and the limit; pcapng keeps it.
  @Test func timePastPcapRangeClamped() throws {
    let json = base + "-big.json"
    let (pcap, pcapng) = (base + "-big.pcap", base + "-big.pcapng")
    defer { remove(json, pcap, pcapng) }
    try Data(
      ("{\"frames\":[{\"frameType\":258,\"techType\":257,\"timeStart\":1.0,\"frameData\":\"26\","
        + "\"frameFlags\":1},{\"frameType\":259,\"techType\":257,\"timeStart\":5000000000.0,"
        + "\"frameData\":\"44:00\"}]}").utf8
    ).write(to: URL(fileURLWithPath: json))
    let run = CLI.run(["convert", json, "-o", pcap])
    #expect(
      run.stderr
        == "warning: \(json): frame 2, byte offset 92: frame at 2128-06-11 08:53:20 UTC, after "
        + "2106-02-07 06:28:15 UTC, the latest time a pcap record's 32-bit seconds hold "
        + "(1 frame in all): \(pcap) has them at that limit, in their order; convert to pcapng "
        + "to keep the times\n"
        + "converted 2 frames → \(pcap) (pcap)\n")
    #expect(try Self.pcapTimes(pcap) == [1_000_000_000, 4_294_967_295_999_999_999])
    let ng = CLI.run(["convert", json, "-o", pcapng])
    #expect(ng.stderr == "converted 2 frames → \(pcapng) (pcapng)\n")
    #expect(try Self.pcapngTimes(pcapng) == [1_000_000_000, 5_000_000_000_000_000_000])
  }
}
