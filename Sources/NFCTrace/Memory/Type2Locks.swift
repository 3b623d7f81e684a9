import NDEF

/// The lock bits of an NFC Forum Type 2 tag (MIFARE Ultralight / NTAG21x): the static lock
/// bytes LOCK0/LOCK1 of page 2 and, for products that have them, the dynamic lock bytes
/// LOCK2–LOCK4 of the dynamic lock page (nfc-facts §4.4; NXP NTAG213/215/216 datasheet §8.5.2
/// and §8.5.3).
///
/// Rule for what is locked (nfc-facts §10, "static block-lock bits"): a page is read-only iff
/// its own lock bit is set; the block-lock bits only freeze other lock bits.
public struct Type2Locks: Sendable, Equatable {
  /// A static block-lock bit of LOCK0 (bits 0–2): it freezes lock bits, not pages.
  public enum BlockLock: String, Sendable, CaseIterable {
    /// LOCK0 b1 (0x01): the CC lock bit can no longer change.
    case ccLockBit = "CC lock bit"
    /// LOCK0 b2 (0x02): the lock bits of pages 4–9 can no longer change.
    case pages4to9 = "lock bits of pages 4–9"
    /// LOCK0 b3 (0x04): the lock bits of pages 10–15 can no longer change.
    case pages10to15 = "lock bits of pages 10–15"

    /// The LOCK0 bit mask.
    public var mask: UInt8 {
      switch self {
      case .ccLockBit: return 0x01
      case .pages4to9: return 0x02
      case .pages10to15: return 0x04
      }
    }

    /// The pages whose static lock bits (bit p of LOCK0 | LOCK1 << 8) it freezes.
    public var pages: ClosedRange<Int> {
      switch self {
      case .ccLockBit: return 3...3
      case .pages4to9: return 4...9
      case .pages10to15: return 10...15
      }
    }

    /// The pages whose static lock bits the block-locking bits of `lock0` freeze, ascending.
    public static func frozenPages(lock0: UInt8) -> [Int] {
      allCases.filter { lock0 & $0.mask != 0 }.flatMap { Array($0.pages) }
    }
  }

  /// The dynamic lock bytes and what they lock.
  public struct Dynamic: Sendable, Equatable {
    /// The dynamic lock page (4 + user bytes / 4: NTAG213 0x28, NTAG215 0x82, NTAG216 0xE2).
    public var page: Int
    /// LOCK2, LOCK3, LOCK4 (the fourth byte of the page is RFUI).
    public var bytes: [UInt8]
    /// Pages each LOCK2/LOCK3 bit locks: 2 (NTAG212/213, MF0UL21) or 16 (NTAG215/216).
    public var pagesPerBit: Int
    /// Last user page (the groups stop there).
    public var lastUserPage: Int
    /// The page groups whose lock bit is set, from page 16 on.
    public var lockedRanges: [ClosedRange<Int>]
    /// Indices in `bytes` of lock bytes not known (written 00 over a value never read: lock
    /// bits are one-time programmable, so the old bits may be set): shown `??`, their bits
    /// counted as clear, so `lockedRanges` is what is certainly locked.
    public var unknownBytes: [Int] = []

    /// LOCK4. Its role (block-lock bits or further groups) is unverified (nfc-facts §4.4), so
    /// it is shown raw and locks nothing here.
    public var lock4: UInt8? { bytes.count > 2 ? bytes[2] : nil }
  }

  /// LOCK0 (page 2 byte 2); nil when page 2 was not read.
  public var lock0: UInt8?
  /// LOCK1 (page 2 byte 3); nil when page 2 was not read.
  public var lock1: UInt8?
  /// The dynamic lock bytes, when the product is identified and the page is known.
  public var dynamic: Dynamic?
  /// True when the tag may have dynamic lock bits that are not known here: the page was not
  /// read, the product is not identified (the page cannot be located), or LOCK2/LOCK3 is
  /// known by its set bits only (`setBitsOnly`).
  public var dynamicUnknown = false
  /// Names of the lock bytes (`LOCK0`…`LOCK4`) whose value gives only the bits known to be
  /// set: a WRITE set them over a value never read, and lock bits are one-time programmable
  /// (OR'ed into what is there, NXP NTAG213/215/216 datasheet §8.5.2–8.5.3), so the bits shown
  /// clear may be set. The pages listed as locked are those certainly locked.
  public var setBitsOnly: [String] = []

