import Foundation
import NFCTrace
import NFCTracePcap
import Testing

/// Times outside what a pcap or pcapng record holds are clamped to the nearer end, never
/// wrapped (review of `convert`, finding 1).
@Suite struct RecordTimeTests {
  @Test func pcapRecordTimeClamps() {
    #expect(PcapWriter.latestNs == 4_294_967_295_999_999_999)
    #expect(PcapWriter.recordTime(ns: -5_000_000_000) == 0)
    #expect(PcapWriter.recordTime(ns: 1_700_000_005_000_100_000) == 1_700_000_005_000_100_000)
    #expect(PcapWriter.recordTime(ns: 5_000_000_000_500_000_000) == 4_294_967_295_999_999_999)
    #expect(PcapngWriter.recordTime(ns: -1) == 0)
    #expect(PcapngWriter.recordTime(ns: 5_000_000_000_500_000_000) == 5_000_000_000_500_000_000)
  }

  /// Written through libpcap and read back: a frame 5 s before a base of 1 s lands at
  /// 1970-01-01 00:00:00, one past 2106 at its last nanosecond, in file order.
  @Test func pcapWriterClampsOutOfRangeTimes() throws {
    let path = NSTemporaryDirectory() + "nfctrace-rt-\(UUID().uuidString).pcap"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path, baseEpochNs: 1_000_000_000)
    let here = SourceLocation(file: "x", unit: "frame", record: 1, offset: 0)
    for (i, t) in [Int64(0), -5_000_000_000, 5_000_000_000_000_000_000].enumerated() {
      try writer.write(
        Frame(index: i, timeNs: t, direction: .reader, data: [0x26], location: here))
    }
    try writer.close()
    var importer = try PcapImporter(input: try TraceInput(path: path))
    var times: [Int64] = []
    while let f = try importer.next() { times.append(f.sourceTime?.value ?? -1) }
    #expect(times == [1_000_000_000, 0, 4_294_967_295_999_999_999])
  }
}
