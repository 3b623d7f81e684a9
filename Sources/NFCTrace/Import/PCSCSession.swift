/// What a PC/SC contactless reader did for the application, from the APDUs the application
/// sent it (CCID XfrBlock bodies): the card it activated and the tag commands it sent for the
/// PC/SC 2.01 part 3 storage-card commands, as `ReaderChipFrame`s.
///
/// - IccPowerOn's ATR and GET DATA `FF CA 00 00` (UID) stand for the activation
///   (`ReaderChipFlag.atr`, `.uid`). The ATR is held until the application's next command
///   shows whose it is: a card's when storage-card commands or card APDUs follow, the reader's
///   own when the application drives a PN53x through ACR122 direct transmit (`FF 00 00 00 Lc
///   D4`, as libnfc does). Its frame then takes that command's time.
/// - READ BINARY `FF B0 00 P2 Le` is the READ of page/block P2 (Le < 16 returns the first Le
///   bytes of its answer: `ReaderChipFlag.readBinary`); UPDATE BINARY `FF D6 00 P2 Lc data` a
///   Type 2 WRITE (Lc 4) or a MIFARE Classic WRITE (Lc 16, in the one-frame form a reader chip
///   takes). Only for ISO/IEC 14443-3 type A storage cards (ATR standard byte 03, or no ATR).
/// - GENERAL AUTHENTICATE `FF 86 00 00 05 01 00 block keyType keyNumber` is the AUTH a reader
///   chip carries out (`60`/`61` block key UID), with the key of LOAD KEYS `FF 82` and the UID.
/// - Any APDU with CLA ≠ FF is for the card: the reader carries it, and the card's answer, in
///   ISO-DEP blocks it builds itself (`ReaderChipFlag.isoDEPPayload`).
/// - A reader status word other than 90 00 to a storage command (63 00 "operation failed":
///   a NAK, a wrong key, no answer — the reader does not say which) is a tag frame flagged
///   `ReaderChipFlag.readerFailure`, so that the command is refused, not left unanswered.
/// Sources: PC/SC 2.01 part 3 §3.1.3.2.3 (ATR), §3.2.2.1 (storage card commands); ACR122U
/// API §4–§6.
struct PCSCSession: Sendable {
  private enum Pending {
    case none
    case card
    case readBinary
    case updateBinary
    case getUID
    case authenticate
  }

  private var pending = Pending.none
  /// True between IccPowerOn and its answer.
  private(set) var awaitingATR = false
  private var keys: [UInt8: [UInt8]] = [:]
  private var uid: [UInt8]?
  private var heldATR: [UInt8]?
  private var storageTypeA = true
  private var warnedStorage = false

  /// The card left or was powered down (or is powered on again): forget it.
  mutating func cardRemoved() {
    pending = .none
    awaitingATR = false
    uid = nil
    heldATR = nil
    storageTypeA = true
  }

  /// IccPowerOn's answer: the ATR, held until the next command says whose it is.
  mutating func poweredOn(atr: [UInt8]) {
    cardRemoved()
    heldATR = atr
    if let name = PCSCCardName(atr: atr) { storageTypeA = name.standard == 0x03 }
  }

  /// Frames for an APDU sent to the reader (ACR122 direct transmit only releases a held ATR:
  /// the caller hands its PN53x command to the chip interpreter).
  mutating func command(_ apdu: [UInt8], _ out: inout PN53xHostLink.Output) {
    guard apdu.count >= 4 else { return }
    let directTransmit = Self.isDirectTransmit(apdu)
    // GET RESPONSE fetches the answer of the command before it.
    if !(apdu[0] == 0xFF && apdu[1] == 0xC0) { pending = .none }
    releaseATR(for: apdu, directTransmit: directTransmit, &out)
    guard apdu[0] == 0xFF else {
      pending = .card
      out.frames.append(Self.frame(.reader, apdu, [ReaderChipFlag.isoDEPPayload]))
      return
    }
    let (ins, p1, p2) = (apdu[1], apdu[2], apdu[3])
    let data = Array(apdu.dropFirst(5))
    switch ins {
    case 0xB0 where p1 == 0 && apdu.count == 5:
      guard storageCommand(&out) else { return }
      pending = .readBinary
      out.frames.append(Self.frame(.reader, [0x30, p2], [ReaderChipFlag.readBinary]))
    case 0xD6 where p1 == 0 && Int(apdu[4]) == data.count && (data.count == 4 || data.count == 16):
      guard storageCommand(&out) else { return }
      pending = .updateBinary
      // 16 bytes: a MIFARE Classic block, written in the one-frame form of reader chips.
      out.frames.append(Self.frame(.reader, [data.count == 4 ? 0xA2 : 0xA0, p2] + data, []))
    case 0xB0, 0xD6:
      out.warnings.append(
        "\(ins == 0xB0 ? "READ" : "UPDATE") BINARY \(Hex.string(apdu.prefix(5), separator: " ")) "
          + "in a form not translated to tag commands (expected P1 00 and Le, or Lc 4 or 16 "
          + "matching its data): not shown")
    case 0xCA where p1 == 0 && p2 == 0:
      pending = .getUID
    case 0x82 where data.count == 6:
      keys[p2] = data
    case 0x86 where data.count == 5 && data[0] == 0x01:
      authenticate(block: data[2], keyType: data[3], keyNumber: data[4], &out)
    default:
      break
    }
  }

