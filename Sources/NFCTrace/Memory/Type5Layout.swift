import NDEF

/// The NFC Forum Type 5 Tag memory layout (T5T 1.0): the CC in block 0 (4 bytes, or 8),
/// then the T5T area of TLVs (the Type 2 TLVs: NDEF Message 03h, Proprietary FDh, Terminator
/// FEh), MLEN × 8 bytes long.
extension Type5CapabilityContainer {
  /// Where the T5T area ends, as a byte address from block 0: MLEN × 8 bytes after the CC
  /// (T5T 1.0 §4.3.1; Android `rw_i93` counts the same), capped at the tag's memory
  /// `memorySize` when GET SYSTEM INFORMATION gave it — NXP ICODE tags set MLEN to their whole
  /// memory, CC included (the ICODE SLIX capture: MLEN 0Eh on 28 blocks of 4 bytes).
  public func areaEnd(memorySize: Int?) -> Int {
    min(length + areaSize, memorySize ?? Int.max)
  }

  /// The TLV area of `image` from the byte after the CC, as far as it is known and no further
  /// than the area's end, and how many of its bytes are known.
  public func tlvArea(_ image: ByteImage, memorySize: Int?, findings: Bool = false) -> (
    area: Type2TLVArea, known: Int
  ) {
    let size = max(0, areaEnd(memorySize: memorySize) - length)
    let run = Array(image.knownRun(from: length).prefix(size))
    return (
      Type2TLVArea(tlvArea: run, baseAddress: length, areaStart: length, findings: findings),
      run.count
    )
  }

  /// Core NFC's `queryNDEFStatus` for this CC and the TLV area `area` (`known` bytes of it
  /// known): notSupported for a major version above 1, a read access other than always, no T5T
  /// area (MLEN 0), or an area walked to its Terminator or its end without an NDEF Message TLV
  /// (T5T 1.0 NDEF detection); else readWrite when the write access is always, readOnly
  /// otherwise. Capacity: from the NDEF TLV's T (the byte after the CC when it was not read)
  /// to the area's end, minus T and L (2 bytes, 4 when more than 256 remain).
  public func ndefStatus(area: Type2TLVArea, known: Int, memorySize: Int?) -> (
    status: NDEFStatus, capacity: Int?, reason: String
  ) {
    let end = areaEnd(memorySize: memorySize)
    if versionAccess >> 6 > 1 {
      return (
        .notSupported, nil,
        "the CC's mapping version \(version) has a major version above 1, which T5T 1.x readers "
          + "reject (NFC Forum T5T 1.0 §4.3.1)"
      )
    }
    if (versionAccess >> 2) & 3 != 0 {
      return (.notSupported, nil, "the CC gives \(readAccess): the NDEF data cannot be read")
    }
    if end <= length {
      return (.notSupported, nil, "the CC declares no T5T area (MLEN 0): there is no room for NDEF")
    }
    if area.ndef == nil, area.endsAtTerminator || length + known >= end {
      return (
        .notSupported, nil,
        "no NDEF Message TLV in the T5T area (the CC alone does not make the tag NDEF)"
      )
    }
    let tStart = area.ndef.map { area.baseAddress + $0.offset } ?? length
    var capacity = end - tStart
    capacity -= capacity > 256 ? 4 : 2
    var reason = "CC \(Hex.string(bytes, separator: " ").uppercased()): \(summary.dropFirst(4))"
    if area.ndef == nil {
      reason += "; capacity counted from the byte after the CC: the NDEF TLV was not read"
    }
    if let memorySize, memorySize < length + areaSize {
      reason +=
        "; counted up to the tag's \(memorySize) bytes of memory (GET SYSTEM INFORMATION), "
        + "not the CC's \(length + areaSize)"
    }
    return (versionAccess & 3 == 0 ? .readWrite : .readOnly, max(0, capacity), reason)
  }
}
