import NDEF

/// One view of a tag's contents (as found at the start of a session, or as left at its end):
/// the CC, lock bits, configuration pages, TLVs and the NDEF message, decoded from the memory
/// image as far as its bytes are known, with what could not be known said in `unknowns`.
public struct TagContents: Sendable {
  /// The NDEF message of this view.
  public enum Message: Sendable {
    /// Not known from the bytes seen; the text says what is missing.
    case unknown(String)
    /// The tag holds no NDEF message area (not NDEF formatted, no NDEF TLV); the text says why.
    case absent(String)
    /// An NDEF TLV of length 0 (Type 2 `03 00`) or NLEN 0 (Type 4): initialized, no message.
    case empty
    /// The length is known but only `known` of its `length` bytes were read.
    case incomplete(length: Int, known: Int)
    /// Type 2: the NDEF TLV announces `length` bytes but the data area (CC) holds only
    /// `available` after its length field; readers reject such a tag (T2T 1.0 §2.3).
    case pastDataArea(length: Int, available: Int)
    /// The message, decoded and validated (Type 2 offsets are tag byte addresses; Type 4
    /// offsets are NDEF file offsets).
    case decoded(NDEFReport)
  }

  /// The Type 2 CC (page 3), when known.
  public var type2CC: Type2CapabilityContainer?
  /// The Type 4 CC (file E103), when read and valid.
  public var type4CC: CapabilityContainer4?
  /// Why the Type 4 CC bytes read are not a valid CC.
  public var type4CCError: String?
  /// True when that error is only that the CC was read in part (fewer bytes than CCLEN).
  public var type4CCIncomplete = false
  /// The lock bits, when page 2 is known (Type 2).
  public var locks: Type2Locks?
  /// True when the static lock bytes (page 2 bytes 2–3) are unknown because a WRITE of them
  /// got no acknowledgement, not because page 2 was never read.
  public var staticLocksUnacknowledged = false
  /// The configuration pages of an identified NTAG21x / Ultralight EV1 (values nil when not
  /// read).
  public var config: Type2Configuration?
  /// A MIFARE Ultralight C's AUTH0/AUTH1 (nil on other tags, or when neither was read).
  public var ultralightCAuth: UltralightCAuthentication?
  /// The Type 2 TLV area parsed from byte 16 to the end of the data area (TLV offsets inside it
  /// are from byte 16: tag byte address = 16 + offset); the Type 5 TLV area from the byte
  /// after the CC (tag byte address = `baseAddress` + offset).
  public var tlvArea: Type2TLVArea?
  /// The TLV area's findings that stand (offsets are tag byte addresses); a truncation caused
  /// only by bytes not read is left out.
  public var tlvFindings: [NDEFFinding] = []
  /// The Type 3 Attribute Information Block (block 0), when read.
  public var type3AIB: Type3AttributeBlock?
  /// The Type 5 CC (block 0), when read and valid.
  public var type5CC: Type5CapabilityContainer?
  /// Bytes per Type 5 block (nil on other tags, or when no READ or WRITE told it).
  public var type5BlockSize: Int?
  /// Type 4 NLEN (or ENLEN), or Type 3 Ln, when read.
  public var nlen: Int?
  /// The NDEF message.
  public var message: Message = .unknown("nothing read")
  /// What this view cannot tell, in words.
  public var unknowns: [String] = []
  /// Type 2: why the message shown is not the tag's readable NDEF (a CC3 read access other
  /// than 0h, NFC Forum T2T 1.0 §6.1); nil when it is.
  public var unreadableReason: String?
  /// The NDEF status and capacity the CC implies (Core NFC `queryNDEFStatus` rules).
  public var status: (status: NDEFStatus, capacity: Int?, reason: String?)?

  /// The unit TLV addresses are shown in: Type 5 blocks, else Type 2 pages of 4 bytes.
  public var tlvUnit: (name: String, size: Int) {
    type5CC != nil ? ("block", type5BlockSize ?? 4) : ("page", 4)
  }

