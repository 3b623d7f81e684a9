/// Turns PN53x commands and responses (TFI D4/D5, PN533 user manual §8) into the frames that
/// went over the air, without inventing any:
///
/// - InDataExchange (40/41) and InCommunicateThru (42/43): the command's data (after the Tg
///   byte for 40) is a reader frame; a response with status 0 carries the tag frame. With a
///   target listed with an ATS, the chip wraps InDataExchange data in ISO-DEP blocks (block
///   numbers, chaining, WTX) that the host never sees: those frames are flagged
///   `pn53x-iso-dep-payload` and carry the APDU. Parts chained with the MI bit (Tg b6 from the
///   host, status b6 from the chip) are joined into one frame. A
///   status error (low 6 bits ≠ 0, e.g. 0x01 timeout) gives no tag frame and a warning.
///   A successful exchange with no data (a Type 2 WRITE, whose 4-bit ACK the chip consumes)
///   gives an empty tag frame flagged `pn53x-empty-answer`. To a Type 2 target (SAK 00) the
///   one-frame MIFARE write `A0 page data(16)` is the COMPATIBILITY_WRITE the chip runs in
///   both steps itself (PN533 user manual §8.4.8, InDataExchange "MIFARE Write 16 bytes"):
///   it becomes part 1 `A0 page`, the ACK the chip consumed, part 2 (the 16 bytes) and its
///   ACK, once the chip reports success. The Tg byte names the target the exchange goes to:
///   when the frames last showed another listed target's activation, the addressed target's
///   is shown again first (flagged `pn53x-target-selected`), so that the exchange belongs to
///   its UID, ATQA and SAK (InDataExchange Tg, the logical number of the relevant target).
/// - InListPassiveTarget (4A/4B) at 106 kbit/s type A, and InAutoPoll (60/61) type A targets: the REQA/anticollision exchange is
///   done by the chip and not logged, so only what the tag answered is emitted — ATQA (in air
///   order: the PN53x gives SENS_RES MSB first), SAK and the ATS when present — as tag
///   frames flagged `pn53x-target-info` (the ATQA frame also carries `uid=<hex>`). With
///   several targets (NbTg 2), the first one listed is the activation; each further one is
///   one tag frame holding its target data as the chip reported it, flagged
///   `pn53x-target-info` and `pn53x-listed-target`: shown, not an activation, until an
///   InDataExchange addresses it.
/// - RFConfiguration item 01 (RF field) → field-on/field-off events.
/// - WriteRegister (08) is followed for CIU_BitFraming (0x633D TxLastBits: 7-bit frames
///   such as a magic wake-up), CIU_TxMode/RxMode (0x6302/0x6303 bit 0x80: CRC added by the
///   chip or not).
///
/// CRC: the chip adds and strips CRC_A, so frames get `.notCaptured` unless the host turned
/// the chip's CRC off (then `.unchecked`: the host's bytes include any CRC it computed).
struct PN53xInterpreter: Sendable {
  /// Warnings that are notes on what the log says, not records rejected
  /// (`TraceWarning.rejectsRecord`): a poll that found no target (InListPassiveTarget,
  /// InAutoPoll), and an answer logged twice.
  static let noteMessages = [
    "InListPassiveTarget: no target found", "InAutoPoll: no target found",
    duplicateResponseMessage,
  ]
  /// Said once: older libnfc drivers log a response twice (the receive buffer with the ACK,
  /// then the frame), which would otherwise give every tag answer twice.
  static let duplicateResponseMessage =
    "a PN53x response logged again with no command between (older libnfc logs show each "
    + "answer twice): shown once"

  /// The last response taken, until the next command: a second copy of it is no answer.
  private var lastResponse: [UInt8]?
  private var saidDuplicate = false

  typealias Output = ReaderChipFrame

