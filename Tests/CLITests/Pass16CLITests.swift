import Foundation
import TestSupport
import Testing

/// CLI findings of the twelfth session's passes.
@Suite struct Pass16CLITests {
  /// A failure in a session `diff` does not compare is named under the side's header (and in
  /// JSON's `other_failures`): the default session choice hid it, the verdict said "same".
  /// The other side's session of the same file is not listed as left out.
  @Test func diffNamesFailuresOutsideTheComparedSessions() throws {
    let path = TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap")
    let text = CLI.run(["diff", path, path, "--session-a", "0", "--session-b", "2", "--no-color"])
    #expect(text.status == 0)
    let lines = text.stdout.split(separator: "\n").map(String.init)
    #expect(lines[2] == "   A has 3 sessions; not compared: session 1 writeNDEF failed")
    #expect(lines[4] == "   B has 3 sessions; not compared: session 1 writeNDEF failed")
    let pair = CLI.run(["diff", path, path, "--no-color"])
    #expect(!pair.stdout.contains("not compared"))
    let json = CLI.run(["diff", path, path, "--session-b", "2", "--format", "json"])
    #expect(
      json.stdout.contains(
        "\"sessions\":3,\"other_failures\":[{\"session\":1,\"operations\":\"writeNDEF failed\"}]"))
  }
}
