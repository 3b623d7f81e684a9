/// An ISO/IEC 7816-4 status word SW1SW2 (the last two bytes of a response APDU).
///
/// Meanings follow ISO/IEC 7816-4 §5.6 (interindustry 61xx–6Fxx, 9000) and the MIFARE
/// DESFire status codes carried as `91xx` when a native command is wrapped in CLA `90`
/// (nfc-facts §3.4; proxmark3 `apduinfo.c`, `protocols.h`).
public struct StatusWord: Sendable, Hashable, CustomStringConvertible {
  /// How a status word ends the command.
  public enum Kind: String, Sendable, Hashable {
    /// Normal processing (9000, 61xx, DESFire 9100/91AF).
    case success
    /// Warning processing (62xx, 63xx): the command completed with a caveat.
    case warning
    /// Execution or checking error (64xx–6Fxx, DESFire 91xx errors).
    case error
    /// Not an ISO/IEC 7816-4 or DESFire status word.
    case unknown
  }

  /// SW1.
  public var sw1: UInt8
  /// SW2.
  public var sw2: UInt8

  /// Creates a status word.
  public init(_ sw1: UInt8, _ sw2: UInt8) {
    self.sw1 = sw1
    self.sw2 = sw2
  }

  /// SW1SW2 as one number (`0x6982`).
  public var value: UInt16 { UInt16(sw1) << 8 | UInt16(sw2) }

  /// Four lower-case hex digits (`6982`).
  public var hex: String { Hex.string([sw1, sw2]) }

  /// `SW 6982 security status not satisfied`.
  public var description: String { "SW \(hex) \(meaning)" }

  /// True for 9000, 61xx and DESFire 9100 / 91AF.
  public var isSuccess: Bool { kind == .success }

  /// Success, warning, error or unknown.
  public var kind: Kind {
    switch sw1 {
    case 0x90 where sw2 == 0x00, 0x61: return .success
    case 0x91 where sw2 == 0x00 || sw2 == 0xAF: return .success
    case 0x62, 0x63: return .warning
    case 0x64...0x6F, 0x91: return .error
    default: return .unknown
    }
  }

  /// Plain meaning (`security status not satisfied`).
  public var meaning: String {
    if let fixed = Self.exact[value] { return fixed }
    switch sw1 {
    case 0x61: return "success, \(sw2 == 0 ? 256 : Int(sw2)) more byte(s) available (GET RESPONSE)"
    case 0x63 where sw2 & 0xF0 == 0xC0:
      return "verification failed, \(sw2 & 0x0F) retries left (counter)"
    case 0x6C: return "wrong Le, exact length is \(sw2 == 0 ? 256 : Int(sw2))"
    case 0x62: return "warning, non-volatile memory unchanged"
    case 0x63: return "warning, non-volatile memory changed"
    case 0x64: return "execution error, non-volatile memory unchanged"
    case 0x65: return "execution error, non-volatile memory changed"
    case 0x66: return "security-related issue"
    case 0x68: return "functions in CLA not supported"
    case 0x69: return "command not allowed"
    case 0x6A: return "wrong parameters P1-P2"
    case 0x91: return "DESFire status 0x\(Hex.string([sw2]))"
    default: return "unknown status"
    }
  }

  private static let exact: [UInt16: String] = iso.merging(desfire) { a, _ in a }

