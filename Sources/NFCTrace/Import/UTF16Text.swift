import Foundation

/// Text saved as UTF-16 with a byte order mark — what Windows PowerShell's `>` and
/// `Out-File` write — turned into UTF-8 so the text importers read it like any listing.
///
/// Only input that starts with a BOM (`FF FE` little-endian, `FE FF` big-endian) and whose
/// first characters are all ASCII text (the other byte of each unit zero) is taken as UTF-16:
/// a binary trace that happens to start with `FF FE` stays binary.
public enum UTF16Text {
  /// The UTF-8 bytes and the source encoding's name (`UTF-16LE`/`UTF-16BE`), or nil when
  /// `bytes` is not UTF-16 text by that test.
  public static func utf8(from bytes: Data) -> (bytes: Data, encoding: String)? {
    guard bytes.count >= 4, bytes.count % 2 == 0 else { return nil }
    let little: Bool
    switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
    case (0xFF, 0xFE): little = true
    case (0xFE, 0xFF): little = false
    default: return nil
    }
    guard looksLikeText(bytes, little: little) else { return nil }
    let encoding: String.Encoding = little ? .utf16LittleEndian : .utf16BigEndian
    guard let text = String(data: bytes.dropFirst(2), encoding: encoding) else { return nil }
    return (Data(text.utf8), little ? "UTF-16LE" : "UTF-16BE")
  }

  /// The first 256 code units after the BOM are printable ASCII, tabs or line ends.
  private static func looksLikeText(_ bytes: Data, little: Bool) -> Bool {
    var i = bytes.startIndex + 2
    var units = 0
    while i + 1 < bytes.endIndex, units < 256 {
      let (char, zero) = little ? (bytes[i], bytes[i + 1]) : (bytes[i + 1], bytes[i])
      guard zero == 0, char == 0x09 || char == 0x0A || char == 0x0D || (0x20...0x7E).contains(char)
      else { return false }
      i += 2
      units += 1
    }
    return units > 0
  }
}
