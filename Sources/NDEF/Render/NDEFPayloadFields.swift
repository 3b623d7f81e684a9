extension NDEFPayload {
  /// Whether the payload, or a record nested in it (Smart Poster, Handover), holds a secret:
  /// a Wi-Fi network key (WSC attribute 1027h; facts §7.7). Renderers then show the payload
  /// bytes only with `showSecrets`.
  public var holdsSecret: Bool {
    switch self {
    case .wifiSimpleConfig(let w):
      func key(_ a: NDEFWiFiSimpleConfig.Attribute) -> Bool {
        a.type == 0x1027 || !a.undecoded.isEmpty || a.children.contains(where: key)
      }
      return w.attributes.contains(where: key)
    case .smartPoster(let sp): return sp.records.contains(where: \.holdsSecret)
    case .handover(let h): return h.records.contains(where: \.holdsSecret)
    case .handoverCarrier(let c):
      return NDEFDecodedRecord.carriesWiFiSecret(c.carrierType)
    default: return false
    }
  }

  /// Decoded fields for the renderers. Wi-Fi network keys are shown as "present, N bytes"
  /// unless `showSecrets` is true.
  public func fields(showSecrets: Bool = false) -> [NDEFField] {
    switch self {
    case .text(let t): return textFields(t)
    case .uri(let u): return uriFields(u)
    case .smartPoster(let sp): return posterFields(sp, showSecrets)
    case .action(let a):
      return [.int("action", Int(a)), .text("meaning", NDEFSmartPoster.actionName(a))]
    case .size(let s): return [.int("size", Int(s))]
    case .posterType(let t): return [.text("type", t)]
    case .handover(let h):
      return [
        .text("version", h.versionString),
        NDEFField("records", .list(h.records.map { $0.value(showSecrets) })),
      ]
    case .handoverCarrier(let c):
      // Wi-Fi carrier data is a WSC credential: the network key is in it.
      let masked = !showSecrets && NDEFDecodedRecord.carriesWiFiSecret(c.carrierType)
      return [
        .int("ctf", Int(c.ctf)), .text("ctf_name", c.ctfName),
        textOrHex("carrier_type", c.carrierType),
        masked
          ? .text("carrier_data", "present, \(c.carrierData.count) bytes (Wi-Fi credential)")
          : .bytes("carrier_data", c.carrierData),
      ]
    case .alternativeCarrier(let a):
      return [
        .int("cps", Int(a.cps)), .text("cps_name", a.cpsName),
        textOrHex("data_reference", a.dataReference),
        NDEFField("auxiliary_references", .list(a.auxiliaryReferences.map { textOrHexValue($0) })),
      ]
    case .collisionResolution(let n): return [.int("random_number", Int(n))]
    case .handoverError(let reason, let data):
      return [
        .int("reason", Int(reason)),
        .text("reason_name", NDEFHandover.errorReasons[reason]?.name ?? "reserved"),
        .bytes("data", data),
      ]
    case .signature(let s): return signatureFields(s)
    case .bluetoothOOB(let b): return bluetoothFields(b)
    case .wifiSimpleConfig(let w): return wifiFields(w, showSecrets)
    case .vcard(let s): return [.text("vcard", s)]
    case .mimeText(let type, let text): return [.text("media_type", type), .text("text", text)]
    case .mime(let type, let data):
      // Wi-Fi P2P carrier data holds WSC attributes, an OOB device password among them.
      let masked = !showSecrets && NDEFDecodedRecord.isWFAP2P(Array(type.utf8))
      return [
        .text("media_type", type), .int("length", data.count),
        masked
          ? .text("data", "present, \(data.count) bytes (Wi-Fi P2P: may hold a device password)")
          : .bytes("data", data),
      ]
    case .androidApplication(let pkg): return [.text("package", pkg)]
    case .external(let type, let data):
      return [.text("external_type", type), .int("length", data.count), .bytes("data", data)]
    case .absoluteURI(let uri, let data):
      return [.text("uri", uri), .int("length", data.count), .bytes("data", data)]
    case .wellKnown(let type, let data):
      return [.text("well_known_type", type), .int("length", data.count), .bytes("data", data)]
    case .empty: return []
    case .unknown(let d), .unchanged(let d), .reserved(let d):
      return [.int("length", d.count), .bytes("data", d)]
    case .undecodable(_, let d): return [.int("length", d.count), .bytes("data", d)]
    }
  }

  private func textFields(_ t: NDEFText) -> [NDEFField] {
    var f: [NDEFField] = [.text("encoding", t.encoding.rawValue)]
    if t.encoding != .utf8 { f.append(NDEFField("bom", .bool(t.byteOrderMark))) }
    f += [.text("language", t.language), .text("text", t.text)]
    return f
  }

  private func uriFields(_ u: NDEFURI) -> [NDEFField] {
    [
      .int("identifier_code", Int(u.code)),
      .text("prefix", u.prefix ?? "(RFU code, no prefix)"), .text("uri", u.uri),
    ]
  }

  private func posterFields(_ sp: NDEFSmartPoster, _ secrets: Bool) -> [NDEFField] {
    var f: [NDEFField] = []
    if let uri = sp.uri { f.append(.text("uri", uri)) }
    if !sp.titles.isEmpty {
      f.append(NDEFField("titles", .object(sp.titles.map { .text($0.language, $0.text) })))
    }
    if let a = sp.action { f.append(.text("action", "\(a) (\(NDEFSmartPoster.actionName(a)))")) }
    if let s = sp.size { f.append(.int("size", Int(s))) }
    if let t = sp.type { f.append(.text("type", t)) }
    for icon in sp.icons { f.append(.text("icon", "\(icon.type), \(icon.bytes) bytes")) }
    f.append(NDEFField("records", .list(sp.records.map { $0.value(secrets) })))
    return f
  }

  private func signatureFields(_ s: NDEFSignature) -> [NDEFField] {
    var f: [NDEFField] = [
      .text("version", "\(s.version >> 4).\(s.version & 0x0F)"),
      .int("signature_type", Int(s.signatureType)),
      .text("signature_type_name", s.signatureTypeName ?? "RFU"),
      .int("hash_type", Int(s.hashType)),
      // Signature RTD 2.0 defines hash type 02h, SHA-256, only; the rest is RFU.
      .text("hash_type_name", s.hashType == 0x02 ? "SHA-256" : "RFU"),
      NDEFField("signature_uri_present", .bool(s.signatureURIPresent)),
      s.signatureURIPresent
        ? textOrNamedHex("signature_uri", s.signature)
        : .int("signature_length", s.signature.count),
    ]
    if let fmt = s.certificateFormat {
      f.append(.text("certificate_format", fmt == 0 ? "X.509" : fmt == 1 ? "M2M" : "RFU \(fmt)"))
      f.append(.int("certificates", s.certificates.count))
    }
    if let uri = s.certificateURI {
      f.append(textOrNamedHex("certificate_uri", uri))
    }
    return f
  }

  private func bluetoothFields(_ b: NDEFBluetoothOOB) -> [NDEFField] {
    var f: [NDEFField] = []
    if let l = b.oobLength { f.append(.int("oob_length", Int(l))) }
    if let a = b.addressString { f.append(.text("address", a)) }
    for e in b.fields { f.append(eirField(e)) }
    return f
  }

  private func eirField(_ e: NDEFBluetoothOOB.Field) -> NDEFField {
    let key = e.name.lowercased().replacingSpaces()
    // A field of the wrong size (`bt-eir-size`) is shown whole, as hex: decoding it would drop
    // or misplace bytes.
    guard NDEFBluetoothOOB.hasValidSize(e) else { return .bytes(key, e.data) }
    switch e.type {
    case 0x08, 0x09: return .text(key, String(decoding: e.data, as: UTF8.self))
    case 0x0D:
      let v = e.data.reversed().map(hex2).joined()
      return .text(key, "0x" + v)
    case 0x1C:
      let roles = [
        "peripheral only", "central only", "peripheral and central, peripheral preferred",
        "peripheral and central, central preferred",
      ]
      let r = e.data.first.map { Int($0) < roles.count ? roles[Int($0)] : "RFU \($0)" } ?? "missing"
      return .text(key, r)
    case 0x1B where e.data.count == 7:
      let addr = e.data.prefix(6).reversed().map { hex2($0).uppercased() }.joined(separator: ":")
      return .text(key, addr + (e.data[6] & 1 == 0 ? " (public)" : " (random)"))
    case 0x19 where e.data.count == 2:
      return .int(key, Int(e.data[0]) | Int(e.data[1]) << 8)
    case 0x02...0x07:
      // Service UUID lists: 16-, 32- or 128-bit UUIDs, each little-endian (Bluetooth Core
      // Specification Supplement Part A §1.1); a 128-bit one is written 8-4-4-4-12.
      let size = [2, 4, 16][Int(e.type - 0x02) / 2]
      let uuids = stride(from: 0, to: e.data.count - size + 1, by: size).map { i -> String in
        let hex = e.data[i..<(i + size)].reversed().map(hex2).joined()
        guard size == 16 else { return "0x" + hex }
        let h = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(h[$0]) }.joined(
          separator: "-")
      }
      return .text(key, uuids.joined(separator: ", "))
    default:
      return .bytes(key, e.data)
    }
  }

  private func wifiFields(_ w: NDEFWiFiSimpleConfig, _ secrets: Bool) -> [NDEFField] {
    func attrs(_ list: [NDEFWiFiSimpleConfig.Attribute]) -> [NDEFField] {
      list.map { a in
        let key = a.name.lowercased().replacingSpaces()
        let v16 = a.value.count == 2 ? UInt16(a.value[0]) << 8 | UInt16(a.value[1]) : nil
        switch a.type {
        // What a Credential holds past the attributes read may be the network key: masked.
        case 0x100E:
          let rest = a.undecoded
          let undecoded: [NDEFField] =
            rest.isEmpty
            ? []
            : secrets
              ? [.bytes("undecoded", Array(rest))]
              : [.text("undecoded", "\(rest.count) bytes (masked: may hold the network key)")]
          return NDEFField(key, .object(attrs(a.children) + undecoded))
        // An SSID or key that is not text (any bytes are allowed) is named `…_hex`, so that
        // a binary SSID cannot read as the text SSID spelled like its hex.
        case 0x1045: return textOrNamedHex(key, a.value)
        case 0x1027:
          return secrets
            ? textOrNamedHex(key, a.value) : .text(key, "present, \(a.value.count) bytes")
        case 0x1003 where v16 != nil:
          return .text(key, NDEFWiFiSimpleConfig.authenticationNames(v16 ?? 0))
        case 0x100F where v16 != nil:
          return .text(key, NDEFWiFiSimpleConfig.encryptionNames(v16 ?? 0))
        case 0x1020 where a.value.count == 6:
          return .text(key, a.value.map { hex2($0).uppercased() }.joined(separator: ":"))
        case 0x104A where a.value.count == 1:
          return .text(key, "\(a.value[0] >> 4).\(a.value[0] & 0x0F)")
        case 0x1026 where a.value.count == 1: return .int(key, Int(a.value[0]))
        case 0x103C where a.value.count == 1:
          return .text(key, NDEFWiFiSimpleConfig.rfBandNames(a.value[0]))
        case 0x1061 where a.value.count == 1: return NDEFField(key, .bool(a.value[0] != 0))
        case 0x1001 where v16 != nil: return .int(key, Int(v16 ?? 0))
        case 0x1011, 0x1021, 0x1023, 0x1024, 0x1042: return textOrNamedHex(key, a.value)
        case 0x1047 where a.value.count == 16, 0x1048 where a.value.count == 16:
          return .text(key, Self.uuid(a.value))
        case 0x102C where a.value.count >= 22:
          return NDEFField(key, .object(oobDevicePassword(a.value, secrets)))
        case 0x1049 where a.value.starts(with: NDEFWiFiSimpleConfig.wfaVendorID):
          return NDEFField(key, .object(wfaVendorExtension(a.value, secrets)))
        // Attributes known to hold no secret are shown as hex.
        case 0x1008, 0x1012, 0x1054, 0x1055: return .bytes(key, a.value)
        // Any other attribute not decoded (another vendor's extension, Encrypted Settings, an
        // unknown type) may wrap a Credential or a key: masked.
        default: return Self.undecodedAttribute(key, a.value, secrets)
        }
      }
    }
    return (w.lengthPrefix.map { [.int("length_prefix", $0)] } ?? []) + attrs(w.attributes)
  }

  /// A 16-byte UUID in its usual form, lowercase (`8-4-4-4-12` hex digits).
  private static func uuid(_ v: [UInt8]) -> String {
    [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { v[$0].map(hex2).joined() }.joined(
      separator: "-")
  }

  /// OOB Device Password (0x102C): public key hash (20 bytes), password ID (2), password
  /// (Wi-Fi Simple Configuration 2.0 §12; ID 7 = NFC-Connection-Handover, no password).
  private func oobDevicePassword(_ v: [UInt8], _ secrets: Bool) -> [NDEFField] {
    let id = Int(v[20]) << 8 | Int(v[21])
    let password = Array(v[22...])
    var out: [NDEFField] = [
      .bytes("public_key_hash", Array(v[0..<20])), .int("password_id", id),
    ]
    if id == 7 { out.append(.text("password_id_name", "NFC-Connection-Handover")) }
    out.append(
      secrets || password.isEmpty
        ? .bytes("device_password", password)
        : .text("device_password", "present, \(password.count) bytes"))
    return out
  }

  /// The Wi-Fi Alliance vendor extension (vendor ID 00:37:2A, then subelements of 1-byte ID
  /// and length): Version2 (0x00; WSC 2.x keeps the Version attribute at 1.0), AuthorizedMACs
  /// (0x01), Network Key Shareable (0x02) (Wi-Fi Simple Configuration 2.0 §12).
  /// An undecoded WSC attribute or subelement: hex with `showSecrets`, else its size only.
  private static func undecodedAttribute(_ key: String, _ v: [UInt8], _ secrets: Bool)
    -> NDEFField
  {
    secrets
      ? .bytes(key, v)
      : .text(key, "present, \(v.count) bytes (masked: not decoded, may hold a key)")
  }

  private func wfaVendorExtension(_ v: [UInt8], _ secrets: Bool) -> [NDEFField] {
    var out: [NDEFField] = [.text("vendor", "Wi-Fi Alliance (00:37:2A)")]
    var i = 3
    while i + 2 <= v.count {
      let id = v[i]
      let n = Int(v[i + 1])
      guard i + 2 + n <= v.count else {
        out.append(Self.undecodedAttribute("truncated", Array(v[i...]), secrets))
        break
      }
      let value = Array(v[(i + 2)..<(i + 2 + n)])
      switch (id, n) {
      case (0x00, 1): out.append(.text("version2", "\(value[0] >> 4).\(value[0] & 0x0F)"))
      case (0x02, 1): out.append(NDEFField("network_key_shareable", .bool(value[0] != 0)))
      case (0x01, _) where n % 6 == 0:
        out.append(
          .text(
            "authorized_macs",
            stride(from: 0, to: n, by: 6).map { k in
              value[k..<(k + 6)].map { hex2($0).uppercased() }.joined(separator: ":")
            }.joined(separator: ", ")))
      default: out.append(Self.undecodedAttribute("subelement_0x" + hex2(id), value, secrets))
      }
      i += 2 + n
    }
    return out
  }
}

