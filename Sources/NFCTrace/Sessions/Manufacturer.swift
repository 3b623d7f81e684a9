/// IC manufacturers by the first UID byte of 7- and 10-byte UIDs (ISO/IEC 7816-6 register as
/// listed in nfc-facts §9; proxmark3 `cmdhf14a.c` `manufactureMapping`).
public enum Manufacturer {
  private static let names: [UInt8: String] = [
    0x01: "Motorola", 0x02: "STMicroelectronics", 0x03: "Hitachi", 0x04: "NXP Semiconductors",
    0x05: "Infineon Technologies", 0x07: "Texas Instruments", 0x08: "Fujitsu", 0x0A: "NEC",
    0x0C: "Toshiba", 0x0E: "Samsung", 0x11: "Emosyn-EM", 0x12: "Wisekey (INSIDE Secure)",
    0x15: "Atmel", 0x16: "EM Microelectronic-Marin", 0x17: "Smartrac", 0x1A: "Sony",
    0x1D: "Shanghai Fudan Microelectronics", 0x1F: "Melexis", 0x27: "Yubico", 0x28: "Ricoh",
    0x2B: "Maxim Integrated", 0x2C: "Impinj", 0x39: "Silicon Craft", 0x40: "Thales DIS (Gemalto)",
    0x44: "Gentag", 0x4E: "Oberthur", 0x51: "Giesecke & Devrient", 0x53: "Shanghai Feiju",
    0x7A: "Abbott Diabetes Care",
  ]

  /// The manufacturer of a tag with `uid`: from UID0 for 7/10-byte UIDs, from the byte after
  /// E0h for an 8-byte ISO/IEC 15693 UID (most significant byte first, ISO/IEC 15693-3 §4.1);
  /// a 4-byte UID starting `08` is a random ID, other 4-byte UIDs do not name their maker
  /// (ISO/IEC 14443-3 §6.4.4).
  public static func name(uid: [UInt8]) -> String? {
    guard let first = uid.first else { return nil }
    if uid.count == 8, first == 0xE0 {
      return name(code: uid[1]) ?? "unknown manufacturer 0x\(Hex.string([uid[1]]))"
    }
    if uid.count == 4 {
      if first == 0x08 { return "random ID (4-byte UID 08…)" }
      if first & 0x0F == 0x0F { return "fixed non-unique ID" }
      return nil
    }
    return names[first] ?? "unknown manufacturer 0x\(Hex.string([first]))"
  }

  /// The name the ISO/IEC 7816-6 register gives IC manufacturer `code`, nil when not listed.
  static func name(code: UInt8) -> String? { names[code] }
}
