/// Proxmark3 `hf mfu dump` binary files (`hf-mfu-<UID>-dump.bin`): a 56-byte header (48 in the
/// old format, `readOld`), then the
/// pages from page 0 (Proxmark3 `doc/` "New Ultralight/NTAG dump file format",
/// `mfu_dump_t`): GET_VERSION answer (8 bytes), TBO (2), TBO1 (1), the page count byte (1),
/// READ_SIG answer (32), then three counters of 3 bytes (least significant first) each
/// followed by its tearing flag (4 × 3). All-zero version or signature means the tag did not
/// give one (an Ultralight C has neither command).
///
/// Recognised when the pages after the header pass the checks of `RawType2Image` (CC magic,
/// BCC0/BCC1: one suffices when the header's page count byte is the number of pages or one
/// less — clients differ —, all three otherwise, with a warning).
enum Proxmark3MFUBinaryDump {
  /// `MFU_DUMP_PREFIX_LENGTH`.
  static let headerLength = 56

  /// The dump in either header layout, nil when `bytes` are not one: the current 56-byte one
  /// first, then the old 48-byte one (`readOld`), as the Proxmark3 client tries them.
  static func read(_ bytes: [UInt8], path: String) -> TagDump? {
    readCurrent(bytes, path: path) ?? readOld(bytes, path: path)
  }

  /// `OLD_MFU_DUMP_PREFIX_LENGTH`.
  static let oldHeaderLength = 48

  /// The old layout (Proxmark3 `doc/` "Old mfu format", `old_mfu_dump_t`, still converted by
  /// the client's `convertOldMfuDump`): GET_VERSION answer (8), TBO (2), tearing flags (3),
  /// PACK (2), TBO1 (1), READ_SIG answer (32), then the pages. No page count and no
  /// counters: the pages must pass every check of a page image (CC magic, BCC0, BCC1).
  static func readOld(_ bytes: [UInt8], path: String) -> TagDump? {
    let count = bytes.count - oldHeaderLength
    guard count >= 16, count % 4 == 0 else { return nil }
    let image = Array(bytes[oldHeaderLength...])
    guard let checks = RawType2Image.checks(image, hinted: false) else { return nil }
    return TagDump(
      format: "raw-type2", path: path, uid: Array(image[0..<3]) + Array(image[4..<8]),
      version: TagDump.stored(Array(bytes[0..<8])),
      signature: TagDump.stored(Array(bytes[16..<48])),
      pages: stride(from: 0, to: count, by: 4).map { Array(image[$0..<($0 + 4)]) },
      warnings: [
        TraceWarning(
          "Proxmark3 hf mfu dump, old format: pages after its 48-byte header (GET_VERSION, "
            + "signature; no counters)")
      ] + checks)
  }

  /// The current layout, nil when `bytes` are not one.
  static func readCurrent(_ bytes: [UInt8], path: String) -> TagDump? {
    let count = bytes.count - headerLength
    guard count >= 16, count % 4 == 0 else { return nil }
    let pages = count / 4
    let countByte = Int(bytes[11])
    let image = Array(bytes[headerLength...])
    // A page count byte that disagrees (it holds at most 255; an edited file) still makes a
    // dump when the pages pass every check of a page image.
    let countMatches = countByte == pages || countByte == pages - 1
    guard var checks = RawType2Image.checks(image, hinted: countMatches) else { return nil }
    if !countMatches {
      checks.append(
        TraceWarning(
          "Proxmark3 hf mfu dump: its header's page count byte says \(countByte), the file holds "
            + "\(pages) pages after the header; all are read"))
    }
    let version = Array(bytes[0..<8])
    let signature = Array(bytes[12..<44])
    // Zeros stand for answers the tag did not give: a tag without GET_VERSION (Ultralight,
    // Ultralight C) has no READ_CNT either.
    let counters: [Int] =
      TagDump.stored(version) == nil
      ? []
      : (0..<3).map { i in
        let c = 44 + 4 * i
        return Int(bytes[c]) | Int(bytes[c + 1]) << 8 | Int(bytes[c + 2]) << 16
      }
    return TagDump(
      format: "raw-type2", path: path, uid: Array(image[0..<3]) + Array(image[4..<8]),
      version: TagDump.stored(version),
      signature: TagDump.stored(signature), counters: counters,
      pages: stride(from: 0, to: count, by: 4).map { Array(image[$0..<($0 + 4)]) },
      warnings: [
        TraceWarning(
          "Proxmark3 hf mfu dump: pages after its 56-byte header (GET_VERSION, signature, "
            + "counters)")
      ] + checks)
  }
}
