import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the new user's walk and the expert review of 2026-12-06.
@Suite struct Pass38RegressionTests {
  /// A fix asking for PWD_AUTH says that sendMiFareCommand needs an NFCTagReaderSession: the
  /// sample apps' NFCNDEFReaderSession cannot send it.
  @Test func passwordFixNamesTheTagReaderSession() throws {
    let s = try Scenario.load(path: TestPaths.traces("scenarios/t2-write-without-pwd-auth.json"))
    let (_, report) = try diagnoseSimulated(s)
    let fix = try #require(report.finding("t2t-nak-password")?.fix)
    #expect(
      fix.hasPrefix("Authenticate first: sendMiFareCommand(commandPacket: [0x1B] + password)"))
    #expect(fix.hasSuffix(Diagnoser.tagSessionText))
    #expect(report.findings.filter { $0.fix.contains("NFCTagReaderSession") }.count == 1)
  }

  /// An app that sent PWD_AUTH already has the tag session: it is not told again.
  @Test func noSessionNoteWhenTheAppAuthenticated() throws {
    var t = TraceBuilder()
    t.activateType2()
    t.reader([0x1B, 0x11, 0x22, 0x33, 0x44])
    t.add(.tag, [0x00], crc: false, bits: 4)
    t.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(0x00))
    let report = try t.diagnose()
    #expect(report.findings.contains { $0.fix.contains("password") })
    #expect(!report.findings.contains { $0.fix.contains("NFCTagReaderSession") })
  }
}
