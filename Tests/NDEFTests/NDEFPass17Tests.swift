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

extension NDEFPass17Tests {
  /// A chunked URI record (`B1` … `36`) followed by a complete record that is no continuation
  /// chunk (TNF 1, not 6): the complete record stands on its own, as ndeflib and Android read
  /// it; it was appended to the chunked payload, inventing "https://x.y\u{4}a" and a false
  /// `uri-invalid-characters`.
  @Test func recordAfterAnOpenChunkIsNotSwallowed() {
    let report = NDEFMessageParser.parse(hx("b101015504360003782e79d10102550461"), mode: .relax)
    #expect(report.message.records.map(\.payload) == [[0x04, 0x78, 0x2E, 0x79], [0x04, 0x61]])
    #expect(report.findings.map(\.code).contains("chunk-wrong-tnf"))
    #expect(!report.findings.map(\.code).contains("uri-invalid-characters"))
  }

  /// A message that ends inside a chunked record says its payload is incomplete (it only
  /// said `me-missing`).
  @Test func unterminatedChunkIsAnError() {
    let report = NDEFMessageParser.parse(hx("b101015504360003782e79"), mode: .relax)
    let f = report.findings.first { $0.code == "chunk-unterminated" }
    #expect(f?.severity == .error)
    #expect(f?.offset == 5)
  }
}

extension NDEFPass17Tests {
  /// A Credential (0x100E) whose length (255) runs past the payload: `wsc-truncated`, and the
  /// attributes before the end are shown; it also said `wsc-credential-missing`, which is
  /// false, and showed none of them.
  @Test func truncatedCredentialIsShownNotMissing() {
    let bytes = hx(
      "d2173b6170706c69636174696f6e2f766e642e7766612e777363104a000110100e00ff1026000101104500"
        + "054d794e6574100300020020100f000200081027000a7365637265747061737310200006001122334455")
    let result = NDEFCommand.run(bytes: bytes, options: NDEFCommandOptions())
    #expect(result.output.contains("error wsc-truncated @35"))
    #expect(!result.output.contains("wsc-credential-missing"))
    #expect(result.output.contains(#"ssid: "MyNet""#))
    #expect(!result.output.contains("secretpass"))
  }
}

extension NDEFPass17Tests {
  private func codes(_ hex: String) -> [String] {
    NDEFValidator.validate(hx(hex), mode: .relax).findings.map(\.code)
  }

  /// `Android.com:pkg` is the AAR type to the NFC Forum (case-insensitive) but not to
  /// Android's dispatcher (exact bytes): a warning; it passed silently.
  @Test func aarTypeInOtherCaseIsFlagged() {
    let type = Array("Android.com:pkg".utf8)
    let payload = Array("com.example.app".utf8)
    let record: [UInt8] = [0xD4, UInt8(type.count), UInt8(payload.count)] + type + payload
    let report = NDEFValidator.validate(record, mode: .relax)
    #expect(report.findings.map(\.code) == ["aar-type-case"])
    #expect(report.findings.first?.severity == .warning)
  }

  /// A TYPE carrying its URN prefix (`urn:nfc:wkt:U`, `urn:nfc:ext:android.com:pkg`) is no
  /// type any reader recognises: `type-urn-prefix` (the well-known one was called a "local
  /// type", the external one passed).
  @Test func urnPrefixInTypeIsAnError() {
    #expect(codes("d10d0475726e3a6e66633a776b743a5504782e79") == ["type-urn-prefix"])
    let type = Array("urn:nfc:ext:android.com:pkg".utf8)
    let record: [UInt8] = [0xD4, UInt8(type.count), 0x01] + type + [0x61]
    #expect(
      NDEFValidator.validate(record, mode: .relax).findings.map(\.code) == ["type-urn-prefix"])
  }
}
