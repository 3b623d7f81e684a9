/// A decoded Well-known URI record (NFC Forum RTD-URI 1.0 §3.2; identifier codes facts §7.4).
public struct NDEFURI: Sendable, Equatable {
  /// The complete identifier-code table, index = code 0x00–0x23 (NFC Forum RTD-URI 1.0
  /// §3.2.2; facts §7.4). Codes 0x24–0xFF are RFU.
  public static let prefixes: [String] = [
    "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
    "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://",
    "ftp://", "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:",
    "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://",
    "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
  ]

  /// The identifier code byte.
  public let code: UInt8
  /// The prefix the code stands for; nil for an RFU code (decoded as no prefix, like
  /// ndeflib's relax mode).
  public let prefix: String?
  /// The URI field after the code byte (UTF-8, lossy when invalid).
  public let rest: String

  /// Creates a decoded value; see the properties.
  public init(code: UInt8, prefix: String?, rest: String) {
    self.code = code
    self.prefix = prefix
    self.rest = rest
  }

  /// The full URI: prefix + rest.
  public var uri: String { (prefix ?? "") + rest }

  /// Longest table prefix of `uri` (code 0 when none matches) and the remainder.
  public static func abbreviate(_ uri: String) -> (UInt8, String) {
    var best: (UInt8, Int) = (0, 0)
    for (i, p) in prefixes.enumerated() where i > 0 && uri.hasPrefix(p) && p.count > best.1 {
      best = (UInt8(i), p.count)
    }
    return (best.0, String(uri.dropFirst(best.1)))
  }

  static let fix =
    "write it with NFCNDEFPayload.wellKnownTypeURIPayload(url:) (or "
    + "wellKnownTypeURIPayload(string:)), which picks the identifier code itself"

  /// Schemes recognised when a payload starts with a scheme instead of a code byte: every
  /// scheme of the identifier-code table (RTD-URI 1.0 §3.2.2) and common ones it lacks.
  static let knownSchemes: [String] = {
    let table = prefixes.compactMap { p in p.firstIndex(of: ":").map { String(p[...$0]) } }
    let common = [
      "http:", "https:", "sms:", "smsto:", "mms:", "geo:", "market:", "intent:", "ws:", "wss:",
      "data:", "spotify:", "bitcoin:", "magnet:", "fb:", "skype:", "whatsapp:",
    ]
    var seen = Set<String>()
    return (table + common).filter { seen.insert($0).inserted }
  }()

  /// The known scheme (with its colon) that `lower` (a lower-cased URI) starts with, nil when
  /// none. Only known ones: an RFU code byte before a whole URI ("a" + "http://…") must not
  /// read as a scheme "ahttp:".
  static func leadingScheme(_ lower: String) -> String? {
    knownSchemes.first { lower.hasPrefix($0) }
  }

