/// ISO/IEC 7816-4 APDUs carried in ISO-DEP I-blocks.
///
/// Reader units are parsed as command APDUs (ISO/IEC 7816-4 §5.1) and kept pending; the next
/// tag unit is the response APDU (data + SW1SW2, §5.6) paired with it. Every APDU is handed to
/// the Type 4 layer with the same bytes. A payload that is not an APDU (a native DESFire
/// command, a truncated frame) is decoded as `not an APDU` with the reason; when it looks
/// like an attempted APDU (known INS, lengths that do not add up) a `malformed-apdu` warning
/// points at the byte offset.
///
/// Decode names: the instruction name for commands (`SELECT`, `READ BINARY`), `<name>
/// response` for responses (`response` when no command was seen), `not an APDU` otherwise.
/// Field keys: see `APDUDescription`.
public struct APDULayer: ProtocolLayer {
  /// The protocol this layer decodes.
  public static let protocolID = ProtocolID.iso7816

  /// The command waiting for its response.
  private var pending: CommandAPDU?
  /// The command the last response answered.
  private var answered: CommandAPDU?
  /// Whether the last reader unit was an APDU; nil before any reader unit.
  private var lastReaderWasAPDU: Bool?
  /// The last reader unit was meant as an APDU but is malformed (lengths, CLA FF): a 2-byte
  /// answer with SW1 6X/9X is the card's status word refusing it (ISO/IEC 7816-4 §5.1, e.g.
  /// 6700, 6E00).
  private var lastReaderMalformedAPDU = false
  /// A MIFARE Plus native command waits for its answer / the last answer was one's.
  private var nativePending = false
  private var nativeAnswered = false
  /// The DESFire native command waiting for its answer / the last one answered (names).
  private var desfirePending: String?
  private var desfireAnswered: String?
  /// The tag answered a native DESFire command with a DESFire status: the link speaks the
  /// native protocol until the next activation (`DESFireNative`).
  private var desfireLink = false
  /// The last reader unit parsed as an APDU but starts with a DESFire command code (`5A 01 00
  /// 00`: SelectApplication, or a case 1 APDU): its answer tells (`DESFireNative.isNativeAnswer`).
  private var desfireCandidate: String?
  /// The pending native command as an APDU, when it also parses as one (`0C B0 00 00 0F`:
  /// CREDIT, or a READ BINARY with secure messaging): an answer ending in a status word and
  /// without a DESFire status first answers the APDU.
  private var desfireAsAPDU: CommandAPDU?
  /// Short command and response APDUs repeat with every exchange (see `DecodeCache`).
  private var cache = DecodeCache<ShortBytesKey>()

  /// An idle layer.
  public init() {}

