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

  private static func image(_ bytes: [UInt8], _ path: String, _ warnings: [TraceWarning])
    -> TagDump
  {
    let pages = stride(from: 0, to: bytes.count, by: 4).map { Array(bytes[$0..<($0 + 4)]) }
    let uid = Array(bytes[0..<3]) + Array(bytes[4..<8])
    return TagDump(format: "raw-type2", path: path, uid: uid, pages: pages, warnings: warnings)
  }
}
