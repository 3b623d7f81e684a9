/// ISO/IEC 14443-3 type B: REQB/WUPB, Slot-MARKER, ATQB, ATTRIB and its answer, HLTB, CRC_B;
/// hands the ISO-DEP blocks after ATTRIB to the ISO 14443-4 layer (type B has no RATS: ATTRIB
/// carries FSD and CID, ATQB FSC and FWI).
///
/// Like the type A layer it remembers the pending reader command, so a tag frame is read as
/// the answer to it (ATQB after REQB/WUPB or a Slot-MARKER, the ATTRIB answer, `00` after
/// HLTB). Every type B frame carries CRC_B (ISO/IEC 14443-3 §7.2). Sources: ISO/IEC 14443-3
/// §7.7–§7.12.
public struct ISO14443BLayer: Sendable {
  enum Pending: Sendable {
    case none, request, halt, inner
    case attrib(ATTRIB)
  }

  private var pending = Pending.none
  /// The ATQBs of this poll by PUPI (several tags may answer in different slots): ATTRIB
  /// takes FSC and FWT from the one it selects.
  private var answers: [[UInt8]: ATQB] = [:]
  /// True after a REQB/WUPB: the activation is in the trace, so blocks before ATTRIB are not
  /// taken for an ISO-DEP link that started before the capture.
  private var sawRequest = false
  /// True once a tag answered ATTRIB in this activation.
  private var selected = false

  /// An idle layer.
  public init() {}

  /// An ATQB a reader reported after activating the tag itself (an Android phone's
  /// RF_INTF_ACTIVATED_NTF, flagged `ReaderChipFlag.targetInfo`): a new activation whose UID
  /// is the PUPI. Nil for other frames.
  private mutating func reportedATQB(_ frame: Frame, context: inout LinkContext)
    -> FrameLayerResult?
  {
    guard frame.direction == .tag, !frame.sourceFlags.isEmpty,
      frame.sourceFlags.contains(ReaderChipFlag.targetInfo), let atqb = ATQB(parsing: frame.data)
    else { return nil }
    reset()
    context.resetActivation()
    context.technology = .nfcB
    context.uid = atqb.pupi
    context.uidComplete = true
    context.fsc = atqb.fsc
    context.fwtNs = atqb.fwtNs
    var decode = atqb.decode
    decode.summary += " (reported by the reader chip)"
    return FrameLayerResult(
      result: LayerResult(decode: decode), crc: frame.crc, expectsResponse: false,
      newActivation: true)
  }

  /// The ATQB of the tag the last ATTRIB answer selected, when the trace holds it: whether it
  /// supports CID and NAD (ISO/IEC 14443-3 §7.9.4.3, protocol info FO).
  public private(set) var selectedATQB: (cid: Bool, nad: Bool)?

  /// Forgets the pending command and the ATQBs (field off).
  public mutating func reset() {
    pending = .none
    answers = [:]
    sawRequest = false
    selected = false
  }

  /// Whether a frame of a source that does not say its technology is type B: it is shaped
  /// like REQB/WUPB, ATTRIB or ATQB and its CRC_B verifies where CRC_A does not, or the link
  /// is already type B (`context.technology`) and CRC_A does not verify alone. Short frames
  /// and the 1-byte REQA/WUPA stay type A. The CRCs are computed only for such candidates.
  static func claims(_ frame: Frame, context: LinkContext) -> Bool {
    if let bits = frame.bits, bits > 0, bits < 8 { return false }
    let data = frame.data
    if data.count == 1, data[0] == 0x26 || data[0] == 0x52 { return false }
    let linkIsB = context.technology == .nfcB
    // Crypto1 ciphertext is random bytes with no valid CRC_A: never read it as type B.
    guard
      linkIsB
        || (!context.encrypted
          && (shapedLikeTypeB(data, direction: frame.direction)
            || blockBeforeAnyActivation(frame, context: context)))
    else { return false }
    guard frame.crc == .unchecked, data.count >= 3 else { return linkIsB }
    let crcB = CRC.hasValidCRCB(data)
    let crcA = CRC.hasValidCRCA(data)
    return linkIsB ? crcB || !crcA : crcB && !crcA
  }

