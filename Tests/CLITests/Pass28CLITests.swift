import Foundation
import TestSupport
import Testing

/// CLI findings of the new-user pass of 2026-12-04b.
@Suite struct Pass28CLITests {
  /// A misspelt `--input-format` is a usage error (exit 2) even when the file is missing too:
  /// it said "no such file" (exit 3), hiding the wrong name.
  @Test(arguments: ["timeline", "sessions", "report", "diagnose"])
  func unknownInputFormatComesBeforeTheMissingFile(command: String) {
    let run = CLI.run([command, "/nonexistent/trace.pcap", "--input-format", "foo"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("unknown input format foo (known: pcap,"))
  }

  /// `report` knows the static dump formats as well.
  @Test func reportListsTheDumpFormats() {
    let run = CLI.run(["report", "/nonexistent/tag.nfc", "--input-format", "foo"])
    #expect(run.stderr.contains("flipper-nfc, pm3-json, raw-type2)"))
  }
}
