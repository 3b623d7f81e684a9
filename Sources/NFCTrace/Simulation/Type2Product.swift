/// The memory map and command set of one NFC Forum Type 2 product (reference/nfc-facts.md
/// §4.3 memory maps, §4.4 lock bytes, §4.5 configuration pages, §4.6 GET_VERSION, §4.7 factory
/// NDEF area; NXP NTAG213/215/216 and MF0UL11 datasheets).
struct Type2Product {
  /// Number of pages (the last page is `pageCount − 1`).
  let pageCount: Int
  /// Last user page.
  let userEnd: Int
  /// Dynamic lock page (LOCK2 LOCK3 LOCK4 RFUI), nil when the product has none.
  let dynamicLockPage: Int?
  /// Pages locked by one dynamic lock bit (2 for NTAG213, 16 for NTAG215/216).
  let pagesPerDynamicLockBit: Int
  /// CFG0 page (CFG1, PWD, PACK follow), nil without configuration pages.
  let cfg0Page: Int?
  /// GET_VERSION answer, nil when the IC has no GET_VERSION (original Ultralight: silent).
  let version: [UInt8]?
  /// CC of page 3 at delivery (all zeros = unformatted).
  let factoryCC: [UInt8]
  /// Bytes from page 4 at delivery (the rest of the user area is zero).
  let factoryData: [UInt8]
  /// Byte offset of the NDEF TLV in the data area (after a Lock Control TLV on NTAG213).
  let ndefTLVOffset: Int
  /// Byte 1 of CFG0 (MIRROR/RFU) and byte 0 of CFG0 at delivery.
  let cfg0Byte0: UInt8
  /// RFUI byte of the dynamic lock page at delivery (`BD` on a real NTAG216).
  let dynamicLockRFUI: UInt8

  /// The product for a scenario tag kind; nil for Type 4.
  static func forKind(_ kind: TagKind) -> Type2Product? {
    switch kind {
    case .ntag213:
      return ntag(
        pages: 45, userEnd: 0x27, ppb: 2, version: 0x0F, cc: 0x12,
        data: [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE], offset: 5)
    case .ntag215:
      return ntag(
        pages: 135, userEnd: 0x81, ppb: 16, version: 0x11, cc: 0x3E, data: [0x03, 0x00, 0xFE],
        offset: 0)
    case .ntag216:
      return ntag(
        pages: 231, userEnd: 0xE1, ppb: 16, version: 0x13, cc: 0x6D, data: [0x03, 0x00, 0xFE],
        offset: 0)
    case .ultralightEV1:
      // MF0UL11: CC at delivery unverified (facts §4.3); E1 10 06 00 = 48 bytes, as NTAG210.
      return Type2Product(
        pageCount: 20, userEnd: 0x0F, dynamicLockPage: nil, pagesPerDynamicLockBit: 0,
        cfg0Page: 0x10, version: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03],
        factoryCC: [0xE1, 0x10, 0x06, 0x00], factoryData: [0x03, 0x00, 0xFE], ndefTLVOffset: 0,
        cfg0Byte0: 0x00, dynamicLockRFUI: 0)
    case .type2Blank:
      return Type2Product(
        pageCount: 16, userEnd: 0x0F, dynamicLockPage: nil, pagesPerDynamicLockBit: 0,
        cfg0Page: nil, version: nil, factoryCC: [0, 0, 0, 0], factoryData: [], ndefTLVOffset: 0,
        cfg0Byte0: 0, dynamicLockRFUI: 0)
    case .type4:
      return nil
    }
  }

  private static func ntag(
    pages: Int, userEnd: Int, ppb: Int, version: UInt8, cc: UInt8, data: [UInt8], offset: Int
  ) -> Type2Product {
    Type2Product(
      pageCount: pages, userEnd: userEnd, dynamicLockPage: userEnd + 1,
      pagesPerDynamicLockBit: ppb, cfg0Page: userEnd + 2,
      version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, version, 0x03],
      factoryCC: [0xE1, 0x10, cc, 0x00], factoryData: data, ndefTLVOffset: offset,
      cfg0Byte0: 0x04, dynamicLockRFUI: 0xBD)
  }

  var lastPage: Int { pageCount - 1 }
  var cfg1Page: Int? { cfg0Page.map { $0 + 1 } }
  var pwdPage: Int? { cfg0Page.map { $0 + 2 } }
  var packPage: Int? { cfg0Page.map { $0 + 3 } }
  /// True for the NTAG21x / UL EV1 commands (GET_VERSION, READ_SIG, FAST_READ, PWD_AUTH, READ_CNT).
  var isEV1Family: Bool { version != nil }
}
