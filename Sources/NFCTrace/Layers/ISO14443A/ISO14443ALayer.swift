/// What the outermost layer returns for a whole frame.
public struct FrameLayerResult: Sendable {
  /// The layer's decode and handoff.
  public var result: LayerResult
  /// The frame's CRC status, resolved (never `.unchecked` for type A and B frames; frames of
  /// technologies not decoded yet keep the importer's status).
  public var crc: CRCStatus
  /// False for commands that get no answer by protocol (HLTA, Apple ECP).
  public var expectsResponse: Bool
  /// True when this frame starts a new activation (REQA/WUPA): inner layers reset.
  public var newActivation: Bool
  /// True when the inner layers reset without a new activation (type B ATTRIB: a new ISO-DEP
  /// link to the tag it selects).
  public var resetsInnerLayers = false
  /// The CID of an ISO-DEP link that a type B ATTRIB answer just opened (type A opens it with
  /// RATS/ATS inside the ISO-DEP layer).
  public var isoDEPActivation: Int?
  /// True for a frame of a source that does not say its technology whose CRC_B verifies where
  /// CRC_A does not: ISO 14443-B or ISO 15693 (both use the CRC of ISO/IEC 13239), so neither
  /// NFC-A nor NFC-F (`OtherTechnology`).
  public var crcBAlone = false
  /// True when the MIFARE Classic layer starts over without a new activation: a plaintext
  /// HLTA (the tag leaves any authentication, MF1S50yyX datasheet §10.3, and halts) or a
  /// 7-bit short frame ending Crypto1 (never ciphertext, which is whole bytes).
  public var resetsMIFAREClassic = false

  /// Creates a result.
  public init(result: LayerResult, crc: CRCStatus, expectsResponse: Bool, newActivation: Bool) {
    self.result = result
    self.crc = crc
    self.expectsResponse = expectsResponse
    self.newActivation = newActivation
  }
}

/// ISO/IEC 14443-3 type A: REQA/WUPA, ATQA, anticollision and SELECT for cascade levels 1–3,
/// SAK, HLTA, CRC_A; hands everything else to ISO-DEP (after ATS), MIFARE Classic or Type 2.
///
/// The layer remembers the pending reader command, so a tag frame is read as the answer to it
/// (ATQA after REQA/WUPA, UID part after ANTICOLLISION, SAK after SELECT, ATS after RATS), and
/// the UID parts of the cascade levels selected so far. Routing of other frames, in order:
/// ISO-DEP active → `.isoDEP`; RATS/PPS and the answer to RATS → `.isoDEP`; Crypto1 on →
/// `.mifareClassic`; MIFARE Classic AUTH (`60`/`61` + block) and its nonce, or a MIFARE Classic
/// SAK → `.mifareClassic`; an NFC-DEP frame (`F0` LEN `D4`/`D5`) after a SAK with b7 set (ISO/IEC
/// 18092) → `.nfcDEP`; otherwise `.type2`. Payloads are handed on without CRC.
/// Sources: ISO/IEC 14443-3 §6; nfc-facts §1.
public struct ISO14443ALayer: Sendable {
  /// The reader command a tag frame would answer.
  enum Pending: Sendable {
    case none, request, halt, rats, mifareAuth, inner
    case anticollision(CascadeLevel, NVB, [UInt8])
    case select(CascadeLevel, UIDPart)
  }

  /// What a frame is, decided before its CRC is resolved.
  enum Kind {
    /// REQA (`wupa` false), WUPA (true), or one of them with no bits captured (nil).
    case request(wupa: Bool?)
    case magSafe(Int)
    case shortFrame
    case ecp
    case anticollision(CascadeLevel, NVB)
    case select(CascadeLevel)
    case hlta
    case atqa
    /// A 2-byte tag frame without CRC_A answering no captured REQA/WUPA: the ATQA of a new
    /// activation whose poll the sniffer missed.
    case missedPollATQA
    case uidAnswer(CascadeLevel, NVB, [UInt8])
    /// SEL `93`/`95`/`97` with an NVB outside ISO/IEC 14443-3 §6.5.3.
    case invalidNVB(CascadeLevel, UInt8)
    case sak(CascadeLevel, UIDPart)
    case unexpected(String, carriesCRC: Bool)
    case inner(carriesCRC: Bool)

    var carriesCRC: Bool {
      switch self {
      case .select, .hlta, .ecp, .sak: return true
      case .unexpected(_, let c), .inner(let c): return c
      case .request, .magSafe, .shortFrame, .anticollision, .atqa, .missedPollATQA, .uidAnswer,
        .invalidNVB:
        return false
      }
    }
  }

  private var pending = Pending.none
  private var parts: [UIDPart] = []
  /// Set when the tag answered a MIFARE Classic AUTH with its nonce NT: every later frame of
  /// the activation is Crypto1 ciphertext (the MIFARE Classic layer may also say so).
  private var crypto1Follows = false
  /// Set by the reader's plaintext MIFARE Classic AUTH while no whole nonce nt has answered it
  /// (none captured, or one cut short): the reader's next frame tells whether nt came
  /// (`isReaderAnswerToUncapturedNonce`).
  private var classicAuthAwaitsNonce = false
  /// True once the trace showed a frame with a CRC_A that verifies, or an activation:
  /// plaintext, so frames with damaged parity are radio damage, not a Crypto1 session the
  /// capture joined late (`startsInCiphertext`).
  private var sawPlaintext = false
  /// When the last HLTA was sent (ns): a tag frame soon after answers it.
  private var haltNs: Int64 = 0
  /// The HLTA frame, or the reader's S(DESELECT) the tag answered (`haltedByDeselect`), when
  /// no frame since has woken or answered a tag: a halted tag answers only WUPA (ISO/IEC
  /// 14443-3 §6.3, HALT state; ISO/IEC 14443-4 §8), so a command sent then reaches nobody.
  private var haltFrame: Int?
  private var haltedByDeselect = false
  /// Set by a gen1a magic WUPC1 (`40`, 7 bits) until the next reader frame: a 1-byte `43`
  /// then is WUPC2, whatever its bit count.
  private var magicWUPC1Sent = false
  /// Set once a capture that starts mid-session (no ATQA or SAK yet) showed a whole Type 2
  /// command with a valid CRC_A: the tag is Type 2, and a later frame shaped like an ISO-DEP
  /// block is Type 2 data (COMPATIBILITY_WRITE's 16 bytes, SECTOR_SELECT's packet 2).
  private var type2CommandSeen = false
  /// The last REQA/WUPA, and the same when the reader went on with no tag frame after it: a
  /// SAK then shows the capture missed the ATQA.
  private var pollFrame: Int?
  private var pollUnanswered: Int?
  /// The last REQA/WUPA decoded and its start, when the source times frames on the air.
  private var pollStart: (frame: Int, ns: Int64)?
  /// HLTA with its CRC_A as sent in plaintext (ISO/IEC 14443-3 §6.4.3).
  private static let plainHLTA: [UInt8] = [0x50, 0x00, 0x57, 0xCD]
  /// Activation messages repeat with every poll of the same tag (see `DecodeCache`).
  private var cache = DecodeCache<ShortBytesKey>()

