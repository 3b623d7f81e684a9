/// ATQA (SENS_RES), the 2-byte answer of a type A tag to REQA/WUPA.
///
/// On air the least significant byte goes first: NTAG sends `44 00` = value 0x0044.
/// Bits of the value: b8–b7 UID size, b5–b1 bit-frame anticollision (exactly one set =
/// supported), b12–b9 proprietary coding, b16–b13 and b6 RFU.
/// Sources: ISO/IEC 14443-3 §6.5.2; nfc-facts §1.3 (libnfc `target-subr.c`, tshark 4.0.17).
public struct ATQA: Sendable, Equatable {
  /// UID size announced in b8–b7.
  public enum UIDSize: String, Sendable {
    /// 4 bytes (`00`).
    case single
    /// 7 bytes (`01`).
    case double
    /// 10 bytes (`10`).
    case triple
    /// `11`, reserved.
    case rfu

    /// The UID length in bytes, nil for RFU.
    public var length: Int? {
      switch self {
      case .single: return 4
      case .double: return 7
      case .triple: return 10
      case .rfu: return nil
      }
    }
  }

  /// The 16-bit value (air bytes `44 00` → 0x0044).
  public var value: UInt16

  /// Creates an ATQA from its 16-bit value.
  public init(value: UInt16) { self.value = value }

  /// Reads the two air bytes (LSB first); nil unless exactly 2 bytes.
  public init?<C: Collection>(airBytes: C) where C.Element == UInt8 {
    guard airBytes.count == 2, let lo = airBytes.first, let hi = airBytes.dropFirst().first
    else { return nil }
    value = UInt16(hi) << 8 | UInt16(lo)
  }

  /// UID size from b8–b7.
  public var uidSize: UIDSize {
    switch (value >> 6) & 0x03 {
    case 0: return .single
    case 1: return .double
    case 2: return .triple
    default: return .rfu
    }
  }

  /// The five bit-frame anticollision bits b5–b1.
  public var bitFrameBits: UInt8 { UInt8(value & 0x1F) }

  /// True when exactly one of b5–b1 is set, as ISO/IEC 14443-3 requires.
  public var bitFrameAnticollision: Bool { bitFrameBits.nonzeroBitCount == 1 }

  /// Proprietary coding b12–b9 (0…15).
  public var proprietary: UInt8 { UInt8((value >> 8) & 0x0F) }

  /// True when an RFU bit (b16–b13 or b6) is set.
  public var rfuBitsSet: Bool { value & 0xF020 != 0 }

  /// `0x0044`.
  public var hexValue: String {
    let h = Hex.string([UInt8(value >> 8), UInt8(value & 0xFF)])
    return "0x" + h
  }

  /// The layer decode: `ATQA 0x0044 (UID size double, bit-frame anticollision)`.
  public var decode: LayerDecode {
    var notes = ["UID size \(uidSize.rawValue)"]
    notes.append(bitFrameAnticollision ? "bit-frame anticollision" : "no bit-frame anticollision")
    if proprietary != 0 { notes.append("proprietary 0x" + Hex.string([proprietary])) }
    var fields: [LayerField] = [
      // Hex without 0x, as every other hex value in JSON (value order, as `tag.atqa`).
      LayerField("atqa", .string(String(hexValue.dropFirst(2)))),
      LayerField("uid_size", .string(uidSize.rawValue)),
    ]
    if let n = uidSize.length { fields.append(LayerField("uid_length", .int(n))) }
    fields.append(LayerField("bit_frame_anticollision", .bool(bitFrameAnticollision)))
    fields.append(LayerField("proprietary", .int(Int(proprietary))))
    return LayerDecode(
      .iso14443A, "ATQA", "ATQA \(hexValue) (\(notes.joined(separator: ", ")))", fields)
  }

  /// Findings about RFU or malformed bits (not fatal: tags in the field do this).
  func findings(frameIndex: Int) -> [Finding] {
    var out: [Finding] = []
    if !bitFrameAnticollision {
      out.append(
        Finding(
          "atqa-bit-frame", .info,
          "ATQA \(hexValue): b5–b1 should have exactly one bit set (ISO/IEC 14443-3 §6.5.2)",
          frames: [frameIndex]))
    }
    if rfuBitsSet || uidSize == .rfu {
      out.append(
        Finding(
          "atqa-rfu", .info, "ATQA \(hexValue) sets RFU bits", frames: [frameIndex]))
    }
    return out
  }
}
