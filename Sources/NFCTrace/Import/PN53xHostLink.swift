/// A frame that went over the air, recovered from a PN53x reader chip's host traffic, before
/// an importer gives it an index, a time and a location.
public struct ReaderChipFrame: Sendable {
  /// `.reader`, `.tag`, or `.event` for field on/off.
  public var direction: Direction
  /// Field on/off for `.event` frames.
  public var event: FrameEvent?
  /// The frame's bytes as sent or received over the air (CRC as `crc` says).
  public var data: [UInt8]
  /// Valid bits of a short frame (1…7), nil for whole bytes.
  public var bits: Int?
  /// `.notCaptured` when the chip added and stripped CRC_A, `.unchecked` when the host did.
  public var crc: CRCStatus
  /// The technology the host selected (InListPassiveTarget's BrTy), `.unknown` before that.
  public var technology: Technology
  /// `pn53x-target-info`, `pn53x-empty-answer`, `pn53x-more-information`,
  /// `pn53x-rfconfiguration`, `uid=<hex>`.
  public var flags: [String]
}

/// The host side of a PN53x-based reader (PN531/532/533, ACR122): turns the bytes the host
/// sent to the reader and received from it — as a libnfc log or a USB capture shows them —
/// into the frames that went over the air (`PN53xInterpreter`), with the problems met.
///
/// Transports it unwraps, told apart by their first bytes:
/// - PN53x host-link frames (PN533 user manual §6.2): `00 00 FF LEN LCS TFI …`, extended
///   frames, ACK/NACK (ignored), a frame split over several reads reassembled
///   (`PN53xFraming`); or a bare `D4 …`/`D5 …` frame.
/// - ACR122 over USB CCID (CCID 1.1 §6.1/§6.2): `PC_to_RDR_XfrBlock` (6F) / `Escape` (6B) /
///   `IccPowerOn` (62) and `RDR_to_PC_DataBlock` (80) / `SlotStatus` (81) / `Escape` (83),
///   10-byte headers; inside, the pseudo-APDU `FF 00 00 00 Lc` + PN53x command, answered by
///   the PN53x response + SW1SW2 `90 00`, or `61 xx` then GET RESPONSE `FF C0 00 00 xx`
///   (ACR122U API §6).
/// - The same pseudo-APDUs without CCID header (ACR122 through PC/SC).
/// - Any PC/SC contactless reader's APDUs over CCID: storage-card READ/UPDATE BINARY
///   (`FF B0`/`FF D6`, PC/SC 2.01 part 3) become the tag's READ/WRITE, and APDUs for the card
///   (CLA ≠ FF) are shown as the INF of ISO-DEP blocks the reader built (see `hostAPDU`).
public struct PN53xHostLink: Sendable {
  /// What one read or write of the host gave.
  public struct Output: Sendable {
    /// Frames recovered, in order.
    public var frames: [ReaderChipFrame] = []
    /// Problems met that did not stop decoding (status errors, checksums, unknown bytes).
    public var warnings: [String] = []
  }

  private var txLink = PN53xFraming()
  private var rxLink = PN53xFraming()
  private var chip = PN53xInterpreter()
  /// The APDU sent to the reader whose answer is awaited (kept across ACR122 GET RESPONSE).
  private var pendingAPDU = PendingAPDU.none
  /// Keys loaded into the reader (LOAD KEYS `FF 82`), by key number.
  private var keys: [UInt8: [UInt8]] = [:]
  /// The card's UID, once GET DATA reported it.
  private var uid: [UInt8]?
  /// The ATR of the last IccPowerOn, held until the next command says whose it is: a card's
  /// when the application then uses PC/SC commands or card APDUs, the reader's own when it
  /// drives the PN53x directly (ACR122 `FF 00 …`, as libnfc does).
  private var heldATR: [UInt8]?

  private enum PendingAPDU {
    case none
    /// An APDU for the card, forwarded in ISO-DEP blocks the reader builds.
    case card
    /// PC/SC READ BINARY of a storage card: the reader sends READ `page`.
    case readBinary(page: UInt8)
    /// PC/SC UPDATE BINARY of a storage card: the reader sends WRITE.
    case updateBinary
    /// CCID IccPowerOn: the answer is the ATR the reader built for the card.
    case powerOn
    /// PC/SC GET DATA UID.
    case getUID
    /// PC/SC GENERAL AUTHENTICATE of a MIFARE Classic block.
    case authenticate