  /// An idle layer.
  public init() {}

  /// Forgets the anticollision state and the pending command.
  public mutating func reset() {
    pending = .none
    parts = []
    crypto1Follows = false
    classicAuthAwaitsNonce = false
    haltFrame = nil
    haltedByDeselect = false
    magicWUPC1Sent = false
    type2CommandSeen = false
    (pollFrame, pollUnanswered) = (nil, nil)
  }

  /// Decodes one frame (CRC included), resolving its CRC status.
  public mutating func decode(frame: Frame, context: inout LinkContext) -> FrameLayerResult {
    // The tag's nonce nt answering a first AUTH is plaintext (MIFARE Classic EV1 datasheet
    // §10.3.1), even where the source flags it encrypted (NFC-Laboratory does). (A copy only
    // then: copying every frame costs its arrays' retains.)
    if frame.crc == .encrypted, frame.direction == .tag, frame.data.count == 4,
      case .mifareAuth = pending, !context.encrypted
    {
      var plain = frame
      plain.crc = .unchecked
      return decodeFrame(plain, context: &context)
    }
    return decodeFrame(frame, context: &context)
  }

  private mutating func decodeFrame(_ frame: Frame, context: inout LinkContext)
    -> FrameLayerResult
  {
    // CRC_A over the whole frame, once: the technology check and the CRC status both need it.
    let crcAValid =
      frame.crc == .unchecked && frame.data.count >= 3 ? CRC.hasValidCRCA(frame.data) : nil
    if let other = OtherTechnology.result(frame, crcAValid: crcAValid) { return other }
    // Only frames a reader chip or PC/SC reader flagged: most carry no flag, and each call
    // below copied its (empty) large result.
    if !frame.sourceFlags.isEmpty {
      if let info = ReaderTargetInfo.result(frame, context: &context) {
        if info.newActivation { reset() }
        return info
      }
      if let info = PCSCCardInfo.result(frame, context: &context) {
        if info.newActivation { reset() }
        return info
      }
      if let framed = ReaderTargetInfo.isoDEPPayload(frame) {
        pending = .none
        return framed
      }
    }
    if frame.technology == .nfcA { context.technology = .nfcA }
    var ciphertextAssumed = false
    if !sawPlaintext {
      if crcAValid == true || frame.crc == .ok || context.atqa != nil || context.sak != nil {
        sawPlaintext = true
      } else if !context.encrypted, Self.startsInCiphertext(frame, crcAValid: crcAValid) {
        context.encrypted = true
        ciphertextAssumed = true
      }
    }
    if crypto1Follows {
      crypto1Follows = false
      // The reader answers the tag's nonce nt with the 8 encrypted bytes {nr, ar}; a plaintext
      // HLTA (with its CRC_A) instead is the reader giving up the authentication (a phone
      // that found the tag is not its card): the link stays plaintext.
      context.encrypted = !(frame.direction == .reader && frame.data == Self.plainHLTA)
    }
    if classicAuthAwaitsNonce, frame.direction == .reader {
      classicAuthAwaitsNonce = false
      if Self.isReaderAnswerToUncapturedNonce(frame, crcAValid: crcAValid) {
        context.encrypted = true
      }
    }
    if let deselect = context.deselectAnswered {
      // The ISO-DEP layer saw the tag answer S(DESELECT): it is halted as after HLTA.
      context.deselectAnswered = nil
      (haltFrame, haltedByDeselect) = (deselect, true)
    }
    // A plaintext ANTICOLLISION or SELECT during a Crypto1 session: a new activation whose
    // REQA/WUPA the capture missed (the tag's ATQA, if captured, went by as ciphertext).
    let selectionAfterCrypto1 =
      context.encrypted && frame.direction == .reader
      && Self.isPlainSelection(frame, crcAValid: crcAValid)
    if selectionAfterCrypto1 {
      context.resetActivation()
      context.technology = .nfcA
      reset()
    }
    if frame.direction == .reader, case .request = pending { pollUnanswered = pollFrame }
    let kind = classify(frame, context: context)
    if frame.direction == .reader, case .shortFrame = kind {
    } else if frame.direction == .reader {
      magicWUPC1Sent = false
    }
    if frame.direction == .reader, case .select(let level, let part) = pending {
      missedSAK(level, part, next: kind, context: &context)
    }
    var newActivation = selectionAfterCrypto1
    // A poll during an unfinished anticollision may find the tag still READY (it missed the
    // poll): then a SAK proves nothing about the poll's ATQA.
    let midAnticollision = !parts.isEmpty && !context.uidComplete
    // What halted the tag before an ATQA whose poll was not captured, for its finding.
    var haltedBefore: (frame: Int, deselect: Bool)?
    switch kind {
    case .request, .missedPollATQA:
      if case .missedPollATQA = kind, let h = haltFrame { haltedBefore = (h, haltedByDeselect) }
      newActivation = true
      context.resetActivation()
      context.technology = .nfcA
      reset()
    default: break
    }
    // A reader's short frame (7 bits) is never Crypto1 ciphertext, which is whole bytes: after
    // an authenticated session it is a plaintext wake-up (gen1a `40` after the encrypted HALT).
    var resetsClassic = false
    if frame.direction == .reader, case .shortFrame = kind, context.encrypted {
      context.encrypted = false
      crypto1Follows = false
      resetsClassic = true
    }
    if case .hlta = kind, !context.isoDEPActive, !context.encrypted { resetsClassic = true }
    let encrypted = context.encrypted && !newActivation
    let (crc, crcFinding) = FrameCRC.resolve(
      frame, carriesCRC: kind.carriesCRC, encrypted: encrypted, crcAValid: crcAValid)
    // A verified CRC_A makes the link type A again for sources that do not say (after type B).
    if crc == .ok { context.technology = .nfcA }
    var findings = FrameCRC.parityFindings(frame, encrypted: encrypted || crc == .encrypted)
    if let crcFinding { findings.append(crcFinding) }
    let payload = FrameCRC.payload(frame, status: crc)
    let halted = haltFrame == nil ? nil : commandWhileHalted(frame, kind: kind)
    var result = build(kind, frame: frame, payload: payload, crc: crc, context: &context)
    // One or two bytes where a frame with CRC was due: the capture kept only its start, as a
    // frame the source flags `truncated` (an answer's status is then not known).
    if crcFinding?.code == "frame-too-short" { result.handoff?.1.cutByCapture = true }
    if case .missedPollATQA = kind {
      result.findings.append(Self.pollNotCaptured(frame: frame.index, haltedBy: haltedBefore))
    }
    if selectionAfterCrypto1 { result.findings.append(Self.selectionEndsCrypto1(frame.index)) }
    if ciphertextAssumed { result.findings.append(Self.ciphertextAssumed(frame.index)) }
    // `reset()` above cleared the poll state; this poll counts unless the tag may still be READY.
    if case .request = kind { pollFrame = midAnticollision ? nil : frame.index }
    result.prependFindings(findings)
    if let halted { result.findings.append(halted) }
    let silent: Bool
    switch kind {
    case .hlta, .ecp: silent = true
    default: silent = false
    }
    var out = FrameLayerResult(
      result: result, crc: crc, expectsResponse: frame.direction == .reader && !silent,
      newActivation: newActivation)
    out.resetsMIFAREClassic = resetsClassic
    return out
  }

