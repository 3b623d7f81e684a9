/// NFC Forum Type 2 Tag / MIFARE Ultralight / NTAG21x commands and answers.
///
/// Reader frames are parsed as `Type2Command`s and kept pending; the tag's answer is paired
/// with the pending command (READ: 16 bytes = 4 pages; FAST_READ: (end − start + 1) × 4
/// bytes; GET_VERSION: 8 bytes; PWD_AUTH: 2-byte PACK; 4-bit ACK `A` / NAK `0`,`1`,`4`,`5`).
/// Two-part commands are followed: COMPATIBILITY_WRITE (16-byte data frame after the ACK),
/// SECTOR_SELECT (4-byte sector frame after the ACK, acknowledged passively) and the
/// Ultralight C / AES AUTHENTICATE (`AF` frames). nfc-facts §4.1, §4.2, §4.6.
///
/// Decode names: the command name (`READ`, `WRITE`, `FAST_READ`, `GET_VERSION`, …), answers
/// `<command> response`, `PACK`, `ACK`, `NAK`.
///
/// Field keys: `page`, `start_page`, `end_page`, `data` (hex), `sector`, `part`, `password`,
/// `pack`, `counter`, `increment`, `counter_value`, `address`, `signature`, `key`, `command`
/// (on answers), `ack` (bool), `nak_code`, `meaning`, `authenticated`, `tearing_flag`,
/// `vctid`; GET_VERSION answers add `vendor_id`, `product_type`, `product_subtype`,
/// `major_version`, `minor_version`, `storage_size`, `protocol_type` (hex), `storage_bytes`
/// (text), `product` (text).
public struct Type2Layer: ProtocolLayer {
  /// The protocol this layer decodes.
  public static let protocolID = ProtocolID.type2

  private var pending: Type2Command?
  /// True from a reader frame (decoded or not) to the next tag frame: a tag answers only then.
  private var readerSpoke = false
  private var awaitingCompatibilityData: Int?
  private var awaitingSector = false
  private var awaitingAuthContinue = false
  /// The sector chosen by the last SECTOR_SELECT (NTAG I2C), nil before any.
  public private(set) var sector: Int?
  /// The last GET_VERSION answer in this activation.
  public private(set) var version: GetVersionInfo?
  /// READ/WRITE commands and READ answers repeat across sessions (see `DecodeCache`); kept
  /// across activations.
  private var cache = DecodeCache<ShortBytesKey>()

  /// An idle layer.
  public init() {}

