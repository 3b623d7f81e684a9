import NDEF

/// Where things are in a Type 2 tag's memory, from what the session knows: the product
/// (GET_VERSION), the CC, and the bytes read (lock bytes, CFG0).
///
/// Sources: nfc-facts §4.3 (memory maps: last page, user pages, dynamic lock page, CFG0 =
/// last page − 3 on NTAG21x and Ultralight EV1), §4.4 (static lock bits: bit n of
/// LOCK0 | LOCK1 << 8 locks page n for n = 3…15; LOCK2/LOCK3 bits lock 2 pages each on
/// NTAG212/213/MF0UL21, 16 on NTAG215/216), §4.5 (AUTH0 = CFG0 byte 3), §5.3 (CC2 × 8 = data
/// area size).
struct Type2Geometry {
  let tag: TagIdentity
  let memory: ByteImage
  /// The memory as the session found it (before its own writes).
  let memoryAtStart: ByteImage
  /// Bytes written and read back with the value written: address → first read-back frame.
  let readBack: [Int: Int]
  /// The session's first frame: bytes set by earlier frames were set in an earlier session.
  let sessionFirstFrame: Int

  init(_ s: SessionAnalysis) {
    tag = s.tag
    memory = s.memory.type2End
    memoryAtStart = s.memory.type2Start
    readBack = s.memory.type2ReadBack
    sessionFirstFrame = s.info.firstFrame
  }

  /// The product's last page, when identified.
  var lastPage: Int? { tag.lastPage }

  /// User memory in bytes, when identified.
  var userBytes: Int? { tag.ntagProduct?.userMemoryBytes }

  /// The CC (page 3) if read.
  var cc: Type2CapabilityContainer? {
    memory.known(12, 4).flatMap(Type2CapabilityContainer.init)
  }

  /// First page after the NDEF data area the CC declares.
  var dataAreaEndPage: Int? { cc.map { 4 + $0.dataAreaSize / 4 } }

  /// The dynamic lock page: after the user pages of products with more than 48 user bytes
  /// (identified), or, unidentified, after a CC data area of 128 or 144 bytes (NTAG212 /
  /// MF0UL21, NTAG213 / Ultralight C fill their user memory with the data area; NTAG215/216
  /// do not, nfc-facts §5.2 caution).
  var dynamicLockPage: Int? {
    if let user = userBytes { return user > 48 ? 4 + user / 4 : nil }
    // Declared by a Lock Control TLV: the dynamic lock page when it follows the data area
    // (lock bytes inside it are reserved bytes of the data area, not where it ends).
    if let area = lockControl {
      return area.address >= (dataAreaEndPage ?? 0) * 4 ? area.address / 4 : nil
    }
    guard let cc, cc.hasMagic else { return nil }
    // Another maker's tag (UID0 not NXP's 04h) takes T2T's default layout: the dynamic lock
    // bytes right after a data area larger than 48 bytes (nfc-facts §5.2).
    let foreign = tag.isOtherMakersUID
    guard cc.bytes[2] == 0x10 || cc.bytes[2] == 0x12 || (foreign && cc.dataAreaSize > 48)
    else { return nil }
    return 4 + cc.dataAreaSize / 4
  }

  /// Byte address of the dynamic lock bytes: on `dynamicLockPage`, or where a Lock Control
  /// TLV places them inside the data area (page-aligned, `Type2Locks.declaredArea`).
  var dynamicLockAddress: Int? { dynamicLockPage.map { $0 * 4 } ?? lockControl?.address }

  /// The dynamic lock bytes a Lock Control TLV in the data area declares (NFC Forum T2T 1.0
  /// §2.3.1: position, number of bits, bytes locked per bit; nfc-facts §5.2), when they start
  /// on a page boundary and a bit locks whole pages.
  var lockControl: Type2ReservedArea? { Type2Locks.declaredArea(in: memory) }

  /// CFG0 page (NTAG21x, Ultralight EV1): last page − 3.
  var cfg0Page: Int? {
    guard let last = lastPage, let p = tag.ntagProduct else { return nil }
    switch p {
    case .ntag210, .ntag212, .ntag213, .ntag215, .ntag216, .ntag213TT, .ntag213F, .ntag216F,
      .ultralightEV1MF0UL11, .ultralightEV1MF0ULH11, .ultralightEV1MF0UL21,
      .ultralightEV1MF0ULH21:
      return last - 3
    default: return nil
    }
  }

  /// Byte address of AUTH0 (first password-protected page): byte 0 of page 2Ah on an
  /// Ultralight C (MF0ICU2 datasheet §7.5.7), else CFG0 byte 3 (NTAG21x, Ultralight EV1).
  func auth0Address(ultralightC: Bool) -> Int? {
    ultralightC ? 0x2A * 4 : cfg0Page.map { $0 * 4 + 3 }
  }

