/// Tag-controlled text made safe to print on a terminal: a tag's TYPE, ID or payload can hold
/// ESC sequences, CR and LF that would move the cursor, erase lines or fake output when a
/// message quoting them is printed. Control characters (C0, DEL, C1) and the Unicode bidi
/// overrides and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what is shown) become
/// `\u{…}` escapes; everything else is kept.
public enum ControlEscape {
  /// `s` with its control and bidi-override scalars written as `\u{1B}`.
  public static func escaped(_ s: String) -> String {
    guard s.unicodeScalars.contains(where: needsEscape) else { return s }
    var out = String.UnicodeScalarView()
    for scalar in s.unicodeScalars {
      if needsEscape(scalar) {
        out.append(
          contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  private static func needsEscape(_ c: Unicode.Scalar) -> Bool {
    switch c.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }
}
