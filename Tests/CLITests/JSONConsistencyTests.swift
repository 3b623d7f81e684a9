import Foundation
import TestSupport
import Testing

/// JSON members that disagreed with docs/json.md (review of the JSON outputs, 2026-12-06).
@Suite struct JSONConsistencyTests {
  /// A libnfc log has no times: the diff side's start and end are null, as its timing's are
  /// (they were 0, giving a 0 duration).
  @Test func untimedDiffSideHasNullTimes() throws {
    let log = TestPaths.traces("libnfc/pn533_t4t_ndef_read_write.log")
    let pcap = TestPaths.traces("t4t-write-ok.pcap")
    let run = CLI.run(["diff", log, pcap, "--format", "json"])
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let a = try #require(doc["a"] as? [String: Any])
    let b = try #require(doc["b"] as? [String: Any])
    #expect(a["start_ns"] is NSNull)
    #expect(a["end_ns"] is NSNull)
    let start = try #require(b["start_ns"] as? Int)
    #expect((b["end_ns"] as? Int ?? 0) > start)
  }

  /// Two Smart Poster titles in `en` and `EN` (one language: BCP 47 tags ignore case) give
  /// `en` and `EN_2`, as exact repeats do.
  @Test func titleLanguagesDifferingInCaseAreRepeats() throws {
    let run = CLI.run([
      "ndef", "d1021a53709101045402656e411101045402454e425101065504782e636f6d", "--format", "json",
    ])
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let record = try #require((doc["records"] as? [[String: Any]])?.first)
    let titles = (record["decoded"] as? [String: Any])?["titles"] as? [String: String]
    #expect(titles == ["en": "A", "EN_2": "B"])
  }
}