  /// AUTH0 as it stood at `frame` (`byte(_:at:writes:)`), and the frame that showed it: an
  /// AUTH0 the session wrote after a refused WRITE did not protect the page then.
  func auth0(at frame: Int, writes: [SessionCommandLog.Command]) -> (value: Int, frame: Int?)? {
    auth0Address(ultralightC: tag.isUltralightC).flatMap { byte($0, at: frame, writes: writes) }
      .map { (Int($0.0), $0.1) }
  }

  /// The byte at `address` as it stood at `frame`, and the frame that showed it: the last
  /// value recorded before `frame`, or, when the session wrote nothing there before `frame`
  /// (`writes`: the session's commands), the value it found there, read before or after.
  func byte(_ address: Int, at frame: Int, writes: [SessionCommandLog.Command]) -> (
    UInt8, Int?
  )? {
    if let (b, from) = settled(address, 1, before: frame), let v = b.first { return (v, from) }
    let page = address / 4
    let written = writes.contains {
      $0.frame < frame && $0.frame >= sessionFirstFrame && $0.isWrite && !$0.isType4
        && (($0.page ?? $0.startPage ?? -1)...($0.endPage ?? $0.page ?? -1)).contains(page)
    }
    guard !written, let v = memoryAtStart.known(address, 1)?.first else { return nil }
    return (v, memoryAtStart.frame(address))
  }

  /// CFG1's ACCESS byte (bit 7 PROT, bit 6 CFGLCK, bit 4 NFC_CNT_EN, bit 3 NFC_CNT_PWD_PROT,
  /// bits 2–0 AUTHLIM; NTAG213/215/216 datasheet §8.5.7) if CFG1 is known in `memory`:
  /// (value, frame that read or wrote it).
  var access: (value: UInt8, frame: Int?)? {
    guard let cfg0Page, let b = memory.known((cfg0Page + 1) * 4, 1)?.first else { return nil }
    return (b, memory.frame((cfg0Page + 1) * 4))
  }

  /// PROT (CFG1 ACCESS bit 7: reads protected too, not only writes; NTAG213/215/216
  /// datasheet §8.8.3) if CFG1 was read: (value, frame).
  var prot: (value: Bool, frame: Int?)? { access.map { ($0.value & 0x80 != 0, $0.frame) } }

  /// Whether page `p` is locked by a static lock bit, if page 2 was read: (locked, frame).
  func staticLock(_ p: Int, before frame: Int? = nil) -> (locked: Bool, frame: Int?)? {
    // Page p's bit is bit p of LOCK0 | LOCK1 << 8: only its own byte need be known (a WRITE
    // of page 2 may leave the other unknown, `Type2Procedure.stored`).
    guard (3...15).contains(p), let (lock, from) = settled(10 + p / 8, 1, before: frame) else {
      return nil
    }
    return lockBit(lock[0], p % 8, address: 10 + p / 8, before: frame, from: from)
  }

  /// Bit `bit` of lock byte `value` (at `address`): set is certain; clear only when the byte
  /// was read, or written over a value known before. Lock bits are one-time programmable
  /// (NTAG213/215/216 datasheet §8.5.2–8.5.3): a WRITE over an unread byte sets its bits, and
  /// the others keep what they had, which the trace does not show.
  private func lockBit(_ value: UInt8, _ bit: Int, address: Int, before frame: Int?, from: Int?)
    -> (locked: Bool, frame: Int?)?
  {
    if value & (1 << bit) != 0 { return (true, from) }
    // Read back after the WRITE (by `frame`): the value is read, not inferred.
    if let read = readBack[address], frame.map({ read <= $0 }) ?? true {
      return (false, from)
    }
    let writtenOverUnknown =
      memory.state(address) == .written && memoryAtStart.known(address, 1) == nil
      && (frame.map { (memory.frame(address) ?? 0) <= $0 } ?? true)
    return writtenOverUnknown ? nil : (false, from)
  }

  /// Pages per dynamic lock bit (NTAG212/213, MF0UL21: 2; NTAG215/216: 16), from the one
  /// per-product table, `Type2Locks.dynamicLayout`.
  var pagesPerDynamicBit: Int? {
    // Ultralight C: 4 pages per bit, with block-locking bits between (`ultralightCLock`).
    if tag.isUltralightC { return Type2Locks.ultralightCLayout.pagesPerBit }
    if let product = tag.ntagProduct {
      return Type2Locks.dynamicLayout(product)?.pagesPerBit
    }
    if let area = lockControl { return area.bytesLockedPerBit.map { $0 / 4 } }
    // T2T's default layout: 8 bytes (2 pages) per bit (nfc-facts §5.2).
    return dynamicLockPage == nil ? nil : 2
  }