  /// A reader frame of a trace with no plaintext before it (no activation, no CRC_A that
  /// verifies) whose parity failed in two bytes or more and whose CRC_A fails: a capture that
  /// began inside a MIFARE Classic session, whose Crypto1 encrypts the parity bits too (NXP
  /// MF1S50yyX datasheet §10.3; the Proxmark3 marks every such byte `!`). Radio damage
  /// seldom spoils several parity bits of a frame, and a trace that showed plaintext first is
  /// not taken so.
  private static func startsInCiphertext(_ frame: Frame, crcAValid: Bool?) -> Bool {
    frame.direction == .reader && frame.parityErrors.count >= 2 && frame.data.count >= 4
      && (frame.bits ?? 8) == 8 && (crcAValid == false || frame.crc == .bad)
  }

  /// The finding on the frame `startsInCiphertext` took as the first Crypto1 ciphertext.
  private static func ciphertextAssumed(_ frame: Int) -> Finding {
    Finding(
      "crypto1-assumed", .info,
      "The trace starts with no activation and this reader frame fails parity in several bytes "
        + "and its CRC_A: taken as MIFARE Classic Crypto1 ciphertext (encrypted parity bits) of "
        + "a session the capture joined after its authentication, not as damaged commands. "
        + "Frames are shown as ciphertext until a plaintext activation.",
      frames: [frame])
  }

  /// The reader's {nr}{ar} after an AUTH whose nonce nt the capture missed or cut: 8 whole
  /// bytes without a valid CRC_A. A reader sends {nr}{ar} only on receiving nt (NXP MF1S50yyX
  /// datasheet §10.3, three-pass authentication), and no plaintext MIFARE Classic command has
  /// 8 bytes, so nt came and this frame and all after it are Crypto1 ciphertext.
  private static func isReaderAnswerToUncapturedNonce(_ frame: Frame, crcAValid: Bool?) -> Bool {
    guard frame.data.count == 8, (frame.bits ?? 8) == 8 else { return false }
    switch frame.crc {
    case .encrypted, .bad: return true
    case .unchecked: return crcAValid == false
    case .ok, .absent, .notCaptured: return false
    }
  }

  /// A reader frame that is plaintext ANTICOLLISION (`93`/`95`/`97` + NVB `20`, 2 bytes) or
  /// SELECT (SEL, NVB `70`, 4 bytes, a BCC that fits, a valid CRC_A; ISO/IEC 14443-3 §6.5.3).
  /// Encrypted MIFARE Classic reader frames have 4, 6, 8 or 18 bytes (NXP MF1S50yyX datasheet
  /// §10–§12), so a 2-byte frame is never one; a 9-byte one only this by chance (CRC_A and BCC
  /// both fitting: about 1 in 2^24).
  private static func isPlainSelection(_ frame: Frame, crcAValid: Bool?) -> Bool {
    let d = frame.data
    guard d.count == 2 || d.count == 9, (frame.bits ?? 8) == 8, CascadeLevel(sel: d[0]) != nil
    else { return false }
    if d.count == 2 { return d[1] == 0x20 }
    return d[1] == 0x70 && d[2] ^ d[3] ^ d[4] ^ d[5] == d[6]
      && (frame.crc == .ok || crcAValid == true)
  }

  /// `poll-not-captured` (info) on a plaintext ANTICOLLISION or SELECT that ended a Crypto1
  /// session (`isPlainSelection`): anticollision follows only a REQA/WUPA the tag answered
  /// (ISO/IEC 14443-3 §6.3), so a new activation began whose poll the capture missed.
  private static func selectionEndsCrypto1(_ frame: Int) -> Finding {
    Finding(
      "poll-not-captured", .info,
      "Plaintext ANTICOLLISION/SELECT during a MIFARE Classic Crypto1 session (encrypted reader "
        + "frames have 4, 6, 8 or 18 bytes, MF1S50yyX): a new activation whose REQA/WUPA the "
        + "capture missed (anticollision follows only an answered poll, ISO/IEC 14443-3 §6.3); "
        + "a tag frame before it went by as ciphertext", frames: [frame])
  }

  /// `command-while-halted` (warning) for the first reader command after an HLTA with no
  /// WUPA/REQA, field change or tag frame between: the halted tag ignores it (ISO/IEC 14443-3
  /// §6.2). Any tag frame ends the HALT assumption (the HLTA did not reach it, or another
  /// tag answers).
  private mutating func commandWhileHalted(_ frame: Frame, kind: Kind) -> Finding? {
    guard let hlta = haltFrame else { return nil }
    if frame.direction != .reader {
      haltFrame = nil
      return nil
    }
    switch kind {
    case .hlta, .request, .ecp, .magSafe, .shortFrame: return nil
    default: break
    }
    haltFrame = nil
    let halt =
      haltedByDeselect
      ? "S(DESELECT) (frame \(hlta), answered) with no WUPA between: a tag that answered the "
        + "S(DESELECT) is halted (ISO/IEC 14443-4 §8) and"
      : "HLTA (frame \(hlta)) with no WUPA between: a tag that took the HLTA is halted and"
    return Finding(
      "command-while-halted", .warning,
      "sent after " + halt + " ignores everything but WUPA (ISO/IEC 14443-3 §6.3, HALT "
        + "state), so an answer means it did not take it; wake and select the tag again before "
        + "commands",
      frames: [frame.index])
  }