  /// A reader frame of a capture that starts inside an ISO-DEP session over type B (no
  /// activation of either type seen): a non-chained I-block (ISO/IEC 14443-4 §7.1.1, CID byte
  /// when PCB b4 is set) whose INF is a whole command APDU with CLA b7–b6 00 (the
  /// classes 00–1F and 80–9F, e.g. 00, 80, 90) and an INS
  /// neither 6X nor 9X (ISO/IEC 7816-4 §5.1); narrower than ISO 7816 allows, on purpose:
  /// a DESFire `90 60` is not taken. ISO 15693 requests,
  /// which share CRC_B's polynomial and can start with flags `02`, carry a command code
  /// 01–2C or a custom code with a manufacturer byte after it, which fail that test.
  private static func blockBeforeAnyActivation(_ frame: Frame, context: LinkContext) -> Bool {
    let data = frame.data
    guard frame.direction == .reader, context.technology == .unknown, context.atqa == nil,
      context.sak == nil, !context.isoDEPActive, let pcb = data.first, pcb & 0xF2 == 0x02,
      data.count >= 7
    else { return false }
    let header = 1 + (pcb & 0x08 != 0 ? 1 : 0) + (pcb & 0x04 != 0 ? 1 : 0)
    let inf = Array(data[header..<(data.count - 2)])
    guard inf.count >= 4, inf[0] & 0x60 == 0, let apdu = try? CommandAPDU(parsing: inf)
    else { return false }
    return !apdu.insIsStatusByte
  }

  /// REQB/WUPB (`05` + 2 bytes) and ATTRIB (`1D` + 8 or more) from the reader, ATQB (`50` + 11
  /// or 12) from the tag, CRC_B included.
  private static func shapedLikeTypeB(_ data: [UInt8], direction: Direction) -> Bool {
    guard let first = data.first else { return false }
    switch direction {
    case .reader: return (first == 0x05 && data.count == 5) || (first == 0x1D && data.count >= 11)
    case .tag: return first == 0x50 && (data.count == 14 || data.count == 15)
    case .event: return false
    }
  }

  /// Decodes one frame (CRC_B included), resolving its CRC status.
  public mutating func decode(frame: Frame, context: inout LinkContext) -> FrameLayerResult {
    context.technology = .nfcB
    if let reported = reportedATQB(frame, context: &context) { return reported }
    var (crc, crcFinding) = FrameCRC.resolve(
      frame, carriesCRC: true, encrypted: false, typeB: true)
    // One byte is a cut frame (an R-block without its CRC_B) only inside ISO-DEP; outside it,
    // it is a proprietary link's own frame (Xerox), which the reason below names.
    if frame.data.count == 1, !context.isoDEPActive { crcFinding = nil }
    var findings = FrameCRC.parityFindings(frame, encrypted: false)
    if let crcFinding { findings.append(crcFinding) }
    let payload = FrameCRC.payload(frame, status: crc)
    var out = FrameLayerResult(
      result: LayerResult(), crc: crc, expectsResponse: frame.direction == .reader,
      newActivation: false)
    if crc == .absent {
      // Proprietary type B links (Xerox, ST SRx anticollision slots) send shorter frames.
      pending = .none
      out.result = .undecoded(
        "\(frame.data.count) byte(s) without CRC_B: not an ISO 14443-3 type B command or "
          + "ISO-DEP block (every one ends with CRC_B)")
    } else if frame.direction == .reader {
      reader(frame, payload: payload, context: &context, into: &out)
    } else {
      out.result = tag(frame, payload: payload, context: &context, into: &out)
    }
    out.result.prependFindings(findings)
    return out
  }

