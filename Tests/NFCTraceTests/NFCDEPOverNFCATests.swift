import Testing

@testable import NFCTrace

/// NFC-DEP (ISO/IEC 18092 §12) over NFC-A after SAK 40h: `F0` LEN `D4`/`D5` frames are NFC-DEP
/// PDUs, not Type 2 commands.
@Suite struct NFCDEPOverNFCATests {
  private static func frames(sak: String) -> [Frame] {
    TestFrame.script(
      [
        (.reader, "26"), (.tag, "0400"), (.reader, "9320"), (.tag, "0812345678"),
        (.reader, "93700812345678+crc"), (.tag, "\(sak)+crc"),
        (.reader, "f017d40001fe01020304050607080000003246666d010111+crc"),
        (.tag, "f018d50101fe11121314151617180000000e3246666d010111+crc"),
        (.reader, "f006d406000000+crc"), (.tag, "f006d507000000+crc"),
        (.reader, "f004d40a00+crc"), (.tag, "f004d50b00+crc"),
      ], bits: [0: 7])
  }

  @Test func pdusAfterAnISO18092SAKAreNFCDEP() {
    let (out, _) = decodeAll(Self.frames(sak: "40"))
    let names = out[6...].map { $0.innermost?.name }
    #expect(names == ["ATR_REQ", "ATR_RES", "DEP_REQ", "DEP_RES", "RLS_REQ", "RLS_RES"])
    #expect(out[6...].allSatisfy { $0.innermost?.protocolID == .nfcDEP })
    #expect(out[6].innermost?.summary == "NFC-DEP ATR_REQ (ISO/IEC 18092 over NFC-A), 20 byte(s)")
    #expect(out[10].innermost?.summary == "NFC-DEP RLS_REQ (ISO/IEC 18092 over NFC-A), 1 byte(s)")
    #expect(out[8].innermost?.field("data") == .hex([0x00, 0x00, 0x00]))
    #expect(out[6...].allSatisfy { $0.frame.crc == .ok && $0.undecodedReason == nil })
  }

  /// SAK 00 (a Type 2 tag): the same bytes stay a Type 2 frame.
  @Test func withoutSAKBit7TheyStayType2() {
    let (out, _) = decodeAll(Self.frames(sak: "00"))
    #expect(out[6].innermost?.protocolID != .nfcDEP)
    #expect(out[6].undecodedReason == "unknown Type 2 command 0xf0")
  }
}
