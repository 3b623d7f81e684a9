/// Minimal streaming JSON output on an `OutputBuffer`: string escaping per RFC 8259 §7 and the
/// scalar forms the renderers need. Structure (commas, brackets) is written by the caller.
public enum JSON {
  /// Appends `s` as a JSON string literal.
  public static func string(_ s: String, to out: OutputBuffer) {
    out.append(0x22)
    var s = s
    s.withUTF8 { utf8 in
      var start = 0
      for (i, c) in utf8.enumerated() where c < 0x20 || c == 0x22 || c == 0x5C {
        if i > start { out.append(UnsafeBufferPointer(rebasing: utf8[start..<i])) }
        escape(c, to: out)
        start = i + 1
      }
      if start < utf8.count { out.append(UnsafeBufferPointer(rebasing: utf8[start...])) }
    }
    out.append(0x22)
  }

  private static func escape(_ c: UInt8, to out: OutputBuffer) {
    switch c {
    case 0x22: out.write("\\\"")
    case 0x5C: out.write("\\\\")
    case 0x0A: out.write("\\n")
    case 0x0D: out.write("\\r")
    case 0x09: out.write("\\t")
    default:
      out.write("\\u00")
      out.appendHex([c])
    }
  }

  /// Appends `"key":`.
  public static func key(_ k: String, to out: OutputBuffer) {
    string(k, to: out)
    out.append(0x3A)
  }

  /// Appends an optional integer (`null` when nil).
  public static func int(_ v: Int?, to out: OutputBuffer) {
    if let v { out.write(String(v)) } else { out.write("null") }
  }

  /// Appends `[1,2,3]`.
  public static func ints<S: Sequence>(_ values: S, to out: OutputBuffer) where S.Element == Int {
    out.append(0x5B)
    elements(values, to: out) { out.appendInt(Int64($0)) }
    out.append(0x5D)
  }

  /// Appends `items` separated by commas, each written by `element`; the brackets (or braces)
  /// around them are the caller's.
  public static func elements<S: Sequence>(
    _ items: S, to out: OutputBuffer, _ element: (S.Element) -> Void
  ) {
    var first = true
    for item in items {
      if !first { out.append(0x2C) }
      first = false
      element(item)
    }
  }

  /// Appends the head every command's document starts with,
  /// `{"tool":"nfctrace","version":V,"source":{"path":P,"format":F}` (`F` null when nil), without
  /// the closing brace: the command's own members follow.
  public static func documentHead(
    version: String, path: String, format: String?, to out: OutputBuffer
  ) {
    out.write("{\"tool\":\"nfctrace\",\"version\":")
    string(version, to: out)
    out.write(",\"source\":{\"path\":")
    string(path, to: out)
    out.write(",\"format\":")
    optionalString(format, to: out)
    out.write("}")
  }

  /// Appends an optional string (`null` when nil).
  public static func optionalString(_ v: String?, to out: OutputBuffer) {
    if let v { string(v, to: out) } else { out.write("null") }
  }

  /// Appends a Core NFC error as `{"code","name"}`, or `null`.
  public static func coreNFCError(_ e: CoreNFCError?, to out: OutputBuffer) {
    guard let e else { return out.write("null") }
    out.write("{\"code\":\(e.code),\"name\":")
    string(e.name, to: out)
    out.write("}")
  }

  /// Appends a field value: ints and bools as JSON scalars, hex as a lower-case string.
  public static func value(_ v: FieldValue, to out: OutputBuffer) {
    switch v {
    case .int(let i): out.write(String(i))
    case .string(let s): string(s, to: out)
    case .bool(let b): out.write(b ? "true" : "false")
    case .hex(let bytes):
      out.append(0x22)
      out.appendHex(bytes)
      out.append(0x22)
    }
  }
}