  /// Decodes `type2` (Type 2 layout), `files` (Type 4 layout), `type3` (Type 3 layout: the
  /// NDEF service's blocks) or `type5` (Type 5 layout: the blocks from block 0, of
  /// `type5BlockSize` bytes; `type5MemorySize`, the tag's memory, caps the T5T area) of tag
  /// `tag`. `type2Start`, for a view of the end of a session, is the Type 2 image as found at
  /// its start: a lock byte written over a value it does not know, and not read back since
  /// (`type2ReadBack`, `TagMemory.type2ReadBack`), is known by its set bits only
  /// (`Type2Locks.setBitsOnly`).
  public init(
    layout: TagReport.Layout, type2: ByteImage, files: [UInt16: ByteImage], tag: TagIdentity,
    type3: ByteImage = ByteImage(), type5: ByteImage = ByteImage(), type5BlockSize: Int? = nil,
    type5MemorySize: Int? = nil, type2Start: ByteImage? = nil, type2ReadBack: [Int: Int] = [:]
  ) {
    if layout == .type5 { self.type5BlockSize = type5BlockSize }
    if tag.isMIFAREClassic, layout == .type2 || layout == .none {
      // No CC, lock pages or GET_VERSION: its NDEF is found through the MAD (NXP AN10787,
      // NFC Forum MIFARE Classic mapping), which is not decoded.
      message = .unknown(Self.classicNotDecoded)
      unknowns.append("MIFARE Classic blocks, MAD and NDEF sectors not decoded")
      return
    }
    switch layout {
    case .type2: decodeType2(type2, tag: tag, start: type2Start.map { ($0, type2ReadBack) })
    case .type4: decodeType4(files)
    case .type3: decodeType3(type3)
    case .type5: decodeType5(type5, memorySize: type5MemorySize)
    case .none:
      message = .unknown("no Type 2, 3, 4 or 5 memory in this session: nothing to decode")
    }
  }

  /// Why a MIFARE Classic's NDEF is unknown.
  static let classicNotDecoded =
    "MIFARE Classic memory and its NDEF (found through the MAD) are not decoded"

  // MARK: Type 2

  private mutating func decodeType2(
    _ image: ByteImage, tag: TagIdentity, start: (image: ByteImage, readBack: [Int: Int])?
  ) {
    decodeLocks(
      image, product: tag.ntagProduct, versionAnswered: tag.version != nil,
      ultralightC: tag.isUltralightC, start: start)
    decodeConfig(image, product: tag.ntagProduct)
    if tag.ntagProduct == nil, tag.isUltralightC { decodeUltralightCAuth(image) }
    guard let cc = image.known(12, 4).flatMap(Type2CapabilityContainer.init) else {
      let read = image.knownRun(from: 16).count / 4
      message = .unknown(
        "CC (page 3) not read: NDEF status, TLVs and message unknown"
          + (read > 0 ? " (pages 4–\(3 + read) known, not interpreted as TLVs)" : ""))
      unknowns.append("CC (page 3) not read")
      return
    }
    type2CC = cc
    // A read access other than 0h leaves an NDEF-formatted CC that grants no read access (NFC
    // Forum T2T 1.0 §6.1): the TLVs and message are shown as data, not as readable NDEF.
    guard cc.hasMagic, cc.version.major == 1 else {
      status = (.notSupported, nil, cc.statusReason)
      message = .absent("not NDEF formatted: \(cc.statusReason)")
      return
    }
    let user = Self.userMemory(tag)
    decodeTLVs(image, cc: cc, userBytes: user)
    let s = cc.ndefStatus(
      area: tlvArea, knownBytes: image.knownRun(from: 16).count, userBytes: user)
    status = (s.status, s.capacity, s.reason)
    var ccFindings: [NDEFFinding] = []
    if cc.readAccess != 0 {
      unreadableReason = cc.readAccessReason
      ccFindings.append(
        NDEFFinding(
          code: "t2t-read-access-restricted", severity: .warning, offset: 15,
          message: "CC3 = \(Hex.string([cc.bytes[3]])): \(cc.readAccessReason); NDEF status "
            + "notSupported (Core NFC's queryNDEFStatus; nfcpy reads no NDEF, Android's detection "
            + "needs CC3 00h or 0Fh): the message below is the data area's bytes, not NDEF a "
            + "reader reads"))
    }
    if let user, cc.dataAreaSize > user, let name = Self.productName(tag) {
      ccFindings.append(
        NDEFFinding(
          code: "t2t-cc-exceeds-memory", severity: .warning, offset: 14,
          message: "CC2 = \(Hex.string([cc.bytes[2]])) declares a \(cc.dataAreaSize)-byte data "
            + "area, but the \(name) has \(user) bytes of user memory (pages 4–\(3 + user / 4); "
            + "NXP datasheet memory map): the data area is taken to end there, and the lock and "
            + "configuration pages after it are no NDEF data: counted from the CC, as "
            + "queryNDEFStatus counts it, the capacity is \(Type2Capacity.bytes(cc: cc, area: tlvArea)) "
            + "bytes (nfcpy's and Android's rule), the user memory holds a message of at most "
            + "\(Type2Capacity.bytes(cc: cc, area: tlvArea, userBytes: user)) bytes"))
    }
    if let user, cc.dataAreaSize > user, let area = tlvArea, let end = area.ndefValueEndAddress,
      let ndef = area.ndef, end > 16 + user
    {
      ccFindings.append(
        NDEFFinding(
          code: "ndef-past-user-memory", severity: .error, offset: 16 + ndef.offset,
          message: "the NDEF Message TLV announces \(ndef.length) bytes, which run to tag byte "
            + "\(end - 1), past the user memory (it ends at byte \(15 + user), page "
            + "\(3 + user / 4)) into the lock and configuration pages: those bytes are no message "
            + "bytes; not decoded"))
    }
    tlvFindings = ccFindings + tlvFindings
  }