  private var pending: (code: UInt8, modulation: UInt8)?
  /// The polling request of the pending FeliCa InListPassiveTarget (BrTy 01/02): its
  /// InitiatorData, the SENSF_REQ payload without LEN (PN533 user manual §8.4.5).
  private var felicaPoll: [UInt8]?
  private var technology: Technology = .unknown
  /// The targets (Tg numbers) listed with an ATS: the chip frames their InDataExchange data
  /// in ISO-DEP blocks itself (PN533 user manual §8.4.8).
  private var isoDEPTargets: Set<UInt8> = []
  /// SetParameters fAutomaticRATS (flags bit 4; on by default): the chip sends RATS and lists
  /// the ATS after the SAK of an ISO 14443-4 target.
  private var automaticRATS = true
  /// The Tg of the pending InDataExchange.
  private var exchangeTarget: UInt8 = 1
  /// A type A target of the last InListPassiveTarget / InAutoPoll answer: its activation
  /// frames (ATQA, SAK, ATS) and its SAK.
  private struct ListedTarget: Sendable {
    var activation: [Output]
    var sak: UInt8
  }
  /// The targets of the last listing by Tg (PN533 user manual §8.4.5: Tg, the logical number
  /// the chip gave the target), forgotten at a new listing and when the field goes off.
  private var listed: [UInt8: ListedTarget] = [:]
  /// The Tg whose activation the frames showed last: the target exchanges are credited to.
  private var shownTarget: UInt8?
  /// COMPATIBILITY_WRITE part 2 (16 bytes) of the pending InDataExchange to a Type 2 target,
  /// shown once the chip reports both steps done.
  private var compatibilityData: [UInt8]?
  /// InDataExchange chaining with the MI bit (Tg b6 from the host, status b6 from the chip):
  /// the parts of a command or an answer the chip splits over several exchanges.
  private var hostChain: [UInt8]?
  private var tagChain: [UInt8]?
  /// The pending exchange sent an intermediate part: its empty answer is no tag frame.
  private var answerIsChainAck = false
  private var txLastBits = 0
  private var txCRC = true
  private var rxCRC = true

  /// Whether a command was sent that no response has answered yet (a PN53x answers every
  /// command, PN533 user manual §6.2.1: a log ending here was cut).
  var awaitingResponse: Bool { pending != nil }

  /// The host aborted the command in progress (an ACK frame), or the reader answered it with
  /// its own status word: no PN53x response will come for it.
  mutating func abort() {
    pending = nil
    compatibilityData = nil
  }

  /// Frames for a host→chip frame `D4 CC …`, and warnings.
  mutating func command(_ frame: [UInt8]) -> ([Output], [String]) {
    guard frame.count >= 2, frame[0] == 0xD4 else {
      return ([], ["not a PN53x command (TFI D4 expected)"])
    }
    let code = frame[1]
    let params = Array(frame.dropFirst(2))
    lastResponse = nil
    pending = (code, params.count >= 2 ? params[1] : 0)
    compatibilityData = nil
    switch code {
    case 0x40:
      guard let tg = params.first else { return ([], ["InDataExchange without a Tg byte"]) }
      var warnings: [String] = []
      let frames = dataExchange(tg: tg, Array(params.dropFirst()), &warnings)
      return (frames, warnings)
    case 0x12:
      if let flags = params.first { automaticRATS = flags & 0x10 != 0 }
      return ([], [])
    case 0x42:
      return ([readerFrame(params, thru: true)], [])
    case 0x4A:
      if params.count >= 2 { technology = Self.technology(modulation: params[1]) }
      felicaPoll = technology == .nfcF ? Array(params.dropFirst(2)) : nil
      forgetTargets()
      return ([], [])
    case 0x60:
      forgetTargets()
      return ([], [])
    case 0x08:
      writeRegisters(params)
      return ([], [])
    case 0x32:
      guard params.count >= 2, params[0] == 0x01 else { return ([], []) }
      let on = params[1] & 0x01 != 0
      if !on { forgetTargets() }
      return ([.field(on ? .fieldOn : .fieldOff, flag: ReaderChipFlag.rfConfiguration)], [])
    default:
      return ([], [])
    }
  }

  /// Frames for a chip→host frame `D5 CC+1 …`, and warnings.
  mutating func response(_ frame: [UInt8]) -> ([Output], [String]) {
    if frame.first == 0x7F {
      pending = nil  // the error frame is the command's answer
      return ([], ["PN53x error frame: application-level error (syntax error in the command)"])
    }
    guard frame.count >= 2, frame[0] == 0xD5 else {
      return ([], ["not a PN53x response (TFI D5 expected)"])
    }
    if pending == nil, frame == lastResponse {
      defer { saidDuplicate = true }
      return ([], saidDuplicate ? [] : [Self.duplicateResponseMessage])
    }
    lastResponse = frame
    let code = frame[1]
    var warnings: [String] = []
    if let pending, pending.code &+ 1 != code {
      warnings.append(
        "PN53x response \(Self.hex(code)) does not answer command \(Self.hex(pending.code))")
    }
    let modulation = pending?.modulation ?? 0
    pending = nil
    let body = Array(frame.dropFirst(2))
    switch code {
    case 0x41, 0x43:
      let (outputs, more) = exchangeAnswer(
        body, name: code == 0x41 ? "InDataExchange" : "InCommunicateThru")
      return (outputs, warnings + more)
    case 0x4B:
      let (outputs, more) = targets(body, modulation: modulation)
      return (outputs, warnings + more)
    case 0x61:
      let (outputs, more) = autoPoll(body)
      return (outputs, warnings + more)
    default:
      return ([], warnings)
    }
  }

