import Foundation
import NDEF
import TestSupport
import Testing

/// NDEF findings of the eleventh session's passes.
@Suite struct NDEFPass15Tests {
  /// `ndef --tlv` on a whole NTAG215 dump (ChameleonMini's blank NTAG215, CC `E1 10 3E`) stops
  /// at the end of the 496-byte data area (byte 511): it went on into CFG0 and read AUTH0 (04)
  /// as an RFU TLV whose length ran past the end (exit 3), where `report` is fine.
  @Test func tlvWalkOfAWholeDumpEndsWithTheCCDataArea() throws {
    let path = TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(bytes.count == 540)
    let result = NDEFCommand.run(bytes: bytes, options: NDEFCommandOptions(tlv: true))
    #expect(!result.failed)
    #expect(result.output.contains("@16 NULL ×496 (to byte 511)"))
    #expect(result.output.contains("warning ndef-tlv-missing @512"))
    #expect(!result.output.contains("@527"))
  }

  /// The Wi-Fi key stays masked whatever the spelling of the WSC media type: upper case (a
  /// truncated credential whose key attribute is not parsed), a Handover Carrier's carrier
  /// type, and a parameter (`; v=1`, which Android strips). All three showed "SuperSecret99".
  @Test(arguments: [
    "d2171c4170706c69636174696f6e2f566e642e5746412e575343100e0040104500034e65741027000d"
      + "53757065725365637265743939",
    "d10235486302174170706c69636174696f6e2f566e642e5766612e577363100e0018104500034e6574"
      + "1027000d53757065725365637265743939",
    "d21c1c6170706c69636174696f6e2f766e642e7766612e7773633b20763d31100e0018104500034e65"
      + "741027000d53757065725365637265743939",
  ])
  func wifiKeyMaskedWhateverTheTypeSpelling(_ hex: String) {
    for format in [NDEFOutputFormat.text, .json] {
      let result = NDEFCommand.run(bytes: hx(hex), options: NDEFCommandOptions(format: format))
      #expect(!result.output.contains("5375706572"))
      #expect(!result.output.contains("SuperSecret"))
      #expect(!result.output.contains("53 75 70 65 72"))
    }
  }

  /// Android trims the type of every character up to U+0020 (Java `trim()`): a WSC type with
  /// a trailing CR LF or NUL is still Wi-Fi, and its key stays masked.
  @Test(arguments: ["\r\n", "\u{0}", " \n"])
  func wifiKeyMaskedWithTrailingControlCharacters(_ tail: String) {
    let payload = hx("100e0018104500034e65741027000d53757065725365637265743939")
    let record = NDEFRecord(
      tnf: .media, type: Array(("application/vnd.wfa.wsc" + tail).utf8), payload: payload)
    let bytes = NDEFMessage(records: [record]).bytes
    for format in [NDEFOutputFormat.text, .json] {
      let result = NDEFCommand.run(bytes: bytes, options: NDEFCommandOptions(format: format))
      #expect(!result.output.contains("5375706572") && !result.output.contains("SuperSecret"))
    }
  }

  /// `text/vcard; charset=utf-8` is a vCard (the type's essence decides, RFC 6838 §4.2).
  @Test func mediaTypeParametersDoNotHideTheType() {
    let record = NDEFRecord(
      tnf: .media, type: Array("Text/VCard; charset=utf-8".utf8),
      payload: Array("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8))
    let report = NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax)
    #expect(report.records.first?.payload.kindName == "vCard")
  }

  private func codes(_ type: String, tnf: NDEFTNF = .media, _ payload: [UInt8]) -> [String] {
    let record = NDEFRecord(tnf: tnf, type: Array(type.utf8), payload: payload)
    return NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax).findings
      .map(\.code)
  }

  /// Bluetooth EIR: a zero length byte ends the significant part; a name after it is unseen
  /// by readers (it was dropped silently). A local name that is not UTF-8 is reported.
  @Test func bluetoothDataAfterPaddingAndNonUTF8Names() {
    let type = "application/vnd.bluetooth.ep.oob"
    let address: [UInt8] = [0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
    let hidden: [UInt8] = [0x00, 0x07, 0x09] + Array("Hidden".utf8)
    var p = [UInt8(2 + 6 + hidden.count), 0x00] + address + hidden
    #expect(codes(type, p) == ["bt-eir-after-padding"])
    let badName: [UInt8] = [0x04, 0x09, 0x41, 0xFF, 0x42]
    p = [UInt8(2 + 6 + badName.count), 0x00] + address + badName
    #expect(codes(type, p) == ["bt-name-invalid-utf8"])
  }

  /// A Smart Poster's type record (`t`) that is not UTF-8 gets a finding (it was replaced by
  /// U+FFFD silently).
  @Test func smartPosterTypeNotUTF8() {
    let uri = NDEFRecord(
      tnf: .wellKnown, type: Array("U".utf8), payload: [0x04] + Array("a.b".utf8))
    let t = NDEFRecord(tnf: .wellKnown, type: Array("t".utf8), payload: [0x74, 0xFF, 0x2F, 0x70])
    let poster = NDEFRecord(
      tnf: .wellKnown, type: Array("Sp".utf8), payload: NDEFMessage(records: [uri, t]).bytes)
    let report = NDEFValidator.validate(NDEFMessage(records: [poster]).bytes, mode: .relax)
    #expect(report.findings.map(\.code) == ["poster-type-invalid-utf8"])
  }
}
