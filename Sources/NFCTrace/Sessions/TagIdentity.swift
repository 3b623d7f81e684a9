/// What a session tells about the tag: technology, UID and manufacturer, ATQA/SAK/ATS,
/// GET_VERSION, product and memory size.
///
/// Product rules, most specific first: a GET_VERSION answer (nfc-facts §4.6); SAK `00` →
/// "MIFARE Ultralight / NTAG (Type 2)" ("Type 2 tag" for a 7- or 10-byte UID of another
/// maker than NXP); SAK MIFARE Classic values → Classic 1K/4K/Mini; SAK with
/// the ISO 14443-4 bit and an NDEF application → "Type 4 tag"; a DESFire GetVersion answer
/// names DESFire and NTAG 424 DNA (`DESFireVersion`).
public struct TagIdentity: Sendable, Equatable {
  /// RF technology.
  public var technology: Technology = .unknown
  /// The complete UID (empty before anticollision).
  public var uid: [UInt8] = []
  /// ATQA value (air bytes `44 00` → 0x0044).
  public var atqa: UInt16?
  /// Final SAK.
  public var sak: UInt8?
  /// ATS without CRC.
  public var ats: [UInt8]?
  /// ATQB without CRC (type B): the one of the tag ATTRIB selected (its PUPI is the UID),
  /// else the last one seen.
  public var atqb: [UInt8]?
  /// The ATQBs of the poll by PUPI, for the one ATTRIB selects (several tags may answer).
  private var atqbByPUPI: [[UInt8]: [UInt8]] = [:]
  /// The PUPI of the first ATQB of this session's frames.
  private var firstATQBPUPI: [UInt8]?
  /// `uid` is the PUPI of the session's first ATQB, no ATTRIB having confirmed it yet.
  private var uidFromATQB = false
  /// The ATR a PC/SC reader built for the card (USB captures of CCID readers).
  public var atr: [UInt8]?
  /// An NFC-F card's PMm (8 bytes, from SENSF_RES): byte 1 is its IC code (`FeliCaProduct`).
  public var pmm: [UInt8]?
  /// GET_VERSION answer (8 bytes).
  public var version: [UInt8]?
  /// The hardware bytes of a DESFire GetVersion answer (DESFire, NTAG 424 DNA), if read.
  public var desfireVersion: DESFireVersion?
  /// An ISO 15693 tag's memory in bytes: GET SYSTEM INFORMATION's blocks × block size
  /// (ISO/IEC 15693-3 §10.4.12), when answered.
  public var systemInfoMemoryBytes: Int?
  /// READ_SIG answer (32 bytes), if read.
  public var signature: [UInt8]?
  /// True when anticollision saw more than one tag (a collision or two UIDs).
  public var collision = false
  /// The reader frame of a bit-oriented ANTICOLLISION (NVB other than 20h): the reader sends
  /// known UID bits only after it detected a bit collision between two answers (ISO/IEC
  /// 14443-3 §6.5.3), so two tags answered at once.
  public var resolvedCollisionFrame: Int?
  /// True when the Type 4 NDEF application answered SELECT.
  public var hasNDEFApplication = false
  /// True when a MIFARE Classic authentication was seen.
  public var sawMIFAREClassicAuth = false
  /// True when the tag answered a Type 2 AUTHENTICATE (`1A 00`) with `AF` and an 8-byte
  /// ek(RndB): a MIFARE Ultralight C's 3DES authentication (MF0ICU2 datasheet §7.5.5; an
  /// Ultralight AES answers 16 bytes and has GET_VERSION).
  public var answeredUltralightCAuth = false

  /// True when a static dump names the product MIFARE Ultralight C (a Flipper `.nfc` file's
  /// `Device type` or `NTAG/Ultralight type`: the reader that made it told it apart) or has its
  /// size (48 pages) and no GET_VERSION answer.
  public var dumpNamesUltralightC = false

  /// Whether the tag is a MIFARE Ultralight C: no GET_VERSION, and a 3DES AUTHENTICATE
  /// answered (nfc-facts §4.6: Proxmark3 identifies it so) or a dump that says so.
  public var isUltralightC: Bool {
    versionInfo == nil && (answeredUltralightCAuth || dumpNamesUltralightC)
  }

  /// An unknown tag.
  public init() {}

  /// `04:66:D6:5F:00:50:9C` or nil.
  public var uidString: String? { uid.isEmpty ? nil : Hex.uid(uid) }

  /// The manufacturer named by the UID (ISO/IEC 7816-6 code in its first byte); nil for an
  /// NFC-F IDm, whose manufacturer code is not that register.
  public var manufacturer: String? {
    technology == .nfcF ? nil : Manufacturer.name(uid: uid)
  }

