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
}
