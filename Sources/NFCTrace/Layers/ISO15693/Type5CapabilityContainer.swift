/// The Capability Container of an NFC Forum Type 5 Tag: the first 4 bytes of block 0 (8 when
/// byte 2 is 00h) — NFC Forum T5T 1.0 §4.3.1; Android's `rw_i93` reads it the same way.
///
/// Byte 0: magic number E1h (1-byte block addresses) or E2h (2-byte addresses, the extended
/// commands). Byte 1: mapping version (b7–b6 major, b5–b4 minor), read access (b3–b2: 00b
/// always), write access (b1–b0: 00b always, 10b proprietary, 11b never). Byte 2: MLEN, the
/// size of the T5T area in 8-byte units (00h: the 8-byte CC, whose bytes 6–7 hold it).
/// Byte 3: features (b0 MBREAD: READ MULTIPLE BLOCKS supported).
public struct Type5CapabilityContainer: Sendable, Equatable {
  /// Byte 0: E1h or E2h.
  public var magic: UInt8
  /// Byte 1: version and access conditions.
  public var versionAccess: UInt8
  /// The T5T area size in bytes (MLEN × 8).
  public var areaSize: Int
  /// Byte 3: feature bits.
  public var features: UInt8
  /// True for the 8-byte CC (byte 2 is 00h, MLEN in bytes 6–7).
  public var eightBytes: Bool

  /// The CC at the start of `bytes` (block 0's data, or more), nil when `bytes` does not start
  /// with the magic number E1h/E2h or holds fewer bytes than the CC.
  public init?(_ bytes: ArraySlice<UInt8>) {
    let b = Array(bytes.prefix(8))
    guard b.count >= 4, b[0] == 0xE1 || b[0] == 0xE2 else { return nil }
    magic = b[0]
    versionAccess = b[1]
    features = b[3]
    if b[2] != 0 {
      eightBytes = false
      areaSize = Int(b[2]) * 8
    } else {
      guard b.count >= 8 else { return nil }
      eightBytes = true
      areaSize = (Int(b[6]) << 8 | Int(b[7])) * 8
    }
    self.bytes = Array(b.prefix(eightBytes ? 8 : 4))
  }

  /// The CC's own bytes (4, or 8).
  public var bytes: [UInt8]
  /// The CC's length: 4 bytes, or 8 for the 8-byte CC.
  public var length: Int { eightBytes ? 8 : 4 }

  /// Mapping version `major.minor`.
  public var version: String { "\(versionAccess >> 6).\((versionAccess >> 4) & 3)" }

  /// The write access condition in words.
  public var writeAccess: String {
    switch versionAccess & 3 {
    case 0: "write always"
    case 2: "write proprietary"
    case 3: "write never (read-only)"
    default: "write access 01b (RFU)"
    }
  }

  /// The read access condition in words.
  public var readAccess: String {
    (versionAccess >> 2) & 3 == 0
      ? "read always" : "read access \((versionAccess >> 2) & 3) (RFU or proprietary)"
  }

  /// One line for the timeline.
  public var summary: String {
    var s = "CC: T5T \(version), \(readAccess), \(writeAccess), T5T area \(areaSize) bytes"
    s += eightBytes ? " (8-byte CC)" : ""
    s += magic == 0xE2 ? ", 2-byte block addresses" : ""
    if features & 1 != 0 { s += ", READ MULTIPLE BLOCKS supported" }
    return s
  }
}