  /// Decodes one ISO-DEP payload (INF field, reassembled when chained).
  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    if context.mifarePlus {
      if unit.direction == .reader, let code = unit.bytes.first,
        MIFAREPlusNative.commandName(code) != nil
      {
        pending = nil
        answered = nil
        lastReaderWasAPDU = false
        lastReaderMalformedAPDU = false
        nativePending = true
        return LayerResult(decode: MIFAREPlusNative.command(unit.bytes))
      }
      if unit.direction == .tag, nativePending || (unit.retransmission && nativeAnswered) {
        nativePending = false
        nativeAnswered = true
        return LayerResult(decode: MIFAREPlusNative.answer(unit.bytes))
      }
    }
    if let result = desfire(unit) { return result }
    if unit.direction == .reader { nativePending = false }
    nativeAnswered = false
    switch unit.direction {
    case .reader: return decodeCommand(unit)
    case .tag: return decodeResponse(unit)
    case .event: return .undecoded("not an APDU: capture event")
    }
  }

  /// Forgets the pending command.
  public mutating func reset() {
    pending = nil
    answered = nil
    lastReaderWasAPDU = nil
    lastReaderMalformedAPDU = false
    nativePending = false
    nativeAnswered = false
    desfirePending = nil
    desfireAnswered = nil
    desfireLink = false
    desfireCandidate = nil
    desfireAsAPDU = nil
  }

  /// A MIFARE DESFire native command or its answer (`DESFireNative`); nil for anything else.
  private mutating func desfire(_ unit: LayerUnit) -> LayerResult? {
    switch unit.direction {
    case .reader:
      desfireAnswered = nil
      desfirePending = nil
      desfireCandidate = nil
      desfireAsAPDU = nil
      guard let code = unit.bytes.first, let name = DESFireNative.commandName(code) else {
        return nil
      }
      let apdu = try? CommandAPDU(parsing: unit.bytes)
      guard desfireLink || apdu == nil else {
        desfireCandidate = "DESFire " + name
        return nil
      }
      desfireAsAPDU = apdu
      pending = nil
      answered = nil
      lastReaderWasAPDU = false
      lastReaderMalformedAPDU = false
      desfirePending = "DESFire " + name
      return LayerResult(decode: DESFireNative.command(unit.bytes))
    case .tag:
      var command = desfirePending ?? (unit.retransmission ? desfireAnswered : nil)
      desfirePending = nil
      if command == nil, let candidate = desfireCandidate,
        DESFireNative.isNativeAnswer(unit.bytes)
      {
        // The command read as an APDU was native: its answer is a status byte, no SW1SW2.
        command = candidate
        pending = nil
        answered = nil
      }
      desfireCandidate = nil
      let apdu = desfireAsAPDU
      desfireAsAPDU = nil
      if command != nil, let apdu, !DESFireNative.isNativeAnswer(unit.bytes) {
        // Not a native answer: the command was the APDU its bytes also are.
        pending = apdu
        lastReaderWasAPDU = true
        return nil
      }
      guard let command, let status = unit.bytes.first, DESFireNative.isStatus(status) else {
        return nil
      }
      desfireLink = true
      desfireAnswered = command
      return LayerResult(decode: DESFireNative.answer(unit.bytes, command: command))
    case .event:
      return nil
    }
  }

  private mutating func decodeCommand(_ unit: LayerUnit) -> LayerResult {
    pending = nil
    let command: CommandAPDU
    do {
      command = try CommandAPDU(parsing: unit.bytes)
    } catch {
      if unit.cutByCapture, unit.bytes.count >= 4 {
        // The capture kept the command's first bytes only: its header, not a malformed APDU.
        lastReaderWasAPDU = nil
        lastReaderMalformedAPDU = false
        let b = unit.bytes
        let name = APDUInstruction.name(cla: b[0], ins: b[1])
        return LayerResult(
          decode: LayerDecode(
            .iso7816, name,
            "\(name) P1 \(Hex.string([b[2]])) P2 \(Hex.string([b[3]])) (cut by the capture after "
              + "\(b.count) bytes)",
            [
              LayerField("cla", .hex([b[0]])), LayerField("ins", .hex([b[1]])),
              LayerField("p1", .hex([b[2]])), LayerField("p2", .hex([b[3]])),
              LayerField("cut", .bool(true)),
            ]))
      }
      lastReaderWasAPDU = false
      lastReaderMalformedAPDU = looksAttempted(unit)
      return notAnAPDU(
        unit, error.message, offset: error.offset, attempted: lastReaderMalformedAPDU)
    }
    lastReaderMalformedAPDU = command.cla == 0xFF
    guard command.cla != 0xFF else {
      lastReaderWasAPDU = false
      return notAnAPDU(
        unit, "CLA ff is invalid (ISO/IEC 7816-4 §5.4.1)", offset: 0, attempted: false)
    }
    lastReaderWasAPDU = true
    pending = command
    var findings: [Finding] = []
    // INS 6X and 9X are invalid in the interindustry class (ISO/IEC 7816-4 §5.1): cards answer
    // them 6D00. Proprietary classes (CLA b8 set, e.g. DESFire's 90 wrapping) use them freely.
    if command.cla & 0x80 == 0, command.insIsStatusByte {
      findings.append(
        Finding(
          "apdu-invalid-ins", .warning,
          "INS \(Hex.string([command.ins])) is invalid with an interindustry CLA: ISO/IEC 7816-4 "
            + "§5.1 reserves INS 6X and 9X (they are status word values)",
          frames: [unit.frameIndex], offset: 1))
    }
    if command.leFieldLength == 3 {
      findings.append(
        Finding(
          "apdu-three-byte-le", .info,
          "case 4E APDU with a 3-byte Le (00 Le1 Le2); ISO/IEC 7816-4 codes it in 2 bytes",
          frames: [unit.frameIndex], offset: unit.bytes.count - 3))
    }
    let decode = cache.decode(kind: 1, bytes: unit.bytes) { APDUDescription.command(command) }
    return LayerResult(decode: decode, handoff: (.type4, unit), findings: findings)
  }

  private mutating func decodeResponse(_ unit: LayerUnit) -> LayerResult {
    // A retransmitted answer (after R(NAK)) answers the command the first copy answered.
    let command =
      unit.answersIncompleteCommand ? nil : pending ?? (unit.retransmission ? answered : nil)
    pending = nil
    answered = command
    // A card refusing a malformed command answers a status word alone (6700, 6E00…); longer
    // answers after a non-APDU are a native protocol's (DESFire's AF + ciphertext).
    let refusal =
      lastReaderMalformedAPDU && unit.bytes.count == 2
      && (unit.bytes[0] >> 4 == 0x6 || unit.bytes[0] >> 4 == 0x9)
    // The capture kept only the answer's first bytes: its status word is not among them.
    if unit.cutByCapture {
      let name = command.map { APDUInstruction.name(cla: $0.cla, ins: $0.ins) + " response" }
      return LayerResult(
        decode: LayerDecode(
          .iso7816, name ?? "response",
          "answer cut by the capture after \(unit.bytes.count) byte(s): no status word",
          [LayerField("data_length", .int(unit.bytes.count)), LayerField("cut", .bool(true))]))
    }
    if lastReaderWasAPDU == false && command == nil && !refusal {
      return notAnAPDU(
        unit, "answer to a command that was not an APDU", offset: nil, attempted: false)
    }
    guard let response = ResponseAPDU(bytes: unit.bytes) else {
      return notAnAPDU(
        unit, "response APDU needs at least SW1SW2 (2 bytes), got \(unit.bytes.count)",
        offset: unit.bytes.count, attempted: command != nil)
    }
    let name = command.map { APDUInstruction.name(cla: $0.cla, ins: $0.ins) }
    // The response's decode depends on its bytes and the command's CLA INS only.
    let kind = command.map { 0x0100_0000 | UInt32($0.cla) << 8 | UInt32($0.ins) } ?? 2
    let decode = cache.decode(kind: kind, bytes: unit.bytes) {
      APDUDescription.response(response, command: name)
    }
    return LayerResult(decode: decode, handoff: (.type4, unit))
  }

  /// A reader payload of at least 5 bytes with a valid CLA and a known INS whose lengths do
  /// not add up: someone meant to send an APDU.
  private func looksAttempted(_ unit: LayerUnit) -> Bool {
    let b = unit.bytes
    guard b.count >= 5 else { return false }
    let cla = b[0]
    let validCLA = cla <= 0x1F || (0x40...0xFE).contains(cla)
    return validCLA && APDUInstruction.isKnown(cla: cla, ins: b[1])
  }

  private func notAnAPDU(_ unit: LayerUnit, _ reason: String, offset: Int?, attempted: Bool)
    -> LayerResult
  {
    var fields = [LayerField("reason", .string(reason))]
    if let offset { fields.append(LayerField("error_offset", .int(offset))) }
    let summary = "not an APDU: " + reason
    let decode = LayerDecode(.iso7816, "not an APDU", summary, fields)
    var findings: [Finding] = []
    if attempted {
      let position = offset.map { " at byte offset \($0)" } ?? ""
      findings.append(
        Finding(
          "malformed-apdu", .warning, "malformed APDU\(position): \(reason)",
          frames: [unit.frameIndex], offset: offset))
    }
    return LayerResult(decode: decode, findings: findings, reason: reason)
  }
}
