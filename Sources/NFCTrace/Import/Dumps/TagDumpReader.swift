import Foundation

/// Recognises and reads static tag dumps: Flipper Zero `.nfc` (NTAG/Ultralight), Proxmark3
/// JSON dumps (`"FileType": "mfu"`) and raw Type 2 page images (`.bin`).
public enum TagDumpReader {
  /// Reads `input` as a tag dump.
  /// - Returns: nil when the input is not a dump of a known kind (a trace, say).
  /// - Throws: `TraceError` when it is a dump but damaged: `.malformed` naming the line
  ///   (Flipper), the block (Proxmark3) or the byte offset; `.unsupported` for a Proxmark3 JSON
  ///   dump of another card family.
  public static func read(_ input: TraceInput) throws -> TagDump? {
    if let dump = try FlipperNFCDump.read(input) { return dump }
    if let dump = try Proxmark3JSONDump.read(input) { return dump }
    return RawType2Image.read(input)
  }

  /// `input` as a raw Type 2 page image only (CC magic, UID check bytes), nil otherwise: for
  /// binary input, where the text dumps cannot match and need not be parsed.
  public static func rawType2Image(_ input: TraceInput) -> TagDump? { RawType2Image.read(input) }
}

/// Shared checks of pages 0–2 (NTAG213/215/216 datasheet §8.5.1: BCC0 = CT ⊕ UID0 ⊕ UID1 ⊕
/// UID2 with CT = 0x88, BCC1 = UID3 ⊕ UID4 ⊕ UID5 ⊕ UID6).
enum Type2Header {
  static func bcc0Matches(_ b: [UInt8]) -> Bool {
    b.count >= 4 && 0x88 ^ b[0] ^ b[1] ^ b[2] == b[3]
  }

  static func bcc1Matches(_ b: [UInt8]) -> Bool {
    b.count >= 9 && b[4] ^ b[5] ^ b[6] ^ b[7] == b[8]
  }

  /// A warning when the stated UID disagrees with the UID in pages 0–1.
  static func uidCheck(_ dump: TagDump) -> TraceWarning? {
    guard let uid = dump.uid, uid.count == 7, let fromPages = dump.uidFromPages,
      uid != fromPages
    else { return nil }
    return TraceWarning(
      "UID \(Hex.uid(uid)) disagrees with pages 0–1 (\(Hex.uid(fromPages))): the dump was edited"
        + " or the pages belong to another tag")
  }
}
