/// A decoded Well-known Text record (NFC Forum RTD-Text 1.0 §3.2.1; facts §7.5).
public struct NDEFText: Sendable, Equatable {
  /// Text encodings allowed by the status byte's b8 and the optional BOM.
  public enum Encoding: String, Sendable {
    case utf8 = "UTF-8"
    case utf16BE = "UTF-16BE"
    case utf16LE = "UTF-16LE"
  }

  /// The status byte: b8 UTF-16, b7 RFU, b6–b1 language code length.
  public let status: UInt8
  /// Encoding actually used (UTF-16 without BOM is big-endian, RTD-Text 1.0 §3.4).
  public let encoding: Encoding
  /// True when the UTF-16 text starts with a byte-order mark (not part of `text`).
  public let byteOrderMark: Bool
  /// IANA language code (RFC 5646), e.g. `en-US`.
  public let language: String
  /// The text (lossy replacement characters when the bytes were invalid).
  public let text: String

  /// Creates a decoded value; see the properties.
  public init(
    status: UInt8, encoding: Encoding, byteOrderMark: Bool, language: String, text: String
  ) {
    self.status = status
    self.encoding = encoding
    self.byteOrderMark = byteOrderMark
    self.language = language
    self.text = text
  }

  /// Printable ASCII (0x20–0x7E) as a String, nil otherwise or when empty is fine ("" ok).
  public static func printableASCII(_ bytes: [UInt8]) -> String? {
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Strict UTF-8 decode; nil on any invalid sequence.
  public static func utf8(_ bytes: ArraySlice<UInt8>) -> String? {
    var scalars = String.UnicodeScalarView()
    var it = bytes.makeIterator()
    var codec = UTF8()
    while true {
      switch codec.decode(&it) {
      case .scalarValue(let s): scalars.append(s)
      case .emptyInput: return String(scalars)
      case .error: return nil
      }
    }
  }

  /// Strict UTF-16 decode of an even number of bytes; nil on odd length or lone surrogates.
  public static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String? {
    guard bytes.count % 2 == 0 else { return nil }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var i = bytes.startIndex
    while i < bytes.endIndex {
      let a = UInt16(bytes[i])
      let b = UInt16(bytes[i + 1])
      units.append(bigEndian ? a << 8 | b : b << 8 | a)
      i += 2
    }
    var scalars = String.UnicodeScalarView()
    var it = units.makeIterator()
    var codec = UTF16()
    while true {
      switch codec.decode(&it) {
      case .scalarValue(let s): scalars.append(s)
      case .emptyInput: return String(scalars)
      case .error: return nil
      }
    }
  }

  /// True for an RFC 5646-shaped tag: a primary subtag of 2–8 letters (or the singleton `x` /
  /// `i` of private-use and grandfathered tags, followed by subtags; RFC 5646 §2.1), then `-`
  /// subtags of 1–8 letters/digits.
  public static func isLanguageTag(_ s: String) -> Bool {
    let parts = s.split(separator: "-", omittingEmptySubsequences: false)
    guard let first = parts.first, (1...8).contains(first.count),
      first.utf8.allSatisfy({ isLetter($0) })
    else { return false }
    if first.count == 1 {
      guard parts.count > 1, ["x", "i"].contains(first.lowercased()) else { return false }
    }
    return parts.dropFirst().allSatisfy { p in
      (1...8).contains(p.count) && p.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
  }

  static func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
}

extension NDEFText {
  static let fix =
    "write it with NFCNDEFPayload.wellKnownTypeTextPayload(string:locale:), which adds the "
    + "status byte and language code"

  /// Decodes a Text payload at input offset `offset`, adding findings to `ctx`.
  /// Returns nil when there is no text to show (no status byte, language past the end).
  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext) -> NDEFText? {
    guard let status = p.first else {
      ctx.add(
        "text-status-missing", .error, offset,
        "Text payload is empty: no status byte "
          + "(NFC Forum RTD-Text 1.0 §3.2.1)", readers: "ndeflib: DecodeError", fix: fix)
      return nil
    }
    let langLength = Int(status & 0x3F)
    let langEnd = 1 + langLength
    let langBytes = langEnd <= p.count ? Array(p[1..<langEnd]) : []
    let langText = NDEFText.printableASCII(langBytes)
    let languageOK = langLength > 0 && langEnd <= p.count && langText.map(isLanguageTag) == true
    // Letters, digits and hyphens are a language code, however malformed: only a field that
    // is no language at all makes the payload text without a status byte…
    let languageShaped =
      !langBytes.isEmpty
      && langBytes.allSatisfy { isLetter($0) || $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) }
    // …or a first byte with the RFU bit set: every letter has bit 6 set, so "Berlin" is the
    // app's text written without a status byte (0x42: language "er", text "lin"), not a
    // status byte that breaks the rule.
    if !languageOK && !languageShaped || status & 0x40 != 0, looksLikeRawText(p) {
      reportRawText(p, offset: offset, ctx: &ctx)
      return nil
    }
    if status & 0x40 != 0 {
      ctx.add(
        "text-status-rfu-set", .error, offset,
        "status byte 0x\(hex2(status)) has the RFU "
          + "bit (0x40) set; it must be 0 (NFC Forum RTD-Text 1.0 §3.2.1)",
        readers: "ndeflib ignores the bit; a strict reader may reject the record", fix: fix)
    }
    guard langLength > 0 else {
      ctx.add(
        "text-language-missing", .error, offset,
        "language code length is 0 "
          + "(NFC Forum RTD-Text 1.0 §3.2.1)",
        readers: "ndeflib: 'language code length can not "
          + "be zero'", fix: fix)
      return nil
    }
    guard langEnd <= p.count else {
      ctx.add(
        "text-language-length", .error, offset,
        "language code length \(langLength) "
          + "exceeds the \(p.count - 1) byte(s) after the status byte (NFC Forum RTD-Text 1.0 "
          + "§3.2.1)", readers: "ndeflib: 'language code length exceeds payload'", fix: fix)
      return nil
    }
    if langText == nil || !languageOK {
      ctx.add(
        "text-language-invalid", .error, offset + 1,
        "language code "
          + "\(langText.map { "\"\($0)\"" } ?? "0x" + langBytes.map(hex2).joined()) is not an "
          + "ASCII IANA language code of \(langLength) bytes (NFC Forum RTD-Text 1.0 §3.2.1, "
          + "RFC 5646)", readers: "readers show the language field as given", fix: fix)
    }
    let language = langText ?? String(decoding: langBytes, as: UTF8.self)
    return decodeBody(
      p, status: status, start: langEnd, language: language, offset: offset, ctx: &ctx)
  }

  private static func decodeBody(
    _ p: [UInt8], status: UInt8, start: Int, language: String, offset: Int,
    ctx: inout NDEFDecodeContext
  ) -> NDEFText {
    let body = p[start...]
    if status & 0x80 == 0 {
      if let s = utf8(body) {
        return NDEFText(
          status: status, encoding: .utf8, byteOrderMark: false, language: language, text: s)
      }
      ctx.add(
        "text-invalid-utf8", .error, offset + start,
        "text is not valid UTF-8 although "
          + "the status byte says UTF-8 (NFC Forum RTD-Text 1.0 §3.2.1)",
        readers: "ndeflib: \"can't be decoded as UTF-8\"; others show replacement characters",
        fix: fix)
      return NDEFText(
        status: status, encoding: .utf8, byteOrderMark: false, language: language,
        text: String(decoding: body, as: UTF8.self))
    }
    var bigEndian = true
    var bom = false
    var units = body
    if body.count >= 2 {
      let b0 = body[body.startIndex]
      let b1 = body[body.startIndex + 1]
      if b0 == 0xFE && b1 == 0xFF { bom = true }
      if b0 == 0xFF && b1 == 0xFE {
        bom = true
        bigEndian = false
      }
      if bom { units = body.dropFirst(2) }
    }
    let enc: Encoding = bigEndian ? .utf16BE : .utf16LE
    if let s = utf16(units, bigEndian: bigEndian) {
      if !bom && !units.isEmpty {
        ctx.add(
          "text-utf16-no-bom", .info, offset + start,
          "UTF-16 text without BOM is read "
            + "big-endian (NFC Forum RTD-Text 1.0 §3.4)",
          readers: "ndeflib (Python 'UTF-16' "
            + "codec) reads BOM-less text in host order, little-endian on most machines", fix: nil)
      }
      return NDEFText(
        status: status, encoding: enc, byteOrderMark: bom, language: language, text: s)
    }
    ctx.add(
      "text-invalid-utf16", .error, offset + start,
      "text is not valid UTF-16 "
        + "(\(units.count % 2 == 1 ? "odd byte count" : "unpaired surrogate")) "
        + "(NFC Forum RTD-Text 1.0 §3.2.1)", readers: "ndeflib: \"can't be decoded as UTF-16\"",
      fix: fix)
    return NDEFText(
      status: status, encoding: enc, byteOrderMark: bom, language: language,
      text: utf16Repaired(units, bigEndian: bigEndian))
  }

  /// UTF-16 with every lone surrogate, and an odd last byte, shown as U+FFFD (what a reader
  /// that repairs rather than rejects displays).
  static func utf16Repaired(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var i = bytes.startIndex
    while i + 1 < bytes.endIndex {
      let a = UInt16(bytes[i])
      let b = UInt16(bytes[i + 1])
      units.append(bigEndian ? a << 8 | b : b << 8 | a)
      i += 2
    }
    if bytes.count % 2 == 1 { units.append(0xFFFD) }
    return String(decoding: units, as: UTF16.self)
  }

  /// The payload is printable UTF-8 text whose first byte is a character, not a status byte:
  /// a printable ASCII byte, or the lead byte of a multi-byte UTF-8 character (0xC2…0xF4 —
  /// all of which read as a status byte with the RFU bit 6 set, which no valid Text record has).
  static func looksLikeRawText(_ p: [UInt8]) -> Bool {
    guard let first = p.first, (0x20..<0x7F).contains(first) || (0xC2...0xF4).contains(first),
      let s = utf8(p[...])
    else {
      return false
    }
    return s.unicodeScalars.allSatisfy {
      $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t"
    }
  }

  private static func reportRawText(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext) {
    let status = p[0]
    let raw = String(decoding: p, as: UTF8.self)
    let n = Int(status & 0x3F)
    let spec: String
    if n == 0 {
      spec = "ndeflib rejects it (language code length 0)"
    } else if 1 + n > p.count {
      spec = "ndeflib rejects it (language code length \(n) exceeds payload)"
    } else {
      let lang = String(decoding: p[1..<(1 + n)], as: UTF8.self)
      let rest = String(decoding: p[(1 + n)...], as: UTF8.self)
      spec = "RTD-Text readers such as ndeflib show language \"\(lang)\" and text \"\(rest)\""
    }
    ctx.add(
      "text-no-status-byte", .error, offset,
      "Text payload \"\(clip(raw))\" has no status "
        + "byte: its first byte '\(raw.first.map(String.init) ?? "")' (0x\(hex2(status))) reads as "
        + "status with RFU bit \(status & 0x40 != 0 ? "set" : "clear") and language length \(n) "
        + "(NFC Forum RTD-Text 1.0 §3.2.1)",
      readers: spec + "; apps that print record.payload as UTF-8 show \"\(clip(raw))\"", fix: fix)
  }
}

/// Shortens long strings for messages.
func clip(_ s: String, _ limit: Int = 60) -> String {
  s.count <= limit ? s : String(s.prefix(limit)) + "…"
}
