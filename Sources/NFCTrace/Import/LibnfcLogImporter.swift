import Foundation

/// Imports libnfc debug logs (`LIBNFC_LOG_LEVEL=3`): lines `<priority>\t<category>\t<message>`
/// written by libnfc `log.c`, where drivers log host↔reader traffic as `TX: xx xx …` and
/// `RX: xx xx …` (`LOG_HEX` in `log.h`). Tabs turned into spaces (logs pasted into issues)
/// are accepted; other lines are ignored.
///
/// The logged bytes are unwrapped down to PN53x commands and responses:
/// - PN53x host-link frames (pn53x_usb, pn532_uart/spi/i2c, arygon): `00 00 FF LEN LCS TFI …`,
///   extended frames, ACK/NACK (ignored), bytes split over several `RX:` lines reassembled
///   (see `PN53xFraming`).
/// - ACR122 over USB CCID (acr122_usb): `PC_to_RDR_XfrBlock` (6F) / `RDR_to_PC_DataBlock` (80)
///   10-byte headers, the pseudo-APDU `FF 00 00 00 Lc` + PN53x command, answers ending in
///   SW1SW2 `90 00`, or `61 xx` followed by GET RESPONSE `FF C0 00 00 xx` (ACR122U API §6).
/// - The same pseudo-APDUs without CCID header (acr122_pcsc).
/// Then `PN53xInterpreter` turns InDataExchange, InCommunicateThru and InListPassiveTarget
/// into frames.
///
/// Frames: no time in the source, so `timeNs` is 0 for all and `sourceTime` is `.order` with
/// the frame number; CRC `.notCaptured` (the chip handles CRC_A); location unit `line` with
/// the line that completed the frame. Problems that do not stop the import (status errors,
/// checksum errors, unknown bytes) become warnings.
///
/// Errors: `TraceError.malformed` for a `TX:`/`RX:` line whose bytes are not hex.
public struct LibnfcLogImporter: TraceImporter {
  /// `libnfc-log`: libnfc debug log with PN53x / ACR122 TX/RX lines.
  public static let format = TraceFormat(
    name: "libnfc-log",
    summary: "libnfc debug log (LIBNFC_LOG_LEVEL=3) with PN53x/ACR122 TX/RX traffic",
    sniff: { head, _ in LibnfcLogImporter.sniff(head) },
    open: { try LibnfcLogImporter(input: $0) })

  private let input: TraceInput
  private var cursor = 0
  private var line = 0
  private var emitted = 0
  private var queue: [Frame] = []
  private var queueHead = 0
  private var txLink = PN53xFraming()
  private var rxLink = PN53xFraming()
  private var chip = PN53xInterpreter()
  /// Problems met so far that did not stop the import.
  public private(set) var warnings: [TraceWarning] = []

  /// Opens `input`; nothing is read before the first `next()`.
  public init(input: TraceInput) throws {
    self.input = input
    cursor = input.bytes.startIndex
  }

  /// The next frame, nil at the end of the log.
  /// - Throws: `TraceError.malformed` at a TX/RX line whose bytes are not hex.
  public mutating func next() throws -> Frame? {
    while queueHead == queue.count {
      queue.removeAll(keepingCapacity: true)
      queueHead = 0
      guard try readLine() else { return nil }
    }
    defer { queueHead += 1 }
    return queue[queueHead]
  }

  // MARK: - Lines

  /// Reads one line and queues its frames; false at the end of the input.
  private mutating func readLine() throws -> Bool {
    let bytes = input.bytes
    guard cursor < bytes.count else { return false }
    let start = cursor
    let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
    cursor = end + 1
    line += 1
    let location = input.location(unit: "line", record: line, offset: start - bytes.startIndex)
    guard let (tag, hexStart) = Self.trafficField(bytes, start, end) else { return true }
    guard let payload = Self.hexBytes(bytes, hexStart, end) else {
      throw TraceError(
        .malformed, at: location,
        "\(tag == .tx ? "TX" : "RX") line: expected hex bytes separated by spaces")
    }
    if tag == .tx {
      transmitted(payload, at: location)
    } else {
      received(payload, at: location)
    }
    return true
  }

