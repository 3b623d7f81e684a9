/// The CRC of ISO/IEC 15693-3 (§7.2 and Annex C), ending every request and response:
/// CRC-16/ISO-IEC-13239 — the polynomial x¹⁶+x¹²+x⁵+1 processed LSB first (reflected 8408h),
/// preset FFFFh, complemented, sent low byte first. It is the computation of CRC_B (ISO/IEC
/// 14443-3 Annex B takes it from the same standard), so `CRC.crcB` computes it.
enum ISO15693CRC {
  /// The CRC status of an NFC-V frame and, for a mismatch, a `bad-crc` finding. A status the
  /// importer already decided is kept; a frame under 3 bytes (a slot's lone EOF carries no
  /// bytes) has no CRC. The finding's strings are built only for a mismatch.
  static func resolve(_ frame: Frame) -> (CRCStatus, Finding?) {
    guard frame.crc == .unchecked else { return (frame.crc, nil) }
    let data = frame.data
    guard data.count >= 3 else { return (.absent, nil) }
    let crc = CRC.crcB(data[..<(data.count - 2)])
    if data[data.count - 2] == UInt8(crc & 0xFF) && data[data.count - 1] == UInt8(crc >> 8) {
      return (.ok, nil)
    }
    return (.bad, FrameCRC.mismatch("ISO 15693 CRC", crc: crc, frame: frame))
  }
}