extension NDEFDecodedRecord {
  /// Whether a media type names Wi-Fi Simple Config, `application/vnd.wfa.wsc`: compared
  /// without case and parameters (RFC 6838 §4.2, RFC 2045 §5.1), as Android does.
  static func isWSC(_ type: [UInt8]) -> Bool {
    NDEFPayloadDecoder.mediaTypeEssence(String(decoding: type, as: UTF8.self))
      == "application/vnd.wfa.wsc"
  }

  /// Whether a media type names Wi-Fi P2P carrier data, `application/vnd.wfa.p2p`, whose WSC
  /// attributes may hold an OOB Device Password (Wi-Fi Peer-to-Peer Technical Specification,
  /// NFC connection handover).
  static func isWFAP2P(_ type: [UInt8]) -> Bool {
    NDEFPayloadDecoder.mediaTypeEssence(String(decoding: type, as: UTF8.self))
      == "application/vnd.wfa.p2p"
  }

  /// Whether a media type names Wi-Fi Simple Config or Wi-Fi P2P data: the WSC attributes of
  /// either may hold a network key or a device password.
  static func carriesWiFiSecret(_ type: [UInt8]) -> Bool {
    let essence = NDEFPayloadDecoder.mediaTypeEssence(String(decoding: type, as: UTF8.self))
    return essence == "application/vnd.wfa.wsc" || essence == "application/vnd.wfa.p2p"
  }