  private static let iso: [UInt16: String] = [
    0x9000: "success",
    0x6200: "warning, no information given",
    0x6281: "warning: returned data may be corrupted",
    0x6282: "warning: end of file or record reached before Le bytes were read",
    0x6283: "warning: selected file deactivated",
    0x6284: "warning: file control information not formatted",
    0x6300: "warning: no information given (e.g. authentication failed)",
    0x6381: "warning: file filled up by the last write",
    0x6400: "execution error, state of non-volatile memory unchanged",
    0x6500: "execution error, no information given",
    0x6581: "memory failure (write problem)",
    0x6700: "wrong length (Lc/Le)",
    0x6800: "functions in CLA not supported",
    0x6881: "logical channel not supported",
    0x6882: "secure messaging not supported",
    0x6883: "last command of the chain expected",
    0x6884: "command chaining not supported",
    0x6900: "command not allowed",
    0x6981: "command incompatible with file structure",
    0x6982: "security status not satisfied",
    0x6983: "authentication method blocked",
    0x6984: "reference data not usable",
    0x6985: "conditions of use not satisfied",
    0x6986: "command not allowed, no current EF",
    0x6987: "expected secure messaging data objects missing",
    0x6988: "incorrect secure messaging data objects",
    0x6A80: "wrong data in data field",
    0x6A81: "function not supported",
    0x6A82: "file or application not found",
    0x6A83: "record not found",
    0x6A84: "not enough memory space in the file",
    0x6A85: "Nc inconsistent with TLV structure",
    0x6A86: "incorrect P1/P2",
    0x6A87: "Lc inconsistent with P1/P2",
    0x6A88: "referenced data not found",
    // ISO/IEC 7816-4 Table 6: SW1 6A with SW2 89 / 8A are no P1-P2 errors.
    0x6A89: "file already exists",
    0x6A8A: "DF name already exists",
    0x6B00: "wrong parameters P1/P2 (for READ/UPDATE BINARY: offset outside the file)",
    0x6D00: "INS not supported",
    0x6E00: "CLA not supported",
    0x6F00: "no precise diagnosis",
  ]

  /// MIFARE DESFire native status codes, wrapped as SW1 = 91.
  static let desfire: [UInt16: String] = [
    0x9100: "DESFire: OK",
    // DESFire EV1 NO_CHANGES (CommitTransaction with nothing to commit: a success); NTAG 424
    // DNA gives the code to COMMAND_FORMAT_ERROR.
    0x910C: "DESFire: no changes (NTAG 424 DNA: command format error)",
    0x910E: "DESFire: out of EEPROM",
    0x911C: "DESFire: illegal command",
    0x911E: "DESFire: integrity error (CRC/MAC)",
    0x9140: "DESFire: no such key",
    0x917E: "DESFire: length error",
    0x919D: "DESFire: permission denied",
    0x919E: "DESFire: parameter error",
    0x91A0: "DESFire: application not found",
    0x91A1: "DESFire: application integrity error",
    // DESFire EV2/EV3, NTAG 424 DNA: too many failed authentications, attempts delayed.
    0x91AD: "DESFire: authentication delay",
    0x91AE: "DESFire: authentication error",
    0x91AF: "DESFire: additional frame expected",
    0x91BE: "DESFire: boundary error",
    0x91C1: "DESFire: PICC integrity error",
    0x91CA: "DESFire: command aborted",
    0x91CD: "DESFire: PICC disabled",
    0x91CE: "DESFire: count error",
    0x91DE: "DESFire: duplicate error",
    0x91EE: "DESFire: EEPROM error",
    0x91F0: "DESFire: file not found",
    0x91F1: "DESFire: file integrity error",
  ]
}

/// An ISO/IEC 7816-4 response APDU: response data followed by SW1SW2.
public struct ResponseAPDU: Sendable, Equatable {
  /// Response data (may be empty).
  public var data: [UInt8]
  /// The trailing status word.
  public var status: StatusWord

  /// Creates a response.
  public init(data: [UInt8], status: StatusWord) {
    self.data = data
    self.status = status
  }

  /// Splits `bytes` into data and SW1SW2; nil when fewer than 2 bytes.
  public init?(bytes: [UInt8]) {
    guard bytes.count >= 2 else { return nil }
    data = Array(bytes[0..<(bytes.count - 2)])
    status = StatusWord(bytes[bytes.count - 2], bytes[bytes.count - 1])
  }
}
