/// The hardware part (first 7 bytes) of the answer to the DESFire GetVersion command, read
/// from its ISO-wrapped form (`90 60 00 00 00` → 7 bytes + `91 AF`; the native `60` in a bare
/// I-block is not decoded), which MIFARE DESFire and the NTAG 4xx DNA tags answer:
/// vendor, type, subtype, major and minor version, storage size, protocol (NXP MIFARE DESFire
/// EV1/EV3 datasheets, GetVersion; NXP NTAG 424 DNA NT4H2421Gx datasheet §10.5.2; the
/// type/major table of proxmark3 `cmdhfmfdes.c` `getCardType`).
public struct DESFireVersion: Sendable, Equatable {
  /// Vendor ID (`04` NXP).
  public var vendorID: UInt8
  /// Hardware type: `01` MIFARE DESFire, `02` MIFARE Plus, `04` NTAG (DNA), `08` MIFARE
  /// DESFire Light.
  public var type: UInt8
  /// Hardware subtype.
  public var subtype: UInt8
  /// Major hardware version (DESFire: `00` EV0, `01` EV1, `12` EV2, `22` EV2 XL, `33` EV3;
  /// MIFARE Plus `11` EV1, `22` EV2; NTAG 424 DNA `30`, NTAG 413 DNA `10`).
  public var major: UInt8
  /// Minor hardware version.
  public var minor: UInt8
  /// Storage size: bits 7–1 n, bit 0 set → between 2ⁿ and 2ⁿ⁺¹ bytes, clear → exactly 2ⁿ.
  public var storageSize: UInt8

  /// Reads the 7 hardware bytes; nil unless exactly 7.
  public init?(hardware b: [UInt8]) {
    guard b.count == 7 else { return nil }
    (vendorID, type, subtype, major, minor, storageSize) = (b[0], b[1], b[2], b[3], b[4], b[5])
  }

  /// The product, as specific as the bytes allow.
  public var productName: String {
    guard vendorID == 0x04 else {
      return "DESFire-compatible tag (vendor \(Hex.string([vendorID])))"
    }
    switch type {
    case 0x01:
      let generation = [0x00: "EV0", 0x01: "EV1", 0x12: "EV2", 0x22: "EV2 XL", 0x33: "EV3"][major]
      let size = exactBytes.map { $0 >= 1024 ? " \($0 / 1024)K" : " \($0)B" } ?? ""
      return "MIFARE DESFire" + (generation.map { " \($0)" } ?? "") + size
    case 0x02 where major == 0x11: return "MIFARE Plus EV1"
    case 0x02 where major == 0x22: return "MIFARE Plus EV2"
    case 0x02: return "MIFARE Plus"
    case 0x04 where major == 0x30: return "NTAG 424 DNA"
    case 0x04 where major == 0x10: return "NTAG 413 DNA"
    case 0x04: return "NTAG DNA (type 04, version \(Hex.string([major])))"
    case 0x08: return "MIFARE DESFire Light"
    default: return "NXP DESFire-family tag (type \(Hex.string([type])))"
    }
  }

  /// Memory in bytes: NTAG 424 DNA's 416 bytes (its three files, 32 + 256 + 128), else the
  /// storage size (the whole EEPROM of a DESFire) when it is exact.
  public var memoryBytes: Int? {
    if vendorID == 0x04, type == 0x04, major == 0x30, storageSize == 0x11 { return 416 }
    return exactBytes
  }

  private var exactBytes: Int? {
    // Below 2⁸ bytes no DESFire-family product exists: such a byte is not a size.
    let n = Int(storageSize >> 1)
    guard storageSize & 1 == 0, (8..<31).contains(n) else { return nil }
    return 1 << n
  }
}
