import Testing

@testable import NFCTrace

/// Findings of the ninth session's passes (diagnose realism, spec review, new user): each with
/// the value the standard or datasheet gives.
@Suite struct Pass13RegressionTests {
  /// NDEF TLV of `https://a.b` (URI record, identifier code 04) and its Terminator, from page 4.
  static let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62]
  static let ntag215: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

  private func started() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE, 0x00])
    return b
  }

  /// A write resumed after NAK 1 and a re-activation finds its first pages written by the
  /// operation before: the tag holds the intended message, so the successful write has no
  /// content finding (it said "the first 8 bytes match" and called the content bad).
  @Test func writeResumedAfterReactivationHoldsTheMessage() throws {
    var b = started()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x62, 0xFE, 0x00], .nak(0x1))
    b.activateType2()
    b.write(6, [0x2E, 0x62, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let report = try b.diagnose(expect: Self.message)
    let verdicts = try #require(report.sessions.first?.verdicts)
    #expect(verdicts.last?.verdict == .succeeded)
    #expect(
      report.findings.filter { $0.code == "content-differs-from-expected" }.allSatisfy {
        $0.severity == .info
      })
  }

  /// The length-0 WRITE after a NAK, with no re-activation, never reached the tag's memory (a
  /// NAK returns an NTAG to IDLE/HALT, NTAG213/215/216 datasheet §9.3): no `ndef-emptied`.
  @Test func lengthWriteAfterNAKDidNotEmptyTheTag() throws {
    var b = started()
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x0))
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    let report = try b.diagnose()
    #expect(report.codes.contains("write-interrupted"))
    #expect(!report.codes.contains("ndef-emptied"))
    #expect(!report.codes.contains("ndef-length-uncertain"))
  }

  /// An unanswered length-0 WRITE may or may not have landed: uncertain, not "emptied".
  @Test func unansweredLengthWriteIsUncertain() throws {
    var b = started()
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    let report = try b.diagnose()
    #expect(!report.codes.contains("ndef-emptied"))
    let f = try #require(report.finding("ndef-length-uncertain"))
    #expect(f.severity == .warning)
    #expect(f.message.hasSuffix("or its old message untouched; the trace cannot tell which."))
  }

  /// A page written with ACK and read back with other bytes in the same session: the tag did
  /// not keep the write, whatever writeNDEF reported.
  @Test func readBackDifferingFromAnAcknowledgedWriteIsBadContent() throws {
    var b = started()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x62, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    b.read(4, [0x03, 0x08, 0xD1, 0x01, 0x04, 0x55, 0x04, 0x7A, 0x2E, 0x62, 0xFE, 0x00])
    let report = try b.diagnose()
    let f = try #require(report.finding("read-back-differs"))
    #expect(f.severity == .error)
    #expect(f.message.contains("first at page 5 byte 3: it wrote 61 and read back 7a"))
    #expect(report.sessions.first?.verdicts.last?.verdict == .succeededWithBadContent)
    let memory = try #require(report.sessions.first?.analysis.memory)
    #expect(memory.readBackConflicts.count == 1)
    // A read-back that confirms the write keeps the `written` mark (report and diff agree).
    #expect(memory.type2End.state(16) == .written)
    #expect(memory.type2End.state(23) == .read)
  }

  /// Bytes read back as ASCII hex digits where the app wrote a placeholder: an NTAG21x UID
  /// mirror (datasheet §8.7), an info.
  @Test func readBackAsASCIIHexIsTheMirror() throws {
    var b = started()
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x30])
    b.write(6, [0x2E, 0x62, 0xFE, 0x00])
    b.read(4, [0x03, 0x08, 0xD1, 0x01, 0x04, 0x55, 0x04, 0x41, 0x2E, 0x62, 0xFE, 0x00])
    let report = try b.diagnose()
    #expect(report.finding("read-back-differs")?.severity == .info)
    #expect(report.sessions.first?.verdicts.last?.verdict == .succeeded)
  }
}
