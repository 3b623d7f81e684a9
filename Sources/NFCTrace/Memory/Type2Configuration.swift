/// The configuration pages of NTAG21x, NTAG213F/216F, NTAG 213 TT and MIFARE Ultralight EV1:
/// CFG0 (MIRROR, MIRROR_PAGE, AUTH0), CFG1 (ACCESS), PWD and PACK (nfc-facts §4.5; NXP
/// NTAG213/215/216 datasheet §8.5.7; NTAG213F/216F datasheet §8.5.7; MF0ULx1 datasheet §8.5.7;
/// NTAG 213 TT (NT2H1311TT): NTAG213's map, CFG0 at 29h, as proxmark3 `cmdhfmfu.c`
/// `ulev1_print_configuration` reads it). They are the last four pages: CFG0 = last page − 3.
public struct Type2Configuration: Sendable, Equatable {
  /// Which layout the pages follow.
  public enum Family: String, Sendable {
    /// NTAG210/212/213/215/216: CFG0 byte 0 is MIRROR, CFG1 has the NFC counter bits.
    case ntag21x
    /// MIFARE Ultralight EV1: CFG0 byte 0 is MOD, CFG1 byte 1 is VCTID, no NFC counter bits.
    case ultralightEV1
    /// NTAG213F/216F: as NTAG21x, but CFG0 byte 0 holds SLEEP_EN (08h) and FDP_CONF (bits
    /// 2–1, the field-detect pin's events) where NTAG21x has STRG_MOD_EN.
    case ntagF
    /// NTAG 213 TT: as NTAG21x, but CFG0 byte 0 holds a 3-bit MIRROR_CONF (bits 7–5, values 4–7
    /// add the tag-tamper status) and MIRROR_BYTE in bits 4–3, and CFG0 byte 1 the tamper
    /// configuration (proxmark3 `cmdhfmfu.c` `ulev1_print_configuration`).
    case ntagTT
  }

  /// MIRROR_CONF values (CFG0 byte 0 bits 7–6; on NTAG 213 TT bits 7–5, whose values 4–7 add
  /// the tag-tamper status: proxmark3 `cmdhfmfu.c` `ulev1_print_configuration`).
  public static let mirrorNames = [
    "off", "UID", "NFC counter", "UID and NFC counter", "tag tamper", "UID and tag tamper",
    "NFC counter and tag tamper", "UID, NFC counter and tag tamper",
  ]

  /// The layout.
  public var family: Family
  /// CFG0's page number.
  public var cfg0Page: Int
  /// CFG0's 4 bytes, when known.
  public var cfg0: [UInt8]?
  /// CFG1's 4 bytes, when known.
  public var cfg1: [UInt8]?
  /// PWD's 4 bytes, when known (tags read PWD back as zeros; dumps may hold the real value).
  public var pwd: [UInt8]?
  /// PACK's first 2 bytes, when known.
  public var pack: [UInt8]?

  /// Pages for `product`, nil when the product has no configuration pages or its last page is
  /// not checked.
  public init?(product: NTAGProduct) {
    guard let last = product.lastPage else { return nil }
    switch product {
    case .ntag210, .ntag212, .ntag213, .ntag215, .ntag216: family = .ntag21x
    case .ntag213F, .ntag216F: family = .ntagF
    case .ntag213TT: family = .ntagTT
    case .ultralightEV1MF0UL11, .ultralightEV1MF0ULH11, .ultralightEV1MF0UL21,
      .ultralightEV1MF0ULH21:
      family = .ultralightEV1
    default: return nil
    }
    cfg0Page = last - 3
  }

  /// Configuration from known page values (for tests and dumps).
  public init(family: Family, cfg0Page: Int, cfg0: [UInt8]?, cfg1: [UInt8]?) {
    self.family = family
    self.cfg0Page = cfg0Page
    self.cfg0 = cfg0.flatMap { $0.count == 4 ? $0 : nil }
    self.cfg1 = cfg1.flatMap { $0.count == 4 ? $0 : nil }
  }

  /// CFG1's page.
  public var cfg1Page: Int { cfg0Page + 1 }

  // The decoders read these, so a value of another length (set from outside) decodes as unknown.
  private var c0: [UInt8]? { cfg0?.count == 4 ? cfg0 : nil }
  private var c1: [UInt8]? { cfg1?.count == 4 ? cfg1 : nil }
  /// PWD's page.
  public var pwdPage: Int { cfg0Page + 2 }
  /// PACK's page (the last page).
  public var packPage: Int { cfg0Page + 3 }

