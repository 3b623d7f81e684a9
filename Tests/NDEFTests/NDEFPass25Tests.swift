import Foundation
import NDEF
import TestSupport
import Testing

/// NDEF findings of the 2026-12-04 sessions.
@Suite struct NDEFPass25Tests {
  /// A Handover Error record holds its 1-byte reason and then error data (Connection Handover
  /// §6.2.6): an empty one needs "at least" one byte (it said "needs a 1-byte payload", as if
  /// a longer one were wrong too).
  @Test func emptyHandoverErrorNeedsAtLeastOneByte() {
    let empty = NDEFCommand.run(bytes: hx("d10300657272"), options: NDEFCommandOptions())
    #expect(
      empty.output.contains(
        "payload-length-invalid @6: Handover Error record 'err' needs at least a 1-byte "
          + "payload, has 0 (NFC Forum Connection Handover)"))
    // Reason 01 with 1 byte of error data: no length finding.
    let ok = NDEFCommand.run(bytes: hx("d1030265727201ff"), options: NDEFCommandOptions())
    #expect(ok.output.contains("Handover Error"))
    #expect(!ok.output.contains("payload-length-invalid"))
  }
}
