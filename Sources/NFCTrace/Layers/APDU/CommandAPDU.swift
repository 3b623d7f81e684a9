/// Why a byte string is not a well-formed command APDU.
///
/// `offset` is the 0-based byte offset inside the APDU where the problem is (the length field
/// that does not match, or the first byte that is missing or left over).
public struct APDUParseError: Error, Sendable, Equatable, CustomStringConvertible {
  /// 0-based byte offset inside the APDU.
  public var offset: Int
  /// What was expected there.
  public var message: String

  /// Creates an error at `offset`.
  public init(offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }

  /// `byte offset N: message`.
  public var description: String { "byte offset \(offset): \(message)" }
}

/// An ISO/IEC 7816-4 command APDU: header CLA INS P1 P2, optional command data (Nc = Lc bytes)
/// and optional expected length Ne (Le).
///
/// Length coding follows ISO/IEC 7816-4 §5.1 (cases 1, 2S/3S/4S, 2E/3E/4E): short Lc is one
/// byte 01–FF, short Le one byte (`00` = 256); extended fields start with `00` and carry 2 bytes
/// (Le `0000` = 65536). The form some Proxmark3 encoders emit for case 4E, a 3-byte Le
/// `00 Le1 Le2` after the data, is accepted and flagged by `leFieldLength == 3`
/// (see nfc-facts §10).
public struct CommandAPDU: Sendable, Equatable {
  /// Class byte.
  public var cla: UInt8
  /// Instruction byte.
  public var ins: UInt8
  /// Whether INS is 6X or 9X, values of SW1: ISO/IEC 7816-4 §5.1 makes them invalid in the
  /// interindustry class (proprietary classes, e.g. DESFire's 90, use them).
  public var insIsStatusByte: Bool { ins >> 4 == 0x6 || ins >> 4 == 0x9 }
  /// Parameter 1.
  public var p1: UInt8
  /// Parameter 2.
  public var p2: UInt8
  /// Command data field (its count is Nc, coded as Lc).
  public var data: [UInt8]
  /// Ne, the maximum number of response data bytes expected (256 for short `00`, 65536 for
  /// extended `0000`), or nil when the Le field is absent.
  public var le: Int?
  /// True when the lengths use the extended form.
  public var isExtended: Bool
  /// Bytes of the Le field as sent: 0 (absent), 1, 2, or 3 (the non-standard case 4E form).
  public var leFieldLength: Int

  /// Creates a command from its parts; `le` is Ne (nil = no Le field).
  public init(
    cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], le: Int? = nil,
    isExtended: Bool = false
  ) {
    self.cla = cla
    self.ins = ins
    self.p1 = p1
    self.p2 = p2
    self.data = data
    self.le = le
    self.isExtended = isExtended
    self.leFieldLength = le == nil ? 0 : (isExtended ? 2 : 1)
  }

  /// Parses a complete command APDU (no ISO-DEP prologue, no CRC).
  ///
  /// - Throws: `APDUParseError` with the byte offset when the header is shorter than 4 bytes,
  ///   when Lc announces more or fewer data bytes than follow, when an extended length field
  ///   is cut short, or when an extended Lc is `0000`.
  public init(parsing bytes: [UInt8]) throws(APDUParseError) {
    guard bytes.count >= 4 else {
      throw APDUParseError(
        offset: bytes.count,
        "expected the 4-byte header CLA INS P1 P2, got \(bytes.count) byte(s)")
    }
    cla = bytes[0]
    ins = bytes[1]
    p1 = bytes[2]
    p2 = bytes[3]
    let body = try Self.parseBody(bytes)
    data = body.data
    le = body.le
    isExtended = body.extended
    leFieldLength = body.leLength
  }

  /// ISO/IEC 7816-4 case: 1 (no data, no Le), 2 (Le only), 3 (data only), 4 (data and Le).
  public var apduCase: Int {
    switch (data.isEmpty, le == nil) {
    case (true, true): return 1
    case (true, false): return 2
    case (false, true): return 3
    case (false, false): return 4
    }
  }

  /// Lc (= Nc), or nil when there is no command data.
  public var lc: Int? { data.isEmpty ? nil : data.count }

  /// The encoded bytes (short form unless `isExtended`; a 3-byte Le is re-encoded as 2 bytes).
  public var bytes: [UInt8] {
    var out: [UInt8] = [cla, ins, p1, p2]
    if !data.isEmpty {
      if isExtended {
        out += [0, UInt8(data.count >> 8 & 0xFF), UInt8(data.count & 0xFF)]
      } else {
        out.append(UInt8(data.count & 0xFF))
      }
      out += data
    }
    if let ne = le {
      if isExtended {
        if data.isEmpty { out.append(0) }
        out += [UInt8(ne >> 8 & 0xFF), UInt8(ne & 0xFF)]
      } else {
        out.append(UInt8(ne & 0xFF))
      }
    }
    return out
  }

  private struct Body {
    var data: [UInt8] = []
    var le: Int?
    var extended = false
    var leLength = 0
  }

  private static func parseBody(_ b: [UInt8]) throws(APDUParseError) -> Body {
    let n = b.count
    if n == 4 { return Body() }
    if n == 5 { return Body(le: b[4] == 0 ? 256 : Int(b[4]), leLength: 1) }
    if b[4] != 0 { return try parseShort(b) }
    return try parseExtended(b)
  }

  /// Short Lc in byte 4 (01–FF): case 3S or 4S.
  private static func parseShort(_ b: [UInt8]) throws(APDUParseError) -> Body {
    let lc = Int(b[4])
    let end = 5 + lc
    if b.count == end { return Body(data: Array(b[5..<end])) }
    if b.count == end + 1 {
      let raw = b[end]
      return Body(data: Array(b[5..<end]), le: raw == 0 ? 256 : Int(raw), leLength: 1)
    }
    if b.count < end {
      throw APDUParseError(
        offset: 4, "Lc = \(lc) announces \(lc) data byte(s) but only \(b.count - 5) follow")
    }
    throw APDUParseError(
      offset: end + 1,
      "Lc = \(lc): expected at most one Le byte after the data, found \(b.count - end) byte(s)")
  }

  /// Byte 4 = `00` with more than 5 bytes: extended lengths (cases 2E, 3E, 4E).
  private static func parseExtended(_ b: [UInt8]) throws(APDUParseError) -> Body {
    guard b.count >= 7 else {
      throw APDUParseError(
        offset: b.count,
        "extended length field `00 xx xx` needs 3 bytes, got \(b.count - 4)")
    }
    let value = Int(b[5]) << 8 | Int(b[6])
    if b.count == 7 { return Body(le: value == 0 ? 65536 : value, extended: true, leLength: 2) }
    guard value != 0 else {
      throw APDUParseError(offset: 5, "extended Lc 0000 is not allowed when data follows")
    }
    let end = 7 + value
    if b.count == end { return Body(data: Array(b[7..<end]), extended: true) }
    if b.count < end {
      throw APDUParseError(
        offset: 5,
        "extended Lc = \(value) announces \(value) data byte(s) but only \(b.count - 7) follow")
    }
    let tail = b.count - end
    if tail == 2 || (tail == 3 && b[end] == 0) {
      let le = Int(b[b.count - 2]) << 8 | Int(b[b.count - 1])
      return Body(
        data: Array(b[7..<end]), le: le == 0 ? 65536 : le, extended: true, leLength: tail)
    }
    throw APDUParseError(
      offset: end,
      "extended Lc = \(value): expected a 2-byte Le after the data, found \(tail) byte(s)")
  }
}
