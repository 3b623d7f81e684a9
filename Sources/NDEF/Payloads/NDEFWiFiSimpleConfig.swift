/// Wi-Fi Simple Configuration payload `application/vnd.wfa.wsc` (Wi-Fi Simple Configuration
/// Technical Specification 2.0 §12; facts §7.7): attributes with 2-byte type and 2-byte
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

    /// Name from facts §7.7, or "attribute 0xNNNN".
    public var name: String { NDEFWiFiSimpleConfig.attributeName(type) }
  }

  /// Top-level attributes.
  public let attributes: [Attribute]

  /// The Credential attributes (0x100E), or the top level when there is no Credential.
  public var credentials: [[Attribute]] {
    let creds = attributes.filter { $0.type == 0x100E }.map(\.children)
    return creds.isEmpty ? [attributes] : creds
  }

  /// Attribute names (facts §7.7).
  public static func attributeName(_ t: UInt16) -> String {
    switch t {
    case 0x100E: return "Credential"
    case 0x1020: return "MAC Address"
    case 0x1026: return "Network Index"
    case 0x1027: return "Network Key"
    case 0x1045: return "SSID"
    case 0x104A: return "Version"
    case 0x1003: return "Authentication Type"
    case 0x100F: return "Encryption Type"
    case 0x1049: return "Vendor Extension"
    case 0x1061: return "Key Provided Automatically"
    default: return "attribute 0x" + hex2(UInt8(t >> 8)) + hex2(UInt8(t & 0xFF))
    }
  }

  /// Names of the authentication-type bits (facts §7.7).
  public static func authenticationNames(_ v: UInt16) -> String {
    flagNames(
      v,
      [
        (0x01, "Open"), (0x02, "WPA-Personal"), (0x04, "Shared"), (0x08, "WPA-Enterprise"),
        (0x10, "WPA2-Enterprise"), (0x20, "WPA2-Personal"),
      ])
  }

  /// Names of the encryption-type bits (facts §7.7).
  public static func encryptionNames(_ v: UInt16) -> String {
    flagNames(v, [(0x01, "None"), (0x02, "WEP"), (0x04, "TKIP"), (0x08, "AES")])
  }

  private static func flagNames(_ v: UInt16, _ table: [(UInt16, String)]) -> String {
    let names = table.filter { v & $0.0 != 0 }.map(\.1)
    let known = table.reduce(UInt16(0)) { $0 | $1.0 }
    let extra = v & ~known != 0 ? ["0x" + hex2(UInt8(v >> 8)) + hex2(UInt8(v & 0xFF))] : []
    return (names + extra).isEmpty ? "none" : (names + extra).joined(separator: "|")
  }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFWiFiSimpleConfig?
  {
    let attrs = parse(p, offset: offset, depth: 0, ctx: &ctx)
    if !attrs.contains(where: { $0.type == 0x100E }) {
      ctx.add(
        "wsc-credential-missing", .warning, offset,
        "Wi-Fi Simple Config payload without a "
          + "Credential attribute (0x100E) (facts §7.7)",
        readers: "Android and iOS do not offer "
          + "to join a network")
    }
    checkLimits(attrs, ctx: &ctx)
    return NDEFWiFiSimpleConfig(attributes: attrs)
  }

  /// Attribute sizes (facts §7.7, Wi-Fi Simple Configuration 2.0 §12): SSID 0–32 bytes,
  /// Network Key 0–64, MAC Address 6.
  private static func checkLimits(_ attrs: [Attribute], ctx: inout NDEFDecodeContext) {
    for a in attrs {
      checkLimits(a.children, ctx: &ctx)
      let problem: String?
      switch a.type {
      case 0x1045 where a.value.count > 32: problem = "SSID of \(a.value.count) bytes (at most 32)"
      case 0x1027 where a.value.count > 64:
        problem = "Network Key of \(a.value.count) bytes (at most 64)"
      case 0x1020 where a.value.count != 6:
        problem = "MAC Address of \(a.value.count) bytes (6 expected)"
      default: problem = nil
      }
      if let problem {
        ctx.add(
          "wsc-attribute-size", .warning, a.offset,
          "Wi-Fi Simple Config: \(problem) (facts §7.7)",
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
      do {
        let type = try c.readUInt16("attribute type")
        let len = Int(try c.readUInt16("attribute length"))
        let valueOffset = c.absoluteOffset
        let value = try c.readBytes(len, "attribute value")
        let children =
          type == 0x100E && depth == 0
          ? parse(value, offset: valueOffset, depth: 1, ctx: &ctx) : []
        out.append(Attribute(offset: at, type: type, value: value, children: children))
      } catch {
        ctx.add(
          "wsc-truncated", .error, error.offset,
          "Wi-Fi Simple Config: " + error.message
            + " (facts §7.7)")
        break
      }
    }
    return out
  }
}