  /// The NTAG layouts (NTAG21x, NTAG213F/216F, NTAG 213 TT): UID/counter mirror and NFC
  /// counter bits.
  public var isNTAG: Bool { family != .ultralightEV1 }

  // MARK: CFG0

  /// MIRROR_CONF 0–3 (NTAG only); 0–7 on NTAG 213 TT (bits 7–5).
  public var mirrorConf: Int? {
    guard isNTAG else { return nil }
    return c0.map { Int($0[0] >> (family == .ntagTT ? 5 : 6)) }
  }
  /// MIRROR_BYTE 0–3: byte of MIRROR_PAGE where the mirror starts (NTAG only; bits 5–4, on
  /// NTAG 213 TT bits 4–3).
  public var mirrorByte: Int? {
    guard isNTAG else { return nil }
    return c0.map { Int($0[0] >> (family == .ntagTT ? 3 : 4)) & 3 }
  }
  /// MIRROR_PAGE (NTAG only; CFG0 byte 2).
  public var mirrorPage: Int? { isNTAG ? c0.map { Int($0[2]) } : nil }
  /// STRG_MOD_EN / MOD strong modulation (CFG0 byte 0 bit 2, 0x04); NTAG213F/216F have none,
  /// and on NTAG 213 TT, whose MIRROR fields fill bits 7–3, the bit is not checked (nil).
  public var strongModulation: Bool? {
    family == .ntagF || family == .ntagTT ? nil : c0.map { $0[0] & 0x04 != 0 }
  }
  /// SLEEP_EN (NTAG213F/216F only; CFG0 byte 0 bit 3, 0x08): the sleep mode through the
  /// field-detect pin is enabled.
  public var sleepEnabled: Bool? { family == .ntagF ? c0.map { $0[0] & 0x08 != 0 } : nil }
  /// FDP_CONF 0–3 (NTAG213F/216F only; CFG0 byte 0 bits 2–1): which events switch the
  /// field-detect pin on and off.
  public var fieldDetectConf: Int? { family == .ntagF ? c0.map { Int($0[0] >> 1) & 3 } : nil }
  /// AUTH0: first page protected by the password (CFG0 byte 3).
  public var auth0: Int? { c0.map { Int($0[3]) } }

  /// The pages the password protects (AUTH0 … last page); nil when AUTH0 is past the last
  /// page (no protection) or unknown.
  public var protectedPages: ClosedRange<Int>? {
    guard let auth0, auth0 <= packPage else { return nil }
    return auth0...packPage
  }

  // MARK: CFG1 (ACCESS)

  /// ACCESS byte (CFG1 byte 0).
  public var access: UInt8? { c1?[0] }
  /// PROT (0x80): 1 = read and write access protected, 0 = write access only.
  public var prot: Bool? { access.map { $0 & 0x80 != 0 } }
  /// CFGLCK (0x40): the configuration pages are permanently locked.
  public var cfgLock: Bool? { access.map { $0 & 0x40 != 0 } }
  /// NFC_CNT_EN (0x10): the NFC counter counts (NTAG only).
  public var nfcCounterEnabled: Bool? { isNTAG ? access.map { $0 & 0x10 != 0 } : nil }
  /// NFC_CNT_PWD_PROT (0x08): READ_CNT needs the password (NTAG only; nfc-facts §10 uses
  /// 0x08 as Proxmark3 does).
  public var nfcCounterPasswordProtected: Bool? { isNTAG ? access.map { $0 & 0x08 != 0 } : nil }
  /// AUTHLIM (0x07): failed PWD_AUTH attempts allowed; 0 = unlimited.
  public var authLimit: Int? { access.map { Int($0 & 0x07) } }
  /// VCTID (Ultralight EV1: CFG1 byte 1, default `05`).
  public var vctid: UInt8? { family == .ultralightEV1 ? c1?[1] : nil }

  /// What the password protects, in words: `no password protection (past the last page 230)`,
  /// `password needed to write pages 16–231`, `password needed to read and write pages 4–231`.
  public var protectionText: String? {
    guard auth0 != nil else { return nil }
    guard let range = protectedPages else {
      return "no password protection (past the last page \(packPage))"
    }
    let what: String
    let pages = "pages \(range.lowerBound)–\(range.upperBound)"
    switch prot {
    case true?: what = "password needed to read and write \(pages)"
    case false?: what = "password needed to write \(pages)"
    case nil:
      what = "password needed to write \(pages) (to read them too if PROT is set; CFG1 unknown)"
    }
    return what
  }
}
