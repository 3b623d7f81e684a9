/// How the text importers split their input into lines, shared so that they all agree: LF,
/// CR LF, CR CR LF and a lone CR each end one line. A lone CR is what a file saved with classic Mac OS
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
    guard text[end] == cr, next < text.endIndex else { return (end, next) }
    if text[next] == lf { return (end, text.index(after: next)) }
    // CR CR LF: a CR LF text written again through a text-mode stream, one line end.
    if text[next] == cr {
      let third = text.index(after: next)
      if third < text.endIndex, text[third] == lf { next = text.index(after: third) }
    }
    return (end, next)
  }

  /// The number of line ends in `text[range]`: each LF, and each CR that neither LF nor CR LF
  /// follows (a CR LF or CR CR LF counts once, also when `range` ends inside it).
  @inlinable
  public static func count<C: Collection>(in text: C, _ range: Range<C.Index>) -> Int
  where C.Element == UInt8 {
    var count = 0
    var i = range.lowerBound
    while i < range.upperBound {
      let byte = text[i]
      i = text.index(after: i)
      if byte == lf || (byte == cr && !continuesLineEnd(text, at: i)) { count += 1 }
    }
    return count
  }

  /// Whether the bytes at `i`, after a CR, are the rest of its line end: LF or CR LF.
  @inlinable
  static func continuesLineEnd<C: Collection>(_ text: C, at i: C.Index) -> Bool
  where C.Element == UInt8 {
    guard i < text.endIndex else { return false }
    if text[i] == lf { return true }
    guard text[i] == cr else { return false }
    let next = text.index(after: i)
    return next < text.endIndex && text[next] == lf
  }

  /// 3 when `text` starts with the UTF-8 byte order mark (`EF BB BF`), else 0: where its text
  /// begins.
  @inlinable
  public static func byteOrderMarkLength<C: Collection>(_ text: C) -> Int
  where C.Element == UInt8 {
    text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  }
}
