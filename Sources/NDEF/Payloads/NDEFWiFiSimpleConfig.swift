/// Wi-Fi Simple Configuration payload `application/vnd.wfa.wsc` (Wi-Fi Simple Configuration
/// Technical Specification 2.0 §12): attributes with 2-byte type and 2-byte
/// length (big-endian); Credential (0x100E) nests the network attributes.
public struct NDEFWiFiSimpleConfig: Sendable, Equatable {
  /// One attribute.
  public struct Attribute: Sendable, Equatable {
    /// Offset of the type field in the input.
    public let offset: Int
    /// Attribute type, e.g. 0x1045 SSID.
    public let type: UInt16
    /// Attribute value.
    public let value: [UInt8]
    /// Nested attributes (Credential only).
    public let children: [Attribute]

    /// Name (Wi-Fi Simple Configuration 2.0 §12), or "attribute 0xNNNN".
    public var name: String { NDEFWiFiSimpleConfig.attributeName(type) }

    /// The bytes of a Credential's value after its last attribute that could be read (one
    /// cut short, or past the nesting limit): they may hold the network key. Empty for other
    /// attributes.
    public var undecoded: ArraySlice<UInt8> {
      guard type == 0x100E else { return [] }
      let covered = children.last.map { $0.offset + 4 + $0.value.count - (offset + 4) } ?? 0
      return value.dropFirst(min(max(covered, 0), value.count))
    }
  }

  /// How deep Credentials are read inside Credentials (the specification nests them one
  /// level; deeper ones are kept as undecoded bytes).
  static let maxCredentialDepth = 4

  /// Top-level attributes.
  public let attributes: [Attribute]
  /// The 2-byte total length of the attributes the payload starts with, in the form a
  /// Connection Handover carrier uses (e.g. with an OOB Device Password of ID 7; ndeflib reads
  /// and writes both forms); nil in the plain form.
  public var lengthPrefix: Int?

  /// The Credential attributes (0x100E), or the top level when there is no Credential.
  public var credentials: [[Attribute]] {
    let creds = attributes.filter { $0.type == 0x100E }.map(\.children)
    return creds.isEmpty ? [attributes] : creds
  }

  /// The Wi-Fi Alliance's vendor ID, opening its Vendor Extension (0x1049).
  public static let wfaVendorID: [UInt8] = [0x00, 0x37, 0x2A]

  /// Where the subelements of a Wi-Fi Alliance vendor extension (after its 3-byte vendor ID)
  /// stop fitting: the offset in `value` of the first one that runs past it; nil when they
  /// fill it exactly.
  static func wfaSubelementsEnd(_ value: [UInt8]) -> Int? {
    var i = 3
    while i < value.count {
      guard i + 2 <= value.count, i + 2 + Int(value[i + 1]) <= value.count else { return i }
      i += 2 + Int(value[i + 1])
    }
    return nil
  }

  /// Attribute names (Wi-Fi Simple Configuration 2.0 §12).
  public static func attributeName(_ t: UInt16) -> String {
    switch t {
    case 0x1001: return "AP Channel"
    case 0x1008: return "Configuration Methods"
    case 0x100E: return "Credential"
    case 0x1020: return "MAC Address"
    case 0x1021: return "Manufacturer"
    case 0x1023: return "Model Name"
    case 0x1024: return "Model Number"
    case 0x1042: return "Serial Number"
    case 0x1047: return "UUID-E"
    case 0x1048: return "UUID-R"
    case 0x1054: return "Primary Device Type"
    case 0x1026: return "Network Index"
    case 0x1027: return "Network Key"
    case 0x1045: return "SSID"
    case 0x104A: return "Version"
    case 0x1003: return "Authentication Type"
    case 0x100F: return "Encryption Type"
    case 0x1049: return "Vendor Extension"
    case 0x1061: return "Key Provided Automatically"
    case 0x102C: return "OOB Device Password"
    case 0x1011: return "Device Name"
    case 0x103C: return "RF Bands"
    default: return "attribute 0x" + hex2(UInt8(t >> 8)) + hex2(UInt8(t & 0xFF))
    }
  }

  /// Names of the authentication-type bits (Wi-Fi Simple Configuration 2.0 §12).
  public static func authenticationNames(_ v: UInt16) -> String {
    flagNames(
      v,
      [
        (0x01, "Open"), (0x02, "WPA-Personal"), (0x04, "Shared"), (0x08, "WPA-Enterprise"),
        (0x10, "WPA2-Enterprise"), (0x20, "WPA2-Personal"),
      ])
  }

  /// Names of the RF Bands bits (Wi-Fi Simple Configuration 2.0 §12).
  public static func rfBandNames(_ v: UInt8) -> String {
    flagNames(UInt16(v), [(0x01, "2.4GHz"), (0x02, "5.0GHz"), (0x04, "60GHz")])
  }

  /// Names of the encryption-type bits (Wi-Fi Simple Configuration 2.0 §12).
  public static func encryptionNames(_ v: UInt16) -> String {
    flagNames(v, [(0x01, "None"), (0x02, "WEP"), (0x04, "TKIP"), (0x08, "AES")])
  }

  private static func flagNames(_ v: UInt16, _ table: [(UInt16, String)]) -> String {
    let names = table.filter { v & $0.0 != 0 }.map(\.1)
    let known = table.reduce(UInt16(0)) { $0 | $1.0 }
    let extra = v & ~known != 0 ? ["0x" + hex2(UInt8(v >> 8)) + hex2(UInt8(v & 0xFF))] : []
    return (names + extra).isEmpty ? "none" : (names + extra).joined(separator: "|")
  }

