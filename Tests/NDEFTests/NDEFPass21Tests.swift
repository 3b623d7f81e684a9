import Foundation
import NDEF
import Testing

/// NDEF findings of the seventeenth session's differential hunt against ndeflib and Android.
@Suite struct NDEFPass21Tests {
  private func codes(_ hex: String, _ mode: NDEFValidationMode = .relax) -> [String] {
    NDEFValidator.validate(hx(hex), mode: mode).findings.map(\.code)
  }

  private func json(_ hex: String, tlv: Bool = false) throws -> [String: Any] {
    let r = NDEFCommand.run(bytes: hx(hex), options: NDEFCommandOptions(tlv: tlv, format: .json))
    return try #require(
      try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
  }

  /// A message whose last record is a chunk with CF and ME set ends inside the chunked record:
  /// relax mode gave only the `cf-on-last` warning and showed the partial payload as if whole.
  @Test func chunkEndingOnMEIsUnterminatedInEveryMode() {
    let hex = "b101035402656e76000348656c"
    let relax = NDEFValidator.validate(hx(hex), mode: .relax)
    #expect(relax.findings.map(\.code) == ["cf-on-last", "chunk-unterminated"])
    #expect(relax.findings.map(\.severity) == [.warning, .error])
    #expect(codes(hex, .strict).contains("chunk-unterminated"))
    // One record with CF and ME, no chunk after it: the same.
    #expect(codes("f101015500").contains("chunk-unterminated"))
  }

  /// An Empty record (TNF 0) whose chunks carry a payload: each wire record has PAYLOAD_LENGTH
  /// 0 or is TNF 6, so nothing was flagged; Android rejects TNF_EMPTY with data.
  @Test func chunkedEmptyRecordIsNotEmpty() {
    #expect(codes("b000005600026162").first == "empty-not-empty")
    #expect(codes("b000005600026162", .strict) == ["empty-not-empty"])
  }

  /// A C1 control or a bidi override in a URI is named (ndeflib accepts it), and the text tree
  /// shows it escaped instead of letting it reorder or drive the terminal.
  @Test func hiddenCharactersInAURI() {
    let hex = "d10119550068747470733a2f2f612e636f6d2fe280ae676e702e657865"
    #expect(codes(hex) == ["uri-hidden-characters"])
    let text = NDEFCommand.run(bytes: hx(hex), options: NDEFCommandOptions()).output
    #expect(text.contains(#"uri: "https://a.com/\u{202E}gnp.exe""#))
    #expect(!text.unicodeScalars.contains { $0.value == 0x202E })
    #expect(codes("d1010c5503687474703a2f2fc29b324a").contains("uri-hidden-characters"))
  }

