/// Byte-level pieces of the Proxmark3 `trace list` text format, used by
/// `Proxmark3TextImporter`. Lines are handled as UTF-8 bytes; nothing here builds Strings
/// except for warning messages.
enum Proxmark3Text {
  static let pipe = UInt8(ascii: "|")
  static let space = UInt8(ascii: " ")

  /// Copies the line that starts at `start` into `line` without its line end (LF, CR LF or a
  /// lone CR: `TextLines`), with ANSI escape sequences (`ESC [ … final`) and quote markers
  /// (`> `) removed and tabs turned into spaces.
  /// Returns the offset of the next line.
  static func loadLine(_ raw: UnsafeRawBufferPointer, from start: Int, into line: inout [UInt8])
    -> Int
  {
    line.removeAll(keepingCapacity: true)
    var i = start == 0 ? TextLines.byteOrderMarkLength(raw) : start
    let (end, next) = TextLines.line(in: raw, from: i)
    while i < end {
      let c = raw[i]
      i += 1
      switch c {
      case 0x09: line.append(space)
      case 0x1B: i = skipEscape(raw, from: i, end: end)
      default: line.append(c)
      }
    }
    unquote(&line)
    return next
  }

  /// Takes off the `> ` markers (one or more, after spaces) of a listing pasted as a quote in
  /// a GitHub issue or a mail reply; no `trace list` line starts with `>`.
  private static func unquote(_ line: inout [UInt8]) {
    var i = 0
    var end = 0
    while true {
      while i < line.count, line[i] == space { i += 1 }
      guard i < line.count, line[i] == UInt8(ascii: ">") else { break }
      i += 1
      if i < line.count, line[i] == space { i += 1 }
      end = i
    }
    if end > 0 { line.removeFirst(end) }
  }

  /// Skips the rest of an ANSI escape after ESC, up to the line's `end`: a CSI `[` sequence up
  /// to its final byte (0x40–0x7E), or one following byte.
  private static func skipEscape(_ raw: UnsafeRawBufferPointer, from start: Int, end: Int)
    -> Int
  {
    guard start < end else { return start }
    guard raw[start] == UInt8(ascii: "[") else { return start + 1 }
    var i = start + 1
    while i < end {
      let c = raw[i]
      i += 1
      if (0x40...0x7E).contains(c) { break }
    }
    return i
  }

  /// True for the characters of the rule under the table header (`---+---|`).
  static func isRuleCharacter(_ c: UInt8) -> Bool {
    c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == pipe || c == space
  }

  /// `range` without leading and trailing spaces.
  static func trim(_ line: [UInt8], _ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper, line[lower] == space { lower += 1 }
    while upper > lower, line[upper - 1] == space { upper -= 1 }
    return lower..<upper
  }

  /// Splits `line` at `|` into at most `limit` fields (the last keeps any further `|`).
  static func split(_ line: [UInt8], into fields: inout [Range<Int>], limit: Int = 6) {
    fields.removeAll(keepingCapacity: true)
    var start = 0
    for i in line.indices where line[i] == pipe && fields.count < limit - 1 {
      fields.append(start..<i)
      start = i + 1
    }
    fields.append(start..<line.count)
  }

  /// ASCII case-insensitive search of `needle` (lower-case) in `line[range]`.
  static func contains(_ line: [UInt8], _ range: Range<Int>, _ needle: StaticString) -> Bool {
    let count = needle.utf8CodeUnitCount
    guard count > 0, range.count >= count else { return false }
    return needle.withUTF8Buffer { pattern in
      var i = range.lowerBound
      while i + count <= range.upperBound {
        var j = 0
        while j < count, lower(line[i + j]) == pattern[j] { j += 1 }
        if j == count { return true }
        i += 1
      }
      return false
    }
  }

  /// True when `line[range]` is exactly `word`, ignoring ASCII case.
  static func equals(_ line: [UInt8], _ range: Range<Int>, _ word: StaticString) -> Bool {
    range.count == word.utf8CodeUnitCount && contains(line, range, word)
  }

  @inline(__always)
  static func lower(_ c: UInt8) -> UInt8 { (0x41...0x5A).contains(c) ? c | 0x20 : c }

  /// Up to 60 characters of the line, for warnings.
  static func excerpt(_ line: [UInt8]) -> String {
    let text = String(decoding: line.prefix(60), as: UTF8.self)
    return line.count > 60 ? text + "…" : text
  }
}

/// A decimal number as printed in a time column: `1056` (ticks) or `77.9` (µs with `-u`).
struct Proxmark3Number {
  /// The digits without the decimal point.
  var mantissa: Int64
  /// Digits after the decimal point; 0 for an integer.
  var fractionDigits: Int

  /// Parses `line[range]` (already trimmed); nil if it is not `digits[.digits]` or has more
  /// than 15 digits (the client prints u32 ticks, at most 10 digits, or µs with one decimal).
  init?(_ line: [UInt8], _ range: Range<Int>) {
    guard !range.isEmpty, range.count <= 16 else { return nil }
    var value: Int64 = 0
    var fraction = -1
    for i in range {
      let c = line[i]
      if c == UInt8(ascii: "."), fraction < 0 {
        fraction = 0
        continue
      }
      guard (0x30...0x39).contains(c) else { return nil }
      value = value * 10 + Int64(c - 0x30)  // at most 16 characters: cannot overflow
      if fraction >= 0 { fraction += 1 }
    }
    mantissa = value
    fractionDigits = max(fraction, 0)
  }

