import Foundation
import TestSupport
import Testing

/// CLI findings of the ninth session's new-user pass.
@Suite struct Pass13CLITests {
  private func temporary(_ name: String) -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-p13-\(UUID().uuidString)-\(name)").path
  }

  /// `convert -o` naming its own input emptied the capture and crashed while reading it: it is
  /// refused (exit 2) and the input is left whole.
  @Test func convertRefusesToOverwriteItsInput() throws {
    let input = temporary("in.trace")
    defer { try? FileManager.default.removeItem(atPath: input) }
    let original = try Data(
      contentsOf: URL(fileURLWithPath: TestPaths.traces("t4t-write-ok.trace")))
    try original.write(to: URL(fileURLWithPath: input))
    let run = CLI.run(["convert", input, "-o", input, "--format", "pcap"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("is the same file as the input"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
  }

  /// `simulate -o X --truth X` wrote the truth JSON over the capture.
  @Test func simulateRefusesTruthOverTheCapture() {
    let out = temporary("same.pcap")
    defer { try? FileManager.default.removeItem(atPath: out) }
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-noisy-rf.json"), "-o", out, "--truth", out,
    ])
    #expect(run.status == 2)
    #expect(run.stderr.contains("-o and --truth name the same file"))
  }

  /// An output name without a trace extension is written as pcap, with a warning.
  @Test func unknownOutputExtensionIsPcapWithAWarning() throws {
    let out = temporary("out.json")
    defer { try? FileManager.default.removeItem(atPath: out) }
    let run = CLI.run(["convert", TestPaths.traces("t4t-write-ok.pcap"), "-o", out])
    #expect(run.status == 0)
    #expect(run.stderr.contains("has no trace extension (.pcap, .pcapng, .trace, .txt)"))
    let magic = try Data(contentsOf: URL(fileURLWithPath: out)).prefix(4)
    #expect(Array(magic) == [0x4D, 0x3C, 0xB2, 0xA1])  // pcap, nanosecond times
  }

  /// A usage error of a JSON run (a session the trace does not have) still prints a JSON
  /// document, of kind `usage`, and exits 2.
  @Test(arguments: ["report", "diagnose"])
  func usageErrorOfAJSONRunIsAJSONDocument(command: String) throws {
    let run = CLI.run([
      command, TestPaths.traces("t2t-ntag215-write-ok.pcap"), "--session", "4", "--format", "json",
    ])
    #expect(run.status == 2)
    let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    let error = try #require(doc?["error"] as? [String: Any])
    #expect(error["kind"] as? String == "usage")
    #expect((error["message"] as? String)?.contains("session 4") == true)
  }

  /// `ndef --format json` carries the tool/version envelope of every JSON document; a
  /// non-hex input is an error on standard error in text mode (it was printed on stdout).
  @Test func ndefJSONHasTheEnvelopeAndErrorsGoToStandardError() throws {
    let ok = CLI.run(["ndef", "d1 01 04 55 04 61 2e 62", "--format", "json"])
    #expect(ok.status == 0)
    let doc = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
    #expect(doc?["tool"] as? String == "nfctrace")
    #expect((doc?["records"] as? [Any])?.count == 1)
    let bad = CLI.run(["ndef", "zz"])
    #expect(bad.status == 3)
    #expect(bad.stdout.isEmpty)
    #expect(bad.stderr.hasPrefix("nfctrace: error: invalid character 'z' at character 0"))
  }

  /// `-o x` and `--truth ./x` name one file that does not exist yet.
  @Test func simulateRefusesTheSameNewFileSpelledTwice() {
    let dir = FileManager.default.temporaryDirectory.path
    let name = "nfctrace-p13-\(UUID().uuidString).pcap"
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-noisy-rf.json"), "-o", dir + "/" + name,
      "--truth", dir + "/./" + name,
    ])
    defer { try? FileManager.default.removeItem(atPath: dir + "/" + name) }
    #expect(run.status == 2)
  }

  /// `--format=json` asks for JSON as `--format json` does, usage errors included.
  @Test func inlineFormatJSONUsageErrorIsJSON() throws {
    let run = CLI.run(["sessions", TestPaths.traces("t4t-write-ok.pcap"), "--format=json", "--x"])
    #expect(run.status == 2)
    let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    #expect((doc?["error"] as? [String: Any])?["kind"] as? String == "usage")
  }
}
