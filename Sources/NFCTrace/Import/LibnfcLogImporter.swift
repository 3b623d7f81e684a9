import Foundation

/// Imports libnfc debug logs (`LIBNFC_LOG_LEVEL=3`): lines `<priority>\t<category>\t<message>`
/// written by libnfc `log.c`, where drivers log host↔reader traffic as `TX: xx xx …` and
/// `RX: xx xx …` (`LOG_HEX` in `log.h`); also the debug output of libnfc before 1.7, where the
/// line is ` TX: xx  xx …` alone. Tabs turned into spaces (logs pasted into issues)
/// are accepted; other lines are ignored.
///
/// The logged bytes — PN53x host-link frames (pn53x_usb, pn532_uart/spi/i2c, arygon; bytes
/// split over several `RX:` lines reassembled), ACR122 CCID messages (acr122_usb) or ACR122
/// pseudo-APDUs (acr122_pcsc) — are unwrapped by `PN53xHostLink`, which turns
/// InDataExchange, InCommunicateThru and InListPassiveTarget into frames.
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
  private var link = PN53xHostLink()
  private var trafficLines = 0
  private var receivedLines = 0
  private var finished = false
  private var joinedWrappedLines = false
  /// Byte offset of the line read last: where a log cut after a command is named.
  private var lineStart = 0
  /// The first TX line: where a log without RX lines is named.
  private var firstTX: SourceLocation?
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
      guard try readLine() else {
        guard trafficLines > 0 else {
          // A libnfc log at a lower level, or another file read with --input-format.
          throw TraceError(
            .unsupported, at: input.location(unit: "line", record: 1, offset: 0),
            "no libnfc TX:/RX: traffic lines in \(line) lines: expected a libnfc debug log "
              + "written with LIBNFC_LOG_LEVEL=3")
        }
        // No RX line at all: a driver that logs only what it sends (libnfc's pn532_i2c logs
        // no read), not a cut log.
        if receivedLines == 0 {
          if !finished {
            finished = true
            warn(
              "the log has TX lines but no RX line: this libnfc driver (pn532_i2c) does not log "
                + "what it reads, so only the host's commands are shown, none of the reader's or "
                + "tag's answers", firstTX ?? input.location(unit: "line", record: 1, offset: 0))
          }
          return nil
        }
        // The chip answers every command; a log whose last command has no RX was cut (a copy
        // stopped early, the program killed): what the command did is not in it.
        if link.chipAwaitsResponse {
          throw TraceError(
            .truncated, at: input.location(unit: "line", record: line, offset: lineStart),
            "the log ends after a PN53x command with no response (RX) line: it was cut")
        }
        return nil
      }
    }
    defer { queueHead += 1 }
    return queue[queueHead]
  }

  // MARK: - Lines

  /// Reads one line and queues its frames; false at the end of the input.
  private mutating func readLine() throws -> Bool {
    let bytes = input.bytes
    guard cursor < bytes.endIndex else { return false }
    let start = cursor
    let end: Int
    (end, cursor) = TextLines.line(in: bytes, from: start)
    line += 1
    lineStart = start - bytes.startIndex
    let location = input.location(unit: "line", record: line, offset: lineStart)
    guard let (tag, hexStart) = Self.trafficField(bytes, start, end) else { return true }
    trafficLines += 1
    guard var payload = Self.hexBytes(bytes, hexStart, end) else {
      // One damaged line (a cut byte, an edit) loses its frame, not the rest of the log: the
      // PN53x link below sees a command without its answer, or an answer without its command.
      warn(
        "\(tag == .tx ? "TX" : "RX") line skipped: expected hex bytes separated by spaces",
        location)
      return true
    }
    payload += continuation(after: location)
    if tag == .tx {
      firstTX = firstTX ?? location
      transmitted(payload, at: location)
    } else {
      receivedLines += 1
      received(payload, at: location)
    }
    return true
  }

  /// Lines of hex bytes alone that follow a TX/RX line: the rest of its bytes, when the log
  /// was wrapped (a terminal or an issue tracker broke the long line). Consumed and returned;
  /// the first join is reported once as a warning.
  private mutating func continuation(after location: SourceLocation) -> [UInt8] {
    let bytes = input.bytes
    var out: [UInt8] = []
    while cursor < bytes.endIndex {
      let (end, next) = TextLines.line(in: bytes, from: cursor)
      guard Self.trafficField(bytes, cursor, end) == nil,
        let more = Self.hexBytes(bytes, cursor, end, separated: true), !more.isEmpty
      else { break }
      if !joinedWrappedLines {
        joinedWrappedLines = true
        warn(
          "line \(line + 1) holds only hex bytes: joined to the TX/RX line before it (the log "
            + "was wrapped); later such lines are joined too", location)
      }
      out += more
      lineStart = cursor - bytes.startIndex
      cursor = next
      line += 1
    }
    return out
  }

  private enum Traffic { case tx, rx }

  /// Whitespace-separated tokens searched for the category: libnfc's priority and category
  /// after a prefix of up to 14 tokens (a time stamp; journalctl's `Dec 04 21:30:01 host
  /// nfc-poll[1234]:`, 7 tokens with the priority; `short-full`'s weekday and zone, 9).
  static let categoryTokenLimit = 16

  /// Finds `TX:`/`RX:` in a line whose category starts with `libnfc.`; returns where the hex
  /// begins. Layout (libnfc `log.c`): priority, whitespace, category, whitespace, message; the
  /// category may come later, after what a terminal or a logger put first (a time stamp, a
  /// host name, journalctl's `program[pid]:`): the first of the line's first
  /// `categoryTokenLimit` tokens that starts with `libnfc.` is the category.
  /// Before 1.7 (libnfc 1.4–1.6) the line had no priority nor category: ` TX: ff  00 …`
  /// (`PRINT_HEX`, two spaces between bytes), which is taken too.
  private static func trafficField(_ bytes: Data, _ start: Int, _ end: Int) -> (Traffic, Int)? {
    var i = start
    func skip(_ whitespace: Bool) {
      while i < end, (bytes[i] == 0x20 || bytes[i] == 0x09) == whitespace { i += 1 }
    }
    skip(true)
    if let old = direction(bytes, at: i, end), i + 3 < end, bytes[i + 3] == 0x20 {
      return (old, i + 3)
    }
    i = start
    var found = false
    for _ in 0..<categoryTokenLimit where !found {
      skip(true)
      guard i < end else { return nil }
      let token = i
      skip(false)
      found = i - token > 7 && bytes[token..<(token + 7)].elementsEqual("libnfc.".utf8)
    }
    guard found else { return nil }
    skip(true)
    return direction(bytes, at: i, end).map { ($0, i + 3) }
  }

  /// `TX:` or `RX:` at `i`.
  private static func direction(_ bytes: Data, at i: Int, _ end: Int) -> Traffic? {
    guard i + 3 <= end, bytes[i + 1] == 0x58, bytes[i + 2] == 0x3A else { return nil }  // "X:"
    switch bytes[i] {
    case 0x54: return .tx
    case 0x52: return .rx
    default: return nil
    }
  }

  /// Hex pairs separated by spaces/tabs (a trailing CR allowed; `separated`: never two pairs
  /// run together); nil on anything else. Works on
  /// the mapped bytes directly rather than `Hex.bytes` so that no String is built per line.
  private static func hexBytes(
    _ bytes: Data, _ start: Int, _ end: Int, separated: Bool = false
  ) -> [UInt8]? {
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
      // `separated`: each pair stands alone, as libnfc writes them (`cafe` is a word).
      if separated, i < end, bytes[i] != 0x20, bytes[i] != 0x09, bytes[i] != 0x0D { return nil }
    }
    return out
  }

  // MARK: - Output

  private mutating func transmitted(_ bytes: [UInt8], at location: SourceLocation) {
    emit(link.hostToReader(bytes), at: location)
  }

  private mutating func received(_ bytes: [UInt8], at location: SourceLocation) {
    emit(link.readerToHost(bytes), at: location)
  }

  private mutating func emit(_ output: PN53xHostLink.Output, at location: SourceLocation) {
    for message in output.warnings {
      // A poll that found no tag is what the log says, not a line that could not be read.
      warnings.appendCapped(
        TraceWarning(
          message, location: location,
          rejectsRecord: !PN53xInterpreter.noteMessages.contains(message)))
    }
    for out in output.frames {
      queue.append(
        Frame(
          index: emitted, timeNs: 0, sourceTime: SourceTime(Int64(emitted), .order),
          direction: out.direction, event: out.event, data: out.data, bits: out.bits,
          crc: out.crc, technology: out.technology, sourceFlags: out.flags, location: location))
      emitted += 1
    }
  }

  private mutating func warn(_ message: String, _ location: SourceLocation) {
    warnings.appendCapped(TraceWarning(message, frame: nil, location: location))
  }

  // MARK: - Detection

  /// Confidence that `head` is a libnfc debug log.
  static func sniff(_ head: [UInt8]) -> Int {
    let text = String(decoding: head, as: UTF8.self)
    guard text.contains("libnfc.") else { return oldFormatScore(text) }
    if text.contains("TX: ") || text.contains("RX: ") { return 90 }
    return text.contains("debug") ? 40 : 10
  }

  /// A log of libnfc before 1.7: lines ` TX: xx  xx …` and ` RX: xx  xx …` (hex bytes after
  /// the direction, nothing before it but spaces), with both directions present.
  private static func oldFormatScore(_ text: String) -> Int {
    var tx = false
    var rx = false
    for line in text.split(whereSeparator: \.isNewline).prefix(400) {
      let t = line.drop { $0 == " " || $0 == "\t" }
      guard t.count >= 6, t.hasPrefix("TX: ") || t.hasPrefix("RX: ") else { continue }
      let hex = t.dropFirst(4).prefix(2)
      guard hex.count == 2, hex.allSatisfy(\.isHexDigit) else { continue }
      if t.hasPrefix("TX") { tx = true } else { rx = true }
      if tx && rx { return 60 }
    }
    return 0
  }
}
