import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the fourteenth session: each with the value the standard or the stack gives.
@Suite struct Pass18QueryTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let cc: [UInt8] =
    [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]

  /// A SELECT refused in one form (P2 0C) and accepted in another (P2 00) for the same file:
  /// the reader got past it, so the query is ok with the CC's status (ISO/IEC 7816-4 §11.1.1);
  /// the refusal stays a warning without a Core NFC error.
  @Test func selectAcceptedInAnotherFormRecoversTheQuery() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x86])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x03], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], Self.cc + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .ok)
    #expect(query.detail("status") == .string("readWrite"))
    #expect(query.detail("capacity") == .int(253))
    #expect(query.detail("sw") == nil)
    let f = try #require(try b.diagnose().finding("t4t-error-status"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.message.hasSuffix("in another form and the tag accepted it."))
  }

  /// The NDEF file's SELECT refused 6A82 and accepted in another form: NDEF detection went on,
  /// so the status is the CC's, not notSupported.
  @Test func ndefFileSelectedInAnotherFormKeepsDetectionGoing() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], Self.cc + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x6A, 0x82])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x04, 0x00], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .ok)
    #expect(query.detail("status") == .string("readWrite"))
    #expect(query.detail("ndef_detection_failed") == nil)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
  }

  /// A refused SELECT followed by the SELECT of another file is no recovery: still FAILED.
  @Test func selectOfAnotherFileDoesNotRecover() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x86])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x05], Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .failed)
    let f = try #require(try b.diagnose().finding("t4t-error-status"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagResponseError)
  }
}

@Suite struct Pass18Type2Tests {
  /// FAST_WRITE `A6 F0 FF` + 64 bytes writes NTAG I2C plus SRAM (NT3H2111/2211 datasheet §10);
  /// answered ACK. A frame whose data does not match its page range stays raw with the reason.
  @Test func fastWriteIsDecoded() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x13, 0x03])
    b.reader([0xA6, 0xF0, 0xFF] + Array(0..<64))
    b.add4Bit(0x0A)
    b.reader([0xA6, 0xF0, 0xF1, 0x00, 0x01, 0x02, 0x03])
    let frames = decodeAll(b.frames).0
    let write = try #require(frames[12].layer(.type2))
    #expect(write.name == "FAST_WRITE")
    #expect(write.summary == "FAST_WRITE pages 240–255 ← 64 bytes (SRAM)")
    #expect(write.field("start_page") == .int(0xF0))
    #expect(write.field("end_page") == .int(0xFF))
    #expect(write.field("data") == .hex(Array(0..<64)))
    #expect(frames[13].layer(.type2)?.summary == "ACK")
    #expect(frames[13].layer(.type2)?.field("command") == .string("FAST_WRITE"))
    #expect(frames[14].layer(.type2) == nil)
    #expect(
      frames[14].undecodedReason
        == "FAST_WRITE (A6 start end + 4 bytes per page) needs 11 bytes, got 7")
  }
}

@Suite struct Pass18ReportTests {
  /// A refused PWD_AUTH's reason quotes the command with its password: the report masks it
  /// there too unless secrets are asked for (README, `report --show-secrets`).
  @Test func refusedPasswordIsMaskedInTheReason() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.reader([0x1B, 0x11, 0x22, 0x33, 0x45])
    b.add4Bit(0x00)
    let s = try #require(try sessions(b).first)
    let report = TagReport(session: s)
    let text = ReportText.render(report)
    #expect(!text.contains("11 22 33 45"))
    #expect(text.contains("on PWD_AUTH password present (masked)"))
    #expect(ReportText.render(report, showSecrets: true).contains("PWD_AUTH password 11 22 33 45"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(!out.text.contains("11 22 33 45"))
    #expect(!out.text.contains("11223345"))
  }
}
