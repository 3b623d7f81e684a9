import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Options every command shares.
@Suite struct CommandOptionTests {
  /// `--no-color` is accepted by every command that reads a trace, not only by `timeline`
  /// (it was a usage error, exit status 2, for `sessions`, `report` and `diagnose`).
  @Test(arguments: ["timeline", "sessions", "report", "diagnose"])
  func noColorIsAcceptedEverywhere(_ command: String) {
    let run = CLI.run([command, TestPaths.traces("t2t-ntag215-write-ok.pcap"), "--no-color"])
    #expect(run.status == 0, "\(command): \(run.stderr)")
    #expect(!run.stdout.contains("\u{1B}["))
    #expect(!run.stderr.contains("unknown option"))
  }

  /// An input that cannot be opened at all still gives one JSON document with `error` set
  /// when JSON is asked for (standard output was empty; field engineer pass, x-03).
  @Test(arguments: ["timeline", "sessions", "report", "diagnose"])
  func unopenableInputGivesAJSONError(_ command: String) throws {
    let run = CLI.run([command, "/nonexistent/trace.pcap", "--format", "json"])
    #expect(run.status == 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let error = try #require(doc["error"] as? [String: Any])
    #expect(error["kind"] as? String == "unreadable")
    #expect(error["file"] as? String == "/nonexistent/trace.pcap")
  }

  /// `--expect -` is no message (it was read as an empty one, giving zero-length-message on
  /// a good write; attacker pass): a usage error.
  @Test func expectDashIsAUsageError() {
    let run = CLI.run(["diagnose", TestPaths.traces("t2t-ntag215-write-ok.pcap"), "--expect", "-"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("--expect: not hex (and not @FILE): -"))
    // An empty message cannot be what the app writes (new-user pass: "OK — the message to
    // write is empty" beside the write the trace shows).
    let empty = CLI.run(["diagnose", TestPaths.traces("t2t-ntag215-write-ok.pcap"), "--expect", ""])
    #expect(empty.status == 2)
    #expect(empty.stderr.contains("option --expect needs a value, got an empty one"))
  }

  /// Output that cannot be written (a full disk, a closed descriptor) is an error, exit 4:
  /// every command exited 0 with its output lost.
  @Test(arguments: [
    ["formats"], ["sessions", TestPaths.traces("t2t-ntag215-write-ok.pcap")],
    ["convert", TestPaths.traces("t2t-ntag215-write-ok.pcap"), "-o", "-", "--format", "pcap"],
    ["ndef", "d101055501676f6f676c652e636f6d"],
  ])
  func unwritableOutputFails(_ args: [String]) {
    let run = CLI.run(args, unwritableStdout: true)
    #expect(run.status == 4, "\(args[0]): \(run.stderr)")
    #expect(run.stderr.contains("nfctrace: error: cannot write standard output: "))
  }

  /// A bad input's exit status 3 stays when its JSON error document cannot be written either
  /// (review3: it became 4).
  @Test func inputErrorKeepsItsStatusWithAClosedOutput() {
    let run = CLI.run(
      ["timeline", "/nonexistent/trace.pcap", "--format", "json"], unwritableStdout: true)
    #expect(run.status == 3)
    #expect(run.stderr.contains("/nonexistent/trace.pcap"))
  }

  /// `simulate --frames N --truth F` wrote no F and exited 0 (review3): a usage error now.
  @Test func truthWithFramesIsAUsageError() {
    let run = CLI.run([
      "simulate",
      TestPaths.root.appendingPathComponent("Traces/scenarios/ios11-nfchelper.json").path,
      "-o", "/tmp/nfctrace-never.pcap", "--frames", "10", "--truth", "/tmp/nfctrace-never.json",
    ])
    #expect(run.status == 2)
    #expect(run.stderr.contains("--truth cannot be used with --frames"))
  }

  /// `COMMAND --help` prints that command's usage on standard output and exits 0 (it was
  /// "unknown option --help", exit 2).
  @Test(arguments: ["timeline", "sessions", "report", "diagnose", "diff", "convert"])
  func helpPrintsUsage(_ command: String) {
    let run = CLI.run([command, "--help"])
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("usage: nfctrace \(command)"))
  }

  /// `COMMAND --help` explains each option and gives an example (it printed the usage line
  /// alone); `nfctrace help COMMAND` prints the same.
  @Test(arguments: [
    ("timeline", "--no-color"), ("sessions", "--format text|json"), ("report", "--all"),
    ("diagnose", "--expect NDEF"), ("diff", "--session-b M"), ("ndef", "--tlv"),
    ("simulate", "--truth FILE"), ("convert", "-o, --output OUT"),
  ])
  func helpExplainsOptions(_ command: String, _ option: String) {
    let run = CLI.run([command, "--help"])
    #expect(run.stdout.contains("\noptions:\n"))
    #expect(run.stdout.contains("\n  \(option)  "))
    #expect(run.stdout.contains("\nexample:\n  nfctrace \(command) "))
    let viaHelp = CLI.run(["help", command])
    #expect(viaHelp.status == 0)
    #expect(viaHelp.stdout == run.stdout)
  }

