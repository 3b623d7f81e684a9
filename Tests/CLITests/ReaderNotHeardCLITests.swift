import Foundation
import TestSupport
import Testing

/// A session whose reader side is not in the trace is not judged "no writes, nothing failed"
/// (new-user trial: a field engineer read that as "the app never wrote").
@Suite struct ReaderNotHeardCLITests {
  /// An Android snoop log not in full mode: the data packets have no payload.
  @Test func payloadlessSnoopLogSaysTheDataIsNotLogged() throws {
    let run = CLI.run([
      "diagnose", TestPaths.traces("android/android-dumpsys-nfc-filtered.txt"), "--format", "json",
    ])
    #expect(run.status == 0)
    let doc = try #require(
      JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let session = try #require((doc["sessions"] as? [[String: Any]])?.first)
    let findings = try #require(session["findings"] as? [[String: Any]])
    #expect(findings.map { $0["code"] as? String } == ["data-not-logged"])
    #expect(findings.first?["severity"] as? String == "warning")
    #expect(findings.first?["frames"] as? [Int] == [0])
    #expect((session["verdicts"] as? [Any])?.isEmpty == true)
    let text = CLI.run(["diagnose", TestPaths.traces("android/android-dumpsys-nfc-filtered.txt")])
    #expect(!text.stdout.contains("no writes, nothing failed"))
    #expect(text.stdout.contains("  [warning] data-not-logged\n"))
  }

  /// The same log in full mode is judged as before: its field-off carries no mark.
  @Test func fullSnoopLogIsJudged() {
    let run = CLI.run(["diagnose", TestPaths.traces("android/android-dumpsys-nfc.txt")])
    #expect(!run.stdout.contains("data-not-logged"))
    #expect(!run.stdout.contains("reader-not-captured"))
  }

  /// A Proxmark3 listing with its reader lines removed: the tag's answers alone.
  @Test func tagOnlyCaptureSaysTheReaderIsMissing() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-tagonly-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let whole = dir.appendingPathComponent("whole.txt").path
    let sim = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "-o", whole,
      "--format", "pm3-text",
    ])
    #expect(sim.status == 0)
    let lines = try String(contentsOfFile: whole, encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
    let tagOnly = lines.filter { !$0.contains("| Rdr |") }
    #expect(tagOnly.count < lines.count - 10)
    let path = dir.appendingPathComponent("tag-only.txt").path
    try tagOnly.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    let run = CLI.run(["diagnose", path])
    #expect(run.status == 0)
    #expect(run.stdout.contains("  [warning] reader-not-captured\n"))
    #expect(!run.stdout.contains("no writes, nothing failed"))
    #expect(run.stdout.hasSuffix("1 session(s): 0 error(s), 1 warning(s), 0 note(s)\n"))
  }
}
