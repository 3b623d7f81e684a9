/// CRC_A and CRC_B of ISO/IEC 14443-3 Annex B.
///
/// Both use the polynomial x¹⁶+x¹²+x⁵+1 processed LSB first (reflected 0x8408); CRC_A presets
/// the register to 0x6363 with no final XOR, CRC_B presets 0xFFFF and complements the result.
/// The low byte is transmitted first.
public enum CRC {
  /// CRC_A over `bytes` as a 16-bit value (low byte goes first on air).
  /// Check value: "123456789" → 0xBF05.
  @inlinable
  public static func crcA<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    update(0x6363, bytes)
  }

  /// CRC_B over `bytes` as a 16-bit value (low byte goes first on air).
  @inlinable
  public static func crcB<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    ~update(0xFFFF, bytes)
  }

  @inlinable
  static func update<C: Collection>(_ preset: UInt16, _ bytes: C) -> UInt16
  where C.Element == UInt8 {
    var crc = preset
    for byte in bytes {
      var b = byte ^ UInt8(truncatingIfNeeded: crc)
      b ^= b << 4
      let w = UInt16(b)
      crc = (crc >> 8) ^ (w << 8) ^ (w << 3) ^ (w >> 4)
    }
    return crc
  }

  /// True when the last two bytes of `frame` are the CRC_A of the bytes before them.
  public static func hasValidCRCA(_ frame: [UInt8]) -> Bool {
    guard frame.count >= 3 else { return false }
    let crc = crcA(frame[..<(frame.count - 2)])
    return frame[frame.count - 2] == UInt8(crc & 0xFF) && frame[frame.count - 1] == UInt8(crc >> 8)
  }

  /// True when the last two bytes of `frame` are the CRC_B of the bytes before them.
  public static func hasValidCRCB(_ frame: [UInt8]) -> Bool {
    guard frame.count >= 3 else { return false }
    let crc = crcB(frame[..<(frame.count - 2)])
    return frame[frame.count - 2] == UInt8(crc & 0xFF) && frame[frame.count - 1] == UInt8(crc >> 8)
  }

  /// The CRC of FeliCa / NFC-F frames (JIS X 6319-4, ISO/IEC 18092 §11.4.2.3): the
  /// polynomial x¹⁶+x¹²+x⁵+1 processed MSB first (0x1021), preset 0x0000, no final XOR; sent
  /// high byte first. Check value: "123456789" → 0x31C3.
  public static func crcF<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    var crc: UInt16 = 0
    for byte in bytes {
      crc ^= UInt16(byte) << 8
      for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
    }
    return crc
  }

  /// True when `frame` is shaped like an NFC-F frame: its first byte (LEN) counts itself and
  /// the payload, and the two bytes after them are the payload's CRC-F, high byte first.
  public static func isNFCFFrame(_ frame: [UInt8]) -> Bool {
    guard frame.count >= 4, Int(frame[0]) + 2 == frame.count else { return false }
    let crc = crcF(frame[..<(frame.count - 2)])
    return frame[frame.count - 2] == UInt8(crc >> 8) && frame[frame.count - 1] == UInt8(crc & 0xFF)
  }

  /// True when `frame` is an NFC-F frame preceded by the sync code `B2 4D` (JIS X 6319-4:
  /// preamble, sync code, LEN…): Proxmark3 logs FeliCa frames from the sync code on (its
  /// `trace list -t felica` checks CRC-F from the third byte), other sources from LEN.
  public static func hasNFCFSync(_ frame: [UInt8]) -> Bool {
    guard frame.count >= 6, frame[0] == 0xB2, frame[1] == 0x4D, !isNFCFFrame(frame) else {
      return false
    }
    return isNFCFFrame(Array(frame.dropFirst(2)))
  }

  /// `bytes` followed by their CRC_A, low byte first.
  public static func appendingCRCA(_ bytes: [UInt8]) -> [UInt8] {
    let crc = crcA(bytes)
    return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
  }

  /// `bytes` followed by their CRC_B, low byte first.
  public static func appendingCRCB(_ bytes: [UInt8]) -> [UInt8] {
    let crc = crcB(bytes)
    return bytes + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
  }
}
