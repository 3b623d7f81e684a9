/// The FeliCa product a card's PMm names: its IC code (PMm byte 1; byte 0 is the ROM type),
/// as Sony lists them ("FeliCa IC code list"; nfcpy `tt3_sony` uses the same codes).
enum FeliCaProduct {
  /// The product name for IC code `ic`, nil when not a listed one.
  static func name(icCode ic: UInt8) -> String? {
    switch ic {
    case 0xF0: return "FeliCa Lite (RC-S965)"
    case 0xF1: return "FeliCa Lite-S (RC-S966)"
    case 0xF2: return "FeliCa Link (RC-S730), Lite-S mode"
    case 0xE0: return "FeliCa Plug (RC-S926)"
    case 0xE1: return "FeliCa Link (RC-S730), Plug mode"
    case 0x00: return "FeliCa Standard (RC-S830)"
    case 0x01: return "FeliCa Standard (RC-S915)"
    case 0x02: return "FeliCa Standard (RC-S919)"
    case 0x08: return "FeliCa Standard (RC-S952)"
    case 0x09: return "FeliCa Standard (RC-S953)"
    case 0x0C: return "FeliCa Standard (RC-S954)"
    case 0x0D: return "FeliCa Standard (RC-S960)"
    case 0x20: return "FeliCa Standard (RC-S962)"
    case 0x32: return "FeliCa Standard (RC-SA00/1)"
    case 0x35: return "FeliCa Standard (RC-SA00/2)"
    // After the standard chips: 08h, 09h, 0Ch and 0Dh inside this range are cards.
    case 0x06, 0x07, 0x10...0x1F: return "Mobile FeliCa"
    default: return nil
    }
  }

  /// User memory in bytes: FeliCa Lite and Lite-S (and FeliCa Link in Lite-S mode) have 14
  /// user blocks of 16 bytes, S_PAD0–S_PAD13 (block 0 is the Attribute Information Block
  /// when NDEF is enabled); nil for the others (their file system has no fixed size).
  static func userMemoryBytes(icCode ic: UInt8) -> Int? {
    isLite(icCode: ic) ? 14 * 16 : nil
  }

  /// FeliCa Lite, Lite-S, or FeliCa Link in Lite-S mode (IC codes F0h–F2h): the cards whose
  /// blocks from 80h are system blocks (RC, MAC, ID, D_ID, SER_C, SYS_C, CKV, CK, MC, …,
  /// FeliCa Lite-S user's manual §3), not NDEF data.
  static func isLite(icCode ic: UInt8) -> Bool { (0xF0...0xF2).contains(ic) }
}
