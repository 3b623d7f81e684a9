/// MIFARE Classic: plaintext commands before authentication, then Crypto1 ciphertext.
///
/// Before authentication the layer decodes AUTH key A `60` / key B `61` + block, READ `30`,
/// WRITE `A0` (+ 16-byte data frame after the ACK), DECREMENT `C0`, INCREMENT `C1`,
/// RESTORE `C2` (+ 4-byte value frame after the ACK), TRANSFER `B0`, HALT `50 00`, the 4-bit
/// ACK/NAK, and the gen1a backdoor `40`/`43` (NXP MF1S50yyX datasheet §10; proxmark3
/// `protocols.h`). The three-pass authentication is AUTH → tag nonce nt (4 bytes, plaintext
/// for a first authentication) → reader {nr, ar} (8 bytes) → tag {at} (4 bytes). From the
/// reader's {nr, ar} on, every bit is encrypted, so `context.encrypted` is set when nt
/// arrives and everything after {at} in this activation decodes as `ciphertext` ("encrypted
/// (Crypto1)"), never as commands: without the key the opcodes cannot be read.
///
/// Reader chips (PN53x, ACR122) that run the protocol themselves take whole commands — AUTH
/// with key and UID, WRITE with its 16 bytes — and answer an empty frame on success; those
/// are decoded too (`chipCommand`), and nothing after them is ciphertext.
///
/// Decode names: `AUTH key A`, `AUTH key B`, `AUTH (nt)`, `AUTH (nr, ar)`, `AUTH (at)`,
/// `READ`, `READ response`, `WRITE`, `WRITE data`, `INCREMENT`, `DECREMENT`, `RESTORE`,
/// `<op> value`, `TRANSFER`, `HALT`, `ACK`, `NAK`, `done`, `magic WUPC1`, `magic WUPC2`,
/// `ciphertext`. Field keys: `block`, `sector`, `key` (`A`/`B`), `nt`, `nr`, `ar`, `at`,
/// `data`, `value`, `command`, `ack`, `nak_code`, `meaning`, `length`, `nested` (true on the
/// encrypted nt of a nested authentication), `cut` (true on an nt, {nr}{ar} or {at} the
/// capture cut short),
/// `nt_not_captured` (true on the {nr}{ar} of an AUTH whose nt the capture lacks: the reader
/// answers only a nonce it received), `value_operand` (true on an encrypted frame laid
/// out as a value operation's operand, which the tag answers only on error: no answer is
/// expected; MF1S50yyX §12.6).
public struct MIFAREClassicLayer: ProtocolLayer {
  /// The protocol this layer decodes.
  public static let protocolID = ProtocolID.mifareClassic

  private enum Phase: Equatable {
    case plain
    case awaitingNonce
    /// The tag's answer to AUTH was a nonce the sniffer cut short (fewer than 4 bytes).
    case nonceCut
    case awaitingReaderAnswer
    case awaitingTagAnswer
    case encrypted
  }

  private enum Command: Equatable {
    case auth(key: String, block: Int)
    case read(block: Int)
    case write(block: Int)
    case writeData(block: Int)
    case value(op: String, block: Int)
    case valueData(op: String, block: Int)
    case transfer(block: Int)
    case other(String)
    /// A command a reader chip carries out whole (authentication, two-step WRITE).
    case byChip(String)
  }

  private var phase = Phase.plain
  private var pending: Command?
  private var awaitingWriteData: Int?
  private var awaitingValue: (op: String, block: Int)?
  /// True when the last encrypted frame was a reader command of 4 bytes (2 + CRC): a 4-byte
  /// answer to it is a nested authentication's nonce.
  private var lastEncryptedReaderCommand = false
  /// True when the last encrypted frame was a tag's 4-bit answer to such a 4-byte command (a
  /// 1-byte frame whose bit count the source did not keep, as in pcap, counts: Classic answers
  /// are 4 bits, 4 or 18 bytes, MF1S50yyX datasheet §12): a 6-byte reader frame next has the
  /// layout of a value operation's operand (part 2).
  private var shortCommandAnswered = false
  /// Blocks of the product the SAK names (1K: 64, nfc-facts §1.4), nil when not known.
  private var blockCount: Int?

  /// An idle layer.
  public init() {}

