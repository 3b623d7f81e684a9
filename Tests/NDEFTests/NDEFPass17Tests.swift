import Foundation
import NDEF
import TestSupport
import Testing

/// NDEF findings of the thirteenth session's passes.
@Suite struct NDEFPass17Tests {
  /// A TYPE holding ESC sequences and CR (`text/` ESC[1A ESC[2K CR "Findings: none" ESC[8m)
  /// moved the terminal's cursor up, erased the "Findings (1):" line and hid the rest when
  /// the `mime-type-invalid` message quoting it was printed. Messages now escape control
  /// characters as the tree does.
  @Test func findingMessagesCarryNoControlCodes() {
    let type = Array("text/".utf8) + [0x1B] + Array("[1A".utf8) + [0x0D] + Array("X".utf8)
    let record: [UInt8] = [0xD2, UInt8(type.count), 0x01] + type + [0x61]
    let result = NDEFCommand.run(bytes: record, options: NDEFCommandOptions())
    #expect(!result.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D })
    #expect(result.output.contains(#"TYPE "text/\u{1B}[1A\u{D}X" is not a valid media type"#))
  }

  @Test func controlEscapeKeepsTextAndEscapesControlsAndBidi() {
    #expect(ControlEscape.escaped("https://example.com/ä") == "https://example.com/ä")
    #expect(ControlEscape.escaped("a\nb\u{7F}\u{9B}\u{202E}c") == #"a\u{A}b\u{7F}\u{9B}\u{202E}c"#)
  }
}
