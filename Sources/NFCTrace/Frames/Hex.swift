/// Hex formatting and parsing helpers used by importers and renderers.
public enum Hex {
  @usableFromInline static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// A 16-bit value as 4 upper-case digits, as file ids, system codes and status words are
  /// written: `0xE104` → `"E104"`.
  public static func word(_ v: UInt16) -> String {
    string([UInt8(v >> 8), UInt8(v & 0xFF)]).uppercased()
  }

  /// Lower-case hex with no separator: `[0x30, 0x04]` → `"3004"`.
  public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    string(bytes, separatorBytes: "")
  }

  /// Lower-case hex with `separator` between bytes: `"30 04"`.
  public static func string<C: Collection>(_ bytes: C, separator: String) -> String
  where C.Element == UInt8 {
    string(bytes, separatorBytes: separator)
  }

  /// One allocation for the whole text: these strings are built for frames by the million.
  private static func string<C: Collection>(_ bytes: C, separatorBytes sep: String) -> String
  where C.Element == UInt8 {
    let n = bytes.count
    guard n > 0 else { return "" }
    let capacity = n * 2 + (n - 1) * sep.utf8.count
    return String(unsafeUninitializedCapacity: capacity) { out in
      var i = 0
      for b in bytes {
        if i > 0 {
          for s in sep.utf8 {
            out[i] = s
            i += 1
          }
        }
        out[i] = digits[Int(b >> 4)]
        out[i + 1] = digits[Int(b & 0x0F)]
        i += 2
      }
      return i
    }
  }

  /// Upper-case colon-separated form used for UIDs: `04:66:D6:5F`.
  public static func uid<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    string(bytes, separator: ":").uppercased()
  }

  /// Value of one ASCII hex digit, or nil.
  @inlinable
  public static func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: return c - 0x30
    case 0x41...0x46: return c - 0x41 + 10
    case 0x61...0x66: return c - 0x61 + 10
    default: return nil
    }
  }

  /// Parses hex text, ignoring spaces, colons, dashes, tabs, CR and LF between bytes; nil on
  /// any other character or on a group of digits between separators of odd length.
  public static func bytes<S: StringProtocol>(_ text: S) -> [UInt8]? {
    var out = [UInt8]()
    var high: UInt8?
    for c in text.utf8 {
      if c == 0x20 || c == 0x3A || c == 0x2D || c == 0x09 || c == 0x0A || c == 0x0D {
        // A separator ends a group of whole bytes: "5 2" or "9:370" is damage, not 52 / 93 70.
        guard high == nil else { return nil }
        continue
      }
      guard let v = nibble(c) else { return nil }
      if let h = high {
        out.append(h << 4 | v)
        high = nil
      } else {
        high = v
      }
    }
    return high == nil ? out : nil
  }
}