  /// Whether the record holds a secret: its payload does, or it is a Wi-Fi Simple Config or
  /// Wi-Fi P2P record at all (one whose attributes could not be decoded may still carry the
  /// key or device password).
  public var holdsSecret: Bool {
    payload.holdsSecret
      || (record.tnf == .media && Self.carriesWiFiSecret(record.type))
  }

  /// The record as a field object: tnf, type, id, kind and decoded fields (nested records).
  func value(_ showSecrets: Bool) -> NDEFValue {
    var f: [NDEFField] = [
      .int("tnf", Int(record.tnf.rawValue)), .text("tnf_name", record.tnf.name),
      textOrHex("type", record.type), textOrHex("id", record.id), .text("kind", payload.kindName),
    ]
    f.append(NDEFField("decoded", .object(payload.fields(showSecrets: showSecrets))))
    return .object(f)
  }
}

/// Text when printable ASCII/UTF-8 without controls, else hex bytes.
func textOrHex(_ name: String, _ bytes: [UInt8]) -> NDEFField {
  NDEFField(name, textOrHexValue(bytes))
}

/// Text under `name` when printable, else hex bytes under `name_hex`.
func textOrNamedHex(_ name: String, _ bytes: [UInt8]) -> NDEFField {
  let value = textOrHexValue(bytes)
  if case .bytes = value { return NDEFField(name + "_hex", value) }
  return NDEFField(name, value)
}

func textOrHexValue(_ bytes: [UInt8]) -> NDEFValue {
  if let s = NDEFText.utf8(bytes[...]),
    !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
  {
    return .text(s)
  }
  return .bytes(bytes)
}

extension String {
  func replacingSpaces() -> String {
    String(map { $0 == " " || $0 == "-" || $0 == "/" ? "_" : $0 })
  }
}