  /// The identified product's user memory in bytes (NXP datasheets' memory maps, nfc-facts
  /// §4.3; MIFARE Ultralight C: 144, MF0ICU2 §7.5), nil when not identified.
  static func userMemory(_ tag: TagIdentity) -> Int? {
    if let p = tag.ntagProduct { return p.userMemoryBytes }
    return tag.isUltralightC ? 144 : nil
  }

  static func productName(_ tag: TagIdentity) -> String? {
    tag.ntagProduct?.displayName ?? (tag.isUltralightC ? "MIFARE Ultralight C" : nil)
  }

  private mutating func decodeLocks(
    _ image: ByteImage, product: NTAGProduct?, versionAnswered: Bool, ultralightC: Bool,
    start: (image: ByteImage, readBack: [Int: Int])?
  ) {
    // LOCK0 and LOCK1 (page 2 bytes 2–3), each known or not (a write to an unread page 2 may
    // leave one unknown, `Type2Procedure.stored`).
    let lock0 = Self.settled(image, 10, 1)?.first
    let lock1 = Self.settled(image, 11, 1)?.first
    if lock0 == nil || lock1 == nil {
      staticLocksUnacknowledged = Self.unacknowledged(image, 10, 2)
      if !staticLocksUnacknowledged, lock0 != nil || lock1 != nil {
        // One byte set by a WRITE of the unread page, the other written 00 over it.
        unknowns.append(
          "lock byte \(lock0 == nil ? "LOCK0" : "LOCK1") (page 2) not known (written 00 over a "
            + "value never read: its bits may be set)")
      } else {
        unknowns.append(
          staticLocksUnacknowledged
            ? "lock bytes (page 2) written without acknowledgement: whether their bits are set "
              + "is unknown" : "lock bytes (page 2) not read")
      }
    }
    var dynamic: [UInt8]?
    var unknownDynamic: [Int] = []
    // An Ultralight C's lock bytes are where its datasheet puts them, whatever a Lock Control
    // TLV declares (its bits are not the uniform groups a TLV describes).
    let declared =
      ultralightC
      ? Type2Locks.ultralightCLayout
      : product.flatMap(Type2Locks.dynamicLayout) == nil ? Self.declaredLocks(image) : nil
    if let layout = product.flatMap(Type2Locks.dynamicLayout) ?? declared {
      // A Lock Control TLV's lock bits fill its bytes, and no LOCK4 follows them (16 bits on
      // an NFC-formatted Ultralight C: LOCK2 and LOCK3 of page 28h).
      let size =
        ultralightC
        ? 2
        : declared == nil ? 3 : min(3, max(2, Type2Locks.declaredArea(in: image)?.size ?? 3))
      // LOCK2 and LOCK3 alone when LOCK4 is unknown (a writeLock's WRITE of a page never
      // read: the bits it set are known, the block-lock byte it left 00 is not).
      dynamic =
        Self.settled(image, layout.page * 4, size) ?? Self.settled(image, layout.page * 4, 2)
      if dynamic == nil, let partial = Self.settledBytes(image, layout.page * 4, size) {
        // One of LOCK2/LOCK3 known (a WRITE that set bits in one and wrote 00 over the other,
        // never read): the bits set are certain, the other byte's are not.
        dynamic = partial.map { $0 ?? 0 }
        unknownDynamic = partial.indices.filter { partial[$0] == nil }
        let names = unknownDynamic.map { "LOCK\($0 + 2)" }.joined(separator: ", ")
        unknowns.append(
          "dynamic lock page \(layout.page): \(names) not known (written 00 over a value never "
            + "read: its bits may be set), so more pages may be locked than listed")
      } else if let known = dynamic, known.count == 2, size == 3 {
        unknowns.append("dynamic lock page \(layout.page) byte 2 (LOCK4) not known")
        // Shown as `??` (docs/json.md `locks.dynamic.bytes`), like a LOCK2/LOCK3 not known.
        dynamic = known + [0]
        unknownDynamic = [2]
      } else if dynamic == nil {
        unknowns.append(
          Self.unacknowledged(image, layout.page * 4, size)
            ? "dynamic lock page \(layout.page) written without acknowledgement: whether its "
              + "bits are set is unknown" : "dynamic lock page \(layout.page) not read")
      }
    } else if product == nil, let size = Self.smallDataArea(image) {
      // No dynamic lock bits after a data area of 48 bytes or less (Type2Locks.init).
      unknowns.append(
        (versionAnswered
          ? "product not identified (GET_VERSION answer not in the product table)"
          : "product not identified (no GET_VERSION)")
          + "; its \(size)-byte data area has no dynamic lock bits")
    } else if product == nil {
      unknowns.append(
        versionAnswered
          ? "product not identified (GET_VERSION answer not in the product table): dynamic lock "
            + "bytes not located"
          : "product not identified (no GET_VERSION): dynamic lock bytes not located")
    } else if (product?.userMemoryBytes ?? 0) > 48 {
      unknowns.append("dynamic lock bytes of this product not located")
    }
    // The dynamic lock bytes say what they lock even when page 2 was not read.
    guard lock0 != nil || lock1 != nil || dynamic != nil else { return }
    let lockPage = (product.flatMap(Type2Locks.dynamicLayout) ?? declared)?.page
    let setOnly = Self.setBitsOnly(
      image, start: start, dynamicPage: dynamic == nil ? nil : lockPage)
    for (name, address) in setOnly {
      unknowns.append(
        "lock byte \(name) (page \(address / 4)) written \(Hex.string(image.known(address, 1) ?? [])) "
          + "over a value never read: only the bits it set are known, so more pages may be "
          + "locked than listed")
    }
    locks = Type2Locks(
      lock0: lock0, lock1: lock1, dynamicBytes: dynamic, product: product,
      declared: declared, ccDataAreaSize: ultralightC ? nil : Self.smallDataArea(image),
      unknownDynamicBytes: unknownDynamic, setBitsOnly: setOnly.map(\.name),
      ultralightC: ultralightC)
  }

