import NDEF
import Testing

/// Codes of the findings for `bytes` in `mode`.
private func codes(_ bytes: [UInt8], _ mode: NDEFValidationMode = .relax) -> [String] {
  NDEFValidator.validate(bytes, mode: mode).findings.map(\.code)
}

private func finding(_ bytes: [UInt8], _ code: String, _ mode: NDEFValidationMode = .relax)
  -> NDEFFinding?
{
  NDEFValidator.validate(bytes, mode: mode).findings.first { $0.code == code }
}

@Suite("NDEF validator")
struct NDEFValidatorTests {
  // MARK: app mistakes (Core NFC tutorials in shared/seeds)

  @Test("Text record written as raw UTF-8 \"Hello\" (no status byte)")
  func rawUTF8Text() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: Array("Hello".utf8))
    ]).bytes
    let f = try #require(finding(bytes, "text-no-status-byte"))
    #expect(f.severity == .error)
    #expect(f.offset == 4)
    #expect(f.message.contains("0x48"))
    #expect(f.message.contains("language length 8"))
    #expect(
      f.readersShow?.contains("ndeflib rejects it (language code length 8 exceeds payload)") == true
    )
    #expect(f.fix?.contains("NFCNDEFPayload.wellKnownTypeTextPayload(string:locale:)") == true)
    #expect(codes(bytes) == ["text-no-status-byte"])
  }

  /// A language length that fills the payload exactly is accepted by ndeflib (language = the
  /// rest, empty text); the finding said ndeflib rejects it (hunt ndef 2026-12-04b).
  @Test("Raw text whose first byte's length fills the payload exactly")
  func rawTextLanguageFillsPayload() throws {
    let text = "!hello world, this is plain text!!"
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: Array(text.utf8))
    ]).bytes
    let f = try #require(finding(bytes, "text-no-status-byte"))
    #expect(
      f.readersShow?.hasPrefix(
        "RTD-Text readers such as ndeflib show language \"hello world, this is plain text!!\" "
          + "and text \"\";") == true)
  }

  @Test("Longer raw text: readers show a bogus language and the rest")
  func rawUTF8TextLong() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: Array("Hello World from NFC".utf8))
    ]).bytes
    let f = try #require(finding(bytes, "text-no-status-byte"))
    #expect(
      f.readersShow?.hasPrefix(
        "RTD-Text readers such as ndeflib show language \"ello Wor\" and text \"ld from NFC\"")
        == true)
  }

  /// A payload that is not printable UTF-8 as a whole: a status byte, whatever its RFU bit.
  @Test("Status byte with the RFU bit set but otherwise valid")
  func rfuBit() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(
        tnf: .wellKnown, type: [0x54],
        payload: [0xC2] + Array("en".utf8) + [0xFE, 0xFF, 0x00, 0xE9])
    ]).bytes
    #expect(codes(bytes) == ["text-status-rfu-set"])
    let r = NDEFValidator.validate(bytes)
    guard case .text(let t) = r.records[0].payload else {
      Issue.record("no text")
      return
    }
    #expect(t.language == "en")
    #expect(t.text == "é")
  }

  @Test("Language code not ASCII, and language length past the payload")
  func languageProblems() {
    let nonASCII = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0xC3, 0xA9, 0x41])
    ]).bytes
    #expect(codes(nonASCII) == ["text-language-invalid"])
    let tooLong = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x05, 0x01, 0x02])
    ]).bytes
    #expect(codes(tooLong) == ["text-language-length"])
    let zero = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x00, 0x41])
    ]).bytes
    #expect(codes(zero) == ["text-language-missing"])
  }

  @Test("URI payload 'ahttps://www.example.cn': 0x61 is an RFU identifier code")
  func reservedURICode() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x55], payload: Array("ahttps://www.example.cn".utf8))
    ]).bytes
    let relax = try #require(finding(bytes, "uri-code-reserved"))
    #expect(relax.severity == .warning)
    #expect(relax.offset == 4)
    #expect(relax.message.hasPrefix("identifier code 0x61 ('a') is RFU"))
    #expect(relax.readersShow?.contains("ndeflib relax shows \"https://www.example.cn\"") == true)
    #expect(relax.fix?.contains("NFCNDEFPayload.wellKnownTypeURIPayload(url:)") == true)
    #expect(finding(bytes, "uri-code-reserved", .strict)?.severity == .error)
    #expect(NDEFValidator.validate(bytes, mode: .strict).failed)
    #expect(NDEFValidator.validate(bytes, mode: .relax).failed == false)
    guard case .uri(let u) = NDEFValidator.validate(bytes).records[0].payload else {
      Issue.record("no uri")
      return
    }
    #expect(u.prefix == nil)
    #expect(u.uri == "https://www.example.cn")
  }

  @Test("URI payload with no identifier byte ('https://example.com')")
  func missingIdentifierByte() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x55], payload: Array("https://example.com".utf8))
    ]).bytes
    let f = try #require(finding(bytes, "uri-no-identifier-byte"))
    #expect(f.severity == .error)
    #expect(f.message.contains("\"https:\""))
    #expect(f.readersShow?.contains("relax shows \"ttps://example.com\"") == true)
    #expect(codes(bytes) == ["uri-no-identifier-byte"])
  }

  @Test("Scheme repeated after a prefix that already gives one")
  func repeatedScheme() throws {
    let bytes = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x04] + Array("https://example.com".utf8))
    ]).bytes
    let f = try #require(finding(bytes, "uri-scheme-repeated"))
    #expect(f.severity == .warning)
    #expect(f.readersShow == "every reader shows \"https://https://example.com\"")
    let www = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x01] + Array("www.a.io".utf8))
    ]).bytes
    #expect(codes(www) == ["uri-scheme-repeated"])
  }

  @Test("Invalid UTF-8 and UTF-16 text")
  func invalidEncodings() {
    let utf8 = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E, 0xC3, 0x28])
    ]).bytes
    #expect(codes(utf8) == ["text-invalid-utf8"])
    let odd = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82, 0x65, 0x6E, 0x00, 0x41, 0x00])
    ]).bytes
    #expect(codes(odd) == ["text-invalid-utf16"])
    let lone = NDEFMessage(records: [
      NDEFRecord(
        tnf: .wellKnown, type: [0x54], payload: [0x82, 0x65, 0x6E, 0xFE, 0xFF, 0xD8, 0x00])
    ]).bytes
    #expect(codes(lone) == ["text-invalid-utf16"])
    // What is shown: U+FFFD for the lone surrogate and for the odd last byte, the rest decoded.
    for (bytes, shown) in [(odd, "A\u{FFFD}"), (lone, "\u{FFFD}")] {
      guard case .text(let t) = NDEFValidator.validate(bytes).records.first?.payload else {
        Issue.record("no text")
        continue
      }
      #expect(t.text == shown)
    }
    let uri = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x03, 0xFF])
    ]).bytes
    #expect(codes(uri) == ["uri-invalid-utf8"])
  }

  // MARK: structure

  @Test("MB not set on the first record: warning in relax, throws in strict")
  func mbMissing() throws {
    let bytes = hx("51 01 01 55 00")
    let f = try #require(finding(bytes, "mb-missing"))
    #expect(f.severity == .warning)
    #expect(f.offset == 0)
    #expect(throws: NDEFError.self) { try NDEFMessage(parsing: bytes) }
    let strict = NDEFValidator.validate(bytes, mode: .strict)
    #expect(strict.failure?.code == "mb-missing")
    #expect(strict.records.isEmpty)
  }

  @Test("ME missing, MB in a middle record, CF on the last record")
  func flagErrors() {
    #expect(codes(hx("91 01 01 55 00  11 01 01 55 00")) == ["me-missing"])
    #expect(finding(hx("91 01 01 55 00  11 01 01 55 00"), "me-missing")?.offset == 5)
    #expect(codes(hx("91 01 01 55 00  D1 01 01 55 00")) == ["mb-in-middle"])
    #expect(codes(hx("F1 01 01 55 00")) == ["cf-on-last", "chunk-unterminated"])
    #expect(
      NDEFValidator.validate(hx("F1 01 01 55 00"), mode: .strict).failure?.code == "cf-on-last")
  }

  @Test("Chunk with the wrong TNF, chunk with IL set, Unchanged outside a chunk")
  func chunkErrors() {
    // The record with the wrong TNF is a record of its own (TNF 2 with an empty TYPE).
    #expect(
      codes(hx("B2 03 01 61 2F 62 41  52 00 01 42")) == ["chunk-wrong-tnf", "mime-type-invalid"])
    #expect(codes(hx("B2 03 01 61 2F 62 41  5E 00 01 00 42")) == ["chunk-il-set"])
    #expect(codes(hx("D6 00 01 42")) == ["unchanged-outside-chunk"])
  }

  @Test("SR with a length that does not fit, lengths past the end")
  func lengthErrors() throws {
    // SR clear although the record was written with a 1-byte length.
    let bytes = hx("C1 01 02 55 00 41")
    let f = try #require(finding(bytes, "length-past-end"))
    #expect(f.severity == .error)
    #expect(f.offset == 6)
    #expect(f.message.contains("; with SR set (1-byte PAYLOAD_LENGTH) the record would fit"))
    #expect(finding(hx("C1 01 02"), "header-truncated")?.offset == 1)
    #expect(codes(hx("D1 01 09 55 00 41")) == ["length-past-end"])
  }

  @Test("Bytes after the last record, empty message, TNF Empty with lengths, type missing")
  func otherStructure() {
    #expect(codes(hx("D1 01 01 55 00 00 00")) == ["trailing-bytes"])
    #expect(finding(hx("D1 01 01 55 00 00 00"), "trailing-bytes")?.offset == 5)
    #expect(codes([]) == ["empty-message"])
    #expect(codes(hx("D0 00 01 41")) == ["empty-not-empty"])
    #expect(codes(hx("D1 00 00")) == ["type-missing"])
    #expect(codes(hx("D5 01 00 41")) == ["type-not-allowed"])
    #expect(codes(hx("D7 00 00")) == ["tnf-reserved"])
  }

  // MARK: semantic

  @Test("Smart Poster without URI record, and with a broken inner message")
  func smartPosterProblems() {
    let noURI = NDEFMessage(records: [.smartPoster(NDEFMessage(records: [.text("t")]))]).bytes
    #expect(codes(noURI) == ["sp-uri-missing"])
    // Inner record lacks MB and ME.
    let inner = hx("11 01 01 55 00")
    let broken = NDEFMessage(records: [
      NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: inner)
    ]).bytes
    #expect(codes(broken) == ["nested-message-broken", "mb-missing", "me-missing"])
    #expect(finding(broken, "nested-message-broken")?.offset == 5)
    #expect(finding(broken, "mb-missing")?.offset == 5)
  }

  @Test("AAR with an invalid package name; MIME type that is not a media type")
  func semanticTypes() {
    let aar = NDEFMessage(records: [
      .external("android.com:pkg", payload: Array("not a package".utf8))
    ]).bytes
    #expect(codes(aar) == ["aar-package-invalid"])
    let okAAR = NDEFMessage(records: [
      .external("android.com:pkg", payload: Array("com.example.app".utf8))
    ]).bytes
    #expect(codes(okAAR) == [])
    let mime = NDEFMessage(records: [.mime("textplain", payload: [1])]).bytes
    #expect(codes(mime) == ["mime-type-invalid"])
  }

  @Test("Nesting deeper than the limit has its own error")
  func nestingLimit() {
    var m = NDEFMessage(records: [.uri("https://x.io")])
    for _ in 0..<6 { m = NDEFMessage(records: [.smartPoster(m)]) }
    let relax = NDEFValidator.validate(m.bytes, mode: .relax, maxDepth: 4)
    #expect(relax.findings.filter { $0.code == "nesting-too-deep" }.count == 1)
    let strict = NDEFValidator.validate(m.bytes, mode: .strict, maxDepth: 4)
    #expect(strict.failure?.kind == .nestingTooDeep)
    #expect(NDEFValidator.validate(m.bytes, mode: .strict, maxDepth: 8).failure == nil)
  }

  @Test("Ignore mode never fails; relax fails on errors")
  func modes() {
    let bytes = hx("D1 01 09 55 00 41")
    #expect(NDEFValidator.validate(bytes, mode: .ignore).failed == false)
    #expect(NDEFValidator.validate(bytes, mode: .relax).failed)
  }
}
