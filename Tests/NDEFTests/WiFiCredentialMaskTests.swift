import Foundation
import Testing

@testable import NDEF

/// A Wi-Fi network key must not show through a Credential that could not be read whole (an
/// attribute in it cut short) or through one nested in a Credential: both were printed as
/// the Credential's hex, key included (Wi-Fi Simple Configuration 2.0 §12).
@Suite struct WiFiCredentialMaskTests {
  /// Credential of 16 bytes holding a Network Key attribute announcing 32 bytes:
  /// `10 27 00 20` + "secretpass12".
  static let cutKey =
    "d217146170706c69636174696f6e2f766e642e7766612e777363100e001010270020736563726574706173733132"
  /// Credential nesting a Credential that holds Network Key "abcd".
  static let nested =
    "d217106170706c69636174696f6e2f766e642e7766612e777363100e000c100e00081027000461626364"

  private func decoded(_ hex: String, secrets: Bool = false) throws -> [String: Any] {
    let r = NDEFCommand.run(
      input: hex, options: NDEFCommandOptions(format: .json, showSecrets: secrets))
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
    let record = try #require((json["records"] as? [[String: Any]])?.first)
    #expect(secrets || record["payload"] is NSNull)
    return try #require(record["decoded"] as? [String: Any])
  }

  @Test func cutShortAttributeIsMasked() throws {
    let credential = try #require(try decoded(Self.cutKey)["credential"] as? [String: Any])
    #expect(credential["undecoded"] as? String == "16 bytes (masked: may hold the network key)")
    #expect(credential.count == 1)
    let shown = try #require(
      try decoded(Self.cutKey, secrets: true)["credential"] as? [String: Any])
    #expect(shown["undecoded"] as? String == "10270020736563726574706173733132")
  }

  @Test func nestedCredentialIsDecodedAndMasked() throws {
    let outer = try #require(try decoded(Self.nested)["credential"] as? [String: Any])
    let inner = try #require(outer["credential"] as? [String: Any])
    #expect(inner["network_key"] as? String == "present, 4 bytes")
    #expect(outer["undecoded"] == nil)
  }

  /// RF Bands, Key Provided Automatically and the device's text attributes are decoded as
  /// ndeflib decodes them.
  @Test func deviceAttributesAreDecoded() throws {
    // RF Bands 03, Key Provided Automatically 01, Manufacturer "ACME", UUID-E 00..0f.
    let attrs =
      "103c000103" + "106100010" + "1" + "102100044143" + "4d45" + "10470010"
      + "000102030405060708090a0b0c0d0e0f"
    let payloadLength = String(format: "%02x", attrs.count / 2)
    let hex = "d217" + payloadLength + "6170706c69636174696f6e2f766e642e7766612e777363" + attrs
    let d = try decoded(hex)
    #expect(d["rf_bands"] as? String == "2.4GHz|5.0GHz")
    #expect(d["key_provided_automatically"] as? Bool == true)
    #expect(d["manufacturer"] as? String == "ACME")
    #expect(d["uuid_e"] as? String == "00010203-0405-0607-0809-0a0b0c0d0e0f")
  }
}

/// A Signature record's hash type is named as its signature type is (Signature RTD 2.0: 02h
/// SHA-256, the rest RFU). Message from ndeflib: `SignatureRecord('ECDSA-P256', 'SHA-256',
/// b'\x01' * 4)`.
@Test func signatureHashTypeIsNamed() throws {
  let r = NDEFCommand.run(
    input: "d1030a536967200b0200040101010100", options: NDEFCommandOptions(format: .json))
  let json = try #require(
    try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
  let record = try #require((json["records"] as? [[String: Any]])?.first)
  let d = try #require(record["decoded"] as? [String: Any])
  #expect(d["signature_type_name"] as? String == "ECDSA-P256")
  #expect(d["hash_type"] as? Int == 2)
  #expect(d["hash_type_name"] as? String == "SHA-256")
}

/// Another vendor's Vendor Extension (00:11:22) wrapping a Credential with a Network Key: WSC
/// attributes that are not decoded are masked (the key showed as the extension's hex).
@Test func undecodedWSCAttributesAreMasked() throws {
  let hex =
    "d2173b6170706c69636174696f6e2f766e642e7766612e777363104a000110100e0009104500054d794e65"
    + "7410490025001122100e001e104500054d794e65741027001153757065725365637265744b6579313233"
  func output(_ format: NDEFOutputFormat, _ secrets: Bool) -> String {
    NDEFCommand.run(
      input: hex, options: NDEFCommandOptions(format: format, showSecrets: secrets)
    ).output
  }
  for format in [NDEFOutputFormat.text, .json] {
    #expect(!output(format, false).contains("5365637265"))  // "Secre"
    #expect(
      output(format, false).contains("present, 37 bytes (masked: not decoded, may hold a key)"))
    #expect(output(format, true).contains("5365637265"))
  }
}