  /// The lock bytes (LOCK0/LOCK1 at bytes 10–11, LOCK2–LOCK4 at the dynamic lock page) that an
  /// acknowledged WRITE set over a value `start` does not know, not read back since: lock
  /// bits are OR'ed into what is there (`Type2Procedure.stored`), so only the set bits are
  /// certain (a byte of FF has no other). None without a start image (a dump).
  private static func setBitsOnly(
    _ image: ByteImage, start: (image: ByteImage, readBack: [Int: Int])?, dynamicPage: Int?
  ) -> [(name: String, address: Int)] {
    guard let start else { return [] }
    let dynamic = dynamicPage.map { p in (0..<3).map { ("LOCK\($0 + 2)", p * 4 + $0) } } ?? []
    return ([("LOCK0", 10), ("LOCK1", 11)] + dynamic).filter { _, a in
      let value = image.known(a, 1)?.first ?? 0
      return image.state(a) == .written && start.image.known(a, 1) == nil
        && start.readBack[a] == nil && value != 0 && value != 0xFF
    }
  }

  /// The data area size a CC with NDEF magic declares (CC2 × 8) when it is 48 bytes or less:
  /// such an area has no dynamic lock bits (NFC Forum T2T 1.0 §2.3.1; nfc-facts §5.2).
  private static func smallDataArea(_ image: ByteImage) -> Int? {
    guard let cc = image.known(12, 4).flatMap(Type2CapabilityContainer.init), cc.hasMagic,
      cc.dataAreaSize <= 48
    else { return nil }
    return cc.dataAreaSize
  }