  /// REQB/WUPB, Slot-MARKER and ATTRIB are recognised in any state: none of them is a valid
  /// ISO-DEP PCB (ISO/IEC 14443-4 §7.1.1), so a reader re-polling or re-selecting over an open
  /// link is seen as such.
  private mutating func reader(
    _ frame: Frame, payload: [UInt8], context: inout LinkContext, into out: inout FrameLayerResult
  ) {
    if let request = REQB(parsing: payload) {
      out.newActivation = true
      context.resetActivation()
      context.technology = .nfcB
      reset()
      sawRequest = true
      pending = .request
      out.result = LayerResult(decode: request.decode)
    } else if let marker = SlotMarker(parsing: payload) {
      pending = .request
      out.result = LayerResult(decode: marker.decode)
    } else if let attrib = ATTRIB(parsing: payload) {
      // A new link to the tag ATTRIB names: whatever ISO-DEP state there was is over.
      out.resetsInnerLayers = true
      context.isoDEPActive = false
      if context.uidComplete, context.uid != attrib.identifier {
        // Another PICC of the same slotted round (READY-DECLARED, ISO/IEC 14443-3 §7.8), the
        // first one halted: a new activation, of a tag with its own PUPI.
        out.newActivation = true
        context.uidComplete = false
      }
      pending = .attrib(attrib)
      var findings: [Finding] = []
      if let other = unknownPUPI(attrib) {
        findings.append(
          Finding(
            "attrib-unknown-pupi", .info,
            "ATTRIB names PUPI \(Hex.string(attrib.identifier)), which no ATQB of this "
              + "activation gave (\(other)): a PICC answers only an ATTRIB carrying its own "
              + "PUPI (ISO/IEC 14443-3 §7.10.2), so unless the capture missed that tag's ATQB, "
              + "no tag answers this one", frames: [frame.index], offset: 1))
      }
      var decode = attrib.decode
      if let atqb = answers[attrib.identifier] {
        // The ATQB of the tag ATTRIB selects, which may lie in an earlier session (the second
        // tag of a slotted round): what the tag said of itself goes with its activation.
        decode.fields.append(
          LayerField("atqb", .hex([0x50] + atqb.pupi + atqb.applicationData + atqb.protocolInfo)))
      }
      out.result = LayerResult(decode: decode, findings: findings)
    } else if let halt = HLTB(parsing: payload) {
      pending = .halt
      out.result = LayerResult(decode: halt.decode)
    } else {
      out.result = handOff(frame, payload: payload, crc: out.crc, context: &context)
    }
  }

  /// The PUPIs the activation's ATQBs gave, when ATTRIB names none of them (nil when it
  /// names one, or no ATQB was seen: a capture that missed it proves nothing).
  private func unknownPUPI(_ attrib: ATTRIB) -> String? {
    guard sawRequest, !answers.isEmpty, answers[attrib.identifier] == nil else { return nil }
    let pupis = answers.keys.map { Hex.string($0) }.sorted()
    return "ATQB PUPI " + pupis.joined(separator: ", ")
  }

  private mutating func tag(
    _ frame: Frame, payload: [UInt8], context: inout LinkContext, into out: inout FrameLayerResult
  ) -> LayerResult {
    switch pending {
    case .request:
      pending = .none
      guard let atqb = ATQB(parsing: payload) else {
        return .undecoded(
          "answer to REQB/WUPB should be an ATQB (50 + 11 or 12 bytes), got \(payload.count) bytes")
      }
      if answers.count < 16 { answers[atqb.pupi] = atqb }
      return LayerResult(decode: atqb.decode, findings: atqb.findings(frameIndex: frame.index))
    case .attrib(let attrib):
      pending = .none
      guard let answer = ATTRIBAnswer(parsing: payload) else {
        return .undecoded("empty answer to ATTRIB")
      }
      // A tag whose ATQB says it supports no CID (FO b1 = 0) ignores the CID ATTRIB assigns:
      // its blocks carry none (ISO/IEC 14443-3 §7.9.4.3, §7.10.4: the PCD sets CID 0).
      let ignoresCID = answers[attrib.identifier].map { !$0.cidSupported } ?? false
      if activate(attrib, context: &context) {
        out.isoDEPActivation = ignoresCID ? 0 : attrib.cid
        selectedATQB = answers[attrib.identifier].map {
          (cid: $0.cidSupported, nad: $0.nadSupported)
        }
      }
      var findings: [Finding] = []
      if ignoresCID, attrib.cid != 0 {
        findings.append(
          Finding(
            "cid-not-supported", .warning,
            "ATTRIB assigned CID \(attrib.cid), but the tag's ATQB says it does not support CID "
              + "(ISO/IEC 14443-3 §7.10.4: the reader sets CID 0); the tag ignores it",
            frames: [frame.index]))
      }
      // The answer's CID is the one ATTRIB assigned, or 0 from a tag without CID support
      // (ISO/IEC 14443-3 §7.11).
      // Without the ATQB in the trace, 0 may come from a tag without CID support.
      let expected = ignoresCID ? 0 : attrib.cid
      let atqbSeen = answers[attrib.identifier] != nil
      if answer.cid != expected, atqbSeen || answer.cid != 0 {
        findings.append(
          Finding(
            "attrib-answer-cid", .warning,
            "ATTRIB answer gives CID \(answer.cid), expected \(expected) ("
              + (ignoresCID
                ? "the tag's ATQB supports no CID, so it answers 0"
                : "the CID ATTRIB assigned") + "; ISO/IEC 14443-3 §7.11)",
            frames: [frame.index]))
      }
      return LayerResult(decode: answer.decode, findings: findings)
    case .halt:
      pending = .none
      if payload == [0x00] {
        return LayerResult(decode: LayerDecode(.iso14443B, "HLTB answer", "HLTB answer"))
      }
      return .undecoded("answer to HLTB should be 00, got \(Hex.string(payload, separator: " "))")
    case .none, .inner:
      return handOff(frame, payload: payload, crc: out.crc, context: &context)
    }
  }

