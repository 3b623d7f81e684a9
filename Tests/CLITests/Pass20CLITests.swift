import Foundation
import TestSupport
import Testing

/// CLI findings of the sixteenth session's passes.
@Suite struct Pass20CLITests {
  /// One file spelt two ways is the same file: sessions 0 and 1 are compared, as for one
  /// spelling. Before, both sides took the default session and the verdict was "same".
  @Test func diffKnowsOneFileUnderTwoSpellings() throws {
    let path = TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap")
    let other =
      (path as NSString).deletingLastPathComponent + "/./"
      + (path as NSString).lastPathComponent
    let run = CLI.run(["diff", path, other, "--no-color"])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count > 2)
    #expect(lines[1].hasPrefix("A  \(path) · session 0 ·"))
    #expect(lines[2].hasPrefix("B  \(other) · session 1 ·"))  // as spelt for B
    #expect(!run.stderr.contains("same session"))
  }

  /// A symbolic link to the file is the same file too.
  @Test func diffKnowsASymbolicLinkToTheFile() throws {
    let path = TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap")
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let link = dir.appendingPathComponent("link.pcap").path
    try FileManager.default.createSymbolicLink(
      atPath: link, withDestinationPath: URL(fileURLWithPath: path).path)
    let run = CLI.run(["diff", path, link, "--no-color"])
    let lines = run.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count > 2)
    #expect(lines[1].contains(" · session 0 ·"))
    #expect(lines[2].contains(" · session 1 ·"))
  }

  /// Both sides on one session of one file: a warning says nothing can differ.
  @Test func diffWarnsWhenBothSidesAreOneSession() throws {
    let path = TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap")
    let run = CLI.run(["diff", path, path, "--session-a", "1", "--session-b", "1", "--no-color"])
    #expect(run.status == 0)
    #expect(
      run.stderr
        == "warning: A and B are the same session (session 1 of \(path)): nothing can differ; "
        + "choose another with --session-a/--session-b\n")
  }

  /// `report` reads static dumps too: its "not recognised" message names them with the
  /// trace formats (before, only the trace formats).
  @Test func reportNamesDumpFormatsWhenNothingMatches() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("note.txt").path
    try Data("hello world\n".utf8).write(to: URL(fileURLWithPath: path))
    let run = CLI.run(["report", path])
    #expect(run.status == 3)
    #expect(
      run.stderr.contains(
        "not a recognised trace or tag dump format (known: pcap, pm3-trace, pm3-text, "
          + "nfclab-json, libnfc-log, android-nfcsnoop, flipper-nfc, pm3-json, raw-type2)"))
    #expect(CLI.run(["timeline", path]).stderr.contains("not a recognised trace format"))
  }
}
