/// NXP Type 2 products told apart by their GET_VERSION answer (nfc-facts §4.6; proxmark3
/// `cmdhfmfu.c` version table; nfcpy `tt2_nxp.py` VERSION_MAP; NXP NTAG213F/216F datasheet
/// Rev 3.1 Table 26).
public enum NTAGProduct: String, Sendable, CaseIterable {
  case ultralightEV1MF0UL11 = "MIFARE Ultralight EV1 MF0UL11"
  case ultralightEV1MF0ULH11 = "MIFARE Ultralight EV1 MF0ULH11"
  case ultralightEV1MF0UL21 = "MIFARE Ultralight EV1 MF0UL21"
  case ultralightEV1MF0ULH21 = "MIFARE Ultralight EV1 MF0ULH21"
  case ultralightNano = "MIFARE Ultralight Nano"
  case ultralightAES = "MIFARE Ultralight AES"
  case ntag210 = "NTAG210"
  case ntag210u = "NTAG210u"
  case ntag212 = "NTAG212"
  case ntag213 = "NTAG213"
  case ntag215 = "NTAG215"
  case ntag216 = "NTAG216"
  case ntag213TT = "NTAG213 TT"
  case ntag213F = "NTAG213F"
  case ntag216F = "NTAG216F"
  case ntag223DNA = "NTAG 223 DNA"
  case ntag224DNA = "NTAG 224 DNA"
  case ntagI2C1K = "NTAG I2C 1K"
  case ntagI2C2K = "NTAG I2C 2K"
  case ntagI2CPlus1K = "NTAG I2C plus 1K"
  case ntagI2CPlus2K = "NTAG I2C plus 2K"

  /// The product's name as NXP writes it.
  public var displayName: String { rawValue }

  /// User memory in bytes (nfc-facts §4.3; NTAG213 TT, NTAG213F and NTAG216F have the memory
  /// map of NTAG213 and NTAG216, NXP NTAG213F/216F datasheet §8.5; NTAG210µ, NTAG 223/224
  /// DNA, Ultralight AES and NTAG I2C plus from their NXP datasheets' general descriptions),
  /// when checked.
  public var userMemoryBytes: Int? {
    switch self {
    case .ultralightEV1MF0UL11, .ultralightEV1MF0ULH11, .ntag210, .ntag210u: return 48
    case .ultralightEV1MF0UL21, .ultralightEV1MF0ULH21, .ntag212: return 128
    case .ntag213, .ntag213TT, .ntag213F, .ntag223DNA, .ultralightAES: return 144
    case .ntag224DNA: return 208
    case .ntag215: return 504
    case .ntag216, .ntag216F, .ntagI2C1K, .ntagI2CPlus1K: return 888
    case .ntagI2C2K: return 1904
    case .ntagI2CPlus2K: return 1912
    case .ultralightNano: return nil
    }
  }

  /// Last page address (nfc-facts §4.3), when checked.
  public var lastPage: Int? {
    switch self {
    case .ultralightEV1MF0UL11, .ultralightEV1MF0ULH11, .ntag210: return 0x13
    case .ultralightEV1MF0UL21, .ultralightEV1MF0ULH21, .ntag212: return 0x28
    case .ntag213, .ntag213TT, .ntag213F: return 0x2C
    case .ntag215: return 0x86
    case .ntag216, .ntag216F: return 0xE6
    default: return nil
    }
  }

