import Foundation
import TestSupport
import Testing

/// `diff` keeps only the sessions a side may take: the default choice must still find its
/// session among the ones that streamed past (session 16 of 18, with session 17 after it).
@Suite struct StreamingCLITests {
  let sim = TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace")
  let torn = TestPaths.traces("t2t-ntag215-write-torn.pcap")

  @Test func diffFindsTheDefaultAndAskedSessions() {
    let run = CLI.run(["diff", sim, torn])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count > 3)
    #expect(
      lines.dropFirst().first == "A  \(sim) · session 16 · frames #270–#299 · 26.653–26.701 s")
    let others =
      "   A has 18 sessions; not compared: session 1 authenticate failed (and 5 more "
      + "session(s) with failures)"
    #expect(lines.dropFirst(2).first.map(String.init) == others)
    let asked = CLI.run(["diff", sim, sim, "--session-a", "3", "--session-b", "0"])
    #expect(asked.stdout.contains("A  \(sim) · session 3 · frames #39–#47 · 1.003–1.013 s\n"))
    let beyond = CLI.run(["diff", sim, torn, "--session-a", "18"])
    #expect(beyond.status == 2)
    #expect(beyond.stderr.contains("--session-a 18: \(sim) has sessions 0–17"))
  }

  /// `report --all` writes every session as it ends; `report --session N` and the default
  /// keep only their candidate.
  @Test func reportChoicesFromAStream() {
    let all = CLI.run(["report", sim, "--all"])
    #expect(all.status == 0)
    #expect(all.stdout.components(separatedBy: "\nTag report · session ").count == 19)
    let one = CLI.run(["report", sim])
    #expect(
      one.stdout.hasPrefix("\(sim) (pm3-trace)\n\nTag report · session 16 · frames #270–#299"))
    let missing = CLI.run(["report", sim, "--session", "40"])
    #expect(missing.status == 2)
    #expect(missing.stdout.isEmpty)
    // `--session` is checked once the input was read: the input's own error comes first.
    let noFile = CLI.run(["report", "/nonexistent/x.trace", "--session", "abc"])
    #expect(noFile.status == 3)
    #expect(noFile.stderr.contains("/nonexistent/x.trace"))
    let dump = CLI.run([
      "report", TestPaths.shared("public/proxmark3/ntag216-empty.json"), "--session", "abc",
    ])
    #expect(dump.status == 2)
    #expect(dump.stderr.contains("--session: a static dump has no sessions"))
    let word = CLI.run(["report", sim, "--session", "abc"])
    #expect(word.status == 2)
    #expect(word.stderr.contains("--session needs a number, not abc"))
  }

  /// `diagnose` text fills the evidence lines of sessions written before the second pass.
  @Test func diagnoseTextHasItsEvidenceLines() {
    let run = CLI.run(["diagnose", torn])
    #expect(run.status == 0)
    #expect(
      run.stdout.contains(
        "      #23    R→T  a2 06 66 63 74 72 d9 7b   WRITE page 6 ← 66 63 74 72  [no answer]\n"))
    #expect(!run.stdout.utf8.contains(0x01))
    #expect(run.stdout.hasSuffix("1 session(s): 2 error(s), 1 warning(s), 0 note(s)\n"))
    let json = CLI.run(["diagnose", sim, "--format", "json"])
    #expect(json.stdout.components(separatedBy: "\n{\"index\":").count == 19)
  }

  /// Without a usable temporary directory the spooled outputs are kept in memory: the same
  /// output, exit 0 (they failed with "cannot create a temporary file" before).
  @Test func noTemporaryDirectoryKeepsTheSpoolInMemory() {
    let env = ["TMPDIR": "/nonexistent/nfctrace-no-tmp"]
    for args in [["diagnose", torn], ["timeline", torn, "--format", "json"]] {
      let plain = CLI.run(args)
      let run = CLI.run(args, environment: env)
      #expect(run.status == 0, "\(args)")
      #expect(run.stdout == plain.stdout, "\(args)")
      #expect(run.stderr == plain.stderr, "\(args)")
    }
    let diagnosed = CLI.run(["diagnose", torn], environment: env)
    #expect(diagnosed.stdout.contains("WRITE page 6 ← 66 63 74 72  [no answer]\n"))
  }

  /// With standard output closed at start (`>&-`) the output is lost, said, and exit 4: the
  /// text of `diagnose` went into its own spool file, which took the closed stream's number,
  /// and it exited 0.
  @Test func closedStandardOutputIsAFailedWrite() {
    for args in [
      ["diagnose", torn], ["timeline", torn, "--format", "json"], ["report", sim, "--all"],
    ] {
      let run = CLI.run(args, closedStdout: true)
      #expect(run.status == 4, "\(args)")
      #expect(
        run.stderr == "nfctrace: error: cannot write standard output: Bad file descriptor\n",
        "\(args)")
    }
  }

  /// `--expect @FILE` of a file that cannot be read is an input error (exit 3), as `ndef @FILE`
  /// is; it was a usage error (exit 2).
  @Test func unreadableExpectFileIsAnInputError() {
    let run = CLI.run(["diagnose", torn, "--expect", "@/nonexistent/message.bin"])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: /nonexistent/message.bin: cannot read the --expect message "
        + "(expected a readable file)\n")
    #expect(CLI.run(["diagnose", torn, "--expect", "zz"]).status == 2)
  }

  /// Its JSON error document's source is the trace being diagnosed, its error's file the
  /// message's (`source.path` named the message file).
  @Test func unreadableExpectFileJSONNamesTheTraceAsSource() throws {
    let run = CLI.run(
      ["diagnose", torn, "--expect", "@/nonexistent/message.bin", "--format", "json"])
    #expect(run.status == 3)
    let doc = try #require(
      JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let source = try #require(doc["source"] as? [String: Any])
    #expect(source["path"] as? String == torn)
    #expect(source["format"] is NSNull)
    let error = try #require(doc["error"] as? [String: Any])
    #expect(error["file"] as? String == "/nonexistent/message.bin")
    #expect(error["kind"] as? String == "unreadable")
    #expect((doc["sessions"] as? [Any])?.isEmpty == true)
  }

  /// `-o /dev/stdout` with standard output closed: the held stream is a directory, which
  /// cannot be opened for writing, so the output is not lost in silence (a /dev/null held
  /// there took it, exit 0).
  @Test func devStdoutOfAClosedStreamIsAFailedWrite() {
    let run = CLI.run(
      [
        "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "-o", "/dev/stdout",
        "--format", "pcap",
      ], closedStdout: true)
    #expect(run.status == 4)
    #expect(run.stderr.contains("cannot write /dev/stdout"))
  }
}