  // MARK: - Exchanges

  private func readerFrame(_ data: [UInt8], thru: Bool) -> Output {
    let bits = thru && txLastBits != 0 && data.count == 1 ? txLastBits : nil
    return Output(
      direction: .reader, event: nil, data: data, bits: bits,
      crc: thru && !txCRC ? .unchecked : .notCaptured, technology: technology, flags: [])
  }

  /// InDataExchange `Tg data`: the reader frame, or nothing while a chain is being assembled
  /// (a part with MI set, or the empty request for the next part of the tag's answer).
  private mutating func dataExchange(tg: UInt8, _ data: [UInt8], _ warnings: inout [String])
    -> [Output]
  {
    exchangeTarget = tg & 0x0F
    answerIsChainAck = false
    if tagChain != nil, data.isEmpty { return [] }  // asks for the rest of the answer
    if let unfinished = tagChain {
      warnings.append(
        "the tag's answer chained with MI was not finished (\(unfinished.count) bytes) when the "
          + "host sent a new command; not shown")
    }
    tagChain = nil
    let selection = select(exchangeTarget, &warnings)
    if tg & 0x40 != 0 {
      hostChain = (hostChain ?? []) + data
      answerIsChainAck = true
      // No APDU is longer than an extended one (65 544 bytes): a chain past it never ends.
      if let chain = hostChain, chain.count > 65_544 {
        warnings.append(
          "host data chained with MI passed \(chain.count) bytes without its last part: not "
            + "an APDU; dropped")
        hostChain = nil
      }
      return selection
    }
    let whole = (hostChain ?? []) + data
    hostChain = nil
    let isoDEP = isoDEPTargets.contains(exchangeTarget)
    // MIFARE Write 16 bytes to a Type 2 target: the chip sends part 1 and, after the tag's
    // ACK, the 16 bytes (of which an Ultralight stores the first 4, MF0ICU1 COMPATIBILITY
    // WRITE); what follows part 1 is shown when the chip reports how it went.
    if !isoDEP, whole.count == 18, whole[0] == 0xA0, listed[exchangeTarget]?.sak == 0x00 {
      compatibilityData = Array(whole[2...])
      return selection + [readerFrame([0xA0, whole[1]], thru: false)]
    }
    var frame = readerFrame(whole, thru: false)
    if isoDEP { frame.flags.append(ReaderChipFlag.isoDEPPayload) }
    return selection + [frame]
  }

  /// The activation of listed target `tg` when the frames last showed another target's
  /// (PN533 user manual §8.4.8, InDataExchange: Tg is the target the chip exchanges with),
  /// flagged `pn53x-target-selected`; nothing when it is the one shown or was not listed.
  private mutating func select(_ tg: UInt8, _ warnings: inout [String]) -> [Output] {
    guard tg != shownTarget else { return [] }
    guard let target = listed[tg] else {
      if !listed.isEmpty {
        let known = listed.keys.sorted().map(String.init).joined(separator: ", ")
        warnings.append(
          "InDataExchange addresses Tg \(tg), which the last target listing did not give (Tg "
            + "\(known)); the exchange is shown under the target shown last")
      }
      return []
    }
    shownTarget = tg
    return target.activation.map { frame in
      var frame = frame
      frame.flags.insert(ReaderChipFlag.targetSelected, at: 1)
      return frame
    }
  }

  /// A new listing or the field going off: the listed targets are gone.
  private mutating func forgetTargets() {
    isoDEPTargets = []
    listed = [:]
    shownTarget = nil
  }

