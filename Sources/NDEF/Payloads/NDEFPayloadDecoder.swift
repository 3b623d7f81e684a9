/// Chooses and runs the payload decoder for a record (by TNF and TYPE).
public enum NDEFPayloadDecoder {
  /// Decodes `record`'s payload; problems go to `ctx.findings`. Never throws: payloads that
  /// cannot be decoded become `.undecodable` with a finding.
  public static func decode(_ record: NDEFRecord, context ctx: inout NDEFDecodeContext)
    -> NDEFPayload
  {
    let before = ctx.findings.count
    let payload = decodeJoined(record, context: &ctx)
    if record.isChunked { ctx.mapJoinedOffsets(from: before, to: record.chunks) }
    return payload
  }

  /// Decodes the joined payload; findings inside it count offsets as if the payload were
  /// contiguous from the first chunk's payload.
  private static func decodeJoined(_ record: NDEFRecord, context ctx: inout NDEFDecodeContext)
    -> NDEFPayload
  {
    let p = record.payload
    let at = record.payloadOffset
    let type = String(decoding: record.type, as: UTF8.self)
    switch record.tnf {
    case .empty: return .empty
    case .unknown: return .unknown(data: p)
    case .unchanged: return .unchanged(data: p)
    case .reserved: return .reserved(data: p)
    case .absoluteURI:
      checkAbsoluteURI(type, offset: record.offset, ctx: &ctx)
      return .absoluteURI(uri: type, data: p)
    case .wellKnown: return wellKnown(type, p, at, record: record, ctx: &ctx)
    case .media: return media(type, p, at, offset: record.offset, ctx: &ctx)
    case .external: return external(type, p, at, offset: record.offset, ctx: &ctx)
    }
  }

