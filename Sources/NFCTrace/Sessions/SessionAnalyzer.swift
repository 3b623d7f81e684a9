import NDEF

/// An operation starting (before its first frame) or ending (after its last frame).
public enum OperationEvent: Sendable {
  /// An operation of `kind` starts at frame `frame`.
  case started(OperationKind, frame: Int)
  /// The operation ended, with its outcome.
  case ended(Operation)
}

/// The connect waiting while discovery SELECTs are held, with the Type 4 procedure as it was
/// before them: boxed, so the analyzer (copied as a value) stays small.
final class HeldConnect: Sendable {
  let connect: Operation
  let type4: Type4Procedure
  init(_ connect: Operation, _ type4: Type4Procedure) {
    self.connect = connect
    self.type4 = type4
  }
}

extension SessionAnalysis {
  /// Whether the session's NDEF lives in Type 2 pages rather than a Type 4 file: the tag is
  /// not ISO-DEP and no Type 4 CC was read.
  var usesType2Memory: Bool { !(tag.isISODEP || type4CC != nil) }

  /// The memory holding the NDEF length field as the session left it: the Type 2 image, or
  /// the Type 4 NDEF file's (empty when the session never touched it). Offsets: Type 2 byte
  /// addresses from page 0, Type 4 file offsets.
  var ndefImageEnd: ByteImage {
    usesType2Memory
      ? memory.type2End : memory.filesEnd[type4NDEFFile ?? 0xE104] ?? ByteImage()
  }
}

/// Everything reconstructed from one session.
public struct SessionAnalysis: Sendable {
  /// The session's frames span and UID.
  public var info: SessionInfo
  /// The tag.
  public var tag: TagIdentity
  /// Operations in order.
  public var operations: [Operation]
  /// `queryNDEFStatus`'s result, when the session shows it.
  public var ndefStatus: (status: NDEFStatus, capacity: Int?)?
  /// Why the status is what it is.
  public var ndefStatusReason: String?
  /// The tag's memory as found and as left.
  public var memory: TagMemory
  /// Type 4 capability container, if read.
  public var type4CC: CapabilityContainer4?
  /// Type 4 NDEF file id (from the CC).
  public var type4NDEFFile: UInt16?
  /// True when a PWD_AUTH was accepted in this session.
  public var authenticated: Bool
  /// False when no frame of the tag was captured in the session (a sniffer that heard only
  /// the reader): the session is known from the reader's commands, every outcome is unknown.
  public var tagHeard = true
  /// False when no frame of the reader was captured in the session (a sniffer that heard only
  /// the tag, or a reader chip's log that shows the activation and nothing sent after it).
  public var readerHeard = true
  /// True when the log recorded the session's data packets without their payload
  /// (`ReaderChipFlag.dataNotLogged`: an Android NFC snoop log not in full mode).
  public var dataNotLogged = false
  /// True when a tag frame of the session was heard on the air, not an activation a reader
  /// chip reported (`ReaderChipFlag.targetInfo`).
  public var tagOnAir = false

  /// `ndefStatusReason`, followed — when the session's last queryNDEFStatus did not succeed —
  /// by a note that the app got an error, not the status (`queryNDEFStatus interrupted: the
  /// app got an error, not this status (…)`): the status comes from the CC the query read
  /// before it failed.
  public var ndefStatusReasonAsReturned: String? {
    let last = operations.last { $0.kind == .queryNDEFStatus }
    let note = last.flatMap { q -> String? in
      guard q.outcome != .ok else { return nil }
      return "queryNDEFStatus \(q.outcome.rawValue): the app got an error, not this status"
        + (q.reason.map { " (\($0))" } ?? "")
    }
    let reason = [ndefStatusReason, note].compactMap { $0 }.joined(separator: "; ")
    return reason.isEmpty ? nil : reason
  }

  /// The Type 2 CC as left at the end of the session, if known.
  public var type2CC: Type2CapabilityContainer? {
    memory.type2End.known(12, 4).flatMap(Type2CapabilityContainer.init)
  }
}

/// Turns the frames of one session into Core NFC operations, the tag's identity and its memory.
///
/// Feed the session's frames in order with `push`, then call `finish`. Memory use is bounded by
/// the tag's size and the number of operations, not by the number of frames.
///
/// Commands are classified by their decoded meaning, not by a fixed sequence, so the procedures
/// of different stacks are recognised (READ or FAST_READ; length-first or length-last writes;
/// Type 4 reads in one or several READ BINARY). Frames that carry no command of their own
/// (R-blocks, S(WTX), chained parts, HLTA, S(DESELECT)) join the operation in progress.
///
/// The per-frame helpers that only read the state are declared `mutating` all the same: the
/// analyzer is a large struct (about 2 KiB), and a non-mutating method called from a mutating
/// one received a copy of all of it (a `memcpy` per call, several per frame).
public struct SessionAnalyzer: Sendable {
  private var info: SessionInfo
  private(set) var tag = TagIdentity()
  private(set) var operations: [Operation] = []
  private var current: Operation?
  private var pending: DecodedFrame?
  var memory: TagMemory
  var type2 = Type2Procedure()
  var type4 = Type4Procedure()
  var type3 = Type3Procedure()
  var type5 = Type5Procedure()
  private var authenticated = false
  /// Where an import error cut the trace, once the pipeline says so (`traceCut`).
  private var cutAt: String?
  /// A MIFARE Classic transmission NAK (1h/5h) no answer has followed yet.
  private var classicTransmissionNAK: (frame: Int, why: String, command: [UInt8])?
  /// True after HLTA or S(DESELECT) until the next command: the operation before them had its
  /// answers, so their own missing answer (and the R(NAK) retry of a DESELECT) ends the
  /// session quietly instead of interrupting that operation (ISO/IEC 14443-3 §6.4.3 HLTA has
  /// no answer; a tag that left after its last answer cannot answer S(DESELECT)).
  private var closing = false
  /// Operation starts and ends not yet taken by `takeEvents()`.
  private var events: [OperationEvent] = []
  /// Where the app's next readNDEF/writeNDEF call begins.
  private var call = CallBoundary()
  /// The commands that went unanswered in the current operation, and the outcome it had before
  /// the first: once a retry of each was answered, that outcome is restored.
  private var silentCommands: [LayerDecode] = []
  private var outcomeBeforeSilence: (OperationOutcome, String?)?
  /// Commands whose answer the reader chip received damaged in the current operation
  /// (`damagedAtReader`), and the outcome before the first: the stack's retry answered intact
  /// recovers it, as after a silence.
  private var damagedCommands: [LayerDecode] = []
  private var outcomeBeforeDamage: (OperationOutcome, String?)?
  /// The last Type 2 READ or WRITE the tag left unanswered in the capture, until the reader's
  /// next frame tells whether the reader had its answer (`type2AnswerMissed`).
  private var silentType2: DecodedFrame?
  /// The last ISO 15693 request the tag left unanswered, until the reader's next frame tells
  /// whether the tag was still there (`nfcVSilence`).
  private var silentNFCV: DecodedFrame?
  /// A tag frame no layer could read as the pending command's answer, and why: the command
  /// fails unless a readable answer follows before the reader's next frame.
  private var undecoded: (frame: Int, why: String)?
  /// The last answer, when the capture has it only damaged (CRC or parity failed) and the reader sent
  /// nothing since but R(NAK) (asking for it again, ISO/IEC 14443-4 §7.5.4): whether the
  /// reader got it intact is unknown until it goes on.
  private var damagedLastAnswer: Int?
  /// The last APDU frame left unanswered, until the reader sends something other than an
  /// R-block: the tag's answer after R(NAK) answers it.
  private var silentIBlock: DecodedFrame?
  /// The first frame of the operation left unanswered since the last answer whose silence
  /// decides only if no answer follows before the operation ends: an ISO-DEP block (recovery
  /// may still bring the answer) or a reader frame no layer could decode (a tag ignores a frame
  /// it cannot take for a command, ISO/IEC 14443-3 §6.2; the next command tells whether it is
  /// still there).
  private var deferredSilence: (frame: Int, why: String)?
  /// True when `deferredSilence` is an ISO-DEP block's (kept over later undecodable frames).
  private var deferredSilenceIsISODEP = false
  /// The tag's S(WTX) request (its frame) for the pending APDU that the reader has not
  /// answered yet. The PCD must answer it with an S(WTX) response (ISO/IEC 14443-4 §7.3). If
  /// the operation ends first, the APDU's answer never came because the reader stopped.
  private var wtxUnansweredByReader: Int?
  /// The first ISO-DEP presence check left unanswered after the last command's answer: it
  /// interrupts the operation only if its procedure had not finished (`closeCurrent`).
  private var presenceSilence: (frame: Int, why: String)?
  /// The frame of an unanswered encrypted 4-byte MIFARE Classic command that interrupted the
  /// current operation (`isEncryptedShortCommand`): when it is the operation's last frame, it
  /// may have been the reader's encrypted HALT, and how the operation ended is unknown.
  private var encryptedSilence: Int?
  /// The MIFARE Classic AUTH's reader nonce and answer {nr}{ar} the tag left unanswered (the
  /// operation's last silence): a tag that rejects the reader's answer (a wrong key) stays
  /// silent and goes idle; so does one taken away.
  private var classicAuthSilence: Int?
  /// The tag's MIFARE Classic nonce nt (its frame) while no {at} has answered the reader's
  /// {nr}{ar}: the authentication completes only with {at} (NXP MF1S50yyX datasheet §10.3).
  private var classicNonce: Int?
  /// A tag frame longer than the reader's FSD (the ISO-DEP layer's `frame-exceeds-fsd`: its
  /// frame and message), until the reader's next frame shows whether it took it.
  private var fsdOverrun: (frame: Int, why: String)?
  /// A tag I-block whose block number is not the one the reader awaits (the ISO-DEP layer's
  /// `unexpected-block-number`: its frame and number, the command it answers), and whether the
  /// reader has answered it with R(NAK) since, until the reader's blocks show whether it took it.
  private var wrongBlock: WrongBlock?
  /// The reader's last chained I-block (frame, part number) while its APDU is incomplete.
  private var openChain: (frame: Int, part: Int)?
  /// A reader chain begun after the last command was answered: its command (known only once
  /// its last part arrives) may start the next operation, so its frames (`first`…`last`,
  /// R(ACK)s included) extend no operation until then. What its parts met on the way (an
  /// answer the capture missed, a silence) waits for that operation too.
  private var chainLimbo:
    (first: Int, last: Int, notCaptured: DecodedFrame?, silent: DecodedFrame?)?
  /// The reason of an operation whose chained command the tag answered before its last part.
  static let incompleteChain =
    "the reader's chained command is incomplete in the capture (the tag answered before its "
    + "last part): what it asked, and whether the tag carried it out, is unknown"
  /// A SELECT of the NDEF application right after connect (within `discoveryGapNs` of its last
  /// frame), held until the reader's next command shows what it was: NDEF detection going on
  /// (SELECT of the CC file, READ BINARY) makes the last such SELECT queryNDEFStatus's first
  /// step; a command outside the NDEF procedures makes them all part of tag discovery, in
  /// connect — Core NFC selects the AIDs of the app's Info.plist before handing the tag over
  /// (nfc-facts §8.4: the NDEF AID twice, then `90 60 00 00 00`), whatever the tag answers.
  /// Meanwhile the held frames build a provisional query (`current`, not announced) and the
  /// connect waits finished, its end not announced. `first`, `lastSelect`: the held SELECTs'
  /// first and last frames; `held`: the connect and the Type 4 procedure before them
  /// (discovery leaves it); `aid`, `block`: the SELECTs' AID (`data`) and the last one's
  /// ISO-DEP block number, to tell a repeat (`repeatsSelect`); `probed`: the stack's GetVersion
  /// probe came after them (`isDiscoveryProbe`), so they were discovery, whatever follows.
  private var discoveryLimbo:
    (
      first: Int, lastSelect: Int, held: HeldConnect, aid: FieldValue?, block: FieldValue?,
      probed: Bool
    )?
  /// Longest silence between connect's last frame and a discovery SELECT: Core NFC sends
  /// them right after the ATS; an app's own SELECT comes after its code ran.
  static let discoveryGapNs: Int64 = 50_000_000
  /// The reader frame of the stack's GetVersion probe in tag discovery (`isDiscoveryProbe`)
  /// until the next command; `more`: its last answer was 91AF, so the ADDITIONAL FRAME that
  /// fetches the rest is the probe too.
  private var discoveryProbe: (frame: Int, more: Bool)?
  /// Time of the session's previous frame.
  private var previousTimeNs: Int64?
  /// True while a chain's frames wait for the operation its command starts (or a discovery
  /// SELECT for what follows it): a streaming renderer holds them until the events that place
  /// them come (`SessionAnalysisRun`).
  public var holdsFrames: Bool {
    chainLimbo != nil || discoveryLimbo != nil || presenceLimbo != nil || selectLimbo != nil
      || lockLimbo != nil
  }
  /// A Type 2 READ 0 right after a write (its frame), held until the reader's next command
  /// shows what it was: a READ inside the data area makes it the first step of NDEF
  /// detection (queryNDEFStatus; libnfc-nci's starts with READ 0); READ 0 again, any other
  /// command, a silence or the end make it the stack's presence check (libnfc-nci
  /// RW_T2tPresenceCheck reads block 0), a transceive. The write has ended; the held frames
  /// build the next operation (`current`), announced once its kind is known.
  private var presenceLimbo: Int?
  /// A Type 4 SELECT of a file after the query (its frame; `cc`: of the CC file) outside any
  /// operation: the NDEF file selected again, the CC file (Android's makeReadOnly updates its
  /// write access), another file of the NDEF application (ST25TA system file E101). No step of
  /// a new detection, which starts with the NDEF application's SELECT: it is held until the
  /// reader's next command, whose operation it joins (READ NLEN → readNDEF, UPDATE → writeNDEF,
  /// UPDATE CC → writeLock, READ CC → queryNDEFStatus, VERIFY or READ of another file →
  /// transceive); a new activation, the end or another SELECT leave it a transceive of its own.
  private var selectLimbo: (frame: Int, cc: Bool)?
  /// A Type 2 COMPATIBILITY_WRITE part 1 to a lock page or the CC (its frame), held until its
  /// part 2 brings the data: only a WRITE that sets a lock bit is a writeLock
  /// (`Type2Procedure.lockPageKind`). Meanwhile it builds the operation of a WRITE setting none:
  /// the one it joined (`before`: that operation's last frame before part 1), or a new one not
  /// yet announced (`before` nil).
  private var lockLimbo: (frame: Int, before: Int?)?
  /// The last reader frame when it was a Type 2 COMPATIBILITY_WRITE part 1: an operation that
  /// ends there never sent the data.
  private var compatibilityPart1: Int?
  /// Whether a tag frame was seen in the session.
  private var tagHeard = false
  /// Whether a reader frame was seen in the session.
  private var readerHeard = false
  /// Whether an event of the session says its data was logged without payload.
  private var dataNotLogged = false
  /// Whether a tag frame other than a reader chip's activation report was seen.
  private var tagOnAir = false
  /// Frame of a RATS the tag has not answered with an ATS yet (in the current connect).
  private var ratsAwaitingATS: Int?
  /// The last type B ATTRIB naming a PUPI no ATQB of its activation gave (no tag answers it).
  private var attribUnknownPUPI: Int?
  /// True while the current connect holds nothing but REQA/WUPA, ATQA and polling frames: the
  /// reader polled (a presence check) and did not select the tag.
  private var connectOnlyPolled = false
  /// The current connect began with REQA/WUPA (a new activation) and whether a UID was
  /// completed in it since: a re-activation that never gets there did not connect, whatever
  /// the session's first activation found.
  private var connectActivation: (started: Bool, selected: Bool) = (false, false)
  /// Whether a tag frame came since the current operation opened (a connect that heard
  /// nothing and left commands unanswered activated nothing).
  private var tagAnsweredOperation = false

