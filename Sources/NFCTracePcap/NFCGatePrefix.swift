import NFCTrace

/// NFCGate's pcap export puts a constant `0x02` byte before every frame, whether or not the tag
/// speaks ISO-DEP (a Type 2 READ `30 04` is written `02 30 04`). We remove it.
///
/// The rule (either is enough):
/// 1. Structure: a pcapng whose interfaces include LINKTYPE_ISO_14443 (264) and
///    LINKTYPE_USER0 (147); NFCGate writes its Android "initial card data" on the second one.
/// 2. Content: the first data frames (up to `lookahead`, at least `minimumEvidence`) all use
///    the CRC-dropped events 0xFA/0xFB, as NFCGate does, and all start with `0x02`. Real
///    ISO-DEP traffic cannot look like that: the I-block number toggles (PCB `02`, `03`,
///    ISO/IEC 14443-4 §7.5.3.2) and REQA/anticollision/RATS never start with `02`.
///
/// Once the rule holds, a data frame starting with `0x02` loses that byte; a data frame that
/// does not start with it is kept whole and a warning says so.
enum NFCGatePrefix {
  /// The byte NFCGate prepends.
  static let prefix: UInt8 = 0x02
  /// Data frames examined by the content rule.
  static let lookahead = 8
  /// Data frames the content rule needs before it decides for NFCGate.
  static let minimumEvidence = 4
  /// Frames (events included) after which the content rule stops looking.
  static let lookaheadFrameLimit = 64

  /// Rule 1: the interfaces' link types are NFCGate's pair.
  static func matchesInterfaces(_ linkTypes: Set<Int>) -> Bool {
    linkTypes.contains(PcapLinkType.iso14443) && linkTypes.contains(PcapLinkType.user0)
  }

  /// Rule 1's check of the frames: most of the first data frames start with the prefix (a
  /// frame or two may lack it), so another tool's capture with a USER0 interface is not taken
  /// for NFCGate's.
  static func matchesPrefix(_ frames: [Frame]) -> Bool {
    let data = frames.filter { $0.direction != .event }.prefix(lookahead)
    guard !data.isEmpty else { return true }
    return data.filter { $0.data.first == prefix }.count * 2 > data.count
  }

  /// Rule 2 over the first frames of the capture (events are ignored).
  static func matchesContent(_ frames: [Frame]) -> Bool {
    let data = frames.filter { $0.direction != .event }.prefix(lookahead)
    guard data.count >= minimumEvidence else { return false }
    return data.allSatisfy { $0.crc == .notCaptured && $0.data.first == prefix }
  }

  /// Whether NFCGate relayed APDUs (Android `IsoDep.transceive`, the ISO-DEP blocks built by
  /// the phone's NFC controller) rather than raw NFC-A commands (`NfcA.transceive`), judged per
  /// reader command (prefix removed): a capture may hold taps of different tags, and NFCGate
  /// records no activation between them. An APDU header (CLA, INS, P1, P2) with an
  /// interindustry (0x0X) or proprietary 0x8X/0x9X class byte (ISO/IEC 7816-4 §5.4.1) is an
  /// APDU; a Type 2 or MIFARE command code is raw (no such code lies in those CLA ranges:
  /// READ 30h, WRITE A2h, …; NXP NTAG213/215/216 datasheet §10). Codes both could be (GET_VERSION
  /// 60h, AUTHENTICATE 1Ah and its AFh continuation are also native DESFire commands an IsoDep
  /// app sends) and anything else keep `previous` (raw when nothing came before).
  static func carriesAPDUs(command data: [UInt8], previous: Bool?) -> Bool {
    guard let first = data.first else { return previous ?? false }
    if data.count >= 4, first <= 0x0F || (0x80...0x9F).contains(first) { return true }
    if rawCommandCodes.contains(first) { return false }
    return previous ?? false
  }

  /// Raw commands whose next reader frame is their second step (NXP NTAG I2C SECTOR_SELECT,
  /// COMPATIBILITY_WRITE, MIFARE Classic DECREMENT/INCREMENT/RESTORE, Ultralight C AUTHENTICATE).
  /// The frame after one of them (SECTOR_SELECT's sector, COMPATIBILITY_WRITE's 16 bytes, a
  /// MIFARE Classic value, the AUTHENTICATE continuation) is raw whatever its first byte.
  static let twoStepCodes: Set<UInt8> = [0xC2, 0xA0, 0xC0, 0xC1, 0x1A, 0xAF]

  /// NFC Forum Type 2 / NTAG / MIFARE Ultralight and Classic command codes that no APDU and no
  /// native DESFire command starts with.
  private static let rawCommandCodes: Set<UInt8> = [
    0x30, 0xA2, 0xA0, 0x3A, 0x1B, 0x39, 0x3C, 0xC2, 0x4B, 0x3E, 0xA5, 0xA9, 0xAC, 0x50, 0x61,
    0xB0, 0xC0, 0xC1,
  ]

  /// Removes the prefix from a data frame; false when the frame does not start with it.
  static func strip(_ frame: inout Frame) -> Bool {
    guard frame.direction != .event else { return true }
    guard frame.data.first == prefix else { return false }
    frame.data.removeFirst()
    return true
  }
}