  /// `--` ends the options for `--help` too: after it, `--help` is a file name; as an
  /// option's value it is that value (both printed the help).
  @Test func helpAfterDoubleDashIsAFileName() {
    let file = CLI.run(["sessions", "--", "--help"])
    #expect(file.status == 3)
    #expect(file.stderr == "nfctrace: error: --help: no such file\n")
    let value = CLI.run(["timeline", "x.pcap", "--format", "--help"])
    #expect(value.status == 2)
    #expect(
      value.stderr.hasPrefix("nfctrace timeline: --format must be one of text, json, not --help\n"))
    // Beside a wrong option, --help still answers.
    let both = CLI.run(["timeline", "--bogus", "-h"])
    #expect(both.status == 0)
    #expect(both.stdout.hasPrefix("usage: nfctrace timeline"))
  }

  /// `nfctrace help NAME` of no command is a usage error naming it.
  @Test func helpOfAnUnknownCommand() {
    let run = CLI.run(["help", "timelines"])
    #expect(run.status == 2)
    #expect(run.stderr.hasPrefix("nfctrace: unknown command timelines\n"))
    #expect(run.stdout.isEmpty)
  }

  /// A pipe (a FIFO here; `<(…)` in a shell) is read as a stream: it was refused as
  /// "permission" because it cannot be memory-mapped (attacker and NDEF auditor passes).
  @Test func aFIFOIsReadAsAStream() throws {
    let fifo = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-fifo-\(UUID().uuidString)").path
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { try? FileManager.default.removeItem(atPath: fifo) }
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = ["-c", "cat \"$0\" > \"$1\"", TestPaths.traces("t4t-write-ok.pcap"), fifo]
    try writer.run()
    let run = CLI.run(["sessions", fifo])
    writer.waitUntilExit()
    #expect(run.status == 0)
    #expect(run.stdout.contains("writeNDEF ok"))
  }

  /// `diff` on a trace cut before its first session completes says why (the import error),
  /// not only that there is no session; JSON gets the error document (new-user pass).
  @Test func diffNamesTheImportErrorOfASideWithoutSession() throws {
    let whole = try Data(
      contentsOf: URL(fileURLWithPath: TestPaths.traces("t2t-ntag215-write-ok.pcap")))
    let cut = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-cut-\(UUID().uuidString).pcap").path
    defer { try? FileManager.default.removeItem(atPath: cut) }
    try whole.prefix(100).write(to: URL(fileURLWithPath: cut))
    let good = TestPaths.traces("t2t-ntag215-write-ok.pcap")
    let run = CLI.run(["diff", cut, good])
    #expect(run.status == 3)
    #expect(run.stderr.contains("truncated"))
    #expect(run.stderr.contains("(and so: A ("))
    let json = CLI.run(["diff", cut, good, "--format", "json"])
    #expect(json.status == 3)
    let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    #expect((doc?["error"] as? [String: Any])?["kind"] as? String == "truncated")
  }

  /// `diff --format json` with a side that has no session still prints a JSON document
  /// (attacker pass: stdout was empty).
  @Test func diffWithoutSessionGivesAJSONDocument() throws {
    // A pcap with its global header only (link type 264): valid, no packet, no session.
    let header: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00] + Array(repeating: 0, count: 8)
      + [0xFF, 0xFF, 0x00, 0x00, 0x08, 0x01, 0x00, 0x00]
    let empty = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-empty-\(UUID().uuidString).pcap").path
    defer { try? FileManager.default.removeItem(atPath: empty) }
    try Data(header).write(to: URL(fileURLWithPath: empty))
    let run = CLI.run(["diff", empty, TestPaths.traces("t4t-write-ok.pcap"), "--format", "json"])
    #expect(run.status == 3)
    let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    let error = try #require(doc?["error"] as? [String: Any])
    #expect(error["kind"] as? String == "invalid-input")
    #expect((error["message"] as? String)?.hasSuffix("the trace has no sessions") == true)
  }

  /// Converting a reader's traffic (here a USB capture of a PN533 with a Type 4 tag) to pcap
  /// loses what the reader reported: `convert` says so instead of writing a file that silently
  /// decodes otherwise.
  @Test func convertWarnsAboutReaderReportedFrames() throws {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-convert-\(UUID().uuidString).pcap").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let run = CLI.run(["convert", TestPaths.traces("usb/pn533-t4t-usbmon.pcap"), "-o", output])
    #expect(run.status == 0)
    #expect(
      run.stderr.contains("warning: 21 frames are what a reader reported rather than air frames"))
  }

  /// Frames whose CRC the reader chip removed (Flipper debug pcap: events 0xFA/0xFB) cannot be
  /// written to a Proxmark3 trace as they were: `convert` says so (they read back as CRC
  /// failures).
  @Test func convertToProxmark3WarnsAboutFramesWithoutCRC() throws {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-convert-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let run = CLI.run([
      "convert", TestPaths.traces("flipper/flipper-reader-ntag215.pcap"), "-o", output,
    ])
    #expect(run.status == 0)
    #expect(run.stderr.contains("warning: 21 frames were captured without their CRC"))
  }

  /// `diagnose` says of a static tag dump what `timeline` and `sessions` say (it said "not a
  /// recognised trace format").
  @Test func diagnoseOfAStaticDumpPointsToReport() {
    let dump = TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin")
    let run = CLI.run(["diagnose", dump])
    #expect(run.status == 3)
    #expect(run.stderr.contains("a static tag dump (raw-type2) holds memory contents, not frames"))
  }

  /// A libnfc log has no times: the timeline, sessions and report say "no time" instead of
  /// showing every frame at 0.000 ms.
  @Test func sourceWithoutTimesPrintsNoTime() {
    let log = TestPaths.traces("libnfc/acr122u_t2t_read_write.log")
    let timeline = CLI.run(["timeline", log, "--no-color"])
    #expect(timeline.status == 0)
    #expect(timeline.stdout.hasPrefix("#0       no time               field-off\n"))
    #expect(!timeline.stdout.contains(" ms "))
    let sessions = CLI.run(["sessions", log])
    #expect(
      sessions.stdout.hasPrefix(
        "0  no time  MIFARE Ultralight / NTAG (Type 2) 04:A8:CE:6A:5D:2D:80"))
    let report = CLI.run(["report", log])
    #expect(report.stdout.contains("Tag report · session 0 · frames #2–#10 · no time\n"))
  }

  /// `formats` keeps every name in its column (android-nfcsnoop is 16 characters).
  @Test func formatsKeepsNamesApartFromSummaries() {
    let run = CLI.run(["formats"])
    #expect(run.stdout.contains("android-nfcsnoop  Android NFC snoop log"))
  }

  /// In JSON, `diagnose` carries the importer's warnings (they went nowhere before): a snoop
  /// log without data payloads says so in the document a CI gate reads.
  @Test func diagnoseJSONCarriesTheImportWarnings() throws {
    let run = CLI.run([
      "diagnose", TestPaths.traces("android/android-dumpsys-nfc-filtered.txt"), "--format", "json",
    ])
    #expect(run.status == 0)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let warnings = try #require(doc["warnings"] as? [[String: Any]])
    #expect(warnings.count == 1)
    #expect(
      (warnings.first?["message"] as? String)?.hasPrefix(
        "data packets are logged without their payload") == true)
    #expect(warnings.first?["record"] as? Int == 4)
    #expect(doc["error"] is NSNull)
  }

  /// An NFC-Laboratory .trz (a tar.gz) is named as such, with the command that extracts the
  /// frame.json nfctrace reads, instead of "not a recognised trace format".
  @Test func trzArchiveSaysHowToExtractFrames() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-\(UUID().uuidString).trz").path
    try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).write(
      to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["sessions", path])
    #expect(run.status == 3)
    #expect(run.stderr.contains("is a tar.gz archive: extract its frames with `tar xzf"))
  }

  /// A raw NTAG image whose bytes happen to walk as Proxmark3 records (no magic number) is the
  /// dump it is (CC magic, UID check bytes): `timeline` says to use `report`.
  @Test func rawImageWalkingAsRecordsIsADump() throws {
    var b = [UInt8](repeating: 0, count: 540)
    // Record 1: bytes 6–7 (UID5 UID6) claim 100 bytes; record 2 at 121 claims 85; then 35
    // empty 9-byte records to the end.
    b[0...2] = [0x04, 0xA0, 0xB0]
    b[3] = 0x88 ^ 0x04 ^ 0xA0 ^ 0xB0
    b[4...7] = [0x11, 0x22, 100, 0x00]
    b[8] = 0x11 ^ 0x22 ^ 100 ^ 0x00
    b[12...15] = [0xE1, 0x10, 0x3E, 0x00]
    b[121...128] = [0x04, 0x03, 0x02, 0x01, 0x00, 0x00, 85, 0x00]
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-\(UUID().uuidString).img").path
    try Data(b).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path, "--no-color"])
    #expect(run.status == 3)
    #expect(run.stderr.contains("a static tag dump (raw-type2) holds memory contents, not frames"))
  }
}

/// A and B the same file under two spellings (a link): each side shows its own spelling (B's
/// header showed A's path; hunt-diff).
@Test func diffOfOneFileKeepsEachSidesSpelling() throws {
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
    "nfctrace-link-\(getpid())")
  try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: dir) }
  let a = TestPaths.traces("android/android-dumpsys-nfc.txt")
  let b = dir.appendingPathComponent("b.txt").path
  try FileManager.default.createSymbolicLink(atPath: b, withDestinationPath: a)
  let run = CLI.run(["diff", a, b, "--format", "json"])
  let doc = try #require(
    try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
  #expect((doc["a"] as? [String: Any])?["path"] as? String == a)
  #expect((doc["b"] as? [String: Any])?["path"] as? String == b)
}
