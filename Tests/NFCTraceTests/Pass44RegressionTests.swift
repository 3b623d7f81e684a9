import Testing

@testable import NFCTrace

/// Pass 44: Type 2 tags whose data area is read-protected (AUTH0 = 4, PROT set).
@Suite struct Pass44ReadProtectionTests {
  /// READ page 3 rolls over to the UID pages after page 3: queryNDEFStatus finds no NDEF TLV
  /// and says .notSupported. The tag is read-protected, not unformatted (NXP NTAG213/215/216
  /// datasheet §8.8): the note says so and the fix is PWD_AUTH; the report keeps the query's
  /// status (the session changed nothing) instead of the readWrite the CC alone gives.
  @Test func queryOnReadProtectedTagIsNotUnformatted() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let page0 = Array(uid[0..<3]) + [0x88 ^ 0x04 ^ 0x11 ^ 0x22]
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + page0 + Array(uid[3..<7]) + [0x00, 0x48, 0x00, 0x00])
    let report = try b.diagnose()
    #expect(!report.codes.contains("not-ndef-formatted"))
    let f = try #require(report.finding("t2t-read-protected"))
    #expect(f.severity == .info)
    #expect(f.cause == "the data area is read-protected (password), not unformatted")
    #expect(
      f.message.hasPrefix(
        "queryNDEFStatus reports .notSupported: the READ rolled over to page 0 after page 3 "
          + "(0x3), so the tag is read-protected from page 4 (0x4) (AUTH0 = 4, PROT set"))
    #expect(f.fix.hasPrefix("Send PWD_AUTH with the tag's password"))
    let s = try #require(try sessions(b).first)
    let r = TagReport(session: s)
    #expect(r.ndefStatus?.status == .notSupported)
    #expect(r.ndefStatus?.reason?.contains("before the session changed the CC") == false)
  }

  /// An Android format (libnfc-nci `rw_t2t_set_cc`): READ page 0 finds CC0 00h, then WRITE of
  /// the CC and of an empty NDEF TLV. The not-formatted note's evidence is the READ that found
  /// CC0 00h, not the ACK of the later CC write.
  @Test func notFormattedEvidenceIsTheCCTheQueryRead() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00])
    b.write(3, [0xE1, 0x10, 0x06, 0x00])
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    let report = try b.diagnose()
    let f = try #require(report.finding("not-ndef-formatted"))
    #expect(f.frames == [10, 11])
  }
}
