import NDEF
import Testing

private func decoded(_ r: NDEFRecord, _ mode: NDEFValidationMode = .relax) -> (
  NDEFPayload, [NDEFFinding]
) {
  let report = NDEFValidator.validate(NDEFMessage(records: [r]).bytes, mode: mode)
  return (report.records.first?.payload ?? .empty, report.findings)
}

@Suite("NDEF typed payloads")
struct NDEFPayloadTests {
  @Test("Text: UTF-16 BE with BOM, LE with BOM, BE without BOM")
  func utf16Variants() {
    let be = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: hx("82 65 6E FE FF 00 48 00 E9"))
    guard case .text(let t1) = decoded(be).0 else {
      Issue.record("no text")
      return
    }
    #expect(t1.encoding == .utf16BE)
    #expect(t1.byteOrderMark)
    #expect(t1.text == "Hé")
    let le = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: hx("82 65 6E FF FE 48 00 E9 00"))
    guard case .text(let t2) = decoded(le).0 else {
      Issue.record("no text")
      return
    }
    #expect(t2.encoding == .utf16LE)
    #expect(t2.text == "Hé")
    let none = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: hx("82 65 6E 00 48 00 E9"))
    let (p3, f3) = decoded(none)
    guard case .text(let t3) = p3 else {
      Issue.record("no text")
      return
    }
    #expect(t3.encoding == .utf16BE)
    #expect(t3.byteOrderMark == false)
    #expect(t3.text == "Hé")
    #expect(f3.map(\.code) == ["text-utf16-no-bom"])
    #expect(f3.first?.severity == .info)
  }

  @Test("Text encoder writes status 0x02 'en' and UTF-16 big-endian with BOM")
  func textEncoder() {
    #expect(NDEFRecord.text("A", language: "en").payload == [0x02, 0x65, 0x6E, 0x41])
    #expect(
      NDEFRecord.text("A", language: "de", utf16: true).payload == [
        0x82, 0x64, 0x65, 0xFE, 0xFF, 0x00, 0x41,
      ])
  }

  @Test("URI identifier table: all 36 codes, first and last entries, abbreviation")
  func uriTable() {
    #expect(NDEFURI.prefixes.count == 0x24)
    #expect(NDEFURI.prefixes[0x01] == "http://www.")
    #expect(NDEFURI.prefixes[0x07] == "ftp://anonymous:anonymous@")
    #expect(NDEFURI.prefixes[0x1D] == "file://")
    #expect(NDEFURI.prefixes[0x23] == "urn:nfc:")
    #expect(NDEFURI.abbreviate("https://www.apple.com").0 == 0x02)
    #expect(NDEFURI.abbreviate("urn:epc:id:sgtin").0 == 0x1E)
    #expect(NDEFURI.abbreviate("geo:1,2") == (0, "geo:1,2"))
    for code in 0..<0x24 {
      let r = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [UInt8(code), 0x78])
      guard case .uri(let u) = decoded(r).0 else {
        Issue.record("code \(code)")
        continue
      }
      #expect(u.uri == NDEFURI.prefixes[code] + "x")
    }
  }

  @Test("Smart Poster: URI, two titles, action, size, type, icon")
  func smartPoster() {
    let inner = NDEFMessage(records: [
      .uri("https://www.nfc.example/p"), .text("Poster", language: "en"),
      .text("Affiche", language: "fr"),
      NDEFRecord(tnf: .wellKnown, type: Array("act".utf8), payload: [0x01]),
      NDEFRecord(tnf: .wellKnown, type: [0x73], payload: [0, 0, 0x10, 0]),
      NDEFRecord(tnf: .wellKnown, type: [0x74], payload: Array("text/html".utf8)),
      .mime("image/png", payload: [0x89, 0x50, 0x4E, 0x47]),
    ])
    let (p, findings) = decoded(.smartPoster(inner), .strict)
    #expect(findings == [])
    guard case .smartPoster(let sp) = p else {
      Issue.record("no poster")
      return
    }
    #expect(sp.uri == "https://www.nfc.example/p")
    #expect(sp.titles.map(\.language) == ["en", "fr"])
    #expect(sp.titles.map(\.text) == ["Poster", "Affiche"])
    #expect(sp.action == 1)
    #expect(sp.size == 4096)
    #expect(sp.type == "text/html")
    #expect(sp.icons.map(\.type) == ["image/png"])
    #expect(sp.icons.map(\.bytes) == [4])
  }

  @Test("Handover Select 1.2 with an alternative carrier and a Bluetooth LE carrier record")
  func handoverSelect() {
    let ac = NDEFRecord(tnf: .wellKnown, type: Array("ac".utf8), payload: [0x01, 0x01, 0x30, 0x00])
    let hs = NDEFRecord(
      tnf: .wellKnown, type: Array("Hs".utf8), payload: [0x12] + NDEFMessage(records: [ac]).bytes)
    let le = NDEFRecord.mime(
      "application/vnd.bluetooth.le.oob", payload: hx("08 1B 11 22 33 44 55 66 00 02 1C 00"),
      id: [0x30])
    let report = NDEFValidator.validate(NDEFMessage(records: [hs, le]).bytes, mode: .strict)
    #expect(report.findings == [])
    guard case .handover(let h) = report.records[0].payload,
      case .alternativeCarrier(let a) = h.records.first?.payload
    else {
      Issue.record("no handover")
      return
    }
    #expect(h.kind == .select)
    #expect(h.versionString == "1.2")
    #expect(a.cps == 1)
    #expect(a.cpsName == "active")
    #expect(a.dataReference == [0x30])
    guard case .bluetoothOOB(let bt) = report.records[1].payload else {
      Issue.record("no LE")
      return
    }
    #expect(bt.kind == .le)
    #expect(bt.addressString == "66:55:44:33:22:11")
    let fields = report.records[1].payload.fields()
    #expect(fields.contains(NDEFField.text("le_role", "peripheral only")))
    #expect(
      fields.contains(NDEFField.text("le_bluetooth_device_address", "66:55:44:33:22:11 (public)")))
  }

  /// The usual static-handover mistake: the carrier record has no ID (or another one), so the
  /// Alternative Carrier's reference leads nowhere; auxiliary references are checked too.
  @Test("Handover references that name no record of the message")
  func handoverDanglingReferences() {
    let ac = NDEFRecord(
      tnf: .wellKnown, type: Array("ac".utf8), payload: [0x01, 0x01, 0x30, 0x01, 0x02, 0x61, 0x31])
    let hs = NDEFRecord(
      tnf: .wellKnown, type: Array("Hs".utf8), payload: [0x13] + NDEFMessage(records: [ac]).bytes)
    let oob = hx("08 00 01 02 03 04 05 06")
    for (id, dangling) in [([UInt8]([0x30]), ["\"a1\""]), ([], ["\"0\"", "\"a1\""])] {
      let bt = NDEFRecord.mime("application/vnd.bluetooth.ep.oob", payload: oob, id: id)
      let report = NDEFValidator.validate(NDEFMessage(records: [hs, bt]).bytes)
      let found = report.findings.filter { $0.code == "handover-reference-dangling" }
      #expect(found.map(\.offset) == Array(repeating: 6, count: dangling.count))
      #expect(zip(found, dangling).allSatisfy { $0.message.contains("ID \($1),") })
    }
    let aux = NDEFRecord(tnf: .unknown, type: [], id: Array("a1".utf8), payload: [0xAA])
    let bt = NDEFRecord.mime("application/vnd.bluetooth.ep.oob", payload: oob, id: [0x30])
    #expect(NDEFValidator.validate(NDEFMessage(records: [hs, bt, aux]).bytes).findings == [])
  }

  @Test("Handover Carrier, collision resolution and error records")
  func handoverParts() {
    let hc = NDEFRecord(
      tnf: .wellKnown, type: Array("Hc".utf8), payload: [0x02, 0x03] + Array("a/b".utf8) + [0x09])
    guard case .handoverCarrier(let c) = decoded(hc).0 else {
      Issue.record("no Hc")
      return
    }
    #expect(c.ctf == 2)
    #expect(c.carrierType == Array("a/b".utf8))
    #expect(c.carrierData == [0x09])
    guard
      case .collisionResolution(let n) = decoded(
        NDEFRecord(tnf: .wellKnown, type: Array("cr".utf8), payload: [0x12, 0x34])
      ).0
    else {
      Issue.record("no cr")
      return
    }
    #expect(n == 0x1234)
    guard
      case .handoverError(let reason, let data) = decoded(
        NDEFRecord(tnf: .wellKnown, type: Array("err".utf8), payload: [0x01, 0x05])
      ).0
    else {
      Issue.record("no err")
      return
    }
    #expect(reason == 1)
    #expect(data == [5])
  }

  /// A carrier type format that is not a type (Empty, Unknown, Unchanged, Reserved), a reserved
  /// error reason and error data of the wrong length are warned; the defined ones are not.
  @Test("Handover Carrier CTF and Handover Error reasons checked")
  func handoverCarrierAndErrorChecks() {
    // `err` alone at the top level is also `local-type-at-top-level` (NDEFPass14Tests).
    func codes(_ type: String, _ payload: [UInt8]) -> [String] {
      decoded(NDEFRecord(tnf: .wellKnown, type: Array(type.utf8), payload: payload)).1.map(\.code)
        .filter { $0 != "local-type-at-top-level" }
    }
    let carrier = [UInt8(0x03)] + Array("a/b".utf8)
    #expect(codes("Hc", [0x02] + carrier) == [])
    #expect(codes("Hc", [0x06] + carrier) == ["handover-carrier-ctf"])
    #expect(codes("Hc", [0x00] + carrier) == ["handover-carrier-ctf"])
    #expect(codes("err", [0x01, 0x05]) == [])
    #expect(codes("err", [0x02, 0x00, 0x00, 0x01, 0x00]) == [])
    #expect(codes("err", [0x02, 0x05]) == ["handover-error-reason"])
    #expect(codes("err", [0x00]) == ["handover-error-reason"])
    #expect(codes("err", [0x04, 0x01]) == ["handover-error-reason"])
    let fields = decoded(NDEFRecord(tnf: .wellKnown, type: Array("err".utf8), payload: [3, 9])).0
      .fields()
    #expect(fields.contains(NDEFField.text("reason_name", "carrier specific constraints")))
  }

  @Test("Wi-Fi Simple Config: SSID, WPA2-Personal/AES, key hidden unless secrets are shown")
  func wifi() {
    let cred: [UInt8] =
      hx("10 26 00 01 01") + hx("10 45 00 04") + Array("Home".utf8) + hx("10 03 00 02 00 20")
      + hx("10 0F 00 02 00 08") + hx("10 27 00 08") + Array("secret12".utf8)
      + hx("10 20 00 06 FF FF FF FF FF FF")
    let payload = hx("10 4A 00 01 10 10 0E") + [0x00, UInt8(cred.count)] + cred
    let (p, findings) = decoded(.mime("application/vnd.wfa.wsc", payload: payload), .strict)
    #expect(findings == [])
    guard case .wifiSimpleConfig(let w) = p else {
      Issue.record("no wsc")
      return
    }
    #expect(w.credentials.count == 1)
    let hidden = p.fields()
    guard case .object(let c)? = hidden.first(where: { $0.name == "credential" })?.value else {
      Issue.record("no cred")
      return
    }
    #expect(c.contains(.text("ssid", "Home")))
    #expect(c.contains(.text("authentication_type", "WPA2-Personal")))
    #expect(c.contains(.text("encryption_type", "AES")))
    #expect(c.contains(.text("network_key", "present, 8 bytes")))
    #expect(c.contains(.text("mac_address", "FF:FF:FF:FF:FF:FF")))
    guard
      case .object(let shown)? = p.fields(showSecrets: true).first(where: {
        $0.name == "credential"
      })?.value
    else {
      Issue.record("no cred")
      return
    }
    #expect(shown.contains(.text("network_key", "secret12")))
  }

  @Test("vCard and text/* as text; other MIME as bytes; AAR; external; absolute URI; Signature")
  func otherTypes() {
    guard
      case .vcard(let v) = decoded(
        .mime("text/x-vcard", payload: Array("BEGIN:VCARD\nEND:VCARD".utf8))
      ).0
    else {
      Issue.record("vcard")
      return
    }
    #expect(v == "BEGIN:VCARD\nEND:VCARD")
    guard case .mimeText(_, let t) = decoded(.mime("text/plain", payload: Array("hi".utf8))).0
    else {
      Issue.record("text")
      return
    }
    #expect(t == "hi")
    let png = decoded(.mime("image/png", payload: [1, 2])).0
    #expect(
      png.fields() == [
        .text("media_type", "image/png"), .int("length", 2), .bytes("data", [1, 2]),
      ])
    guard
      case .androidApplication(let pkg) = decoded(
        .external("android.com:pkg", payload: Array("com.example.app".utf8))
      ).0
    else {
      Issue.record("aar")
      return
    }
    #expect(pkg == "com.example.app")
    guard case .external(let type, _) = decoded(.external("example.com:thing", payload: [1])).0
    else {
      Issue.record("ext")
      return
    }
    #expect(type == "example.com:thing")
    guard
      case .absoluteURI(let uri, _) = decoded(
        NDEFRecord(tnf: .absoluteURI, type: Array("urn:x:y".utf8), payload: [])
      ).0
    else {
      Issue.record("abs")
      return
    }
    #expect(uri == "urn:x:y")
    let sig = NDEFRecord(
      tnf: .wellKnown, type: Array("Sig".utf8), payload: hx("20 0B 02 00 02 AA BB 01 00 01 CC"))
    guard case .signature(let s) = decoded(sig).0 else {
      Issue.record("sig")
      return
    }
    #expect(s.version == 0x20)
    #expect(s.signatureTypeName == "ECDSA-P256")
    #expect(s.hashType == 2)
    #expect(s.signature == [0xAA, 0xBB])
    #expect(s.certificateFormat == 0)
    #expect(s.certificates == [[0xCC]])
  }
}
