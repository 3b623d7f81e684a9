import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// ISO-DEP presence checks (an R(NAK)/R(ACK) answered with R(ACK) after an intact answer) are
/// counted by the diff, not compared: how many a reader sends follows how long the app held
/// the session (nfcpy, libnfc-nci), so they made two identical reads differ.
@Suite struct Pass28PresenceCheckDiffTests {
  private static let readNLEN: [UInt8] = [0x00, 0xB0, 0x00, 0x00, 0x02]

  /// A Type 4 query and the READ of NLEN, then `checks` presence checks.
  private func read(checks: Int) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu(Self.readNLEN, [0x00, 0x05, 0x90, 0x00])
    for _ in 0..<checks {
      b.reader([0xB2], gapUs: 100_000)
      b.tag([0xA2])
    }
    return b
  }

  @Test func presenceChecksAreCountedNotCompared() throws {
    let d = TraceDiff(a: try diffSide(read(checks: 0)), b: try diffSide(read(checks: 3)))
    #expect(d.same)
    #expect(d.exchanges.allSatisfy { $0.same })
    let last = try #require(d.timing.last)
    #expect(last.a?.presenceChecks == 0 && last.b?.presenceChecks == 3)
    #expect(last.a?.exchanges == last.b?.exchanges)
    #expect(last.a?.durationNs == last.b?.durationNs)
    let row = DiffText.timing(d).last { $0.contains("presence checks") } ?? ""
    #expect(row.hasPrefix("      presence checks (not compared): 0 "))
    #expect(row.hasSuffix("│ presence checks: 3"))
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "0", to: out)
    let json = try JSONSerialization.jsonObject(with: Data(out.text.utf8))
    let timing = try #require((json as? [String: Any])?["timing"] as? [[String: Any]])
    #expect((timing.last?["b"] as? [String: Any])?["presence_checks"] as? Int == 3)
  }

  /// A presence check the tag left unanswered (it was taken away) stays an exchange to compare.
  @Test func unansweredPresenceCheckStaysAnExchange() throws {
    var b = read(checks: 1)
    b.reader([0xB3], gapUs: 100_000)
    let d = TraceDiff(a: try diffSide(read(checks: 1)), b: try diffSide(b))
    #expect(!d.same)
    let only = d.exchanges.filter { $0.a == nil }
    #expect(only.count == 1)
    #expect(only.first.flatMap { $0.b.map { d.b.exchanges[$0].unanswered } } == true)
    #expect(d.timing.last?.b?.presenceChecks == 1)
  }

  /// The reader's R(NAK) after its I-block went unanswered, answered with R(ACK) (the tag never
  /// got the block, ISO/IEC 14443-4 §7.5.4 rule 12), is ISO-DEP's recovery, not a presence
  /// check: it stays an exchange and counts as a retry.
  @Test func nakAfterLostBlockIsNoPresenceCheck() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0x02] + Self.readNLEN)
    b.reader([0xB2], gapUs: 10_000)
    b.tag([0xA2])
    let side = try diffSide(b)
    #expect(!side.exchanges.contains { $0.presenceCheck })
    #expect(side.exchanges.last?.name == "R(NAK)")
  }
}
