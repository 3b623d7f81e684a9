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
}
