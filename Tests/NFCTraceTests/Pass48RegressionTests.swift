import Foundation
import NFCTrace
import TestSupport
import Testing

/// Findings of the 2026-12-07 (ninth) session's hunt.
@Suite struct Pass48RegressionTests {
  /// A libnfc log: READ 7 timed out (PN53x status 01h), the stack sent it again and the chip
  /// got the answer with a bad CRC (status 02h). The tag answered, so it did not leave: the
  /// readNDEF failed on the damaged answer, not "interrupted: no answer" (it said so).
  @Test func damagedAnswerToARetryIsNoSilence() throws {
    let lines = [
      "InListPassiveTarget",
      "TX: 00 00 ff 04 fc d4 4a 01 00 e1 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 0f f1 d5 4b 01 01 00 44 00 07 04 a8 ce 6a 5d 2d 80 a5 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 03 b8 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 13 ed d5 41 00 e1 10 12 00 01 03 a0 0c 34 03 19 d1 01 15 55 04 a7 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 01 e9 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 02 e8 00",
    ]
    let log = lines.map { line in
      line.hasPrefix("TX") || line.hasPrefix("RX")
        ? "debug\tlibnfc.driver.pn53x_usb\t" + line : "debug\tlibnfc.chip.pn53x\t" + line
    }.joined(separator: "\n")
    let input = TraceInput(path: "retry.log", bytes: Data(log.utf8))
    let run = try SessionAnalysisRun(importer: try LibnfcLogImporter(input: input))
    let op = try #require(run.sessions.first?.operations.last)
    #expect(op.kind == .readNDEF)
    #expect(op.outcome == .failed)
    #expect(
      op.reason
        == "the reader received the tag's answer to READ page 7 damaged (CRC, parity or framing "
        + "error) and reported the command failed: the tag answered, but what it answered is "
        + "unknown")
    #expect(op.unansweredFrames == [4])
  }
}