    var isCard: Bool {
      if case .card = self { return true }
      return false
    }
  }

  /// A link in its power-on state.
  public init() {}

  /// True when `bytes`, the first bytes a host sent to a device, look like this link's
  /// traffic: a PN53x frame, a `D4` command, a CCID command header whose `dwLength` matches,
  /// or an ACR122 pseudo-APDU.
  public static func recognizes(hostBytes bytes: [UInt8]) -> Bool {
    guard let first = bytes.first else { return false }
    if bytes.starts(with: [0x00, 0x00, 0xFF]) || bytes.starts(with: [0x00, 0xFF]) { return true }
    if first == 0xD4 { return true }
    if first == 0xFF, bytes.count >= 5 { return true }
    // CCID PC_to_RDR_* message types 0x61…0x6F (CCID 1.1 §6.1).
    guard (0x61...0x6F).contains(first), bytes.count >= 10 else { return false }
    return ccidLength(bytes) == bytes.count - 10
  }

  /// True when `bytes`, the first bytes a device sent to the host, look like this link's
  /// traffic: a PN53x frame or ACK, a `D5` response, or a CCID answer header whose `dwLength`
  /// matches.
  public static func recognizes(readerBytes bytes: [UInt8]) -> Bool {
    guard let first = bytes.first else { return false }
    if bytes.starts(with: [0x00, 0x00, 0xFF]) || bytes.starts(with: [0x00, 0xFF]) { return true }
    if first == 0xD5 { return true }
    guard (0x80...0x84).contains(first), bytes.count >= 10 else { return false }
    return ccidLength(bytes) == bytes.count - 10
  }

  /// Frames for bytes the host sent to the reader.
  public mutating func hostToReader(_ bytes: [UInt8]) -> Output {
    var out = Output()
    if rxLink.isPending {
      let dropped = rxLink.reset()
      out.warnings.append(
        "incomplete PN53x answer (\(dropped) bytes) dropped before the next command")
    }
    guard let first = bytes.first else { return out }
    switch first {
    case 0x62, 0x6B, 0x6F:  // CCID IccPowerOn, Escape, XfrBlock
      guard let body = ccidBody(bytes, &out) else { return out }
      if first == 0x62 { pendingAPDU = .powerOn } else { hostAPDU(body, &out) }
    case 0x61, 0x63...0x6A, 0x6C...0x6E:  // other CCID commands: no reader frame
      break
    case 0xFF: hostAPDU(bytes, &out)
    case 0xD4: add(chip.command(bytes), &out)
    default: linkFrames(txLink.feed(bytes), host: true, &out)
    }
    return out
  }

  /// Frames for bytes the reader sent to the host.
  public mutating func readerToHost(_ bytes: [UInt8]) -> Output {
    var out = Output()
    guard let first = bytes.first else { return out }
    // The rest of a PN53x frame split over several reads (UART drivers).
    if rxLink.isPending {
      linkFrames(rxLink.feed(bytes), host: false, &out)
      return out
    }
    switch first {
    case 0x80, 0x81, 0x83:  // CCID DataBlock, SlotStatus, Escape answer
      guard bytes.count >= 10 else {
        out.warnings.append("CCID answer shorter than its 10-byte header")
        return out
      }
      if bytes.count == 10, bytes[8] == 0xFE {
        out.warnings.append("CCID: the reader reports ICC mute (command timed out)")
        return out
      }
      guard let body = ccidBody(bytes, &out) else { return out }
      readerAnswer(body, &out)
    case 0x82, 0x84: break  // CCID Parameters, DataRateAndClockFrequency
    case 0xD5, 0x7F: add(chip.response(bytes), &out)
    default:
      if bytes.count >= 2, bytes.count <= 4, bytes[0] != 0x00 {
        readerAnswer(bytes, &out)  // PC/SC: a bare status word
      } else {
        linkFrames(rxLink.feed(bytes), host: false, &out)
      }
    }
    return out
  }

  // MARK: - CCID and pseudo-APDUs

  private static func ccidLength(_ bytes: [UInt8]) -> Int {
    Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16 | Int(bytes[4]) << 24
  }