  private enum Traffic { case tx, rx }

  /// Finds `TX:`/`RX:` in a line whose category starts with `libnfc.`; returns where the hex
  /// begins. Layout: priority, whitespace, category, whitespace, message.
  private static func trafficField(_ bytes: Data, _ start: Int, _ end: Int) -> (Traffic, Int)? {
    var i = start
    func skip(_ whitespace: Bool) {
      while i < end, (bytes[i] == 0x20 || bytes[i] == 0x09) == whitespace { i += 1 }
    }
    skip(true)
    skip(false)  // priority
    skip(true)
    let category = i
    skip(false)
    guard i - category > 7, bytes[category..<(category + 7)].elementsEqual("libnfc.".utf8)
    else { return nil }
    skip(true)
    guard i + 3 <= end, bytes[i + 1] == 0x58, bytes[i + 2] == 0x3A else { return nil }  // "X:"
    switch bytes[i] {
    case 0x54: return (.tx, i + 3)
    case 0x52: return (.rx, i + 3)
    default: return nil
    }
  }

  /// Hex pairs separated by spaces/tabs (a trailing CR allowed); nil on anything else. Works on
  /// the mapped bytes directly rather than `Hex.bytes` so that no String is built per line.
  private static func hexBytes(_ bytes: Data, _ start: Int, _ end: Int) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity((end - start) / 3)
    var i = start
    while i < end {
      let c = bytes[i]
      if c == 0x20 || c == 0x09 || c == 0x0D {
        i += 1
        continue
      }
      guard i + 1 < end, let hi = Hex.nibble(c), let lo = Hex.nibble(bytes[i + 1]) else {
        return nil
      }
      out.append(hi << 4 | lo)
      i += 2
    }
    return out
  }

  // MARK: - Transports

  private mutating func transmitted(_ bytes: [UInt8], at location: SourceLocation) {
    if rxLink.isPending {
      let dropped = rxLink.reset()
      warn("incomplete PN53x answer (\(dropped) bytes) dropped before the next command", location)
    }
    guard let first = bytes.first else { return }
    switch first {
    case 0x62, 0x6B, 0x6F:  // CCID IccPowerOn, Escape, XfrBlock
      guard let body = ccidBody(bytes, at: location) else { return }
      if first != 0x62 { hostAPDU(body, at: location) }
    case 0xFF: hostAPDU(bytes, at: location)
    case 0xD4: emit(chip.command(bytes), at: location)
    default: linkFrames(txLink.feed(bytes), at: location, host: true)
    }
  }

  private mutating func received(_ bytes: [UInt8], at location: SourceLocation) {
    guard let first = bytes.first else { return }
    // The rest of a PN53x frame split over several reads (UART drivers).
    if rxLink.isPending { return linkFrames(rxLink.feed(bytes), at: location, host: false) }
    switch first {
    case 0x80, 0x81, 0x83:  // CCID DataBlock, SlotStatus, Escape answer
      guard bytes.count >= 10 else {
        return warn("CCID answer shorter than its 10-byte header", location)
      }
      if bytes.count == 10, bytes[8] == 0xFE {
        return warn("CCID: the reader reports ICC mute (command timed out)", location)
      }
      guard let body = ccidBody(bytes, at: location) else { return }
      readerAnswer(body, at: location)
    case 0xD5, 0x7F: emit(chip.response(bytes), at: location)
    default:
      if bytes.count >= 2, bytes.count <= 4, bytes[0] != 0x00 {
        readerAnswer(bytes, at: location)  // PC/SC: a bare status word
      } else {
        linkFrames(rxLink.feed(bytes), at: location, host: false)
      }
    }
  }

  /// The CCID message body after the 10-byte header (CCID 1.1 §6.1/§6.2, dwLength LE).
  private mutating func ccidBody(_ bytes: [UInt8], at location: SourceLocation) -> [UInt8]? {
    guard bytes.count >= 10 else {
      warn("CCID message shorter than its 10-byte header", location)
      return nil
    }
    let length = Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16 | Int(bytes[4]) << 24
    guard 10 + length <= bytes.count else {
      warn("CCID dwLength \(length) exceeds the \(bytes.count - 10) logged bytes", location)
      return Array(bytes.dropFirst(10))
    }
    return Array(bytes[10..<(10 + length)])
  }

  /// ACR122 pseudo-APDU (ACR122U API §6): `FF 00 00 00 Lc` + PN53x command; others ignored.
  private mutating func hostAPDU(_ apdu: [UInt8], at location: SourceLocation) {
    guard apdu.count >= 6, apdu[0] == 0xFF, apdu[1] == 0x00, apdu[2] == 0x00, apdu[3] == 0x00,
      apdu[5] == 0xD4
    else { return }  // GET RESPONSE (FF C0), LED/buzzer, operating parameters
    let lc = Int(apdu[4])
    let end = min(apdu.count, 5 + lc)
    if 5 + lc != apdu.count { warn("pseudo-APDU Lc \(lc) does not match its data", location) }
    emit(chip.command(Array(apdu[5..<end])), at: location)
  }

  /// An answer ending in SW1SW2: `D5 …` + `90 00`, or a status word alone.
  private mutating func readerAnswer(_ body: [UInt8], at location: SourceLocation) {
    guard body.count >= 2 else { return }
    let sw1 = body[body.count - 2]
    let sw2 = body[body.count - 1]
    let data = Array(body.dropLast(2))
    if data.first == 0xD5 || data.first == 0x7F {
      if sw1 != 0x90 || sw2 != 0x00 {
        warn("reader status word \(sw(sw1, sw2)) after a PN53x answer", location)
      }
      return emit(chip.response(data), at: location)
    }
    guard data.isEmpty else { return }  // an ATR or another reader answer
    switch (sw1, sw2) {
    case (0x90, 0x00), (0x61, _): break  // 61 xx: fetched by the following GET RESPONSE
    case (0x63, 0x00): warn("reader status 63 00: the PN53x did not reply", location)
    case (0x63, 0x7F): warn("reader status 63 7F: PN53x application-level error", location)
    default: warn("reader status word \(sw(sw1, sw2))", location)
    }
  }

  private mutating func linkFrames(
    _ result: (items: [PN53xFraming.Item], problems: [String]), at location: SourceLocation,
    host: Bool
  ) {
    for problem in result.problems { warn(problem, location) }
    for case .information(let frame) in result.items {
      emit(host ? chip.command(frame) : chip.response(frame), at: location)
    }
  }

  // MARK: - Output

  private mutating func emit(
    _ result: ([PN53xInterpreter.Output], [String]), at location: SourceLocation
  ) {
    for message in result.1 { warn(message, location) }
    for out in result.0 {
      queue.append(
        Frame(
          index: emitted, timeNs: 0, sourceTime: SourceTime(Int64(emitted), .order),
          direction: out.direction, event: out.event, data: out.data, bits: out.bits,
          crc: out.crc, technology: out.technology, sourceFlags: out.flags, location: location))
      emitted += 1
    }
  }

  private mutating func warn(_ message: String, _ location: SourceLocation) {
    warnings.append(TraceWarning(message, frame: nil, location: location))
  }

  private func sw(_ sw1: UInt8, _ sw2: UInt8) -> String { Hex.string([sw1, sw2], separator: " ") }

  // MARK: - Detection

  /// Confidence that `head` is a libnfc debug log.
  static func sniff(_ head: [UInt8]) -> Int {
    let text = String(decoding: head, as: UTF8.self)
    guard text.contains("libnfc.") else { return 0 }
    if text.contains("TX: ") || text.contains("RX: ") { return 90 }
    return text.contains("debug") ? 40 : 10
  }
}
