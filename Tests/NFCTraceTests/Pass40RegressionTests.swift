import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the expert reviews of 2026-12-06 (third session).
@Suite struct Pass40RegressionTests {
  /// A Type 4 writeNDEF whose UPDATE BINARY the tag answers with an S(WTX) request; the reader
  /// answers it (`readerAnswers`) or not, then the field goes off.
  private func wtxDuringUpdate(readerAnswers: Bool) throws -> [SessionAnalysis] {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 0)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x05, 0x00, 0x03, 0xD0, 0x00, 0x00], nil)
    t.tag([0xF2, 0x02])  // S(WTX) request WTXM 2
    if readerAnswers { t.reader([0xF2, 0x02]) }
    t.event(.fieldOff, gapUs: 20_000)
    return try sessions(t)
  }

  /// The reader never answered the tag's S(WTX) request: the UPDATE's answer never came, so
  /// writeNDEF is interrupted and its bytes unacknowledged (it was `ok`).
  @Test func wtxUnansweredByTheReaderInterruptsTheWrite() throws {
    let session = try #require(try wtxDuringUpdate(readerAnswers: false).first)
    let write = try #require(session.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .interrupted)
    #expect(
      write.reason
        == "the tag asked for more time (S(WTX) request, frame 19) and the reader never answered "
        + "it (ISO/IEC 14443-4 §7.3: the PCD answers with an S(WTX) response): the answer to "
        + "UPDATE NLEN and NDEF data NLEN 3 Lc 5 never came")
  }

  /// The reader answered the S(WTX) and the tag went silent: the tag's silence, as before.
  @Test func wtxAnsweredThenSilenceIsTheTags() throws {
    let session = try #require(try wtxDuringUpdate(readerAnswers: true).first)
    let write = try #require(session.operations.last)
    #expect(write.outcome == .interrupted)
    #expect(write.reason?.hasPrefix("no answer to S(WTX) answer WTXM 2") == true)
  }

  /// The UIKit sample's Text record written without a status byte: "Berlin" reads as status
  /// 0x42 (RFU bit set), language "er", text "lin". The RFU bit is the sign of the missing
  /// status byte; it was reported as a status byte breaking the rule.
  @Test func textWithoutStatusByteWhoseFirstLetterHasTheRFUBit() throws {
    let bytes: [UInt8] = [0xD1, 0x01, 0x06, 0x54] + Array("Berlin".utf8)
    let result = NDEFValidator.validate(bytes)
    #expect(result.findings.map(\.code) == ["text-no-status-byte"])
    let finding = try #require(result.findings.first)
    #expect(
      finding.readersShow
        == "RTD-Text readers such as ndeflib show language \"er\" and text \"lin\"; apps that "
        + "print record.payload as UTF-8 show \"Berlin\"")
  }

  /// "mailto:" by code 06h with a field starting "tel:" is a wrong code, not a repeat.
  @Test func uriOtherSchemeIsAWrongCode() throws {
    let bytes: [UInt8] = [0xD1, 0x01, 0x0D, 0x55, 0x06] + Array("tel:+8112345".utf8)
    let finding = try #require(NDEFValidator.validate(bytes).findings.first)
    #expect(finding.code == "uri-scheme-repeated")
    #expect(
      finding.message
        == "identifier code 0x06 gives \"mailto:\" but the URI field starts with another scheme, "
        + "\"tel:\": the identifier code is the wrong one (NFC Forum RTD-URI 1.0 §3.2.2)")
  }

  /// A scenario over an NTAG213 holding a short URI message.
  private func ntag213(_ tag: String, _ actions: String) throws -> DiagnosisReport {
    let json =
      #"{"name":"t","seed":71,"tag":{"type":"ntag213","uid":"0453a1b2c3d484","#
      + #""ndef":"d1010c55046578616d706c652e636f6d"\#(tag)},"reader":"ios","actions":["#
      + #"{"op":"connect"},{"op":"queryNDEFStatus"},\#(actions),{"op":"disconnect"}]}"#
    return try diagnoseSimulated(try Scenario.decode(Data(json.utf8))).1
  }

  /// A writeLock refused on a password-protected NTAG213: the fix names writeLock, not
  /// writeNDEF.
  @Test func refusedWriteLockFixNamesWriteLock() throws {
    let report = try ntag213(#","auth0":2"#, #"{"op":"writeLock"}"#)
    let fix = try #require(report.finding("t2t-nak-unexplained")?.fix)
    #expect(fix.hasSuffix(Diagnoser.tagSessionText(call: "writeLock")))
    #expect(
      fix.hasSuffix(
        "Authenticate, then call writeLock on that same NFCMiFareTag, in the same connection."))
  }

  /// A raw WRITE refused on a tag whose CC says read-only (0Fh): the fix follows the
  /// .readOnly status queryNDEFStatus reported, with no password advice.
  @Test func refusedWriteOnReadOnlyCCFollowsTheStatus() throws {
    let report = try ntag213(
      #","cc":"e110120f","static_lock":"f8ff""#,
      #"{"op":"sendMiFareCommand","data":"a2050300d101"}"#)
    let finding = try #require(report.finding("t2t-nak-unexplained"))
    #expect(
      finding.fix
        == "queryNDEFStatus reported .readOnly: the tag is not meant to be written. Check the "
        + "status before writing and tell the user to use another tag; do not write its pages "
        + "with sendMiFareCommand either (locked pages stay read-only for good).")
    #expect(
      finding.message.hasPrefix(
        "The tag answered NAK 0 (invalid argument or page) to the WRITE of page 5 (0x5). The CC "
          + "marks the tag read-only (write access Fh); writeLock sets that together with the "
          + "lock bits, so a locked page is the likely cause, although the trace does not show "
          + "the static lock bytes (page 2) or AUTH0 (CFG0)."))
  }

  /// readNDEF of a Type 4 tag whose NLEN is 0: Core NFC reports 403, so the call failed
  /// (it was `ok`, beside a 403 finding).
  @Test func emptyType4ReadNDEFFails() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 0)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00, 0x90, 0x00])
    let report = try t.diagnose()
    let read = try #require(report.sessions.first?.analysis.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.outcome == .failed)
    #expect(
      read.reason
        == "NLEN is 0: the tag holds no NDEF message, so Core NFC's readNDEF reports 403 "
        + "ndefReaderSessionErrorZeroLengthMessage")
    #expect(report.finding("ndef-empty-on-read")?.coreNFCError == .zeroLengthMessage)
  }

  /// A Type 2 tag holding `03 00 FE`, queried and not read: the no-writes line adds that a
  /// readNDEF fails with 403 without a frame (Core NFC sends none for an empty message).
  @Test func emptyType2TagNotReadSaysReadNDEFFails() throws {
    var t = TraceBuilder()
    t.activateType2(version: ntag213Version)
    t.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    let report = try t.diagnose()
    let analysis = try #require(report.sessions.first?.analysis)
    #expect(
      DiagnosisRender.noWritesText(analysis).hasSuffix(
        "  The tag holds an empty message (NDEF length 0): a readNDEF fails with 403\n"
          + "  (ndefReaderSessionErrorZeroLengthMessage) without a frame on the air\n\n"))
    var full = TraceBuilder()
    full.activateType2(version: ntag213Version)
    full.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
    let other = try #require(try full.diagnose().sessions.first?.analysis)
    #expect(DiagnosisRender.emptyTagText(other) == "")
  }
}