  private mutating func exchangeAnswer(_ body: [UInt8], name: String) -> ([Output], [String]) {
    guard let status = body.first else { return ([], ["\(name) response without a status byte"]) }
    let error = status & 0x3F
    let part2 = name == "InDataExchange" ? compatibilityData : nil
    compatibilityData = nil
    guard error == 0 else {
      var warning = "\(name) status \(Self.hex(status)): \(Self.statusMeaning(error))"
      if part2 != nil {
        warning +=
          " (MIFARE Write 16 bytes to a Type 2 tag, run by the chip as COMPATIBILITY_WRITE: it "
          + "does not say whether part 1 or part 2 failed)"
      }
      // The tag answered and the chip received the answer damaged: a damaged answer, not
      // a silence (the command reached the tag).
      if Self.damagedAnswerErrors.contains(error) {
        var damaged = Output.data(
          .tag, [], technology: technology, flags: [ReaderChipFlag.damagedAnswer])
        damaged.crc = .bad
        return ([damaged], [warning])
      }
      // An authentication the chip ran and the card refused: a refusal, not a silence.
      guard error == 0x14 else { return ([], [warning]) }
      return (
        [.data(.tag, [], technology: technology, flags: [ReaderChipFlag.readerFailure])], [warning]
      )
    }
    var data = Array(body.dropFirst())
    var flags: [String] = []
    if name == "InDataExchange" {
      if answerIsChainAck {
        answerIsChainAck = false
        return ([], [])
      }
      if status & 0x40 != 0 {
        tagChain = (tagChain ?? []) + data
        return ([], [])
      }
      data = (tagChain ?? []) + data
      tagChain = nil
      if isoDEPTargets.contains(exchangeTarget) { flags.append(ReaderChipFlag.isoDEPPayload) }
    } else if status & 0x40 != 0 {
      flags.append(ReaderChipFlag.moreInformation)
    }
    if data.isEmpty { flags.append(ReaderChipFlag.emptyAnswer) }
    let crc: CRCStatus = name == "InCommunicateThru" && !rxCRC ? .unchecked : .notCaptured
    let frame = Output(
      direction: .tag, event: nil, data: data, bits: nil, crc: crc, technology: technology,
      flags: flags)
    guard let part2 else { return ([frame], []) }
    // Part 1's ACK, which the chip consumed before sending part 2.
    let ack = Output.data(.tag, [], technology: technology, flags: [ReaderChipFlag.emptyAnswer])
    return ([ack, readerFrame(part2, thru: false), frame], [])
  }

  /// InListPassiveTarget answer: `NbTg` then per target (106 kbit/s type A) `Tg SENS_RES(2)
  /// SEL_RES NFCIDLength NFCID1 [ATS]` (PN533 user manual §8.4.5).
  private mutating func targets(_ body: [UInt8], modulation: UInt8) -> ([Output], [String]) {
    guard let count = body.first else { return ([], ["InListPassiveTarget response is empty"]) }
    if count == 0 { return ([], [Self.noteMessages[0]]) }
    if modulation == 0x01 || modulation == 0x02 { return felicaTargets(body, count: Int(count)) }
    if modulation == 0x03 { return typeBTargets(body, count: Int(count)) }
    guard modulation == 0x00 else {
      return (
        [], ["InListPassiveTarget: target data for BrTy \(Self.hex(modulation)) not unpacked"]
      )
    }
    var outputs: [Output] = []
    var i = 1
    for _ in 0..<count {
      let (frames, end, problem) = typeATarget(body, at: i, command: "InListPassiveTarget")
      outputs += frames
      if let problem { return (outputs, [problem]) }
      guard let end else { break }
      i = end
    }
    return (outputs, [])
  }

  /// FeliCa targets (212/424 kbit/s) of an InListPassiveTarget answer: per target `Tg
  /// POL_RES` where POL_RES is the card's SENSF_RES from its LEN on (`12h`/`14h`, response code
  /// `01`, IDm, PMm, [system code]; PN533 user manual §8.4.5). The polling request is shown
  /// first (from the command's InitiatorData), then each answer, as the frames on the air
  /// without CRC-F (the chip handles it).
  private mutating func felicaTargets(_ body: [UInt8], count: Int) -> ([Output], [String]) {
    var outputs: [Output] = []
    if let poll = felicaPoll, !poll.isEmpty, poll.count < 255 {
      outputs.append(.data(.reader, [UInt8(poll.count + 1)] + poll, technology: .nfcF))
    }
    felicaPoll = nil
    var i = 1
    for _ in 0..<count {
      guard i + 2 <= body.count, Int(body[i + 1]) >= 18, i + 1 + Int(body[i + 1]) <= body.count
      else {
        return (
          outputs,
          [
            "InListPassiveTarget: FeliCa target data cut short at byte \(i) (Tg, then POL_RES: "
              + "its length (18 or 20), response code 01, IDm and PMm expected)"
          ]
        )
      }
      let len = Int(body[i + 1])
      outputs.append(.data(.tag, Array(body[(i + 1)..<(i + 1 + len)]), technology: .nfcF))
      i += 1 + len
    }
    return (outputs, [])
  }