  /// The bytes at `offset..<offset+count` when each is known from a read or an acknowledged
  /// write: a lock byte written without an acknowledgement (the tag left, or refused it) may or
  /// may not have been programmed.
  private static func settled(_ image: ByteImage, _ offset: Int, _ count: Int) -> [UInt8]? {
    unacknowledged(image, offset, count) ? nil : image.known(offset, count)
  }

  /// Each of the `count` bytes at `offset` that is settled (`settled`), nil for the others;
  /// nil when LOCK2 and LOCK3 (the first two) are both unknown.
  private static func settledBytes(_ image: ByteImage, _ offset: Int, _ count: Int) -> [UInt8?]? {
    let bytes = (offset..<(offset + count)).map { settled(image, $0, 1)?.first }
    return bytes.prefix(2).allSatisfy { $0 == nil } ? nil : bytes
  }

  private static func unacknowledged(_ image: ByteImage, _ offset: Int, _ count: Int) -> Bool {
    (offset..<(offset + count)).contains { image.state($0) == .unacknowledged }
  }

  /// The dynamic lock layout a Lock Control TLV of the data area declares (NFC Forum T2T 1.0
  /// §2.3.1): its page, pages per lock bit, and the last user page (the CC's data area end).
  private static func declaredLocks(_ image: ByteImage) -> (
    page: Int, pagesPerBit: Int, lastUserPage: Int
  )? {
    guard let cc = image.known(12, 4).flatMap(Type2CapabilityContainer.init),
      let area = Type2Locks.declaredArea(in: image), let perBit = area.bytesLockedPerBit
    else { return nil }
    return (area.address / 4, perBit / 4, 3 + cc.dataAreaSize / 4)
  }

  private mutating func decodeUltralightCAuth(_ image: ByteImage) {
    let auth = UltralightCAuthentication(
      auth0: image.known(UltralightCAuthentication.auth0Page * 4, 1)?.first,
      auth1: image.known(UltralightCAuthentication.auth1Page * 4, 1)?.first)
    if auth.auth0 == nil || auth.auth1 == nil {
      let missing = [
        auth.auth0 == nil ? "AUTH0 (page 42)" : nil, auth.auth1 == nil ? "AUTH1 (page 43)" : nil,
      ]
      unknowns.append(
        "MIFARE Ultralight C " + missing.compactMap { $0 }.joined(separator: " and ") + " not read")
    }
    if auth.auth0 != nil || auth.auth1 != nil { ultralightCAuth = auth }
  }

  private mutating func decodeConfig(_ image: ByteImage, product: NTAGProduct?) {
    guard let product, var c = Type2Configuration(product: product) else { return }
    c.cfg0 = image.known(c.cfg0Page * 4, 4)
    c.cfg1 = image.known(c.cfg1Page * 4, 4)
    c.pwd = image.known(c.pwdPage * 4, 4)
    c.pack = image.known(c.packPage * 4, 2)
    switch (c.cfg0 == nil, c.cfg1 == nil) {
    case (true, true): unknowns.append("configuration pages \(c.cfg0Page)–\(c.cfg1Page) not read")
    case (true, false): unknowns.append("configuration page \(c.cfg0Page) (CFG0) not read")
    case (false, true): unknowns.append("configuration page \(c.cfg1Page) (CFG1) not read")
    case (false, false): break
    }
    config = c
  }

