/// Raw Type 2 tag images: the pages from page 0, 4 bytes each, nothing else (ChameleonMini
/// `Dumps/*.bin`, `nfc-mfultralight r`); Proxmark3 `hf mfu dump` `.bin` files, with their
/// header, through `Proxmark3MFUBinaryDump`. Recognised by content: a size that is a multiple
/// of 4, the CC magic number `E1` at byte 12 (NFC Forum T2T 1.0 §6.1) and the UID check bytes
/// BCC0/BCC1 of pages 0–2 (NTAG213/215/216 datasheet §8.5.1). A `.bin` extension lowers the
/// bar (one of the checks suffices) but never decides alone.
enum RawType2Image {
  /// Largest image considered: NTAG I2C plus 2K with SRAM is 2 KiB; leave room.
  private static let maximumSize = 8192

  /// The image, nil when the bytes do not look like one. A Proxmark3 `hf mfu dump` file (its
  /// header first) is read by `Proxmark3MFUBinaryDump` unless the bytes are a whole raw image.
  static func read(_ input: TraceInput) -> TagDump? {
    let count = input.bytes.count
    guard count >= 16, count <= maximumSize + Proxmark3MFUBinaryDump.headerLength else {
      return nil
    }
    let bytes = [UInt8](input.bytes)
    let hinted = input.path.lowercased().hasSuffix(".bin")
    if count <= maximumSize, count % 4 == 0, let warnings = checks(bytes, hinted: false) {
      return image(bytes, input.path, warnings)
    }
    // Before the weaker `.bin` reading: a dump's header could pass it (a signature starting
    // with E1 at byte 12).
    if let dump = Proxmark3MFUBinaryDump.read(bytes, path: input.path) { return dump }
    if count <= maximumSize, count % 4 == 0, let warnings = checks(bytes, hinted: hinted) {
      return image(bytes, input.path, warnings)
    }
    return nil
  }

  /// The recognition of a page image from page 0: nil when it is not one, else the warnings
  /// of the checks that failed. Without `hinted` all three checks must pass; with it (a `.bin`
  /// name) the CC magic or both UID check bytes suffice.
  static func checks(_ bytes: [UInt8], hinted: Bool) -> [TraceWarning]? {
    guard bytes.count >= 16 else { return nil }
    let cc = bytes[12] == 0xE1
    let bcc0 = Type2Header.bcc0Matches(bytes)
    let bcc1 = Type2Header.bcc1Matches(bytes)
    let recognised = (cc && bcc0 && bcc1) || (hinted && (cc || (bcc0 && bcc1)))
    guard recognised else { return nil }
    var warnings: [TraceWarning] = []
    if !cc {
      warnings.append(
        TraceWarning("byte 12 is \(Hex.string([bytes[12]])), not the CC magic number e1: no NDEF"))
    }
    if !bcc0 || !bcc1 {
      warnings.append(TraceWarning("UID check bytes BCC0/BCC1 in pages 0–2 do not verify"))
    }
    return warnings
  }

  /// Why `input` is not a raw Type 2 image, naming the check that failed and what it
  /// expects (for `--input-format raw-type2`): the size (at least 16 bytes, whole 4-byte
  /// pages, at most 8 KiB), a MIFARE Classic image (16-byte blocks, block 0 holding the
  /// 4-byte UID and its BCC; MIFARE Classic is no Type 2 tag), or the content checks (CC magic
  /// E1 at byte 12, NFC Forum T2T 1.0 §6.1; BCC0/BCC1, NTAG213/215/216 datasheet §8.5.1).
  static func rejection(_ input: TraceInput) -> String {
    let count = input.bytes.count
    let bytes = [UInt8](input.bytes.prefix(16))
    let need = "a raw Type 2 image is whole 4-byte pages from page 0"
    if count < 16 {
      return "\(count) bytes: \(need), at least pages 0–3 (16 bytes)"
    }
    if count > maximumSize + Proxmark3MFUBinaryDump.headerLength {
      return "\(count) bytes: \(need), at most \(maximumSize) bytes (NTAG I2C plus 2K is 2 KiB)"
    }
    if let classic = classicName(count), bytes[0] ^ bytes[1] ^ bytes[2] ^ bytes[3] == bytes[4] {
      return "\(count) bytes with a 4-byte UID and its BCC in block 0: a \(classic) image "
        + "(16-byte blocks, sector trailers), not a Type 2 tag's pages; MIFARE Classic dumps "
        + "are not decoded"
    }
    if count % 4 != 0 {
      return "\(count) bytes is not a whole number of 4-byte pages (\(count / 4) pages and "
        + "\(count % 4) bytes left over): \(need)"
    }
    var failed: [String] = []
    if bytes[12] != 0xE1 {
      failed.append("byte 12 (CC0) is \(Hex.string([bytes[12]])), not the CC magic number e1")
    }
    if !Type2Header.bcc0Matches(bytes) {
      failed.append(
        "BCC0 (byte 3) is \(Hex.string([bytes[3]])), not 88 ⊕ UID0 ⊕ UID1 ⊕ UID2 = "
          + Hex.string([0x88 ^ bytes[0] ^ bytes[1] ^ bytes[2]]))
    }
    if !Type2Header.bcc1Matches(bytes) {
      failed.append(
        "BCC1 (byte 8) is \(Hex.string([bytes[8]])), not UID3 ⊕ UID4 ⊕ UID5 ⊕ UID6 = "
          + Hex.string([bytes[4] ^ bytes[5] ^ bytes[6] ^ bytes[7]]))
    }
    // Every check passed, so the size is what failed: past the largest image, only a
    // Proxmark3 dump's header may add bytes, and this input has none.
    if failed.isEmpty, count > maximumSize {
      return "\(count) bytes: \(need), at most \(maximumSize) bytes (NTAG I2C plus 2K is 2 KiB) "
        + "without a Proxmark3 dump header"
    }
    let rule =
      input.path.lowercased().hasSuffix(".bin")
      ? "the CC magic or both UID check bytes are expected"
      : "the CC magic and both UID check bytes are expected (a .bin name needs one of them)"
    return "\(count) bytes (\(count / 4) pages): " + failed.joined(separator: "; ") + ": " + rule
  }

  /// The MIFARE Classic product whose image has `count` bytes (Mini 320, 1K 1024, 2K 2048,
  /// 4K 4096; 16-byte blocks), nil for other sizes.
  private static func classicName(_ count: Int) -> String? {
    switch count {
    case 320: return "MIFARE Classic Mini"
    case 1024: return "MIFARE Classic 1K"
    case 2048: return "MIFARE Classic 2K"
    case 4096: return "MIFARE Classic 4K"
    default: return nil
    }
  }

  private static func image(_ bytes: [UInt8], _ path: String, _ warnings: [TraceWarning])
    -> TagDump
  {
    let pages = stride(from: 0, to: bytes.count, by: 4).map { Array(bytes[$0..<($0 + 4)]) }
    let uid = Array(bytes[0..<3]) + Array(bytes[4..<8])
    return TagDump(format: "raw-type2", path: path, uid: uid, pages: pages, warnings: warnings)
  }
}