  /// Decodes one frame payload (CRC removed).
  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    switch unit.direction {
    case .reader:
      readerSpoke = true
      return decodeReader(unit.bytes)
    case .tag:
      defer { readerSpoke = false }
      return decodeTag(unit, context: &context)
    case .event: return .undecoded("capture event")
    }
  }

  /// Forgets pending commands, the sector and the version (new activation).
  public mutating func reset() {
    let kept = cache
    self = Type2Layer()
    cache = kept
  }

  // MARK: - Reader

  private mutating func decodeReader(_ b: [UInt8]) -> LayerResult {
    let command: Type2Command
    var pure = false
    if let page = awaitingCompatibilityData, b.count == 16 {
      command = .compatibilityWriteData(page: page, data: b)
    } else if awaitingSector, b.count == 4 {
      command = .sectorSelectSector(sector: Int(b[0]))
      sector = Int(b[0])
    } else if awaitingAuthContinue, b.first == 0xAF, b.count > 1 {
      command = .authenticateContinue(data: Array(b.dropFirst()))
    } else {
      switch Type2Command.parse(b) {
      case .success(let parsed):
        command = parsed
        pure = true
      case .failure(let failure):
        // The second packet of a two-step command, of the wrong length (NXP NTAG21x datasheet
        // §10.5: 16 data bytes; NTAG I2C SECTOR_SELECT: 4 bytes).
        let step =
          awaitingCompatibilityData != nil
          ? "COMPATIBILITY_WRITE part 2 has \(b.count) byte(s), expected 16"
          : awaitingSector ? "SECTOR_SELECT part 2 has \(b.count) byte(s), expected 4" : nil
        clearExchange()
        return .undecoded(step ?? failure.reason)
      }
    }
    clearExchange()
    pending = command
    if case .sectorSelectSector = command {
      // Success is silence: the tag answers only to refuse (nfc-facts §4.1).
      var result = LayerResult(decode: Self.describeDecode(command, sector: sector))
      result.expectsResponse = false
      return result
    }
    // A parsed command's decode depends on its bytes and the selected sector only.
    let kind: UInt32 = 0x100 | UInt32(truncatingIfNeeded: sector.map { $0 + 1 } ?? 0) & 0xFF
    if pure, sector.map({ (0..<255).contains($0) }) ?? true {
      // Static, given the sector: a closure reading `self` while the cache changed needed a
      // copy of the whole layer.
      let sector = sector
      return LayerResult(
        decode: cache.decode(kind: kind, bytes: b) { Self.describeDecode(command, sector: sector) })
    }
    return LayerResult(decode: Self.describeDecode(command, sector: sector))
  }

  private static func describeDecode(_ command: Type2Command, sector: Int?) -> LayerDecode {
    let (summary, fields) = describe(command, sector: sector)
    return LayerDecode(.type2, command.name, summary, fields)
  }

  private mutating func clearExchange() {
    pending = nil
    awaitingCompatibilityData = nil
    awaitingSector = false
    awaitingAuthContinue = false
  }

  /// The summary and fields of command `c`, in NTAG I2C sector `sector` when one is selected.
  private static func describe(_ c: Type2Command, sector: Int?) -> (String, [LayerField]) {
    var f: [LayerField] = []
    if let sector { f.append(LayerField("sector", .int(sector))) }
    let text: String
    switch c {
    case .read(let page):
      f.insert(LayerField("page", .int(page)), at: 0)
      text = "READ page \(page)"
    case .fastRead(let start, let end):
      f.insert(
        contentsOf: [LayerField("start_page", .int(start)), LayerField("end_page", .int(end))],
        at: 0)
      text = "FAST_READ pages \(start)–\(end)"
    case .write(let page, let data):
      f.insert(contentsOf: [LayerField("page", .int(page)), LayerField("data", .hex(data))], at: 0)
      text = "WRITE page \(page) ← \(Hex.string(data, separator: " "))"
    case .fastWrite(let start, let end, let data):
      f.insert(
        contentsOf: [
          LayerField("start_page", .int(start)), LayerField("end_page", .int(end)),
          LayerField("data", .hex(data)),
        ], at: 0)
      text =
        "FAST_WRITE pages \(start)–\(end) ← \(data.count) bytes"
        + (start >= 0xF0 ? " (SRAM)" : "")
    case .compatibilityWrite(let page):
      f.insert(contentsOf: [LayerField("page", .int(page)), LayerField("part", .int(1))], at: 0)
      text = "COMPATIBILITY_WRITE page \(page)"
    case .compatibilityWriteData(let page, let data):
      f.insert(
        contentsOf: [
          LayerField("page", .int(page)), LayerField("part", .int(2)),
          LayerField("data", .hex(data)),
        ], at: 0)
      text =
        "COMPATIBILITY_WRITE page \(page) ← \(Hex.string(data.prefix(4), separator: " ")) (16-byte frame, first 4 stored)"
    default:
      return describeOther(c, f)
    }
    // Pages repeat in every NTAG I2C sector: the summary says which one.
    if let sector, sector != 0 { return (text + " (sector \(sector))", f) }
    return (text, f)
  }

  private static func describeOther(_ c: Type2Command, _ base: [LayerField])
    -> (String, [LayerField])
  {
    var f = base
    let text: String
    switch c {
    case .getVersion: text = "GET_VERSION"
    case .readSignature(let address):
      f.append(LayerField("address", .int(address)))
      text = "READ_SIG"
    case .passwordAuth(let password):
      f.append(LayerField("password", .hex(password)))
      text = "PWD_AUTH password \(Hex.string(password, separator: " "))"
    case .readCounter(let counter):
      f.append(LayerField("counter", .int(counter)))
      text = "READ_CNT counter \(counter)"
    case .incrementCounter(let counter, let increment):
      f += [LayerField("counter", .int(counter)), LayerField("increment", .int(increment))]
      text = "INCR_CNT counter \(counter) + \(increment)"
    case .checkTearingEvent(let counter):
      f.append(LayerField("counter", .int(counter)))
      text = "CHECK_TEARING_EVENT counter \(counter)"
    case .writeSignature(let address, let data):
      f += [LayerField("address", .int(address)), LayerField("data", .hex(data))]
      text = "WRITE_SIG block \(address) ← \(Hex.string(data, separator: " "))"
    case .lockSignature(let argument):
      f.append(LayerField("argument", .int(argument)))
      let meaning =
        argument == 0
        ? "unlock" : argument == 1 ? "lock" : argument == 2 ? "lock permanently" : "RFU"
      text = "LOCK_SIG \(argument) (\(meaning))"
    case .vcsl(let data):
      f.append(LayerField("data", .hex(data)))
      text = "VCSL"
    case .sectorSelect:
      f.append(LayerField("part", .int(1)))
      text = "SECTOR_SELECT part 1"
    case .sectorSelectSector(let sector):
      f.append(LayerField("part", .int(2)))
      text = "SECTOR_SELECT sector \(sector)"
    case .authenticate(let key):
      f += [LayerField("key", .int(key)), LayerField("part", .int(1))]
      text = "AUTHENTICATE part 1 (key \(key))"
    case .authenticateContinue(let data):
      f += [LayerField("part", .int(2)), LayerField("data", .hex(data))]
      text = "AUTHENTICATE part 2 (\(data.count) encrypted bytes)"
    case .halt: text = "HLTA"
    default: text = c.name
    }
    return (text, f)
  }

  // MARK: - Tag

  private mutating func decodeTag(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    let b = unit.bytes
    let command = pending
    pending = nil
    if unit.readerFailure {
      return LayerResult(decode: ReaderFailure.decode(.type2, command: command?.name))
    }
    if unit.readerDamaged {
      return LayerResult(
        decode: ReaderFailure.damaged(.type2, command: command?.name, hasBytes: !b.isEmpty))
    }
    if unit.partialAnswer || unit.cutByCapture, case .read(let page) = command,
      (1..<16).contains(b.count)
    {
      return partialRead(b, page: page, byCapture: unit.cutByCapture)
    }
    if isAckNak(unit, command) {
      // A tag answers only a command (ISO/IEC 14443-3 half-duplex): an ACK/NAK with none
      // pending answered nothing in the capture.
      guard command != nil || readerSpoke else {
        let what = b[0] & 0x0F == 0x0A ? "ACK" : "NAK \(b[0] & 0x0F)"
        return .undecoded(
          "4-bit \(what) with no command before it to answer (answered already, or the capture "
            + "began after the command)")
      }
      return ackNak(b[0], command)
    }
    // Reader chips (PN53x InDataExchange) consume the 4-bit ACK and report success with no
    // data; sources that store whole bytes only (Flipper Zero's debug pcap) drop its 4 bits.
    if b.isEmpty, let command, command.isWrite || command == .sectorSelect {
      var result = ackNak(0x0A, command)
      result.decode?.summary =
        unit.readerChipACK
        ? "ACK (consumed by the reader chip)"
        : "ACK (4-bit answer not captured; a NAK would look the same)"
      return result
    }
    guard let command else {
      return .undecoded(
        readerSpoke
          ? "answer to a reader frame that was no Type 2 command"
          : "tag answer with no command before it to answer (the capture may have begun after "
            + "the command)")
    }
    if case .sectorSelectSector = command {
      sector = nil  // any answer means the switch failed; the current sector is unknown
      return .undecoded("answer to SECTOR_SELECT part 2 (success is silence): sector not selected")
    }
    var result = answer(b, to: command, context: &context)
    if case .checkTearingEvent(let counter) = command, b.count == 1, b[0] != 0xBD {
      result.decode?.summary += ": the last increment was torn"
      result.findings.append(
        Finding(
          "ev1-counter-torn", .warning,
          "Tearing flag \(Hex.string(b)) of counter \(counter) (BDh when intact): its last "
            + "INCR_CNT was interrupted, so the counter may not hold the incremented value "
            + "(NXP MF0ULx1 datasheet, CHECK_TEARING_EVENT)", frames: [unit.frameIndex]))
    }
    return result
  }

  /// The first `b.count` bytes of a READ answer, as a PC/SC reader returned them or as the
  /// capture kept them (`byCapture`: a snap length cut the frame).
  private func partialRead(_ b: [UInt8], page: Int, byCapture: Bool = false) -> LayerResult {
    let fields = [
      LayerField("command", .string("READ")), LayerField("page", .int(page)),
      LayerField("data", .hex(b)),
    ]
    let summary =
      "READ page \(page) → \(Hex.string(b.prefix(4), separator: " "))\(b.count > 4 ? " …" : "")"
      + " (first \(b.count) of 16 bytes, as the \(byCapture ? "capture kept" : "reader returned") them)"
    return LayerResult(decode: LayerDecode(.type2, "READ response", summary, fields))
  }

  /// A 1-byte answer is a 4-bit ACK/NAK when the capture says 4 bits, or when the value fits in
  /// 4 bits, unless the command answers with one data byte. The bit count is not required:
  /// pcap carries none, and sniffers miscount short frames (a Proxmark3 sniff of an NTAG's ACK
  /// printed `0a(3)`; an old client's listing gives no count, and the duration suggests 3),
  /// while no Type 2 command other than those answers with a single byte.
  private func isAckNak(_ unit: LayerUnit, _ command: Type2Command?) -> Bool {
    guard unit.bytes.count == 1, !unit.carriedCRC else { return false }
    if unit.bits == 4 { return true }
    guard unit.bytes[0] <= 0x0F else { return false }
    switch command {
    case .checkTearingEvent, .vcsl: return false
    default: return true
    }
  }

  private mutating func ackNak(_ value: UInt8, _ command: Type2Command?) -> LayerResult {
    let code = Int(value & 0x0F)
    if code == 0x0A, let command, Self.answersWithData(command) {
      // READ and the other data commands answer with their data or a NAK, never an ACK
      // (NTAG213/215/216 datasheet §10): the answer carries none of the data asked for.
      return .undecoded("4-bit ACK to \(command.name), which answers with data or a NAK")
    }
    if code == 0x0A {
      if case .compatibilityWrite(let page) = command { awaitingCompatibilityData = page }
      if case .sectorSelect = command { awaitingSector = true }
    } else if case .sectorSelectSector = command {
      sector = nil
    }
    // The decode depends on the command's name and page and the code only: made once per
    // such triple (every WRITE of a write procedure is ACKed).
    let make = { Self.ackNakDecode(code, command) }
    guard let key = Self.ackNakKey(code, command) else { return LayerResult(decode: make()) }
    return LayerResult(decode: cache.decode(key, make))
  }

  /// The decode of a 4-bit ACK or NAK `code` answering `command`.
  private static func ackNakDecode(_ code: Int, _ command: Type2Command?) -> LayerDecode {
    var f: [LayerField] = []
    if let command { f.append(LayerField("command", .string(command.name))) }
    if let page = command?.page { f.append(LayerField("page", .int(page))) }
    if code == 0x0A {
      f.append(LayerField("ack", .bool(true)))
      return LayerDecode(.type2, "ACK", "ACK", f)
    }
    let meaning = nakMeaning(code)
    f += [
      LayerField("ack", .bool(false)), LayerField("nak_code", .int(code)),
      LayerField("meaning", .string(meaning)),
    ]
    let summary = "NAK 0x\(String(code, radix: 16)) (\(meaning))"
    return LayerDecode(.type2, "NAK", summary, f)
  }

  /// The cache key of `ackNakDecode(code, command)`: its kind holds the code and the page
  /// (a byte address or less), its bytes the command's name; nil when they do not fit.
  private static func ackNakKey(_ code: Int, _ command: Type2Command?) -> ShortBytesKey? {
    let page = command?.page
    guard (page ?? 0) >= 0, (page ?? 0) <= 0xFFFF else { return nil }
    let hasCommand: UInt32 = command == nil ? 0 : 1 << 22
    let hasPage: UInt32 = page == nil ? 0 : 1 << 21
    let kind: UInt32 = 1 << 31 | hasCommand | hasPage | UInt32(page ?? 0) << 4 | UInt32(code)
    return ShortBytesKey(kind: kind, (command?.name ?? "").utf8)
  }

  /// Commands whose answer is data (or a NAK), never an ACK.
  private static func answersWithData(_ c: Type2Command) -> Bool {
    switch c {
    case .read, .fastRead, .getVersion, .readSignature, .passwordAuth, .readCounter: return true
    default: return false
    }
  }

  /// Whether a 4-bit NAK `code` reports a failure that the same command sent again may get
  /// past: 1 (transmission error), 5 (EEPROM write error), or a code no datasheet gives — a
  /// damaged ACK or NAK (an ACK Ah with a bit flipped reads Bh, 8h, Eh or 2h). NXP tags define
  /// only 0, 1, 4 and 5 (nfc-facts §4.2).
  public static func isRetriableNAK(_ code: Int) -> Bool {
    code == 1 || code == 5 || !isDefinedNAK(code)
  }

  /// Whether a WRITE answered with 4-bit NAK `code` may still have programmed its page: 5
  /// (EEPROM write error: programming started and failed) or a code no datasheet gives (a
  /// damaged ACK or NAK); 0, 1 and 4 refuse the command before programming (nfc-facts §4.2).
  public static func writeMayHaveLanded(nak code: Int) -> Bool { ![0, 1, 4].contains(code) }

  /// NAK codes NXP's datasheets define: 0, 1, 4, 5 (nfc-facts §4.2).
  public static func isDefinedNAK(_ code: Int) -> Bool { [0, 1, 4, 5].contains(code) }

  /// NAK codes: NXP NTAG21x datasheets (0, 1, 5); 4 varies between sources (nfc-facts §4.2).
  static func nakMeaning(_ code: Int) -> String {
    switch code {
    case 0x0: return "invalid argument or page"
    case 0x1: return "parity or CRC error"
    case 0x4: return "authentication counter overflow or not allowed"
    case 0x5: return "EEPROM write error"
    default: return "non-standard code: a damaged ACK or NAK"
    }
  }

  private mutating func answer(_ b: [UInt8], to c: Type2Command, context: inout LinkContext)
    -> LayerResult
  {
    switch c {
    case .read(let page):
      guard b.count == 16 else { return lengthMismatch(c, b.count, expected: 16) }
      let make = {
        let head = Hex.string(b.prefix(4), separator: " ")
        let fields = [
          LayerField("command", .string("READ")), LayerField("page", .int(page)),
          LayerField("data", .hex(b)),
        ]
        return LayerDecode(.type2, "READ response", "READ page \(page) → \(head) …", fields)
      }
      guard (0..<256).contains(page) else { return LayerResult(decode: make()) }
      return LayerResult(decode: cache.decode(kind: 0x200 | UInt32(page), bytes: b, make))
    case .fastRead(let start, let end):
      let expected = max(0, end - start + 1) * 4
      guard b.count == expected, expected > 0 else {
        return lengthMismatch(c, b.count, expected: expected)
      }
      let fields = [
        LayerField("command", .string("FAST_READ")), LayerField("start_page", .int(start)),
        LayerField("end_page", .int(end)), LayerField("data", .hex(b)),
      ]
      return decoded(
        "FAST_READ response", "FAST_READ pages \(start)–\(end) → \(b.count) bytes", fields)
    case .getVersion:
      return versionAnswer(b, context: &context)
    default:
      return otherAnswer(b, to: c)
    }
  }

  private mutating func versionAnswer(_ b: [UInt8], context: inout LinkContext) -> LayerResult {
    guard let info = GetVersionInfo(bytes: b) else {
      return lengthMismatch(.getVersion, b.count, expected: 8)
    }
    version = info
    context.tagFamilyHint = info.productName
    // A function of the 8 bytes: made once per product (stacks send GET_VERSION at every tap).
    return LayerResult(
      decode: cache.decode(kind: Self.versionKind, bytes: b) { Self.versionDecode(b, info) })
  }

  /// `cache` kind of GET_VERSION answers (commands use 100h–1FFh, READ answers 200h + page,
  /// ACK/NAK bit 31).
  private static let versionKind: UInt32 = 0x4000_0000

  private static func versionDecode(_ b: [UInt8], _ info: GetVersionInfo) -> LayerDecode {
    var f: [LayerField] = [
      LayerField("command", .string("GET_VERSION")), LayerField("data", .hex(b)),
      LayerField("vendor_id", .hex([info.vendorID])),
      LayerField("product_type", .hex([info.productType])),
      LayerField("product_subtype", .hex([info.productSubtype])),
      LayerField("major_version", .hex([info.majorVersion])),
      LayerField("minor_version", .hex([info.minorVersion])),
      LayerField("storage_size", .hex([info.storageSize])),
      LayerField("protocol_type", .hex([info.protocolType])),
    ]
    if let range = info.storageSizeRange {
      let text =
        range.lowerBound == range.upperBound
        ? "\(range.lowerBound) bytes" : "between \(range.lowerBound) and \(range.upperBound) bytes"
      f.append(LayerField("storage_bytes", .string(text)))
    }
    f.append(LayerField("product", .string(info.productName)))
    let summary = "GET_VERSION → \(info.productName) (\(Hex.string(b, separator: " ")))"
    return LayerDecode(.type2, "GET_VERSION response", summary, f)
  }

  private mutating func otherAnswer(_ b: [UInt8], to c: Type2Command) -> LayerResult {
    var f = [LayerField("command", .string(c.name))]
    switch c {
    case .passwordAuth:
      guard b.count == 2 else { return lengthMismatch(c, b.count, expected: 2) }
      f.append(LayerField("pack", .hex(b)))
      return decoded("PACK", "PACK \(Hex.string(b, separator: " ")) (password accepted)", f)
    case .readSignature:
      // 32 bytes (NTAG21x, UL EV1: NXP NTAG213/215/216 datasheet §10.7); 48 on the AES and DNA
      // products.
      guard b.count == 32 || b.count == 48 else { return lengthMismatch(c, b.count, expected: 32) }
      f.append(LayerField("signature", .hex(b)))
      return decoded("READ_SIG response", "READ_SIG → \(b.count)-byte ECC signature", f)
    case .readCounter(let counter):
      guard b.count == 3 else { return lengthMismatch(c, b.count, expected: 3) }
      let value = Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16  // LSB first
      f += [LayerField("counter", .int(counter)), LayerField("counter_value", .int(value))]
      return decoded("READ_CNT response", "READ_CNT counter \(counter) = \(value)", f)
    case .checkTearingEvent(let counter):
      guard b.count == 1 else { return lengthMismatch(c, b.count, expected: 1) }
      f += [LayerField("counter", .int(counter)), LayerField("tearing_flag", .hex(b))]
      return decoded(
        "CHECK_TEARING_EVENT response", "tearing flag \(Hex.string(b)) (counter \(counter))", f)
    case .vcsl:
      guard b.count == 1 else { return lengthMismatch(c, b.count, expected: 1) }
      f.append(LayerField("vctid", .hex(b)))
      return decoded("VCSL response", "VCTID \(Hex.string(b))", f)
    case .authenticate, .authenticateContinue:
      return authAnswer(b, f)
    default:
      return .undecoded("\(b.count)-byte answer to \(c.name), which expects an ACK or nothing")
    }
  }

  /// UL C (8-byte) / UL AES (16-byte) authentication: `AF` + ek(RndB), then `00` + ek(RndA').
  private mutating func authAnswer(_ b: [UInt8], _ base: [LayerField]) -> LayerResult {
    guard let first = b.first, b.count > 1, first == 0xAF || first == 0x00 else {
      return .undecoded("AUTHENTICATE answer must start with AF or 00, got \(b.count) byte(s)")
    }
    var f = base + [LayerField("data", .hex(Array(b.dropFirst())))]
    if first == 0xAF {
      awaitingAuthContinue = true
      f.append(LayerField("part", .int(1)))
      return decoded("AUTHENTICATE response", "AUTHENTICATE → ek(RndB), \(b.count - 1) bytes", f)
    }
    f += [LayerField("part", .int(2)), LayerField("authenticated", .bool(true))]
    return decoded(
      "AUTHENTICATE response", "AUTHENTICATE → authenticated, ek(RndA'), \(b.count - 1) bytes", f)
  }

  private func lengthMismatch(_ c: Type2Command, _ got: Int, expected: Int) -> LayerResult {
    .undecoded("\(c.name) answer has \(got) byte(s), expected \(expected)")
  }

  private func decoded(_ name: String, _ summary: String, _ fields: [LayerField]) -> LayerResult {
    LayerResult(decode: LayerDecode(.type2, name, summary, fields))
  }
}