  /// `poll-not-captured` (info) on a 2-byte tag frame without CRC_A that answers no captured
  /// command: a tag sends its ATQA only to answer REQA/WUPA (ISO/IEC 14443-3 §6.4.2), and a
  /// halted tag (`haltedBy`: HLTA, or an answered S(DESELECT)) only to WUPA (§6.3, HALT
  /// state), so the frame is the ATQA of a new activation whose 7-bit poll the sniffer missed.
  /// Whether the source times `frame` on the air (a sniffer's ticks or clock), not in order
  /// only or by a host's clock in whole seconds.
  private static func airTimed(_ frame: Frame) -> Bool {
    switch frame.sourceTime?.unit {
    case .proxmarkTicks?, .microseconds?, .nanoseconds?: return true
    default: return false
    }
  }

  /// `poll-not-captured` for an ATQA that came more than 1 ms after the REQA/WUPA before it: a
  /// tag answers a poll 1172 or 1236 carrier periods (about 90 µs) after its end (ISO/IEC
  /// 14443-3 §6.2.1.1; nfc-facts §1.6), so this one answers a poll the sniffer missed.
  private func lateATQA(_ frame: Frame, kind: Kind) -> Finding? {
    // A reader chip's frames (CRC stripped: not captured) are timed by the host's clock,
    // when the USB transfer or log line came, not on the air.
    guard case .atqa = kind, case .request = pending, let poll = pollStart,
      Self.airTimed(frame), frame.crc != .notCaptured, frame.timeNs - poll.ns > 1_000_000
    else { return nil }
    let tenths = (frame.timeNs - poll.ns + 50_000) / 100_000
    return Finding(
      "poll-not-captured", .info,
      "ATQA \(tenths / 10).\(tenths % 10) ms after the REQA/WUPA of frame \(poll.frame): a tag "
        + "answers a poll 1172 or 1236 carrier periods (about 90 µs) after its end (ISO/IEC "
        + "14443-3 §6.2.1.1), so this ATQA answers a later poll the capture does not have "
        + "(sniffers often miss 7-bit short frames); no answer to the poll of frame "
        + "\(poll.frame) was captured", frames: [poll.frame, frame.index])
  }

  private static func pollNotCaptured(frame: Int, haltedBy: (frame: Int, deselect: Bool)?)
    -> Finding
  {
    let why: String
    if let h = haltedBy {
      why =
        "the tag halted by the \(h.deselect ? "S(DESELECT)" : "HLTA") of frame \(h.frame) "
        + "answers only WUPA (ISO/IEC 14443-3 §6.3, HALT state), so the reader sent a WUPA"
    } else {
      why =
        "a tag sends its ATQA only to answer REQA or WUPA (ISO/IEC 14443-3 §6.4.2), so the "
        + "reader sent one"
    }
    return Finding(
      "poll-not-captured", .info,
      "2-byte tag frame without CRC_A and no REQA/WUPA before it: the ATQA of a new activation; "
        + why + " the capture does not have (sniffers often miss 7-bit short frames)",
      frames: [frame])
  }

  // MARK: - Classification

  private func classify(_ frame: Frame, context: LinkContext) -> Kind {
    frame.direction == .reader
      ? classifyReader(frame, context: context) : classifyTag(frame, context: context)
  }

  private func classifyReader(_ frame: Frame, context: LinkContext) -> Kind {
    let data = frame.data
    if data.count == 1, let byte = data.first {
      // Short frames are never encrypted; sources without bit counts (pcap) give `26`/`52` as
      // a plain byte, which is still unambiguous: a 1-byte frame cannot hold a CRC.
      if frame.bits == nil || frame.bits == 7 {
        if byte == 0x26 { return .request(wupa: false) }
        if byte == 0x52 { return .request(wupa: true) }
        if let n = AppleECP.magSafeNumber(byte) { return .magSafe(n) }
        if byte == 0x40 { return .shortFrame }
      }
      // Proxmark3 sends the gen1a WUPC2 `43` as a whole byte after the 7-bit WUPC1
      // (armsrc/mifarecmd.c): no CRC, so it is a short command too.
      if frame.isShortFrame || (byte == 0x43 && magicWUPC1Sent) { return .shortFrame }
    }
    // Sources that store whole bytes only keep a 7-bit REQA/WUPA as an empty frame: Flipper
    // Zero's debug pcap writes bits / 8 (its packets are stamped in whole seconds, which is
    // how its frames are known). Elsewhere an empty frame is no command.
    if data.isEmpty, (frame.bits ?? 0) == 0 {
      guard frame.sourceTime?.unit == .wholeSeconds else {
        return .unexpected("empty frame (no data bytes)", carriesCRC: false)
      }
      return .request(wupa: nil)
    }
    guard !context.encrypted, data.count >= 2 else { return .inner(carriesCRC: true) }
    if let level = CascadeLevel(sel: data[0]) {
      // Before a final SAK the tag is in anticollision: a frame starting with a SEL code is
      // one, even broken (after it, 93/95/97 may begin a MIFARE value operand).
      let selecting = context.sak == nil
      if let nvb = NVB(data[1]) {
        if nvb.isSelect, data.count >= 7 { return .select(level) }
        if !nvb.isSelect, data.count <= 7 { return .anticollision(level, nvb) }
        if nvb.isSelect, selecting {
          return .unexpected(
            "SELECT \(level.name) is shorter than SEL, NVB 70, 4 UID bytes, BCC and CRC_A "
              + "(\(data.count) bytes)", carriesCRC: false)
        }
      } else if data.count <= 9, selecting {
        return .invalidNVB(level, data[1])
      }
    }
    if data[0] == 0x50, data[1] == 0x00, data.count == 4 || data.count == 2 { return .hlta }
    if AppleECP.isECP(data), !context.isoDEPActive { return .ecp }
    return .inner(carriesCRC: true)
  }

  private func classifyTag(_ frame: Frame, context: LinkContext) -> Kind {
    let data = frame.data
    if context.encrypted { return .inner(carriesCRC: true) }
    switch pending {
    case .request:
      if data.count == 2 { return .atqa }
      return .unexpected(
        "answer to REQA/WUPA should be a 2-byte ATQA, got \(data.count) bytes", carriesCRC: false)
    case .anticollision(let level, let nvb, let known):
      return .uidAnswer(level, nvb, known)
    case .select(let level, let part):
      if data.count == 3 || data.count == 1 { return .sak(level, part) }
      return .unexpected(
        "answer to SELECT should be SAK + CRC_A (3 bytes), got \(data.count) bytes",
        carriesCRC: true)
    case .mifareAuth:
      // The tag nonce NT (4 bytes) carries no CRC, nor does one the sniffer cut short.
      return .inner(carriesCRC: data.count > 4)
    case .none where context.sak == nil && !context.isoDEPActive:
      return unsolicited(frame)
    case .none where haltFrame != nil && !context.isoDEPActive:
      // After an answered S(DESELECT) the tag is halted: it answers only WUPA.
      return Self.isBareTwoBytes(frame) ? .missedPollATQA : .inner(carriesCRC: true)
    case .halt where frame.timeNs.saturatingMinus(haltNs) <= 2_000_000:
      // ISO/IEC 14443-3 §6.4.3: any answer within 1 ms of HLTA's end (HLTA itself lasts
      // ~0.4 ms; 2 ms from its start allows for the sniffer's time stamps) is "not
      // acknowledge": the tag did not go to HALT. Later frames answer a poll the sniffer
      // missed.
      return .unexpected(
        "answer to HLTA: the tag did not acknowledge it and is not halted (a halted tag "
          + "sends nothing)", carriesCRC: false)
    case .halt where haltFrame != nil && Self.isBareTwoBytes(frame):
      // Past the HLTA's answer window the halted tag answers only WUPA: the ATQA of a wake-up
      // the sniffer missed, not a Type 2 answer cut short.
      return .missedPollATQA
    case .none, .halt, .rats, .inner:
      return .inner(carriesCRC: true)
    }
  }

