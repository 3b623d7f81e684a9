import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Review of `nfctrace diff` TIMING: a tag that leaves during an S(WTX) wait.
@Suite struct DiffTimingReviewTests {
  // MARK: S(WTX) wait never answered

  /// B's tag asks twice for more time (ISO/IEC 14443-4 §7.3) before the READ BINARY's answer,
  /// then leaves: no answer to the reader's second S(WTX) response, nor to its R(NAK) after
  /// the silence (§7.5.4). An S(WTX) request is no answer, so the command is unanswered —
  /// `answered` 0, no response time, the R(NAK) a retry (docs/json.md TIMING). It counted as
  /// answered by the first S(WTX) request, 381 121 ns after the command.
  @Test func tagLeavingDuringWTXLeavesTheCommandUnanswered() throws {
    let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    a.apdu(read, [0xD1, 0x01, 0x10, 0x55, 0x90, 0x00])
    // The query took 5 I-blocks: block number 1.
    b.reader([0x03] + read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01])
      b.reader([0xF2, 0x01])
    }
    b.reader([0xB3])
    let sideB = try diffSide(b)
    let d = TraceDiff(a: try diffSide(a), b: sideB)
    let t = try #require(d.timing.last)
    #expect(t.b?.exchanges == 2)
    #expect(t.b?.answered == 0)
    #expect(t.b?.medianResponseNs == nil)
    #expect(t.b?.maxResponseNs == nil)
    #expect(t.b?.retries == 1)
    #expect(t.b?.wtxRequests == 2)
    #expect(t.a?.answered == 1)
    #expect(t.a?.medianResponseNs == 381_121)
    #expect(t.notable.map(\.why) == ["unanswered"])
    #expect(t.notable.first?.aResponseNs == 381_121)
    #expect(t.notable.first?.bResponseNs == nil)
    let command = try #require(sideB.exchanges.first { $0.key.hasPrefix("READ") && $0.wtxRequest })
    #expect(command.unanswered)
    #expect(command.response == nil)
    #expect(command.answerSummary == "no answer")
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    #expect(
      out.text.contains(
        "\"answered\":0,\"median_response_ns\":null,\"max_response_ns\":null,\"retries\":1"))
    #expect(out.text.contains("\"a_response_ns\":381121,\"b_response_ns\":null"))
    let row = try #require(DiffText.lines(d).last { $0.hasPrefix("≠ ") && $0.contains("│ 2 ") })
    let bColumn = row.split(separator: "│").last?.split(separator: " ").joined(separator: " ")
    #expect(bColumn?.hasPrefix("2 — — 1 ") == true)
  }

  /// The same wait answered after the two S(WTX) requests stays the command's answer, its
  /// response time running over the extensions (from the command's end to the I-block).
  @Test func answeredWTXWaitKeepsTheFinalAnswer() throws {
    let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    b.reader([0x03] + read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01])
      b.reader([0xF2, 0x01])
    }
    b.tag([0x03, 0xD1, 0x01, 0x10, 0x55, 0x90, 0x00])
    let side = try diffSide(b)
    let command = try #require(side.exchanges.first { $0.key.hasPrefix("READ") && $0.wtxRequest })
    #expect(!command.unanswered)
    #expect(command.responseTimeNs == 3_340_413)
    let t = TimingComparison.timing(
      Array(side.exchanges.indices.filter { side.exchanges[$0].operation == command.operation }),
      side.exchanges)
    #expect(t.answered == 1)
    #expect(t.retries == 0)
  }
}