  /// An analyzer for session `info`, carrying the memory an earlier session on the same UID
  /// left (or empty memory).
  public init(info: SessionInfo, carrying previous: TagMemory? = nil) {
    self.info = info
    memory = previous.map { TagMemory(carrying: $0, firstFrame: info.firstFrame) } ?? TagMemory()
    memory.sessionFirstFrame = info.firstFrame
  }

  /// Takes what an earlier session on the same UID left in the tag's memory (called when the
  /// UID becomes known): where its NDEF TLV's length is, so a write after a reconnect is
  /// recognised; a Type 5 tag's block and memory size. The images themselves are merged when the session ends
  /// (`SessionCollector`), so the session's own procedures (a query's TLV search) are read
  /// from its own frames.
  public mutating func carry(_ previous: TagMemory) {
    type2.knownNDEFLengthAddress = previous.type2Area?.ndefLengthAddress
    type3.carriedAttributeBlock = previous.type3AttributeBlock
    // A Type 5 tag's block size and memory: this session's READs are checked and placed by
    // them as by its own GET SYSTEM INFORMATION.
    if memory.type5BlockSize == nil { memory.type5BlockSize = previous.type5BlockSize }
    if memory.type5MemorySize == nil { memory.type5MemorySize = previous.type5MemorySize }
  }

  /// The NXP product an earlier session on the same UID identified with GET_VERSION (a dump
  /// tool halts and re-selects the tag after GET_VERSION): this session's reads are then
  /// placed on that product's memory map. Ignored once this session has its own answer.
  public mutating func carry(product: NTAGProduct) {
    if tag.versionInfo == nil && tag.inferredProduct == nil { tag.inferredProduct = product }
  }

  /// An earlier session on this tag (same UID) served the NDEF application (T4T 2.0 §5.4.2):
  /// the tag is named a Type 4 tag here too, and an NLEN reset sent before any SELECT is
  /// writeNDEF's first step (`Type4Procedure.ndefApplicationCarried`).
  public mutating func carryNDEFApplication() {
    tag.hasNDEFApplication = true
    type4.ndefApplicationCarried = true
  }

  /// The PMm an earlier session's poll answer gave for this FeliCa card (its IC code names the
  /// product and tells a FeliCa Lite's system blocks). Ignored once this session has its own.
  public mutating func carry(pmm: [UInt8]) {
    if tag.pmm == nil { tag.pmm = pmm }
  }

  /// Takes the session's next frame.
  public mutating func push(_ f: DecodedFrame) {
    defer { previousTimeNs = f.frame.timeNs }
    tag.observe(f)
    // The IC code follows the PMm, this session's or one carried (`carry(pmm:)`).
    if type3.icCode == nil, let pmm = tag.pmm, pmm.count == 8 { type3.icCode = pmm[1] }
    if connectOnlyPolled, f.frame.direction != .event, !Self.isPoll(f) {
      connectOnlyPolled = false
    }
    switch f.frame.direction {
    case .reader:
      readerHeard = true
      reader(f)
    case .tag: tagFrame(f)
    case .event: break
    }
  }

  /// The log recorded this session's data packets without their payload (the field-off that
  /// ends it carries `ReaderChipFlag.dataNotLogged`).
  public mutating func noteDataNotLogged() { dataNotLogged = true }

  /// The trace stops at `location` (an import error): the operation still open when it ends
  /// is not judged by the answers the cut removed (see `closeCurrent`).
  public mutating func traceCut(_ location: String) { cutAt = location }

  /// Closes the last operation and returns the analysis; `info` is the session's final info.
  public mutating func finish(info final: SessionInfo) -> SessionAnalysis {
    closeCurrent()
    info = final
    tag.takeUID(fromType2: memory.type2End)
    if tag.technology == .nfcV { tag.systemInfoMemoryBytes = memory.type5MemorySize }
    let status = type2.status ?? type4.status ?? type3.status ?? type5.status
    return SessionAnalysis(
      info: info, tag: tag, operations: operations,
      ndefStatus: status.map { ($0.status, $0.capacity) },
      ndefStatusReason: status?.reason, memory: memory, type4CC: type4.cc,
      type4NDEFFile: type4.ndefFileID, authenticated: authenticated, tagHeard: tagHeard,
      readerHeard: readerHeard, dataNotLogged: dataNotLogged, tagOnAir: tagOnAir)
  }

  // MARK: - Frames

