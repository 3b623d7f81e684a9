import Foundation
import TestSupport
import Testing

/// CLI findings of the seventeenth session's JSON audit.
@Suite struct Pass21CLITests {
  /// A copy of `trace` cut `drop` bytes before its end, in a temporary directory.
  private func truncatedCopy(_ trace: String, drop: Int) throws -> (path: String, dir: URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.traces(trace)))
    let path = dir.appendingPathComponent("cut.pcap").path
    try data.dropLast(drop).write(to: URL(fileURLWithPath: path))
    return (path, dir)
  }

  /// `report --format json` of a trace cut short carries the import error in `error` (as
  /// timeline, sessions and diagnose do), besides the reports read before it.
  @Test func reportJSONCarriesTheImportError() throws {
    let (cut, dir) = try truncatedCopy("t2t-ntag215-write-torn.pcap", drop: 5)
    defer { try? FileManager.default.removeItem(at: dir) }
    let run = CLI.run(["report", cut, "--format", "json"])
    #expect(run.status == 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let error = try #require(doc["error"] as? [String: Any])
    #expect(error["kind"] as? String == "truncated")
    #expect((doc["reports"] as? [Any])?.count == 1)

    let whole = CLI.run(["report", TestPaths.traces("t4t-write-ok.pcap"), "--format", "json"])
    let ok = try #require(
      try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [String: Any])
    #expect(ok["error"] is NSNull)
  }

  /// `diff --format json` with a side cut short: the document has the import error and both
  /// traces' warnings; exit status 3.
  @Test func diffJSONCarriesTheImportError() throws {
    let (cut, dir) = try truncatedCopy("t2t-ntag215-write-torn.pcap", drop: 5)
    defer { try? FileManager.default.removeItem(at: dir) }
    let run = CLI.run([
      "diff", TestPaths.traces("t2t-ntag215-write-ok.pcap"), cut, "--format", "json",
    ])
    #expect(run.status == 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let error = try #require(doc["error"] as? [String: Any])
    #expect(error["file"] as? String == cut)
    #expect(doc["warnings"] is [Any])
  }

  /// NFC-Laboratory times are kept in nanoseconds and labelled so (they were labelled `s`).
  @Test func nfcLabSourceTimeIsNanoseconds() throws {
    let run = CLI.run([
      "timeline", TestPaths.shared("public/nfc-laboratory/test_NFC-A_106kbps_001.json"),
      "--format", "json",
    ])
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let frames = try #require(doc["frames"] as? [[String: Any]])
    let time = try #require(frames.first?["source_time"] as? [String: Any])
    #expect(time["unit"] as? String == "ns")
  }
}

extension Pass21CLITests {
  /// `diff` of a trace without sessions is invalid input (exit 3) whether it is diffed with
  /// itself or with another trace; it was a usage error (2) against itself.
  @Test func diffOfATraceWithoutSessionsIsInvalidInput() throws {
    let empty = TestPaths.shared("public/nfc-laboratory/test_POLL_AB_001.json")
    let other = TestPaths.traces("t4t-write-ok.pcap")
    for args in [[empty, empty], [empty, other], [other, empty]] {
      let run = CLI.run(["diff"] + args)
      #expect(run.status == 3)
      #expect(run.stderr.hasSuffix("the trace has no sessions\n"))
    }
  }
}

extension Pass21CLITests {
  /// `convert` of a type B capture to a Proxmark3 listing writes a 14b listing: preamble
  /// "ISO14443B", CRC_B checked in the CRC column, no type A annotations (it wrote a 14a
  /// listing, "!!" on every frame).
  @Test func convertTypeBToProxmarkTextIsA14bListing() throws {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-14b-\(UUID().uuidString).txt").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let run = CLI.run([
      "convert", TestPaths.shared("public/nfc-laboratory/test_NFC-B_106kbps_001.json"), "-o",
      output, "--format", "pm3-text",
    ])
    #expect(run.status == 0)
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(text.contains("[=] ISO14443B - all times are in carrier periods (1/13.56MHz)\n"))
    let rows = text.split(separator: "\n").filter {
      $0.contains("| Rdr |") || $0.contains("| Tag |")
    }
    #expect(rows.count == 5)
    #expect(rows.allSatisfy { $0.hasSuffix("|  ok | ") })
    let back = CLI.run(["sessions", output])
    #expect(
      back.stdout.hasPrefix("0  0.000–0.011 s  ISO-DEP tag (ISO 14443-4) 56:64:73:F2  connect ok"))
  }
}

extension Pass21CLITests {
  /// `report --show-secrets` shows the NDEF section's secrets too (Traces/pm3/
  /// t2-wifi-p2p-record.txt: a Type 2 tag read holding an `application/vnd.wfa.p2p` record):
  /// the report's NDEF renderers were called without the option, so it stayed masked.
  @Test func reportShowSecretsReachesTheNDEFSection() throws {
    let trace = TestPaths.traces("pm3/t2-wifi-p2p-record.txt")
    let masked = CLI.run(["report", trace])
    #expect(
      masked.stdout.contains(#"data: "present, 4 bytes (Wi-Fi P2P: may hold a device password)""#))
    let shown = CLI.run(["report", trace, "--show-secrets"])
    #expect(!shown.stdout.contains("present, 4 bytes"))
    let json = CLI.run(["report", trace, "--show-secrets", "--format", "json"])
    #expect(!json.stdout.contains(#""payload":null"#))
  }
}

/// Findings of the session of 2026-12-05 (bad-input hunt).
@Suite struct Pass30CLITests {
  /// Field events have no Proxmark3 record: convert says so, and counts only the frames it
  /// wrote (it said "converted 34 frames" for a file of 32).
  @Test func convertToProxmark3SaysFieldEventsAreLeftOut() throws {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-events-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let run = CLI.run(["convert", TestPaths.traces("t4t-write-ok.pcap"), "-o", output])
    #expect(run.status == 0)
    #expect(
      run.stderr.contains("warning: 2 capture events (field on/off and the like) are left out"))
    #expect(run.stderr.hasSuffix("converted 32 frames → \(output) (pm3-trace)\n"))
    let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int
    #expect(size.map { $0 > 0 } == true)
  }

  /// A converted capture whose first packets share its first instant keeps its times: it was
  /// written from time 0, so those packets read back as "no time" and the session lost its
  /// span (Flipper debug pcap, whole seconds).
  @Test func convertedCaptureKeepsItsTimes() throws {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-times-\(UUID().uuidString).pcap").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let source = TestPaths.traces("flipper/flipper-reader-ntag215.pcap")
    #expect(CLI.run(["convert", source, "-o", output]).status == 0)
    let back = CLI.run(["sessions", output])
    #expect(back.stdout.hasPrefix("0  0.000–2.000 s  NTAG215 04:5A:6B:7C:8D:9E:AF"))
    #expect(back.stdout == CLI.run(["sessions", source]).stdout)
  }
}
