/// The command codes of ISO/IEC 15693-3 (§10, Table 10) and the NXP custom commands of ICODE
/// SLIX / SLIX2 and NTAG 5 (IC manufacturer code 04h; NXP ICODE SLIX2 datasheet SL2S2602 §9.3),
/// with what their parameters are.
enum ISO15693Command {
  /// ISO/IEC 15693-3 commands by code. 30h–34h, 3Bh, 3Ch, 3Dh are the extended forms (2-byte
  /// block numbers) of ISO/IEC 15693-3:2019.
  static let names: [UInt8: String] = [
    0x01: "INVENTORY", 0x02: "STAY QUIET",
    0x20: "READ SINGLE BLOCK", 0x21: "WRITE SINGLE BLOCK", 0x22: "LOCK BLOCK",
    0x23: "READ MULTIPLE BLOCKS", 0x24: "WRITE MULTIPLE BLOCKS",
    0x25: "SELECT", 0x26: "RESET TO READY",
    0x27: "WRITE AFI", 0x28: "LOCK AFI", 0x29: "WRITE DSFID", 0x2A: "LOCK DSFID",
    0x2B: "GET SYSTEM INFORMATION", 0x2C: "GET MULTIPLE BLOCK SECURITY STATUS",
    0x2D: "FAST READ MULTIPLE BLOCKS",
    0x30: "EXTENDED READ SINGLE BLOCK", 0x31: "EXTENDED WRITE SINGLE BLOCK",
    0x32: "EXTENDED LOCK BLOCK", 0x33: "EXTENDED READ MULTIPLE BLOCKS",
    0x34: "EXTENDED WRITE MULTIPLE BLOCKS", 0x35: "AUTHENTICATE", 0x39: "CHALLENGE",
    0x3A: "READBUFFER", 0x3B: "EXTENDED GET SYSTEM INFORMATION",
    0x3C: "EXTENDED GET MULTIPLE BLOCK SECURITY STATUS",
    0x3D: "FAST EXTENDED READ MULTIPLE BLOCKS",
  ]

  /// NXP's custom commands (IC manufacturer code 04h: ICODE SLIX / SLIX2 / DNA, NTAG 5).
  static let nxpNames: [UInt8: String] = [
    0xA0: "INVENTORY READ", 0xA1: "FAST INVENTORY READ",
    0xA2: "SET EAS", 0xA3: "RESET EAS", 0xA4: "LOCK EAS", 0xA5: "EAS ALARM",
    0xA6: "PASSWORD PROTECT EAS/AFI", 0xA7: "WRITE EAS ID",
    0xAB: "GET NXP SYSTEM INFORMATION", 0xB2: "GET RANDOM NUMBER", 0xB3: "SET PASSWORD",
    0xB4: "WRITE PASSWORD", 0xB5: "LOCK PASSWORD", 0xBD: "READ SIGNATURE",
  ]

  /// The name of `command` (of IC manufacturer `manufacturer` for a custom one), or a
  /// description of a code the tables do not hold.
  static func name(_ command: UInt8, manufacturer: UInt8?) -> String {
    if let n = names[command] { return n }
    if command >= 0xA0, manufacturer == 0x04, let n = nxpNames[command] { return n }
    switch command {
    case 0xA0...0xDF:
      return "custom command \(ISO15693Command.byteText(command))h"
        + (manufacturer.map { " (IC manufacturer \(ISO15693Command.byteText($0))h)" } ?? "")
    case 0xE0...0xFF: return "proprietary command \(ISO15693Command.byteText(command))h"
    default: return "command \(ISO15693Command.byteText(command))h"
    }
  }

  /// A byte as two upper-case hex digits, as the standard writes codes (`A5`).
  static func byteText(_ b: UInt8) -> String { Hex.string([b]).uppercased() }

  /// The parameters of a block command after its flags, command code and UID (ISO/IEC
  /// 15693-3 §10.3; the extended forms of ISO/IEC 15693-3:2019): the first block number, then
  /// a block count (n − 1) when `counted`, then block data when `data`; numbers take
  /// `numberSize` bytes (2, LSB first, for the extended commands). Nil for a command that
  /// names no block.
  struct BlockLayout: Equatable {
    var counted: Bool
    var data: Bool
    var numberSize: Int
    /// Bytes of the block number(s), before any data.
    var numbersSize: Int { counted ? 2 * numberSize : numberSize }
  }

  /// The block parameters `command` carries, nil when it names no block.
  static func blockLayout(_ command: UInt8) -> BlockLayout? {
    let size = isExtended(command) ? 2 : 1
    switch command {
    case 0x20, 0x22, 0x30, 0x32: return BlockLayout(counted: false, data: false, numberSize: size)
    case 0x21, 0x31: return BlockLayout(counted: false, data: true, numberSize: size)
    case 0x23, 0x2C, 0x2D, 0x33, 0x3C, 0x3D:
      return BlockLayout(counted: true, data: false, numberSize: size)
    case 0x24, 0x34: return BlockLayout(counted: true, data: true, numberSize: size)
    default: return nil
    }
  }

  /// Whether a command reads blocks (its answer carries block data).
  static func readsBlocks(_ command: UInt8) -> Bool {
    switch command {
    case 0x20, 0x23, 0x2D, 0x30, 0x33, 0x3D: return true
    default: return false
    }
  }

  /// Whether a command uses 2-byte block numbers and counts (the extended commands).
  static func isExtended(_ command: UInt8) -> Bool { (0x30...0x3D).contains(command) }

  /// The meaning of a response error code (ISO/IEC 15693-3 §9.3, Table 7); A0h–DFh are
  /// custom (the IC's datasheet).
  static func errorMeaning(_ code: UInt8) -> String {
    switch code {
    case 0x01: return "command not supported"
    case 0x02: return "command not recognized (format error)"
    case 0x03: return "option not supported"
    case 0x0F: return "unknown error"
    case 0x10: return "block not available (does not exist)"
    case 0x11: return "block already locked"
    case 0x12: return "block locked: its content cannot be changed"
    case 0x13: return "block not successfully programmed"
    case 0x14: return "block not successfully locked"
    case 0xA0...0xDF: return "custom error code of the IC"
    default: return "RFU error code"
    }
  }
}