  /// Two bytes whose source does not say they carried a CRC: the shape of an ATQA (ISO/IEC
  /// 14443-3 §6.4.2, no CRC_A).
  private static func isBareTwoBytes(_ frame: Frame) -> Bool {
    guard frame.data.count == 2 else { return false }
    switch frame.crc {
    case .unchecked, .absent, .notCaptured: return true
    case .ok, .bad, .encrypted: return false
    }
  }

  /// A tag frame with no command before it, before any SAK: the sniffer missed the reader's
  /// REQA/WUPA or ANTICOLLISION (weak reader modulation), not the tag's answer. Two bytes are
  /// the ATQA — of the poll before a reader frame that answers nothing (Apple ECP), else of a
  /// new activation whose poll the capture lacks; five whose last is the XOR of the others the
  /// UID part and its BCC (ISO/IEC 14443-3 §6.5.2, §6.5.3). Neither carries CRC_A.
  private func unsolicited(_ frame: Frame) -> Kind {
    let data = frame.data
    if data.count == 2 {
      return pollUnanswered == nil && Self.isBareTwoBytes(frame) ? .missedPollATQA : .atqa
    }
    if data.count == 5, data[0] ^ data[1] ^ data[2] ^ data[3] == data[4], let nvb = NVB(0x20) {
      return .uidAnswer(.cl1, nvb, [])
    }
    return .inner(carriesCRC: true)
  }

  // MARK: - Decoding

  private mutating func build(
    _ kind: Kind, frame: Frame, payload: [UInt8], crc: CRCStatus, context: inout LinkContext
  ) -> LayerResult {
    let index = frame.index
    switch kind {
    case .request(let wupa):
      pending = .request
      pollStart = Self.airTimed(frame) ? (index, frame.timeNs) : nil
      guard let wupa else { return LayerResult(decode: Self.uncapturedRequest) }
      let name = wupa ? "WUPA" : "REQA"
      return LayerResult(
        decode: cached(.request, frame.data) {
          LayerDecode(
            .iso14443A, name, name,
            [LayerField("command", .hex(frame.data)), LayerField("bits", .int(7))])
        })
    case .magSafe(let n):
      pending = .request
      pollStart = Self.airTimed(frame) ? (index, frame.timeNs) : nil
      (pollFrame, pollUnanswered) = (index, nil)
      return LayerResult(decode: AppleECP.magSafeDecode(n, byte: frame.data.first ?? 0))
    case .shortFrame:
      pending = .none
      let afterWUPC1 = magicWUPC1Sent
      magicWUPC1Sent = false
      if let b = frame.data.first, b == 0x40 || (b == 0x43 && (frame.bits == 7 || afterWUPC1)) {
        // The backdoor wake-ups of "gen1a" MIFARE Classic clones (magic WUPC1/WUPC2, sent to
        // a halted tag; Proxmark3 `hf mf cwipe`): no ISO/IEC 14443-3 command, the Classic
        // layer names them and takes the tag's 4-bit ACK. Handed on as the 7-bit commands they
        // are, whatever bits the source stored: only this layer knows a whole `43` is WUPC2.
        pending = .inner
        magicWUPC1Sent = b == 0x40
        let unit = LayerUnit(
          direction: .reader, bytes: frame.data, bits: 7, frameIndex: frame.index,
          timeNs: frame.timeNs)
        return LayerResult(handoff: (.mifareClassic, unit))
      }
      let bits = frame.bits ?? 8
      return .undecoded(
        "short frame \(Hex.string(frame.data)) (\(bits) bits) is not an ISO 14443-3 command")
    case .ecp:
      pending = .none
      return LayerResult(decode: AppleECP.decode(payload))
    case .hlta:
      pending = .halt
      (pollFrame, pollUnanswered) = (nil, nil)
      haltNs = frame.timeNs
      let decode = LayerDecode(
        .iso14443A, "HLTA", "HLTA", [LayerField("command", .hex([0x50, 0x00]))])
      // In the ISO-DEP protocol state `50 00` is no valid block (PCB bits 8–7 = 01): the tag
      // ignores it and stays active, as the diagnosis assumes (`SessionCommandLog`).
      guard !context.isoDEPActive else {
        haltFrame = nil
        return LayerResult(
          decode: decode,
          findings: [
            Finding(
              "hlta-in-iso-dep", .warning,
              "HLTA sent in the ISO-DEP protocol state (after RATS): there it is no valid block, "
                + "so the tag ignores it and stays active (ISO/IEC 14443-4 PCB coding, nfc-facts §2.5); the "
                + "protocol ends with S(DESELECT), which halts the tag (§8)",
              frames: [index])
          ])
      }
      (haltFrame, haltedByDeselect) = (index, false)
      return LayerResult(decode: decode)
    case .anticollision(let level, let nvb):
      pending = .anticollision(level, nvb, Array(frame.data.dropFirst(2)))
      var findings: [Finding] = []
      if frame.data.count != 2 + nvb.knownByteCount {
        findings.append(
          Finding(
            "invalid-nvb", .warning,
            "NVB \(Hex.string([nvb.value])) announces \(2 + nvb.knownByteCount) bytes (SEL, NVB and "
              + "\(nvb.knownBits) UID bits), the frame has \(frame.data.count) (ISO/IEC 14443-3 "
              + "§6.5.3)", frames: [index], offset: 1))
      }
      return LayerResult(
        decode: cached(.anticollision, frame.data) {
          Anticollision.requestDecode(level: level, nvb: nvb, data: frame.data)
        }, findings: findings)
    case .select(let level):
      return buildSelect(level, payload: payload, index: index)
    case .invalidNVB(let level, let nvb):
      pending = .none
      let why =
        "NVB \(Hex.string([nvb])) is invalid: its high nibble counts the bytes sent (2–7) and its "
        + "low nibble the bits of a partial byte (0–7), and 70 is the only value with 7 bytes "
        + "(ISO/IEC 14443-3 §6.5.3)"
      return LayerResult(
        decode: LayerDecode(
          .iso14443A, "ANTICOLLISION",
          "ANTICOLL \(level.name) with invalid NVB \(Hex.string([nvb]))",
          [LayerField("sel", .hex([frame.data[0]])), LayerField("nvb", .hex([nvb]))]),
        findings: [Finding("invalid-nvb", .warning, why, frames: [index], offset: 1)])
    case .atqa, .missedPollATQA:
      let late = lateATQA(frame, kind: kind)
      pending = .none
      pollUnanswered = nil
      guard let atqa = ATQA(airBytes: payload) else { return .undecoded("ATQA needs 2 bytes") }
      context.atqa = atqa.value
      return LayerResult(
        decode: cached(.atqa, payload) { atqa.decode },
        findings: atqa.findings(frameIndex: index) + [late].compactMap { $0 })
    case .uidAnswer(let level, let nvb, let known):
      pending = .none
      return buildUIDAnswer(level, nvb: nvb, known: known, payload: payload, index: index)
    case .sak(let level, let part):
      if crc == .bad, let byte = payload.first {
        // A damaged SAK may carry a wrong cascade bit: it completes nothing. The SELECT stays
        // pending, so the intact SAK of the reader's retry, or the command that follows (as
        // after a missed SAK), completes the UID.
        return LayerResult(decode: SAK(byte).decode(level: level))
      }
      pending = .none
      return buildSAK(level, part: part, payload: payload, index: index, context: &context)
    case .unexpected(let reason, _):
      pending = .none
      return .undecoded(reason)
    case .inner:
      return handOff(frame, payload: payload, crc: crc, context: &context)
    }
  }

