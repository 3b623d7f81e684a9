/// Hex formatting and parsing helpers used by importers and renderers.
public enum Hex {
  @usableFromInline static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Lower-case hex with no separator: `[0x30, 0x04]` → `"3004"`.
  public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Lower-case hex with `separator` between bytes: `"30 04"`.
  public static func string<C: Collection>(_ bytes: C, separator: String) -> String
  where C.Element == UInt8 {
    bytes.map { byte in
      String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }.joined(separator: separator)
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

  /// Parses hex text, ignoring spaces, colons, dashes and tabs; nil on any other character
  /// or an odd number of digits.
  public static func bytes<S: StringProtocol>(_ text: S) -> [UInt8]? {
    var out = [UInt8]()
    var high: UInt8?
    for c in text.utf8 {
      if c == 0x20 || c == 0x3A || c == 0x2D || c == 0x09 || c == 0x0A || c == 0x0D { continue }
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
