/// Bluetooth OOB pairing data in a MIME record (facts §7.6; Bluetooth Core Vol 3 Part C §8
/// EIR/AD structures): BR/EDR `application/vnd.bluetooth.ep.oob` = 2-byte little-endian OOB
/// length + BD_ADDR (6 bytes, LSB first) + EIR structures; LE
/// `application/vnd.bluetooth.le.oob` = AD structures only.
public struct NDEFBluetoothOOB: Sendable, Equatable {
  /// Which record.
  public enum Kind: String, Sendable {
    /// `application/vnd.bluetooth.ep.oob`.
    case bredr
    /// `application/vnd.bluetooth.le.oob`.
    case le
  }

  /// One EIR / AD structure: length byte, type byte, data.
  public struct Field: Sendable, Equatable {
    /// Offset of the length byte in the input.
    public let offset: Int
    /// EIR/AD data type (facts §7.6 table).
    public let type: UInt8
    /// Data after the type byte.
    public let data: [UInt8]

    /// Name of the data type, e.g. "Complete Local Name".
    public var name: String { NDEFBluetoothOOB.typeName(type) }
  }

  /// Record kind.
  public let kind: Kind
  /// BR/EDR: the OOB data length field (counts the whole payload).
  public let oobLength: UInt16?
  /// BR/EDR: BD_ADDR as transmitted (least significant byte first).
  public let address: [UInt8]?
  /// EIR (BR/EDR) or AD (LE) structures.
  public let fields: [Field]

  /// The device address for display, most significant byte first: `00:02:0E:00:08:8F`.
  /// For LE, taken from the LE Bluetooth Device Address structure (type 0x1B).
  public var addressString: String? {
    let raw = address ?? fields.first(where: { $0.type == 0x1B }).map { Array($0.data.prefix(6)) }
    guard let raw, raw.count == 6 else { return nil }
    return raw.reversed().map { hex2($0).uppercased() }.joined(separator: ":")
  }

  /// Shortened (0x08) or complete (0x09) local name, UTF-8.
  public var localName: String? {
    fields.first(where: { $0.type == 0x09 || $0.type == 0x08 }).map {
      String(decoding: $0.data, as: UTF8.self)
    }
  }

  /// Class of Device (type 0x0D, 3 bytes little-endian) as a 24-bit value.
  public var classOfDevice: UInt32? {
    guard let f = fields.first(where: { $0.type == 0x0D }), f.data.count == 3 else { return nil }
    return UInt32(f.data[0]) | UInt32(f.data[1]) << 8 | UInt32(f.data[2]) << 16
  }

  /// Data type names (facts §7.6).
  public static func typeName(_ t: UInt8) -> String {
    switch t {
    case 0x01: return "Flags"
    case 0x02: return "Incomplete List of 16-bit Service UUIDs"
    case 0x03: return "Complete List of 16-bit Service UUIDs"
    case 0x04: return "Incomplete List of 32-bit Service UUIDs"
    case 0x05: return "Complete List of 32-bit Service UUIDs"
    case 0x06: return "Incomplete List of 128-bit Service UUIDs"
    case 0x07: return "Complete List of 128-bit Service UUIDs"
    case 0x08: return "Shortened Local Name"
    case 0x09: return "Complete Local Name"
    case 0x0D: return "Class of Device"
    case 0x0E: return "Simple Pairing Hash C-192"
    case 0x0F: return "Simple Pairing Randomizer R-192"
    case 0x10: return "Security Manager TK Value"
    case 0x11: return "Security Manager OOB Flags"
    case 0x19: return "Appearance"
    case 0x1B: return "LE Bluetooth Device Address"
    case 0x1C: return "LE Role"
    case 0x1D: return "Simple Pairing Hash C-256"
    case 0x1E: return "Simple Pairing Randomizer R-256"
    case 0x22: return "LE Secure Connections Confirmation Value"
    case 0x23: return "LE Secure Connections Random Value"
    default: return "type 0x" + hex2(t)
    }
  }