  /// True for ACR122 direct transmit `FF 00 00 00 Lc D4 …`.
  static func isDirectTransmit(_ apdu: [UInt8]) -> Bool {
    apdu.count >= 6 && apdu[0] == 0xFF && apdu[1] == 0x00 && apdu[2] == 0x00 && apdu[3] == 0x00
      && apdu[5] == 0xD4
  }

  /// The held ATR is the card's when a storage command or a card APDU follows; the reader's
  /// when the application drives the chip directly. Other reader commands keep it held.
  private mutating func releaseATR(
    for apdu: [UInt8], directTransmit: Bool, _ out: inout PN53xHostLink.Output
  ) {
    guard let atr = heldATR else { return }
    if directTransmit {
      heldATR = nil
    } else if apdu[0] != 0xFF || [0xB0, 0xD6, 0xCA, 0x86].contains(apdu[1]) {
      heldATR = nil
      out.frames.append(Self.frame(.tag, atr, [ReaderChipFlag.atr]))
    }
  }

  /// Storage commands are translated for type A storage cards only.
  private mutating func storageCommand(_ out: inout PN53xHostLink.Output) -> Bool {
    if storageTypeA { return true }
    if !warnedStorage {
      warnedStorage = true
      out.warnings.append(
        "READ/UPDATE BINARY to a card that is not an ISO/IEC 14443-3 type A storage card (see "
          + "its ATR): not shown (reported once)")
    }
    return false
  }

  private mutating func authenticate(
    block: UInt8, keyType: UInt8, keyNumber: UInt8, _ out: inout PN53xHostLink.Output
  ) {
    guard keyType == 0x60 || keyType == 0x61, let key = keys[keyNumber], let uid, uid.count >= 4
    else {
      out.warnings.append(
        "GENERAL AUTHENTICATE of block \(block): the key or the UID it uses is not in the "
          + "capture, so the AUTH is not shown")
      return
    }
    pending = .authenticate
    out.frames.append(Self.frame(.reader, [keyType, block] + key + uid.suffix(4), []))
  }

  /// The answer (data + SW1SW2) to the pending command; false when none is pending.
  mutating func answer(_ body: [UInt8], _ out: inout PN53xHostLink.Output) -> Bool {
    let was = pending
    // The reader's own 61 xx: the answer follows the GET RESPONSE.
    if body.count == 2, body[0] == 0x61, was != .card, was != .none { return true }
    pending = .none
    let ok = body.count >= 2 && body.suffix(2) == [0x90, 0x00]
    let data = Array(body.dropLast(2))
    switch was {
    case .none:
      return false
    case .card:
      out.frames.append(Self.frame(.tag, body, [ReaderChipFlag.isoDEPPayload]))
    case .getUID:
      guard ok, !data.isEmpty else { return true }
      uid = data
      out.frames.append(Self.frame(.tag, data, [ReaderChipFlag.uid]))
    case .readBinary, .updateBinary, .authenticate:
      guard ok else {
        out.warnings.append("the reader reports that the command failed: \(Self.meaning(body))")
        out.frames.append(Self.frame(.tag, [], [ReaderChipFlag.readerFailure]))
        return true
      }
      let flags = was == .readBinary ? [ReaderChipFlag.readBinary] : [ReaderChipFlag.emptyAnswer]
      out.frames.append(Self.frame(.tag, was == .readBinary ? data : [], flags))
    }
    return true
  }

  /// IccPowerOff: a held ATR is a card's that was tapped without a command; the session ends.
  mutating func poweredOff(_ out: inout PN53xHostLink.Output) {
    if let atr = heldATR { out.frames.append(Self.frame(.tag, atr, [ReaderChipFlag.atr])) }
    cardRemoved()
    out.frames.append(
      .field(.fieldOff, flag: "ccid-icc-power-off"))
  }

  /// IccPowerOn was sent: its answer is the ATR.
  mutating func poweringOn() {
    cardRemoved()
    awaitingATR = true
  }

  /// A command failed in the reader (CCID ICC mute, an empty answer): nothing answers it.
  mutating func mute() {
    pending = .none
    awaitingATR = false
  }

  /// Reader status words (ACR122U API §5–§6; PC/SC 2.01 part 3).
  static func meaning(_ body: [UInt8]) -> String {
    let sw = Hex.string(body.suffix(2), separator: " ")
    switch (body.suffix(2).first, body.last) {
    case (0x63, 0x00): return "status \(sw), operation failed"
    case (0x63, 0x01): return "status \(sw), the PN532 did not respond"
    case (0x63, 0x27): return "status \(sw), checksum error in the PN532's answer"
    case (0x63, 0x7F): return "status \(sw), the PN532 command was wrong"
    case (0x6A, 0x81): return "status \(sw), function not supported"
    case (0x69, 0x82): return "status \(sw), security status not satisfied"
    default: return "status \(sw)"
    }
  }

  static func frame(_ direction: Direction, _ data: [UInt8], _ flags: [String])
    -> ReaderChipFrame
  {
    .data(direction, data, flags: flags)
  }
}