  /// A Wi-Fi P2P record's WSC attributes may hold the OOB device password: masked like WSC.
  @Test func wifiP2PDataIsMasked() throws {
    let type = Array("application/vnd.wfa.p2p".utf8)
    let payload: [UInt8] = [0x00, 0x04, 0x10, 0x2C, 0x00, 0x00]
    let bytes = [0xD2, UInt8(type.count), UInt8(payload.count)] + type + payload
    let hex = bytes.map { String(format: "%02x", $0) }.joined()
    let doc = try json(hex)
    let record = try #require((doc["records"] as? [[String: Any]])?.first)
    #expect(record["payload"] is NSNull)
    let decoded = try #require(record["decoded"] as? [String: Any])
    #expect(
      decoded["data"] as? String == "present, 6 bytes (Wi-Fi P2P: may hold a device password)")
  }

  /// An SSID that is not text is under `ssid_hex`: "ff006162" as a text SSID and as bytes
  /// were shown alike.
  @Test func binarySSIDIsNamedHex() throws {
    let doc = try json(
      "d217396170706c69636174696f6e2f766e642e7766612e777363104a000110100e0030102600010110450004"
        + "ff006162100300020020100f000200081027000973656372657431323310200006ffffffffffff")
    let record = try #require((doc["records"] as? [[String: Any]])?.first)
    let credential = try #require(
      (record["decoded"] as? [String: Any])?["credential"] as? [String: Any])
    #expect(credential["ssid_hex"] as? String == "ff006162")
    #expect(credential["ssid"] == nil)
  }

  /// A signature URI that is not UTF-8 was shown with replacement characters and no finding.
  @Test func signatureURINotUTF8() throws {
    let hex = "9101045402656e78510309536967208b02000361ff6200"
    #expect(codes(hex) == ["signature-uri-invalid-utf8"])
    let doc = try json(hex)
    let sig = try #require((doc["records"] as? [[String: Any]])?.last)
    #expect((sig["decoded"] as? [String: Any])?["signature_uri_hex"] as? String == "61ff62")
    #expect((doc["findings"] as? [[String: Any]])?.first?["offset"] as? Int == 19)
  }

  /// `--tlv` took a data area for a memory dump when byte 12 was E1h and byte 3 matched BCC0
  /// by chance; BCC1 at byte 8 must match too.
  @Test func dataAreaMatchingOnlyBCC0IsNotADump() throws {
    let area = "035bd10157550461626364" + "65e188b4" + String(repeating: "78", count: 80) + "fe"
    let doc = try json(area, tlv: true)
    let tlvs = try #require(doc["tlvs"] as? [[String: Any]])
    #expect(tlvs.first?["tag"] as? String == "NDEF Message")
    #expect(tlvs.first?["offset"] as? Int == 0)
  }

  /// 20,000 chunks: decoding stops at the record limit inside the chunked record, which does
  /// not show that the message ends there (a false `chunk-unterminated` was added).
  @Test func recordLimitInsideAChunkIsNotUnterminated() {
    let chunk: [UInt8] = [0x36, 0x00, 0x01, 0x42]
    let bytes =
      [0xB5, 0x00, 0x01, 0x41] + Array([[UInt8]](repeating: chunk, count: 19_999).joined())
    let report = NDEFValidator.validate(bytes, mode: .relax)
    #expect(report.findings.map(\.code) == ["too-many-records"])
  }

  /// A finding inside a chunked record's payload points at the payload byte in its chunk:
  /// the URI identifier code 'a' is at byte 7, after the second chunk's header, not at 4.
  @Test func findingOffsetsInChunksPointAtTheByte() {
    let report = NDEFValidator.validate(hx("b101005556000461616263"), mode: .relax)
    #expect(report.findings.map(\.code) == ["uri-code-reserved"])
    #expect(report.findings.first?.offset == 7)
  }

  /// An Empty first chunk with bytes of its own is flagged once, by the per-record check
  /// (review: the chunked-record check said it again).
  @Test func chunkedEmptyWithItsOwnPayloadIsFlaggedOnce() {
    #expect(
      codes("b0000261625600 00".replacingOccurrences(of: " ", with: ""))
        .filter { $0 == "empty-not-empty" }.count == 1)
  }

  /// `uri-hidden-characters` points at the character's first byte (here in the second chunk:
  /// byte 11), not at the URI field's start.
  @Test func hiddenCharacterOffsetIsTheCharacter() {
    let report = NDEFValidator.validate(
      hx("b10103550361625600056 3e280ae64".replacingOccurrences(of: " ", with: "")), mode: .relax)
    #expect(report.findings.first { $0.code == "uri-hidden-characters" }?.offset == 11)
  }

  /// Undecodable handover and Bluetooth records keep a documented kind name.
  @Test func undecodableKindsUseDocumentedNames() throws {
    let hs = try json("d102004873")
    #expect(
      (hs["records"] as? [[String: Any]])?.first?["kind"] as? String
        == "Handover Select (undecodable)")
    let bt = try json(
      "d220056170706c69636174696f6e2f766e642e626c7565746f6f74682e65702e6f6f620500010203")
    #expect(
      (bt["records"] as? [[String: Any]])?.first?["kind"] as? String
        == "Bluetooth BR/EDR OOB (undecodable)")
  }
}

/// NDEF findings of the nineteenth session.
@Suite struct NDEFPass22Tests {
  /// A Bluetooth finding in a chunked record: its offset is remapped to the chunk that holds
  /// the byte, and the message no longer repeats the joined payload's position (which named a
  /// byte of no chunk).
  @Test func bluetoothFindingInAChunkHasNoStalePosition() throws {
    let type = Array("application/vnd.bluetooth.ep.oob".utf8)
    let address: [UInt8] = [0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
    let payload: [UInt8] = [0x0D, 0x00] + address + [0x04, 0x09, 0x41, 0xFF, 0x42]
    let first = Array(payload.prefix(8))
    let second = Array(payload.dropFirst(8))
    let bytes: [UInt8] =
      [0xB2, UInt8(type.count), UInt8(first.count)] + type + first
      + [0x56, 0x00, UInt8(second.count)] + second
    let report = NDEFValidator.validate(bytes, mode: .relax)
    let f = try #require(report.findings.first { $0.code == "bt-name-invalid-utf8" })
    // Second chunk: header at 3 + 32 + 8 = 43, its payload at 46; the name's data is its
    // third byte.
    #expect(f.offset == 48)
    #expect(
      f.message
        == "Bluetooth local name is not valid UTF-8 (Core Specification Supplement Part A §1.2); "
        + "shown with replacement characters")
  }
}

extension NDEFPass22Tests {
  /// Strict mode stops at the last chunk (CF on the last record) before adding it to the
  /// chunked record: `chunk-unterminated` named the first chunk (byte 0) instead of the last
  /// one read, as relax mode does.
  @Test func strictChunkUnterminatedNamesTheLastChunk() {
    let hex = "b101035402656e76000348656c"
    for mode in [NDEFValidationMode.strict, .relax] {
      let r = NDEFValidator.validate(hx(hex), mode: mode)
      #expect(r.findings.first { $0.code == "chunk-unterminated" }?.offset == 7)
    }
  }
}