  /// An empty reader frame: a short frame whose 7 bits the source did not keep.
  private static let uncapturedRequest = LayerDecode(
    .iso14443A, "REQA/WUPA", "REQA or WUPA (short frame, bits not captured)",
    [LayerField("bits", .int(7))])

  private mutating func buildSelect(_ level: CascadeLevel, payload: [UInt8], index: Int)
    -> LayerResult
  {
    guard let part = UIDPart(payload.dropFirst(2)) else {
      pending = .none
      return .undecoded("SELECT \(level.name) is shorter than SEL NVB + 4 UID bytes + BCC")
    }
    pending = .select(level, part)
    var findings = part.bccFindings(frameIndex: index, offset: 6)
    if payload.count > 7 {
      findings.append(
        Finding(
          "select-length", .warning,
          "SELECT \(level.name) carries \(payload.count) bytes before its CRC_A, expected 7 "
            + "(SEL, NVB 70, 4 UID bytes, BCC; ISO/IEC 14443-3 §6.5.3)", frames: [index],
          offset: 7))
    }
    return LayerResult(
      decode: cached(.select, payload.prefix(7)) {
        Anticollision.selectDecode(level: level, part: part)
      },
      findings: findings)
  }

  /// The reader moved on from a SELECT whose SAK the capture missed (a sniffer that hears
  /// the reader but not the tag): the reader's next command says what the SAK said. A command
  /// for a selected tag after a part without the cascade tag 88 means the UID is complete
  /// (ISO/IEC 14443-3 §6.5.3.4), so the UID is the reader's SELECTs; the next cascade level's
  /// anticollision keeps the part for it.
  private mutating func missedSAK(
    _ level: CascadeLevel, _ part: UIDPart, next kind: Kind, context: inout LinkContext
  ) {
    parts = Array(parts.prefix(level.rawValue - 1)) + [part]
    // Only a command sent to a selected tag (RATS, Type 2, MIFARE, ISO-DEP) proves the SAK
    // came; HLTA or a poll may follow a SELECT nobody answered.
    guard case .inner = kind, !part.hasCascadeTag else { return }
    context.uid = Anticollision.assemble(parts, complete: true)
    context.uidComplete = true
  }

  private mutating func buildUIDAnswer(
    _ level: CascadeLevel, nvb: NVB, known: [UInt8], payload: [UInt8], index: Int
  ) -> LayerResult {
    let merged = Anticollision.merge(known: known, nvb: nvb, answer: payload)
    guard merged.count == 5, let part = UIDPart(merged[...]) else {
      return .undecoded(
        "anticollision answer \(level.name): expected the remaining \(40 - nvb.knownBits) bits"
          + " of UID + BCC, got \(payload.count) bytes")
    }
    let offset = max(0, payload.count - 1)
    return LayerResult(
      decode: cached(.uidAnswer(level), merged) {
        Anticollision.answerDecode(level: level, part: part)
      },
      findings: part.bccFindings(frameIndex: index, offset: offset))
  }

