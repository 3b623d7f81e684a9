/// The frame structure of NFC-F (JIS X 6319-4 §7; ISO/IEC 18092 §11.4; NFC Forum Digital
/// Protocol §8.4): an optional sync code `B2 4D` (Proxmark3 logs it), LEN (counting itself and
/// the payload), the payload, and CRC-F (two bytes, high byte first).
enum NFCFFraming {
  /// True when `data` has the NFC-F length structure — LEN (at least 2: itself and a command
  /// code) equals the byte count less the two CRC-F bytes, after a sync code `B2 4D` or
  /// without one — whatever its CRC-F. Cheap: no CRC is computed.
  static func hasLengthStructure(_ data: [UInt8]) -> Bool {
    if data.count >= 4, data[0] >= 2, Int(data[0]) + 2 == data.count { return true }
    return data.count >= 6 && data[0] == 0xB2 && data[1] == 0x4D && data[2] >= 2
      && Int(data[2]) + 4 == data.count
  }

  /// The `bad-crc` finding of a frame (`data`, sync code already taken off, `offset` bytes
  /// after the frame's start) whose CRC-F does not match: the expected and received bytes,
  /// high byte first as sent. Built only for a mismatch.
  static func crcMismatch(_ data: [UInt8], frameIndex: Int, offset: Int) -> Finding {
    let crc = CRC.crcF(data.dropLast(2))
    let expected = [UInt8(crc >> 8), UInt8(crc & 0xFF)]
    return Finding(
      "bad-crc", .warning,
      "CRC-F mismatch: expected \(Hex.string(expected, separator: " ")), "
        + "got \(Hex.string(Array(data.suffix(2)), separator: " "))",
      frames: [frameIndex], offset: offset + data.count - 2)
  }
}
