import Foundation
import NDEF
import Testing

/// NDEF findings of the 2026-12-07 (ninth) hunt against ndeflib and the specs.
@Suite struct NDEFPass48Tests {
  static func run(_ hex: String, strict: Bool = false, tlv: Bool = false) -> NDEFCommandResult {
    NDEFCommand.run(
      bytes: hx(hex), options: NDEFCommandOptions(tlv: tlv, mode: strict ? .strict : .relax))
  }

  static func codes(_ r: NDEFCommandResult) -> [String] {
    r.output.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ")
      guard words.count > 2, ["error", "warning", "info"].contains(words[0]) else { return nil }
      return words[0] + " " + words[1]
    }
  }

  /// RTD-URI 1.0 §3.2.2: "sftp://x" written without its code byte reads as code 73h ('s', RFU)
  /// and "ftp://x": sftp is a scheme of the code table, so the byte is missing (an error), not
  /// an RFU code before a URI (it was a warning, exit 0).
  @Test(arguments: [
    ("sftp://x", "sftp:"), ("smb://x", "smb:"), ("rtsp://x", "rtsp:"), ("news:x", "news:"),
    ("wss://x", "wss:"), ("data:,x", "data:"),
  ])
  func tableSchemeWithoutCodeByte(uri: String, scheme: String) {
    let payload = Array(uri.utf8)
    let hex = "d1 01 " + hexString([UInt8(payload.count)]) + " 55 " + hexString(payload)
    let r = Self.run(hex)
    #expect(r.failed)
    #expect(Self.codes(r) == ["error uri-no-identifier-byte"])
    #expect(r.output.contains("URI payload starts with the scheme \"\(scheme)\""))
  }

  /// An RFU code byte before a whole URI ('a' + "http://x") is an RFU code, not a scheme
  /// "ahttp:".
  @Test func rfuCodeBeforeWholeURIStaysReserved() {
    let r = Self.run("d1 01 09 55 61 68 74 74 70 3a 2f 2f 78")
    #expect(!r.failed)
    #expect(Self.codes(r) == ["warning uri-code-reserved"])
  }

  /// Every scheme of the code table repeated after its code is flagged (only 8 of 35 were).
  @Test func repeatedTableSchemeIsFlagged() {
    let r = Self.run("d1 01 0b 55 0a 73 66 74 70 3a 2f 2f 78 2e 79")
    #expect(Self.codes(r) == ["warning uri-scheme-repeated"])
    #expect(
      r.output.contains(
        "identifier code 0x0a already gives \"sftp://\" and the URI field starts with \"sftp:\" "
          + "again"))
    let wrong = Self.run("d1 01 0b 55 04 72 74 73 70 3a 2f 2f 78 2e 79")
    #expect(
      wrong.output.contains(
        "identifier code 0x04 gives \"https://\" but the URI field starts with another scheme, "
          + "\"rtsp:\""))
  }

  /// Payload findings of a Smart Poster's inner records start "in Smart Poster:" and stay
  /// warnings in strict mode, as json.md says (the RFU code was an error without the prefix).
  @Test func nestedPayloadFindingsArePrefixedAndStayWarnings() {
    let sp = "d1 02 0d 53 70 d1 01 09 55 61 68 74 74 70 3a 2f 2f 78"
    for strict in [false, true] {
      let r = Self.run(sp, strict: strict)
      #expect(!r.failed)
      #expect(
        r.output.contains(
          "warning uri-code-reserved @9: in Smart Poster: identifier code 0x61 ('a') is RFU"))
    }
    let control = Self.run("d1 02 0a 53 70 d1 01 06 55 04 61 01 62 63 64")
    #expect(
      control.output.contains(
        "error uri-invalid-characters @10: in Smart Poster: URI field contains control"))
  }

  /// A cut NDEF TLV header is reported once (`tlv-length-past-end`), not also as missing.
  @Test(arguments: ["00 00 03 ff 00", "03"])
  func cutNDEFTLVHeaderIsNotMissing(hex: String) {
    let r = Self.run(hex, tlv: true)
    #expect(Self.codes(r) == ["error tlv-length-past-end"])
  }

  /// RTD 1.0 §2.1: a TYPE with a control character matches no record type.
  @Test func controlCharacterInType() {
    let r = Self.run("d1 01 01 00 41")
    #expect(!r.failed)
    #expect(
      r.output.contains(
        "warning type-invalid-characters @0: TYPE byte 0 is 0x00, a control character or space"))
  }

  /// ME missing on the only record: the record was read, it is not "before the damage".
  @Test func strictSummaryOfDamagedLastRecord() {
    let r = Self.run("91 01 01 55 00", strict: true)
    #expect(
      r.output.hasPrefix("NDEF message (strict): 1 record, damaged at byte 0 (5 bytes given)"))
  }

  /// Code points in Unicode notation: U+0085, not U+85.
  @Test func hiddenCharacterCodePoint() {
    let r = Self.run("d1 01 04 55 04 61 c2 85")
    #expect(r.output.contains("URI field contains U+0085 (a C1 control"))
  }
}

extension NDEFPass48Tests {
  /// A media type's parameters may hold a space (RFC 2045 §5.1): not `type-invalid-characters`.
  @Test func mediaTypeParametersAreNotFlagged() {
    let type = Array("text/plain; charset=utf-8".utf8)
    let hex = "d2 " + hexString([UInt8(type.count)]) + " 02 " + hexString(type) + " 68 69"
    #expect(Self.codes(Self.run(hex)).isEmpty)
  }
}