  private mutating func reader(_ f: DecodedFrame) {
    // Read once: each `f.innermost` copied the decode (its name, fields and summary retained).
    let innermost = f.innermost
    if lockLimbo != nil { settleLockLimbo(next: f) }
    compatibilityPart1 =
      innermost.map { Type2Procedure.isCompatibilityWrite($0, part: 1) } == true
      ? f.frame.index : nil
    if innermost?.name == "S(WTX)" { wtxUnansweredByReader = nil }
    // Decided before classifying: what follows READ 0 is classified against what it was.
    if presenceLimbo != nil {
      if let d = innermost, d.protocolID == .type2, !f.startsActivation {
        settlePresenceLimbo(asQuery: readsDataArea(d))
      } else if f.startsActivation || undecodable(f) {
        settlePresenceLimbo(asQuery: false)
      }
    }
    // Anything but R(NAK) shows the reader went on: it had the answer.
    if damagedLastAnswer != nil, innermost?.name != "R(NAK)" { damagedLastAnswer = nil }
    // The reader sends the command whose answer was not understood again: the new answer
    // decides, as after a NAK 1 or a damaged answer.
    if undecoded != nil, let sent = pending?.innermost, innermost == sent { undecoded = nil }
    settleUndecoded()
    if let silent = silentType2.take() { type2AnswerMissed(silent, next: f) }
    if let silent = silentNFCV.take() { nfcVSilence(silent, next: f) }
    if let silent = classicAuthSilence { classicAuthAnswerMissed(silent, next: f) }
    if Self.isClassicReaderAnswer(f), innermost?.field("nt_not_captured") == .bool(true) {
      classicNonceNotCaptured()
    }
    if let overrun = fsdOverrun.take() { settleFSDOverrun(overrun, next: f) }
    if let wrong = wrongBlock { settleWrongBlock(wrong, next: f) }
    if f.findings.contains(where: { $0.code == "answer-not-captured" }) {
      if var limbo = chainLimbo {
        if limbo.notCaptured == nil { limbo.notCaptured = f }
        chainLimbo = limbo
      } else {
        answerNotCaptured(f)
      }
    }
    // Only ATTRIB frames carry it; most frames have no finding at all.
    if f.findings.contains(where: { $0.code == "attrib-unknown-pupi" }) {
      attribUnknownPUPI = f.frame.index
    }
    let probe = isDiscoveryProbe(f)
    let kind = probe ? nil : classify(f)
    if selectLimbo != nil, kind != nil || f.startsActivation {
      settleSelectLimbo(as: kind)
    }
    if let name = innermost?.name, name == "HLTA" || name == "HLTB" || name == "S(DESELECT)" {
      closing = true
    } else if kind != nil {
      closing = false
    }
    if kind == nil, let d = innermost, d.protocolID == .isoDEP, opensWrite(chained: d) {
      if selectLimbo != nil {
        settleSelectLimbo(as: .writeNDEF)  // the held SELECT of the file this write updates
      } else {
        closeCurrent()
        start(.writeNDEF, frame: f.frame.index)
      }
    } else if kind == nil, chainLimbo == nil, opensChain(f) {
      chainLimbo = (f.frame.index, f.frame.index, nil, nil)
    }
    trackChain(f)
    if kind == nil, let d = innermost, d.protocolID == .isoDEP,
      d.name == "R(NAK)" || d.name == "R(ACK)"
    {
      // ISO-DEP recovery after a silence (ISO/IEC 14443-4 §7.5.4 rules 4 and 11): the tag
      // sends its answer again, or the reader its block; either way the APDU left unanswered
      // is still the one an I-block answer answers.
      if pending == nil, let silent = silentIBlock { pending = silent }
    } else if kind != nil || innermost?.protocolID != .isoDEP {
      silentIBlock = nil
    }
    if let kind {
      // Consecutive commands of one kind group into one operation unless the procedure
      // starts over (the app's next call, `CallBoundary`); a new activation has already
      // closed the current one in `classify`.
      // Only the chain's last part places the operation at the chain's start; any other
      // command (RATS, a fresh APDU) leaves the chain a cut-off command of its own.
      if chainLimbo != nil, f.layer(.isoDEP)?.field("reassembled_length") == nil {
        settleChainLimbo(answered: false)
      }
      let limbo = chainLimbo
      chainLimbo = nil
      if let rats = ratsAwaitingATS, current?.kind == .connect, f.layer(.isoDEP)?.name == "I-block"
      {
        // The reader went on with I-blocks, which it sends only after an intact ATS (ISO/IEC
        // 14443-4 §5.6.1: else it sends RATS again or deactivates the tag): the activation
        // succeeded, and the capture missed the ATS or holds it damaged (the frame's own
        // findings name the damage).
        ratsAwaitingATS = nil
        current?.unansweredFrames.removeAll { $0 == rats }
      }
      discoveryProbe = nil
      let probed = discoveryLimbo?.probed ?? false
      let repeatsDiscovery = discoveryLimbo != nil && !probed && repeatsSelect(f)
      if repeatsDiscovery {
        discoveryLimbo?.lastSelect = f.frame.index
        discoveryLimbo?.block = f.layer(.isoDEP)?.field("block_number")
      } else if discoveryLimbo != nil {
        settleDiscovery(asQuery: kind != .transceive && !probed)
      }
      if repeatsDiscovery {
        // The held query goes on: the same SELECT again.
      } else if kind == .queryNDEFStatus, current?.kind == .connect, limbo == nil,
        Self.selectsNDEFApplication(f),
        previousTimeNs.map({ f.frame.timeNs - $0 <= Self.discoveryGapNs }) ?? false,
        let connect = finishCurrent()
      {
        discoveryLimbo = (
          f.frame.index, f.frame.index, HeldConnect(connect, type4),
          f.layer(.iso7816)?.field("data"), f.layer(.isoDEP)?.field("block_number"), false
        )
        open(.queryNDEFStatus, frame: f.frame.index, announced: false)
      } else if kind == .queryNDEFStatus, let write = current,
        write.kind == .writeNDEF || write.kind == .writeLock, Self.readsPageZero(f)
      {
        closeCurrent()
        presenceLimbo = f.frame.index
        open(.transceive, frame: f.frame.index, announced: false)
      } else if kind == .queryNDEFStatus, limbo == nil, holdsSelect(f) {
        closeCurrent()
        selectLimbo = (f.frame.index, innermost?.name == "SELECT CC file")
        open(.transceive, frame: f.frame.index, announced: false)
      } else if current?.kind != kind || startsNewCall(kind, f)
        // A WriteData that wrote the NDEF file is a call of its own (sendCommand): what the
        // app sends next does not share its verdict.
        || (kind == .transceive && current?.detail("ndef_file_written") != nil)
      {
        closeCurrent()
      }
      let awaitsLockData =
        innermost.map { Type2Procedure.awaitsLockData($0, tag: tag, memory: memory) } ?? false
      if awaitsLockData {
        lockLimbo = (f.frame.index, current?.lastFrame)
      }
      if current == nil, awaitsLockData {
        open(kind, frame: f.frame.index, announced: false)
      } else if current == nil {
        start(kind, frame: limbo?.first ?? f.frame.index)
        // A connect the reader opened with REQA/WUPA: only polled until something else comes.
        connectOnlyPolled = kind == .connect && Self.isPoll(f)
        connectActivation = (kind == .connect && f.startsActivation, false)
      }
      // Only a tag whose SAK says ISO-DEP must answer RATS (ISO/IEC 14443-3 SAK b6); a reader
      // probing a Type 2 tag with RATS gets no ATS by design.
      if kind == .connect, innermost?.name == "RATS", tag.sak.map({ $0 & 0x20 != 0 }) ?? true {
        ratsAwaitingATS = f.frame.index
      }
      if let d = innermost {
        call.command(d, at: f.frame.timeNs, memory: memory, damaged: f.frame.crc == .bad)
        if d.protocolID == .type4 { type4.command(d) }
      }
      if let missed = limbo?.notCaptured { answerNotCaptured(missed) }
      if let silent = limbo?.silent { noAnswer(silent, kind: kind) }
      pending = f
    } else if probe {
      joinDiscovery(f)
    }
    extend(f)
    // A held READ 0 left unanswered: the presence check the tag was taken away during.
    if f.response == .unanswered, presenceLimbo == f.frame.index {
      settlePresenceLimbo(asQuery: false)
    }
    if f.response == .unanswered {
      if var limbo = chainLimbo {
        if limbo.silent == nil { limbo.silent = f }
        chainLimbo = limbo
      } else {
        noAnswer(f, kind: kind ?? current?.kind)
      }
    }
  }

  private static func readsPageZero(_ f: DecodedFrame) -> Bool {
    guard let d = f.innermost, d.protocolID == .type2, d.name == "READ" else { return false }
    return d.absolutePage == 0
  }

  /// Whether Type 2 command `d` is a READ starting inside the data area (page 4 up to the end
  /// the CC declares): the reads of NDEF detection after its READ 0.
  private func readsDataArea(_ d: LayerDecode) -> Bool {
    guard d.name == "READ", let page = d.absolutePage, page >= 4 else { return false }
    guard let end = memory.type2DataAreaEndPage else { return true }
    return page < end
  }

  /// Whether `f` is a SELECT to hold (`selectLimbo`): a Type 4 SELECT of a file, once the
  /// query has given the status, outside a query or after it read NLEN.
  private mutating func holdsSelect(_ f: DecodedFrame) -> Bool {
    guard type4.status != nil, current?.kind != .queryNDEFStatus || type4.detectionFinished,
      let d = f.innermost,
      d.protocolID == .type4, d.name.hasPrefix("SELECT"), d.name != "SELECT NDEF application"
    else { return false }
    return true
  }

  /// Ends the held SELECT: its operation takes the kind of the command after it (`next`), a
  /// transceive when that starts a query or nothing came.
  private mutating func settleSelectLimbo(as next: OperationKind?) {
    guard let held = selectLimbo else { return }
    selectLimbo = nil
    let kind: OperationKind
    switch next {
    case .readNDEF?, .writeNDEF?, .writeLock?: kind = next ?? .transceive
    case .queryNDEFStatus? where held.cc: kind = .queryNDEFStatus
    default: kind = .transceive
    }
    current?.kind = kind
    events.append(.started(kind, frame: held.frame))
  }

  /// Ends the held READ 0: the operation its frames built is announced as a query
  /// (`asQuery`) or a presence check's transceive.
  private mutating func settlePresenceLimbo(asQuery: Bool) {
    guard let first = presenceLimbo else { return }
    presenceLimbo = nil
    let kind: OperationKind = asQuery ? .queryNDEFStatus : .transceive
    current?.kind = kind
    events.append(.started(kind, frame: first))
  }

  /// Ends the held COMPATIBILITY_WRITE part 1 (`lockLimbo`) at `next`, the reader's next frame
  /// (nil: none came): a part 2 setting a lock bit makes the write a writeLock of its own from
  /// part 1 on; otherwise it stays in the operation it built.
  private mutating func settleLockLimbo(next: DecodedFrame?) {
    guard let held = lockLimbo else { return }
    lockLimbo = nil
    let locks = next.map(locksWithPart2) ?? false
    guard let before = held.before else {
      if locks { current?.kind = .writeLock }
      events.append(.started(current?.kind ?? .transceive, frame: held.frame))
      return
    }
    // A writeLock under way takes its own locking parts.
    guard locks, current?.kind != .writeLock, let last = current?.lastFrame else { return }
    current?.lastFrame = before
    closeCurrent()
    start(.writeLock, frame: held.frame)
    current?.lastFrame = last
  }

  /// Whether `f` is a COMPATIBILITY_WRITE part 2 whose data sets a lock bit of its page.
  private func locksWithPart2(_ f: DecodedFrame) -> Bool {
    guard let d = f.innermost, Type2Procedure.isCompatibilityWrite(d, part: 2),
      let page = d.absolutePage, case .hex(let data)? = d.field("data")
    else { return false }
    return Type2Procedure.setsLockBits(data, page: page, tag: tag, memory: memory) == true
  }

  /// Whether `f` is the last held SELECT sent again as a new command, as Core NFC's
  /// discovery repeats it: the same APDU in a new I-block. Another AID (libnfc-nci's v1
  /// fallback after a refused v2 SELECT) is detection going on; the same block number is the
  /// ISO-DEP recovery's resend of one command (§7.5.4), not a repeat.
  private mutating func repeatsSelect(_ f: DecodedFrame) -> Bool {
    guard Self.selectsNDEFApplication(f), let held = discoveryLimbo else { return false }
    let apdu = f.layer(.iso7816)?.field("data")
    let block = f.layer(.isoDEP)?.field("block_number")
    return apdu == held.aid && (block == nil || block != held.block)
  }

  /// Whether reader frame `f` is the stack's DESFire GetVersion probe in tag discovery, sent
  /// before any NDEF procedure: `90 60 00 00 00` (nfc-facts §8.4: Android's NXP stack sends it
  /// before the NDEF SELECT, an iPhone after its discovery SELECTs) right after connect
  /// (within `discoveryGapNs` of its last frame) or after held discovery SELECTs; or the
  /// ADDITIONAL FRAME (`90 AF`) fetching the rest of its 91AF answer (a DESFire answers
  /// GetVersion in three parts). An app's own GetVersion comes after its code ran, or later.
  private mutating func isDiscoveryProbe(_ f: DecodedFrame) -> Bool {
    // Byte compares, no array literal per frame: this runs for every APDU.
    guard let d = f.innermost, d.protocolID == .iso7816, chainLimbo == nil,
      case .hex(let cla)? = d.field("cla"), cla.count == 1, cla[0] == 0x90,
      case .hex(let ins)? = d.field("ins"), ins.count == 1
    else { return false }
    if ins[0] == 0xAF { return discoveryProbe?.more ?? false }
    guard ins[0] == 0x60, let previous = previousTimeNs,
      f.frame.timeNs.saturatingMinus(previous) <= Self.discoveryGapNs
    else { return false }
    return discoveryLimbo != nil || current?.kind == .connect
  }

  /// The probe joins the connect, or the held discovery SELECTs, which it makes discovery
  /// (`settleDiscovery`): the held query goes no further. Its answer is awaited as a
  /// command's (`pending`) but judged by no procedure (`tagFrame`).
  private mutating func joinDiscovery(_ f: DecodedFrame) {
    discoveryLimbo?.probed = true
    discoveryProbe = (f.frame.index, false)
    pending = f
  }

  private static func selectsNDEFApplication(_ f: DecodedFrame) -> Bool {
    f.layer(.type4)?.name == "SELECT NDEF application"
  }

  /// Ends the held SELECTs of the NDEF application. As a query (`asQuery`): the connect ends
  /// with the SELECTs before the last one, and the query starts at the last. As discovery:
  /// the connect takes every held frame, and what their answers did to the Type 4 procedure
  /// is undone (the app's own query comes later), but for the application they selected on
  /// the tag (`Type4Procedure.keepSelection`).
  private mutating func settleDiscovery(asQuery: Bool) {
    guard let limbo = discoveryLimbo, var query = current else { return }
    discoveryLimbo = nil
    var connect = limbo.held.connect
    if asQuery {
      connect.lastFrame = max(connect.lastFrame, limbo.lastSelect - 1)
      query.firstFrame = limbo.lastSelect
      query.unansweredFrames.removeAll { $0 < limbo.lastSelect }
      query.failedFrames.removeAll { $0 < limbo.lastSelect }
      current = query
      operations.append(connect)
      events.append(.ended(connect))
      events.append(.started(.queryNDEFStatus, frame: limbo.lastSelect))
    } else {
      connect.lastFrame = max(connect.lastFrame, query.lastFrame)
      // The tag keeps the application the SELECTs chose (an app's WriteData next writes it).
      let selected = type4
      type4 = limbo.held.type4
      type4.keepSelection(of: selected)
      current = nil
      pending = nil
      deferredSilence = nil
      damagedLastAnswer = nil
      undecoded = nil
      operations.append(connect)
      events.append(.ended(connect))
    }
  }