  /// The NXP product from GET_VERSION, if identified.
  public var versionInfo: GetVersionInfo? { version.flatMap { GetVersionInfo(bytes: $0) } }

  /// The product a static dump's size implies when it stores no GET_VERSION answer (a raw
  /// image of 135 pages is an NTAG215: `productFromPageCount`).
  public var inferredProduct: NTAGProduct?

  /// True when a static dump's page count contradicts the product its GET_VERSION answer
  /// names (each product has a fixed page count: NTAG213 45, NTAG215 135, NTAG216 231; NXP
  /// NTAG213/215/216 datasheet §8.5, nfc-facts §4.3): that product's memory map is not used.
  public var versionContradictsSize = false

  /// The product GET_VERSION names, unless a dump's size contradicts it.
  var versionProduct: NTAGProduct? { versionContradictsSize ? nil : versionInfo?.product }

  /// The Type 2 product: from GET_VERSION, else inferred from a dump's size.
  public var ntagProduct: NTAGProduct? { versionProduct ?? inferredProduct }

  /// Pages of a MIFARE Ultralight C (00h–2Fh, the 3DES key pages included; MF0ICU2 §7.5): a
  /// dump of that size without a GET_VERSION answer is one.
  public static let ultralightCPages = 48

  /// The product whose memory map has exactly `pages` pages, when one map has that size
  /// (NTAG213/213 TT/213F share one: 45 pages → NTAG213; 135 → NTAG215; 231 → NTAG216);
  /// nil for sizes two maps share (20: NTAG210 or Ultralight EV1 MF0UL11).
  public static func productFromPageCount(_ pages: Int) -> NTAGProduct? {
    switch pages {
    case 45: return .ntag213
    case 135: return .ntag215
    case 231: return .ntag216
    default: return nil
    }
  }

  /// Whether the tag speaks NFC Forum Type 2 (SAK `00` or a Type 2 GET_VERSION).
  public var isType2: Bool {
    if versionInfo != nil { return true }
    if sak == nil, let atr, let card = PCSCCardName(atr: atr) { return card.isType2 }
    return sak == 0x00
  }

  /// Whether the tag is a MIFARE Classic (Mini, 1K, 2K, 4K): a Classic AUTH was seen, or the
  /// SAK (nfc-facts §1.4) or a PC/SC reader's ATR names one.
  public var isMIFAREClassic: Bool {
    if sawMIFAREClassicAuth { return true }
    guard let p = product else { return false }
    return p.hasPrefix("MIFARE Classic") || p == "MIFARE Mini"
  }

  /// Whether the tag is ISO-DEP (SAK bit 0x20, an ATS, or an ATQB with Protocol_Type b1).
  public var isISODEP: Bool {
    if ats != nil || (sak.map { $0 & 0x20 != 0 } ?? false) { return true }
    if let atr, PCSCCardInfo.isISODEP(atr: atr) { return true }
    return atqb.flatMap(ATQB.init(parsing:))?.iso14443_4 ?? false
  }

  /// True for a 7- or 10-byte UID whose first byte, the IC manufacturer (ISO/IEC 7816-6), is
  /// not NXP's 04h: the tag is no MIFARE Ultralight or NTAG. False for NXP's and for a
  /// single-size UID, which names no maker.
  public var isOtherMakersUID: Bool { uid.count >= 7 && uid[0] != 0x04 }

  /// The product name, as specific as the session allows.
  public var product: String? {
    if let v = versionInfo, !versionContradictsSize { return v.productName }
    if let p = inferredProduct { return p.displayName }
    // The report's product line says which product GET_VERSION names (not this dump's size).
    if versionInfo != nil { return "unknown" }
    if let d = desfireVersion { return d.productName }
    if isUltralightC { return "MIFARE Ultralight C" }
    if let pmm, pmm.count == 8 { return FeliCaProduct.name(icCode: pmm[1]) }
    guard let sak else {
      if hasNDEFApplication { return "Type 4 tag" }
      if isISODEP { return "ISO-DEP tag (ISO 14443-4)" }
      return atr.flatMap(PCSCCardName.init(atr:))?.product
    }
    if sak & 0x20 != 0 {
      if hasNDEFApplication { return "Type 4 tag" }
      // The ATS's NXP MIFARE indicator names the family (nfc-facts §2.2).
      if MIFAREPlusNative.isMIFAREPlus(ats: ats) { return "MIFARE Plus (ISO 14443-4)" }
      return "ISO-DEP tag (ISO 14443-4)"
    }
    switch sak {
    case 0x00:
      // A 7- or 10-byte UID starts with its IC manufacturer (ISO/IEC 7816-6): only NXP's 04h
      // makes the tag a MIFARE Ultralight or NTAG.
      return isOtherMakersUID ? "Type 2 tag" : "MIFARE Ultralight / NTAG (Type 2)"
    case 0x08, 0x88: return "MIFARE Classic 1K"
    case 0x09: return "MIFARE Mini"
    case 0x18: return "MIFARE Classic 4K"
    case 0x19: return "MIFARE Classic 2K"
    case 0x10, 0x11: return "MIFARE Plus (SL2)"
    default: return nil
    }
  }