  /// The CCID message body after the 10-byte header (CCID 1.1 §6.1/§6.2, dwLength LE).
  private func ccidBody(_ bytes: [UInt8], _ out: inout Output) -> [UInt8]? {
    guard bytes.count >= 10 else {
      out.warnings.append("CCID message shorter than its 10-byte header")
      return nil
    }
    let length = Self.ccidLength(bytes)
    guard 10 + length <= bytes.count else {
      out.warnings.append(
        "CCID dwLength \(length) exceeds the \(bytes.count - 10) bytes that follow")
      return Array(bytes.dropFirst(10))
    }
    return Array(bytes[10..<(10 + length)])
  }

  /// An APDU the host sent a PC/SC reader (CCID XfrBlock, or a PC/SC log):
  /// - ACR122 direct transmit `FF 00 00 00 Lc` + PN53x command (ACR122U API §6);
  /// - PC/SC 2.01 part 3 storage-card commands (§3.2.2.1.8–9; ACR122U API §5): READ BINARY
  ///   `FF B0 00 P2 Le` is the tag READ of page/block P2, UPDATE BINARY `FF D6 00 P2 Lc data`
  ///   a Type 2 WRITE (4 bytes) or a MIFARE Classic WRITE (16 bytes) of P2;
  /// - any other CLA: an APDU for the card, which the reader carries in ISO-DEP blocks it
  ///   builds itself (flagged `ReaderChipFlag.isoDEPPayload`).
  /// Other reader-control APDUs (GET RESPONSE `FF C0`, GET DATA `FF CA`, keys, LEDs) carry no
  /// frame.
  private mutating func hostAPDU(_ apdu: [UInt8], _ out: inout Output) {
    guard apdu.count >= 4 else { return }
    if let atr = heldATR {
      heldATR = nil
      if !(apdu[0] == 0xFF && apdu[1] == 0x00) {
        out.frames.append(Self.frame(.tag, atr, flags: [ReaderChipFlag.atr]))
      }
    }
    guard apdu[0] == 0xFF else {
      pendingAPDU = .card
      out.frames.append(Self.frame(.reader, apdu, flags: [ReaderChipFlag.isoDEPPayload]))
      return
    }
    let (ins, p1, p2) = (apdu[1], apdu[2], apdu[3])
    let data = Array(apdu.dropFirst(5))
    switch ins {
    case 0x00 where p1 == 0 && p2 == 0 && apdu.count >= 6 && apdu[5] == 0xD4:
      pendingAPDU = .none
      let lc = Int(apdu[4])
      let end = min(apdu.count, 5 + lc)
      if 5 + lc != apdu.count {
        out.warnings.append("pseudo-APDU Lc \(lc) does not match its data")
      }
      add(chip.command(Array(apdu[5..<end])), &out)
    case 0xB0 where p1 == 0 && apdu.count == 5:
      pendingAPDU = .readBinary(page: p2)
      out.frames.append(Self.frame(.reader, [0x30, p2], flags: [ReaderChipFlag.readBinary]))
    case 0xCA where p1 == 0 && p2 == 0:
      pendingAPDU = .getUID
    case 0x82 where data.count == 6:
      keys[p2] = data
    case 0x86 where data.count == 5 && data[0] == 0x01:
      authenticate(block: data[2], keyType: data[3], keyNumber: data[4], &out)
    case 0xD6 where p1 == 0 && (data.count == 4 || data.count == 16):
      pendingAPDU = .updateBinary
      // A 16-byte block is MIFARE Classic's WRITE, which the reader runs in two steps.
      let command: [UInt8] = data.count == 4 ? [0xA2, p2] : [0xA0, p2]
      out.frames.append(Self.frame(.reader, command + data, flags: []))
    default:
      break
    }
  }

  /// PC/SC GENERAL AUTHENTICATE (`FF 86 00 00 05 01 00 block keyType keyNumber`, PC/SC 2.01
  /// part 3 §3.2.2.1.6): shown as the AUTH a reader chip carries out — `60`/`61` block key
  /// UID — when the key loaded under that number and the UID are known.
  private mutating func authenticate(
    block: UInt8, keyType: UInt8, keyNumber: UInt8, _ out: inout Output
  ) {
    guard keyType == 0x60 || keyType == 0x61, let key = keys[keyNumber], let uid, uid.count >= 4
    else {
      out.warnings.append(
        "GENERAL AUTHENTICATE of block \(block): the key or the UID it uses is not in the "
          + "capture, so the AUTH is not shown")
      return
    }
    pendingAPDU = .authenticate
    out.frames.append(Self.frame(.reader, [keyType, block] + key + uid.suffix(4), flags: []))
  }