  /// The current operation's outcome is unknown: the tag answered (frame `answer`) a chain whose
  /// last part (`part`, the reader's last I-block seen) never came (details `chain_answered`,
  /// `chain_part`, read by `BlockNumberRule`).
  private mutating func markChainAnswered(by answer: Int?, part: Int?) {
    current?.outcome = .unknown
    current?.reason = Self.incompleteChain
    guard let answer else { return }
    current?.set("chain_answered", .int(answer))
    if let part { current?.set("chain_part", .int(part)) }
  }

  /// Ends the chain in limbo without its last part: the operation before it ends with its
  /// last answer, and the chain becomes a transceive of its own (its APDU is unknown), cut
  /// off (`openChain` interrupts it when it closes) or, when the tag `answered` with an
  /// I-block before the last part, of unknown outcome.
  private mutating func settleChainLimbo(answered: Bool, by answer: Int? = nil) {
    guard let limbo = chainLimbo else { return }
    chainLimbo = nil
    let chain = openChain
    openChain = nil
    closeCurrent()
    start(.transceive, frame: limbo.first)
    current?.lastFrame = limbo.last
    if let silent = limbo.silent { current?.unansweredFrames.append(silent.frame.index) }
    if answered {
      markChainAnswered(by: answer, part: chain?.frame)
    } else {
      openChain = chain
    }
  }

  /// Whether reader frame `f` is the first part of a chained command sent after the last
  /// command was answered (ISO/IEC 14443-4 §7.5.2): the command it carries, decoded with its
  /// last part, decides which operation the chain belongs to.
  private mutating func opensChain(_ f: DecodedFrame) -> Bool {
    // (A connect's last frame, the ATS, answers RATS without clearing `pending`.)
    guard let op = current, pending == nil || op.kind == .connect, let d = f.innermost,
      d.protocolID == .isoDEP,
      d.name == "I-block", d.field("chaining") == .bool(true), d.field("part") == .int(1)
    else { return false }
    // An UPDATE BINARY chained inside a writeNDEF is the write's next step (`opensWrite`
    // decided it starts no new call).
    if op.kind == .writeNDEF, case .hex(let h)? = d.field("apdu_header"), h.count == 4,
      h[1] == 0xD6
    {
      return false
    }
    return true
  }

  /// Whether a Type 2 WRITE classified `kind` (a lock or configuration page) is the next page
  /// of the writeNDEF in progress that its message runs into: the NDEF TLV's length is still
  /// 0 (the length-last procedure, not finished) or announces bytes in that page. An app's
  /// page loop that does not stop at the data area's end stays one operation.
  private mutating func continuesWrite(_ d: LayerDecode, _ kind: OperationKind?) -> Bool {
    guard kind != .writeNDEF, current?.kind == .writeNDEF, d.name == "WRITE",
      let page = d.absolutePage, let last = call.lastWrittenPage, page == last + 1,
      let area = memory.type2Area, let ndef = area.ndef
    else { return false }
    // `03 00 FE`: an empty message and its Terminator (an erase), no message to run over.
    let erased = memory.type2End.known(area.baseAddress + ndef.valueOffset, 1) == [0xFE]
    return (ndef.length == 0 && !erased) || (area.ndefValueEndAddress ?? 0) > page * 4
  }

  /// Follows the reader's chained I-blocks: a chain is open from its first part until the
  /// APDU it carries is complete (its last part, decoded by the layers inside ISO-DEP).
  private mutating func trackChain(_ f: DecodedFrame) {
    guard let d = f.innermost else { return }
    if d.protocolID == .isoDEP, d.name == "I-block", case .int(let part)? = d.field("part") {
      openChain = (f.frame.index, part)
    } else if d.protocolID == .type4 || d.protocolID == .iso7816 {
      openChain = nil
    }
  }

  /// Whether the first part of a chained command APDU (`d`, an ISO-DEP I-block with an
  /// `apdu_header`) opens a writeNDEF: an UPDATE BINARY after the NDEF query, when no write is
  /// in progress, or one at offset 0 that starts the next call (`CallBoundary`). The APDU is
  /// decoded only when its last part arrives, which may never happen when the tag leaves.
  private mutating func opensWrite(chained d: LayerDecode) -> Bool {
    guard current?.kind == .writeNDEF else {
      guard case .hex(let h)? = d.field("apdu_header"), h.count == 4, h[1] == 0xD6 else {
        return false
      }
      return type4.ndefFileSelected && (type4.status.map { $0.status != .notSupported } ?? false)
    }
    return call.startsNewCall(chained: d)
  }

  private mutating func tagFrame(_ f: DecodedFrame) {
    // Read once: each `f.innermost` copied the decode (its name, fields and summary retained).
    let innermost = f.innermost
    tagHeard = true
    if !tagOnAir, !f.frame.sourceFlags.contains(ReaderChipFlag.targetInfo) { tagOnAir = true }
    tagAnsweredOperation = true
    if f.completedUID != nil { connectActivation.selected = true }
    if let d = innermost, d.protocolID == .isoDEP, d.name == "S(WTX)",
      pending?.layer(.iso7816) != nil
    {
      wtxUnansweredByReader = f.frame.index
    }
    // The tag's I-block ends the reader's chain before its last part (ISO-DEP flags
    // `incomplete-chain`): the tag did not leave, but what it answered to a command never
    // seen whole is unknown. The frame joins the chain's operation and settles nothing else
    // (it is not the previous command's answer).
    if let chain = openChain, f.layer(.isoDEP)?.name == "I-block" {
      openChain = nil
      if chainLimbo != nil {
        settleChainLimbo(answered: true, by: f.frame.index)
      } else if current?.outcome == .ok {
        markChainAnswered(by: f.frame.index, part: chain.frame)
      }
      extend(f)
      pending = nil
      return
    }
    // A reader chip's report of an activation (its target data, ATQA first: PN53x
    // InListPassiveTarget) during another operation: the reader activated the tag again, a
    // connect of its own, as a REQA/WUPA on the air starts one (`classify`).
    if let op = current, op.kind != .connect, innermost?.name == "ATQA",
      f.frame.sourceFlags.contains(ReaderChipFlag.targetInfo)
    {
      closeCurrent()
      type4.activated()
    }
    // HLTB is answered (`00`, ISO/IEC 14443-3 §7.12), unlike HLTA: that answer opens nothing.
    if current == nil, innermost?.name != "HLTB answer" { start(.connect, frame: f.frame.index) }
    extend(f)
    if let x = f.findings.first(where: { $0.code == "frame-exceeds-fsd" }) {
      fsdOverrun = (f.frame.index, x.message)
    }
    if wrongBlock != nil || !f.findings.isEmpty { trackWrongBlock(tag: f) }
    if f.frame.sourceFlags.contains(ReaderChipFlag.damagedAnswer) {
      return damagedAtReader(f)
    }
    if let d = innermost, d.protocolID == .mifareClassic {
      if d.name == "AUTH (nt)" { classicNonce = f.frame.index }
      if d.name == "AUTH (at)" { classicNonce = nil }
      if d.name == "NAK" { return refusedByMIFAREClassic(d, frame: f.frame.index) }
      // The NAKed command sent again and answered: the retry went through.
      if classicTransmissionNAK?.command == pending?.frame.data { classicTransmissionNAK = nil }
      if let w = Self.classicWrite(d, request: pending, frame: f.frame.index) {
        current?.classicWrites.append(w)
      }
      if d.name == "READ response", case .int(let block)? = d.field("block") {
        current?.classicReads.append(block)
      }
    }
    // An ATS whose TL (its own length byte, ISO/IEC 14443-4 §5.2.1) disagrees with its length
    // is garbage, not an ATS: the RATS is still unanswered.
    if ratsAwaitingATS != nil, let d = innermost, d.name == "ATS", f.frame.crc != .bad,
      case .int(let tl)? = d.field("tl"), tl == TagIdentity.payload(f).count
    {
      ratsAwaitingATS = nil
    }
    if f.findings.contains(where: { $0.code == "tag-ack-to-unchained-block" }) {
      return ackInsteadOfAnswer(f)
    }
    guard let d = innermost, isAnswer(d) else { return undecodedAnswer(f) }
    undecoded = nil
    deferredSilence = nil
    wtxUnansweredByReader = nil
    let request = pending
    // A damaged answer (CRC failed) is sent again (ISO-DEP R(NAK)) or the command is: the
    // request stays pending for the intact copy.
    // A parity error damages a frame as a bad CRC does (ISO/IEC 14443-3 §6.2.4: the reader
    // takes it for a transmission error); MIFARE Classic ciphertext has its own parity.
    let damaged =
      f.frame.crc == .bad || (!f.frame.parityErrors.isEmpty && f.frame.crc != .encrypted)
    if !damaged { pending = nil }
    damagedLastAnswer = damaged ? f.frame.index : nil
    if let probe = discoveryProbe, request?.frame.index == probe.frame {
      // The stack's probe is no step of a procedure nor an app's call: its answer, a refusal
      // included, decides no outcome.
      discoveryProbe?.more = !damaged && d.field("sw") == .string("91af")
      return
    }
    // Taken out of `current` while it changes, so its arrays stay uniquely referenced and are
    // appended to in place instead of copied.
    guard var op = current else { return }
    current = nil
    let exchange = Exchange(request: request, response: f)
    // Before the procedures: an answered retry first restores the outcome the silence
    // replaced, so a NAK 1 recovery (Type2Procedure) sees the failure it recovers from.
    recoverFromSilence(&op, request: request?.innermost, damaged: damaged)
    recoverFromDamage(&op, request: request?.innermost, answer: d, damaged: damaged)
    switch d.protocolID {
    case .type2: type2.answer(exchange, op: &op, memory: &memory, tag: tag)
    case .type4, .iso7816: type4.answer(exchange, op: &op, memory: &memory)
    case .felica: type3.answer(exchange, op: &op, memory: &memory)
    case .iso15693: type5.answer(exchange, op: &op, memory: &memory)
    default: break
    }
    if !damaged { call.answer(request?.innermost, d, nlenSize: type4.nlenSize) }
    if d.name == "PACK" { authenticated = true }
    current = op
  }

  /// An answer the reader chip received damaged and reported as an error
  /// (`ReaderChipFlag.damagedAnswer`: PN53x status 02h/03h/05h/13h, NCI status 02h): the host
  /// got an error for the command, so its operation failed; the tag answered (an
  /// acknowledgement or a refusal: unknown), so a Type 2 WRITE's or Type 4 UPDATE's bytes may or
  /// may not be stored.
  private mutating func damagedAtReader(_ f: DecodedFrame) {
    let request = pending
    pending = nil
    undecoded = nil
    deferredSilence = nil
    damagedLastAnswer = nil
    if let p = request {
      type2.unanswered(p, memory: &memory)
      if p.layer(.type4) != nil || p.layer(.iso7816) != nil {
        type4.unanswered(p, memory: &memory)
      }
    }
    let what = request?.innermost?.summary ?? "the command"
    answeredAfterSilence(request?.innermost)
    if let op = current, op.outcome != .failed || !damagedCommands.isEmpty {
      if damagedCommands.isEmpty { outcomeBeforeDamage = (op.outcome, op.reason) }
      if let c = request?.innermost, !damagedCommands.contains(c), damagedCommands.count < 64 {
        damagedCommands.append(c)
      }
    }
    current?.fail(
      "the reader received the tag's answer to \(what) damaged (CRC, parity or framing error) "
        + "and reported the command failed: the tag answered, but what it answered is unknown",
      frame: f.frame.index)
  }

  /// A command that got no answer before, sent again, and answered this time, if damaged: the
  /// tag did not leave, so that silence interrupted nothing (once every silent command is
  /// answered the outcome before it is back; the damage then decides).
  private mutating func answeredAfterSilence(_ command: LayerDecode?) {
    guard var op = current, let command else { return }
    Self.recover(&op, from: .interrupted, &silentCommands, before: outcomeBeforeSilence, command)
    current = op
  }

