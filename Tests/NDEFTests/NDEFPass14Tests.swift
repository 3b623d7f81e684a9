import Foundation
import NDEF
import Testing

/// NDEF findings of the tenth session's oracle pass (ndeflib 0.3.3 and the specs).
@Suite struct NDEFPass14Tests {
  private func validate(_ hex: String) -> NDEFReport {
    NDEFValidator.validate(hx(hex), mode: .relax)
  }

  /// A WSC payload in the Connection Handover form (2-byte total length first) was read as
  /// attribute type 0x0029 and reported truncated; its OOB Device Password (ID 7) is decoded,
  /// and a password token needs no Credential.
  @Test func wscWithLengthPrefixAndOOBDevicePassword() throws {
    let payload =
      "0029" + "10200006020202020202" + "102c0016" + String(repeating: "01", count: 20) + "0007"
      + "104a000110"
    let record = NDEFRecord(
      tnf: .media, type: Array("application/vnd.wfa.wsc".utf8), payload: hx(payload))
    let report = NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax)
    #expect(report.findings.map(\.code) == [])
    guard case .wifiSimpleConfig(let w)? = report.records.first?.payload else {
      Issue.record("not decoded as WSC")
      return
    }
    #expect(w.lengthPrefix == 41)
    #expect(w.attributes.map(\.type) == [0x1020, 0x102C, 0x104A])
    let fields = report.records.first?.payload.fields() ?? []
    #expect(fields.first == .int("length_prefix", 41))
    guard case .object(let oob)? = fields.first(where: { $0.name == "oob_device_password" })?.value
    else {
      Issue.record("no oob_device_password")
      return
    }
    #expect(oob.contains(.int("password_id", 7)))
    #expect(oob.contains(.text("password_id_name", "NFC-Connection-Handover")))
  }

  /// The Wi-Fi Alliance vendor extension: Version2 2.0 and Network Key Shareable (ndeflib's
  /// `WifiAllianceVendorExtension`); a reserved attribute type is a warning.
  @Test func wscVendorExtensionAndReservedAttribute() throws {
    let payload = "104a000110" + "1049000600372a000120" + "1049000600372a020101" + "0001000110"
    let record = NDEFRecord(
      tnf: .media, type: Array("application/vnd.wfa.wsc".utf8), payload: hx(payload))
    let report = NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax)
    #expect(report.findings.map(\.code) == ["wsc-credential-missing", "wsc-attribute-reserved"])
    let fields = report.records.first?.payload.fields() ?? []
    let vendor = fields.filter { $0.name == "vendor_extension" }.map(\.value)
    #expect(
      vendor == [
        .object([.text("vendor", "Wi-Fi Alliance (00:37:2A)"), .text("version2", "2.0")]),
        .object([
          .text("vendor", "Wi-Fi Alliance (00:37:2A)"),
          NDEFField("network_key_shareable", .bool(true)),
        ]),
      ])
  }

  /// Local types (`t`, `act`, `ac`) at the top level were decoded as Smart Poster / Handover
  /// parts without a word: a warning says they mean nothing there.
  @Test(arguments: ["d101057402656e6869", "d1030161637401", "d10204616301013000"])
  func localTypeAtTopLevel(hex: String) {
    let report = validate(hex)
    #expect(report.findings.map(\.code) == ["local-type-at-top-level"])
    #expect(report.findings.first?.severity == .warning)
  }

  /// Inside a Smart Poster the same `t` is its type record.
  @Test func localTypeInsideItsParent() {
    let report = validate("d1020d5370" + "9101045504612e62" + "5101017461")
    #expect(report.findings.isEmpty)
  }

  /// A Lock Control TLV whose length (3) is right but whose value the data area cuts got a
  /// second error saying it "has 2".
  @Test func cutControlTLVIsOnlyPastTheEnd() {
    let area = Type2TLVArea(parsing: hx("01 03 a0 10"), baseAddress: 16)
    #expect(area.findings.map(\.code) == ["tlv-length-past-end", "ndef-tlv-missing"])
    let wrong = Type2TLVArea(parsing: hx("01 02 a0 10 fe"), baseAddress: 16)
    #expect(wrong.findings.first?.code == "tlv-control-length")
    #expect(wrong.findings.first?.message.contains("has 2") == true)
  }

  /// Every JSON finding has `readers_show` (null when there is nothing to say).
  @Test func jsonFindingsAlwaysHaveReadersShow() throws {
    let r = NDEFCommand.run(
      input: "00 01 03 a0 10 44 fd 01 aa 03 ff 00 08 d101045504612e62 fe",
      options: NDEFCommandOptions(tlv: true, mode: .relax, format: .json))
    let doc = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any]
    let findings = try #require(doc?["findings"] as? [[String: Any]])
    #expect(!findings.isEmpty)
    #expect(findings.allSatisfy { $0.keys.contains("readers_show") && $0.keys.contains("fix") })
  }

  /// A Wi-Fi Alliance subelement running past its attribute is warned (it was silently cut);
  /// AuthorizedMACs that is no whole number of addresses stays bytes; a Credential nested in a
  /// Credential stays bytes instead of an empty object (attacker pass, finding 9).
  @Test func wfaVendorExtensionDamage() throws {
    func decode(_ payload: String) -> NDEFReport {
      let record = NDEFRecord(
        tnf: .media, type: Array("application/vnd.wfa.wsc".utf8), payload: hx(payload))
      return NDEFValidator.validate(NDEFMessage(records: [record]).bytes, mode: .relax)
    }
    let cut = decode(
      "104a000110" + "1049000600372a000520" + "102c0016" + String(repeating: "01", count: 22))
    let f = try #require(cut.findings.first { $0.code == "wsc-vendor-extension-truncated" })
    #expect(f.severity == .warning)
    let macs = decode(
      "104a000110" + "1049000a00372a0105aabbccddee" + "102c0016"
        + String(repeating: "01", count: 22))
    let vendor = macs.records.first?.payload.fields().first { $0.name == "vendor_extension" }
    #expect(
      vendor?.value
        == .object([
          .text("vendor", "Wi-Fi Alliance (00:37:2A)"),
          // A subelement not decoded may hold a key: masked (its bytes with --show-secrets).
          .text("subelement_0x01", "present, 5 bytes (masked: not decoded, may hold a key)"),
        ]))
    let nested = decode("100e000c" + "100e0008" + "1045000441424344")
    guard case .object(let outer)? = nested.records.first?.payload.fields().first?.value else {
      Issue.record("no credential")
      return
    }
    // A Credential nested in a Credential is decoded (it was kept as hex, which showed a
    // network key in it).
    #expect(outer == [NDEFField("credential", .object([.text("ssid", "ABCD")]))])
  }
}
