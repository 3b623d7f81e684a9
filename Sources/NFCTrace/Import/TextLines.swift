/// How the text importers split their input into lines, shared so that they all agree: LF,
/// CR LF and a lone CR each end one line. A lone CR is what a file saved with classic Mac OS
/// line ends holds, and what a listing pasted from a terminal may hold at one row's end; read
/// as anything but a line end it joins two lines and the second one is lost.
///
/// Line numbers in messages count these line ends (a CR LF once). Everything works on the
/// bytes in place: nothing is allocated per line or per byte.
public enum TextLines {
  /// Line feed.
  public static let lf: UInt8 = 0x0A
  /// Carriage return.
  public static let cr: UInt8 = 0x0D

  /// True for LF and CR.
  @inlinable
  public static func isLineEnd(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

  /// The line that starts at `start`: `end` is the index of its line end (`text.endIndex`
  /// when it has none), `next` the start of the line after it (past the LF, the CR or the CR
  /// LF). `next == end` only for a last line without a line end.
  @inlinable
  public static func line<C: Collection>(in text: C, from start: C.Index) -> (
    end: C.Index, next: C.Index
  ) where C.Element == UInt8 {
    guard let end = text[start...].firstIndex(where: isLineEnd) else {
      return (text.endIndex, text.endIndex)
    }
    var next = text.index(after: end)
    if text[end] == cr, next < text.endIndex, text[next] == lf { next = text.index(after: next) }
    return (end, next)
  }

  /// The number of line ends in `text[range]`: each LF, and each CR that no LF follows (a CR
  /// LF counts once, also when `range` ends between the two).
  @inlinable
  public static func count<C: Collection>(in text: C, _ range: Range<C.Index>) -> Int
  where C.Element == UInt8 {
    var count = 0
    var i = range.lowerBound
    while i < range.upperBound {
      let byte = text[i]
      i = text.index(after: i)
      if byte == lf || (byte == cr && (i == text.endIndex || text[i] != lf)) { count += 1 }
    }
    return count
  }

  /// 3 when `text` starts with the UTF-8 byte order mark (`EF BB BF`), else 0: where its text
  /// begins.
  @inlinable
  public static func byteOrderMarkLength<C: Collection>(_ text: C) -> Int
  where C.Element == UInt8 {
    text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  }
}