  /// The MIFARE Classic block tag answer `d` acknowledged writing: the ACK to a WRITE's
  /// 16-byte part 2, a reader chip's report that its one-frame WRITE went through, or the
  /// ACK (report) of a TRANSFER (NXP MF1S50yyX datasheet §12.5–12.6). Nil for other answers.
  private static func classicWrite(_ d: LayerDecode, request: DecodedFrame?, frame: Int)
    -> ClassicBlockWrite?
  {
    guard d.name == "ACK" || d.name == "done", let r = request?.innermost,
      r.protocolID == .mifareClassic, case .int(let block)? = r.field("block")
    else { return nil }
    if r.name == "TRANSFER" { return ClassicBlockWrite(block: block, data: [], frame: frame) }
    // Plaintext: the ACK to part 2 (`WRITE data`); chip: `WRITE` carrying its data.
    guard r.name == "WRITE data" || r.name == "WRITE", case .hex(let data)? = r.field("data")
    else { return nil }
    return ClassicBlockWrite(block: block, data: data, frame: frame)
  }

  /// A MIFARE Classic NAK (to an AUTH, READ, WRITE…). NAK 0h/4h refuse the command, so its
  /// operation (`authenticate` for an AUTH) failed; NAK 1h/5h report a transmission error the
  /// reader retries, so they fail it only when no answer follows before it ends (NXP
  /// MF1S50yyX datasheet §9.3; nfc-facts §4.2).
  private mutating func refusedByMIFAREClassic(_ d: LayerDecode, frame: Int) {
    let request = pending
    let what = request?.innermost?.summary ?? "command"
    pending = nil
    let why = "\(what) refused: \(d.summary)"
    if case .int(let code)? = d.field("nak_code"), code == 1 || code == 5,
      let command = request?.frame.data
    {
      if classicTransmissionNAK == nil { classicTransmissionNAK = (frame, why, command) }
      return
    }
    current?.fail(why, frame: frame)
  }

  /// A tag frame no layer could read as the answer to the pending command (a READ answer of
  /// 0 bytes, an empty PWD_AUTH answer: a source that dropped a 4-bit NAK). Unless a readable
  /// answer follows before the reader's next frame (the first was sniffer noise), the command
  /// did not get the answer it needs and its operation fails (`settleUndecoded`). A damaged
  /// frame (CRC failed) stays a retry's business.
  private mutating func undecodedAnswer(_ f: DecodedFrame) {
    guard f.layers.isEmpty, let reason = f.undecodedReason, f.frame.crc != .bad,
      let command = pending?.innermost, isAnswer(command), current != nil
    else { return }
    if undecoded == nil {
      undecoded = (f.frame.index, "answer to \(command.summary) not understood: \(reason)")
    }
  }

  /// The tag's R(ACK) to the pending command's unchained I-block (ISO-DEP
  /// `tag-ack-to-unchained-block`): no response APDU, a protocol error the reader's stack
  /// reports (ISO/IEC 14443-4 §7.5.4). Kept as an answer no layer could read: the command
  /// fails unless a readable answer follows before the reader's next frame other than the
  /// same command sent again.
  private mutating func ackInsteadOfAnswer(_ f: DecodedFrame) {
    guard let command = pending?.innermost, isAnswer(command), current != nil, undecoded == nil
    else { return }
    undecoded = (
      f.frame.index,
      "answer to \(command.summary) not understood: the tag answered with "
        + "\(f.innermost?.summary ?? "R(ACK)"), which acknowledges only a chained block "
        + "(ISO/IEC 14443-4 §7.5.4)"
    )
  }

  /// Fails the current operation on the answer `undecodedAnswer` kept, if no readable one
  /// came after it.
  private mutating func settleUndecoded() {
    guard let (frame, why) = undecoded else { return }
    undecoded = nil
    pending = nil
    current?.fail(why, frame: frame)
  }

  /// The stack sent a command that got no answer again and this time the tag answered it
  /// (ACK, data, 9000, or a refusal: a NAK, an error status word): the tag was there all
  /// along, the operation goes on as before the silence, and a refusal then fails it (the
  /// unanswered copy stays in `unansweredFrames` for the diagnosis).
  private mutating func recoverFromSilence(
    _ op: inout Operation, request: LayerDecode?, damaged: Bool
  ) {
    guard !damaged, let request else { return }
    Self.recover(&op, from: .interrupted, &silentCommands, before: outcomeBeforeSilence, request)
  }

  /// The stack sent a command whose answer the reader chip received damaged again, and this
  /// time the answer came intact (ACK, data, 9000): the operation goes on as before the damage.
  private mutating func recoverFromDamage(
    _ op: inout Operation, request: LayerDecode?, answer d: LayerDecode, damaged: Bool
  ) {
    guard !damaged, let request, d.name != "NAK",
      d.field("sw").map({ $0 == .string("9000") }) ?? true
    else { return }
    Self.recover(&op, from: .failed, &damagedCommands, before: outcomeBeforeDamage, request)
  }

  /// `op`, left `outcome` by `commands`, got an answer to `request`, one of them: removed,
  /// and once every one of them is answered, the outcome `before` them is back.
  private static func recover(
    _ op: inout Operation, from outcome: OperationOutcome, _ commands: inout [LayerDecode],
    before: (OperationOutcome, String?)?, _ request: LayerDecode
  ) {
    guard op.outcome == outcome, let i = commands.firstIndex(of: request) else { return }
    commands.remove(at: i)
    // Every command that went unanswered (or damaged) must have been answered since.
    guard commands.isEmpty else { return }
    (op.outcome, op.reason) = before ?? (.ok, nil)
  }

  /// A tag decode that answers a command (not a chained part or an S-block).
  private func isAnswer(_ d: LayerDecode) -> Bool {
    switch d.protocolID {
    case .type2, .type4, .iso7816: return true
    // The Type 3 NDEF procedures' commands and answers (`Type3Procedure`).
    case .felica: return d.name.hasPrefix("CHECK") || d.name.hasPrefix("UPDATE")
    // The Type 5 procedures' requests and answers; INVENTORY is the poll.
    case .iso15693: return !d.name.hasPrefix("INVENTORY")
    default: return false
    }
  }

  /// A reader frame outside ISO-DEP that no layer could decode (ISO-DEP blocks with an INF
  /// that is no APDU follow the block rules instead).
  private func undecodable(_ f: DecodedFrame) -> Bool {
    f.undecodedReason != nil && f.layer(.isoDEP) == nil
  }

  /// A reader frame of another RF technology than the tag's, left unanswered: the reader's
  /// polling loop looking for other tags (an ISO 15693 INVENTORY between FeliCa polls), which
  /// this tag cannot hear. It is no command of the session's operations. A frame whose source
  /// does not say its technology is one when its CRC_B verified alone (ISO 14443-B or ISO 15693,
  /// `DecodedFrame.crcBAlone`) and the tag is neither.
  private mutating func isOtherTechnologyPoll(_ f: DecodedFrame) -> Bool {
    guard f.frame.direction == .reader, f.response == .unanswered, tag.technology != .unknown
    else { return false }
    if f.crcBAlone { return tag.technology != .nfcB && tag.technology != .nfcV }
    return f.technology != .unknown && f.technology != tag.technology
  }

  private mutating func noAnswer(_ f: DecodedFrame, kind: OperationKind?) {
    guard !closing, !isOtherTechnologyPoll(f), var op = current else { return }
    current = nil
    let what = f.innermost?.summary ?? "frame \(f.frame.index)"
    if kind == .connect {
      op.unansweredFrames.append(f.frame.index)
      // The stack's GET_VERSION probe unanswered: a tag without the NTAG21x / EV1 commands.
      if f.innermost?.name == "GET_VERSION", f.innermost?.protocolID == .type2 {
        type2.versionUnanswered()
      }
    } else if f.innermost?.name == "AUTHENTICATE", f.innermost?.protocolID == .type2 {
      // Stacks send the Ultralight C AUTHENTICATE to tell UL C apart; other tags stay silent.
      op.unansweredFrames.append(f.frame.index)
      op.fail("\(what) not answered: the tag is not a MIFARE Ultralight C", frame: f.frame.index)
      pending = nil
    } else if f.innermost?.name == "GET_VERSION", f.innermost?.protocolID == .type2 {
      // Stacks send GET_VERSION to identify the tag; MIFARE Ultralight, Ultralight C and
      // NTAG203 do not have it (nfc-facts §4.6) and may stay silent instead of a NAK.
      op.unansweredFrames.append(f.frame.index)
      op.fail(
        "\(what) not answered: the tag has no GET_VERSION (MIFARE Ultralight, Ultralight C or "
          + "NTAG203)", frame: f.frame.index)
      type2.versionUnanswered()
      pending = nil
    } else if let d = f.innermost, let why = type2.unsupported(d, tag: tag) {
      // A command the tag does not have: it went idle, it did not leave (the reader's next
      // WUPA wakes it).
      op.unansweredFrames.append(f.frame.index)
      op.fail(why, frame: f.frame.index)
      pending = nil
    } else if isPresenceCheck(f) {
      // The tag left after the last command's answer: whether that interrupted the operation
      // depends on whether its procedure had finished, known once it is settled
      // (`closeCurrent`).
      if presenceSilence == nil {
        presenceSilence = (
          f.frame.index, "no answer to \(what): the tag left the field or stopped answering"
        )
      }
      current = op
      return
    } else if f.innermost?.protocolID == .isoDEP || undecodable(f) {
      // An ISO-DEP block (a chained part, R(NAK), S-block): recovery (R(NAK) → R(ACK), the
      // block sent again) may still bring the APDU's answer; an undecodable frame is ignored
      // by the tag. The silence decides only if no answer follows before the operation ends
      // (`closeCurrent`).
      op.unansweredFrames.append(f.frame.index)
      // The first silent ISO-DEP block; the last undecodable frame (as a silent command) when
      // no ISO-DEP block is waiting.
      let replace = deferredSilence == nil || (undecodable(f) && !deferredSilenceIsISODEP)
      if replace {
        deferredSilence = (
          f.frame.index, "no answer to \(what): the tag left the field or stopped answering"
        )
        deferredSilenceIsISODEP = !undecodable(f)
      }
    } else {
      if op.outcome != .interrupted { outcomeBeforeSilence = (op.outcome, op.reason) }
      op.interrupt(
        "no answer to \(what): the tag left the field or stopped answering",
        frame: f.frame.index)
      encryptedSilence = Self.isEncryptedShortCommand(f) ? f.frame.index : nil
      classicAuthSilence = Self.isClassicReaderAnswer(f) ? f.frame.index : nil
      if let c = f.innermost, !silentCommands.contains(c), silentCommands.count < 64 {
        silentCommands.append(c)
      }
      if f.innermost?.protocolID == .type2 {
        type2.unanswered(f, memory: &memory)
        silentType2 = f
      }
      if f.layer(.type4) != nil || f.layer(.iso7816) != nil { type4.unanswered(f, memory: &memory) }
      if f.innermost?.protocolID == .felica { type3.unanswered(f, op: &op, memory: &memory) }
      if f.innermost?.protocolID == .iso15693 {
        type5.unanswered(f, memory: &memory)
        silentNFCV = f
      }
      pending = nil
      if f.layer(.isoDEP) != nil, let c = f.innermost, isAnswer(c) { silentIBlock = f }
    }
    current = op
  }

  /// Whether `op` is a writeNDEF that left the NDEF length 0 (NLEN/ENLEN, or the Type 2 NDEF
  /// TLV's length): the first step of the write procedure, not a finished write.
  private mutating func writeLeftLengthZero(_ op: Operation) -> Bool {
    guard op.kind == .writeNDEF else { return false }
    if let id = type4.ndefFileID, let image = memory.filesEnd[id] {
      return image.knownBigEndian(0, type4.nlenSize) == 0
    }
    return memory.type2Area?.ndef?.length == 0
  }

