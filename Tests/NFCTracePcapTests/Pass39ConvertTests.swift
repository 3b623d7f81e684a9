import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// `convert` to the Proxmark3 formats (findings of the session of 2026-12-06, second):
/// parity by the technology the decoder found, short-frame bits, times before the first frame,
/// the listing's header and CRC column, and the time range of pcap records.
@Suite struct Pass39ConvertTests {
  private func frames(_ importer: any TraceImporter) throws -> [Frame] {
    var importer = importer
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return out
  }

  private func pm3(_ path: String) throws -> [Frame] {
    try frames(try Proxmark3BinaryImporter(input: try TraceInput(path: path)))
  }

  /// The frames as `convert` hands them to a Proxmark3 writer: technology resolved.
  private func resolved(_ frames: [Frame]) -> [Frame] {
    var resolver = TechnologyResolver()
    return frames.map { resolver.resolve($0) }
  }

  private func readBack(_ data: Data) throws -> [Frame] {
    try frames(try Proxmark3BinaryImporter(input: TraceInput(path: "x.trace", bytes: data)))
  }

  /// The frames written as pcap and read back (no technology: link type 264 has none).
  private func throughPcap(_ frames: [Frame]) throws -> [Frame] {
    let path = NSTemporaryDirectory() + "nfctrace-p39c-\(UUID().uuidString).pcap"
    defer { try? FileManager.default.removeItem(atPath: path) }
    var writer = try PcapWriter(path: path, baseEpochNs: 1_000_000_000)
    for f in frames { try writer.write(f) }
    try writer.close()
    return try self.frames(try PcapImporter(input: try TraceInput(path: path)))
  }

  private func layerNames(_ frames: [Frame]) -> [String] {
    var decoder = FrameDecoder()
    return frames.map { decoder.decode($0).layers.first?.name ?? "-" }
  }

  /// Parity fields of the records of a Proxmark3 trace.
  private func parityFields(_ data: Data) -> [[UInt8]] {
    let b = [UInt8](data)
    var out: [[UInt8]] = []
    var o = 0
    while o + 8 <= b.count {
      let n = Int(b[o + 6]) | Int(b[o + 7] & 0x7F) << 8
      let p = n == 0 ? 1 : (n - 1) / 8 + 1
      out.append(Array(b[(o + 8 + n)..<(o + 8 + n + p)]))
      o += 8 + n + p
    }
    return out
  }

  /// A FeliCa capture converted to pcap (which has no technology) and then to a `.trace` gets
  /// no type A parity: it read back as one type A session instead of two FeliCa Lite-S ones.
  @Test func feliCaThroughPcapGetsNoTypeAParity() throws {
    let source = try frames(
      try NFCLabImporter(input: try TraceInput(path: TestPaths.traces("felica/t3t-write-ok.json"))))
    let viaPcap = resolved(try throughPcap(source))
    #expect(viaPcap.count == 20)
    #expect(viaPcap.allSatisfy { $0.technology == .nfcF })
    let data = Proxmark3TraceWriter.encode(viaPcap)
    #expect(parityFields(data).allSatisfy { $0.allSatisfy { $0 == 0 } })
    let back = try readBack(data)
    #expect(back.filter { $0.technology == .nfcA }.count == 0)
    #expect(layerNames(back) == layerNames(source))
  }

  /// `.trace` → `.trace` keeps the source's parity and bit-count bytes: type B (a frame with a
  /// bad CRC_B, 1-byte Xerox slot frames), iCLASS and LF (Hitag bit counts) files come out
  /// byte for byte (they got type A parity, or lost the LF bit counts).
  @Test(arguments: [
    "hf_14b_cryptorf_select", "hf_14b_xerox_info", "hf_iclass_sniff", "lf_hitag_crypto_dump",
    "lf_HitagS256_dump", "hf_14b_reader", "hf_15_reader", "hf_visa_apple_normal",
  ])
  func proxmark3TraceRoundTripsByteForByte(_ name: String) throws {
    let path = TestPaths.shared("public/proxmark3/\(name).trace")
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(Proxmark3TraceWriter.encode(resolved(try pm3(path))) == original)
  }

  /// Through pcap the iCLASS sniff's frames are taken as iCLASS after ACTALL, the Xerox
  /// capture's as type B: no record gets type A parity, so neither reads back as type A.
  @Test(arguments: ["hf_iclass_sniff", "hf_14b_xerox_info", "hf_14b_cryptorf_select"])
  func noTypeAParityThroughPcap(_ name: String) throws {
    let source = try pm3(TestPaths.shared("public/proxmark3/\(name).trace"))
    let data = Proxmark3TraceWriter.encode(resolved(try throughPcap(source)))
    #expect(parityFields(data).allSatisfy { $0.allSatisfy { $0 == 0 } })
    let back = try readBack(data)
    #expect(back.filter { $0.technology == .nfcA }.count == 0)
    #expect(layerNames(back) == layerNames(source))
  }