  /// True when `line[range]` is digits with at most one decimal point, of any length.
  static func isNumeral(_ line: [UInt8], _ range: Range<Int>) -> Bool {
    !range.isEmpty && line[range].count { $0 == UInt8(ascii: ".") } <= 1
      && line[range].allSatisfy { (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }
  }

  /// True for a value with a decimal point (the client prints µs as `%10.1f`).
  var isMicroseconds: Bool { fractionDigits > 0 }

  /// Carrier ticks, or the tick equivalent of a µs value (× 13.56).
  var ticks: Int64 {
    isMicroseconds
      ? Proxmark3.ticks(microsMantissa: mantissa, fractionDigits: fractionDigits) : mantissa
  }
}

/// The data cells of one frame, gathered from its row and continuation rows.
struct Proxmark3DataCells {
  var bytes: [UInt8] = []
  /// Indices of bytes printed with `!` (parity error).
  var parityErrors: [Int] = []
  /// A `(n)` bit-count mark and the byte it follows.
  var bitsMark: (index: Int, bits: Int)?
  /// A `'` mark (older clients' "short bytes").
  var shortMark = false
  /// `<SOF>`, `<EOF>` or `<empty trace - possible error>`: a zero-length record.
  var emptyRecord = false
  /// A byte whose first hex digit the `-c` mark `[` overwrote (`30  04  [6  ee  ]`: clients
  /// that print `%02x  ` put the mark on the CRC's first character, proxmark3 cmdhflist.c /
  /// cmdtrace.c before 2021): its index and the digit left (its low nibble).
  var lostHighNibble: (index: Int, low: UInt8)?
  /// The row's CRC column says `!crc`: the CRC the client checked was wrong.
  var crcColumnBad = false

  /// Appends the cells of `line[range]`: hex bytes separated by spaces, each optionally
  /// followed by `!`, `(n)` or `'`; `[` `]` (CRC marks of `-c`) are ignored. Returns false
  /// (leaving the cells partly filled) when something else is found.
  mutating func append(_ line: [UInt8], _ range: Range<Int>) -> Bool {
    var i = range.lowerBound
    if i < range.upperBound, line[i] == UInt8(ascii: "<") {
      emptyRecord = bytes.isEmpty
      return emptyRecord
    }
    while i < range.upperBound {
      let c = line[i]
      if c == UInt8(ascii: "["), i + 1 < range.upperBound, let low = Hex.nibble(line[i + 1]),
        i + 2 >= range.upperBound || Hex.nibble(line[i + 2]) == nil
      {
        // `[` over the byte's first digit: the byte's low nibble is all that is left.
        lostHighNibble = (bytes.count, low)
        bytes.append(low)
        i = suffixes(line, from: i + 2, end: range.upperBound)
        guard i >= 0 else { return false }
        continue
      }
      if c == Proxmark3Text.space || c == UInt8(ascii: "[") || c == UInt8(ascii: "]") {
        i += 1
        continue
      }
      guard i + 1 < range.upperBound, let high = Hex.nibble(c), let low = Hex.nibble(line[i + 1])
      else { return false }
      bytes.append(high << 4 | low)
      i = suffixes(line, from: i + 2, end: range.upperBound)
      guard i >= 0 else { return false }
    }
    return true
  }

  /// Reads the marks after a byte; returns the next offset, or −1 on a broken `(n)`.
  private mutating func suffixes(_ line: [UInt8], from start: Int, end: Int) -> Int {
    var i = start
    while i < end {
      switch line[i] {
      case UInt8(ascii: "!"):
        // `DA!!` marks one byte once.
        if parityErrors.last != bytes.count - 1 { parityErrors.append(bytes.count - 1) }
        i += 1
      case UInt8(ascii: "'"):
        shortMark = true
        i += 1
      case UInt8(ascii: "("):
        guard i + 2 < end, (0x30...0x39).contains(line[i + 1]), line[i + 2] == UInt8(ascii: ")")
        else { return -1 }
        bitsMark = (bytes.count - 1, Int(line[i + 1] - 0x30))
        i += 3
      default:
        return i
      }
    }
    return i
  }
}

/// What the preamble says the listing was annotated as (`[=] ISO14443A - all times …`).
enum Proxmark3ListProtocol {
  case unknown, iso14443A, iso14443B, iso15693OrIClass, iso7816, hitag, other

  /// The protocol named by a preamble line, if any.
  static func named(in line: [UInt8]) -> Proxmark3ListProtocol? {
    let all = 0..<line.count
    if Proxmark3Text.contains(line, all, "iso14443a") { return .iso14443A }
    if Proxmark3Text.contains(line, all, "iso14443b") { return .iso14443B }
    if Proxmark3Text.contains(line, all, "iso15693") || Proxmark3Text.contains(line, all, "iclass")
    {
      return .iso15693OrIClass
    }
    if Proxmark3Text.contains(line, all, "iso7816") { return .iso7816 }
    if Proxmark3Text.contains(line, all, "hitag") { return .hitag }
    if Proxmark3Text.contains(line, all, "legic") || Proxmark3Text.contains(line, all, "felica")
      || Proxmark3Text.contains(line, all, "thinfilm")
    {
      return .other
    }
    return nil
  }

  /// Whether the listing's frames travelled with ISO 14443-A parity (ISO/IEC 14443-3
  /// §6.2.3.1): not those of 14b, ISO 15693 / iCLASS, Hitag, FeliCa, LEGIC or Thinfilm
  /// listings, whose `.trace` records carry zero-filled parity bytes (or an LF bit count).
  var hasTypeAParity: Bool { allowsDurationRule }

  /// Whether a 1-byte frame's bit count may be derived from its duration: ISO 14443-A timing
  /// only (the 14a, 7816, des and raw listings print 14443-A traces).
  var allowsDurationRule: Bool {
    switch self {
    case .unknown, .iso14443A, .iso7816: return true
    case .iso14443B, .iso15693OrIClass, .hitag, .other: return false
    }
  }
}