  /// Whether the unanswered reader frame `f` is an ISO-DEP presence check sent while nothing
  /// was outstanding: an R(NAK) or R(ACK), or an empty I-block (ISO/IEC 14443-4 §7.5.6), after
  /// the last command's answer, with no chain open and no earlier silence. Stacks send them
  /// between and after calls; the tag taken away after the operation leaves them unanswered.
  private mutating func isPresenceCheck(_ f: DecodedFrame) -> Bool {
    guard let d = f.innermost, d.protocolID == .isoDEP, pending == nil, silentIBlock == nil,
      openChain == nil, deferredSilence == nil
    else { return false }
    switch d.name {
    case "R(NAK)", "R(ACK)": return true
    case "I-block": return d.field("inf_length") == .int(0) && d.field("chaining") == .bool(false)
    default: return false
    }
  }

  /// The reader's {nr}{ar} of a MIFARE Classic authentication (8 encrypted bytes after the
  /// tag nonce nt).
  private static func isClassicReaderAnswer(_ f: DecodedFrame) -> Bool {
    f.frame.direction == .reader && f.innermost?.protocolID == .mifareClassic
      && f.innermost?.name == "AUTH (nr, ar)"
  }

  /// A MIFARE Classic reader frame after authentication of 4 bytes (2 + CRC): an encrypted
  /// HALT, which no tag answers (ISO/IEC 14443-3 §6.4.3), or an encrypted READ; the ciphertext
  /// does not say which.
  private static func isEncryptedShortCommand(_ f: DecodedFrame) -> Bool {
    f.frame.direction == .reader && f.innermost?.name == "ciphertext" && f.frame.data.count == 4
  }

  /// The reader's I-block `f` shows that it received the answer to its previous one, which
  /// the capture missed (`answer-not-captured`, ISO/IEC 14443-4 §7.5.3 PCD rule B): that
  /// command's silence is not the tag's, and the operation goes on as before it.
  private mutating func answerNotCaptured(_ f: DecodedFrame) {
    let missed = f.findings.first { $0.code == "answer-not-captured" }?.frames.first
    // Every ISO-DEP silence since that I-block (an S(WTX) answer, an R(NAK)) is explained.
    if let silence = deferredSilence, deferredSilenceIsISODEP, silence.frame >= (missed ?? 0) {
      deferredSilence = nil
    }
    current?.set("answer_not_captured", .int(missed ?? f.frame.index))
    // The tag did answer it: the command is not one the tag left unanswered.
    if let missed { current?.unansweredFrames.removeAll { $0 == missed } }
    // A damaged copy (or none) of the answer: what it said is not known.
    if current?.outcome == .ok {
      current?.outcome = .unknown
      current?.reason =
        "the tag's answer to frame \(missed ?? f.frame.index) is not in the capture intact (the "
        + "reader received it and went on)"
    }
    guard var op = current, op.outcome == .interrupted, let silent = silentIBlock?.innermost,
      let i = silentCommands.firstIndex(of: silent)
    else { return }
    silentCommands.remove(at: i)
    // What the answer said is not known (a reader toggles on any I-block, error status words
    // included): not the tag's silence, not a known success either.
    settleMissedAnswer(
      &op,
      reason: "the tag's answer to \(silent.summary) is not in the capture (the reader received "
        + "it and went on)")
    current = op
  }

  /// Once no silent command is left, the operation's outcome before the silence comes back;
  /// an ok one becomes unknown with `reason`: what the missed answer said is not known.
  private func settleMissedAnswer(_ op: inout Operation, reason: String) {
    guard silentCommands.isEmpty else { return }
    let before = outcomeBeforeSilence ?? (.ok, nil)
    (op.outcome, op.reason) = before.0 == .ok ? (.unknown, reason) : before
  }

  /// The reader went on from Type 2 READ or WRITE `silent`, unanswered in the capture, to
  /// `next`, another command the tag answered: stacks send the next command only after the
  /// answer (they send a silent READ or WRITE again, up to 5 times, then fail the call;
  /// libnfc-nci RW_MAX_RETRIES, nfc-facts §4.2), so the sniffer missed it. The silence is not
  /// the tag's; what the answer said (ACK or NAK, which data) is not known, so the operation's
  /// outcome is unknown, as for a missed ISO-DEP answer (`answerNotCaptured`).
  private mutating func type2AnswerMissed(_ silent: DecodedFrame, next: DecodedFrame) {
    guard let c = silent.innermost, let d = next.innermost, d.protocolID == .type2, d != c,
      !next.startsActivation, case .answeredBy = next.response,
      ["READ", "FAST_READ", "WRITE", "COMPATIBILITY_WRITE"].contains(c.name),
      // A READ 0 left unanswered is the stack's presence check the tag left during.
      c.absoluteStartPage != 0 || c.name.hasSuffix("WRITE"),
      var op = current, op.outcome == .interrupted, let i = silentCommands.firstIndex(of: c),
      // Sent once: a command the reader sent again got no answer it could use, whatever it did
      // next (the app's next command after the call failed).
      op.unansweredFrames == [silent.frame.index]
    else { return }
    silentCommands.remove(at: i)
    op.unansweredFrames.removeAll { $0 == silent.frame.index }
    op.set("answer_not_captured", .int(silent.frame.index))
    settleMissedAnswer(
      &op,
      reason: "the tag's answer to \(c.summary) is not in the capture (the reader went on to "
        + "\(d.summary), which the tag answered)")
    current = op
  }

  /// ISO 15693 request `silent`, unanswered, then `next`, a request the tag answered: the
  /// tag did not leave the field. A block READ or WRITE (which a tag always answers, with data
  /// or an error) had an answer the sniffer missed: the outcome is unknown, as after a missed
  /// Type 2 answer. Any other request is one the tag keeps silent on: an ISO 15693 tag does
  /// not answer a command it does not support or whose condition is not met (ISO/IEC 15693-3
  /// §10.4: EAS ALARM with EAS off, a custom command of another maker); the operation failed
  /// on it, it was not interrupted.
  private mutating func nfcVSilence(_ silent: DecodedFrame, next: DecodedFrame) {
    guard let c = silent.innermost, let d = next.innermost, d.protocolID == .iso15693,
      !next.startsActivation, case .answeredBy = next.response,
      var op = current, op.outcome == .interrupted, let i = silentCommands.firstIndex(of: c),
      op.unansweredFrames == [silent.frame.index]
    else { return }
    silentCommands.remove(at: i)
    op.unansweredFrames.removeAll { $0 == silent.frame.index }
    let code = Type5Procedure.command(c) ?? 0
    if ISO15693Command.readsBlocks(code) || Type5Procedure.writesBlocks(code) {
      op.set("answer_not_captured", .int(silent.frame.index))
      settleMissedAnswer(
        &op,
        reason: "the tag's answer to \(c.summary) is not in the capture (the reader went on to "
          + "\(d.summary), which the tag answered)")
    } else if silentCommands.isEmpty {
      (op.outcome, op.reason) = outcomeBeforeSilence ?? (.ok, nil)
      op.fail(
        "no answer to \(c.summary), and the tag answered the next request: it stayed in the "
          + "field, silent on a command it does not support or whose condition is not met",
        frame: silent.frame.index)
    }
    current = op
  }

  /// The reader's {nr}{ar} answers a nonce nt the capture lacks (`nt_not_captured`): a reader
  /// sends it only on receiving nt (NXP MF1S50yyX datasheet §10.3, three-pass authentication),
  /// so the tag answered the AUTH left silent in the capture, and the silence is the sniffer's.
  /// The operation's outcome before it comes back; the detail `nt_not_captured` names the AUTH.
  private mutating func classicNonceNotCaptured() {
    guard var op = current, op.kind == .authenticate, op.outcome == .interrupted,
      let auth = op.unansweredFrames.last,
      let i = silentCommands.lastIndex(where: {
        $0.protocolID == .mifareClassic && $0.name.hasPrefix("AUTH key")
      })
    else { return }
    silentCommands.remove(at: i)
    op.unansweredFrames.removeLast()
    op.set("nt_not_captured", .int(auth))
    if silentCommands.isEmpty, op.unansweredFrames.isEmpty {
      (op.outcome, op.reason) = outcomeBeforeSilence ?? (.ok, nil)
    }
    current = op
  }

  /// A MIFARE Classic authentication that got the tag's nonce nt (frame `nonce`) and no {at}
  /// yet counts as done: the reader abandoned it (a plaintext HLTA, a new activation, the end
  /// of the capture) before the tag's {at}, which alone completes it (NXP MF1S50yyX datasheet
  /// §10.3). Whether the key is right is not known: outcome `unknown`, detail
  /// `classic_auth_abandoned` naming the nonce's frame.
  private func settleClassicAbandoned(_ op: inout Operation, nonce: Int) {
    guard op.kind == .authenticate, op.outcome == .ok, op.firstFrame <= nonce else { return }
    op.outcome = .unknown
    op.reason =
      "no {nr}{ar} and {at} after the tag's nonce nt (frame \(nonce)): the reader did not "
      + "complete the authentication, so whether its key is right is not known"
    op.set("classic_auth_abandoned", .int(nonce))
  }

  /// The reader went on from MIFARE Classic {nr}{ar} `silent`, unanswered in the capture, to
  /// ciphertext the tag answered: only a tag that accepted the reader's answer (the right key)
  /// answers encrypted commands (a rejecting one stays idle until activated again; NXP
  /// MF1S50yyX/V1 datasheet, three-pass authentication), so the sniffer missed its {at} and
  /// the authentication succeeded.
  private mutating func classicAuthAnswerMissed(_ silent: Int, next: DecodedFrame) {
    guard next.innermost?.name == "ciphertext", case .answeredBy = next.response,
      var op = current, op.kind == .authenticate, op.outcome == .interrupted,
      op.unansweredFrames == [silent]
    else { return }
    classicAuthSilence = nil
    classicNonce = nil
    silentCommands.removeAll { $0.protocolID == .mifareClassic && $0.name == "AUTH (nr, ar)" }
    op.unansweredFrames = []
    op.set("answer_not_captured", .int(silent))
    if silentCommands.isEmpty {
      op.outcome = .ok
      op.reason =
        "the tag's answer {at} to frame \(silent) is not in the capture; the tag answered the "
        + "encrypted command that followed, which only an authenticated tag does"
    }
    current = op
  }

  /// The reader's frame after a tag frame longer than its FSD (`next`; nil: none in the
  /// operation). A reader must drop such a frame (ISO/IEC 14443-4 §7.1.1) and answer it with
  /// R(NAK) (§7.5.4.2 rule 4); a next I-block that does not toggle the block number shows it
  /// did not take it either: the operation failed (Core NFC 102). A next I-block or R(ACK)
  /// that toggles shows a reader that took it anyway. S(DESELECT), HLTA or nothing after it
  /// end the exchange either way: what the app got is unknown.
  private mutating func settleFSDOverrun(_ overrun: (frame: Int, why: String), next: DecodedFrame?)
  {
    let block = next?.layer(.isoDEP)?.name ?? ""
    let untoggled = next?.findings.contains { $0.code == "unexpected-block-number" } ?? false
    let took = (block.hasPrefix("I-block") || block == "R(ACK)") && !untoggled
    guard !took, var op = current, op.outcome == .ok,
      (op.firstFrame...op.lastFrame).contains(overrun.frame)
    else { return }
    let dropped = block == "R(NAK)" || (block.hasPrefix("I-block") && untoggled)
    let why =
      "the tag's frame \(overrun.frame) is longer than the reader can receive (\(overrun.why))"
    if dropped {
      op.fail(why + ": the reader dropped it (ISO/IEC 14443-4 §7.1.1)", frame: overrun.frame)
    } else {
      op.outcome = .unknown
      op.reason =
        why + ": a reader must drop it (ISO/IEC 14443-4 §7.1.1); nothing after it "
        + "shows whether this one did"
    }
    current = op
  }

