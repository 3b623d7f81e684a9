import Foundation

/// Text saved as UTF-16 with a byte order mark — what Windows PowerShell's `>` and
/// `Out-File` write — turned into UTF-8 so the text importers read it like any listing.
///
/// Input that starts with a BOM (`FF FE` little-endian, `FE FF` big-endian) and whose first
/// characters are text (no NUL, no control character but tab, line ends and the ESC of
/// colour codes) is taken as UTF-16: a binary trace that happens to start with `FF FE` stays
/// binary. Lone surrogates and an odd last byte become U+FFFD, as a repairing reader shows
/// them (`repaired` says so).
public enum UTF16Text {
  /// The UTF-8 bytes, the source encoding's name (`UTF-16LE`/`UTF-16BE`) and whether anything
  /// was repaired; nil when `bytes` is not UTF-16 text by that test.
  public static func utf8(from bytes: Data) -> (bytes: Data, encoding: String, repaired: Bool)? {
    guard bytes.count >= 4 else { return nil }
    let little: Bool
    switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
    case (0xFF, 0xFE): little = true
    case (0xFE, 0xFF): little = false
    default: return nil
    }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var i = bytes.startIndex + 2
    while i + 1 < bytes.endIndex {
      let (a, b) = (UInt16(bytes[i]), UInt16(bytes[i + 1]))
      units.append(little ? b << 8 | a : a << 8 | b)
      i += 2
    }
    guard looksLikeText(units.prefix(256)) else { return nil }
    let odd = (bytes.count - 2) % 2 == 1
    let repaired = odd || hasLoneSurrogate(units)
    if odd { units.append(0xFFFD) }
    let text = String(decoding: units, as: UTF16.self)
    return (Data(text.utf8), little ? "UTF-16LE" : "UTF-16BE", repaired)
  }

  /// A high surrogate not followed by a low one, or a low one not after a high one.
  private static func hasLoneSurrogate(_ units: [UInt16]) -> Bool {
    var i = 0
    while i < units.count {
      let u = units[i]
      if (0xD800...0xDBFF).contains(u) {
        guard i + 1 < units.count, (0xDC00...0xDFFF).contains(units[i + 1]) else { return true }
        i += 2
        continue
      }
      if (0xDC00...0xDFFF).contains(u) { return true }
      i += 1
    }
    return false
  }

  /// Text units: no NUL, no C0 control but tab, LF, CR and ESC.
  private static func looksLikeText(_ units: ArraySlice<UInt16>) -> Bool {
    !units.isEmpty
      && units.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x1B }
  }
}