  private static func wellKnown(
    _ type: String, _ p: [UInt8], _ at: Int, record: NDEFRecord, ctx: inout NDEFDecodeContext
  ) -> NDEFPayload {
    if urnPrefixed(type, "urn:nfc:wkt:", offset: record.offset, ctx: &ctx) {
      return .wellKnown(type: type, data: p)
    }
    if ctx.depth == 0, let first = type.unicodeScalars.first, ("a"..."z").contains(first) {
      // A name starting with a lower-case letter is a local type (NFC Forum RTD 1.0 §2.3,
      // §3.2.1): outside a Smart Poster or Handover record it has no meaning. Known ones are
      // still decoded below, as their parent would read them.
      ctx.add(
        "local-type-at-top-level", .warning, record.offset,
        "well-known type \"\(type)\" is a local type (lower-case first letter): it has a "
          + "meaning only inside its parent record (Smart Poster, Handover), not at the top "
          + "level of a message (NFC Forum RTD 1.0 §2.3)",
        readers: "ndeflib shows a plain record urn:nfc:wkt:\(type); phones ignore it",
        fix: "put it inside its parent record's payload, or use a global type")
    }
    switch type {
    case "T":
      return NDEFText.decode(p, offset: at, ctx: &ctx).map { .text($0) }
        ?? .undecodable(kind: "Text", data: p)
    case "U":
      return NDEFURI.decode(p, offset: at, ctx: &ctx).map { .uri($0) }
        ?? .undecodable(kind: "URI", data: p)
    case "Sp":
      return NDEFSmartPoster.decode(p, offset: at, ctx: &ctx).map { .smartPoster($0) }
        ?? .undecodable(kind: "Smart Poster", data: p)
    case "act":
      guard p.count == 1 else { return badLength("Action", "act", 1, p, at, &ctx) }
      if p[0] > 2 {
        ctx.add(
          "sp-action-rfu", .warning, at,
          "Smart Poster action \(p[0]) is reserved: 0 do, 1 save, 2 open for editing (NFC "
            + "Forum Smart Poster RTD 1.0 §3.3.3)",
          readers: "readers ignore the action or treat it as 0 (do the action)")
      }
      return .action(p[0])
    case "s":
      guard p.count == 4 else { return badLength("Size", "s", 4, p, at, &ctx) }
      return .size(UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3]))
    case "t":
      // The Smart Poster type record holds a media type: US-ASCII (RFC 2046 §5.1).
      if String(validating: p, as: UTF8.self) == nil {
        ctx.add(
          "poster-type-invalid-utf8", .warning, at,
          "Smart Poster type record (t) is not valid UTF-8; it names a media type, which is "
            + "US-ASCII (Smart Poster RTD 1.0 §3.3.5, RFC 2046 §5.1)",
          readers: "ndeflib rejects the record; other readers ignore the type")
      }
      return .posterType(String(decoding: p, as: UTF8.self))
    case "Hs", "Hr", "Hm", "Hi":
      return NDEFHandover.decode(type, p, offset: at, ctx: &ctx).map { .handover($0) }
        ?? .undecodable(kind: NDEFHandover.Kind(rawValue: type)?.name ?? "Handover", data: p)
    case "Hc":
      return NDEFHandoverCarrier.decode(p, offset: at, ctx: &ctx).map { .handoverCarrier($0) }
        ?? .undecodable(kind: "Handover Carrier", data: p)
    case "ac":
      return NDEFAlternativeCarrier.decode(p, offset: at, ctx: &ctx).map { .alternativeCarrier($0) }
        ?? .undecodable(kind: "Alternative Carrier", data: p)
    case "cr":
      guard p.count == 2 else { return badLength("Collision Resolution", "cr", 2, p, at, &ctx) }
      return .collisionResolution(UInt16(p[0]) << 8 | UInt16(p[1]))
    case "err":
      guard let reason = p.first else {
        return badLength("Handover Error", "err", 1, p, at, &ctx, atLeast: true)
      }
      NDEFHandover.checkError(reason: reason, dataLength: p.count - 1, offset: at, ctx: &ctx)
      return .handoverError(reason: reason, data: Array(p.dropFirst()))
    case "Sig":
      return NDEFSignature.decode(p, offset: at, ctx: &ctx).map { .signature($0) }
        ?? .undecodable(kind: "Signature", data: p)
    default:
      return .wellKnown(type: type, data: p)
    }
  }

  private static func badLength(
    _ kind: String, _ type: String, _ expected: Int, _ p: [UInt8], _ at: Int,
    _ ctx: inout NDEFDecodeContext, atLeast: Bool = false
  ) -> NDEFPayload {
    // A Handover Error holds its 1-byte reason, then error data (Connection Handover §6.2.6).
    ctx.add(
      "payload-length-invalid", .error, at,
      "\(kind) record '\(type)' needs \(atLeast ? "at least " : "")a \(expected)-byte "
        + "payload, has \(p.count) (NFC Forum \(type == "cr" || type == "err" ? "Connection Handover" : "Smart Poster RTD"))"
    )
    return .undecodable(kind: kind, data: p)
  }

  /// A media type's essence: type/subtype without parameters, lower-cased (`Application/
  /// Vnd.WFA.WSC; v=1` → `application/vnd.wfa.wsc`; RFC 6838 §4.2, RFC 2045 §5.1).
  static func mediaTypeEssence(_ type: String) -> String {
    let head = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
    // Android trims every character up to U+0020 (Java `String.trim()`), NUL and CR LF too.
    let text = head.map(String.init) ?? type
    let kept = text.unicodeScalars.drop { $0.value <= 0x20 }.reversed().drop { $0.value <= 0x20 }
    return String(String.UnicodeScalarView(kept.reversed())).lowercased()
  }

  private static func media(
    _ type: String, _ p: [UInt8], _ at: Int, offset: Int, ctx: inout NDEFDecodeContext
  ) -> NDEFPayload {
    let lower = type.lowercased()
    if !isMediaType(lower) {
      ctx.add(
        "mime-type-invalid", .error, offset,
        "TYPE \"\(clip(type))\" is not a valid media "
          + "type 'type/subtype' (RFC 2046 §5, RFC 6838 §4.2; NDEF 1.0 §3.2.6)",
        readers: "Android dispatches no intent for it; ndeflib keeps the bytes",
        fix: "NFCNDEFPayload(format: .media, type: \"text/plain\".data(using: .utf8)!, ...) with a "
          + "registered media type")
    }
    switch mediaTypeEssence(type) {
    case "application/vnd.bluetooth.ep.oob", "application/vnd.bluetooth.le.oob":
      return NDEFBluetoothOOB.decode(mediaTypeEssence(type), p, offset: at, ctx: &ctx).map {
        .bluetoothOOB($0)
      }
        ?? .undecodable(
          kind: mediaTypeEssence(type).hasSuffix(".le.oob")
            ? "Bluetooth LE OOB" : "Bluetooth BR/EDR OOB", data: p)
    case "application/vnd.wfa.wsc":
      return NDEFWiFiSimpleConfig.decode(p, offset: at, ctx: &ctx).map { .wifiSimpleConfig($0) }
        ?? .undecodable(kind: "Wi-Fi Simple Config", data: p)
    case "text/vcard", "text/x-vcard":
      return .vcard(textOrNote(p, at, type, &ctx))
    default:
      if lower.hasPrefix("text/") {
        return .mimeText(type: type, text: textOrNote(p, at, type, &ctx))
      }
      return .mime(type: type, data: p)
    }
  }

  private static func textOrNote(
    _ p: [UInt8], _ at: Int, _ type: String, _ ctx: inout NDEFDecodeContext
  ) -> String {
    if let charset = charset(of: type), charset != "utf-8", charset != "us-ascii" {
      if let s = decode(p, charset: charset) { return s }
      ctx.add(
        "mime-text-charset", .warning, at,
        "\(type) payload does not decode as \(charset) (or that charset is not one this tool "
          + "reads: UTF-8, US-ASCII, UTF-16/-BE/-LE, ISO-8859-1); shown as UTF-8 (RFC 2046 "
          + "§4.1.2)")
      return String(decoding: p, as: UTF8.self)
    }
    if let s = NDEFText.utf8(p[...]) { return s }
    ctx.add(
      "mime-text-not-utf8", .warning, at,
      "\(type) payload is not valid UTF-8; shown with "
        + "replacement characters (RFC 2046 §4.1.2: charset defaults vary)")
    return String(decoding: p, as: UTF8.self)
  }

  /// The lower-cased `charset` parameter of a media type (`text/plain; charset="UTF-16"`;
  /// RFC 2045 §5.1), nil without one.
  static func charset(of type: String) -> String? {
    for parameter in type.split(separator: ";").dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "charset" else { continue }
      return pair[1].trimmingSpaces().lowercased().filter { $0 != "\"" }
    }
    return nil
  }

  /// Text in `charset`: UTF-16 (a BOM decides, else big-endian; RFC 2781 §4.3), UTF-16BE/LE,
  /// ISO-8859-1; nil for an invalid text or another charset.
  static func decode(_ p: [UInt8], charset: String) -> String? {
    switch charset {
    case "utf-16":
      if p.starts(with: [0xFF, 0xFE]) { return NDEFText.utf16(p.dropFirst(2), bigEndian: false) }
      if p.starts(with: [0xFE, 0xFF]) { return NDEFText.utf16(p.dropFirst(2), bigEndian: true) }
      return NDEFText.utf16(p[...], bigEndian: true)
    case "utf-16be": return NDEFText.utf16(p[...], bigEndian: true)
    case "utf-16le": return NDEFText.utf16(p[...], bigEndian: false)
    case "iso-8859-1", "latin1", "iso_8859-1":
      return String(String.UnicodeScalarView(p.map { Unicode.Scalar($0) }))
    default: return nil
    }
  }

  /// `type "/" subtype` of RFC 6838 restricted-name characters (parameters after `;` allowed).
  public static func isMediaType(_ s: String) -> Bool {
    let main = s.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    let parts = main.trimmingSpaces().split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return false }
    return parts.allSatisfy { part in
      guard let f = part.utf8.first, (1...127).contains(part.count), isAlnum(f) else {
        return false
      }
      return part.utf8.allSatisfy { isAlnum($0) || "!#$&-^_.+".utf8.contains($0) }
    }
  }

  static func isAlnum(_ c: UInt8) -> Bool { NDEFText.isLetter(c) || (c >= 0x30 && c <= 0x39) }

  private static func checkAbsoluteURI(_ type: String, offset: Int, ctx: inout NDEFDecodeContext) {
    let scheme = type.prefix(while: { $0 != ":" })
    let ok =
      type.contains(":") && !scheme.isEmpty
      && scheme.utf8.allSatisfy {
        isAlnum($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
      } && scheme.utf8.first.map(NDEFText.isLetter) == true
    if !ok {
      ctx.add(
        "absolute-uri-invalid", .error, offset,
        "TNF 3 TYPE \"\(clip(type))\" is not an "
          + "absolute URI 'scheme:…' (RFC 3986 §4.3; NDEF 1.0 §3.2.6)",
        fix: "for a link use NFCNDEFPayload.wellKnownTypeURIPayload(url:) (TNF 1 'U')")
    }
  }

  private static func external(
    _ type: String, _ p: [UInt8], _ at: Int, offset: Int, ctx: inout NDEFDecodeContext
  ) -> NDEFPayload {
    _ = urnPrefixed(type, "urn:nfc:ext:", offset: offset, ctx: &ctx)
    if type.lowercased() == "android.com:pkg" {
      let name = String(decoding: p, as: UTF8.self)
      if type != "android.com:pkg" {
        // NFC Forum type names compare case-insensitively, but Android's dispatcher
        // (NfcDispatcher) compares the TYPE bytes with "android.com:pkg" exactly.
        ctx.add(
          "aar-type-case", .warning, offset,
          "TYPE \"\(clip(type))\" is the Android Application Record's type in other letter "
            + "case: NFC Forum names compare case-insensitively (RTD 1.0 §2.3.2), but Android "
            + "compares the bytes with \"android.com:pkg\" exactly",
          readers: "Android ignores it as an AAR: it does not start the app",
          fix:
            "NFCNDEFPayload(format: .nfcExternal, type: \"android.com:pkg\".data(using: .utf8)!, "
            + "identifier: Data(), payload: \"com.example.app\".data(using: .utf8)!)")
      }
      if !isJavaPackage(name) {
        ctx.add(
          "aar-package-invalid", .error, at,
          "Android Application Record package "
            + "\"\(clip(name))\" is not a valid package name (dot-separated Java identifiers, at "
            + "least two parts; Android NdefRecord.createApplicationRecord)",
          readers: "Android finds no app and opens Play "
            + "Store search for the literal string, or ignores the record",
          fix:
            "NFCNDEFPayload(format: .nfcExternal, type: \"android.com:pkg\".data(using: .utf8)!, "
            + "identifier: Data(), payload: \"com.example.app\".data(using: .utf8)!)")
      }
      return .androidApplication(package: name)
    }
    let parts = type.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count < 2 || parts[0].isEmpty || parts.last?.isEmpty == true {
      ctx.add(
        "external-type-invalid", .warning, offset,
        "external TYPE \"\(clip(type))\" is not "
          + "'domain:type' (NFC Forum RTD 1.0 §2.3.2)",
        readers: "Android builds the intent type "
          + "vnd.android.nfc://ext/\(type.lowercased())")
    }
    return .external(type: type, data: p)
  }

  /// A TYPE that carries the `urn:nfc:wkt:` / `urn:nfc:ext:` prefix: the prefix belongs to the
  /// name's URN form only, the TYPE field holds the name without it (NFC Forum RTD 1.0 §2.1,
  /// §3.1). True when reported.
  private static func urnPrefixed(
    _ type: String, _ prefix: String, offset: Int, ctx: inout NDEFDecodeContext
  ) -> Bool {
    guard type.lowercased().hasPrefix(prefix) else { return false }
    ctx.add(
      "type-urn-prefix", .error, offset,
      "TYPE \"\(clip(type))\" starts with \"\(prefix)\": the TYPE field holds the name without "
        + "that prefix (\"\(clip(String(type.dropFirst(prefix.count))))\"), which only its URN form "
        + "carries (NFC Forum RTD 1.0 §2.1, §3.1)",
      readers: "Android and Core NFC compare the TYPE bytes: no reader recognises the record",
      fix: "put the bare name in the TYPE (e.g. NFCNDEFPayload(format: .nfcExternal, type: "
        + "\"android.com:pkg\".data(using: .utf8)!, …))")
    return true
  }

  /// Android package name: `[A-Za-z][A-Za-z0-9_]*` parts joined by `.`, at least two parts.
  public static func isJavaPackage(_ s: String) -> Bool {
    let parts = s.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count >= 2 else { return false }
    return parts.allSatisfy { part in
      guard let f = part.utf8.first, NDEFText.isLetter(f) else { return false }
      return part.utf8.allSatisfy { isAlnum($0) || $0 == 0x5F }
    }
  }

  /// Parses a nested message (Smart Poster, Handover) at `offset` one level deeper.
  /// Returns nil (with `nesting-too-deep`) past `ctx.maxDepth`; reports inner structural
  /// findings plus one `nested-message-broken` when the inner message breaks NDEF rules.
  static func nested(
    _ bytes: [UInt8], offset: Int, owner: String, ctx: inout NDEFDecodeContext
  ) -> [NDEFDecodedRecord]? {
    guard ctx.depth < ctx.maxDepth else {
      ctx.add(
        "nesting-too-deep", .error, offset,
        "\(owner) payload nests messages deeper than "
          + "\(ctx.maxDepth) levels; not decoded further")
      return nil
    }
    let inner = NDEFMessageParser.parse(
      bytes, mode: ctx.mode == .strict ? .relax : ctx.mode, base: offset)
    let broken = inner.findings.contains {
      $0.severity == .error
        || ["mb-missing", "me-missing", "mb-in-middle", "cf-on-last"].contains($0.code)
    }
    if broken {
      ctx.add(
        "nested-message-broken", .error, offset,
        "the \(owner) payload is not a valid NDEF "
          + "message (inner MB/ME/lengths; NDEF 1.0 §2.3.1)",
        readers: "ndeflib raises "
          + "DecodeError for the outer record; Android shows the record without its content",
        fix: "build the nested message with NFCNDEFMessage(records:) and use its bytes")
    }
    // The inner records' payload findings are the nested message's too: prefixed, and minor
    // errors stay warnings in strict mode, as the inner framing's do.
    var innerContext = NDEFDecodeContext(
      mode: ctx.mode == .strict ? .relax : ctx.mode, maxDepth: ctx.maxDepth)
    innerContext.depth = ctx.depth + 1
    let records = inner.message.records.map { r in
      NDEFDecodedRecord(record: r, payload: decode(r, context: &innerContext))
    }
    for f in inner.findings + innerContext.findings {
      ctx.findings.append(
        NDEFFinding(
          code: f.code, severity: f.severity, offset: f.offset,
          message: "in \(owner): " + f.message, readersShow: f.readersShow, fix: f.fix))
    }
    return records
  }
}

extension Substring {
  func trimmingSpaces() -> Substring {
    var s = self
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return s
  }
}