  /// Memory size in bytes: user memory for identified Type 2 products, or the GET_VERSION
  /// storage size when it is exact; total for Classic; an ISO 15693 tag's GET SYSTEM
  /// INFORMATION memory. Nil when only a range is known
  /// (`memoryRange`).
  public var memoryBytes: Int? {
    if let p = ntagProduct, let n = p.userMemoryBytes { return n }
    if isUltralightC { return 144 }  // pages 04h–27h (MF0ICU2 datasheet §7.5)
    if let pmm, pmm.count == 8, let n = FeliCaProduct.userMemoryBytes(icCode: pmm[1]) {
      return n
    }
    if let d = desfireVersion { return d.memoryBytes }
    if let n = systemInfoMemoryBytes { return n }
    if !versionContradictsSize, let range = versionInfo?.storageSizeRange {
      return range.count == 1 ? range.lowerBound : nil
    }
    switch sak {
    case 0x08, 0x88: return 1024
    case 0x09: return 320
    case 0x18: return 4096
    case 0x19: return 2048
    default: return nil
    }
  }

  /// The user memory range a GET_VERSION storage size announces when the product is not
  /// known: `2ⁿ...2ⁿ⁺¹` bytes (storage size bit 0 set, nfc-facts §4.6).
  public var memoryRange: ClosedRange<Int>? {
    guard memoryBytes == nil, !versionContradictsSize, let range = versionInfo?.storageSizeRange,
      range.count > 1
    else { return nil }
    return range
  }

  /// The last page of an identified Type 2 product (Ultralight C: 2Fh, its last key page).
  public var lastPage: Int? { isUltralightC ? 0x2F : ntagProduct?.lastPage }

  /// The last page a READ returns before it rolls over to page 0: the last page, except on
  /// an Ultralight C, whose key pages 2Ch–2Fh cannot be read (a READ of 2Ah returns 2Ah, 2Bh,
  /// 00h, 01h; MF0ICU2 datasheet §7.5.8, nfc-facts §4.1).
  public var lastReadablePage: Int? { isUltralightC ? 0x2B : lastPage }

  /// Updates the identity from one decoded frame.
  mutating func observe(_ f: DecodedFrame) {
    // What the decode shows (type A or B) wins over what the source said; the tag's own
    // frames tell, not a reader polling other technologies in its loop (REQB, an ISO 15693
    // INVENTORY between REQAs), which set it only while nothing else has.
    let shown = f.technology
    if technology == .unknown
      || (f.frame.direction != .reader && (shown == .nfcA || shown == .nfcB))
    {
      technology = shown
    }
    observeUID(f)
    // An answer whose CRC fails is not evidence of what the tag is.
    guard let layer = f.layers.last, f.frame.crc != .bad else { return }
    // Most frames are none of these: compare names only within the protocol, and take the
    // payload (a copy) only when it is kept.
    switch layer.protocolID {
    case .iso14443A:
      if layer.named("ATQA") {
        let payload = Self.payload(f)
        if payload.count == 2 { atqa = UInt16(payload[1]) << 8 | UInt16(payload[0]) }
      } else if layer.named("ATR") {
        atr = f.frame.data
      } else if layer.named("ANTICOLLISION"), f.frame.direction == .reader,
        Self.resolvesCollision(f, layer)
      {
        collision = true
        if resolvedCollisionFrame == nil { resolvedCollisionFrame = f.frame.index }
      } else if layer.named("SAK"), case .bool(true) = layer.field("uid_complete"),
        let s = Self.payload(f).first
      {
        sak = s
      }
    case .isoDEP:
      if layer.named("ATS") { ats = Self.payload(f) }
    case .type2:
      if layer.named("GET_VERSION response") {
        let payload = Self.payload(f)
        if payload.count == 8 { version = payload }
      } else if layer.named("READ_SIG response") {
        let payload = Self.payload(f)
        if payload.count == 32 { signature = payload }
      } else if layer.named("AUTHENTICATE response"), layer.field("part") == .int(1),
        case .hex(let rndB)? = layer.field("data"), rndB.count == 8
      {
        answeredUltralightCAuth = true
      }
    case .type4:
      if layer.named("SELECT NDEF application response") { hasNDEFApplication = true }
    case .mifareClassic:
      if layer.name.hasPrefix("AUTH") { sawMIFAREClassicAuth = true }
    case .iso14443B:
      if layer.named("ATQB") {
        let payload = Self.payload(f)
        atqb = payload
        if payload.count > 5, atqbByPUPI.count < 16 { atqbByPUPI[Array(payload[1..<5])] = payload }
        // Two tags answering the reader's REQB/slots in this session: several tags in the
        // field (ISO/IEC 14443-3 §7.4, type B anticollision by time slots).
        if payload.count > 5 {
          let pupi = Array(payload[1..<5])
          if let first = firstATQBPUPI, first != pupi { collision = true }
          if firstATQBPUPI == nil { firstATQBPUPI = pupi }
          // The PUPI is the type B tag's identifier (ISO/IEC 14443-3 §7.9.2), its UID before
          // an ATTRIB names it.
          if uid.isEmpty {
            uid = pupi
            uidFromATQB = true
          }
        }
      } else if layer.named("ATTRIB"), case .hex(let answer)? = layer.field("atqb"),
        answer.count > 5
      {
        // The selected tag's ATQB, also when it came before this session began.
        atqbByPUPI[Array(answer[1..<5])] = answer
      }
    case .iso7816:
      // The first part of GetVersion's answer is the hardware information.
      if desfireVersion == nil, layer.named("DESFire GET VERSION response"),
        case .hex(let data)? = layer.field("data")
      {
        desfireVersion = DESFireVersion(hardware: data)
      }
    case .felica:
      if layer.named("SENSF_RES"), f.frame.direction == .tag,
        case .hex(let p)? = layer.field("pmm"),
        p.count == 8
      {
        pmm = p
      }
    case .appleECP, .nfcDEP, .iso15693:
      break
    }
  }