  /// A reader polling A, B and F in turn (NFC-Laboratory): the `.trace` has type A parity for
  /// its REQAs only, and its REQBs and SENSF_REQs (parity field zero, CRC_B / CRC-F) read back
  /// as such, not as type A frames with a parity error on every byte.
  @Test func pollingLoopReadsBackPerTechnology() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_POLL_ABF_001.json")
    let source = try frames(try NFCLabImporter(input: try TraceInput(path: path)))
    let back = try readBack(Proxmark3TraceWriter.encode(resolved(source)))
    #expect(back.count == 10)
    #expect(back.map { $0.parityErrors.count } == Array(repeating: 0, count: 10))
    #expect(
      layerNames(back) == [
        "REQA", "REQA", "REQB", "REQB", "REQA", "REQA", "SENSF_REQ", "SENSF_REQ", "SENSF_REQ",
        "SENSF_REQ",
      ])
    #expect(layerNames(back) == layerNames(source))
  }

  private func frame(
    _ data: [UInt8], at ns: Int64, duration: Int64? = nil, bits: Int? = nil,
    parityErrors: [Int] = [], direction: Direction = .reader
  ) -> Frame {
    Frame(
      index: 0, timeNs: ns, durationNs: duration, direction: direction, data: data, bits: bits,
      parityErrors: parityErrors, technology: .nfcA,
      location: SourceLocation(file: "t", unit: "frame", record: 1, offset: 0))
  }

  /// A short frame keeps its bit count through its duration, the only place the format has for
  /// it, also when the source's duration is a whole byte's (NFC-Laboratory measures 200 µs);
  /// a whole byte measured shorter than 1088 ticks does not read back as short.
  @Test func shortFrameBitsSurvive() throws {
    let reqa = frame([0x26], at: 0, duration: 200_000, bits: 7)
    let ack = frame([0x0A], at: 1_000_000, duration: 100_000, bits: 4, direction: .tag)
    let whole = frame([0x30], at: 2_000_000, duration: 30_000)
    let back = try readBack(Proxmark3TraceWriter.encode([reqa, ack, whole]))
    #expect(back.map(\.bits) == [7, 4, nil])
    #expect(back.map(\.durationNs) == [77_876, 47_198, 92_035])
    let text = Proxmark3TextWriter().text(for: [reqa, ack, whole])
    #expect(text.contains("          0 |       1056 | Rdr |26(7)  "))
    #expect(text.contains("      13560 |      14200 | Tag |0A(4)  "))
    #expect(text.contains("      27120 |      28368 | Rdr |30     "))
  }

  /// A short frame with a parity error keeps its `!` before `(n)` in a listing (`00(1)` lost
  /// the error), and reads back with both.
  @Test func shortFrameParityErrorIsListed() throws {
    let path = TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace")
    let source = try pm3(path)
    #expect(source[645].parityErrors == [0])
    #expect(source[645].bits == 1)
    let text = Proxmark3TextWriter(includePreamble: false).text(for: [source[645]])
    #expect(
      text.hasSuffix(
        "\n          0 |        288 | Rdr |00!(1)" + String(repeating: " ", count: 66)
          + " |     | \n"))
    let back = try frames(
      try Proxmark3TextImporter(input: TraceInput(path: "x.txt", bytes: Data(text.utf8))))
    #expect(back.map(\.parityErrors) == [[0]])
    #expect(back.map(\.bits) == [1])
  }

  /// A frame earlier than the first is written at the first frame's time (0), not wrapped to
  /// ≈ 316.7 s later.
  @Test func frameBeforeTheFirstIsClamped() throws {
    let frames = [
      frame([0x26], at: 0, bits: 7), frame([0x44, 0x00], at: -500_000_000, direction: .tag),
    ]
    let data = Proxmark3TraceWriter.encode(frames)
    let back = try readBack(data)
    #expect(back.map(\.timeNs) == [0, 0])
    #expect(back.map(\.sourceTime?.value) == [0, 0])
    let text = Proxmark3TextWriter(includePreamble: false).text(for: frames)
    #expect(text.contains("\n          0 |       2368 | Tag |44  00  "))
  }

  /// A type B `.trace` listed: the preamble names ISO14443B and CRC_B is checked (it said
  /// ISO14443A and `!!` for every valid CRC_B).
  @Test func typeBListingFromATrace() throws {
    let path = TestPaths.shared("public/proxmark3/hf_14b_reader.trace")
    let text = Proxmark3TextWriter().text(for: resolved(try pm3(path)))
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[2] == "[=] ISO14443B - all times are in carrier periods (1/13.56MHz)")
    #expect(lines[6].hasPrefix("          0 |       6884 | Rdr |05  00  08  39  73  "))
    #expect(lines[6].hasSuffix("|  ok | "))
    #expect(lines[7].hasSuffix("|  ok | "))
  }

  /// The times a pcap and a pcapng record can hold: u32 seconds, u64 nanoseconds since 1970.
  @Test func pcapTimeRange() {
    let lastSecond = Int64(UInt32.max) * 1_000_000_000
    #expect(PcapWriter.holds(ns: 0))
    #expect(!PcapWriter.holds(ns: -1))
    #expect(PcapWriter.holds(ns: lastSecond + 999_999_999))
    #expect(!PcapWriter.holds(ns: lastSecond + 1_000_000_000))
    #expect(PcapngWriter.holds(ns: 5_000_000_000 * 1_000_000_000))
    #expect(!PcapngWriter.holds(ns: -1))
  }
}
