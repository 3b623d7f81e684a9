import Foundation
import TestSupport
import Testing

/// CLI findings left from the ninth session's attacker pass, fixed in the tenth.
@Suite struct Pass14CLITests {
  private func temporary(_ name: String) -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-p14-\(UUID().uuidString)-\(name)").path
  }

  /// `version` with an extra argument is a usage error (it was ignored).
  @Test func versionRefusesArguments() {
    let run = CLI.run(["version", "extra"])
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("unexpected argument extra"))
  }

  /// No bytes decode as the empty message whatever form they come in: `""` was an input
  /// error while an empty `@FILE` gave the `empty-message` finding.
  @Test func emptyInputIsTheEmptyMessageInEveryForm() throws {
    let file = temporary("empty.bin")
    defer { try? FileManager.default.removeItem(atPath: file) }
    try Data().write(to: URL(fileURLWithPath: file))
    for input in ["", "@" + file, "  "] {
      let run = CLI.run(["ndef", input])
      #expect(run.status == 3)
      #expect(run.stdout.hasPrefix("NDEF message (relax): 0 records, 0 bytes"))
      #expect(run.stdout.contains("error empty-message @0"))
    }
  }

  /// `simulate --truth DIR` printed a raw Cocoa error after writing the capture: it now fails
  /// first, naming the directory, and writes nothing.
  @Test func simulateTruthIntoADirectoryFailsBeforeWriting() throws {
    let dir = temporary("dir")
    let out = temporary("out.pcap")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-noisy-rf.json"), "-o", out, "--truth", dir,
    ])
    #expect(run.status == 4)
    #expect(run.stderr.contains("cannot write \(dir): Is a directory"))
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// `simulate -o DIR --truth F` failed on the output but left `F` empty: nothing is written.
  @Test func failedSimulateLeavesNoTruthFile() throws {
    let dir = temporary("outdir")
    let truth = temporary("truth.json")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-noisy-rf.json"), "-o", dir, "--format", "pcap",
      "--truth", truth,
    ])
    #expect(run.status == 4)
    #expect(run.stderr.contains("cannot write \(dir): Is a directory"))
    #expect(!FileManager.default.fileExists(atPath: truth))
  }
}