  /// Decodes the static lock bytes (nil: not read), and the dynamic lock bytes `dynamicBytes`
  /// (LOCK2, LOCK3, LOCK4…) read at the dynamic lock page of `product`, or, for a product not
  /// in the table, at the place a Lock Control TLV declares (`declared`, NFC Forum T2T 1.0
  /// §2.3.1). A product with more than 48 user bytes whose lock page is not known leaves the
  /// dynamic lock bits unknown (every such NXP Type 2 IC has them). A product not identified
  /// whose CC declares a data area of `ccDataAreaSize` ≤ 48 bytes (CC2 × 8, and no Lock Control
  /// TLV) has none: T2T places dynamic lock bits only after a data area larger than 48 bytes
  /// (NFC Forum T2T 1.0 §2.3.1; nfc-facts §5.2), and the 48-byte products — MIFARE Ultralight
  /// MF0ICU1, NTAG210, Ultralight EV1 MF0UL11 — have only LOCK0/LOCK1 (nfc-facts §4.3, §4.4).
  public init(
    lock0: UInt8?, lock1: UInt8?, dynamicBytes: [UInt8]? = nil, product: NTAGProduct? = nil,
    declared: (page: Int, pagesPerBit: Int, lastUserPage: Int)? = nil, ccDataAreaSize: Int? = nil,
    unknownDynamicBytes: [Int] = [], setBitsOnly: [String] = [], ultralightC: Bool = false
  ) {
    self.lock0 = lock0
    self.lock1 = lock1
    self.setBitsOnly = setBitsOnly
    let layout =
      ultralightC ? Self.ultralightCLayout : product.flatMap(Self.dynamicLayout) ?? declared
    let mayHave =
      layout != nil
      || product.map { ($0.userMemoryBytes ?? 49) > 48 } ?? (ccDataAreaSize.map { $0 > 48 } ?? true)
    dynamicUnknown =
      (dynamicBytes == nil || unknownDynamicBytes.contains { $0 < 2 }
        || setBitsOnly.contains { $0 == "LOCK2" || $0 == "LOCK3" }) && mayHave
    if let dynamicBytes, dynamicBytes.count >= 2, let layout {
      dynamic = Dynamic(
        page: layout.page, bytes: dynamicBytes, pagesPerBit: layout.pagesPerBit,
        lastUserPage: layout.lastUserPage,
        lockedRanges: ultralightC
          ? Self.ultralightCRanges(lock2: dynamicBytes[0])
          : Self.dynamicRanges(lock2: dynamicBytes[0], lock3: dynamicBytes[1], layout: layout),
        unknownBytes: unknownDynamicBytes)
    }
  }

  /// Pages 3…15 locked by the static lock bits: as a 16-bit value LOCK0 | LOCK1 << 8, bit n
  /// locks page n (nfc-facts §4.4). A byte not known locks nothing here.
  public var staticLockedPages: [Int] {
    let v = Int(lock0 ?? 0) | Int(lock1 ?? 0) << 8
    return (3...15).filter { v & (1 << $0) != 0 }
  }

  /// The block-lock bits set in LOCK0.
  public var blockLocks: [BlockLock] {
    guard let lock0 else { return [] }
    return BlockLock.allCases.filter { lock0 & $0.mask != 0 }
  }

  /// Every locked page, static and dynamic, ascending.
  public var lockedPages: [Int] {
    staticLockedPages + (dynamic?.lockedRanges.flatMap { Array($0) } ?? [])
  }