  /// Whether `p` starts with a 16-bit total length (big-endian) of the rest: the first two
  /// bytes cannot be an attribute type then (types start at 0x1001).
  static func hasLengthPrefix(_ p: [UInt8]) -> Bool {
    guard p.count >= 2 else { return false }
    let n = Int(p[0]) << 8 | Int(p[1])
    return n == p.count - 2 && n < 0x1000
  }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFWiFiSimpleConfig?
  {
    let prefixed = hasLengthPrefix(p)
    let attrs =
      prefixed
      ? parse(Array(p.dropFirst(2)), offset: offset + 2, depth: 0, ctx: &ctx)
      : parse(p, offset: offset, depth: 0, ctx: &ctx)
    // A password token (OOB Device Password, 0x102C) configures the connection without a
    // Credential (Wi-Fi Simple Configuration 2.0, NFC password token).
    if !attrs.contains(where: { $0.type == 0x100E || $0.type == 0x102C }) {
      ctx.add(
        "wsc-credential-missing", .warning, offset,
        "Wi-Fi Simple Config payload without a "
          + "Credential attribute (0x100E) or an OOB Device Password (0x102C) (Wi-Fi Simple Configuration 2.0, NFC tokens)",
        readers: "Android and iOS do not offer "
          + "to join a network")
    }
    checkLimits(attrs, ctx: &ctx)
    var out = NDEFWiFiSimpleConfig(attributes: attrs)
    out.lengthPrefix = prefixed ? p.count - 2 : nil
    return out
  }

  /// Attribute types and sizes (Wi-Fi Simple Configuration 2.0 §12): types from 0x1001, SSID
  /// 0–32 bytes, Network Key 0–64, MAC Address 6, OOB Device Password 22–54.
  private static func checkLimits(_ attrs: [Attribute], ctx: inout NDEFDecodeContext) {
    for a in attrs {
      checkLimits(a.children, ctx: &ctx)
      if a.type == 0x1049, a.value.starts(with: wfaVendorID), let at = wfaSubelementsEnd(a.value) {
        ctx.add(
          "wsc-vendor-extension-truncated", .warning, a.offset + 4 + at,
          "Wi-Fi Simple Config: the Wi-Fi Alliance vendor extension's subelement at its byte "
            + "\(at) runs past the attribute (subelements are ID, length, value; Wi-Fi Simple "
            + "Configuration 2.0 §12)",
          readers: "ndeflib raises DecodeError; phones ignore the extension")
      }
      if a.type < 0x1001 {
        ctx.add(
          "wsc-attribute-reserved", .warning, a.offset,
          "Wi-Fi Simple Config: attribute type 0x\(hex2(UInt8(a.type >> 8)))"
            + "\(hex2(UInt8(a.type & 0xFF))) is reserved (types start at 0x1001; Wi-Fi Simple "
            + "Configuration 2.0 §12)",
          readers: "ndeflib: 'reserved attribute type'; phones skip it")
      }
      let problem: String?
      switch a.type {
      case 0x1045 where a.value.count > 32: problem = "SSID of \(a.value.count) bytes (at most 32)"
      case 0x1027 where a.value.count > 64:
        problem = "Network Key of \(a.value.count) bytes (at most 64)"
      case 0x1020 where a.value.count != 6:
        problem = "MAC Address of \(a.value.count) bytes (6 expected)"
      case 0x102C where a.value.count < 22 || a.value.count > 54:
        problem =
          "OOB Device Password of \(a.value.count) bytes (20-byte public key hash, 2-byte "
          + "password ID, 0–32-byte password)"
      default: problem = nil
      }
      if let problem {
        ctx.add(
          "wsc-attribute-size", .warning, a.offset,
          "Wi-Fi Simple Config: \(problem) (Wi-Fi Simple Configuration 2.0 §12)",
          readers: "phones may refuse the credential or truncate the value")
      }
    }
  }

  private static func parse(_ p: [UInt8], offset: Int, depth: Int, ctx: inout NDEFDecodeContext)
    -> [Attribute]
  {
    var c = NDEFByteCursor(p, base: offset)
    var out: [Attribute] = []
    while !c.isAtEnd {
      let at = c.absoluteOffset
      var header: (type: UInt16, valueOffset: Int)?
      do {
        let type = try c.readUInt16("attribute type")
        let len = Int(try c.readUInt16("attribute length"))
        let valueOffset = c.absoluteOffset
        header = (type, valueOffset)
        let value = try c.readBytes(len, "attribute value")
        let children =
          type == 0x100E && depth < Self.maxCredentialDepth
          ? parse(value, offset: valueOffset, depth: depth + 1, ctx: &ctx) : []
        out.append(Attribute(offset: at, type: type, value: value, children: children))
      } catch {
        // A Credential whose length runs past the payload still holds the attributes before
        // the end (SSID, authentication type…): they are shown, after the error.
        if let header, header.type == 0x100E, depth < Self.maxCredentialDepth {
          let rest = Array(p.dropFirst(header.valueOffset - offset))
          ctx.add(
            "wsc-truncated", .error, error.offset,
            "Wi-Fi Simple Config: " + error.message
              + " (Wi-Fi Simple Configuration 2.0 §12); the Credential's attributes up to the "
              + "end are shown")
          let children = parse(rest, offset: header.valueOffset, depth: depth + 1, ctx: &ctx)
          out.append(Attribute(offset: at, type: 0x100E, value: rest, children: children))
          break
        }
        ctx.add(
          "wsc-truncated", .error, error.offset,
          "Wi-Fi Simple Config: " + error.message
            + " (Wi-Fi Simple Configuration 2.0 §12)")
        break
      }
    }
    return out
  }
}
