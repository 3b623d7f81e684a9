import NDEF
import Testing

@Suite("Type 2 TLV area and Type 4 NDEF file")
struct NDEFTagAreaTests {
  @Test("Memory Control area inside the NDEF TLV value is skipped")
  func reservedBytesSkipped() throws {
    // Memory Control 62 02 02: PageAddr 6 × 2^2 + offset 2 = tag byte 26 = input byte 10
    // (input starts at tag byte 16); 2 reserved bytes that sit inside the NDEF value.
    let moved = Type2TLVArea(
      parsing: hx("02 03 62 02 02  03 04 D0 00  00 EE EE 00  FE"), baseAddress: 16)
    #expect(moved.reservedAreas.first?.address == 26)
    #expect(moved.reservedAreas.first?.size == 2)
    #expect(moved.reservedAreas.first?.bytes == 26..<28)
    #expect(
      moved.reservedAreas.first.map { [25, 26, 27, 28].map($0.contains) } == [
        false, true, true, false,
      ])
    let ndef = try #require(moved.ndef)
    #expect(ndef.length == 4)
    #expect(ndef.value == hx("D0 00 00 00"))
    #expect(moved.tlvs.last?.tag == .terminator)
    #expect(moved.tlvs.last?.offset == 13)
    // The same area given as a whole memory dump (base 0): identical positions.
    let dump = Type2TLVArea(
      parsing: Array(repeating: 0, count: 16) + hx("02 03 62 02 02  03 04 D0 00  00 EE EE 00  FE"),
      baseAddress: 0)
    #expect(dump.ndef?.value == hx("D0 00 00 00"))
    #expect(dump.ndef?.offset == 21)
  }

  @Test("3-byte length form, NULL padding, Proprietary TLV, second NDEF TLV noted")
  func lengthForms() {
    let msg = NDEFMessage(records: [.mime("a/b", payload: Array(repeating: 1, count: 300))]).bytes
    let area =
      [0x00, 0xFD, 0x01, 0x99, 0x03, 0xFF, UInt8(msg.count >> 8), UInt8(msg.count & 0xFF)] + msg + [
        0x03, 0x00, 0xFE,
      ]
    let tlv = Type2TLVArea(parsing: area)
    #expect(tlv.tlvs.map(\.tag) == [.null, .proprietary, .ndef, .ndef, .terminator])
    #expect(tlv.tlvs.map(\.offset) == [0, 1, 4, 8 + msg.count, 10 + msg.count])
    #expect(tlv.ndef?.lengthFieldSize == 3)
    #expect(tlv.ndefMessage == msg)
    #expect(tlv.findings.map(\.code) == ["ndef-tlv-multiple"])
    #expect(tlv.findings.first?.severity == .info)
  }

  @Test("NDEF TLV longer than the area is reported with its offset")
  func truncatedTLV() {
    let tlv = Type2TLVArea(parsing: hx("03 10 D1 01"))
    #expect(tlv.findings.first?.code == "tlv-length-past-end")
    #expect(tlv.findings.first?.offset == 0)
    #expect(tlv.ndef?.value == hx("D1 01"))
  }

  @Test("Type 4 NDEF file: NLEN and the 4-byte ENLEN of mapping 3.0")
  func type4() throws {
    let f = try Type4NDEFFile(parsing: hx("00 03 D0 00 00 90"))
    #expect(f.nlen == 3)
    #expect(f.message == hx("D0 00 00"))
    #expect(f.findings == [])
    let e = try Type4NDEFFile(parsing: hx("00 00 00 03 D0 00 00"), extendedLength: true)
    #expect(e.lengthFieldSize == 4)
    #expect(e.message == hx("D0 00 00"))
    let short = try Type4NDEFFile(parsing: hx("00 09 D0"))
    #expect(short.findings.map(\.code) == ["nlen-past-end"])
    #expect(throws: NDEFError.self) { try Type4NDEFFile(parsing: [0x00]) }
  }

  @Test("A Memory Control TLV reserving the bytes it was read from says so, not only 'no NDEF TLV'")
  func controlAreaOverTLVs() {
    // Reserved bytes at tag byte 8, 256 of them (8–263): over the TLV itself (16–20) and the
    // NDEF TLV after it, which the walk then skips.
    let hidden = Type2TLVArea(parsing: hx("02 03 10 00 03 03 D0 00 00 FE"), baseAddress: 16)
    #expect(hidden.findings.map(\.code) == ["tlv-control-overlaps-tlvs", "ndef-tlv-missing"])
    #expect(hidden.findings.first?.offset == 0)
    #expect(
      hidden.findings.first?.message
        == "Memory Control TLV at tag byte 16 declares reserved bytes at tag bytes 8–263, over "
        + "TLV bytes already read (tag bytes 16–20); readers skip the next 5 bytes, where TLVs "
        + "follow (NFC Forum T2T 1.0 §2.3.1/§2.3.2: lock and reserved bytes lie outside the TLVs)")
    // One lock byte at tag byte 16, the Lock Control TLV's own T byte: nothing is skipped.
    let own = Type2TLVArea(parsing: hx("01 03 40 04 02 03 03 D0 00 00 FE"), baseAddress: 16)
    #expect(own.findings.map(\.code) == ["tlv-control-overlaps-tlvs"])
    #expect(own.findings.first?.message.contains("tag bytes 16–16)") == true)
    #expect(own.ndefMessage == hx("D0 00 00"))
    // NTAG213's factory Lock Control (page 0x28 = tag byte 160): no finding.
    let ntag = Type2TLVArea(parsing: hx("01 03 A0 0C 34 03 00 FE"), baseAddress: 16)
    #expect(ntag.findings.isEmpty)
  }
}

/// A data area of NULL TLVs is one TLV per byte: the walk stays linear (it looked the NDEF TLV
/// up among the TLVs so far at every one: 128 KiB of zeros took 10 s, 256 KiB over 20 s in a
/// release build).
@Test func nullRunIsWalkedInLinearTime() {
  let area = Type2TLVArea(parsing: [UInt8](repeating: 0, count: 1 << 16), baseAddress: 16)
  #expect(area.tlvs.count == 1 << 16)
  #expect(area.ndef == nil)
  #expect(area.findings.map(\.code) == ["ndef-tlv-missing"])
}

/// The layout-only parse walks as the full one does: same TLVs and reserved areas (a Memory
/// Control area inside the NDEF value, a TLV cut by the end), and no findings.
@Test func layoutParseMatchesTheFullParse() {
  let bytes = hx("02 03 62 02 02  03 04 D0 00  00 EE EE 00  FD 09 01 02")
  let full = Type2TLVArea(parsing: bytes, baseAddress: 16)
  let layout = Type2TLVArea(layoutOf: bytes, baseAddress: 16)
  #expect(layout.tlvs == full.tlvs)
  #expect(layout.reservedAreas == full.reservedAreas)
  #expect(layout.ndefLengthAddress == 22)
  #expect(full.findings.map(\.code) == ["tlv-length-past-end"])
  #expect(layout.findings.isEmpty)
}
