/// The Memory Configuration block (MC, block 88h) of a FeliCa Lite / Lite-S: which user
/// blocks may be written, whether the system blocks may, and whether NDEF is enabled (Sony
/// FeliCa Lite-S user's manual, "MC"; nfcpy `tt3_sony` formats and protects tags through it).
///
/// Bytes 0–1 (little-endian) MC_SP_REG_ALL_RW: bit n = 1 lets S_PAD n (block n, 0–13) be
/// written, bit 14 the REG block; byte 2 MC_ALL: FFh system blocks writable, 00h read-only;
/// byte 3 MC_SYS_OP: 01h NDEF enabled (the card answers a poll for system code 12FC), 00h
/// disabled. The later bytes (RF parameter, MAC rules of the Lite-S) are not decoded.
public struct FeliCaLiteMemoryConfiguration: Sendable, Equatable {
  /// MC_SP_REG_ALL_RW (bit n: block n writable).
  public var writableBits: Int
  /// MC_ALL.
  public var systemBlocks: UInt8
  /// MC_SYS_OP.
  public var systemOption: UInt8

  /// Parses the first 4 bytes of an MC block; nil when fewer are given.
  public init?<C: Collection<UInt8>>(parsing bytes: C) {
    let b = Array(bytes.prefix(4))
    guard b.count == 4 else { return nil }
    writableBits = Int(b[1]) << 8 | Int(b[0])
    systemBlocks = b[2]
    systemOption = b[3]
  }

  /// True when MC_SYS_OP enables NDEF (bit 0).
  public var ndefEnabled: Bool { systemOption & 0x01 != 0 }

  /// The user blocks (0–13) MC_SP marks read-only.
  public var readOnlyBlocks: [Int] { (0..<14).filter { writableBits >> $0 & 1 == 0 } }

  /// `user blocks 0–13 writable, system blocks writable (MC_ALL FF), NDEF disabled
  /// (MC_SYS_OP 00)`.
  public var summary: String {
    let ro = readOnlyBlocks
    let user =
      ro.isEmpty
      ? "user blocks 0–13 writable"
      : "user block\(ro.count == 1 ? "" : "s") \(ro.map(String.init).joined(separator: ", ")) "
        + "read-only"
    let system =
      systemBlocks == 0xFF
      ? "system blocks writable" : systemBlocks == 0 ? "system blocks read-only" : "MC_ALL RFU"
    return "\(user), \(system) (MC_ALL \(Hex.string([systemBlocks]).uppercased())), NDEF "
      + (ndefEnabled ? "enabled" : "disabled")
      + " (MC_SYS_OP \(Hex.string([systemOption]).uppercased()))"
  }
}
