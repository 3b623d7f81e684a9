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
  /// `ReaderChipFlag` values, and `uid=<hex>` on a target-info ATQA frame.
  public var flags: [String]

  /// A data frame of `direction` whose CRC the reader handled (`.notCaptured`).
  static func data(
    _ direction: Direction, _ data: [UInt8], technology: Technology = .unknown,
    flags: [String] = []
  ) -> ReaderChipFrame {
    ReaderChipFrame(
      direction: direction, event: nil, data: data, bits: nil, crc: .notCaptured,
      technology: technology, flags: flags)
  }

  /// Activation data an NFC-A reader reported (`ReaderChipFlag.targetInfo` + `extra`).
  static func targetInfo(_ data: [UInt8], extra: [String] = []) -> ReaderChipFrame {
    Self.data(.tag, data, technology: .nfcA, flags: [ReaderChipFlag.targetInfo] + extra)
  }

  /// A field on/off event, with the `flag` naming what the reader did.
  static func field(_ event: FrameEvent, flag: String) -> ReaderChipFrame {
    ReaderChipFrame(
      direction: .event, event: event, data: [], bits: nil, crc: .absent, technology: .unknown,
      flags: [flag])
  }
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
  /// Whether the PN53x has a command it has not answered yet.
  public var chipAwaitsResponse: Bool { chip.awaitingResponse }
  private var pcsc = PCSCSession()
  private var warnedSlot = false
  /// The host just wrote a PN532 SPI status read: the next byte read is the status.
  private var spiStatusAwaited = false
  /// A CCID message whose `dwLength` bytes have not all arrived (a message longer than the
  /// endpoint's packets comes in pieces), per direction.
  private var ccidFromHost: [UInt8]?
  private var ccidFromReader: [UInt8]?

  /// The longest CCID message taken (CCID 1.1 §6: 10-byte header + dwMaxCCIDMessageLength,
  /// at most 65 544 with extended APDUs).
  static let maxCCIDMessage = 65_544 + 10

  /// A link in its power-on state.
  public init() {}

  /// True when `bytes`, the first bytes a host sent to a device, are this link's traffic: a
  /// PN53x frame whose length checksum verifies (or an ACK), or a CCID command whose type is
  /// known and whose `dwLength` matches.
  public static func recognizes(hostBytes bytes: [UInt8]) -> Bool {
    if isPN53xFrame(bytes) { return true }
    guard let first = bytes.first, (0x61...0x73).contains(first), bytes.count >= 10 else {
      return false
    }
    return ccidLength(bytes) == bytes.count - 10
  }

  /// True when `bytes`, the first bytes a device sent to the host, are this link's traffic: a
  /// PN53x frame whose length checksum verifies (or an ACK), or a CCID answer whose type is
  /// known and whose `dwLength` matches.
  public static func recognizes(readerBytes bytes: [UInt8]) -> Bool {
    if isPN53xFrame(bytes) { return true }
    guard let first = bytes.first, (0x80...0x84).contains(first), bytes.count >= 10 else {
      return false
    }
    return ccidLength(bytes) == bytes.count - 10
  }

  /// `00 00 FF` (preamble optional) + LEN LCS with LEN + LCS = 0, ACK `00 FF` or NACK `FF 00`,
  /// or the extended-frame marker `FF FF` (PN533 user manual §6.2).
  private static func isPN53xFrame(_ b: [UInt8]) -> Bool {
    let s = b.starts(with: [0x00, 0x00, 0xFF]) ? 3 : b.starts(with: [0x00, 0xFF]) ? 2 : -1
    guard s > 0, s + 2 <= b.count else { return false }
    let (len, lcs) = (b[s], b[s + 1])
    return len &+ lcs == 0 || (len == 0xFF && (lcs == 0x00 || lcs == 0xFF))
  }

  /// `b` without a leading PN532 wake-up (`55 55` and the zeros after it); the `00` before a
  /// start code `00 FF` that follows stays.
  static func droppingHSUWakeUp(_ b: [UInt8]) -> [UInt8] {
    guard b.count >= 2, b[0] == 0x55, b[1] == 0x55 else { return b }
    var i = 2
    while i < b.count, b[i] == 0x00 { i += 1 }
    if i < b.count, b[i] == 0xFF, i > 2 { i -= 1 }  // keep the 00 of the start code
    guard i == b.count || b[i] == 0x00 else { return b }  // not a wake-up after all
    return Array(b[i...])
  }

  /// PN532 SPI operation bytes (PN532 user manual §6.2.5): the host's first byte of each
  /// transfer: data write, status read, data read.
  static let spiDataWrite: UInt8 = 0x01
  static let spiStatusRead: UInt8 = 0x02
  static let spiDataRead: UInt8 = 0x03

  /// `b` without the PN532 SPI data-write byte `01` before a host-link frame (`01 00 00 FF …`
  /// or `01 00 FF …`).
  static func droppingSPIDataWrite(_ b: [UInt8]) -> [UInt8] {
    guard b.count >= 4, b[0] == spiDataWrite, b[1] == 0x00,
      b[2] == 0xFF || (b[2] == 0x00 && b[3] == 0xFF)
    else { return b }
    return Array(b.dropFirst())
  }

  /// Frames for bytes the host sent to the reader.
  public mutating func hostToReader(_ bytes: [UInt8]) -> Output {
    var out = Output()
    // PN532 over SPI (PN532 user manual §6.2.5; libnfc pn532_spi): a status read `02` or a data
    // read `03` is no command, and a data read comes between the pieces of one answer, so it
    // must not drop them.
    if ccidFromHost == nil, bytes.count == 1,
      bytes[0] == Self.spiStatusRead || bytes[0] == Self.spiDataRead
    {
      spiStatusAwaited = bytes[0] == Self.spiStatusRead
      return out
    }
    spiStatusAwaited = false
    if rxLink.isPending {
      // Zeros alone are a postamble or preamble read apart from their frame (PN532 SPI).
      let padding = rxLink.holdsOnlyZeros
      let dropped = rxLink.reset()
      if !padding {
        out.warnings.append(
          "incomplete PN53x answer (\(dropped) bytes) dropped before the next command")
      }
    }
    // PN532 HSU wake-up (PN532 user manual §7.2.11, libnfc pn532_uart): `55 55` then zeros,
    // sent before the first command, alone or in the same write. No frame, nothing lost.
    let bytes = Self.droppingHSUWakeUp(Self.droppingSPIDataWrite(bytes))
    guard let first = bytes.first else { return out }
    flushLying(host: false, &out)
    if ccidFromHost != nil, Self.recognizes(hostBytes: bytes) {
      flushLying(host: true, &out)
    }
    if let whole = Self.joinCCID(&ccidFromHost, bytes, &out) {
      if !whole.isEmpty { ccidCommand(whole, &out) }
      return out
    }
    // The rest of a PN53x frame split over several writes, unless a new frame starts.
    if txLink.isPending {
      guard bytes.starts(with: [0x00, 0x00, 0xFF]) else {
        linkFrames(txLink.feed(bytes), host: true, &out)
        return out
      }
      let dropped = txLink.reset()
      out.warnings.append("incomplete PN53x command (\(dropped) bytes) dropped: a new one starts")
    }
    switch first {
    case 0x61...0x73:  // CCID PC_to_RDR_* (CCID 1.1 §6.1)
      if let whole = Self.startCCID(&ccidFromHost, bytes, &out) { ccidCommand(whole, &out) }
    case 0xFF: apdu(bytes, &out)
    case 0xD4: add(chip.command(bytes), &out)
    default: linkFrames(txLink.feed(bytes), host: true, &out)
    }
    return out
  }

  /// Frames for bytes the reader sent to the host.
  public mutating func readerToHost(_ bytes: [UInt8]) -> Output {
    var out = Output()
    // The PN532's SPI status byte (`01` ready, `00` busy) answers a status read: no frame.
    if spiStatusAwaited {
      spiStatusAwaited = false
      if bytes.count == 1 { return out }
    }
    guard let first = bytes.first else { return out }
    flushLying(host: true, &out)
    if ccidFromReader != nil, Self.recognizes(readerBytes: bytes) {
      flushLying(host: false, &out)
    }
    if let whole = Self.joinCCID(&ccidFromReader, bytes, &out) {
      if !whole.isEmpty { ccidAnswer(whole, &out) }
      return out
    }
    // The rest of a PN53x frame split over several reads (UART drivers).
    if rxLink.isPending {
      linkFrames(rxLink.feed(bytes), host: false, &out)
      return out
    }
    switch first {
    case 0x80...0x84:  // CCID RDR_to_PC_* (CCID 1.1 §6.2)
      if let whole = Self.startCCID(&ccidFromReader, bytes, &out) { ccidAnswer(whole, &out) }
    case 0xD5, 0x7F:
      // A bare PN53x answer is the ACR122's through PC/SC (libnfc acr122_pcsc), followed by
      // the reader's status word.
      if bytes.count >= 4 { readerAnswer(bytes, &out) } else { add(chip.response(bytes), &out) }
    default:
      if bytes.count >= 2, bytes.count <= 4, bytes[0] != 0x00 {
        readerAnswer(bytes, &out)  // PC/SC: a bare status word
      } else {
        linkFrames(rxLink.feed(bytes), host: false, &out)
      }
    }
    return out
  }

  // MARK: - CCID

  private static func ccidLength(_ bytes: [UInt8]) -> Int {
    Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16 | Int(bytes[4]) << 24
  }

  /// A CCID message starting with `bytes`: the whole message, or nil while its `dwLength`
  /// bytes have not all arrived (kept in `pending`).
  private static func startCCID(
    _ pending: inout [UInt8]?, _ bytes: [UInt8], _ out: inout Output
  ) -> [UInt8]? {
    guard bytes.count >= 10 else { return bytes }
    let total = 10 + ccidLength(bytes)
    guard total > bytes.count, total <= maxCCIDMessage else { return bytes }
    pending = bytes
    return nil
  }

  /// A CCID message still waiting for bytes its `dwLength` announces when the other side
  /// speaks (or a new message starts): a CCID exchange is one message, then its answer
  /// (CCID 1.1 §6), so the message was whole as sent and its `dwLength` lies. It is taken as
  /// it is, with a warning, instead of swallowing the traffic after it.
  private mutating func flushLying(host: Bool, _ out: inout Output) {
    guard var message = host ? ccidFromHost : ccidFromReader else { return }
    if host { ccidFromHost = nil } else { ccidFromReader = nil }
    let body = message.count - 10
    out.warnings.append(
      "CCID \(host ? "command" : "answer") announces \(Self.ccidLength(message)) bytes "
        + "(dwLength) but only \(body) came before the \(host ? "reader's answer" : "next command")"
        + ": taken as it is")
    for k in 0..<4 { message[1 + k] = UInt8(truncatingIfNeeded: body >> (8 * k)) }
    if host { ccidCommand(message, &out) } else { ccidAnswer(message, &out) }
  }

  /// The rest of a CCID message in pieces: nil when none is pending; the whole message once
  /// complete, else an empty array (still waiting).
  private static func joinCCID(
    _ pending: inout [UInt8]?, _ bytes: [UInt8], _ out: inout Output
  ) -> [UInt8]? {
    guard var message = pending else { return nil }
    message += bytes
    let total = 10 + ccidLength(message)
    guard message.count >= total else {
      pending = message
      return []
    }
    pending = nil
    if message.count > total {
      out.warnings.append(
        "CCID message pieces carry \(message.count - total) byte(s) more than its dwLength; "
          + "ignored")
    }
    return Array(message.prefix(total))
  }

  /// The CCID message body after the 10-byte header (CCID 1.1 §6.1/§6.2, dwLength LE), nil
  /// for a message of another slot than 0 (a SAM or contact slot: not the contactless card).
  private mutating func ccidBody(_ bytes: [UInt8], _ out: inout Output) -> [UInt8]? {
    guard bytes.count >= 10 else {
      out.warnings.append("CCID message shorter than its 10-byte header")
      return nil
    }
    guard bytes[5] == 0 else {
      if !warnedSlot {
        warnedSlot = true
        out.warnings.append(
          "CCID slot \(bytes[5]) (a SAM or contact slot, not the contactless card): its "
            + "traffic is not shown (reported once)")
      }
      return nil
    }
    let length = Self.ccidLength(bytes)
    guard 10 + length <= bytes.count else {
      out.warnings.append(
        "CCID dwLength \(length) exceeds the \(bytes.count - 10) bytes that follow")
      return Array(bytes.dropFirst(10))
    }
    if bytes.count > 10 + length {
      out.warnings.append(
        "CCID message carries \(bytes.count - 10 - length) byte(s) past its dwLength "
          + "\(length); ignored")
    }
    return Array(bytes[10..<(10 + length)])
  }

  private mutating func ccidCommand(_ bytes: [UInt8], _ out: inout Output) {
    guard let body = ccidBody(bytes, &out) else { return }
    switch bytes[0] {
    case 0x62: pcsc.poweringOn()  // IccPowerOn: the ATR answers
    case 0x63: pcsc.poweredOff(&out)  // IccPowerOff: the card's session ends
    case 0x6F: apdu(body, &out)
    case 0x6B:
      // Escape: only the PN53x commands some readers take this way (ACR122 direct transmit;
      // ACR122L/ACR1222 `E0 00 00 24 Lc D4 …`); the rest is reader configuration.
      if PCSCSession.isDirectTransmit(body) {
        apdu(body, &out)
      } else if body.count >= 6, body.starts(with: [0xE0, 0x00, 0x00, 0x24]), body[5] == 0xD4 {
        add(chip.command(Array(body[5...])), &out)
      }
    default: break
    }
  }

  private mutating func ccidAnswer(_ bytes: [UInt8], _ out: inout Output) {
    guard bytes.count >= 10 else {
      out.warnings.append("CCID answer shorter than its 10-byte header")
      return
    }
    // bStatus b7–b6 = 2: time extension requested, an interim message the answer follows
    // (CCID 1.1 §6.2.6, bError the BWT multiplier): no answer, and the command still waits.
    if bytes[7] & 0xC0 == 0x80 { return }
    // bStatus b7–b6 = 1: the command failed; bError FE: ICC mute (CCID 1.1 §6.2.6).
    if bytes[7] & 0xC0 == 0x40 {
      pcsc.mute()
      out.warnings.append(
        bytes[8] == 0xFE
          ? "CCID: the reader reports ICC mute (no card, or it did not answer)"
          : "CCID: the reader reports that the command failed (bError \(Hex.string([bytes[8]])))")
      return
    }
    guard let body = ccidBody(bytes, &out) else { return }
    switch bytes[0] {
    case 0x80 where pcsc.awaitingATR:
      pcsc.poweredOn(atr: body)
    case 0x80:
      readerAnswer(body, &out)
    case 0x83:
      // Escape answers: a PN53x answer (ACR122 direct transmit, or ACR122L `E1 00 00 00 Lc`).
      if body.first == 0xD5 || body.first == 0x7F {
        readerAnswer(body, &out)
      } else if body.count >= 6, body.starts(with: [0xE1, 0x00, 0x00, 0x00]) {
        add(chip.response(Array(body[5...])), &out)
      }
    default: break
    }
  }

  // MARK: - APDUs

  /// An APDU to the reader: ACR122 direct transmit goes to the PN53x interpreter, the rest to
  /// the PC/SC session.
  private mutating func apdu(_ apdu: [UInt8], _ out: inout Output) {
    pcsc.command(apdu, &out)
    guard PCSCSession.isDirectTransmit(apdu) else { return }
    let lc = Int(apdu[4])
    if 5 + lc != apdu.count { out.warnings.append("pseudo-APDU Lc \(lc) does not match its data") }
    add(chip.command(Array(apdu[5..<min(apdu.count, 5 + lc)])), &out)
  }

  /// An answer ending in SW1SW2: to a PC/SC command, a PN53x answer + `90 00`, or a bare
  /// status word.
  private mutating func readerAnswer(_ body: [UInt8], _ out: inout Output) {
    guard body.count >= 2 else {
      // No status word, no PN53x answer: the reader returned nothing for the command (an
      // ACR122 whose command timed out answers a DataBlock of length 0 with bError FE; libnfc
      // aborts); nothing more will come for it.
      if chip.awaitingResponse {
        chip.abort()
        out.warnings.append(
          "CCID answer with \(body.count) byte(s) of data: the reader returned nothing for the "
            + "PN53x command (it got no answer)")
      }
      pcsc.mute()
      return
    }
    if pcsc.answer(body, &out) { return }
    let (sw1, sw2) = (body[body.count - 2], body[body.count - 1])
    let data = Array(body.dropLast(2))
    if data.first == 0xD5 || data.first == 0x7F {
      if sw1 != 0x90 || sw2 != 0x00 {
        out.warnings.append("reader status word after a PN53x answer: \(PCSCSession.meaning(body))")
      }
      return add(chip.response(data), &out)
    }
    guard data.isEmpty else { return }  // another reader answer
    // A bare status word answers the direct-transmit pseudo-APDU itself: the PN53x command it
    // carried got no PN53x answer (63 00: the reader reports the operation failed).
    if sw1 != 0x61 { chip.abort() }
    switch (sw1, sw2) {
    case (0x90, 0x00), (0x61, _): break  // 61 xx: fetched by the following GET RESPONSE
    default: out.warnings.append("reader \(PCSCSession.meaning(body))")
    }
  }

  // MARK: - PN53x frames

  private mutating func linkFrames(
    _ result: (items: [PN53xFraming.Item], problems: [String]), host: Bool, _ out: inout Output
  ) {
    out.warnings += result.problems
    for item in result.items {
      switch item {
      case .information(let frame): add(host ? chip.command(frame) : chip.response(frame), &out)
      // An ACK frame from the host aborts the command in progress (PN533 user manual §6.2.1.3).
      case .ack where host: chip.abort()
      default: break
      }
    }
  }

  private func add(_ result: ([ReaderChipFrame], [String]), _ out: inout Output) {
    out.warnings += result.1
    out.frames += result.0
  }
}