  /// Where the dynamic lock bytes of `product` are and how many pages a bit locks
  /// (nfc-facts §4.3/§4.4); nil for products without dynamic lock bits or not checked.
  public static func dynamicLayout(_ product: NTAGProduct)
    -> (page: Int, pagesPerBit: Int, lastUserPage: Int)?
  {
    let perBit: Int
    switch product {
    case .ntag212, .ntag213, .ntag213TT, .ntag213F, .ultralightEV1MF0UL21, .ultralightEV1MF0ULH21:
      perBit = 2
    // NTAG I2C (plus) 1K keeps NTAG216's map in sector 0: dynamic lock page E2h (NXP
    // NT3H1101 / NT3H2111 datasheets §8.3).
    case .ntag215, .ntag216, .ntag216F, .ntagI2C1K, .ntagI2CPlus1K: perBit = 16
    default: return nil
    }
    guard let user = product.userMemoryBytes else { return nil }
    return (4 + user / 4, perBit, 3 + user / 4)
  }

  /// MIFARE Ultralight C's lock bytes 2–3 at page 28h, 4 pages per bit over pages 16–39
  /// (NXP MF0ICU2 datasheet §7.5.3).
  public static let ultralightCLayout = (page: 0x28, pagesPerBit: 4, lastUserPage: 0x27)

  /// The bit of an Ultralight C's lock byte 2 that locks each 4-page group from page 16 on
  /// (bits 0 and 4 are block-locking bits; MF0ICU2 datasheet §7.5.3).
  static let ultralightCGroupBits = [1, 2, 3, 5, 6, 7]

  /// Ultralight C pages locked by lock byte 2: bits 1–3 lock pages 16–19, 20–23, 24–27, bits
  /// 5–7 pages 28–31, 32–35, 36–39; bits 0 and 4 are block-locking bits and lock no page (NXP
  /// MF0ICU2 datasheet §7.5.3). Lock byte 3 locks the counter and authentication pages (29h–
  /// 2Fh), no user page.
  static func ultralightCRanges(lock2: UInt8) -> [ClosedRange<Int>] {
    ultralightCGroupBits.enumerated().compactMap { group, bit in
      lock2 & (1 << bit) != 0 ? (16 + group * 4)...(19 + group * 4) : nil
    }
  }

  /// LOCK2 bit i and LOCK3 bit j (group 8 + j) lock `pagesPerBit` pages from page 16 on;
  /// groups past the last user page do not exist.
  static func dynamicRanges(
    lock2: UInt8, lock3: UInt8, layout: (page: Int, pagesPerBit: Int, lastUserPage: Int)
  ) -> [ClosedRange<Int>] {
    let bits = Int(lock2) | Int(lock3) << 8
    var out: [ClosedRange<Int>] = []
    for group in 0..<16 where bits & (1 << group) != 0 {
      let first = 16 + group * layout.pagesPerBit
      guard first <= layout.lastUserPage else { break }
      out.append(first...min(first + layout.pagesPerBit - 1, layout.lastUserPage))
    }
    return out
  }
}

extension Type2Locks {
  /// The dynamic lock bytes a Lock Control TLV in the data area of `image` declares (NFC Forum
  /// T2T 1.0 §2.3.1: position, number of bits, bytes locked per bit; nfc-facts §5.2), when they
  /// start on a page boundary past page 15 and a bit locks whole pages.
  public static func declaredArea(in image: ByteImage) -> Type2ReservedArea? {
    let run = image.knownRun(from: 16)
    guard !run.isEmpty else { return nil }
    let area = Type2TLVArea(layoutOf: run, baseAddress: 16)
    // A Control TLV after the NDEF TLV is one readers never see (T2T 1.0 §2.3).
    let ndefAt = area.ndef?.offset ?? Int.max
    return area.reservedAreas.first {
      $0.isLock && $0.declaredAt < ndefAt && $0.address % 4 == 0 && $0.address >= 64
        && ($0.bytesLockedPerBit ?? 0) >= 4 && ($0.bytesLockedPerBit ?? 0) % 4 == 0
    }
  }
}