  private mutating func buildSAK(
    _ level: CascadeLevel, part: UIDPart, payload: [UInt8], index: Int,
    context: inout LinkContext
  ) -> LayerResult {
    guard let byte = payload.first else { return .undecoded("empty SAK") }
    let sak = SAK(byte)
    var findings: [Finding] = []
    if parts.count < level.rawValue - 1 {
      // Anticollision starts at cascade level 1 (ISO/IEC 14443-3 §6.5.3): the capture missed
      // the earlier levels, so the parts here are the UID's last bytes only.
      findings.append(
        Finding(
          "cascade-level-missing", .warning,
          "SELECT \(level.name) with no earlier cascade level selected in this activation: the "
            + "capture missed it, and the UID shown holds only the parts captured", frames: [index]
        ))
    }
    if let poll = pollUnanswered {
      // ISO/IEC 14443-3 §6.3: a tag enters READY, where it answers SELECT, only by
      // answering REQA/WUPA.
      pollUnanswered = nil
      findings.append(
        Finding(
          "atqa-not-captured", .info,
          "The tag answered SELECT, which it does only after answering a poll (ISO/IEC 14443-3 "
            + "§6.3, READY state): it answered the REQA/WUPA of frame \(poll), and the capture "
            + "does not have its ATQA", frames: [poll, index]))
    }
    parts = Array(parts.prefix(level.rawValue - 1)) + [part]
    // CL3 is the last cascade level (a UID has at most 10 bytes, ISO/IEC 14443-3 §6.5.4): a
    // cascade bit there announces nothing, and the UID is the three parts selected.
    let beyondLastLevel = sak.cascade && level == .cl3
    let complete = !sak.cascade || beyondLastLevel
    context.uid = Anticollision.assemble(parts, complete: complete)
    context.uidComplete = complete
    if beyondLastLevel {
      findings.append(
        Finding(
          "cascade-bit-at-cl3", .warning,
          "SAK \(sak.hexValue) at CL3 has the cascade bit (b3) set, but CL3 is the last "
            + "cascade level: a UID has at most 10 bytes (ISO/IEC 14443-3 §6.5.4); the UID is "
            + "taken as the \(context.uid.count) bytes selected", frames: [index]))
    } else if sak.cascade && !part.hasCascadeTag {
      findings.append(
        Finding(
          "missing-cascade-tag", .warning,
          "SAK \(sak.hexValue) at \(level.name) announces another cascade level, but the "
            + "selected UID part does not start with the cascade tag 88",
          frames: [index]))
    }
    if complete, part.hasCascadeTag {
      // 88 only announces another cascade level; a UID's first byte at the final level may
      // not be 88 (ISO/IEC 14443-3 §6.5.4).
      findings.append(
        Finding(
          "cascade-tag-in-final-part", .warning,
          "SAK \(sak.hexValue) at \(level.name) completes the UID, but the selected part starts "
            + "with the cascade tag 88, which only announces another level (ISO/IEC 14443-3 "
            + "§6.5.4)", frames: [index]))
    }
    if complete {
      context.sak = byte
      findings += uidSizeFindings(context: context, index: index)
    }
    guard !beyondLastLevel else {
      var decode = sak.decode(level: level)
      decode.summary =
        "SAK \(sak.hexValue) (cascade bit set at CL3, the last level: UID taken as complete)"
      if let i = decode.fields.firstIndex(where: { $0.key == "uid_complete" }) {
        decode.fields[i] = LayerField("uid_complete", .bool(true))
      }
      return LayerResult(decode: decode, findings: findings)
    }
    return LayerResult(
      decode: cached(.sak(level), payload.prefix(1)) { sak.decode(level: level) },
      findings: findings)
  }

  /// `uid-size-mismatch` when the completed UID's length differs from the ATQA's UID size.
  private func uidSizeFindings(context: LinkContext, index: Int) -> [Finding] {
    guard let value = context.atqa, let expected = ATQA(value: value).uidSize.length,
      expected != context.uid.count
    else { return [] }
    return [
      Finding(
        "uid-size-mismatch", .warning,
        "ATQA announces a \(expected)-byte UID, the selection completed a "
          + "\(context.uid.count)-byte UID", frames: [index])
    ]
  }

  /// The message kinds whose decodes are cached, by the bytes that decide them.
  private enum CachedKind {
    case request, anticollision, atqa, select
    case uidAnswer(CascadeLevel)
    case sak(CascadeLevel)

    var code: UInt32 {
      switch self {
      case .request: return 1
      case .anticollision: return 2
      case .atqa: return 3
      case .select: return 4
      case .uidAnswer(let level): return 0x10 + UInt32(level.rawValue)
      case .sak(let level): return 0x20 + UInt32(level.rawValue)
      }
    }
  }

  private mutating func cached<C: Collection>(
    _ kind: CachedKind, _ bytes: C, _ make: () -> LayerDecode
  ) -> LayerDecode where C.Element == UInt8 {
    cache.decode(kind: kind.code, bytes: bytes, make)
  }

  // MARK: - Handoff

  private mutating func handOff(
    _ frame: Frame, payload: [UInt8], crc: CRCStatus, context: inout LinkContext
  ) -> LayerResult {
    var findings: [Finding] = []
    let target = route(frame, payload: payload, context: &context, findings: &findings)
    if target == .type2, !type2CommandSeen, frame.direction == .reader, crc == .ok,
      context.atqa == nil, context.sak == nil, case .success = Type2Command.parse(payload)
    {
      type2CommandSeen = true
    }
    if frame.direction == .reader {
      if target == .isoDEP, payload.first == 0xE0 {
        pending = .rats
      } else if target == .mifareClassic, isMIFAREAuth(payload) {
        pending = .mifareAuth
        classicAuthAwaitsNonce = !context.encrypted
      } else {
        pending = .inner
      }
    } else {
      var answersAuth = false
      if case .mifareAuth = pending, target == .mifareClassic { answersAuth = true }
      if answersAuth, payload.count == 4, !context.encrypted { crypto1Follows = true }
      // A nonce cut short (fewer than its 4 bytes) still leaves the reader's answer to come.
      classicAuthAwaitsNonce =
        classicAuthAwaitsNonce && answersAuth && payload.count < 4 && Self.wholeBytes(frame)
      pending = .none
    }
    var unit = LayerUnit(
      direction: frame.direction, bytes: payload, bits: frame.bits, frameIndex: frame.index,
      timeNs: frame.timeNs)
    unit.carriedCRC = payload.count < frame.data.count
    unit.damaged = crc == .bad
    if !frame.sourceFlags.isEmpty {
      unit.cutByCapture = frame.crc == .notCaptured && frame.sourceFlags.contains("truncated")
      if frame.direction == .tag {
        unit.partialAnswer = frame.sourceFlags.contains(ReaderChipFlag.readBinary)
        unit.readerFailure = frame.sourceFlags.contains(ReaderChipFlag.readerFailure)
        unit.readerDamaged = frame.sourceFlags.contains(ReaderChipFlag.damagedAnswer)
        unit.readerChipACK = frame.sourceFlags.contains(ReaderChipFlag.emptyAnswer)
      }
    }
    return LayerResult(handoff: (target, unit), findings: findings)
  }

