/// The Attribute Information Block of an NFC Forum Type 3 Tag: block 0 of the NDEF service
/// (NFC Forum T3T 1.0 §7.1, Figure "Attribute Information Format").
///
/// Layout (16 bytes, multi-byte values big-endian): Ver (1; `10h` = mapping 1.0), Nbr (1: most
/// blocks one CHECK may read), Nbw (1: most blocks one UPDATE may write), NmaxB (2: blocks
/// available for NDEF data), 4 unused bytes (`00`), WriteF (1: `00h` OFF, `0Fh` ON while a
/// write is in progress), RW Flag (1: `00h` read-only, `01h` read/write), Ln (3: NDEF message
/// length in bytes), Checksum (2: the sum of bytes 0–13).
public struct Type3AttributeBlock: Sendable, Equatable {
  /// The block's 16 bytes.
  public var bytes: [UInt8]
  /// Mapping version byte (major version in the high nibble).
  public var version: UInt8
  /// Nbr: blocks per CHECK.
  public var nbr: Int
  /// Nbw: blocks per UPDATE.
  public var nbw: Int
  /// NmaxB: blocks available for the NDEF message (from block 1).
  public var nmaxb: Int
  /// WriteF: `00h` OFF, `0Fh` ON (a write procedure has begun and not ended).
  public var writeFlag: UInt8
  /// RW Flag: `00h` read-only, `01h` read/write.
  public var rwFlag: UInt8
  /// Ln: the NDEF message's length in bytes.
  public var ln: Int
  /// The checksum stored in bytes 14–15.
  public var checksum: Int
  /// The sum of bytes 0–13 (what the checksum must be).
  public var computedChecksum: Int

  /// Block size of a Type 3 Tag in bytes (JIS X 6319-4).
  public static let blockSize = 16

  /// Parses the first 16 bytes of `bytes`; nil when fewer are given.
  public init?<C: Collection<UInt8>>(parsing bytes: C) {
    let b = Array(bytes.prefix(Self.blockSize))
    guard b.count == Self.blockSize else { return nil }
    self.bytes = b
    version = b[0]
    nbr = Int(b[1])
    nbw = Int(b[2])
    nmaxb = Int(b[3]) << 8 | Int(b[4])
    writeFlag = b[9]
    rwFlag = b[10]
    ln = Int(b[11]) << 16 | Int(b[12]) << 8 | Int(b[13])
    checksum = Int(b[14]) << 8 | Int(b[15])
    computedChecksum = b[0..<14].reduce(0) { $0 + Int($1) }
  }

  /// True when the stored checksum is the sum of bytes 0–13.
  public var checksumValid: Bool { checksum == computedChecksum }
  /// True while WriteF is ON (`0Fh`): a write began and never ended (T3T 1.0 §7.4.3).
  public var writeInProgress: Bool { writeFlag == 0x0F }
  /// Bytes available for the NDEF message: NmaxB × 16.
  public var capacity: Int { nmaxb * Self.blockSize }
  /// Blocks the message of `ln` bytes occupies, from block 1.
  public var messageBlocks: Int { (ln + Self.blockSize - 1) / Self.blockSize }
  /// `1.0` for `10h`.
  public var versionText: String { "\(version >> 4).\(version & 0x0F)" }

  /// Why this block does not make the tag NDEF formatted (T3T 1.0 §7.4.1 NDEF detection: a
  /// block of zeros, a wrong checksum, a major version newer than 1 — a reader keeps away from
  /// a newer mapping and may take an older one —, Nbr or Nbw of 0), nil when it does.
  public var invalidReason: String? {
    if bytes.allSatisfy({ $0 == 0 }) {
      return "block 0 is all zeros: no Attribute Information Block (never NDEF formatted)"
    }
    if !checksumValid {
      return "the Attribute Information Block's checksum is \(Hex.word(UInt16(checksum))), "
        + "the sum of its bytes 0–13 is \(Hex.word(UInt16(truncatingIfNeeded: computedChecksum)))"
    }
    if version >> 4 > 1 {
      return "mapping version \(versionText) (Ver \(Hex.string([version]))) is not supported "
        + "(major version 1)"
    }
    if nbr == 0 || nbw == 0 { return "Nbr \(nbr) / Nbw \(nbw): a block count of 0" }
    return nil
  }

  /// What Core NFC's `queryNDEFStatus` answers for this block: notSupported when it is not
  /// valid, readWrite for RW Flag `01h`, readOnly otherwise (`00h`, and RFU values); the
  /// capacity is NmaxB × 16 bytes.
  public var ndefStatus: (status: NDEFStatus, capacity: Int?, reason: String) {
    if let why = invalidReason { return (.notSupported, nil, why) }
    switch rwFlag {
    case 0x01: return (.readWrite, capacity, "Attribute Information RW Flag 01 (read/write)")
    case 0x00: return (.readOnly, capacity, "Attribute Information RW Flag 00 (read-only)")
    default:
      return (
        .readOnly, capacity,
        "Attribute Information RW Flag \(Hex.string([rwFlag])) (RFU: taken as read-only)"
      )
    }
  }

  /// `Ver 1.0, Nbr 4, Nbw 1, NmaxB 13 (208 bytes), WriteF OFF, RW 01, Ln 20, checksum ok`.
  public var summary: String {
    let write = writeFlag == 0 ? "OFF" : writeInProgress ? "ON" : Hex.string([writeFlag])
    return "Ver \(versionText), Nbr \(nbr), Nbw \(nbw), NmaxB \(nmaxb) (\(capacity) bytes), "
      + "WriteF \(write), RW \(Hex.string([rwFlag])), Ln \(ln), checksum "
      + (checksumValid ? "ok" : "wrong")
  }

  /// The 16 bytes of this block, the checksum recomputed (a test and simulator helper).
  public func serialized() -> [UInt8] {
    var b: [UInt8] = [
      version, UInt8(truncatingIfNeeded: nbr), UInt8(truncatingIfNeeded: nbw),
      UInt8(truncatingIfNeeded: nmaxb >> 8), UInt8(truncatingIfNeeded: nmaxb), 0, 0, 0, 0,
      writeFlag, rwFlag, UInt8(truncatingIfNeeded: ln >> 16), UInt8(truncatingIfNeeded: ln >> 8),
      UInt8(truncatingIfNeeded: ln),
    ]
    let sum = b.reduce(0) { $0 + Int($1) }
    b += [UInt8(truncatingIfNeeded: sum >> 8), UInt8(truncatingIfNeeded: sum)]
    return b
  }
}
