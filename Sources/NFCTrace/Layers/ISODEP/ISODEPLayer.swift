/// ISO/IEC 14443-4 (ISO-DEP): RATS/ATS, PPS, I-/R-/S-blocks, chaining, block numbers.
///
/// Units come from the ISO 14443-3 layer without CRC. The layer keeps: whether an ATS or a
/// PPS answer is due, the block numbers (see `BlockNumbers`), one chaining buffer per direction,
/// the last S(WTX) request and a pending S(DESELECT). It writes `context.fsd` (RATS),
/// `context.ats`, `fsc`, `fwtNs` and `isoDEPActive = true` (ATS), and `isoDEPActive = false`
/// and `deselectAnswered` when an S(DESELECT) is answered.
///
/// Handoff: the INF of an unchained I-block goes to `.iso7816`; chained I-blocks are collected
/// per direction and the whole INF goes to `.iso7816` with the last block, in a unit whose
/// `frameIndex` is the last block's. Intermediate blocks decode as
/// `I-block (chained, part N)` and hand nothing on.
/// Sources: ISO/IEC 14443-4 §5, §7; nfc-facts §2.
public struct ISODEPLayer: ProtocolLayer {
  /// `.isoDEP`.
  public static let protocolID = ProtocolID.isoDEP

  /// INF collected from chained I-blocks of one direction.
  struct Chain: Sendable {
    var bytes: [UInt8] = []
    var parts = 0
    var firstFrame = 0
    /// The last part's PCB and INF length, to replace it when it is sent again.
    var lastPCB: UInt8 = 0
    var lastLength = 0
    /// True when a part between the first and the last was not captured.
    var gap = false
  }

  private var awaitingATS = false
  private var ppsPending: UInt8?
  /// True from the ATS until the reader's first request other than PPS, or a PPS response:
  /// PPS is allowed only as the first request after the ATS (ISO/IEC 14443-4 §5.6).
  private var ppsAllowed = false
  /// The frame of the reader's S(DESELECT) not answered yet.
  private var deselectPending: Int?
  private var wtxRequest: UInt8?
  private var ratsCID: Int?
  /// The ATS of this activation (nil for type B or before one): what CID and NAD it allows.
  private var linkATS: ATS?
  /// What the ATQB of a type B link allows (nil for type A, or when the trace lacks it).
  private var linkATQB: (cid: Bool, nad: Bool)?
  /// The ATQB findings already given on this link: once each, not on every block.
  private var atqbReported = (cid: false, nad: false)
  private var numbers = BlockNumbers()
  private var readerChain = Chain()
  private var tagChain = Chain()
  /// The tag's last I-block that completed an answer: its PCB and the INF of the chained
  /// parts before it (empty for a lone block); and whether the reader then sent R(NAK). The
  /// tag's next block with the same PCB is then that block again (ISO/IEC 14443-4 §7.5.4
  /// rule 11), its bytes intact where the first copy may have been damaged.
  private var lastTagAnswer: (pcb: UInt8, prefix: [UInt8])?
  private var tagBlockNAKed = false
  /// The reader's last chained command: the PCB of its last part and the INF of the parts
  /// before it; and whether an R-block came since. The reader's next I-block with that PCB
  /// after an R-block exchange is the last part sent again (the tag answered the reader's
  /// R(NAK) with R(ACK): ISO/IEC 14443-4 §7.5.4 rules 6 and 12), which completes the same
  /// command, not a command of its own.
  private var lastReaderChain: (pcb: UInt8, prefix: [UInt8])?
  private var rBlockSinceReaderIBlock = false
  /// True when the reader's last I-block (or chain) carried a command APDU not answered yet.
  private var readerSentAPDU = false
  /// True from the reader's unchained I-block until the tag's next block (an S(WTX) exchange
  /// between keeps it): the tag owes an I-block, and an R(ACK) is no answer (§7.5.4).
  private var readerAwaitsIBlock = false
  /// The frames of the reader's last I-block and last R(ACK).
  private var lastReaderIBlock: Int?
  private var lastReaderACK: Int?
  /// A damaged tag block since the reader's last I-block (the sniffer's copy of an answer the
  /// reader may have received intact).
  private var damagedTagBlock: Int?
  /// Lone I-blocks repeat with every exchange (see `DecodeCache`); kept across activations.
  private var cache = DecodeCache<ShortBytesKey>()

  /// An idle layer.
  public init() {}

  /// Forgets everything (new activation or field off).
  public mutating func reset() {
    let kept = cache
    self = ISODEPLayer()
    cache = kept
  }

