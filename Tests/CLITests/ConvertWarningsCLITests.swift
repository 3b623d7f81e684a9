import Foundation
import TestSupport
import Testing

/// `convert` says what a format loses and says it truly (review of `convert`, findings 4–6):
/// bit counts pcap cannot hold, durations a `.trace` record caps, a snap-length cut, the
/// pcapng error's offset, a too large `--frames`, a step back of microseconds.
@Suite struct ConvertWarningsCLITests {
  private let base = NSTemporaryDirectory() + "nfctrace-cw-\(UUID().uuidString)"

  private func remove(_ paths: String...) {
    for p in paths { try? FileManager.default.removeItem(atPath: p) }
  }

  private static func le32(_ v: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
  }

  /// Short frames other than REQA/WUPA and ACK/NAK lose their bit count in pcap: warned, with
  /// the first frame and the count (no warning before).
  @Test func pcapDropsBitCountsWarned() throws {
    let source = TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace")
    let out = base + "-v.pcap"
    defer { remove(out) }
    let run = CLI.run(["convert", source, "-o", out])
    #expect(
      run.stderr
        == "warning: \(source): record 646, byte offset 6822: a frame of fewer than 8 valid bits "
        + "in its last byte (5 frames in all, short frames other than REQA/WUPA and the 4-bit "
        + "ACK/NAK): pcap has no field for bit counts, so \(out) holds them as whole bytes; "
        + "convert to pm3-trace or pm3-text to keep them\n"
        + "converted 660 frames → \(out) (pcap)\n")
    let ok = CLI.run(["convert", TestPaths.traces("t2t-ntag215-write-ok.trace"), "-o", out])
    #expect(ok.stderr == "converted 33 frames → \(out) (pcap)\n")
  }

  /// A frame longer than 65535 ticks is capped in a `.trace` with a warning; a listing shows
  /// its real end (End − Start was 65535).
  @Test func longDurationWarnedAndListedWhole() throws {
    let source = TestPaths.shared("public/nfc-laboratory/test_NFC-V_26kbps_001.json")
    let (trace, text) = (base + "-l.trace", base + "-l.txt")
    defer { remove(trace, text) }
    let run = CLI.run(["convert", source, "-o", trace])
    #expect(
      run.stderr
        == "warning: \(source): frame 6, byte offset 1793: frame lasts 5.305 ms, longer than a "
        + "Proxmark3 record's 16-bit duration holds (65535 ticks, 4.833 ms; 3 frames in all): "
        + "written as 65535 ticks, so \(trace) shows them ending earlier; convert to pm3-text, "
        + "pcap or pcapng to keep their end\n"
        + "converted 12 frames → \(trace) (pm3-trace)\n")
    #expect(
      CLI.run(["convert", source, "-o", text]).stderr
        == "converted 12 frames → \(text) (pm3-text)\n")
    let rows = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n")
    #expect(rows.contains { $0.hasPrefix("     618480 |    1075440 | Tag |") })
  }

  /// A frame a snap length cut is said to be cut, not blamed on a reader chip.
  @Test func snapLengthCutSaidSo() throws {
    let (input, out) = (base + "-s.pcap", base + "-s.trace")
    defer { remove(input, out) }
    // Nanosecond pcap, snap length 12: REQA, ATQA, then a READ answer cut to 8 of its 18 bytes.
    var b: [UInt8] = [0x4D, 0x3C, 0xB2, 0xA1, 2, 0, 4, 0] + [UInt8](repeating: 0, count: 8)
    b += Self.le32(12) + Self.le32(264)
    for (i, (event, data, sent)) in [
      (UInt8(0xFE), [UInt8(0x26)], 1), (0xFF, [0x44, 0x00], 2),
      (0xFF, [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77], 18),
    ].enumerated() {
      let packet: [UInt8] = [0, event, 0, UInt8(sent)] + data
      b += Self.le32(1_700_000_000) + Self.le32(UInt32(i) * 100_000)
      b += Self.le32(UInt32(packet.count)) + Self.le32(UInt32(4 + sent)) + packet
    }
    try Data(b).write(to: URL(fileURLWithPath: input))
    let run = CLI.run(["convert", input, "-o", out])
    #expect(
      run.stderr.hasSuffix(
        "warning: 1 frame was cut by the capture's snap length (the end, CRC included, was not "
          + "captured); a Proxmark3 trace has no field for a frame's original length, so \(out) "
          + "will show them as damaged frames: convert to pcap or pcapng, which keep the original "
          + "length\nconverted 3 frames → \(out) (pm3-trace)\n"))
    #expect(!run.stderr.contains("reader chip"))
  }

  /// The pcapng writer names the byte offset of the packet it cannot write (it said 0).
  @Test func pcapngErrorOffset() throws {
    let (json, out) = (base + "-70k.json", base + "-70k.pcapng")
    defer { remove(json, out) }
    let big = [String](repeating: "00", count: 70_000).joined(separator: ":")
    try Data(
      ("{\"frames\":[{\"frameType\":258,\"techType\":257,\"timeStart\":1.0,\"frameData\":\"26\","
        + "\"frameFlags\":1},{\"frameType\":259,\"techType\":257,\"timeStart\":1.1,"
        + "\"frameData\":\"\(big)\"}]}").utf8
    ).write(to: URL(fileURLWithPath: json))
    let run = CLI.run(["convert", json, "-o", out])
    #expect(run.status == 3)
    // SHB 28 + IDB 32 + the first packet's EPB 40 bytes.
    #expect(
      run.stderr.contains(
        "\(out): packet 2, byte offset 100: frame 1 holds 70000 bytes, more than the 65535 a "
          + "link type 264 packet can carry"))
  }

  /// `--frames` too large is said to be too large, not "needs a positive number".
  @Test func framesTooLarge() {
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "-o", base + "-x.pcap",
      "--frames", "99999999999999999999999",
    ])
    #expect(run.status == 2)
    #expect(
      run.stderr.hasPrefix(
        "nfctrace simulate: --frames 99999999999999999999999 is too large (at most "
          + "9223372036854775807)\n"))
  }

  /// A step back of 20.7 µs is shown in µs (it read "0.000 s earlier").
  @Test func microsecondStepShown() {
    let out = base + "-h.txt"
    defer { remove(out) }
    let run = CLI.run([
      "convert", TestPaths.shared("public/proxmark3/lf_hitag_crypto_dump.trace"), "-o", out,
    ])
    #expect(
      run.stderr.contains(
        "record 3, byte offset 23: frame 20.7 µs earlier than the first frame (9 frames in all)"))
  }
}
