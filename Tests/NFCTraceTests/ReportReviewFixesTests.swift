import Testing

@testable import NFCTrace

/// NTAG 213 TT (NT2H1311TT, GET_VERSION 00 04 04 02 03 00 0F 03): NTAG213's configuration
/// pages at 29h–2Ch, with the TT's own MIRROR bits (proxmark3 `cmdhfmfu.c`).
@Suite struct NTAG213TTConfigurationTests {
  @Test func reportShowsTheConfiguration() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x03, 0x00, 0x0F, 0x03])
    b.read(0x29, [0x04, 0x00, 0x00, 0x04, 0x00])
    let s = try #require(try sessions(b).first)
    let r = TagReport(session: s)
    let c = try #require(r.end.config)
    #expect(c.family == .ntagTT)
    #expect(c.cfg0Page == 0x29)
    #expect(c.auth0 == 4)
    #expect(c.authLimit == 0)
    let text = ReportText.render(r)
    #expect(text.contains("Configuration (CFG0 page 41)\n"))
    #expect(text.contains("  AUTH0           04: password needed to write pages 4–44\n"))
  }

  /// MIRROR_CONF is 3 bits (7–5) and MIRROR_BYTE bits 4–3 on the TT; 2 bits each on NTAG21x.
  @Test func mirrorBitsFollowTheFamily() {
    let tt = Type2Configuration(
      family: .ntagTT, cfg0Page: 0x29, cfg0: [0xA8, 0x00, 0x10, 0xFF], cfg1: nil)
    #expect(tt.mirrorConf == 5)
    #expect(tt.mirrorByte == 1)
    #expect(Type2Configuration.mirrorNames[5] == "UID and tag tamper")
    #expect(tt.strongModulation == nil)
    let ntag = Type2Configuration(
      family: .ntag21x, cfg0Page: 0x29, cfg0: [0xA8, 0x00, 0x10, 0xFF], cfg1: nil)
    #expect(ntag.mirrorConf == 2)
    #expect(ntag.mirrorByte == 2)
  }
}

/// A data area of 48 bytes (CC2 06h) has no dynamic lock bits (T2T; nfc-facts §5.2): an
/// unidentified tag with one does not leave them "not known".
@Suite struct SmallDataAreaLockTests {
  @Test func locksOfA48ByteDataAreaAreAllKnown() {
    #expect(Type2Locks(lock0: 0, lock1: 0, ccDataAreaSize: 48).dynamicUnknown == false)
    #expect(Type2Locks(lock0: 0, lock1: 0, ccDataAreaSize: 144).dynamicUnknown == true)
    #expect(Type2Locks(lock0: 0, lock1: 0).dynamicUnknown == true)
  }

  @Test func ultralightReportClaimsNoUnknownDynamicLocks() throws {
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    var b = TraceBuilder()
    b.activateType2(uid: uid)
    let page0 = Array(uid[0..<3]) + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]]
    let page1 = Array(uid[3..<7])
    let page2: [UInt8] = [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0x00, 0x00]
    b.read(0, page0 + page1 + page2 + [0xE1, 0x10, 0x06, 0x00])
    let s = try #require(try sessions(b).first)
    let r = TagReport(session: s)
    #expect(r.end.locks?.dynamicUnknown == false)
    #expect(
      r.end.unknowns.contains(
        "product not identified (no GET_VERSION); its 48-byte data area has no dynamic lock bits"))
    #expect(ReportText.render(r).contains("  read-only pages none\n"))
  }
}
