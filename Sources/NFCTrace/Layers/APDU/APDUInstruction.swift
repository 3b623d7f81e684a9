/// Names of command APDU instructions and well-known application identifiers.
///
/// Interindustry INS codes from ISO/IEC 7816-4 §5.4.2 Table 4 (nfc-facts §3.2); EMV
/// GET PROCESSING OPTIONS / GENERATE AC; MIFARE DESFire native commands wrapped in CLA `90`
/// (NXP AN12752 / proxmark3 `protocols.h` MFDES_*).
public enum APDUInstruction {
  /// The command name for `ins` under `cla` (`SELECT`, `READ BINARY`, `DESFire GET VERSION`),
  /// or `INS xx` when unknown.
  public static func name(cla: UInt8, ins: UInt8) -> String {
    if cla == 0x90, let native = desfire[ins] { return "DESFire " + native }
    if cla == 0xA2, let st = st25[ins] { return st }
    if let standard = interindustry[ins] { return standard }
    return "INS " + Hex.string([ins])
  }

  /// The MIFARE DESFire native command named by `code` (`GET VERSION`), nil when unknown.
  static func desfireName(_ code: UInt8) -> String? { desfire[code] }

  /// True when `ins` is a known interindustry or DESFire instruction.
  public static func isKnown(cla: UInt8, ins: UInt8) -> Bool {
    interindustry[ins] != nil || (cla == 0x90 && desfire[ins] != nil)
      || (cla == 0xA2 && st25[ins] != nil)
  }

  /// STMicroelectronics ST25TA proprietary commands (CLA A2; ST25TA02K/16K/64K datasheets,
  /// command set): P2 01/02 of the permanent states names the read / write access. Under CLA
  /// 00 the same INS are ISO's (VERIFICATION REQUIREMENT, READ BINARY).
  private static let st25: [UInt8: String] = [
    0xB0: "ST EXTENDED READ BINARY", 0x28: "ST ENABLE PERMANENT STATE",
    0x26: "ST DISABLE PERMANENT STATE",
  ]

  private static let interindustry: [UInt8: String] = [
    0x04: "DEACTIVATE FILE", 0x0C: "ERASE RECORD", 0x0E: "ERASE BINARY", 0x0F: "ERASE BINARY",
    0x10: "PERFORM SCQL OPERATION", 0x12: "PERFORM TRANSACTION OPERATION",
    0x14: "PERFORM USER OPERATION", 0x20: "VERIFY", 0x21: "VERIFY",
    0x22: "MANAGE SECURITY ENVIRONMENT", 0x24: "CHANGE REFERENCE DATA",
    0x26: "DISABLE VERIFICATION REQUIREMENT", 0x28: "ENABLE VERIFICATION REQUIREMENT",
    0x2A: "PERFORM SECURITY OPERATION", 0x2C: "RESET RETRY COUNTER", 0x44: "ACTIVATE FILE",
    0x46: "GENERATE ASYMMETRIC KEY PAIR", 0x70: "MANAGE CHANNEL", 0x82: "EXTERNAL AUTHENTICATE",
    0x84: "GET CHALLENGE", 0x86: "GENERAL AUTHENTICATE", 0x87: "GENERAL AUTHENTICATE",
    0x88: "INTERNAL AUTHENTICATE", 0xA0: "SEARCH BINARY", 0xA1: "SEARCH BINARY",
    0xA2: "SEARCH RECORD", 0xA4: "SELECT", 0xA8: "GET PROCESSING OPTIONS",
    0xAE: "GENERATE AC", 0xB0: "READ BINARY", 0xB1: "READ BINARY", 0xB2: "READ RECORD",
    0xB3: "READ RECORD", 0xC0: "GET RESPONSE", 0xC2: "ENVELOPE", 0xC3: "ENVELOPE",
    0xCA: "GET DATA", 0xCB: "GET DATA", 0xD0: "WRITE BINARY", 0xD1: "WRITE BINARY",
    0xD2: "WRITE RECORD", 0xD6: "UPDATE BINARY", 0xD7: "UPDATE BINARY", 0xDA: "PUT DATA",
    0xDB: "PUT DATA", 0xDC: "UPDATE RECORD", 0xDD: "UPDATE RECORD", 0xE0: "CREATE FILE",
    0xE2: "APPEND RECORD", 0xE4: "DELETE FILE", 0xE6: "TERMINATE DF", 0xE8: "TERMINATE EF",
    0xFE: "TERMINATE CARD USAGE",
  ]