  /// 106 kbit/s type B targets of an InListPassiveTarget answer: per target `Tg ATQB(12)
  /// ATTRIB_RES-length ATTRIB_RES` (PN533 user manual §8.4.5). The chip sent ATTRIB and runs
  /// ISO-DEP itself, as for a type A target with an ATS: its InDataExchange data are APDUs.
  /// The ATQB (50h, PUPI, application data, protocol info) is shown as the tag's answer the
  /// chip reported; the first target is the one the exchanges address.
  private mutating func typeBTargets(_ body: [UInt8], count: Int) -> ([Output], [String]) {
    var outputs: [Output] = []
    var i = 1
    for n in 0..<count {
      if i + 1 < body.count, body[i + 1] != 0x50 {
        return (
          outputs,
          [
            "InListPassiveTarget: type B target at byte \(i): its ATQB starts \(Self.hex(body[i + 1])), "
              + "not 50h (ISO/IEC 14443-3 §7.9); target data not unpacked"
          ]
        )
      }
      guard i + 14 <= body.count, i + 14 + Int(body[i + 13]) <= body.count
      else {
        return (
          outputs,
          [
            "InListPassiveTarget: type B target data cut short at byte \(i) (Tg, then the "
              + "12-byte ATQB starting 50h, the ATTRIB answer's length and the answer expected)"
          ]
        )
      }
      let tg = body[i]
      isoDEPTargets.insert(tg)
      // Only the first target's ATQB is an activation the frames show (as for type A).
      if n == 0 {
        outputs.append(
          .data(
            .tag, Array(body[(i + 1)..<(i + 13)]), technology: .nfcB,
            flags: [ReaderChipFlag.targetInfo]))
        shownTarget = tg
      }
      i += 14 + Int(body[i + 13])
    }
    return (outputs, [])
  }

  /// InAutoPoll answer (PN532 user manual §7.3.13): `NbTg` then per target `Type Len
  /// TargetData`. Type A targets (0x00 generic 106 kbit/s, 0x10 MIFARE, 0x20 ISO/IEC 14443-4)
  /// carry the same data as InListPassiveTarget's; the others are reported, not unpacked.
  private mutating func autoPoll(_ body: [UInt8]) -> ([Output], [String]) {
    guard let count = body.first else { return ([], ["InAutoPoll response is empty"]) }
    if count == 0 { return ([], [Self.noteMessages[1]]) }
    var outputs: [Output] = []
    var warnings: [String] = []
    var i = 1
    for _ in 0..<count {
      guard i + 2 <= body.count else { break }
      let (type, length) = (body[i], Int(body[i + 1]))
      let end = i + 2 + length
      guard end <= body.count else {
        warnings.append("InAutoPoll: target data shorter than its length byte")
        break
      }
      if [0x00, 0x10, 0x20].contains(type) {
        technology = .nfcA
        let (frames, _, problem) = typeATarget(
          Array(body[(i + 2)..<end]), at: 0, command: "InAutoPoll")
        outputs += frames
        if let problem { warnings.append(problem) }
      } else {
        warnings.append("InAutoPoll: target of type \(Self.hex(type)) not unpacked")
      }
      i = end
    }
    return (outputs, warnings)
  }

  /// One type A target at `i`: `Tg SENS_RES(2) SEL_RES NFCIDLength NFCID1 [ATS]`, as the
  /// ATQA, SAK and ATS tag frames; the index after it (nil when the data ends first) and a
  /// problem.
  private mutating func typeATarget(_ body: [UInt8], at i: Int, command: String) -> (
    [Output], Int?, String?
  ) {
    guard i + 5 <= body.count else {
      return (
        [], nil,
        "\(command): target data cut short (Tg, SENS_RES, SEL_RES and NFCIDLength expected, "
          + "\(max(0, body.count - i)) bytes left)"
      )
    }
    let uidLength = Int(body[i + 4])
    guard i + 5 + uidLength <= body.count else {
      return ([], nil, "\(command): target data shorter than its NFCID1 length")
    }
    let uid = body[(i + 5)..<(i + 5 + uidLength)]
    let sak = body[i + 3]
    let tg = body[i] & 0x0F
    var outputs = [
      ReaderChipFrame.targetInfo([body[i + 2], body[i + 1]], extra: ["uid=" + Hex.string(uid)]),
      ReaderChipFrame.targetInfo([sak]),
    ]
    var end = i + 5 + uidLength
    // The ATS (its first byte TL counts itself) follows when the tag is ISO-DEP (SAK b6) and
    // the chip sends RATS itself.
    if sak & 0x20 != 0, automaticRATS, end < body.count {
      let tl = Int(body[end])
      guard tl >= 1, end + tl <= body.count else {
        return (
          shown(tg, outputs, sak: sak, data: body[i..<end]), nil,
          "\(command): ATS length byte TL exceeds the data"
        )
      }
      outputs.append(ReaderChipFrame.targetInfo(Array(body[end..<(end + tl)])))
      isoDEPTargets.insert(tg)
      end += tl
    }
    return (shown(tg, outputs, sak: sak, data: body[i..<end]), end, nil)
  }