  /// Decodes a URI payload at input offset `offset`, adding findings to `ctx`.
  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext) -> NDEFURI? {
    guard let code = p.first else {
      ctx.add(
        "uri-empty", .error, offset,
        "URI payload is empty: no identifier code "
          + "(NFC Forum RTD-URI 1.0 §3.2)", readers: "ndeflib: DecodeError", fix: fix)
      return nil
    }
    let restBytes = p[1...]
    let rest = NDEFText.utf8(restBytes)
    if rest == nil {
      ctx.add(
        "uri-invalid-utf8", .error, offset + 1,
        "URI field is not valid UTF-8 "
          + "(NFC Forum RTD-URI 1.0 §3.2.3)",
        readers: "ndeflib: 'URI field is not valid UTF-8 "
          + "data'", fix: fix)
    }
    let restText = rest ?? String(decoding: restBytes, as: UTF8.self)
    if restText.unicodeScalars.contains(where: { $0.value <= 0x1F || $0.value == 0x7F }) {
      ctx.add(
        "uri-invalid-characters", .error, offset + 1,
        "URI field contains control "
          + "characters (RFC 3987 §2.2)",
        readers: "ndeflib: 'URI field contains invalid "
          + "characters'", fix: fix)
    }
    if let at = restText.unicodeScalars.firstIndex(where: isHidingScalar) {
      let hidden = restText.unicodeScalars[at]
      // The finding points at the character's first byte in the URI field.
      let byte = restText.utf8.distance(from: restText.utf8.startIndex, to: at)
      ctx.add(
        "uri-hidden-characters", .warning, offset + 1 + byte,
        "URI field contains \(codePoint(hidden)) (a C1 control "
          + "or a bidi formatting character): it can make the link display as something else; "
          + "IRIs exclude C1 controls and bidi formatting characters (RFC 3987 §2.2, §4.1; "
          + "the later isolates U+2066–2069 and ALM U+061C alike)",
        readers: "ndeflib accepts it; browsers percent-encode or refuse it, and a URI shown "
          + "to the user may read in a different order than it opens",
        fix: "remove the character from the URI (percent-encode it if the resource needs it)")
    }
    let prefix: String? = Int(code) < prefixes.count ? prefixes[Int(code)] : nil
    if prefix == nil {
      reportReservedCode(p, restText: restText, offset: offset, ctx: &ctx)
    } else if let prefix {
      checkRepeatedScheme(prefix: prefix, rest: restText, code: code, offset: offset, ctx: &ctx)
    }
    return NDEFURI(code: code, prefix: prefix, rest: restText)
  }

  private static func reportReservedCode(
    _ p: [UInt8], restText: String, offset: Int, ctx: inout NDEFDecodeContext
  ) {
    let code = p[0]
    let whole = String(decoding: p, as: UTF8.self)
    let lower = whole.lowercased()
    if let scheme = leadingScheme(lower) {
      ctx.add(
        "uri-no-identifier-byte", .error, offset,
        "URI payload starts with the scheme "
          + "\"\(scheme)\": the identifier code byte is missing, so '\(printable(code))' "
          + "(0x\(hex2(code))) is read as an RFU identifier code (NFC Forum RTD-URI 1.0 §3.2.2)",
        readers: "ndeflib strict: 'decoding of URI identifier \(code) is not defined'; relax "
          + "shows \"\(clip(restText))\" (first character lost); apps that print "
          + "record.payload show \"\(clip(whole))\"", fix: fix)
      return
    }
    let severity: NDEFSeverity = ctx.mode == .strict ? .error : .warning
    ctx.add(
      "uri-code-reserved", severity, offset,
      "identifier code 0x\(hex2(code)) "
        + "('\(printable(code))') is RFU (codes 0x24–0xFF are reserved; NFC Forum RTD-URI 1.0 "
        + "§3.2.2); decoded as no prefix",
      readers: "ndeflib strict: 'decoding of URI identifier \(code) is not defined'; ndeflib "
        + "relax shows \"\(clip(restText))\"; apps that print record.payload show "
        + "\"\(clip(whole))\"", fix: fix)
  }

  private static func checkRepeatedScheme(
    prefix: String, rest: String, code: UInt8, offset: Int, ctx: inout NDEFDecodeContext
  ) {
    let lower = rest.lowercased()
    let prefixHasScheme = prefix.contains(":")
    let restScheme = leadingScheme(lower)
    if prefixHasScheme, let restScheme {
      // "mailto:" + "tel:…" is not a repeat but a wrong code: the reader opens "mailto:tel:…".
      let same = prefix.lowercased().prefix { $0 != ":" } == restScheme.prefix { $0 != ":" }
      ctx.add(
        "uri-scheme-repeated", .warning, offset + 1,
        "identifier code 0x\(hex2(code)) "
          + (same
            ? "already gives \"\(prefix)\" and the URI field starts with \"\(restScheme)\" again "
            : "gives \"\(prefix)\" but the URI field starts with another scheme, "
              + "\"\(restScheme)\": the identifier code is the wrong one ")
          + "(NFC Forum RTD-URI 1.0 §3.2.2)",
        readers: "every reader shows \"\(clip(prefix + rest))\"", fix: fix)
    } else if prefix.hasSuffix("www."), lower.hasPrefix("www.") {
      ctx.add(
        "uri-scheme-repeated", .warning, offset + 1,
        "identifier code 0x\(hex2(code)) "
          + "already gives \"\(prefix)\" and the URI field starts with \"www.\" again "
          + "(NFC Forum RTD-URI 1.0 §3.2.2)",
        readers: "every reader shows \"\(clip(prefix + rest))\"", fix: fix)
    }
  }
}

/// "U+" and at least four upper-case hex digits (Unicode's notation: U+0085, U+202E).
func codePoint(_ c: Unicode.Scalar) -> String {
  let digits = String(c.value, radix: 16, uppercase: true)
  return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// The byte as a character when printable ASCII, else `\xNN`.
func printable(_ b: UInt8) -> String {
  b >= 0x20 && b < 0x7F ? String(Character(Unicode.Scalar(b))) : "\\x" + hex2(b)
}

/// C1 controls and the bidi formatting characters that RFC 3987 §2.2 and §4.1 keep out of
/// IRIs (LRM, RLM, embeddings, overrides), with those Unicode added since (ALM, isolates).
private func isHidingScalar(_ c: Unicode.Scalar) -> Bool {
  switch c.value {
  case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
  default: return false
  }
}
