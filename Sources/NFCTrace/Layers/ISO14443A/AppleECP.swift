/// Apple frames seen before type A polling: Enhanced Contactless Polling (ECP, reader frames
/// starting `6A`, with CRC_A) and the MagSafe wake-up short frames `7A`–`7D` (7 bits).
///
/// ECP byte 1 is the format version: version 1 frames are 7 bytes with CRC; version 2 frames are
/// (byte 2 & 0x0F) + 7 bytes, byte 3 naming the terminal type (01 transit, 02 access,
/// 03 identity, 05 AirDrop). Sources: proxmark3 `include/protocols.h` (ECP_HEADER,
/// MAGSAFE_CMD_WUPA_1…4) and `client/src/cmdhflist.c` (ECP annotation); nfc-facts §1.1.
enum AppleECP {
  /// True for a reader frame that looks like ECP: header `6A` and at least a version byte.
  static func isECP(_ data: [UInt8]) -> Bool { data.count >= 2 && data.first == 0x6A }

  /// The MagSafe wake-up number 1…4 for a `7A`–`7D` byte.
  static func magSafeNumber(_ byte: UInt8) -> Int? {
    (0x7A...0x7D).contains(byte) ? Int(byte - 0x79) : nil
  }

  /// Decodes an ECP frame (`payload` = frame without CRC).
  static func decode(_ payload: [UInt8]) -> LayerDecode {
    let version = payload.count > 1 ? Int(payload[1]) : 0
    var fields: [LayerField] = [LayerField("version", .int(version))]
    var summary = "ECP\(version)"
    if version == 2, payload.count > 3 {
      let type = payload[3]
      fields.append(LayerField("terminal_type", .hex([type])))
      if let name = terminalName(type) {
        fields.append(LayerField("terminal", .string(name)))
        summary += " (\(name))"
      }
    }
    fields.append(LayerField("payload", .hex(Array(payload.dropFirst(2)))))
    return LayerDecode(.appleECP, "ECP", summary, fields)
  }

  private static func terminalName(_ type: UInt8) -> String? {
    switch type {
    case 0x01: return "Transit"
    case 0x02: return "Access"
    case 0x03: return "Identity"
    case 0x05: return "AirDrop"
    default: return nil
    }
  }

  /// `MagSafe WUPA 1`.
  static func magSafeDecode(_ number: Int, byte: UInt8) -> LayerDecode {
    LayerDecode(
      .appleECP, "MagSafe WUPA", "MagSafe WUPA \(number)",
      [LayerField("command", .hex([byte])), LayerField("number", .int(number))])
  }
}