  /// Decodes one unit (a frame without CRC, or the answer to RATS/PPS).
  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    guard let first = unit.bytes.first else {
      // A tag frame the capture cut before its first byte: an answer whose content is lost.
      if unit.cutByCapture, unit.direction == .tag {
        return LayerResult(
          decode: LayerDecode(.isoDEP, "I-block", "block cut by the capture (no byte kept)", []),
          handoff: (.iso7816, unit))
      }
      if unit.readerDamaged, unit.direction == .tag {
        return LayerResult(decode: ReaderFailure.damaged(.isoDEP, command: nil))
      }
      return .undecoded("empty ISO-DEP frame")
    }
    if unit.direction == .reader {
      awaitingATS = false
      if let rats = RATS(unit.bytes) { return decodeRATS(rats, unit: unit, context: &context) }
      ppsPending = nil
      let ppsWasAllowed = ppsAllowed
      if let pps = PPSRequest(unit.bytes) {
        ppsPending = pps.ppss
        var problems = pps.problems(ta: linkATS?.ta, atsSeen: linkATS != nil)
        if let assigned = ratsCID, pps.cid != assigned {
          problems.append("PPSS carries CID \(pps.cid), RATS assigned CID \(assigned)")
        }
        var findings =
          problems.isEmpty
          ? []
          : [
            Finding(
              "invalid-pps", .warning,
              problems.joined(separator: "; ") + " (ISO/IEC 14443-4 §5.3)",
              frames: [unit.frameIndex], offset: 1)
          ]
        if !ppsWasAllowed, linkATS != nil { findings.append(Self.ppsNotFirst(unit)) }
        return LayerResult(decode: pps.decode, findings: findings)
      }
      ppsAllowed = false
    } else {
      if awaitingATS {
        awaitingATS = false
        if Self.isNAK(unit) { return Self.refusedRATS(unit) }
        return decodeATS(unit, context: &context)
      }
      // The PPS response is one byte, PPSS `Dx` (ISO/IEC 14443-4 §5.4); another CID than the
      // request's is still that response, not a block.
      if let ppss = ppsPending, unit.bytes.count == 1, first & 0xF0 == 0xD0 {
        ppsPending = nil
        ppsAllowed = false
        return LayerResult(
          decode: PPSRequest.responseDecode(first),
          findings: PPSRequest.responseFindings(first, request: ppss, frame: unit.frameIndex))
      }
    }
    guard let block = ISODEPBlock(unit.bytes) else {
      if let kind = ISODEPBlock.kind(of: first) {
        return .undecoded(
          "\(kind.rawValue) PCB 0x\(Hex.string([first])) announces a CID or NAD byte the block "
            + "does not have")
      }
      return .undecoded("PCB 0x\(Hex.string([first])) is not an I-, R- or S-block")
    }
    // A tag block damaged in the capture does not count (ISO/IEC 14443-4 §7.5.4: the reader
    // answers an invalid block by R(NAK), or R(ACK) while the tag chains, with the unchanged
    // number). A damaged reader block still counts: the sniffer's copy being damaged says
    // nothing of the tag's, and the tag's answer shows it got it.
    let numbersBefore = numbers
    defer {
      if unit.damaged, unit.direction == .tag {
        numbers = numbersBefore
        damagedTagBlock = unit.frameIndex
      }
    }
    var findings = sizeFindings(unit, context: context)
    let cidProblems = cidFindings(block, unit: unit)
    if !cidProblems.isEmpty { findings += cidProblems }
    if let f = ackToUnchainedFinding(block, unit: unit) { findings.append(f) }
    var result: LayerResult
    switch block.kind {
    case .iBlock: result = decodeIBlock(block, unit: unit)
    case .rACK, .rNAK: result = decodeRBlock(block, unit: unit)
    case .sDeselect: result = decodeDeselect(block, unit: unit, context: &context)
    case .sWTX: result = decodeWTX(block, unit: unit, context: context)
    case .sParameters:
      result = LayerResult(
        decode: LayerDecode(
          .isoDEP, "S(PARAMETERS)",
          "S(PARAMETERS)" + block.addressText + ", INF " + Hex.string(block.inf, separator: " "),
          block.baseFields + [LayerField("inf", .hex(block.inf))]))
    case .sOther:
      result = LayerResult(
        decode: LayerDecode(
          .isoDEP, "S-block", "S-block 0x\(Hex.string([block.pcb]))" + block.addressText,
          block.baseFields + [LayerField("inf", .hex(block.inf))]),
        findings: [Self.rfuSBlockFinding(block, unit: unit)])
    }
    result.prependFindings(findings)
    return result
  }

  /// `iso-dep-assumed` (info): a reader block with a valid CRC (`crcName`: CRC_A or CRC_B)
  /// taken as ISO-DEP although the trace shows no activation (it starts mid-session).
  static func assumedFinding(pcb: UInt8, crcName: String, frame: Int) -> Finding {
    Finding(
      "iso-dep-assumed", .info,
      "No activation seen: the block PCB \(Hex.string([pcb])) with a valid \(crcName) is taken "
        + "as ISO-DEP", frames: [frame])
  }

  // MARK: - Activation

  private mutating func decodeRATS(_ rats: RATS, unit: LayerUnit, context: inout LinkContext)
    -> LayerResult
  {
    awaitingATS = true
    ppsPending = nil
    ratsCID = rats.cid
    context.fsd = rats.fsd
    // The decodes of RATS and ATS are functions of their bytes: made once per activation
    // parameters a trace repeats (every tap of the same tag).
    let decode = cache.decode(kind: Self.ratsKind, bytes: unit.bytes) { rats.decode }
    return LayerResult(decode: decode, findings: rats.findings(frameIndex: unit.frameIndex))
  }

  /// A 1-byte answer with no CRC that fits 4 bits, whatever bit count the source recorded
  /// (sniffers miscount short frames): an ATS always carries CRC_A after TL (ISO/IEC 14443-4
  /// §5.2), and a 1-byte ATS is `01` + CRC.
  private static func isNAK(_ unit: LayerUnit) -> Bool {
    unit.bytes.count == 1 && !unit.carriedCRC && unit.bytes[0] <= 0x0F
  }

  /// The NAK of a tag that is not ISO-DEP: a MIFARE Classic, to which RATS (E0h) is an
  /// unknown command, answers with a 4-bit NAK (MF1S50 datasheet §9.3, NAK codes; seen as
  /// `04(4)` in Proxmark3 sniffs of phones) instead of an ATS. The link stays ISO 14443-3.
  private static func refusedRATS(_ unit: LayerUnit) -> LayerResult {
    let code = Int(unit.bytes[0])
    return LayerResult(
      decode: LayerDecode(
        .isoDEP, "NAK",
        "NAK 0x\(String(code, radix: 16, uppercase: true)) to RATS: the tag is not ISO-DEP "
          + "(ISO/IEC 14443-4), e.g. a MIFARE Classic",
        [LayerField("nak_code", .int(code)), LayerField("command", .string("RATS"))]))
  }

  private mutating func decodeATS(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    let ats = ATS(unit.bytes)
    linkATS = ats
    linkATQB = nil
    context.ats = unit.bytes
    context.fsc = ats.fsc
    context.fwtNs = ats.fwtNs
    context.isoDEPActive = true
    numbers.activate()
    readerChain = Chain()
    tagChain = Chain()
    readerAwaitsIBlock = false
    ppsAllowed = true
    var findings = ats.findings(frameIndex: unit.frameIndex)
    // ISO/IEC 14443-4 §5.2.1: TL shall not exceed FSD − 2 (the ATS and its CRC_A fit the
    // reader's buffer), as for any frame the tag sends.
    if let fsd = context.fsd, unit.bytes.count + 2 > fsd {
      findings.append(
        Finding(
          "ats-exceeds-fsd", .error,
          "ATS of \(unit.bytes.count + 2) bytes (with CRC) exceeds FSD \(fsd) of the RATS: TL "
            + "shall not exceed FSD − 2 (ISO/IEC 14443-4 §5.2.1)", frames: [unit.frameIndex]))
    }
    // Only a tag whose final SAK has b6 set speaks ISO/IEC 14443-4 (ISO/IEC 14443-3 §6.5.3.4).
    if context.uidComplete, let sak = context.sak, !SAK(sak).iso14443_4 {
      findings.append(
        Finding(
          "ats-without-iso14443-4", .info,
          "The tag answered RATS with an ATS although its SAK \(Hex.string([sak])) does not "
            + "announce ISO/IEC 14443-4 (b6 clear, ISO/IEC 14443-3 §6.5.3.4): a MIFARE Plus in "
            + "security level 1 may do so; otherwise an emulator, or frames of two tags",
          frames: [unit.frameIndex]))
    }
    let decode = cache.decode(kind: Self.atsKind, bytes: unit.bytes) { ats.decode }
    return LayerResult(decode: decode, findings: findings)
  }

  /// `cache` kinds of the RATS and ATS decodes (I-blocks use 400h–403h).
  private static let ratsKind: UInt32 = 0x500
  private static let atsKind: UInt32 = 0x501

  /// Opens the link without RATS/ATS: a type B tag answered ATTRIB with `cid` (ISO/IEC
  /// 14443-3 §7.10–§7.11). Block numbering starts over (ISO/IEC 14443-4 §7.5.3 rules A, B)
  /// and blocks are checked against the CID, and against the CID and NAD support the tag's
  /// `atqb` gives (ISO/IEC 14443-3 §7.9.4.3), when the trace holds it.
  public mutating func activate(cid: Int, atqb: (cid: Bool, nad: Bool)? = nil) {
    ratsCID = cid
    linkATS = nil
    linkATQB = atqb
    atqbReported = (false, false)
    numbers.activate()
    readerChain = Chain()
    tagChain = Chain()
    readerAwaitsIBlock = false
  }

  // MARK: - Blocks

  private mutating func decodeIBlock(_ block: ISODEPBlock, unit: LayerUnit) -> LayerResult {
    let reader = unit.direction == .reader
    var findings: [Finding] = []
    if reader {
      switch numbers.readerIBlock(block.blockNumber) {
      case .ok: break
      case .commandMissed: break  // tag blocks only
      case .unexpected(let expected):
        findings.append(blockNumberFinding(block, expected: expected, unit: unit))
      case .answerMissed:
        findings.append(answerMissedFinding(block, unit: unit, previous: lastReaderIBlock))
      }
      lastReaderIBlock = unit.frameIndex
      damagedTagBlock = nil
    } else {
      switch numbers.tagIBlock(block.blockNumber, chaining: block.chaining) {
      case .ok: break
      case .unexpected(let expected):
        findings.append(blockNumberFinding(block, expected: expected, unit: unit))
      case .answerMissed:
        findings.append(
          Finding(
            "ack-not-captured", .info,
            "I-block from the tag has block number \(block.blockNumber), toggled after its "
              + "chained part: a tag toggles on an R(ACK) of the other number (ISO/IEC 14443-4 "
              + "§7.5.3.2, PICC rule E), so the reader acknowledged the part and the capture does not have "
              + "its R(ACK)", frames: [unit.frameIndex]))
      case .commandMissed:
        findings.append(
          Finding(
            "command-not-captured", .info,
            "I-block from the tag has block number \(block.blockNumber), toggled from its last "
              + "I-block with no reader I-block or R(ACK) in the trace since: a tag sends an "
              + "I-block only to answer one (ISO/IEC 14443-4 §7.5.3.2, PICC rules), so the reader "
              + "sent a command the capture does not have", frames: [unit.frameIndex]))
      }
    }
    // A reader I-block starts a new command: an unfinished tag chain is abandoned. A tag
    // I-block ends the reader's chain the same way: the tag answers every chained part with
    // R(ACK) and sends an I-block only once the command is complete (§7.5.2), so either the
    // last part is missing from the capture or the tag broke the chaining rules.
    var endsReaderChain = false
    if reader, tagChain.parts > 0 {
      findings.append(brokenChainFinding(tagChain, unit: unit, who: "tag"))
      tagChain = Chain()
    } else if !reader, readerChain.parts > 0 {
      endsReaderChain = true
      var f = brokenChainFinding(readerChain, unit: unit, who: "reader")
      f.message +=
        ": the tag answered with an I-block instead of R(ACK), so the last part is missing "
        + "from the capture or the tag answered a chained block (ISO/IEC 14443-4 §7.5.2 asks "
        + "for R(ACK))"
      findings.append(f)
      readerChain = Chain()
    }
    // Taken out of the layer while it grows, so appending a part does not copy the bytes of
    // every part before it (a long chain was quadratic); stored back below.
    var chain: Chain
    if reader {
      chain = readerChain
      readerChain = Chain()
    } else {
      chain = tagChain
      tagChain = Chain()
    }
    if let f = nadInChainFinding(block, chain: chain, unit: unit) { findings.append(f) }
    let naked = !reader && tagBlockNAKed
    tagBlockNAKed = false
    if block.chaining {
      if chain.parts > 0, chain.lastPCB == block.pcb {
        // The same block again (its number did not toggle): the part sent again after an
        // R(NAK) or a lost R(ACK) replaces its first copy (ISO/IEC 14443-4 §7.5.4).
        chain.bytes.removeLast(min(chain.lastLength, chain.bytes.count))
      } else {
        if chain.parts == 0 { chain.firstFrame = unit.frameIndex }
        chain.parts += 1
      }
      chain.bytes += block.inf
      chain.lastPCB = block.pcb
      chain.lastLength = block.inf.count
      store(chain, reader: reader)
      var fields = Self.iBlockFields(block) + [LayerField("part", .int(chain.parts))]
      // What the chain carries is known from its first part: the APDU's CLA INS P1 P2.
      if reader, chain.parts == 1, block.inf.count >= 4 {
        fields.append(LayerField("apdu_header", .hex(Array(block.inf.prefix(4)))))
      }
      return LayerResult(
        decode: LayerDecode(.isoDEP, "I-block", "I-block (chained, part \(chain.parts))", fields),
        findings: findings)
    }
    var payload = block.inf
    let lone = chain.parts == 0
    // The reader's chain's last part sent again (after R(NAK) → R(ACK)): the whole command.
    var lastPartAgain = false
    if reader {
      if lone, rBlockSinceReaderIBlock, let last = lastReaderChain, last.pcb == block.pcb {
        lastPartAgain = true
        payload = last.prefix + block.inf
      } else {
        lastReaderChain = lone ? nil : (block.pcb, chain.bytes)
      }
      rBlockSinceReaderIBlock = false
    }
    let decode: LayerDecode
    if chain.parts > 0, chain.gap {
      // A part is missing: the bytes around the hole are not the answer; nothing to hand on.
      store(Chain(), reader: reader)
      let summary = "I-block \(block.blockNumber) (last of a chain with a part not captured)"
      return LayerResult(
        decode: LayerDecode(.isoDEP, "I-block", summary, Self.iBlockFields(block)),
        findings: findings)
    }
    if chain.parts > 0 {
      payload = chain.bytes + block.inf
      let parts = chain.parts + 1
      let summary =
        "I-block \(block.blockNumber) (last of \(parts) chained parts, \(payload.count) bytes)"
      let fields =
        Self.iBlockFields(block) + [
          LayerField("part", .int(parts)), LayerField("reassembled_length", .int(payload.count)),
        ]
      store(Chain(), reader: reader)
      decode = LayerDecode(.isoDEP, "I-block", summary, fields)
    } else {
      // A lone I-block's decode depends on its prologue and INF length only.
      let b = block
      let make = {
        LayerDecode(
          .isoDEP, "I-block", "I-block \(b.blockNumber)" + b.addressText, Self.iBlockFields(b))
      }
      let n = block.inf.count
      let prologue = [
        block.pcb, block.cidByte ?? 0, block.nad ?? 0, UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF),
      ]
      let kind: UInt32 = 0x400 | (block.cidByte == nil ? 0 : 1) | (block.nad == nil ? 0 : 2)
      // INF lengths past 16 bits do not fit the key's two length bytes.
      decode = n < 0x10000 ? cache.decode(kind: kind, bytes: prologue, make) : make()
    }
    var resent = false
    if naked, lone, let last = lastTagAnswer, last.pcb == block.pcb {
      resent = true
      payload = last.prefix + block.inf
    }
    if reader {
      lastTagAnswer = nil
    } else {
      lastTagAnswer = (block.pcb, resent ? lastTagAnswer?.prefix ?? [] : (lone ? [] : chain.bytes))
    }
    var shown = decode
    if resent { shown.summary += " (retransmission)" }
    if lastPartAgain {
      shown.summary += " (the chain's last part sent again: \(payload.count) bytes)"
      shown.fields.append(LayerField("reassembled_length", .int(payload.count)))
    }
    // A response APDU holds at least SW1 SW2 (ISO/IEC 7816-4 §5.1): an empty I-block answers
    // only an empty one (a presence check).
    if !reader, payload.isEmpty, !unit.cutByCapture, readerSentAPDU {
      findings.append(
        Finding(
          "malformed-apdu", .warning,
          "Empty I-block answering a command APDU: a response APDU carries at least SW1 SW2 "
            + "(ISO/IEC 7816-4 §5.1)", frames: [unit.frameIndex]))
    }
    readerSentAPDU = reader && !payload.isEmpty
    // An empty INF carries no APDU, unless the capture cut the frame before it.
    guard !payload.isEmpty || unit.cutByCapture else {
      return LayerResult(decode: shown, findings: findings)
    }
    var inner = LayerUnit(
      direction: unit.direction, bytes: payload, frameIndex: unit.frameIndex, timeNs: unit.timeNs,
      retransmission: resent)
    inner.cutByCapture = unit.cutByCapture
    inner.answersIncompleteCommand = endsReaderChain
    return LayerResult(decode: shown, handoff: (.iso7816, inner), findings: findings)
  }

  private static func iBlockFields(_ block: ISODEPBlock) -> [LayerField] {
    block.baseFields + [LayerField("inf_length", .int(block.inf.count))]
  }

  private mutating func store(_ chain: Chain, reader: Bool) {
    if reader { readerChain = chain } else { tagChain = chain }
  }

  private mutating func decodeRBlock(_ block: ISODEPBlock, unit: LayerUnit) -> LayerResult {
    rBlockSinceReaderIBlock = true
    var findings: [Finding] = []
    let n = block.blockNumber
    if block.kind == .rACK {
      let reader = unit.direction == .reader
      if reader {
        switch numbers.readerACK(n) {
        case .ok: break
        case .commandMissed: break  // tag blocks only
        case .unexpected(let expected):
          findings.append(blockNumberFinding(block, expected: expected, unit: unit))
        case .answerMissed:
          // The tag's chained part before it was not captured: its chain has a hole.
          if tagChain.parts > 0 { tagChain.gap = true }
          findings.append(answerMissedFinding(block, unit: unit, previous: lastReaderACK))
        }
        lastReaderACK = unit.frameIndex
      } else if let expected = numbers.tagACK(n) {
        findings.append(blockNumberFinding(block, expected: expected, unit: unit))
      }
    }
    if block.kind == .rNAK, unit.direction == .reader {
      numbers.readerNAK(n)
      if lastTagAnswer != nil || tagChain.parts > 0 { tagBlockNAKed = true }
    } else if block.kind == .rNAK {
      findings.append(tagNAKFinding(unit))
    }
    let name = block.kind.rawValue
    return LayerResult(
      decode: LayerDecode(.isoDEP, name, "\(name) \(n)" + block.addressText, block.baseFields),
      findings: findings)
  }

  private mutating func decodeDeselect(
    _ block: ISODEPBlock, unit: LayerUnit, context: inout LinkContext
  ) -> LayerResult {
    var summary = "S(DESELECT)"
    if unit.direction == .reader {
      deselectPending = unit.frameIndex
    } else if let deselect = deselectPending {
      deselectPending = nil
      context.isoDEPActive = false
      context.deselectAnswered = deselect
      summary += " answer"
    }
    // S(DESELECT) carries no INF (ISO/IEC 14443-4 block format; only S(WTX) and S(PARAMETERS)
    // have one): bytes there mean a damaged or non-conforming block.
    let findings =
      block.inf.isEmpty
      ? []
      : [
        Finding(
          "s-deselect-inf", .warning,
          "S(DESELECT) with \(block.inf.count) INF byte(s) (\(Hex.string(block.inf))): it has no "
            + "INF field (ISO/IEC 14443-4, block format)", frames: [unit.frameIndex])
      ]
    return LayerResult(
      decode: LayerDecode(.isoDEP, "S(DESELECT)", summary + block.addressText, block.baseFields),
      findings: findings)
  }

  private mutating func decodeWTX(_ block: ISODEPBlock, unit: LayerUnit, context: LinkContext)
    -> LayerResult
  {
    guard let inf = block.inf.first else {
      return LayerResult(
        decode: LayerDecode(.isoDEP, "S(WTX)", "S(WTX) without INF", block.baseFields),
        findings: [
          Finding(
            "malformed-wtx", .warning, "S(WTX) must carry 1 INF byte (WTXM)",
            frames: [unit.frameIndex])
        ])
    }
    let wtxm = Int(inf & 0x3F)
    var fields = block.baseFields + [LayerField("wtxm", .int(wtxm))]
    var findings: [Finding] = []
    let request = unit.direction == .tag
    if let fwt = context.fwtNs, wtxm > 0 {
      fields.append(
        LayerField(
          "fwt_temp_us",
          .int(ISODEPTiming.micros(ISODEPTiming.temporaryFWTNs(fwt: fwt, wtxm: Int64(wtxm))))))
    }
    if !(1...59).contains(wtxm) {
      findings.append(
        Finding(
          "invalid-wtxm", .warning, "WTXM \(wtxm) is outside 1…59", frames: [unit.frameIndex]))
    }
    var powerText = ""
    if request {
      wtxRequest = inf & 0x3F
      let power = Int(inf >> 6)
      if power != 0 {
        fields.append(LayerField("power_level", .int(power)))
        powerText = ", power level \(power) (\(Self.powerLevelMeaning[power]))"
      }
    } else {
      if let asked = wtxRequest, asked != inf & 0x3F {
        findings.append(
          Finding(
            "wtx-mismatch", .warning,
            "S(WTX) answer WTXM \(wtxm) differs from the request's WTXM \(asked)",
            frames: [unit.frameIndex]))
      }
      wtxRequest = nil
    }
    let summary =
      "S(WTX) \(request ? "request" : "answer") WTXM \(wtxm)" + powerText + block.addressText
    return LayerResult(decode: LayerDecode(.isoDEP, "S(WTX)", summary, fields), findings: findings)
  }

  /// The power level indication of a tag's S(WTX) request, INF bits 8–7 (ISO/IEC 14443-4
  /// §7.1.1.3, S(WTX) INF coding): 0 is "not supported" and not shown.
  static let powerLevelMeaning = [
    "no indication", "insufficient power for full functionality",
    "sufficient power for full functionality", "more than sufficient power for full functionality",
  ]

  // MARK: - Findings

  private func blockNumberFinding(_ block: ISODEPBlock, expected: Int, unit: LayerUnit) -> Finding {
    let who = unit.direction == .reader ? "reader" : "tag"
    return Finding(
      "unexpected-block-number", .warning,
      "\(block.kind.rawValue) from the \(who) has block number \(block.blockNumber), expected "
        + "\(expected) (ISO/IEC 14443-4 block numbering rules)", frames: [unit.frameIndex])
  }

  /// `rfu-pcb`: an S-block PCB whose b6–b5 are `01` or `10`, which ISO/IEC 14443-4 §7.1.1.1
  /// leaves RFU (`00` DESELECT, `11` WTX or, with b2 clear, PARAMETERS): an invalid block,
  /// which a PICC ignores (§7.5.4, PICC rules), so it gets no answer.
  private static func rfuSBlockFinding(_ block: ISODEPBlock, unit: LayerUnit) -> Finding {
    let bits = block.pcb & 0x10 != 0 ? "01" : "10"
    return Finding(
      "rfu-pcb", .warning,
      "S-block PCB \(Hex.string([block.pcb])) has b6–b5 = \(bits), which is RFU (00 is "
        + "DESELECT, 11 WTX or PARAMETERS; ISO/IEC 14443-4 §7.1.1.1): an invalid block, which a "
        + "PICC ignores without answering (§7.5.4)", frames: [unit.frameIndex])
  }

  /// `pps-not-first`: a PPS request after the reader's first request since the ATS, or after
  /// an answered PPS. PPS is allowed only as the first request after the ATS (ISO/IEC 14443-4
  /// §5.6): later the PICC takes `Dx` as an invalid block and does not answer it.
  private static func ppsNotFirst(_ unit: LayerUnit) -> Finding {
    Finding(
      "pps-not-first", .warning,
      "PPS request after other requests since the ATS (or after a PPS answered): PPS is allowed "
        + "only as the reader's first request after the ATS (ISO/IEC 14443-4 §5.6); a tag past "
        + "it takes the PPS as an invalid block and does not answer", frames: [unit.frameIndex])
  }

  /// `tag-sent-rnak`: only the reader sends R(NAK); a tag stays silent on a block it cannot
  /// take and answers an R(NAK) with R(ACK) or its last block (ISO/IEC 14443-4 §7.5.4, PICC
  /// rules), so the frame is a non-conforming tag's, or the capture swapped the directions.
  private func tagNAKFinding(_ unit: LayerUnit) -> Finding {
    Finding(
      "tag-sent-rnak", .warning,
      "R(NAK) from the tag: a tag never sends R(NAK) — it stays silent on an invalid block "
        + "(ISO/IEC 14443-4 §7.5.4, PICC rules); the tag does not conform, or the capture has "
        + "the directions swapped", frames: [unit.frameIndex])
  }

  /// `tag-ack-to-unchained-block`: the tag's R(ACK) answers the reader's unchained I-block. A
  /// tag sends R(ACK) only to acknowledge a chained block (ISO/IEC 14443-4 §7.5.2) or to
  /// answer an R(NAK) (§7.5.4, PICC rules; nfc-facts §2.6), so the command got no response
  /// APDU. Follows which block the tag owes (`readerAwaitsIBlock`); a damaged tag block, whose
  /// PCB may be garbled, is neither flagged nor counted.
  private mutating func ackToUnchainedFinding(_ block: ISODEPBlock, unit: LayerUnit)
    -> Finding?
  {
    let awaited = readerAwaitsIBlock
    let tag = unit.direction == .tag
    guard block.kind != .sWTX, !(tag && unit.damaged) else { return nil }
    readerAwaitsIBlock = !tag && block.kind == .iBlock && !block.chaining
    guard tag, awaited, block.kind == .rACK else { return nil }
    return Finding(
      "tag-ack-to-unchained-block", .warning,
      "R(ACK) from the tag answering an unchained I-block: a tag sends R(ACK) only to "
        + "acknowledge a chained block or to answer an R(NAK) (ISO/IEC 14443-4 §7.5.4, PICC "
        + "rules); the command got no response APDU", frames: [unit.frameIndex])
  }

  /// `answer-not-captured`: the reader's I-block toggled its number with no answer to its
  /// previous one in the trace.
  private func answerMissedFinding(_ block: ISODEPBlock, unit: LayerUnit, previous frame: Int?)
    -> Finding
  {
    let previous = frame.map { "frame \($0)" } ?? "its previous block"
    let copy =
      damagedTagBlock.map { "has only a damaged copy of that answer (frame \($0))" }
      ?? "does not have that answer"
    return Finding(
      "answer-not-captured", .warning,
      "\(block.kind.rawValue) from the reader has block number \(block.blockNumber), toggled: a "
        + "reader toggles "
        + "only on receiving the tag's answer (ISO/IEC 14443-4 §7.5.3, PCD rule B), so the tag "
        + "answered \(previous) and the capture \(copy)",
      frames: (frame.map { [$0] } ?? []) + [unit.frameIndex])
  }

  private func brokenChainFinding(_ chain: Chain, unit: LayerUnit, who: String) -> Finding {
    Finding(
      "incomplete-chain", .warning,
      "The \(who)'s chain of \(chain.parts) I-block(s) never got its last block; "
        + "\(chain.bytes.count) bytes dropped", frames: [chain.firstFrame, unit.frameIndex])
  }

  /// Frame size = PCB..INF + 2 CRC bytes, against FSD (tag→reader) or FSC (reader→tag).
  private func sizeFindings(_ unit: LayerUnit, context: LinkContext) -> [Finding] {
    let size = unit.bytes.count + 2
    if unit.direction == .tag, let fsd = context.fsd, size > fsd {
      return [
        Finding(
          "frame-exceeds-fsd", .error,
          "Tag frame of \(size) bytes (with CRC) exceeds FSD \(fsd)", frames: [unit.frameIndex])
      ]
    }
    if unit.direction == .reader, let fsc = context.fsc, size > fsc {
      return [
        Finding(
          "frame-exceeds-fsc", .error,
          "Reader frame of \(size) bytes (with CRC) exceeds FSC \(fsc)",
          frames: [unit.frameIndex])
      ]
    }
    return []
  }

  /// A CID that differs from the one RATS assigned.
  /// CID and NAD against what RATS/ATTRIB assigned and the ATS's TC(1) allows (ISO/IEC
  /// 14443-4 §5.2.6, §7.1.1.2–§7.1.1.3).
  private mutating func cidFindings(_ block: ISODEPBlock, unit: LayerUnit) -> [Finding] {
    var out: [Finding] = []
    if let cid = block.cid, let assigned = ratsCID, cid != assigned {
      out.append(
        Finding(
          "unexpected-cid", .warning,
          "Block carries CID \(cid), RATS or ATTRIB assigned CID \(assigned)",
          frames: [unit.frameIndex], offset: 1))
    }
    // A tag given a CID other than 0 answers only blocks that carry it (§7.1.1.2).
    if block.cid == nil, let assigned = ratsCID, assigned != 0, linkATS?.cidSupported ?? true {
      out.append(
        Finding(
          "unexpected-cid", .warning,
          "Block carries no CID, RATS or ATTRIB assigned CID \(assigned): a tag given a CID "
            + "other than 0 answers only blocks that carry it (ISO/IEC 14443-4 §7.1.1.2)",
          frames: [unit.frameIndex]))
    }
    // Type B: the ATQB's FO says what the tag supports; once each per link.
    if let atqb = linkATQB {
      let source = "the tag's ATQB says it does not support"
      let section = "14443-3 §7.9.4.3"
      if block.cid != nil, !atqb.cid, !atqbReported.cid {
        atqbReported.cid = true
        out.append(Self.notSupported("CID", source, section, unit: unit, offset: 1))
      }
      if block.nad != nil, !atqb.nad, unit.direction == .reader, !atqbReported.nad {
        atqbReported.nad = true
        out.append(
          Self.notSupported(
            "NAD", source, section, unit: unit, offset: block.cidByte == nil ? 1 : 2))
      }
    }
    guard let ats = linkATS, let tc = ats.tc else { return out }
    let cidUnsupported = block.cid != nil && !ats.cidSupported
    let nadUnsupported = block.nad != nil && !ats.nadSupported && unit.direction == .reader
    // The message only when a finding needs it: this runs for every block.
    guard cidUnsupported || nadUnsupported else { return out }
    let source = "the ATS (TC(1) \(Hex.string([tc]))) says the tag does not support"
    if cidUnsupported {
      out.append(Self.notSupported("CID", source, "14443-4 §5.2.6", unit: unit, offset: 1))
    }
    if nadUnsupported {
      out.append(
        Self.notSupported(
          "NAD", source, "14443-4 §5.2.6", unit: unit, offset: block.cidByte == nil ? 1 : 2))
    }
    return out
  }

  /// `cid-not-supported` / `nad-not-supported`: a block carrying a `what` (CID or NAD) that
  /// `source` (the ATS or ATQB, phrased "… says the tag does not support") rules out.
  private static func notSupported(
    _ what: String, _ source: String, _ section: String, unit: LayerUnit, offset: Int
  ) -> Finding {
    Finding(
      what.lowercased() + "-not-supported", .warning,
      (what == "CID" ? "Block carries a CID" : "I-block carries a NAD") + ", but " + source
        + " " + what + " (ISO/IEC " + section + ")", frames: [unit.frameIndex], offset: offset)
  }

  /// A NAD on a block that continues a chain: only the first block of a chain carries it
  /// (ISO/IEC 14443-4 §7.1.1.3).
  private func nadInChainFinding(_ block: ISODEPBlock, chain: Chain, unit: LayerUnit) -> Finding? {
    guard block.nad != nil, chain.parts > 0, chain.lastPCB != block.pcb else { return nil }
    return Finding(
      "nad-in-chain", .warning,
      "I-block \(chain.parts + 1) of a chain carries a NAD; only the first block of a chain "
        + "may (ISO/IEC 14443-4 §7.1.1.3)", frames: [unit.frameIndex],
      offset: block.cidByte == nil ? 1 : 2)
  }
}