  /// Follows a tag I-block of the wrong block number (`wrongBlock`): set by one, cleared by
  /// the tag's next I-block that is not the same block sent again (the block the reader's
  /// R(NAK) asked for, ISO/IEC 14443-4 §7.5.4.2 rule 11).
  private mutating func trackWrongBlock(tag f: DecodedFrame) {
    guard let block = f.layer(.isoDEP), block.name == "I-block",
      case .int(let number)? = block.field("block_number")
    else { return }
    if f.findings.contains(where: { $0.code == "unexpected-block-number" }) {
      // Only an answer to a command of the other number (not the tag's last block sent again
      // after the reader's R-block, with the number of the command it answered).
      guard let command = pending,
        case .int(let asked)? = command.layer(.isoDEP)?.field("block_number"), asked != number
      else { return }
      wrongBlock = WrongBlock(frame: f.frame.index, number: number, command: command.frame.index)
    } else if wrongBlock?.rejected == true, !block.summary.contains("(retransmission)") {
      wrongBlock = nil
    }
  }

  /// The reader's frame after a tag I-block of the wrong block number (`next`; nil: the
  /// operation ends). A reader must not take such a block (ISO/IEC 14443-4 §7.5.4.2: it
  /// toggles only on an I-block of its own number) and answers it with R(NAK): one that
  /// R(NAK)ed it and then ends the exchange (S(DESELECT), HLTA, a new activation, nothing)
  /// never got a valid answer, so the operation failed (Core NFC 102). One that goes on with a
  /// toggled I-block or an R(ACK) took the block (a lenient reader): the operation stands,
  /// detail `wrong_block_number` says so. An untoggled I-block after R(NAK) is the command
  /// again or a new one, and an exchange ended with no R(NAK) may be frames the sniffer missed
  /// (the answer and the reader's next I-block): nothing is judged.
  private mutating func settleWrongBlock(_ wrong: WrongBlock, next: DecodedFrame?) {
    let block = next?.layer(.isoDEP)
    if block?.name == "R(NAK)" {
      wrongBlock?.rejected = true
      return
    }
    // The reader's answer to the tag's S(WTX) request: the exchange goes on.
    if block?.name == "S(WTX)" { return }
    wrongBlock = nil
    let goesOn = block.map { $0.name.hasPrefix("I-block") || $0.name == "R(ACK)" } ?? false
    // The ISO-DEP layer resynchronised on the tag's number: a reader block that toggled from
    // its own last one carries the layer's `unexpected-block-number`.
    let toggled = next?.findings.contains { $0.code == "unexpected-block-number" } ?? false
    let tookIt = goesOn && !wrong.rejected && (toggled || block?.name == "R(ACK)")
    guard tookIt || (wrong.rejected && !goesOn),
      var op = current, op.outcome == .ok, (op.firstFrame...op.lastFrame).contains(wrong.frame)
    else { return }
    if wrong.rejected && !goesOn {
      op.fail(
        "the tag's I-block \(wrong.frame) has block number \(wrong.number) where the reader "
          + "awaited \(wrong.number ^ 1): the reader refused it (R(NAK)) and ended the exchange "
          + "without a valid answer (ISO/IEC 14443-4 §7.5.4.2)", frame: wrong.frame)
    }
    op.set("wrong_block_number", .int(wrong.frame))
    if let command = wrong.command { op.set("wrong_block_command", .int(command)) }
    current = op
  }

  /// Operations of one session beyond which consecutive calls of one kind are no longer split
  /// (a reader polling one tag for hours would otherwise keep an operation per read).
  static let splitLimit = 4096

  private mutating func startsNewCall(_ kind: OperationKind, _ f: DecodedFrame) -> Bool {
    // A DESFire / NTAG 424 AUTHENTICATE starts an authentication of its own (a retry after a
    // failure, another key); its ADDITIONAL FRAME steps continue it.
    if kind == .authenticate, let name = f.innermost?.name, name.hasPrefix("DESFire AUTHENTICATE") {
      return true
    }
    // The NDEF application selected again after the query read NLEN: the app's next call
    // (a read or write starts over with NDEF detection, T4T 2.0 §5.4), not more of the query.
    if kind == .queryNDEFStatus, let query = current, query.kind == .queryNDEFStatus,
      type4.detectionFinished, type4.nlenFrame.map({ $0 >= query.firstFrame }) ?? false,
      Self.selectsNDEFApplication(f)
    {
      return true
    }
    guard kind == .readNDEF || kind == .writeNDEF, operations.count < Self.splitLimit,
      let d = f.innermost
    else { return false }
    if d.protocolID == .felica, let op = current {
      return type3.startsNewCall(kind, d, current: op, memory: memory)
    }
    if d.protocolID == .iso15693, let op = current {
      return type5.startsNewCall(kind, d, current: op, memory: memory)
    }
    return call.startsNewCall(kind, d, at: f.frame.timeNs, memory: memory, nlenSize: type4.nlenSize)
  }

  private mutating func start(_ kind: OperationKind, frame: Int) {
    open(kind, frame: frame, announced: true)
  }

  /// Opens operation `kind` at `frame`; `announced`: its start event now (a held operation's
  /// comes when its kind is settled).
  private mutating func open(_ kind: OperationKind, frame: Int, announced: Bool) {
    call.reset()
    deferredSilence = nil
    wtxUnansweredByReader = nil
    presenceSilence = nil
    encryptedSilence = nil
    classicAuthSilence = nil
    silentCommands = []
    outcomeBeforeSilence = nil
    damagedCommands = []
    outcomeBeforeDamage = nil
    silentType2 = nil
    silentNFCV = nil
    current = Operation(kind: kind, frame: frame)
    ratsAwaitingATS = nil
    connectOnlyPolled = false
    connectActivation = (false, false)
    tagAnsweredOperation = false
    if announced { events.append(.started(kind, frame: frame)) }
  }

  /// Whether `takeEvents()` has anything to give (most frames start and end no operation).
  public var hasEvents: Bool { !events.isEmpty }

  /// The operation starts and ends since the last call, in order.
  public mutating func takeEvents() -> [OperationEvent] {
    defer { events.removeAll() }
    return events
  }

  private mutating func extend(_ f: DecodedFrame) {
    if chainLimbo != nil {
      chainLimbo?.last = f.frame.index
      return
    }
    current?.lastFrame = f.frame.index
  }

  /// The outcome of every operation of a session in which no tag frame was captured.
  static let tagNotHeard = "no frame of the tag was captured: whether it answered is unknown"

  private mutating func closeCurrent() {
    if lockLimbo != nil { settleLockLimbo(next: nil) }
    if let overrun = fsdOverrun.take() { settleFSDOverrun(overrun, next: nil) }
    if let wrong = wrongBlock { settleWrongBlock(wrong, next: nil) }
    // Held SELECTs of the NDEF application with nothing after them (activation, end): one is
    // the query it began, as far as it went; the same SELECT repeated is discovery — unless
    // the tag refused it: then no discovery hands the tag over, and the query found no NDEF.
    if let limbo = discoveryLimbo {
      settleDiscovery(
        asQuery: !limbo.probed
          && (limbo.lastSelect == limbo.first || type4.status?.status == .notSupported))
    }
    if presenceLimbo != nil { settlePresenceLimbo(asQuery: false) }
    if selectLimbo != nil { settleSelectLimbo(as: nil) }
    guard let op = finishCurrent() else { return }
    operations.append(op)
    events.append(.ended(op))
  }

  /// Finishes the current operation (its outcome settled from what is pending) and returns
  /// it, without recording or announcing its end.
  private mutating func finishCurrent() -> Operation? {
    // The chain's last part never came: its command is a transceive of its own, cut off.
    settleChainLimbo(answered: false)
    settleUndecoded()
    if let (frame, why, _) = classicTransmissionNAK {
      classicTransmissionNAK = nil
      current?.fail(why, frame: frame)
    }
    guard var op = current else { return nil }
    current = nil
    if let part1 = compatibilityPart1, op.outcome == .ok, op.firstFrame <= part1,
      part1 <= op.lastFrame
    {
      // The command's data is its part 2 (nfc-facts §4.1): without it nothing was written.
      op.outcome = .unknown
      op.reason =
        "the tag acknowledged COMPATIBILITY_WRITE part 1 (frame \(part1)), but its part 2, the "
        + "16 data bytes, is not in the capture: what was written is not known"
    }
    if let wtx = wtxUnansweredByReader.take(), deferredSilence == nil, let p = pending,
      p.layer(.iso7816) != nil
    {
      // The tag was still working on the APDU; the reader, not the tag, went silent.
      deferredSilence = (
        wtx,
        "the tag asked for more time (S(WTX) request, frame \(wtx)) and the reader never "
          + "answered it (ISO/IEC 14443-4 §7.3: the PCD answers with an S(WTX) response): "
          + "the answer to \(p.innermost?.summary ?? "the command") never came"
      )
    }
    if let silence = deferredSilence {
      deferredSilence = nil
      // A command already left unanswered is what the silence is about: the R(NAK)s the
      // reader sent after it are its recovery (ISO/IEC 14443-4 §7.5.4 rule 4), not a command.
      if op.outcome != .interrupted { op.reason = silence.why }
      op.outcome = .interrupted
      // The APDU still waiting (kept busy by S(WTX), or R(NAK)ed) never got its answer: an
      // UPDATE's bytes may or may not be in the tag's memory, as for one with no answer at all
      // (a damaged copy of its answer shows the tag carried it out).
      if let p = pending, p.layer(.type4) != nil || p.layer(.iso7816) != nil,
        damagedLastAnswer == nil
      {
        type4.unanswered(p, memory: &memory)
      }
    }
    if let damaged = damagedLastAnswer {
      damagedLastAnswer = nil
      // The tag answered, so it carried the command out or refused it: an UPDATE's bytes may
      // be in the file (the intact copy that would tell never came).
      if let p = pending, p.layer(.type4) != nil || p.layer(.iso7816) != nil {
        type4.unanswered(p, memory: &memory)
      }
      if op.outcome == .ok {
        op.outcome = .unknown
        op.reason =
          "the tag's last answer (frame \(damaged)) is in the capture only damaged (CRC or parity "
          + "failed) "
          + "and the reader sent nothing after it: the tag carried the command out, but whether "
          + "the reader received the answer intact (and the app its result) is unknown"
        op.set("last_answer_damaged", .int(damaged))
      }
    }
    if let chain = openChain {
      // The APDU's last part never went out: the tag did not get the command (ISO/IEC
      // 14443-4 §7.5.2 — a chained command is executed only once its last block arrives).
      openChain = nil
      op.interrupt(
        "the chained command was cut off after part \(chain.part): its last part was never "
          + "sent, so the tag never executed it (it left the field or the link was lost)",
        frame: chain.frame, replacingReason: true)
    }
    if !op.acknowledgedPages.isEmpty {
      let pages = op.acknowledgedPages.map(String.init).joined(separator: ",")
      op.set("pages_acknowledged", .string(pages))
    }
    if !op.classicWrites.isEmpty {
      op.set(
        "blocks_written", .string(op.classicWrites.map { String($0.block) }.joined(separator: ",")))
    }
    switch op.kind {
    case .connect:
      Self.settleConnect(
        &op, tag: tag, ratsUnanswered: ratsAwaitingATS, onlyPolled: connectOnlyPolled,
        selected: !connectActivation.started || connectActivation.selected,
        heard: tagAnsweredOperation)
      if op.outcome == .failed, let attrib = attribUnknownPUPI,
        op.unansweredFrames.contains(attrib)
      {
        op.reason =
          "the tag did not answer ATTRIB (frame \(attrib)), which named a PUPI no ATQB gave: "
          + "a PICC answers only an ATTRIB carrying its own PUPI (ISO/IEC 14443-3 §7.10.2)"
      }
    case .queryNDEFStatus:
      type2.settleQuery(&op, memory: memory)
      type4.settleQuery(&op)
      type3.settleQuery(&op)
      type5.settleQuery(&op)
      if op.outcome == .ok, op.detail("status") == nil {
        // Commands of the query were answered, but not the one that decides: no status.
        op.outcome = .unknown
        if let partial = type4.partialCC {
          op.reason =
            "the capability container was read only in part (\(partial.read) of its "
            + "\(partial.length) bytes: its access conditions were not read): the NDEF status "
            + "is unknown"
        } else if tag.technology == .nfcF {
          op.reason =
            "the Attribute Information Block (block 0) was not read: the NDEF status is unknown"
        } else if tag.technology == .nfcV {
          op.reason = "block 0 (the CC) was not read: the NDEF status is unknown"
        } else {
          op.reason = "the capability container was not read: the NDEF status is unknown"
        }
      }
    case .readNDEF:
      type2.settleRead(&op, memory: memory)
      type4.settleRead(&op, memory: memory)
      if tag.technology == .nfcF { type3.settleRead(&op, memory: memory) }
      if tag.technology == .nfcV { type5.settleRead(&op, memory: memory) }
    case .writeNDEF where op.outcome == .ok: settleWrite(&op)
    case .authenticate: type2.settleAuthenticate(&op)
    default: break
    }
    if let silent = encryptedSilence {
      encryptedSilence = nil
      if op.outcome == .interrupted, op.lastFrame == silent, op.unansweredFrames.last == silent {
        op.outcome = .unknown
        op.reason =
          "no answer to the last encrypted command (4 bytes: the reader's HALT, which is never "
          + "answered, or a READ): the ciphertext does not say which"
        op.set("encrypted_unanswered", .int(silent))
      }
    }
    if let silent = classicAuthSilence {
      classicAuthSilence = nil
      // Rejected key or tag gone: the diagnosis tells them apart by what follows (a tag that
      // rejected the key answers nothing encrypted until it is activated again).
      if op.kind == .authenticate, op.outcome == .interrupted, op.lastFrame == silent,
        op.unansweredFrames.last == silent
      {
        op.set("classic_auth_unanswered", .int(silent))
      }
    }
    if let nt = classicNonce.take() { settleClassicAbandoned(&op, nonce: nt) }
    if let silence = presenceSilence {
      presenceSilence = nil
      // The procedure had not finished (reads stopped early, no status): the tag left during
      // it. Finished, the presence check's silence only says the tag was taken away after.
      let unfinished = op.detail("unfinished") != nil || writeLeftLengthZero(op)
      if op.outcome == .unknown || unfinished, op.detail("answer_not_captured") == nil {
        op.details.removeAll { $0.key == "unfinished" }
        op.interrupt(silence.why, frame: silence.frame)
      }
    }
    if !tagHeard {
      op.outcome = .unknown
      op.reason = Self.tagNotHeard
    }
    if let cutAt { Self.settleCut(&op, at: cutAt) }
    return op
  }