  /// The product for the bytes 2…6 of a GET_VERSION answer from vendor `04` (NXP).
  static func identify(type: UInt8, subtype: UInt8, major: UInt8, minor: UInt8, size: UInt8)
    -> NTAGProduct?
  {
    // The minor version is a silicon revision of the same memory map (NTAG213 answers 00 or
    // 01), except for NTAG I2C, where it tells the plus apart.
    switch (type, subtype, major, minor, size) {
    case (0x03, 0x01, 0x01, _, 0x0B): return .ultralightEV1MF0UL11
    case (0x03, 0x02, 0x01, _, 0x0B): return .ultralightEV1MF0ULH11
    case (0x03, 0x01, 0x01, _, 0x0E): return .ultralightEV1MF0UL21
    case (0x03, 0x02, 0x01, _, 0x0E): return .ultralightEV1MF0ULH21
    // MF0UN00 (17 pF, subtype 01) and MF0UNH00 (50 pF, subtype 02).
    case (0x03, 0x01...0x02, 0x02, _, 0x0B): return .ultralightNano
    case (0x03, 0x01...0x03, 0x04, 0x00, 0x0F): return .ultralightAES
    case (0x04, 0x01, 0x01, 0x00, 0x0B): return .ntag210
    case (0x04, 0x01...0x02, 0x02, 0x00, 0x0B): return .ntag210u
    case (0x04, 0x01, 0x01, 0x00, 0x0E): return .ntag212
    case (0x04, 0x02, 0x01, _, 0x0F): return .ntag213
    case (0x04, 0x02, 0x01, _, 0x11): return .ntag215
    case (0x04, 0x02, 0x01, _, 0x13): return .ntag216
    case (0x04, 0x02, 0x03, 0x00, 0x0F): return .ntag213TT
    // NTAG213F/216F: Proxmark3 reports subtype 04, the datasheet subtype 01 (nfc-facts §10).
    case (0x04, 0x04, 0x01, 0x00, 0x0F), (0x04, 0x01, 0x01, 0x00, 0x0F): return .ntag213F
    case (0x04, 0x04, 0x01, 0x00, 0x13), (0x04, 0x01, 0x01, 0x00, 0x12): return .ntag216F
    case (0x04, 0x02, 0x04, 0x00, 0x0F): return .ntag223DNA
    case (0x04, 0x02, 0x05, 0x00, 0x10): return .ntag224DNA
    case (0x04, 0x05, 0x02, 0x01, 0x13): return .ntagI2C1K
    case (0x04, 0x05, 0x02, 0x01, 0x15): return .ntagI2C2K
    case (0x04, 0x05, 0x02, 0x02, 0x13): return .ntagI2CPlus1K
    case (0x04, 0x05, 0x02, 0x02, 0x15): return .ntagI2CPlus2K
    default: return nil
    }
  }
}

/// The 8-byte answer to GET_VERSION (`60`) of MIFARE Ultralight EV1 / NTAG21x / NTAG I2C.
///
/// Bytes: 0 fixed header `00`, 1 vendor (`04` NXP), 2 product type (`03` Ultralight, `04`
/// NTAG), 3 product subtype, 4 major version, 5 minor version, 6 storage size, 7 protocol type
/// (`03` = ISO/IEC 14443-3). NXP NTAG213/215/216 datasheet §10.1; nfc-facts §4.6.
public struct GetVersionInfo: Sendable, Equatable {
  /// The 8 bytes as received (CRC removed).
  public var bytes: [UInt8]
  /// Vendor ID (`04` = NXP).
  public var vendorID: UInt8
  /// Product type (`03` Ultralight, `04` NTAG).
  public var productType: UInt8
  /// Product subtype (`01` 17 pF, `02` 50 pF, `05` NTAG I2C).
  public var productSubtype: UInt8
  /// Major product version.
  public var majorVersion: UInt8
  /// Minor product version.
  public var minorVersion: UInt8
  /// Storage size byte: bits 7–1 = n, bit 0 = 0 → exactly 2ⁿ bytes, 1 → between 2ⁿ and 2ⁿ⁺¹.
  public var storageSize: UInt8
  /// Protocol type (`03` = ISO/IEC 14443-3 compliant).
  public var protocolType: UInt8
  /// The identified NXP product, or nil when the answer is not in the table.
  public var product: NTAGProduct?

  /// Decodes an answer; nil unless exactly 8 bytes.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 8 else { return nil }
    self.bytes = bytes
    vendorID = bytes[1]
    productType = bytes[2]
    productSubtype = bytes[3]
    majorVersion = bytes[4]
    minorVersion = bytes[5]
    storageSize = bytes[6]
    protocolType = bytes[7]
    product =
      vendorID == 0x04
      ? NTAGProduct.identify(
        type: productType, subtype: productSubtype, major: majorVersion, minor: minorVersion,
        size: storageSize) : nil
  }

  /// The user memory range the storage size byte announces, in bytes: `2ⁿ...2ⁿ` when exact,
  /// else `2ⁿ...2ⁿ⁺¹` (nil when n is implausibly large).
  public var storageSizeRange: ClosedRange<Int>? {
    let n = Int(storageSize >> 1)
    guard n < 31 else { return nil }
    return storageSize & 1 == 0 ? (1 << n)...(1 << n) : (1 << n)...(1 << (n + 1))
  }

  /// `NTAG216` or `vendor 04 type 04 subtype 02 version 1.0 size 13`.
  public var productName: String {
    if let product { return product.displayName }
    let parts = [vendorID, productType, productSubtype, majorVersion, minorVersion, storageSize]
      .map { Hex.string([$0]) }
    return
      "vendor \(parts[0]) type \(parts[1]) subtype \(parts[2]) version \(parts[3]).\(parts[4]) "
      + "size \(parts[5])"
  }
}