  static func decode(_ mime: String, _ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFBluetoothOOB?
  {
    let kind: Kind = mime.hasSuffix("ep.oob") ? .bredr : .le
    var c = NDEFByteCursor(p, base: offset)
    var oobLength: UInt16?
    var address: [UInt8]?
    if kind == .bredr {
      do {
        let lo = try c.readByte("OOB data length (LSB)")
        let hi = try c.readByte("OOB data length (MSB)")
        oobLength = UInt16(hi) << 8 | UInt16(lo)
        address = try c.readBytes(6, "BD_ADDR")
      } catch {
        ctx.add(
          "bt-oob-truncated", .error, error.offset,
          "Bluetooth OOB: " + error.message
            + " (Bluetooth Secure Simple Pairing Using NFC 1.1)")
        return nil
      }
      if let oobLength, Int(oobLength) != p.count {
        ctx.add(
          "bt-oob-length-mismatch", .warning, offset,
          "OOB data length says \(oobLength) "
            + "bytes, payload has \(p.count) (Bluetooth Core Vol 3 Part C §5.2.2.7)")
      }
    }
    let fields = eirFields(&c, ctx: &ctx)
    if kind == .le && !fields.contains(where: { $0.type == 0x1B }) {
      ctx.add(
        "bt-le-address-missing", .warning, offset,
        "LE OOB record without LE Bluetooth "
          + "Device Address (type 0x1B) (Bluetooth Secure Simple Pairing Using NFC 1.1, LE OOB)")
    }
    if kind == .le && !fields.contains(where: { $0.type == 0x1C }) {
      ctx.add(
        "bt-le-role-missing", .warning, offset,
        "LE OOB record without LE Role (type 0x1C), which the Bluetooth Secure Simple Pairing "
          + "OOB format requires beside the address (Bluetooth Secure Simple Pairing Using NFC 1.1, LE OOB)"
      )
    }
    for f in fields where f.type == 0x1B && f.data.count != 7 {
      ctx.add(
        "bt-le-address-size", .warning, offset,
        "LE Bluetooth Device Address of \(f.data.count) bytes: 6 address bytes and 1 type byte "
          + "expected (Core Specification Supplement Part A §1.16)")
    }
    return NDEFBluetoothOOB(kind: kind, oobLength: oobLength, address: address, fields: fields)
  }

  private static func eirFields(_ c: inout NDEFByteCursor, ctx: inout NDEFDecodeContext) -> [Field]
  {
    var out: [Field] = []
    while !c.isAtEnd {
      let at = c.absoluteOffset
      guard let len = try? c.readByte("EIR length") else { break }
      if len == 0 {
        // Zero length = padding to the end (Core Vol 3 Part C §8): non-zero bytes after it are
        // data a reader that stops there never sees.
        let rest = c.remaining
        if rest > 0, c.bytes[c.position...].contains(where: { $0 != 0 }) {
          ctx.add(
            "bt-eir-after-padding", .warning, at,
            "EIR/AD data after a zero length byte: the zero ends the significant "
              + "part (Bluetooth Core Vol 3 Part C §8), so readers ignore the \(rest) byte(s) "
              + "after it",
            readers: "Android and iOS stop at the zero length; ndeflib reads on")
        }
        break
      }
      guard let type = try? c.readByte("EIR type"),
        let data = try? c.readBytes(Int(len) - 1, "EIR data")
      else {
        ctx.add(
          "bt-eir-truncated", .error, at,
          "EIR/AD structure claims \(len) "
            + "bytes but the payload ends first (Bluetooth Core Vol 3 Part C §8)")
        break
      }
      // Local names (shortened 08, complete 09) are UTF-8 (Core Supplement Part A §1.2).
      if type == 0x08 || type == 0x09, String(validating: data, as: UTF8.self) == nil {
        ctx.add(
          "bt-name-invalid-utf8", .warning, at + 2,
          "Bluetooth local name is not valid UTF-8 (Core Specification "
            + "Supplement Part A §1.2); shown with replacement characters",
          readers: "ndeflib rejects the record; phones show replacement characters")
      }
      let field = Field(offset: at, type: type, data: data)
      if let unit = dataUnit(type), !hasValidSize(field) {
        ctx.add(
          "bt-eir-size", .warning, at,
          "\(typeName(type)) of \(data.count) byte(s): \(unit.exact ? "" : "a multiple of ")"
            + "\(unit.size) expected (Bluetooth Core Specification Supplement Part A §1); its "
            + "data is shown as hex",
          readers: "ndeflib rejects the record")
      }
      out.append(field)
    }
    return out
  }

  /// The data size a type's data must have (`exact`) or be a multiple of, from the Bluetooth
  /// Core Specification Supplement Part A: §1.1 service UUID lists, §1.6 Class of Device and
  /// the Simple Pairing / LE Secure Connections values, §1.7 Security Manager TK, §1.8 its
  /// OOB Flags, §1.12 Appearance, §1.17 LE Role. Nil when free or checked elsewhere (names,
  /// the LE address).
  static func dataUnit(_ type: UInt8) -> (size: Int, exact: Bool)? {
    switch type {
    case 0x02, 0x03: return (2, false)
    case 0x04, 0x05: return (4, false)
    case 0x06, 0x07: return (16, false)
    case 0x0D: return (3, true)
    case 0x0E, 0x0F, 0x10, 0x1D, 0x1E, 0x22, 0x23: return (16, true)
    case 0x11, 0x1C: return (1, true)
    case 0x19: return (2, true)
    default: return nil
    }
  }

  /// Whether `field`'s data has the size its type needs (`dataUnit`).
  static func hasValidSize(_ field: Field) -> Bool {
    guard let unit = dataUnit(field.type) else { return true }
    return field.data.count % unit.size == 0 && (!unit.exact || field.data.count == unit.size)
  }
}
