import Foundation
import NDEF
import Testing

@Suite("NDEF renderers and nfctrace ndef")
struct NDEFRenderTests {
  static let bose =
    "03 43 DA 20 1E 01 61 70 70 6C 69 63 61 74 69 6F 6E 2F 76 6E 64 2E 62 6C 75 65 74 6F 6F 74 68 2E 65 70 2E 6F 6F 62 30 1E 00 8F 08 00 0E 02 00 15 09 42 6F 73 65 20 51 75 69 65 74 43 6F 6D 66 6F 72 74 20 33 35 FE"

  @Test("Text tree of the Bose tag (--tlv)")
  func textTree() {
    let r = NDEFCommand.run(input: Self.bose, options: NDEFCommandOptions(tlv: true, mode: .strict))
    #expect(r.failed == false)
    #expect(
      r.output == """
        Type 2 TLV area (input byte 0 = tag byte 16): 2 TLVs
        ├─ @0 NDEF Message L=67
        └─ @69 Terminator
        NDEF message (strict): 1 record, 67 bytes
        └─ record 0 @2 [MB ME SR IL] TNF 2 Media type "application/vnd.bluetooth.ep.oob" id "0", payload 30 bytes: Bluetooth BR/EDR OOB
           ├─ oob_length: 30
           ├─ address: "00:02:0E:00:08:8F"
           └─ complete_local_name: "Bose QuietComfort 35"
        Findings: none

        """)
  }

  @Test("JSON of a record with findings parses and has the documented keys")
  func json() throws {
    let r = NDEFCommand.run(
      input: "D1 01 17 55 61 68 74 74 70 73 3a 2f 2f 77 77 77 2e 65 78 61 6d 70 6c 65 2e 63 6e",
      options: NDEFCommandOptions(format: .json))
    #expect(r.failed == false)
    let obj = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any]
    let rec = try #require((obj?["records"] as? [[String: Any]])?.first)
    #expect(rec["tnf"] as? Int == 1)
    #expect(rec["tnf_name"] as? String == "Well-known")
    #expect(rec["type"] as? String == "U")
    #expect(rec["id"] as? String == "")
    #expect(rec["payload"] as? String == "61" + hexString(Array("https://www.example.cn".utf8)))
    #expect((rec["decoded"] as? [String: Any])?["uri"] as? String == "https://www.example.cn")
    let f = try #require((obj?["findings"] as? [[String: Any]])?.first)
    #expect(f["code"] as? String == "uri-code-reserved")
    #expect(f["severity"] as? String == "warning")
    #expect(f["offset"] as? Int == 4)
    #expect(
      (f["fix"] as? String)?.hasPrefix("write it with NFCNDEFPayload.wellKnownTypeURIPayload(url:)")
        == true)
    let strict = NDEFCommand.run(
      input: "D1:01:17:55:61:68:74:74:70:73:3a:2f:2f:77:77:77:2e:65:78:61:6d:70:6c:65:2e:63:6e",
      options: NDEFCommandOptions(mode: .strict))
    #expect(strict.failed)
    #expect(
      strict.output.contains("  error uri-code-reserved @4: identifier code 0x61 ('a') is RFU"))
  }

  @Test("Bad input names the character position; @FILE and - are read")
  func inputs() {
    let bad = NDEFCommand.run(input: "D1 0G", options: NDEFCommandOptions())
    #expect(bad.failed)
    #expect(
      bad.output
        == "error: invalid character 'G' at character 4 (expected hex digit 0-9 a-f or a separator)\n"
    )
    let odd = NDEFCommand.run(input: "D1 0", options: NDEFCommandOptions(format: .json))
    #expect(
      odd.output
        == "{\"error\":{\"code\":\"input-hex-odd\",\"offset\":3,\"message\":\"odd number of hex digits: the digit at character 3 has no partner\",\"expected\":\"two hex digits per byte\"}}\n"
    )
    let file = NDEFCommand.run(
      input: "@x.bin", options: NDEFCommandOptions(), readFile: { _ in [0xD0, 0x00, 0x00] },
      readStdin: { [] })
    #expect(file.failed == false)
    #expect(
      file.output.hasPrefix(
        "NDEF message (relax): 1 record, 3 bytes\n└─ record 0 @0 [MB ME SR] TNF 0 Empty, payload 0 bytes: Empty\n"
      ))
    // Framing damage: the count is of the records before it, and the header says where it is.
    let cut = NDEFCommand.run(input: "d1 01 20", options: NDEFCommandOptions(), readStdin: { [] })
    #expect(
      cut.output.hasPrefix(
        "NDEF message (relax): 0 records before the damage at byte 3 (3 bytes given)\n")
    )
    let stdinHex = NDEFCommand.run(
      input: "-", options: NDEFCommandOptions(), readStdin: { Array("d0 00 00\n".utf8) })
    #expect(stdinHex.output == file.output)
    let stdinBin = NDEFCommand.run(
      input: "-", options: NDEFCommandOptions(), readStdin: { [0xD0, 0x00, 0x00] })
    #expect(stdinBin.output == file.output)
    let missing = NDEFCommand.run(input: "@/nonexistent/x", options: NDEFCommandOptions())
    #expect(missing.failed)
    #expect(missing.output.hasPrefix("error: cannot read /nonexistent/x"))
  }

  @Test("Chunked record and findings in the text renderer")
  func chunkedText() {
    let r = NDEFCommand.run(
      input: "B2 03 02 74 2F 78 61 62 36 00 02 63 64 56 00 01 65 00", options: NDEFCommandOptions())
    #expect(
      r.output.contains(
        "└─ record 0 @0 [MB ME CF SR] TNF 2 Media type \"t/x\", payload 5 bytes in 3 chunks (2+2+1): MIME\n"
      ))
    #expect(
      r.output.hasSuffix(
        """
        Findings (1):
          warning trailing-bytes @17: 1 byte(s) after the record with ME are not part of the message (NDEF 1.0 §3.2.2)
            readers show: ndeflib stops at ME and ignores them; Android NdefMessage(byte[]) rejects the message ('trailing data')
            fix: write exactly the message bytes (NFCNDEFTag.writeNDEF(_:completionHandler:) does)

        """))
  }
}

