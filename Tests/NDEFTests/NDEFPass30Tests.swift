import Foundation
import NDEF
import TestSupport
import Testing

/// NDEF findings of the 2026-12-05 hunt (against ndeflib and the specs).
@Suite struct NDEFPass30Tests {
  /// Signature RTD 2.0 §3.3: the Certificate Chain field follows the signature in every
  /// record; a 2.0 record that ends after the signature is truncated (it was accepted).
  @Test func signatureWithoutCertificateChainIsTruncated() {
    let r = NDEFCommand.run(
      bytes: hx("9101055402656e6869510307536967200b020002aabb"), options: NDEFCommandOptions())
    #expect(r.failed)
    #expect(
      r.output.contains(
        "error signature-truncated @22: Signature record: input ends after 0 more byte(s); "
          + "certificate chain byte (URI-present flag, format and count) needs 1"))
    // With the chain byte (no certificate): decoded, no finding.
    let ok = NDEFCommand.run(
      bytes: hx("9101055402656e6869510308536967200b020002aabb00"), options: NDEFCommandOptions())
    #expect(!ok.failed)
    #expect(ok.output.contains("Findings: none"))
  }

  /// EIR data of the wrong size for its type is flagged and shown whole, as hex: the odd
  /// byte of a 16-bit UUID list was dropped, a 2-byte Class of Device shown as a value.
  @Test func bluetoothFieldOfTheWrongSize() {
    let mime = "6170706c69636174696f6e2f766e642e626c7565746f6f74682e65702e6f6f62"
    let uuids = NDEFCommand.run(
      bytes: hx("d220 0d" + mime + "0d00 060504030201 04030b110e"), options: NDEFCommandOptions())
    #expect(uuids.output.contains("complete_list_of_16_bit_service_uuids: 0x0b110e"))
    #expect(
      uuids.output.contains(
        "warning bt-eir-size @43: Complete List of 16-bit Service UUIDs of 3 byte(s): a "
          + "multiple of 2 expected"))
    let cod = NDEFCommand.run(
      bytes: hx("d220 0c" + mime + "0c00 060504030201 030d0102"), options: NDEFCommandOptions())
    #expect(cod.output.contains("class_of_device: 0x0102"))
    #expect(cod.output.contains("Class of Device of 2 byte(s): 3 expected"))
    // Two whole 16-bit UUIDs: decoded, no finding.
    let good = NDEFCommand.run(
      bytes: hx("d220 0e" + mime + "0e00 060504030201 05030b110e11"),
      options: NDEFCommandOptions())
    #expect(good.output.contains("complete_list_of_16_bit_service_uuids: \"0x110b, 0x110e\""))
    #expect(!good.output.contains("bt-eir-size"))
  }

  /// Hex on standard input may start with `0x`, as an argument may (it was read as binary).
  @Test func stdinHexWithLeadingZeroX() {
    let stdin = NDEFCommand.run(
      input: "-", options: NDEFCommandOptions(),
      readStdin: { Array("0xd101065504782e636f6d\n".utf8) })
    let argument = NDEFCommand.run(input: "d101065504782e636f6d", options: NDEFCommandOptions())
    #expect(!stdin.failed)
    #expect(stdin.output == argument.output)
  }
}