  /// Whether page `p` (16 and up) is locked by a LOCK2/LOCK3 bit, if the lock page was read.
  func dynamicLock(_ p: Int, before frame: Int? = nil) -> (locked: Bool, frame: Int?)? {
    if tag.isUltralightC { return ultralightCLock(p, before: frame) }
    guard p >= 16, let per = pagesPerDynamicBit else { return nil }
    let address: Int
    if let page = dynamicLockPage {
      guard p < page else { return nil }
      address = page * 4
    } else if let area = lockControl, let end = dataAreaEndPage, p < end {
      // Lock bytes a Lock Control TLV places inside the data area (reserved bytes there).
      address = area.address
    } else {
      return nil
    }
    let bit = (p - 16) / per
    // LOCK2 bit i or LOCK3 bit i − 8: only that byte need be known (a writeLock's WRITE of a
    // lock page never read leaves a byte it wrote 00 unknown, its bits may be set).
    guard bit < 16, let (lock, from) = settled(address + bit / 8, 1, before: frame) else {
      return nil
    }
    return lockBit(lock[0], bit % 8, address: address + bit / 8, before: frame, from: from)
  }

  /// Whether Ultralight C page `p` (16–39) is locked by its lock byte 2 (page 28h byte 0):
  /// bits 1–3 lock pages 16–19, 20–23, 24–27 and bits 5–7 pages 28–31, 32–35, 36–39; bits 0
  /// and 4 are block-locking bits, which lock no page (NXP MF0ICU2 datasheet §7.5.3).
  private func ultralightCLock(_ p: Int, before frame: Int?) -> (locked: Bool, frame: Int?)? {
    let address = Type2Locks.ultralightCLayout.page * 4
    guard let bit = dynamicLockBit(p), let (lock, from) = settled(address, 1, before: frame)
    else { return nil }
    return lockBit(lock[0], bit, address: address, before: frame, from: from)
  }

  /// The bit of LOCK2 | LOCK3 << 8 that locks page `p` (16 and up): `(p − 16) / pagesPerBit`,
  /// or on an Ultralight C the bit of its 4-page group past the block-locking bits 0 and 4.
  func dynamicLockBit(_ p: Int) -> Int? {
    guard p >= 16, let per = pagesPerDynamicBit else { return nil }
    let group = (p - 16) / per
    guard tag.isUltralightC else { return group }
    let bits = Type2Locks.ultralightCGroupBits
    return group < bits.count ? bits[group] : nil
  }

  /// Whether data-area page `p` is locked, by a static lock bit (pages 3–15) or a LOCK2/LOCK3
  /// bit (16 and up), if the lock bytes concerned were read or written; nil when unknown.
  func pageLocked(_ p: Int) -> Bool? {
    p <= 15 ? staticLock(p)?.locked : dynamicLock(p)?.locked
  }

  /// The bytes at `offset..<offset+count` when each is known from a read or an acknowledged
  /// write: a lock byte written without acknowledgement may or may not be programmed.
  ///
  /// With `before` (a frame), the bytes as they were then: bytes the session set later (a
  /// writeLock after a refused write) are taken from the session's start image when it knew
  /// them before that frame, else unknown. Also returns the frame that showed them.
  private func settled(_ offset: Int, _ count: Int, before: Int? = nil) -> ([UInt8], Int?)? {
    let range = offset..<(offset + count)
    if let before, range.contains(where: { (memory.frame($0) ?? 0) > before }) {
      guard range.allSatisfy({ (memoryAtStart.frame($0) ?? Int.max) < before }),
        let bytes = memoryAtStart.known(offset, count)
      else { return nil }
      return (bytes, memoryAtStart.frame(offset))
    }
    if range.contains(where: { memory.state($0) == .unacknowledged }) { return nil }
    return memory.known(offset, count).map { ($0, memory.frame(offset)) }
  }

  /// `40 (0x28)`; a page past sector 0 (NTAG I2C, numbered sector × 256 + page) as the tag
  /// numbers it, `16 (0x10) in sector 1`, as the timeline and the report's map do.
  static func page(_ p: Int) -> String {
    let inSector = p % 256
    let text = "\(inSector) (0x\(String(inSector, radix: 16, uppercase: true)))"
    return p >= 256 ? text + " in sector \(p / 256)" : text
  }
}

/// `4–5, 7, 9–11` for a list of integers (sorted, repeats dropped); empty for none.
public func rangesText(_ values: [Int]) -> String {
  var parts: [String] = []
  var i = 0
  let v = Array(Set(values)).sorted()
  while i < v.count {
    var j = i
    while j + 1 < v.count && v[j + 1] == v[j] + 1 { j += 1 }
    parts.append(i == j ? "\(v[i])" : "\(v[i])–\(v[j])")
    i = j + 1
  }
  return parts.joined(separator: ", ")
}

/// `1 byte`, `20 bytes`.
func bytesText(_ n: Int) -> String { n == 1 ? "1 byte" : "\(n) bytes" }