  private func route(
    _ frame: Frame, payload: [UInt8], context: inout LinkContext, findings: inout [Finding]
  ) -> ProtocolID {
    if context.isoDEPActive { return .isoDEP }
    let reader = frame.direction == .reader
    if reader, isRATS(payload) || isPPS(payload, context: context) { return .isoDEP }
    if !reader, case .rats = pending { return .isoDEP }
    if context.encrypted { return .mifareClassic }
    if reader, let pcb = isoDEPBlockWithoutRATS(frame, payload: payload, context: context) {
      context.isoDEPActive = true
      findings.append(
        Finding(
          "iso-dep-assumed", .info,
          "SAK \(Hex.string([context.sak ?? 0])) announces ISO/IEC 14443-4 and "
            + (context.ats == nil
              ? "the capture holds no ATS"
              : "no ISO-DEP link is up since S(DESELECT) (the tag is halted until WUPA)")
            + ": the block PCB \(Hex.string([pcb])) with a valid CRC_A is taken as ISO-DEP",
          frames: [frame.index]))
      return .isoDEP
    }
    // SAK 00 is a Type 2 tag (Ultralight, NTAG): there `60` is GET_VERSION, not an AUTH.
    if reader, isMIFAREAuth(payload), context.sak != 0x00 { return .mifareClassic }
    if !reader, case .mifareAuth = pending { return .mifareClassic }
    if let sak = context.sak, SAK(sak).isMIFAREClassic { return .mifareClassic }
    if context.mifareClassicByATR { return .mifareClassic }
    // SAK b7: an ISO/IEC 18092 target, whose NFC-DEP frames start F0 LEN D4/D5 (§12).
    if let sak = context.sak, sak & 0x40 != 0, NFCDEPFrame.isFramed(payload) { return .nfcDEP }
    if reader, looksLikeISODEPBeforeSelection(frame, payload: payload, context: context) {
      findings.append(
        Finding(
          "iso-dep-not-selected", .warning,
          "ISO-DEP block (PCB \(Hex.string(payload.prefix(1))), CID) sent after REQA/WUPA "
            + "without anticollision and SELECT: the tag is in the READY state, not ACTIVE, and "
            + "cannot answer it (ISO/IEC 14443-3 PICC states); the reader still believes the earlier "
            + "ISO-DEP link is up", frames: [frame.index]))
      return .isoDEP
    }
    if reader, looksLikeISODEPMidSession(frame, payload: payload, context: context) {
      context.isoDEPActive = true
      findings.append(
        ISODEPLayer.assumedFinding(pcb: payload[0], crcName: "CRC_A", frame: frame.index))
      return .isoDEP
    }
    return .type2
  }

  /// A frame of whole bytes, not empty; of 1 byte only with its 8 bits counted (else it may be
  /// a 4-bit ACK/NAK whose bit count the source did not keep).
  private static func wholeBytes(_ frame: Frame) -> Bool {
    frame.data.count > 1 ? (frame.bits ?? 8) == 8 : frame.bits == 8
  }

  /// RATS: `E0` + parameter byte (ISO/IEC 14443-4 §5.6.1).
  private func isRATS(_ payload: [UInt8]) -> Bool {
    payload.count == 2 && payload.first == 0xE0
  }

  /// PPS request: `Dx` PPS0 [PPS1], only towards a tag that speaks ISO 14443-4.
  private func isPPS(_ payload: [UInt8], context: LinkContext) -> Bool {
    guard let first = payload.first, first & 0xF0 == 0xD0, (2...3).contains(payload.count)
    else { return false }
    return context.ats != nil || (context.sak.map { $0 & 0x20 != 0 } ?? false)
  }

  /// MIFARE Classic AUTH: `60`/`61` + block number (2 bytes before CRC).
  private func isMIFAREAuth(_ payload: [UInt8]) -> Bool {
    payload.count == 2 && (payload.first == 0x60 || payload.first == 0x61)
  }

  /// A reader frame after an ATQA but before any SAK, with a valid CRC_A, shaped like an
  /// ISO-DEP block that carries a CID (PCB b4 set: I-block `0A`/`0B`, R-block `AA`/`AB`/`BA`/
  /// `BB`, S(DESELECT) `CA`, S(WTX) `FA`); no Type 2 or MIFARE Classic command starts with
  /// these bytes. Readers send them when they lost track of a tag that re-entered the field.
  private func looksLikeISODEPBeforeSelection(
    _ frame: Frame, payload: [UInt8], context: LinkContext
  ) -> Bool {
    guard context.atqa != nil, context.sak == nil, let pcb = payload.first, payload.count >= 2,
      frame.crc == .unchecked, CRC.hasValidCRCA(frame.data)
    else { return false }
    switch pcb {
    case 0x0A, 0x0B, 0xAA, 0xAB, 0xBA, 0xBB, 0xCA, 0xFA: return true
    default: return false
    }
  }

  /// A reader frame after a SAK announcing ISO/IEC 14443-4 (b6 set, §6.5.3.4 of part 3), with
  /// no ISO-DEP link up: no ATS in the trace (the sniffer missed the RATS, the ATS, or both),
  /// or a block after S(DESELECT): a valid CRC_A and the PCB of an
  /// I-, R- or S-block of its length (ISO/IEC 14443-4 §7.1.1). Such a tag is never Type 2; on a
  /// tag that is MIFARE Classic too (SAK 28), no Classic command starts with these bytes except
  /// RESTORE `C2` + block, which is longer than S(DESELECT). Returns the PCB.
  private func isoDEPBlockWithoutRATS(_ frame: Frame, payload: [UInt8], context: LinkContext)
    -> UInt8?
  {
    guard let sak = context.sak, SAK(sak).iso14443_4, !context.encrypted,
      !payload.isEmpty,
      frame.crc == .ok || (frame.crc == .unchecked && CRC.hasValidCRCA(frame.data))
    else { return nil }
    return Self.blockPCB(payload)
  }

  /// The PCB when `payload` has the shape of an I-, R- or S(DESELECT)/S(WTX) block of its
  /// length (ISO/IEC 14443-4 §7.1.1: PCB coding, CID byte when b4 is set); nil otherwise.
  private static func blockPCB(_ payload: [UInt8]) -> UInt8? {
    guard let pcb = payload.first else { return nil }
    let cid = pcb & 0x08 != 0 ? 1 : 0
    switch pcb {
    case _ where pcb & 0xE2 == 0x02: return payload.count >= 2 + cid ? pcb : nil  // I-block
    case _ where pcb & 0xE6 == 0xA2: return payload.count == 1 + cid ? pcb : nil  // R-block
    case _ where pcb & 0xF7 == 0xC2: return payload.count == 1 + cid ? pcb : nil  // S(DESELECT)
    case _ where pcb & 0xF7 == 0xF2: return payload.count == 2 + cid ? pcb : nil  // S(WTX)
    default: return nil
    }
  }

  /// A trace that starts inside an ISO-DEP session: no ATQA/SAK seen, a reader frame with a
  /// valid CRC shaped like an ISO-DEP block (`blockPCB`) that no Type 2 or MIFARE command
  /// matches: `1A`/`1B` + data are Ultralight C AUTH and NTAG PWD_AUTH; a 1-byte R-block or
  /// S(DESELECT), or a 2-byte S(WTX) `F2`/`FA`, is no Type 2 command of that length (WRITE
  /// `A2` has 6 bytes, SECTOR_SELECT `C2 FF` 2). Not after a Type 2 command was seen: then an
  /// I-block shape is the data part of a two-part Type 2 command (`03` starts an NDEF TLV).
  private func looksLikeISODEPMidSession(_ frame: Frame, payload: [UInt8], context: LinkContext)
    -> Bool
  {
    guard !type2CommandSeen, context.atqa == nil, context.sak == nil, frame.crc == .unchecked,
      CRC.hasValidCRCA(frame.data), let pcb = Self.blockPCB(payload)
    else { return false }
    return pcb != 0x1A && pcb != 0x1B
  }
}
