import Foundation
import TestSupport
import Testing

/// CLI findings of a new user's walk through the README (2026-12-05).
@Suite struct Pass36CLITests {
  /// `formats` with an extra argument is a usage error, as `version` is (it was ignored).
  @Test func formatsRefusesArguments() {
    let run = CLI.run(["formats", "extra"])
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.hasPrefix("nfctrace formats: unexpected argument extra"))
  }

  /// A static dump format named to a command that reads frames says which command reads it
  /// (it was "unknown input format").
  @Test func dumpFormatOutsideReportSaysReportReadsIt() {
    let run = CLI.run(["sessions", "x.nfc", "--input-format", "flipper-nfc"])
    #expect(run.status == 2)
    #expect(
      run.stderr.hasPrefix(
        "nfctrace sessions: flipper-nfc is a static tag dump (contents, no frames): only "
          + "nfctrace report reads it"))
  }

  /// Several scenarios without `--frames` name the option they need.
  @Test func severalScenariosNeedFrames() {
    let run = CLI.run(["simulate", "a.json", "b.json", "-o", "x.pcap"])
    #expect(run.status == 2)
    #expect(
      run.stderr.hasPrefix(
        "nfctrace simulate: several scenarios are run in turn only with --frames N"))
  }

  /// `diagnose` of a trace no tag answered says so, as `sessions` and `report` do.
  @Test func diagnoseWithoutSessionsSaysWhy() {
    let run = CLI.run([
      "diagnose", TestPaths.shared("public/nfc-laboratory/test_POLL_AB_001.json"),
    ])
    #expect(run.status == 0)
    #expect(
      run.stdout
        == "no sessions: no tag answered in this trace\n"
        + "0 session(s): 0 error(s), 0 warning(s), 0 note(s)\n")
  }

  /// One byte is "1 byte"; a cut record header says what should follow its flags byte.
  @Test func ndefCutHeaderWording() {
    let run = CLI.run(["ndef", "d0"])
    #expect(
      run.stdout.hasPrefix(
        "NDEF message (relax): 0 records before the damage at byte 1 (1 byte given)\n"))
    #expect(
      run.stdout.contains(
        "record header at byte 0 is cut: 2 bytes of lengths follow its flags byte, only 0 left"))
  }
}
