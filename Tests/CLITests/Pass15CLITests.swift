import Foundation
import TestSupport
import Testing

/// CLI findings of the eleventh session's passes.
@Suite struct Pass15CLITests {
  /// A write the file's cut ends during has verdict `unknown` (the operation's outcome, as
  /// `sessions` says), not `interrupted`, which blames the tag.
  @Test func writeCutByTheEndOfTheFileHasVerdictUnknown() throws {
    let bytes = try Data(
      contentsOf: URL(fileURLWithPath: TestPaths.traces("t2t-ntag215-write-ok.pcap")))
    let cut = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-p15-\(UUID().uuidString)-cut.pcap")
    try bytes.prefix(700).write(to: cut)
    defer { try? FileManager.default.removeItem(at: cut) }
    let json = CLI.run(["diagnose", cut.path, "--format", "json"])
    #expect(json.status == 3)
    #expect(json.stdout.contains("\"kind\":\"writeNDEF\",\"verdict\":\"unknown\""))
    #expect(!json.stdout.contains("\"verdict\":\"interrupted\""))
    let text = CLI.run(["diagnose", cut.path])
    #expect(
      text.stdout.contains("writeNDEF (operation 3, frames 19–25): UNKNOWN — the trace was cut"))
  }

  /// `--no-color`, which every command accepts, is accepted by `version` too.
  @Test func versionAcceptsNoColor() {
    let run = CLI.run(["version", "--no-color"])
    #expect(run.status == 0)
    #expect(run.stdout == "nfctrace 0.1.0\n")
  }

  /// An error in the file's header names the byte offset alone, no "packet 0".
  @Test func headerErrorNamesNoPacket() {
    let run = CLI.run([
      "sessions", TestPaths.traces("t2t-ntag215-write-torn.trace"), "--input-format", "pcap",
    ])
    #expect(run.status == 3)
    #expect(
      run.stderr.contains("t2t-ntag215-write-torn.trace: byte offset 0: not a pcap or pcapng file"))
    #expect(!run.stderr.contains("packet 0"))
  }

  /// A gap of 10 s or more keeps a space before it (it ran into "ms").
  @Test func longGapsStayApartFromTheTime() {
    let run = CLI.run([
      "timeline", TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"), "--no-color",
    ])
    #expect(run.stdout.contains("#101   14532.207 ms +12928.356  R→T  26(7)"))
  }
}
