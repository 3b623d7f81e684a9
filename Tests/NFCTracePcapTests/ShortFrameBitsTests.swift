import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// Short frames read from pcap (link type 264 has no bit count) get the valid bits the
/// decoder reads them with when written to the Proxmark3 formats (review of `convert`,
/// finding 3): WUPA `52(7)`, ACK `0a(4)` (they came back as whole bytes).
@Suite struct ShortFrameBitsTests {
  private func frames(_ importer: any TraceImporter) throws -> [Frame] {
    var importer = importer
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return out
  }

  /// `frames` written as pcap, read back, resolved as `convert` does for a Proxmark3 output.
  private func throughPcap(_ frames: [Frame]) throws -> [Frame] {
    let path = NSTemporaryDirectory() + "nfctrace-sfb-\(UUID().uuidString).pcap"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path, baseEpochNs: 1_000_000_000)
    for f in frames { try writer.write(f) }
    try writer.close()
    var resolver = TechnologyResolver()
    return try self.frames(try PcapImporter(input: try TraceInput(path: path)))
      .map { resolver.resolve($0) }
  }

  /// `.trace` → pcap → `.trace` keeps every frame's bit count.
  @Test func proxmarkThroughPcapKeepsBits() throws {
    let source = try frames(
      try Proxmark3BinaryImporter(
        input: try TraceInput(path: TestPaths.traces("t2t-ntag215-write-ok.trace"))))
    let via = try throughPcap(source)
    #expect(via[0].data == [0x52])
    #expect(via[0].bits == 7)
    #expect(via[19].data == [0x0A])
    #expect(via[19].bits == 4)
    let back = try frames(
      try Proxmark3BinaryImporter(
        input: TraceInput(path: "x.trace", bytes: Proxmark3TraceWriter.encode(via))))
    #expect(back.map(\.bits) == source.map(\.bits))
    #expect(back.filter { $0.bits != nil }.map(\.bits) == [7, 4, 4, 4, 4, 4, 4])
  }

  /// Only what the decoder takes for a short frame: a reader's 1-byte `30` and a tag's `1a`
  /// stay whole bytes.
  @Test func otherOneByteFramesStayWhole() throws {
    let here = SourceLocation(file: "x", unit: "frame", record: 1, offset: 0)
    let source = [
      Frame(index: 0, timeNs: 0, direction: .reader, data: [0x26], location: here),
      Frame(index: 1, timeNs: 100_000, direction: .tag, data: [0x44, 0x00], location: here),
      Frame(index: 2, timeNs: 200_000, direction: .reader, data: [0x30], location: here),
      Frame(index: 3, timeNs: 300_000, direction: .tag, data: [0x1A], location: here),
    ]
    let via = try throughPcap(source)
    #expect(via.map(\.bits) == [7, nil, nil, nil])
  }
}
