import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the twenty-first session (a Xerox type B capture, new-user reading of
/// `diagnose`).
@Suite struct Pass24RegressionTests {
  /// An ISO-DEP answer the sniffer missed in an operation that radio damage later
  /// interrupted: the finding no longer says the outcome is unknown (the verdict said
  /// INTERRUPTED), it says what settled it.
  @Test func missedAnswerInAnInterruptedOperationSaysWhatSettledIt() throws {
    let r = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace"))
    let f = try #require(r.finding("answer-not-captured"))
    #expect(f.frames == [633])
    #expect(r.sessions[1].analysis.operations[f.operation ?? -1].outcome == .interrupted)
    #expect(
      f.message.hasSuffix("The operation's outcome (interrupted) rests on the frames after it."))
  }

  /// A Type 2 WRITE whose ACK the sniffer missed, the reader going on: the outcome is unknown,
  /// and the finding says so.
  @Test func missedType2AnswerLeavesTheOutcomeUnknown() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    let f = try #require(try b.diagnose().finding("answer-not-captured"))
    #expect(f.message.hasSuffix("So the operation's outcome is unknown."))
  }
}
