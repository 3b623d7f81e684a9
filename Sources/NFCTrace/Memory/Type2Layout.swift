import NDEF

/// The NFC Forum Type 2 Capability Container (page 3; NFC Forum T2T 1.0 §6.1, nfc-facts §5.3).
public struct Type2CapabilityContainer: Sendable, Equatable {
  /// The four CC bytes.
  public var bytes: [UInt8]

  /// Wraps the 4 bytes of page 3; nil for another length.
  public init?(_ bytes: [UInt8]) {
    guard bytes.count == 4 else { return nil }
    self.bytes = bytes
  }

  /// CC0 = `E1`: NDEF magic number.
  public var hasMagic: Bool { bytes[0] == 0xE1 }
  /// Mapping version major (CC1 high nibble) and minor.
  public var version: (major: Int, minor: Int) { (Int(bytes[1] >> 4), Int(bytes[1] & 0x0F)) }
  /// Data area size in bytes: CC2 × 8.
  public var dataAreaSize: Int { Int(bytes[2]) * 8 }
  /// Read access nibble (CC3 high; 0 = free).
  public var readAccess: Int { Int(bytes[3] >> 4) }
  /// Write access nibble (CC3 low; 0 = free, F = none).
  public var writeAccess: Int { Int(bytes[3] & 0x0F) }

  /// What an access nibble of CC3 means (NFC Forum T2T 1.0 §6.1, CC3): 0h free access, 1h–7h
  /// RFU, 8h–Eh proprietary, Fh no access (write) or proprietary (read); nfcpy writes 8h for
  /// NTAG21x password protection (nfc-facts §5.3).
  public static func accessMeaning(_ nibble: Int, write: Bool) -> String {
    switch nibble {
    case 0: return "free"
    case 1...7: return "RFU"
    // Fh: no write access; as a read access value it is RFU (T2T 1.0 §6.1 Tables 4–5).
    case 0xF: return write ? "no write access" : "RFU"
    default: return "proprietary"
    }
  }

  /// Core NFC's `queryNDEFStatus` status for this CC. Rule: no `E1` magic or a mapping major
  /// version other than 1 → notSupported (nfcpy `tt2.py` `_read_capability_data`); a read
  /// access nibble other than 0h → notSupported (NFC Forum T2T 1.0 §6.1: only 0h grants read
  /// access; nfcpy reads NDEF only then, Android's detection needs CC3 00h or 0Fh); write
  /// nibble 0 → readWrite; any other write nibble (F = no write access, 1–7 RFU, 8–E
  /// proprietary, e.g. 8 = password on NTAG21x) → readOnly.
  public var status: NDEFStatus {
    guard hasMagic, version.major == 1, readAccess == 0 else { return .notSupported }
    return writeAccess == 0 ? .readWrite : .readOnly
  }

  /// Why `status` is what it is, in words.
  public var statusReason: String {
    if !hasMagic { return "CC0 is 0x\(Hex.string([bytes[0]])), not the NDEF magic E1" }
    if version.major != 1 { return "mapping version \(version.major).\(version.minor) is not 1.x" }
    if readAccess != 0 { return readAccessReason }
    let nibble = String(writeAccess, radix: 16, uppercase: true)
    return "CC3 write access \(nibble) (\(Self.accessMeaning(writeAccess, write: true)))"
  }

  /// The reason a read access nibble other than 0h gives (NFC Forum T2T 1.0 §6.1).
  public var readAccessReason: String {
    let nibble = String(readAccess, radix: 16, uppercase: true)
    return "CC3 read access \(nibble)h (\(Self.accessMeaning(readAccess, write: false))): only 0h "
      + "grants read access to the NDEF message (NFC Forum T2T 1.0 §6.1)"
  }
}

