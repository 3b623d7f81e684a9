import Foundation
import TestSupport
import Testing

/// `nfctrace diff` of a side cut short by its import error (review of `diff`).
@Suite struct DiffReviewCLITests {
  /// The first 100 bytes of a pcap: the format is recognised, the file breaks off in its
  /// fourth packet before a tag completed its anticollision. The JSON error document names
  /// the format (it said null, kept for inputs that cannot be opened), and the text does not
  /// suggest choosing a session, which cannot help with a cut file.
  @Test func truncatedSideNamesItsFormatAndNoSessionHint() throws {
    let whole = TestPaths.traces("t4t-write-ok.pcap")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(100)
    let cut = NSTemporaryDirectory() + "nfctrace-diff-review-\(UUID().uuidString).pcap"
    try bytes.write(to: URL(fileURLWithPath: cut))
    defer { try? FileManager.default.removeItem(atPath: cut) }
    let json = CLI.run(["diff", whole, cut, "--format", "json"])
    #expect(json.status == 3)
    #expect(json.stdout.contains(",\"source\":{\"path\":\"\(cut)\",\"format\":\"pcap\"},"))
    let text = CLI.run(["diff", whole, cut])
    #expect(text.status == 3)
    #expect(text.stdout == "")
    #expect(!text.stderr.contains("choose one with"))
    #expect(
      text.stderr.hasSuffix(
        "(and so: B (\(cut)): no session in which a tag completed anticollision)\n"))
  }
}