  private static func frame(_ direction: Direction, _ data: [UInt8], flags: [String])
    -> ReaderChipFrame
  {
    ReaderChipFrame(
      direction: direction, event: nil, data: data, bits: nil, crc: .notCaptured,
      technology: .unknown, flags: flags)
  }

  /// The answer to a card APDU or a storage-card command (`pendingAPDU`), ending in SW1SW2.
  /// Nil when no such command is waiting.
  private mutating func storageOrCardAnswer(_ body: [UInt8], _ out: inout Output) -> Bool {
    let pending = pendingAPDU
    pendingAPDU = .none
    let ok = body.suffix(2) == [0x90, 0x00]
    let sw = Hex.string(body.suffix(2), separator: " ")
    switch pending {
    case .none:
      return false
    case .powerOn:
      // The ATR, without a status word (CCID RDR_to_PC_DataBlock).
      heldATR = body
    case .getUID:
      guard ok, body.count > 2 else { return true }
      uid = Array(body.dropLast(2))
      out.frames.append(Self.frame(.tag, Array(body.dropLast(2)), flags: [ReaderChipFlag.uid]))
    case .authenticate:
      guard ok else {
        out.warnings.append("GENERAL AUTHENTICATE failed: reader status word \(sw)")
        return true
      }
      out.frames.append(Self.frame(.tag, [], flags: [ReaderChipFlag.emptyAnswer]))
    case .card:
      // The card's own answer, status word included.
      out.frames.append(Self.frame(.tag, body, flags: [ReaderChipFlag.isoDEPPayload]))
    case .readBinary:
      guard ok else {
        out.warnings.append("READ BINARY failed: reader status word \(sw)")
        return true
      }
      out.frames.append(
        Self.frame(.tag, Array(body.dropLast(2)), flags: [ReaderChipFlag.readBinary]))
    case .updateBinary:
      guard ok else {
        out.warnings.append("UPDATE BINARY failed: reader status word \(sw)")
        return true
      }
      out.frames.append(Self.frame(.tag, [], flags: [ReaderChipFlag.emptyAnswer]))
    }
    return true
  }

  /// An answer ending in SW1SW2: `D5 …` + `90 00`, or a status word alone.
  private mutating func readerAnswer(_ body: [UInt8], _ out: inout Output) {
    guard body.count >= 2 else { return }
    // 61 xx from the reader itself (not a card's answer): fetched by the GET RESPONSE that
    // follows.
    if body.count == 2, body[0] == 0x61, !pendingAPDU.isCard { return }
    if storageOrCardAnswer(body, &out) { return }
    let sw1 = body[body.count - 2]
    let sw2 = body[body.count - 1]
    let sw = Hex.string([sw1, sw2], separator: " ")
    let data = Array(body.dropLast(2))
    if data.first == 0xD5 || data.first == 0x7F {
      if sw1 != 0x90 || sw2 != 0x00 {
        out.warnings.append("reader status word \(sw) after a PN53x answer")
      }
      return add(chip.response(data), &out)
    }
    guard data.isEmpty else { return }  // an ATR or another reader answer
    switch (sw1, sw2) {
    case (0x90, 0x00), (0x61, _): break  // 61 xx: fetched by the following GET RESPONSE
    case (0x63, 0x00): out.warnings.append("reader status 63 00: the PN53x did not reply")
    case (0x63, 0x7F): out.warnings.append("reader status 63 7F: PN53x application-level error")
    default: out.warnings.append("reader status word \(sw)")
    }
  }

  // MARK: - PN53x frames

  private mutating func linkFrames(
    _ result: (items: [PN53xFraming.Item], problems: [String]), host: Bool, _ out: inout Output
  ) {
    out.warnings += result.problems
    for case .information(let frame) in result.items {
      add(host ? chip.command(frame) : chip.response(frame), &out)
    }
  }

  private func add(_ result: ([ReaderChipFrame], [String]), _ out: inout Output) {
    out.warnings += result.1
    out.frames += result.0
  }
}
