/// The `trace list -x` hex dump (`printHexLine` in `client/src/cmdtrace.c`), made for
/// `text2pcap -l 264`: per frame a line `0.%010u` with the record's raw u32 tick timestamp,
/// then `000000 00 EV LH LL data…` — offset, pseudo-header version 00, event `fe` (reader→tag)
/// or `ff` (tag→reader), data length big-endian, data bytes (lower-case hex).
enum Proxmark3HexDump {
  enum Line {
    case timestamp(UInt32)
    case frame(Direction, [UInt8], declaredLength: Int)
    /// `<empty trace - possible error>`: a zero-length record, printed without a timestamp.
    case emptyRecord
    case notHexDump
    case bad(String)
  }

  /// Classifies the trimmed `line[range]` (a line without `|`).
  static func parse(_ line: [UInt8], _ range: Range<Int>) -> Line {
    if line[range.lowerBound] == UInt8(ascii: "<") {
      return Proxmark3Text.contains(line, range, "empty trace") ? .emptyRecord : .notHexDump
    }
    if let ticks = timestamp(line, range) {
      return ticks <= UInt32.max
        ? .timestamp(UInt32(ticks))
        : .bad("hex-dump timestamp past the client's 32-bit tick counter (at most 4294967295)")
    }
    return dataLine(line, range)
  }

  /// `0.` followed by 1–10 digits: the digits are the tick count (not a fraction of a second).
  private static func timestamp(_ line: [UInt8], _ range: Range<Int>) -> UInt64? {
    guard range.count >= 3, range.count <= 12, line[range.lowerBound] == UInt8(ascii: "0"),
      line[range.lowerBound + 1] == UInt8(ascii: ".")
    else { return nil }
    var value: UInt64 = 0
    for i in (range.lowerBound + 2)..<range.upperBound {
      guard (0x30...0x39).contains(line[i]) else { return nil }
      value = value * 10 + UInt64(line[i] - 0x30)
    }
    return value
  }

  private static func dataLine(_ line: [UInt8], _ range: Range<Int>) -> Line {
    var tokens = HexTokens(line: line, index: range.lowerBound, end: range.upperBound)
    guard let offsetWidth = tokens.skipOffset(), offsetWidth >= 4 else { return .notHexDump }
    guard let version = tokens.next(), version == 0, let event = tokens.next(),
      let high = tokens.next(), let low = tokens.next()
    else { return .bad("hex-dump line shorter than its 4-byte pseudo-header (00 fe|ff LL LL)") }
    let direction: Direction
    switch event {
    case 0xFE: direction = .reader
    case 0xFF: direction = .tag
    default:
      return .bad("hex-dump event byte \(Hex.string([event])) is not fe (reader) or ff (tag)")
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(high) << 8 | Int(low))
    while let byte = tokens.next() { bytes.append(byte) }
    guard tokens.atEnd else { return .bad("hex-dump data is not hex bytes") }
    return .frame(direction, bytes, declaredLength: Int(high) << 8 | Int(low))
  }

  /// Space-separated 2-digit hex tokens of a line.
  private struct HexTokens {
    let line: [UInt8]
    var index: Int
    let end: Int

    var atEnd: Bool { index >= end }

    /// Skips the leading offset column (hex digits); returns its width, nil if not hex.
    mutating func skipOffset() -> Int? {
      let start = index
      while index < end, Hex.nibble(line[index]) != nil { index += 1 }
      guard index < end, line[index] == Proxmark3Text.space else { return nil }
      return index - start
    }

    mutating func next() -> UInt8? {
      while index < end, line[index] == Proxmark3Text.space { index += 1 }
      guard index + 1 < end, let high = Hex.nibble(line[index]),
        let low = Hex.nibble(line[index + 1])
      else { return nil }
      if index + 2 < end, line[index + 2] != Proxmark3Text.space { return nil }
      index += 2
      return high << 4 | low
    }
  }

  /// Rebuilds the recorded bytes of a Hitag listing row: the client prints the first byte's
  /// `bits` valid bits right-aligned (`18(5)`) and the following bytes shifted by them; the
  /// trace stores the bit stream MSB first with the valid bits at the top of the last byte.
  static func alignMSBFirst(_ printed: [UInt8], bits: Int) -> [UInt8] {
    guard (1...7).contains(bits), !printed.isEmpty else { return printed }
    var out = [UInt8](repeating: 0, count: printed.count)
    for j in printed.indices {
      let next = j + 1 < printed.count ? printed[j + 1] >> UInt8(bits) : 0
      out[j] = printed[j] << UInt8(8 - bits) | next
    }
    return out
  }
}

/// Content sniffer for `trace list` text.
enum Proxmark3TextSniffer {
  /// 90 for a table header or a `Rdr`/`Tag` row, 80 for a row without times (`Rdr | 26 | |`),
  /// 85 for `-x` hex-dump lines (a `0.%010u` line
  /// followed by `000000 00 fe|ff`), 30 for only a `pm3 -->` echo of a list command; 0 for
  /// anything with NUL bytes. +5 for a `.txt`/`.log` name when something was found.
  static func score(head: [UInt8], path: String) -> Int {
    // Text up to a NUL byte: damage after a table's first rows leaves them recognisable, and
    // the importer then names the damaged line; a binary file has its NUL early.
    let head = head.firstIndex(of: 0).map { Array(head[..<$0]) } ?? head
    guard !head.isEmpty else { return 0 }
    var best = 0
    var previousWasTimestamp = false
    var line: [UInt8] = []
    head.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count, best < 90 {
        offset = Proxmark3Text.loadLine(raw, from: offset, into: &line)
        let all = Proxmark3Text.trim(line, 0..<line.count)
        guard !all.isEmpty else { continue }
        best = max(best, scoreLine(line, all, afterTimestamp: previousWasTimestamp))
        if case .timestamp = Proxmark3HexDump.parse(line, all) {
          previousWasTimestamp = true
        } else {
          previousWasTimestamp = false
        }
      }
    }
    let named = path.lowercased().hasSuffix(".txt") || path.lowercased().hasSuffix(".log")
    return best > 0 && named ? best + 5 : best
  }

  private static func scoreLine(_ line: [UInt8], _ all: Range<Int>, afterTimestamp: Bool) -> Int {
    if line.contains(Proxmark3Text.pipe) {
      var fields: [Range<Int>] = []
      Proxmark3Text.split(line, into: &fields)
      guard fields.count >= 4 else { return 0 }
      let src = Proxmark3Text.trim(line, fields[2])
      let isHeader =
        Proxmark3Text.equals(line, src, "src") && Proxmark3Text.contains(line, fields[3], "data")
      let isRow =
        (Proxmark3Text.equals(line, src, "rdr") || Proxmark3Text.equals(line, src, "tag"))
        && Proxmark3Number(line, Proxmark3Text.trim(line, fields[0])) != nil
      if isHeader || isRow { return 90 }
      // `Rdr | 26 | | REQA`: a row of a listing whose Start and End columns were cut away.
      let first = Proxmark3Text.trim(line, fields[0])
      var cells = Proxmark3DataCells()
      let untimedRow =
        (Proxmark3Text.equals(line, first, "rdr") || Proxmark3Text.equals(line, first, "tag"))
        && !Proxmark3Text.trim(line, fields[1]).isEmpty && cells.append(line, fields[1])
      return untimedRow ? 80 : 0
    }
    if afterTimestamp, case .frame = Proxmark3HexDump.parse(line, all) { return 85 }
    if Proxmark3Text.contains(line, all, "pm3 -->"), Proxmark3Text.contains(line, all, "list") {
      return 30
    }
    return 0
  }
}