extension Type2CapabilityContainer {
  /// Core NFC's `queryNDEFStatus` for this CC and the data area's TLVs (`area`, parsed from
  /// the `knownBytes` known bytes from page 4): the CC's status, except that a data area
  /// walked to its Terminator TLV or its end without an NDEF Message TLV is notSupported — the
  /// T2T NDEF detection procedure needs that TLV (NFC Forum T2T 1.0 §7.1.1; nfcpy `tt2.py`
  /// gives no NDEF). Capacity as `Type2Capacity`, nil when notSupported.
  ///
  /// `userBytes`, the identified product's user memory (NXP NTAG213/215/216 datasheet §8.5,
  /// nfc-facts §4.3), caps the data area: a CC2 × 8 larger than it declares memory the tag
  /// does not have, and the capacity counts only what is there.
  public func ndefStatus(area: Type2TLVArea?, knownBytes: Int, userBytes: Int? = nil)
    -> (status: NDEFStatus, capacity: Int?, reason: String)
  {
    guard status != .notSupported else { return (status, nil, statusReason) }
    // Walked whole: to the Terminator, or every byte of the data area known (a TLV cut by
    // pages the capture lacks is not the end of the area).
    if let area, area.ndef == nil, area.endsAtTerminator || knownBytes >= dataAreaSize {
      return (
        .notSupported, nil,
        "no NDEF Message TLV in the data area (the CC alone does not make the tag NDEF)"
      )
    }
    // An NDEF TLV at or past the data area's end (a CC2 too small, e.g. 00h) is outside it:
    // NDEF detection walks TLVs only inside the area the CC declares (T2T 1.0 §2.3).
    if let area, let tlv = area.ndef, area.baseAddress + tlv.offset >= 16 + dataAreaSize {
      return (
        .notSupported, nil,
        "the NDEF Message TLV at byte \(area.baseAddress + tlv.offset) lies outside the data "
          + "area the CC declares (CC2 × 8 = \(dataAreaSize) bytes from byte 16)"
      )
    }
    // Without the NDEF TLV the capacity is counted from the data area's start: a Lock
    // Control TLV before it (NTAG213's factory layout) makes the real one smaller.
    let from = Type2Capacity.start(area: area)
    let assumed =
      area?.ndef == nil
      ? "; capacity counted from byte \(from)"
        + (from > 16 ? ", after the TLVs read" : "") + ": the NDEF TLV was not read" : ""
    let capped =
      userBytes.map { $0 < dataAreaSize }
        == true
      ? "; counted up to the product's \(userBytes ?? 0) bytes of user memory, not the CC's "
        + "\(dataAreaSize)" : ""
    return (
      status, Type2Capacity.bytes(cc: self, area: area, userBytes: userBytes),
      statusReason + assumed + capped
    )
  }
}

/// Type 2 capacity, following nfcpy `tt2.py` `get_capacity` (nfc-facts §5.4): the bytes from
/// the NDEF TLV's T byte (when no NDEF TLV was seen, the end of the TLVs read, or the data area
/// start, byte 16: an upper bound) to the end
/// of the data area (16 + CC2 × 8), minus lock/reserved bytes inside that range, minus the TLV
/// header: 2 bytes (T + 1-byte L), or 4 (T + `FF hi lo`) when more than 256 bytes remain.
/// NTAG215 factory (`03 00 FE`): 496 − 4 = 492; NTAG213 (Lock Control TLV first): 139 − 2 = 137.
public enum Type2Capacity {
  /// The capacity in bytes for `cc` and the parsed TLV area (nil when not known); the data
  /// area ends at the product's user memory `userBytes` when the CC declares more.
  public static func bytes(cc: Type2CapabilityContainer, area: Type2TLVArea?, userBytes: Int? = nil)
    -> Int
  {
    let end = 16 + min(cc.dataAreaSize, userBytes ?? Int.max)
    let tStart = start(area: area)
    var count = end - tStart
    for r in area?.reservedAreas ?? [] {
      let lo = max(r.address, tStart)
      let hi = min(r.address + r.size, end)
      if hi > lo { count -= hi - lo }
    }
    count -= count > 256 ? 4 : 2
    return max(0, count)
  }

  /// The byte address (from page 0) the capacity is counted from: the NDEF TLV's T byte when it
  /// was read; else the end of the last TLV read (the NDEF TLV can start no earlier: a Lock
  /// Control TLV's 5 bytes make NTAG213's 137, not 142); else the data area's start, byte 16.
  public static func start(area: Type2TLVArea?) -> Int {
    guard let area else { return 16 }
    if let tlv = area.ndef { return area.baseAddress + tlv.offset }
    return max(16, area.tlvs.last.map { area.baseAddress + $0.valueEnd } ?? 16)
  }
}