  /// Takes the UID from a Type 2 tag's pages 0–1 read in the session, when no anticollision
  /// gave one (a capture that starts after activation, an emulator's log): UID0–2, BCC0, UID3–6,
  /// BCC1, both check bytes verifying (BCC0 = 88h ⊕ UID0 ⊕ UID1 ⊕ UID2, BCC1 = UID3 ⊕ … ⊕
  /// UID6; NXP NTAG213/215/216 datasheet §8.5.1). A Type 2 tag is NFC-A.
  mutating func takeUID(fromType2 memory: ByteImage) {
    guard uid.isEmpty, let b = memory.known(0, 9), let found = Self.uid(fromPage0: b) else {
      return
    }
    uid = found
    if technology == .unknown { technology = .nfcA }
  }

  /// The 7-byte UID in a Type 2 tag's first 9 bytes (pages 0–1 and BCC1) when both check
  /// bytes verify and it is not all zeros; nil otherwise.
  static func uid<C: RandomAccessCollection>(fromPage0 bytes: C) -> [UInt8]?
  where C.Element == UInt8, C.Index == Int {
    guard bytes.count >= 9 else { return nil }
    let b = Array(bytes.prefix(9))
    guard b[3] == 0x88 ^ b[0] ^ b[1] ^ b[2], b[8] == b[4] ^ b[5] ^ b[6] ^ b[7] else { return nil }
    let found = Array(b[0..<3] + b[4..<8])
    return found.contains(where: { $0 != 0 }) ? found : nil
  }

  /// The UID the frame completed. Taken from a damaged SAK too: its bytes are the reader's
  /// SELECT (CRC checked), and the decoder completes a UID once, so the reader's retry of the
  /// SELECT answered intact would not give it again (ISO/IEC 14443-3 §6.5.3).
  private mutating func observeUID(_ f: DecodedFrame) {
    guard let uid = f.completedUID else { return }
    if !self.uid.isEmpty && self.uid != uid && !uidFromATQB { collision = true }
    uidFromATQB = false
    self.uid = uid
    if let selected = atqbByPUPI[uid] { atqb = selected }
  }

  /// A valid NVB with known UID bits, as many bytes as it counts, and no finding on the frame
  /// (an invalid NVB or a wrong length is the reader's error, no sign of a collision).
  private static func resolvesCollision(_ f: DecodedFrame, _ layer: LayerDecode) -> Bool {
    guard f.findings.isEmpty, case .hex(let value)? = layer.field("nvb"), value.count == 1,
      let nvb = NVB(value[0]), !nvb.isSelect, nvb.knownBits > 0
    else { return false }
    return f.frame.data.count == 2 + nvb.knownByteCount
  }

  /// The frame's bytes without CRC.
  static func payload(_ f: DecodedFrame) -> [UInt8] {
    let d = f.frame.data
    switch f.frame.crc {
    case .ok, .bad: return d.count >= 2 ? Array(d.dropLast(2)) : d
    default: return d
    }
  }
}
