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
    b.readCCRolledOver()
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

/// Pass 44: a writeLock whose lock-bit WRITE the tag refused after the same writeLock set the
/// CC's write access to Fh.
@Suite struct Pass44WriteLockRefusalTests {
  /// The CC is read-only only because this writeLock wrote it: the NAK is not explained by a
  /// tag found read-only, and the fix does not say queryNDEFStatus reported .readOnly (it said
  /// .readWrite).
  @Test func ccLockedByTheSameWriteLockIsNoCause() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    b.write(2, [0x00, 0x00, 0xFF, 0xFF], .nak(0x0))
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(!f.message.contains("The CC marks the tag read-only"))
    #expect(f.message.contains("the trace does not show the static lock bytes (page 2)"))
    #expect(f.fix.hasPrefix("queryNDEFStatus reads only the CC, so lock bits and a password"))
  }
}

/// Pass 44: the NDEF section of `diff` for messages that differ in encoding or TNF.
@Suite struct Pass44NDEFDiffTests {
  /// A side whose Type 2 tag holds `03 10` + the 16-byte message `header` + `01 0C 55 04
  /// example.com` read in two READs.
  private func side(_ header: UInt8) throws -> DiffSide {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    let message = [header, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    let area = [0x03, 0x10] + message + [0xFE]
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + Array(area.prefix(12)))
    b.read(7, Array(area.dropFirst(12)))
    return try diffSide(b)
  }

  /// Only the TNF differs (Well-known `D1` against Media `D2`): the records pair and the TNF
  /// is among their differences, and the first differing message byte is shown.
  @Test func changedTNFPairsTheRecords() throws {
    let lines = DiffText.lines(TraceDiff(a: try side(0xD1), b: try side(0xD2)))
    let ndef = Array(lines.drop { $0 != "NDEF (final message)" }.prefix(5))
    #expect(ndef.count == 5)
    #expect(ndef[2].hasPrefix("      first difference at message byte 0: d1 01 0c 55 "))
    #expect(ndef[2].hasSuffix("│ d2 01 0c 55"))
    #expect(ndef[3].hasPrefix("≠ record 0 URI https://example.com "))
    #expect(ndef[3].hasSuffix("│ record 0 MIME U"))
    #expect(ndef[4].hasPrefix("      tnf: Well-known "))
    #expect(ndef[4].hasSuffix("│ Media"))
    #expect(
      !lines.contains { $0.hasPrefix("− record") || $0.hasPrefix("+ ") && $0.contains("record 0") })
  }
}