  /// The tag answered ATTRIB: it is ACTIVE with the PUPI as its identifier. ISO-DEP blocks
  /// follow, with FSD and CID from ATTRIB and FSC and FWT from its ATQB, when the tag speaks
  /// ISO/IEC 14443-4: its ATQB's Protocol_Type b1 says so, or ATTRIB's Param 3 b1 when the
  /// ATQB is not in the trace (§7.9.4.2, §7.10.4). Returns whether ISO-DEP follows.
  private mutating func activate(_ attrib: ATTRIB, context: inout LinkContext) -> Bool {
    context.uid = attrib.identifier
    context.uidComplete = true
    selected = true
    let atqb = answers[attrib.identifier]
    context.fsd = attrib.fsd
    context.fsc = atqb?.fsc
    context.fwtNs = atqb?.fwtNs
    context.isoDEPActive = atqb?.iso14443_4 ?? attrib.iso14443_4
    return context.isoDEPActive
  }

  private mutating func handOff(
    _ frame: Frame, payload: [UInt8], crc: CRCStatus, context: inout LinkContext
  ) -> LayerResult {
    var findings: [Finding] = []
    if !context.isoDEPActive {
      if selected {
        pending = .none
        return .undecoded(
          "proprietary command: the tag selected by ATTRIB does not speak ISO 14443-4")
      }
      guard !sawRequest, frame.direction == .reader, crc == .ok, let pcb = payload.first,
        isISODEPBlock(pcb)
      else {
        pending = .none
        // A damaged frame may be any command (a REQB whose CRC_B the noise broke): its bytes
        // are not read as one.
        if crc == .bad {
          return .undecoded("damaged frame (CRC_B does not verify): not decoded as a command")
        }
        return .undecoded(
          "not an ISO 14443-3 type B command, and no ATTRIB selected a tag since the last "
            + "REQB/WUPB")
      }
      context.isoDEPActive = true
      findings.append(ISODEPLayer.assumedFinding(pcb: pcb, crcName: "CRC_B", frame: frame.index))
    }
    pending = frame.direction == .reader ? .inner : .none
    var unit = LayerUnit(
      direction: frame.direction, bytes: payload, bits: frame.bits, frameIndex: frame.index,
      timeNs: frame.timeNs)
    unit.damaged = crc == .bad
    return LayerResult(handoff: (.isoDEP, unit), findings: findings)
  }

  /// An I-block (`0x02`/`0x03` + flags), R-block or S-block PCB (ISO/IEC 14443-4 §7.1.1).
  private func isISODEPBlock(_ pcb: UInt8) -> Bool {
    switch pcb & 0xC0 {
    case 0x00: return pcb & 0x22 == 0x02
    case 0x80: return pcb & 0x26 == 0x22
    case 0xC0: return pcb & 0x07 == 0x02
    default: return false
    }
  }
}