  /// Records listed target `tg` and returns what shows it: its `activation` when it is the
  /// first of the listing, else one frame of its target `data` flagged
  /// `pn53x-listed-target` (an activation the exchanges do not belong to until one
  /// addresses it).
  private mutating func shown(
    _ tg: UInt8, _ activation: [Output], sak: UInt8, data: ArraySlice<UInt8>
  ) -> [Output] {
    listed[tg] = ListedTarget(activation: activation, sak: sak)
    guard shownTarget != nil, shownTarget != tg else {
      shownTarget = tg
      return activation
    }
    return [
      .data(
        .tag, Array(data), technology: .nfcA,
        flags: [ReaderChipFlag.targetInfo, ReaderChipFlag.listedTarget])
    ]
  }

  // MARK: - Registers

  private mutating func writeRegisters(_ params: [UInt8]) {
    var i = 0
    while i + 3 <= params.count {
      let address = UInt16(params[i]) << 8 | UInt16(params[i + 1])
      let value = params[i + 2]
      switch address {
      case 0x633D: txLastBits = Int(value & 0x07)
      case 0x6302: txCRC = value & 0x80 != 0
      case 0x6303: rxCRC = value & 0x80 != 0
      default: break
      }
      i += 3
    }
  }

  // MARK: - Tables

  /// BrTy of InListPassiveTarget (PN533 user manual §8.4.5).
  private static func technology(modulation: UInt8) -> Technology {
    switch modulation {
    case 0x00, 0x04: return .nfcA  // 106 kbit/s type A; Jewel/Topaz
    case 0x01, 0x02: return .nfcF
    case 0x03, 0x06, 0x07, 0x08: return .nfcB
    default: return .unknown
    }
  }

  /// Status errors the chip reports for an answer it received damaged (PN533 user manual §7.1:
  /// CRC error 02h, parity error 03h, MIFARE framing error 05h, invalid received frame format
  /// 13h): the tag answered.
  static let damagedAnswerErrors: Set<UInt8> = [0x02, 0x03, 0x05, 0x13]

  /// PN53x status error codes (PN533 user manual §7.1 table "Error code list"; names as in
  /// libnfc `chips/pn53x-internal.h`).
  static func statusMeaning(_ code: UInt8) -> String {
    switch code {
    case 0x01: return "timeout, the tag did not answer"
    case 0x02: return "CRC error in the tag's answer"
    case 0x03: return "parity error in the tag's answer"
    case 0x04: return "erroneous bit count during anticollision/select"
    case 0x05: return "MIFARE framing error"
    case 0x06: return "abnormal bit collision"
    case 0x07: return "communication buffer too small"
    case 0x09: return "RF buffer overflow"
    case 0x0A: return "RF field not switched on in time"
    case 0x0B: return "RF protocol error"
    case 0x0D: return "overheating"
    case 0x0E: return "internal buffer overflow"
    case 0x10: return "invalid parameter"
    case 0x12: return "DEP: command not supported by the target"
    case 0x13: return "invalid received frame format"
    case 0x14: return "MIFARE authentication error"
    case 0x23: return "wrong UID check byte (BCC)"
    case 0x25: return "DEP: invalid device state"
    case 0x26: return "operation not allowed in this configuration"
    case 0x27: return "command not acceptable in the current context"
    case 0x29: return "the target was released by the initiator"
    case 0x2A: return "card ID does not match (card exchanged)"
    case 0x2B: return "the card disappeared"
    case 0x2C: return "NFCID3 mismatch"
    case 0x2D: return "over-current"
    case 0x2E: return "NAD missing in a DEP frame"
    default: return "unknown PN53x error code"
    }
  }

  static func hex(_ byte: UInt8) -> String { "0x" + Hex.string([byte]) }
}
