import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// The diagnosis of refused DESFire commands: the header of a failed operation names the
/// refusal its reason names; 91AE at an authentication's first step is a command that does
/// not fit the key.
@Suite struct DESFireDiagnosisTests {
  /// Two refusals in one transceive: the diagnosis header names the first, as the
  /// operation's reason does.
  @Test func failedHeaderNamesTheFirstRefusal() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00], [0x91, 0xA0])
    t.apdu([0x90, 0xC7, 0x00, 0x00, 0x00], [0x91, 0x1C])
    let report = try t.diagnose()
    let s = try #require(report.sessions.last)
    let i = try #require(s.analysis.operations.lastIndex { $0.outcome == .failed })
    let op = s.analysis.operations[i]
    #expect(
      op.reason == "DESFire SELECT APPLICATION refused: SW 91a0 DESFire: application not found")
    #expect(op.reasonFrame == op.failedFrames.first)
    let fs = s.findings.filter { $0.operation == i }
    let head = try #require(DiagnosisRender.headline(fs, op))
    #expect(head.cause.hasSuffix("(SW 91A0 to DESFire SELECT APPLICATION Lc 3 Le 256)"))
  }

  /// 91AE to an authentication's first step: the command does not fit the key; to its
  /// second step: the proof was wrong.
  @Test func authenticationErrorAtTheFirstStep() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x90, 0x0A, 0x00, 0x00, 0x01, 0x00, 0x00], [0x91, 0xAE])
    t.apdu(
      [0x90, 0xAA, 0x00, 0x00, 0x01, 0x00, 0x00], Array(repeating: 0x01, count: 16) + [0x91, 0xAF])
    t.apdu(
      [0x90, 0xAF, 0x00, 0x00, 0x20] + Array(repeating: 0x00, count: 32) + [0x00], [0x91, 0xAE])
    let report = try t.diagnose()
    let fs = report.findings.filter { $0.code == "apdu-refused" }
    #expect(fs.count == 2)
    #expect(
      fs.first?.cause
        == "the authentication command does not fit the key (SW 91AE to DESFire AUTHENTICATE "
        + "(legacy) Lc 1 Le 256)")
    #expect(fs.first?.message.contains("no proof of the key was sent yet") == true)
    #expect(
      fs.first?.fix.hasPrefix(
        "Use the authentication command matching the key type: AuthenticateAES (AA) or "
          + "AuthenticateEV2First (71) for AES keys") == true)
    #expect(fs.last?.cause.hasPrefix("authentication failed: the key did not match") == true)
    #expect(fs.last?.message.contains("the reader's proof of the key was wrong") == true)
  }
}