  private mutating func decodeTLVs(
    _ image: ByteImage, cc: Type2CapabilityContainer, userBytes: Int?
  ) {
    // A CC declaring more than the product's user memory is capped to it: the lock and
    // configuration pages after the user memory are no TLVs (NXP datasheet memory maps).
    let size = min(cc.dataAreaSize, userBytes ?? Int.max)
    let run = image.knownRun(from: 16)
    guard !run.isEmpty else {
      message = .unknown("data area (page 4 on) not read: TLVs and NDEF message unknown")
      unknowns.append("data area not read")
      return
    }
    let complete = run.count >= size
    let area = Type2TLVArea(parsing: Array(run.prefix(size)), baseAddress: 16)
    tlvArea = area
    tlvFindings = area.findings.compactMap { f in
      if !complete && (f.code == "tlv-length-past-end" || f.code == "ndef-tlv-missing") {
        return nil
      }
      return NDEFFinding(
        code: f.code, severity: f.severity, offset: 16 + f.offset, message: f.message,
        readersShow: f.readersShow, fix: f.fix)
    }
    if !complete { unknowns.append("data area known up to page \(3 + run.count / 4) only") }
    message = Self.type2Message(area, complete: complete, readBytes: run.count)
  }

  /// The message of a TLV area's first NDEF Message TLV (Type 2's data area, `areaName` and
  /// `readFrom` naming it; Type 5's T5T area), nil when the TLV is whole and its bytes are
  /// to be decoded.
  private static func tlvMessage(
    _ area: Type2TLVArea, complete: Bool, readBytes: Int, areaName: String, readFrom: String
  ) -> Message? {
    guard let tlv = area.ndef else {
      return complete
        ? .absent("no NDEF Message TLV in the \(areaName)")
        : .unknown(
          "no NDEF TLV in the \(readBytes) bytes read \(readFrom); the rest of the \(areaName) "
            + "was not read")
    }
    if tlv.length == 0 { return .empty }
    guard tlv.value.count < tlv.length else { return nil }
    return complete
      ? .pastDataArea(length: tlv.length, available: tlv.value.count)
      : .incomplete(length: tlv.length, known: tlv.value.count)
  }

  private static func type2Message(_ area: Type2TLVArea, complete: Bool, readBytes: Int) -> Message
  {
    if let m = tlvMessage(
      area, complete: complete, readBytes: readBytes, areaName: "data area",
      readFrom: "from page 4")
    {
      return m
    }
    guard let tlv = area.ndef else { return .unknown("no NDEF TLV") }
    // Offsets are tag byte addresses: the value runs around lock and reserved bytes (NFC
    // Forum T2T 1.0 §2.3.1, §2.3.2), so message offsets map through the TLV walk's runs.
    guard let map = area.ndefAddressMap else {
      return .decoded(NDEFValidator.validate(tlv.value, mode: .relax, base: 16 + tlv.valueOffset))
    }
    return .decoded(NDEFValidator.validate(tlv.value, mode: .relax, at: map))
  }

  // MARK: Type 3

  /// The Attribute Information Block, the status it gives and the Ln-byte message from block 1
  /// (NFC Forum T3T 1.0 §7.1–§7.2).
  private mutating func decodeType3(_ image: ByteImage) {
    guard let aib = image.known(0, 16).flatMap({ Type3AttributeBlock(parsing: $0) }) else {
      message = .unknown(
        "Attribute Information Block (block 0) not read: NDEF status and message unknown")
      unknowns.append("Attribute Information Block (block 0) not read")
      return
    }
    type3AIB = aib
    let s = aib.ndefStatus
    status = (s.status, s.capacity, s.reason)
    if let why = aib.invalidReason {
      message = .absent("not NDEF formatted: \(why)")
      return
    }
    nlen = aib.ln
    if aib.writeInProgress {
      unknowns.append(
        "WriteF is ON: a write began and did not end, so the message may be partly written")
    }
    if aib.ln == 0 {
      message = .empty
    } else if aib.ln > aib.capacity {
      message = .pastDataArea(length: aib.ln, available: aib.capacity)
    } else if let bytes = image.known(16, aib.ln) {
      message = .decoded(NDEFValidator.validate(bytes, mode: .relax, base: 16))
    } else {
      let known = min(image.knownRun(from: 16).count, aib.ln)
      message = .incomplete(length: aib.ln, known: known)
      unknowns.append(
        "NDEF data (from block 1): \(aib.ln)-byte message, \(known) known (read or written)")
    }
  }

