import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the expert review of 2026-12-06 (second session).
@Suite struct Pass39RegressionTests {
  private let ntag213Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]

  /// NTAG213 with an NDEF CC, a refused WRITE of page 4, and CFG0 (page 29h) read with AUTH0
  /// `auth0` before the WRITE (`readFirst`) or after it; `writeAfter` writes AUTH0 = 4 after
  /// the refusal.
  private func refusedWrite(auth0: UInt8, readFirst: Bool, writeAfter: Bool) throws
    -> DiagnosisReport
  {
    var t = TraceBuilder()
    t.activateType2(version: ntag213Version)
    t.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    if readFirst { t.read(0x29, [0x04, 0x00, 0x00, auth0, 0x00, 0x05]) }
    t.write(4, [0x03, 0x0C, 0xD1, 0x01], .nak(0x00))
    if !readFirst { t.read(0x29, [0x04, 0x00, 0x00, auth0, 0x00, 0x05]) }
    if writeAfter { t.write(0x29, [0x04, 0x00, 0x00, 0x04]) }
    return try t.diagnose()
  }

  /// AUTH0 = FFh when the WRITE was refused, set to 4 only afterwards: the password is not the
  /// cause (it was blamed on the AUTH0 written after the NAK).
  @Test func auth0WrittenAfterTheRefusalIsNoCause() throws {
    let report = try refusedWrite(auth0: 0xFF, readFirst: true, writeAfter: true)
    #expect(report.finding("t2t-nak-password") == nil)
    let finding = try #require(report.finding("t2t-nak-unexplained"))
    #expect(finding.message.hasSuffix("(AUTH0 read in this session leaves the page free)."))
  }

  /// AUTH0 = 4 read after the refusal, with no write of it in between, was AUTH0 then too.
  @Test func auth0ReadAfterTheRefusalStillCounts() throws {
    let report = try refusedWrite(auth0: 0x04, readFirst: false, writeAfter: false)
    let finding = try #require(report.finding("t2t-nak-password"))
    #expect(finding.message.hasPrefix("CFG0 (read from the tag) sets AUTH0 = 4 (0x4)"))
    #expect(finding.frames.contains(17))  // the READ answer of CFG0
  }
}