/// NDEF auditor pass: secrets in the JSON payload, repeated keys, whole dumps with `--tlv`.
@Suite("nfctrace ndef: secrets, repeated keys, memory dumps")
struct NDEFAuditRegressionTests {
  /// A WSC record: two credentials (SSID "Net", key "secretpass"; SSID "Two").
  static let twoCredentials =
    "d217336170706c69636174696f6e2f766e642e7766612e777363104a000110100e001a1026000101"
    + "104500034e65741027000a73656372657470617373100e000c10260001021045000354776f"

  private func json(_ input: String, tlv: Bool = false, secrets: Bool = false) throws
    -> [String: Any]
  {
    let r = NDEFCommand.run(
      input: input, options: NDEFCommandOptions(tlv: tlv, format: .json, showSecrets: secrets))
    return try #require(
      try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
  }

  @Test func networkKeyIsNotInThePayloadHex() throws {
    let rec = try #require((try json(Self.twoCredentials)["records"] as? [[String: Any]])?.first)
    #expect(rec["payload"] is NSNull)
    let decoded = try #require(rec["decoded"] as? [String: Any])
    let first = try #require(decoded["credential"] as? [String: Any])
    #expect(first["network_key"] as? String == "present, 10 bytes")
    // The second credential is kept under its own key, not lost to a repeated name.
    let second = try #require(decoded["credential_2"] as? [String: Any])
    #expect(second["ssid"] as? String == "Two")
    let shown = try #require(
      (try json(Self.twoCredentials, secrets: true)["records"] as? [[String: Any]])?.first)
    #expect((shown["payload"] as? String)?.contains("73656372657470617373") == true)
    // The NDEF TLV's value is the message itself: masked the same way.
    let length = String(format: "%02x", Self.twoCredentials.count / 2)
    let tlvs = try #require(
      try json("03" + length + Self.twoCredentials + "fe", tlv: true)["tlvs"] as? [[String: Any]])
    #expect(tlvs.first?["value"] is NSNull)
  }

  /// `--tlv` on a whole NTAG dump (UID, BCC0 at byte 3, BCC1 at byte 8, CC E1 at byte 12):
  /// TLVs from byte 16.
  @Test func tlvReadsAWholeMemoryDump() {
    let dump =
      "04 a1 b2 9f c3 d4 e5 f6 04 48 00 00 e1 10 3e 00"
      + " 03 0c d1 01 08 54 02 65 6e 48 65 6c 6c 6f fe 00"
    let r = NDEFCommand.run(input: dump, options: NDEFCommandOptions(tlv: true))
    #expect(r.failed == false)
    #expect(r.output.hasPrefix("Type 2 TLV area (input byte 0 = tag byte 0): 2 TLVs\n├─ @16 NDEF"))
    #expect(r.output.contains("text: \"Hello\""))
  }

  /// A WSC record whose Credential length runs past the payload: undecodable, but its bytes
  /// still hold the key, so the payload stays out of JSON (attacker pass).
  @Test func malformedWiFiRecordIsMaskedToo() throws {
    let hex =
      "d217416170706c69636174696f6e2f766e642e7766612e777363104a000110100e003910260001011045"
      + "0007486f6d654e6574100300020020100f000200081027000e53757065725365637265743132331020"
      + "0006ffffffffffff"
    let rec = try #require((try json(hex)["records"] as? [[String: Any]])?.first)
    #expect(rec["payload"] is NSNull)
  }

  /// A title language `en_2` beside two `en` titles: the repeat gets `en_3`, no name twice.
  @Test func repeatedNameSuffixSkipsRealNames() throws {
    let hex =
      "d10232537091010c55046578616d706c652e636f6d1101065402656e6f6e651101065402656e74776f5101"
      + "0a5404656e5f327468726565"
    let rec = try #require((try json(hex)["records"] as? [[String: Any]])?.first)
    let titles = try #require((rec["decoded"] as? [String: Any])?["titles"] as? [String: String])
    #expect(titles == ["en": "one", "en_3": "two", "en_2": "three"])
  }

  /// Spec checks the auditor found missing: a reserved Smart Poster action, Wi-Fi attribute
  /// sizes, an LE OOB record without LE Role, a Lock Control TLV after the NDEF TLV.
  @Test func missingValidationsNowWarn() {
    func output(_ hex: String, tlv: Bool = false) -> String {
      NDEFCommand.run(input: hex, options: NDEFCommandOptions(tlv: tlv)).output
    }
    #expect(
      output("d1021153709101065504612e636f6d51030161637403")
        .contains("warning sp-action-rfu @21"))
    // SSID of 40 bytes.
    let ssid = String(repeating: "4e", count: 40)
    let credential = "10260001011045" + "0028" + ssid
    let wsc =
      "d217" + String(format: "%02x", 5 + 4 + credential.count / 2)
      + "6170706c69636174696f6e2f766e642e7766612e777363" + "104a000110" + "100e"
      + String(format: "%04x", credential.count / 2) + credential
    #expect(output(wsc).contains("warning wsc-attribute-size"))
    // LE OOB with an address and no role.
    #expect(
      output(
        "d220096170706c69636174696f6e2f766e642e626c7565746f6f74682e6c652e6f6f62081b00000000000000"
      )
      .contains("warning bt-le-role-missing"))
    #expect(
      output("03 0c d101085402656e48656c6c6f 01 03 a0 10 44 fe", tlv: true)
        .contains("warning control-tlv-after-ndef @14"))
  }

  /// A text/* record's `charset` parameter is honoured (RFC 2046 §4.1.2): UTF-16 with a BOM
  /// reads as "hi", not as UTF-8 with replacement characters (NDEF auditor pass).
  @Test func mimeTextCharsetIsHonoured() {
    let r = NDEFCommand.run(
      input: "d21a06746578742f706c61696e3b20636861727365743d7574662d3136fffe68006900",
      options: NDEFCommandOptions())
    #expect(r.output.contains("└─ text: \"hi\""))
    #expect(!r.output.contains("mime-text-not-utf8"))
    let latin1 = NDEFCommand.run(
      input: "d21e01746578742f706c61696e3b20636861727365743d49534f2d383835392d31e9",
      options: NDEFCommandOptions())
    #expect(latin1.output.contains("└─ text: \"é\""))
  }
}