  // MARK: Type 5

  /// The CC, the status it gives (`Type5CapabilityContainer.ndefStatus`), the TLV area after
  /// it and the NDEF message of its first NDEF Message TLV (NFC Forum T5T 1.0, CC and TLV area; the
  /// TLVs are Type 2's), the area cut at its end (`Type5CapabilityContainer.areaEnd`).
  private mutating func decodeType5(_ image: ByteImage, memorySize: Int?) {
    let run = image.knownRun(from: 0)
    guard run.count >= 4 else {
      message = .unknown("CC (block 0) not read: NDEF status, TLVs and message unknown")
      unknowns.append("CC (block 0) not read")
      return
    }
    if run[0] == 0xE1 || run[0] == 0xE2, run[2] == 0, run.count < 8 {
      message = .unknown(
        "8-byte CC: bytes 4–7 (MLEN) not read: NDEF status, TLVs and message unknown")
      unknowns.append("8-byte CC's bytes 4–7 not read")
      return
    }
    guard let cc = Type5CapabilityContainer(run.prefix(8)) else {
      let head = Hex.string(Array(run.prefix(4)), separator: " ").uppercased()
      let why = "block 0 starts \(head), not the Type 5 CC's magic number E1h or E2h"
      status = (.notSupported, nil, why)
      message = .absent("not NDEF formatted: \(why)")
      return
    }
    type5CC = cc
    let (area, known) = cc.tlvArea(image, memorySize: memorySize, findings: true)
    let s = cc.ndefStatus(area: area, known: known, memorySize: memorySize)
    status = (s.status, s.capacity, s.reason)
    guard known > 0 else {
      message = .unknown("TLV area (after the CC) not read: TLVs and message unknown")
      unknowns.append("TLV area not read")
      return
    }
    let end = cc.areaEnd(memorySize: memorySize)
    let complete = cc.length + known >= end
    tlvArea = area
    tlvFindings = area.findings.compactMap { f in
      if !complete && (f.code == "tlv-length-past-end" || f.code == "ndef-tlv-missing") {
        return nil
      }
      // The TLV rules are Type 2's (T5T 1.0 takes them over); the text names Type 5's.
      let text = f.message.replacingOccurrences(
        of: "NFC Forum T2T 1.0 §2.3", with: "NFC Forum T5T 1.0"
      )
      .replacingOccurrences(of: "NFC Forum T2T 1.0 §2.4", with: "NFC Forum T5T 1.0")
      .replacingOccurrences(of: "data area", with: "T5T area")
      return NDEFFinding(
        code: f.code, severity: f.severity, offset: cc.length + f.offset, message: text,
        readersShow: f.readersShow, fix: f.fix)
    }
    if !complete { unknowns.append("T5T area known up to byte \(cc.length + known - 1) only") }
    message = Self.type5Message(area, complete: complete, readBytes: known)
    if let tlv = area.ndef { nlen = tlv.length }
    if case .absent = message, s.status != .notSupported {
      status = (.notSupported, nil, s.reason)
    }
  }

  private static func type5Message(_ area: Type2TLVArea, complete: Bool, readBytes: Int) -> Message
  {
    if let m = tlvMessage(
      area, complete: complete, readBytes: readBytes, areaName: "T5T area",
      readFrom: "after the CC")
    {
      return m
    }
    guard let tlv = area.ndef else { return .unknown("no NDEF TLV") }
    return .decoded(
      NDEFValidator.validate(tlv.value, mode: .relax, base: area.baseAddress + tlv.valueOffset))
  }

