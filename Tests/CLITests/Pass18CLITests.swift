import Foundation
import TestSupport
import Testing

/// CLI findings of the fourteenth session's passes.
@Suite struct Pass18CLITests {
  /// Standard input that cannot be read (a directory: `< /tmp`) and `@DIR` were a crash
  /// (Foundation's `readDataToEndOfFile` traps): an input error, exit 3, naming the reason.
  @Test func unreadableStandardInputIsAnInputError() throws {
    for args in [["timeline", "-"], ["sessions", "-"], ["ndef", "-"]] {
      let r = CLI.run(args, stdin: "/tmp")
      #expect(r.status == 3)
      #expect(!r.signaled)
      #expect(r.stderr.contains("cannot read standard input: Is a directory"))
    }
    let file = CLI.run(["ndef", "@/tmp"])
    #expect(file.status == 3)
    #expect(file.stderr.contains("cannot read /tmp: Is a directory"))
  }
}

extension Pass18CLITests {
  /// Scenario values out of range were a crash (`wait` of 10^15 ms overflowed the tick count)
  /// or accepted silently (negative waits and frames, rates above 1); a negative seed was "not
  /// valid JSON". Each is now an invalid scenario naming the key, exit 3.
  @Test func outOfRangeScenarioValuesAreRefused() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pass18-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = #"{"name":"x","seed":1,"reader":"ios","tag":{"type":"ntag215"},"#
    let cases: [(String, String)] = [
      (
        #""actions":[{"op":"connect"},{"op":"wait","ms":1000000000000000}]}"#,
        "actions.[1].ms: wait ms is 0…86400000 (one day), got 1000000000000000"
      ),
      (#""actions":[{"op":"wait","ms":-5}]}"#, "wait ms is 0…86400000 (one day), got -5"),
      (
        #""actions":[],"faults":[{"kind":"noise","crc_error_rate":5.0}]}"#,
        "crc_error_rate is a probability 0…1, got 5.0"
      ),
      (
        #""actions":[],"faults":[{"kind":"remove-after-frame","frame":-1}]}"#,
        "frame is 0 or more, got -1"
      ),
    ]
    for (i, (tail, message)) in cases.enumerated() {
      let path = dir.appendingPathComponent("s\(i).json").path
      try (base + tail).write(toFile: path, atomically: true, encoding: .utf8)
      let r = CLI.run(["simulate", path, "-o", dir.appendingPathComponent("o.pcap").path])
      #expect(r.status == 3)
      #expect(!r.signaled)
      #expect(r.stderr.contains(message))
    }
    let seed = dir.appendingPathComponent("seed.json").path
    try #"{"name":"x","seed":-1,"reader":"ios","tag":{"type":"ntag215"},"actions":[]}"#.write(
      toFile: seed, atomically: true, encoding: .utf8)
    let r = CLI.run(["simulate", seed, "-o", dir.appendingPathComponent("o.pcap").path])
    #expect(r.status == 3)
    #expect(r.stderr.contains("seed: seed is an unsigned integer 0…2^64−1"))
  }
}

extension Pass18CLITests {
  /// A skipped input line quoted in a warning kept its control bytes (BEL rang the terminal):
  /// they are shown as `\xNN`.
  @Test func warningsShowControlBytesEscaped() throws {
    let source = try String(
      contentsOfFile: TestPaths.shared("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt"),
      encoding: .utf8)
    var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let i = try #require(lines.firstIndex { $0.contains("| Rdr |93  70") })
    lines[i] = lines[i].replacingOccurrences(of: "|93  70", with: "|93  70  \u{07}")
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pass18-\(UUID().uuidString).txt").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let r = CLI.run(["timeline", path, "--no-color"])
    #expect(r.status == 0)
    #expect(r.stderr.contains("\\x07"))
    #expect(!r.stderr.contains("\u{07}"))
  }
}

extension Pass18CLITests {
  /// One record with a lying length inside the first 4 KiB of a Proxmark3 binary trace made
  /// the whole file "not a recognised trace format": after a long run of good records the
  /// sniffer takes it as a trace, and the importer names the damaged record.
  @Test func damagedRecordAfterGoodOnesIsStillAProxmark3Trace() throws {
    var bytes = [UInt8](
      try Data(
        contentsOf: URL(
          fileURLWithPath: TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))))
    bytes[3297] = 0x00  // record 201's data length (bit 15: the tag's): 0x7000 = 28672 bytes
    bytes[3298] = 0xF0
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pass18-\(UUID().uuidString).trace").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let r = CLI.run(["sessions", path])
    #expect(r.status == 3)
    #expect(r.stderr.contains("record 201, byte offset 3291: record claims 28672 data bytes"))
    #expect(r.stdout.split(separator: "\n").count == 12)
  }
}