  /// The last operation of a trace cut by an import error: silence at its end (interrupted,
  /// an activation not completed) is the cut's, not the tag's, so how it ended is unknown. A
  /// refusal the trace shows (NAK, error status word) stands.
  private static func settleCut(_ op: inout Operation, at location: String) {
    guard op.outcome == .interrupted || (op.kind == .connect && op.outcome != .ok) else { return }
    op.outcome = .unknown
    op.reason = "the trace was cut at \(location): how this operation ended is not in it"
    op.details.removeAll { $0.key == "unfinished" }
    op.set("trace_cut", .string(location))
    // The answer after the cut is not in the trace, not missing from the air; earlier
    // silences (retries) stay.
    let last = op.lastFrame
    op.unansweredFrames.removeAll { $0 == last }
  }

  /// A writeNDEF the tag acknowledged throughout is still interrupted when the writer stopped
  /// before the procedure's end (`WriteCompletion`): detail `unfinished` names the step.
  private mutating func settleWrite(_ op: inout Operation) {
    if tag.technology == .nfcF { return type3.settleWrite(&op, memory: memory) }
    if tag.technology == .nfcV { return type5.settleWrite(&op, memory: memory) }
    let found: (WriteCompletion.Gap, String)?
    if tag.isISODEP {
      // Without the CC the length field's size (NLEN 2 or ENLEN 4 bytes) is unknown.
      guard type4.cc != nil else { return }
      let image = memory.filesEnd[type4.ndefFileID ?? 0xE104]
      found = image.flatMap { image in
        WriteCompletion.type4(image, size: type4.nlenSize, fileSize: type4.cc?.ndefFile.maxSize)
          .flatMap {
            WriteCompletion.gap(
              $0, in: image, before: memory.filesStart[type4.ndefFileID ?? 0xE104],
              frames: op.firstFrame...op.lastFrame)
          }
      }
    } else {
      found = WriteCompletion.type2(memory).flatMap {
        WriteCompletion.gap(
          $0, in: memory.type2End, before: memory.type2Start, frames: op.firstFrame...op.lastFrame)
      }
    }
    guard let (gap, reason) = found else { return }
    op.outcome = .interrupted
    op.reason = reason
    op.set("unfinished", .string(gap.rawValue))
  }

  /// connect is ok once the UID is complete and, when RATS was sent, the ATS arrived: without
  /// it the ISO-DEP activation failed (ISO/IEC 14443-4 §5.6.1: the PCD may retry RATS, then
  /// deactivates the PICC) and no ISO 7816 tag is connected.
  private static func settleConnect(
    _ op: inout Operation, tag: TagIdentity, ratsUnanswered: Int?, onlyPolled: Bool,
    selected: Bool, heard: Bool
  ) {
    // Anticollision after an unanswered poll (a halted tag ignores REQA) that the tag did
    // not answer either: nothing was activated, whatever an earlier connect selected.
    if !heard, !op.unansweredFrames.isEmpty, op.outcome == .ok {
      op.outcome = .failed
      op.reason = "the tag did not answer the activation"
      return
    }
    // REQA/WUPA answered by ATQA and nothing after: the reader checked that a tag is there (or
    // the trace ends), it selected none. The session's UID and SAK are an earlier connect's.
    if onlyPolled, op.outcome == .ok {
      op.outcome = .unknown
      op.reason =
        "the reader polled (REQA/WUPA answered by ATQA) and did not select the tag: "
        + "activation not completed in the trace"
      return
    }
    // A re-activation whose anticollision stopped short selected nothing: the session's UID
    // and SAK are the earlier activation's.
    if selected {
      if let uid = tag.uidString { op.set("uid", .string(uid)) }
      if let sak = tag.sak { op.set("sak", .hex([sak])) }
    }
    if !selected || (tag.uid.isEmpty && tag.sak == nil) {
      op.outcome = op.unansweredFrames.isEmpty ? .unknown : .failed
      op.reason =
        op.unansweredFrames.isEmpty
        ? "activation not completed in the trace" : "the tag did not answer the activation"
    } else if let rats = ratsUnanswered, op.outcome == .ok {
      op.outcome = .failed
      op.reason =
        op.unansweredFrames.contains(rats)
        ? "the tag did not answer RATS (frame \(rats)) with an ATS: the ISO-DEP activation failed"
        : "the tag answered RATS (frame \(rats)) with no valid ATS (damaged, or its TL does not "
          + "match its length): the ISO-DEP activation failed"
    }
  }

  /// Whether the Type 4 read or write in progress did its last step (read the whole
  /// message; set a non-zero NLEN): a SELECT after it starts the stack's next procedure
  /// (Android detects NDEF again before each call), not a step of the finished one, which
  /// the tag's silence to it must not interrupt.
  private func callFinished(_ kind: OperationKind) -> Bool {
    switch kind {
    case .readNDEF: return call.type4DataRead && type4.messageKnown(memory)
    case .writeNDEF: return call.type4LengthSet
    default: return false
    }
  }

  /// A polling frame: REQA/WUPA, ATQA, Apple ECP.
  private static func isPoll(_ f: DecodedFrame) -> Bool {
    guard let d = f.innermost else { return false }
    if d.protocolID == .appleECP { return true }
    return d.protocolID == .iso14443A && (d.name == "REQA" || d.name == "WUPA" || d.name == "ATQA")
  }

  // MARK: - Classification

  /// The operation a reader frame belongs to; nil for frames that continue the current one.
  private mutating func classify(_ f: DecodedFrame) -> OperationKind? {
    if f.startsActivation {
      closeCurrent()
      type4.activated()
      // A poll no tag answered (the reader polling after the tag left) connects nothing.
      return f.response == .unanswered ? nil : .connect
    }
    // An empty frame (a listing's blank data cell) sends nothing: it opens no operation.
    if f.frame.data.isEmpty, f.frame.event == nil { return nil }
    if isOtherTechnologyPoll(f) { return nil }
    guard let d = f.innermost else { return .transceive }
    switch d.protocolID {
    case .appleECP:
      // Apple's polling frame precedes every WUPA, with or without a tag.
      return nil
    case .iso14443A:
      return d.name == "HLTA" ? nil : .connect
    case .isoDEP:
      return d.name == "RATS" || d.name.hasPrefix("PPS") ? .connect : nil
    case .type2:
      // The stack resending a command that got no answer (nfcpy's presence check: READ 0 with
      // two retries) stays in that command's operation.
      if let kind = current?.kind, kind != .connect, call.retries(d, at: f.frame.timeNs) {
        return kind
      }
      let answered: Bool
      if case .answeredBy = f.response { answered = true } else { answered = false }
      let kind = type2.classify(
        d, current: current?.kind, memory: memory, tag: tag, answered: answered)
      // After the length-last write's final length, a WRITE past the message's end is the
      // app's own (sendMiFareCommand), not more of the write or its next call.
      if kind == .writeNDEF, current?.kind == .writeNDEF, call.type2WriteFinished,
        type2.writesPastMessage(d, memory: memory)
      {
        return .transceive
      }
      return continuesWrite(d, kind) ? .writeNDEF : kind
    case .type4:
      let kind = type4.classify(d, current: current?.kind)
      return d.name.hasPrefix("SELECT") && kind == current?.kind && callFinished(kind)
        ? .queryNDEFStatus : kind
    case .iso7816:
      // DESFire / NTAG 424 DNA authentication (native or wrapped in CLA 90), and the
      // ADDITIONAL FRAME that carries its next step or the rest of any command's exchange.
      if d.name.hasPrefix("DESFire AUTHENTICATE") { return .authenticate }
      if d.name == "DESFire ADDITIONAL FRAME", let kind = current?.kind, kind != .connect {
        return kind
      }
      // GET RESPONSE fetching the data a 61xx answer announced belongs to that command.
      if d.name == "GET RESPONSE", type4.awaitingResponse != nil, let kind = current?.kind {
        return kind
      }
      // A READ/UPDATE BINARY the capture cut (its header only) continues the read or write
      // in progress instead of splitting it.
      if d.field("cut") == .bool(true), let kind = current?.kind,
        (kind == .writeNDEF && d.field("ins") == .hex([0xD6]))
          || (kind == .readNDEF && d.field("ins") == .hex([0xB0]))
      {
        return kind
      }
      return .transceive
    case .mifareClassic:
      return d.name.hasPrefix("AUTH") ? .authenticate : .transceive
    case .iso14443B:
      // A Slot-MARKER no tag answered polls a slot nobody took, as an unanswered REQB does.
      if d.name == "Slot-MARKER", f.response == .unanswered { return nil }
      return d.name == "HLTB" ? nil : .connect
    case .felica:
      // Polling is the connect; CHECK and UPDATE of the NDEF service are the Type 3 NDEF
      // procedures; Core NFC's other NFCFeliCaTag calls (requestService, …) each send one
      // command.
      if d.name == "SENSF_REQ" { return .connect }
      return type3.classify(
        d, current: current?.kind, currentFailed: current?.outcome == .failed, memory: memory)
    case .nfcDEP:
      // Peer-to-peer exchanges (LLCP) are no Core NFC tag operation: each is a transceive.
      return .transceive
    case .iso15693:
      // INVENTORY is the poll: a connect when a tag answers. Block commands are the Type 5
      // NDEF procedures (`Type5Procedure`); other NFCISO15693Tag calls each send one request.
      if d.name == "INVENTORY" { return f.response == .unanswered ? nil : .connect }
      return type5.classify(d, current: current?.kind, memory: memory)
    }
  }
}

/// A tag I-block of the wrong block number the session analyzer follows (`wrongBlock`).
private struct WrongBlock {
  /// The tag's I-block.
  var frame: Int
  /// Its block number.
  var number: Int
  /// The reader's command it answers, when one was pending.
  var command: Int?
  /// The reader has answered it with R(NAK).
  var rejected = false
}