  // MARK: Type 4

  private mutating func decodeType4(_ files: [UInt16: ByteImage]) {
    let ccBytes = files[0xE103]?.knownRun(from: 0) ?? []
    guard !ccBytes.isEmpty else {
      // NLEN of file E104 known without the CC (a trace that starts after the CC was read, an
      // NTAG 424 DNA's fixed NDEF file written and read with WriteData / ReadData, NT4H2421Gx
      // §8.2): the message is decoded from it, as `Type4Procedure` takes E104 then; the
      // status stays unknown.
      if let file = files[0xE104], file.knownBigEndian(0, 2) != nil {
        unknowns.append("CC file E103 not read")
        let control = CapabilityContainer4.FileControl(
          tlvType: 0x04, fileID: 0xE104, maxSize: 0, readAccess: 0, writeAccess: 0)
        decodeNDEFFile(file, control: control)
        return
      }
      message = .unknown("CC file E103 not read: NDEF status, NDEF file and message unknown")
      unknowns.append("CC file E103 not read")
      return
    }
    do {
      type4CC = try CapabilityContainer4(parsing: ccBytes)
    } catch {
      type4CCError = error.description
      type4CCIncomplete = error.incomplete
      // A CC read only in part up to its NDEF file's ID (an iPhone reads 15 bytes of a
      // 17-byte mapping 3.0 CC) still names the file and its length field; only the access
      // conditions, and so the status, stay unknown.
      if error.incomplete, ccBytes.count >= 11,
        let size = CapabilityContainer4.lengthFieldSize(
          partial: ccBytes)
      {
        let control = CapabilityContainer4.FileControl(
          tlvType: size == 4 ? 0x06 : 0x04, fileID: UInt16(ccBytes[9]) << 8 | UInt16(ccBytes[10]),
          maxSize: 0, readAccess: 0, writeAccess: 0)
        decodeNDEFFile(files[control.fileID], control: control)
        return
      }
      message = .absent("the CC file is not a valid Type 4 CC: \(error.description)")
      return
    }
    guard let cc = type4CC else { return }
    status = Self.type4Status(cc.ndefFile)
    decodeNDEFFile(files[cc.ndefFile.fileID], control: cc.ndefFile)
  }

  private mutating func decodeNDEFFile(
    _ file: ByteImage?, control: CapabilityContainer4.FileControl
  ) {
    let id = Hex.string([UInt8(control.fileID >> 8), UInt8(control.fileID & 0xFF)])
    let size = control.lengthFieldSize
    guard let file, let length = file.knownBigEndian(0, size) else {
      message = .unknown("NDEF file \(id) not read: NLEN and message unknown")
      unknowns.append("NDEF file \(id) NLEN not read")
      return
    }
    nlen = length
    if length == 0 {
      message = .empty
    } else if let bytes = file.known(size, length) {
      message = .decoded(NDEFValidator.validate(bytes, mode: .relax, base: size))
    } else {
      let known = file.knownRun(from: size).count
      message = .incomplete(length: length, known: min(known, length))
      unknowns.append(
        "NDEF file \(id): \(length)-byte message, \(min(known, length)) known (read or written)")
    }
  }

  /// Core NFC's rule for Type 4 (as `Type4Procedure`): write access 00 → readWrite, else
  /// readOnly; capacity = max NDEF file size − NLEN size (nfc-facts §6.1/§6.2).
  static func type4Status(_ f: CapabilityContainer4.FileControl) -> (NDEFStatus, Int?, String?) {
    let access = Hex.string([f.writeAccess])
    switch f.writeAccess {
    case 0x00: return (.readWrite, f.capacity, "CC NDEF file write access 00 (granted)")
    case 0xFF: return (.readOnly, f.capacity, "CC NDEF file write access FF (no write access)")
    default:
      let meaning = CapabilityContainer4.accessMeaning(f.writeAccess)
      return (.readOnly, f.capacity, "CC NDEF file write access \(access) (\(meaning))")
    }
  }
}