  /// Decodes one frame payload (CRC removed when plaintext).
  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    if unit.direction == .event { return .undecoded("capture event") }
    blockCount = context.sak.flatMap(Self.blockCount(sak:))
    // A reader's 7-bit short frame (gen1a `40`) is never ciphertext, which is whole bytes.
    let shortFrame = unit.direction == .reader && unit.bits == 7
    if !shortFrame,
      context.encrypted || phase == .awaitingReaderAnswer || phase == .awaitingTagAnswer
    {
      return decodeEncrypted(unit)
    }
    switch unit.direction {
    case .reader: return decodeReader(unit.bytes, bits: unit.bits)
    default: return decodeTag(unit, context: &context)
    }
  }

  /// Back to plaintext (new activation).
  public mutating func reset() {
    phase = .plain
    pending = nil
    awaitingWriteData = nil
    awaitingValue = nil
    lastEncryptedReaderCommand = false
    shortCommandAnswered = false
  }

  /// The most blocks a tag answering SAK `sak` can have (nfc-facts §1.4; NXP MF1S50yyX /
  /// MF1S70yyX memory organisation): Mini 20 (09), 1K 64 (88, Infineon), 2K 128 (19), 4K 256
  /// (18); SAK 08 is a 1K (64) or a MIFARE Plus 2K in SL1 (128), so 128. Nil for other SAKs.
  public static func blockCount(sak: UInt8) -> Int? {
    switch sak {
    case 0x09: return 20
    case 0x88: return 64
    case 0x08, 0x19: return 128
    case 0x18: return 256
    default: return nil
    }
  }

  /// MIFARE Classic 1K/4K sector of `block`: 4 blocks per sector below block 128, 16 above.
  public static func sector(ofBlock block: Int) -> Int {
    block < 128 ? block / 4 : 32 + (block - 128) / 16
  }

  // MARK: - Encrypted

  private mutating func decodeEncrypted(_ unit: LayerUnit) -> LayerResult {
    let b = unit.bytes
    if unit.direction == .reader, b.count == 8,
      [.awaitingReaderAnswer, .awaitingNonce, .nonceCut].contains(phase)
    {
      return readerAnswer(b)
    }
    if phase == .awaitingReaderAnswer, unit.direction == .reader, Self.isCut(unit, of: 8),
      b.count != 4, b.count != 6
    {
      // Encrypted reader commands have 4, 6 or 18 bytes (MF1S50yyX §12): shorter than 8 and
      // none of those is {nr}{ar} cut short by the sniffer.
      phase = .awaitingTagAnswer
      return decoded(
        "AUTH (nr, ar)",
        "AUTH reader nonce nr + answer ar (encrypted), cut short: \(b.count) of its 8 bytes "
          + "captured", [LayerField("data", .hex(b)), LayerField("cut", .bool(true))])
    }
    if phase == .awaitingTagAnswer, unit.direction == .tag, b.count == 4 {
      phase = .encrypted
      lastEncryptedReaderCommand = false
      return decoded("AUTH (at)", "AUTH tag answer at (encrypted)", [LayerField("at", .hex(b))])
    }
    if phase == .awaitingTagAnswer, unit.direction == .tag, Self.isCut(unit, of: 4) {
      // The tag sends {at} only when the reader's answer matched its key (MF1S50yyX §10.3).
      phase = .encrypted
      lastEncryptedReaderCommand = false
      return decoded(
        "AUTH (at)",
        "AUTH tag answer at (encrypted), cut short: \(b.count) of its 4 bytes captured",
        [LayerField("at", .hex(b)), LayerField("cut", .bool(true))])
    }
    // A nested authentication (an AUTH sent encrypted in an authenticated session): the only
    // encrypted command of 2 bytes + CRC a tag answers with 4 whole bytes (no CRC) is AUTH,
    // whose answer is the tag nonce nt, encrypted (READ answers 18 bytes, WRITE and the
    // value operations a 4-bit ACK; NXP MF1S50yyX §10.3, proxmark3 `mf_nonce_brute`).
    if phase == .encrypted, unit.direction == .tag, b.count == 4, unit.bits == nil,
      lastEncryptedReaderCommand
    {
      phase = .awaitingReaderAnswer
      lastEncryptedReaderCommand = false
      return decoded(
        "AUTH (nt)", "AUTH tag nonce nt (encrypted: a nested authentication)",
        [LayerField("nt", .hex(b)), LayerField("nested", .bool(true))])
    }
    let operand =
      phase == .encrypted && unit.direction == .reader && b.count == 6
      && shortCommandAnswered
    shortCommandAnswered =
      unit.direction == .tag && lastEncryptedReaderCommand && b.count == 1
      && (unit.bits ?? 4) == 4
    phase = .encrypted
    lastEncryptedReaderCommand = unit.direction == .reader && b.count == 4
    let fields = [LayerField("data", .hex(b)), LayerField("length", .int(b.count))]
    guard operand else { return decoded("ciphertext", "encrypted (Crypto1)", fields) }
    return valueOperand(fields)
  }

  /// The reader's {nr}{ar}. After an AUTH with no nonce nt captured, or one cut short, the
  /// lower layer hands it on encrypted only when it is 8 bytes without a valid CRC_A: a reader
  /// sends {nr}{ar} only on receiving nt (NXP MF1S50yyX datasheet §10.3, three-pass
  /// authentication), so nt came and the capture missed (`nt_not_captured`) or cut it.
  private mutating func readerAnswer(_ b: [UInt8]) -> LayerResult {
    var summary = "AUTH reader nonce nr + answer ar (encrypted)"
    var fields = [
      LayerField("nr", .hex(Array(b[0..<4]))), LayerField("ar", .hex(Array(b[4..<8]))),
    ]
    if phase == .awaitingNonce {
      summary += "; the tag's nonce nt, which the reader answers, is not in the capture"
      fields.append(LayerField("nt_not_captured", .bool(true)))
    } else if phase == .nonceCut {
      summary += "; the capture has the tag's nonce nt cut short"
    }
    phase = .awaitingTagAnswer
    return decoded("AUTH (nr, ar)", summary, fields)
  }

  /// An encrypted 6-byte reader frame right after the tag's 4-bit answer to an encrypted
  /// 4-byte command: only INCREMENT/DECREMENT/RESTORE have that layout (command 2 + CRC, ACK,
  /// then the 4-byte operand + CRC; WRITE's part 2 is 18 bytes). The tag answers the operand
  /// only to refuse it (NXP MF1S50yyX datasheet §12.6): its silence is no missing answer.
  private func valueOperand(_ fields: [LayerField]) -> LayerResult {
    var result = decoded(
      "ciphertext",
      "encrypted (Crypto1): by its layout a value operation's operand, answered only on error",
      fields + [LayerField("value_operand", .bool(true))])
    result.expectsResponse = false
    return result
  }

  // MARK: - Plaintext reader commands

  private mutating func decodeReader(_ b: [UInt8], bits: Int?) -> LayerResult {
    phase = .plain  // an AUTH the tag did not answer is over once the reader moves on
    if let block = awaitingWriteData, b.count == 16 {
      clear()
      pending = .writeData(block: block)
      let fields = blockFields(block) + [LayerField("data", .hex(b))]
      return decoded("WRITE data", "WRITE block \(block) ← \(Hex.string(b))", fields)
    }
    if let (op, block) = awaitingValue, b.count == 4 {
      clear()
      pending = .valueData(op: op, block: block)
      let value = Int(
        Int32(
          bitPattern: UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24))
      let fields = blockFields(block) + [LayerField("value", .int(value))]
      // Part 2 is answered only by a NAK on error (NXP MF1S50yyX datasheet §12.6).
      var result = decoded("\(op) value", "\(op) block \(block) by \(value)", fields)
      result.expectsResponse = false
      return result
    }
    clear()
    // The gen1a wake-ups, handed on in 7 bits by the ISO 14443-3 layer (which alone tells a
    // whole-byte `43` after `40` from a frame whose CRC is missing).
    if b.count == 1, bits == 7, b[0] == 0x40 || b[0] == 0x43 {
      let name = b[0] == 0x40 ? "magic WUPC1" : "magic WUPC2"
      pending = .other(name)
      return decoded(name, "\(name) (gen1a backdoor)", [])
    }
    if let chip = chipCommand(b) { return chip }
    guard b.count == 2, let op = b.first else {
      let opcode = b.first.map { "0x" + Hex.string([$0]) } ?? "(empty)"
      return .undecoded("unknown MIFARE Classic command \(opcode) (\(b.count) bytes)")
    }
    return command(op, Int(b[1]))
  }

  private mutating func command(_ op: UInt8, _ block: Int) -> LayerResult {
    let f = blockFields(block)
    switch op {
    case 0x60, 0x61:
      let key = op == 0x60 ? "A" : "B"
      pending = .auth(key: key, block: block)
      phase = .awaitingNonce
      return decoded(
        "AUTH key \(key)", "AUTH key \(key) block \(block) \(blockPlace(block))",
        f + [LayerField("key", .string(key))])
    case 0x30:
      pending = .read(block: block)
      return decoded("READ", "READ block \(block)", f)
    case 0xA0:
      pending = .write(block: block)
      return decoded("WRITE", "WRITE block \(block)", f)
    case 0xC0, 0xC1, 0xC2:
      let name = ["DECREMENT", "INCREMENT", "RESTORE"][Int(op - 0xC0)]
      pending = .value(op: name, block: block)
      return decoded(name, "\(name) block \(block)", f)
    case 0xB0:
      pending = .transfer(block: block)
      return decoded("TRANSFER", "TRANSFER to block \(block)", f)
    case 0x50 where block == 0:
      pending = .other("HALT")
      return decoded("HALT", "HALT", [])
    default:
      return .undecoded("unknown MIFARE Classic command 0x\(Hex.string([op]))")
    }
  }

  /// Commands as a host gives them to a reader chip that runs the MIFARE protocol itself
  /// (PN533 user manual §8.4.8, InDataExchange; ACR122 and libnfc use the same forms): AUTH
  /// `60`/`61` block key(6) UID(4), WRITE `A0` block data(16), DECREMENT/INCREMENT/RESTORE
  /// `C0`–`C2` block value(4). The chip does the three-pass authentication, the Crypto1
  /// encryption and the two-step WRITE, and answers an empty frame when all went well; what
  /// follows stays plaintext to the host.
  private mutating func chipCommand(_ b: [UInt8]) -> LayerResult? {
    guard b.count >= 6, let op = b.first else { return nil }
    let block = Int(b[1])
    let f = blockFields(block)
    let note = "(carried out by the reader chip)"
    switch (op, b.count) {
    case (0x60, 12), (0x61, 12):
      let key = op == 0x60 ? "A" : "B"
      pending = .byChip("AUTH key \(key)")
      return decoded(
        "AUTH key \(key)",
        "AUTH key \(key) block \(block) \(blockPlace(block)) with key "
          + "\(Hex.string(b[2..<8])) \(note)",
        f + [LayerField("key", .string(key)), LayerField("uid", .hex(Array(b[8..<12])))])
    case (0xA0, 18):
      let data = Array(b[2...])
      pending = .byChip("WRITE")
      return decoded(
        "WRITE", "WRITE block \(block) ← \(Hex.string(data)) \(note)",
        f + [LayerField("data", .hex(data))])
    case (0xC0, 6), (0xC1, 6), (0xC2, 6):
      let name = ["DECREMENT", "INCREMENT", "RESTORE"][Int(op - 0xC0)]
      let value = Int(
        Int32(
          bitPattern: UInt32(b[2]) | UInt32(b[3]) << 8 | UInt32(b[4]) << 16 | UInt32(b[5]) << 24))
      pending = .byChip(name)
      return decoded(
        name, "\(name) block \(block) by \(value) \(note)", f + [LayerField("value", .int(value))])
    default:
      return nil
    }
  }

  private mutating func clear() {
    pending = nil
    awaitingWriteData = nil
    awaitingValue = nil
    lastEncryptedReaderCommand = false
  }

  /// `(sector N)`, or that the block is past the product's last block (a 1K has 0–63).
  private func blockPlace(_ block: Int) -> String {
    guard let n = blockCount, block >= n else { return "(sector \(Self.sector(ofBlock: block)))" }
    return "(past block \(n - 1), the last a tag with this SAK can have)"
  }

  private func blockFields(_ block: Int) -> [LayerField] {
    [LayerField("block", .int(block)), LayerField("sector", .int(Self.sector(ofBlock: block)))]
  }

  // MARK: - Plaintext tag answers

  private mutating func decodeTag(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    let b = unit.bytes
    let command = pending
    pending = nil
    if phase == .awaitingNonce, b.count == 4 {
      // The exchange has started: the reader's {nr, ar} and all that follows is encrypted.
      phase = .awaitingReaderAnswer
      context.encrypted = true
      return decoded("AUTH (nt)", "AUTH tag nonce nt \(Hex.string(b))", [LayerField("nt", .hex(b))])
    }
    if phase == .awaitingNonce, Self.isCutNonce(unit) {
      phase = .nonceCut
      return decoded(
        "AUTH (nt)",
        "AUTH tag nonce nt cut short: \(b.count) of its 4 bytes captured (\(Hex.string(b)))",
        [LayerField("nt", .hex(b)), LayerField("cut", .bool(true))])
    }
    phase = .plain
    if unit.readerFailure {
      return LayerResult(
        decode: ReaderFailure.decode(.mifareClassic, command: command.map(Self.name)))
    }
    if unit.readerDamaged {
      return LayerResult(
        decode: ReaderFailure.damaged(
          .mifareClassic, command: command.map(Self.name), hasBytes: !b.isEmpty))
    }
    if b.isEmpty, case .byChip(let name) = command {
      return decoded(
        "done", "\(name) done (the reader chip reports success)",
        [LayerField("command", .string(name))])
    }
    if b.isEmpty, unit.readerChipACK, case .transfer(let block) = command {
      // The chip consumed the TRANSFER's 4-bit ACK and reports success (PN533 §8.4.8).
      return decoded(
        "done", "TRANSFER done (the reader chip reports success)",
        blockFields(block) + [LayerField("command", .string("TRANSFER"))])
    }
    if b.count == 1, (unit.bits ?? 4) == 4, b[0] <= 0x0F { return ackNak(b[0], command) }
    if case .read(let block) = command, b.count == 16 {
      let fields = blockFields(block) + [LayerField("data", .hex(b))]
      return decoded("READ response", "READ block \(block) → \(Hex.string(b))", fields)
    }
    return .undecoded("MIFARE Classic answer of \(b.count) byte(s) with no matching command")
  }

  /// A tag answer to AUTH of 1–3 whole bytes: the nonce nt (4 bytes, NXP MF1S50yyX datasheet
  /// §10.3) the sniffer cut short. A byte without a bit count may be a 4-bit NAK: not taken.
  private static func isCutNonce(_ unit: LayerUnit) -> Bool { isCut(unit, of: 4) }

  /// Fewer than `length` whole bytes, at least one; a single byte only with its 8 bits counted.
  private static func isCut(_ unit: LayerUnit, of length: Int) -> Bool {
    guard (1..<length).contains(unit.bytes.count) else { return false }
    return unit.bytes.count > 1 ? (unit.bits ?? 8) == 8 : unit.bits == 8
  }

  private mutating func ackNak(_ value: UInt8, _ command: Command?) -> LayerResult {
    var f: [LayerField] = []
    if let name = command.map(Self.name) { f.append(LayerField("command", .string(name))) }
    guard value == 0x0A else {
      let meaning = Self.nakMeaning(Int(value))
      f += [
        LayerField("ack", .bool(false)), LayerField("nak_code", .int(Int(value))),
        LayerField("meaning", .string(meaning)),
      ]
      return decoded("NAK", "NAK 0x\(String(value, radix: 16)) (\(meaning))", f)
    }
    f.append(LayerField("ack", .bool(true)))
    switch command {
    case .write(let block): awaitingWriteData = block
    case .value(let op, let block): awaitingValue = (op, block)
    default: break
    }
    return decoded("ACK", "ACK", f)
  }

  /// NAK codes (MF1S50yyX datasheet §9.3): the transfer buffer is valid for 0/1, invalid 4/5.
  static func nakMeaning(_ code: Int) -> String {
    switch code {
    case 0x0: return "invalid operation, transfer buffer valid"
    case 0x1: return "parity or CRC error, transfer buffer valid"
    case 0x4: return "invalid operation, transfer buffer invalid"
    case 0x5: return "parity or CRC error, transfer buffer invalid"
    default: return "non-standard code"
    }
  }

  private static func name(_ c: Command) -> String {
    switch c {
    case .auth(let key, _): return "AUTH key \(key)"
    case .read: return "READ"
    case .write: return "WRITE"
    case .writeData: return "WRITE data"
    case .value(let op, _): return op
    case .valueData(let op, _): return "\(op) value"
    case .transfer: return "TRANSFER"
    case .other(let name), .byChip(let name): return name
    }
  }

  private func decoded(_ name: String, _ summary: String, _ fields: [LayerField]) -> LayerResult {
    LayerResult(decode: LayerDecode(.mifareClassic, name, summary, fields))
  }
}
