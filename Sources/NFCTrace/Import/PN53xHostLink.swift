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
///
/// APDUs other than the ACR122 pseudo-APDUs (a PC/SC reader's storage-card commands, APDUs
/// for the card itself) are not frames this decoder can place on the air: they are reported
/// once as a warning.
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
  private var warnedOtherAPDU = false

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
      if first != 0x62 { hostAPDU(body, &out) }
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

  /// ACR122 pseudo-APDU (ACR122U API §6): `FF 00 00 00 Lc` + PN53x command. Reader-control
  /// APDUs (GET RESPONSE FF C0, LED/buzzer, operating parameters) carry no frame.
  private mutating func hostAPDU(_ apdu: [UInt8], _ out: inout Output) {
    guard apdu.count >= 6, apdu[0] == 0xFF, apdu[1] == 0x00, apdu[2] == 0x00, apdu[3] == 0x00,
      apdu[5] == 0xD4
    else {
      if apdu.count >= 4, apdu[0] != 0xFF, !warnedOtherAPDU {
        warnedOtherAPDU = true
        out.warnings.append(
          "APDU \(Hex.string(apdu.prefix(4), separator: " ")) sent to the reader is not an "
            + "ACR122 pseudo-APDU (FF 00 00 00 Lc D4 …); the reader's own ISO-DEP framing of "
            + "such APDUs is not in the capture, so they are not shown (reported once)")
      }
      return
    }
    let lc = Int(apdu[4])
    let end = min(apdu.count, 5 + lc)
    if 5 + lc != apdu.count { out.warnings.append("pseudo-APDU Lc \(lc) does not match its data") }
    add(chip.command(Array(apdu[5..<end])), &out)
  }

  /// An answer ending in SW1SW2: `D5 …` + `90 00`, or a status word alone.
  private mutating func readerAnswer(_ body: [UInt8], _ out: inout Output) {
    guard body.count >= 2 else { return }
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
