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
    #expect(result.output.contains("@511 NULL"))
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

  /// `text/vcard; charset=utf-8` is a vCard (the type's essence decides, RFC 6838 §4.2).
  @Test func mediaTypeParametersDoNotHideTheType() {
    let record = NDEFRecord(
      tnf: .media, type: Array("Text/VCard; charset=utf-8".utf8),
      payload: Array("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8))
    let report = NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax)
    #expect(report.records.first?.payload.kindName == "vCard")
  }
}
