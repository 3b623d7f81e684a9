import NDEF

/// Whether a Type 2 WRITE to a page holding lock bytes locks anything. Lock bytes are
/// one-time programmable: a written bit is OR'ed into the byte, a written 0 changes nothing
/// (nfc-facts §4.4; NXP NTAG213/215/216 datasheet §8.5.2–8.5.3). Core NFC's writeLock sets lock
/// bits and CC3 = 0Fh (nfc-facts §5.3), so a WRITE whose lock bytes are all zero sets nothing
/// and is no writeLock: a whole-memory restore (nfc-mfultralight) writes those pages as read.
extension Type2Procedure {
  /// The offsets (0–3) of the lock bytes in `page`: LOCK0/LOCK1 of page 2 (nfc-facts §4.4),
  /// LOCK2–LOCK4 of an identified product's dynamic lock page (byte 3 is RFUI), LOCK2–LOCK3 of
  /// an Ultralight C's page 28h (MF0ICU2 datasheet §7.5.2), or the bytes a Lock Control TLV
  /// declares there (nfc-facts §5.2). Nil for a page without lock bytes.
  static func lockByteOffsets(page: Int, tag: TagIdentity, memory: TagMemory) -> [Int]? {
    if page == 2 { return [2, 3] }
    if let product = tag.ntagProduct {
      return Type2Locks.dynamicLayout(product)?.page == page ? [0, 1, 2] : nil
    }
    if tag.isUltralightC { return page == 0x28 ? [0, 1] : nil }
    let pageBytes = (page * 4)..<(page * 4 + 4)
    let declared = memory.type2Area?.reservedAreas.filter { $0.isLock } ?? []
    let offsets = pageBytes.filter { a in declared.contains { $0.contains(a) } }.map {
      $0 - page * 4
    }
    return offsets.isEmpty ? nil : offsets
  }

  /// Whether `data` written to `page` sets a lock bit: a lock byte other than 0, or CC3's write
  /// access made Fh (read-only, nfc-facts §5.3) on page 3. Nil when the page holds no lock
  /// bytes (and is not the CC), or when the data is not known (a COMPATIBILITY_WRITE's part 1:
  /// its part 2 carries it).
  static func setsLockBits(_ data: [UInt8], page: Int, tag: TagIdentity, memory: TagMemory)
    -> Bool?
  {
    let offsets = page == 3 ? [] : lockByteOffsets(page: page, tag: tag, memory: memory)
    guard page == 3 || offsets != nil else { return nil }
    guard data.count >= 4 else { return nil }
    if page == 3 { return data[3] & 0x0F == 0x0F }
    return offsets?.contains { data[$0] != 0 } ?? false
  }

  /// The operation of a WRITE of `data` to `page` when the page holds lock bytes or is the CC;
  /// nil otherwise. Setting a lock bit (or CC3 = Fh) is writeLock. Setting none, the WRITE
  /// belongs to the write or lock procedure under way (a restore of the whole memory, a lock
  /// sequence writing 00 where no bit is needed), else it is an app's own command; another CC
  /// value formats the tag (a transceive). With `data` unknown (COMPATIBILITY_WRITE part 1)
  /// this is the kind for no lock bit, until its part 2 shows the data (`SessionAnalyzer`).
  static func lockPageKind(
    _ data: [UInt8], page: Int, tag: TagIdentity, memory: TagMemory, current: OperationKind?
  ) -> OperationKind? {
    guard page == 3 || lockByteOffsets(page: page, tag: tag, memory: memory) != nil else {
      return nil
    }
    if setsLockBits(data, page: page, tag: tag, memory: memory) == true { return .writeLock }
    // A CC write inside a lock sequence (its data not known yet, or not read-only) is one of
    // its steps; elsewhere it formats the tag.
    if page == 3 { return current == .writeLock ? .writeLock : .transceive }
    return current == .writeNDEF || current == .writeLock ? current : .transceive
  }

  /// Whether `d` is the part 1 of a COMPATIBILITY_WRITE to a lock page or the CC: whether it
  /// locks is known only from its part 2 (nfc-facts §4.1).
  static func awaitsLockData(_ d: LayerDecode, tag: TagIdentity, memory: TagMemory) -> Bool {
    guard isCompatibilityWrite(d, part: 1), let page = d.absolutePage else { return false }
    return page == 3 || lockByteOffsets(page: page, tag: tag, memory: memory) != nil
  }

  /// Whether `d` is part `part` (1: the command and page, 2: the 16 data bytes) of a Type 2
  /// COMPATIBILITY_WRITE (nfc-facts §4.1).
  static func isCompatibilityWrite(_ d: LayerDecode, part: Int) -> Bool {
    d.protocolID == .type2 && d.name == "COMPATIBILITY_WRITE" && d.field("part") == .int(part)
  }
}
