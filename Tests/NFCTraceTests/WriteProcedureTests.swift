import NDEF
import Testing

@testable import NFCTrace

/// Diagnosis of the length-last Type 2 write procedure (length 0 first, the data, the real
/// length last; nfc-facts §5.5) in the forms field captures showed misread.
@Suite struct WriteProcedureTests {
  /// NTAG213, CC and an old 16-byte message read, then a length-last write of a 22-byte
  /// message to pages 4–10 with `first` as page 4; `last` answers the final length write.
  private func lengthLastWrite(first: [UInt8], final: [UInt8], last: TraceBuilder.T2Answer)
    -> TraceBuilder
  {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x10, 0xD1, 0x01]))
    b.write(4, first)
    for page in 5...10 { b.write(page, [0x61, 0x62, 0x63, UInt8(page)]) }
    b.write(4, final, last)
    return b
  }

  /// The final length WRITE unanswered: every message byte is acknowledged (bytes 18–19 of
  /// page 4 were acknowledged with the same values by the first WRITE), so the tag holds the
  /// new message or the empty one — never a torn message written length-first.
  @Test func unansweredFinalLengthWriteIsNotATornMessage() throws {
    let b = lengthLastWrite(
      first: [0x03, 0x00, 0xD1, 0x01], final: [0x03, 0x16, 0xD1, 0x01], last: .none)
    let report = try b.diagnose()
    #expect(!report.codes.contains("ndef-torn"))
    #expect(!report.codes.contains("unsafe-write-order"))
    let f = try #require(report.finding("ndef-length-uncertain"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.message.contains("the tag holds the complete new message or an empty message"))
    #expect(report.codes.contains("write-interrupted"))
  }

  /// Android writes the cleared length in the 3-byte form `03 FF 00 00`: that is length 0,
  /// not an early final length, and the final `03 16` WRITE is part of the same writeNDEF.
  @Test func threeByteZeroLengthIsTheSafeFirstStep() throws {
    let b = lengthLastWrite(
      first: [0x03, 0xFF, 0x00, 0x00], final: [0x03, 0x16, 0xD1, 0x01], last: .ack)
    let report = try b.diagnose()
    #expect(!report.codes.contains("unsafe-write-order"))
    let ops = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
      .flatMap(\.operations).map(\.kind)
    #expect(ops.filter { $0 == .writeNDEF }.count == 1)
  }

  /// A first WRITE that does set a final length still warns.
  @Test func lengthFirstStillWarns() throws {
    let b = lengthLastWrite(
      first: [0x03, 0x16, 0xD1, 0x01], final: [0x03, 0x16, 0xD1, 0x01], last: .ack)
    #expect(try b.diagnose().codes.contains("unsafe-write-order"))
  }

  @Test func tlvLengthField() {
    #expect(Type2TLV.length(in: [0x03, 0xFF, 0x01, 0x2C], at: 1) == 300)
    #expect(Type2TLV.length(in: [0x03, 0xFF, 0x00, 0x00], at: 1) == 0)
    #expect(Type2TLV.length(in: [0x03, 0x16], at: 1) == 22)
    #expect(Type2TLV.length(in: [0x00, 0x03, 0xFF, 0x01], at: 2) == nil)
    #expect(Type2TLV.length(in: [0x03], at: 1) == nil)
  }

  /// 6982 from a tag whose CC grants write access (00): Core NFC saw .readWrite and sent the
  /// UPDATE, so the message must not blame the app for ignoring .readOnly.
  @Test func securityStatusWithWritableCCBlamesTheTagNotTheApp() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: 0x00)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(f.message.contains("grants write access to the NDEF file (00)"))
    #expect(!f.message.contains("sent the UPDATE anyway"))
    #expect(f.coreNFCError == .tagUpdateFailure)
  }

  /// NAK 4 is "not allowed / counter overflow" (nfc-facts §10), not NAK 0's "invalid argument".
  @Test func nak4IsNotInvalidArgument() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(4))
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(
      f.message.hasPrefix(
        "The tag answered NAK 4 (not allowed, or authentication counter overflow)"))
  }
}

/// `--expect` on a writable tag and no writeNDEF in the session: said, not "no writes,
/// nothing failed" (field engineer pass).
@Suite struct NoWriteSentTests {
  @Test func expectWithoutAWriteIsNoted() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x00, 0x90, 0x00])
    let r = try b.diagnose(expect: [0xD1, 0x01, 0x01, 0x54, 0x01])
    let f = try #require(r.finding("no-write-sent"))
    #expect(f.severity == .info)
    #expect(f.message.hasSuffix("The tag holds another message (5 bytes)."))
    // The tag already holds the message: nothing to say.
    #expect(try b.diagnose(expect: [0xD1, 0x01, 0x01, 0x54, 0x00]).finding("no-write-sent") == nil)
  }

  /// A T4T 3.0 tag (Extended NDEF File Control TLV): the message length is the 4-byte ENLEN,
  /// and the message it holds is the one expected. Reading 2 bytes of it as NLEN gave 0.
  @Test func enlenTagHoldingTheMessageIsNotNoted() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x11], TraceBuilder.enlenCC + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x05] + ok)
    b.apdu([0x00, 0xB0, 0x00, 0x04, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x00] + ok)
    let r = try b.diagnose(expect: [0xD1, 0x01, 0x01, 0x54, 0x00])
    #expect(r.finding("no-write-sent") == nil)
    let other = try b.diagnose(expect: [0xD1, 0x01, 0x01, 0x54, 0x01])
    #expect(
      try #require(other.finding("no-write-sent")).message.hasSuffix(
        "The tag holds another message (5 bytes)."))
  }
}

/// Type 4 answers a field engineer found misread (t4-03, t4-04).
@Suite struct Type4FileBoundsTests {
  /// A whole-file READ BINARY (Le 00) answered with the data and 6282 (the file ended before
  /// Le bytes, ISO/IEC 7816-4 warning) is a successful read, not a refusal.
  @Test func shortReadWith6282IsNoRefusal() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu(
      [0x00, 0xB0, 0x00, 0x02, 0x00],
      [0xD1, 0x01, 0x01, 0x54, 0x00] + Array(repeating: 0, count: 20) + [0x62, 0x82])
    let r = try b.diagnose()
    #expect(r.sessions[0].findings.isEmpty)
  }

  /// CC read access 80 (proprietary): flagged; a READ refused with 6982 then says the file
  /// needs authentication to be read, with a read fix, not a write fix (t4-05/t4-05b).
  @Test func proprietaryReadAccessAndReadRefused() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(read: 0x80)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x69, 0x82])
    let r = try b.diagnose()
    #expect(r.finding("t4t-read-access-restricted")?.severity == .warning)
    let refused = try #require(r.finding("t4t-security-not-satisfied"))
    #expect(refused.cause.hasPrefix("the tag refused to be read (protected)"))
    #expect(refused.fix.hasPrefix("The message can only be read after the vendor's"))
  }

  /// NLEN 0x0300 in a 256-byte NDEF file (CC max size 0x0100): the file is corrupt.
  @Test func nlenLargerThanTheFileIsAnError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    let ok: [UInt8] = [0x90, 0x00]
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x03, 0x00] + ok)
    let f = try #require(try b.diagnose().finding("t4t-nlen-exceeds-file"))
    #expect(f.severity == .error)
    #expect(f.message.hasPrefix("The NDEF file's length field says 768 bytes, but the CC gives"))
    #expect(f.frames == [b.frames.count - 1])
  }
}