  private static let desfire: [UInt8: String] = [
    0x0A: "AUTHENTICATE (legacy)", 0x1A: "AUTHENTICATE ISO", 0xAA: "AUTHENTICATE AES",
    0x71: "AUTHENTICATE EV2 FIRST", 0x77: "AUTHENTICATE EV2 NON-FIRST",
    0x5A: "SELECT APPLICATION", 0x60: "GET VERSION", 0xAF: "ADDITIONAL FRAME",
    0x6A: "GET APPLICATION IDS", 0x6D: "GET DF NAMES", 0x6F: "GET FILE IDS",
    0x61: "GET ISO FILE IDS", 0xF5: "GET FILE SETTINGS", 0x5F: "CHANGE FILE SETTINGS",
    0x45: "GET KEY SETTINGS", 0x54: "CHANGE KEY SETTINGS", 0x64: "GET KEY VERSION",
    0xC4: "CHANGE KEY", 0x51: "GET CARD UID", 0x6E: "FREE MEMORY", 0xCA: "CREATE APPLICATION",
    0xDA: "DELETE APPLICATION", 0xFC: "FORMAT PICC", 0xCD: "CREATE STD DATA FILE",
    0xCB: "CREATE BACKUP DATA FILE", 0xCC: "CREATE VALUE FILE", 0xC1: "CREATE LINEAR RECORD FILE",
    0xC0: "CREATE CYCLIC RECORD FILE", 0xDF: "DELETE FILE", 0xBD: "READ DATA",
    0x3D: "WRITE DATA", 0x6C: "GET VALUE", 0x0C: "CREDIT", 0xDC: "DEBIT",
    0x1C: "LIMITED CREDIT", 0xBB: "READ RECORDS", 0x3B: "WRITE RECORD",
    0xEB: "CLEAR RECORD FILE", 0xC7: "COMMIT TRANSACTION", 0xA7: "ABORT TRANSACTION",
    0x5C: "SET CONFIGURATION", 0xF6: "GET FILE COUNTERS", 0x3C: "READ SIG",
    // DESFire EV2/EV3 and NTAG 424 DNA (NT4H2421Gx datasheet §10): the data and record
    // commands of the EV2 command set, the transaction MAC's reader id.
    0xAD: "READ DATA", 0x8D: "WRITE DATA", 0xAB: "READ RECORDS", 0x8B: "WRITE RECORD",
    0xDB: "UPDATE RECORD", 0xC8: "COMMIT READER ID",
  ]
}

/// Well-known application identifiers (ISO/IEC 7816-5 RIDs + PIX) seen in NFC traces.
public enum KnownAID {
  /// A short name for `aid`, if known (`NDEF Tag Application`, `PPSE (2PAY.SYS.DDF01)`).
  public static func name(_ aid: [UInt8]) -> String? {
    if let exact = names[Hex.string(aid)] { return exact }
    for (prefix, label) in prefixes where Hex.string(aid).hasPrefix(prefix) { return label }
    return nil
  }

  /// The NDEF Tag Application AID for mapping 2.0 and 3.0 (NFC Forum T4T §5.1.2).
  public static let ndefV2: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  /// The NDEF Tag Application AID for mapping 1.0.
  public static let ndefV1: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]

  private static let names: [String: String] = [
    "d2760000850101": "NDEF Tag Application",
    "d2760000850100": "NDEF Tag Application, mapping 1.0",
    "325041592e5359532e4444463031": "PPSE (2PAY.SYS.DDF01)",
    "315041592e5359532e4444463031": "PSE (1PAY.SYS.DDF01)",
    "a0000000031010": "Visa credit/debit",
    "a0000000032010": "Visa Electron",
    "a0000000041010": "Mastercard credit/debit",
    "a0000000043060": "Maestro",
    "a00000002501": "American Express",
    "a0000000651010": "JCB",
    "a0000001523010": "Discover",
    "a0000002471001": "ICAO eMRTD (LDS1)",
    "a0000006472f0001": "FIDO U2F/CTAP",
  ]

  private static let prefixes: [(String, String)] = [
    ("a000000003", "Visa"), ("a000000004", "Mastercard"), ("a000000025", "American Express"),
    // NIST SP 800-73-4 §2.2: PIV's AID, selected by its right-truncated form A0 00 00 03 08
    // 00 00 10 00 as often as whole.
    ("a00000030800001000", "PIV"),
  ]
}
