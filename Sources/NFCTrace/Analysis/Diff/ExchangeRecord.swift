/// One request/response exchange of a session, kept small for diffing: the decodes the layers
/// already made (shared, not copied), the bytes, and the times. No text is built here.
public struct ExchangeRecord: Sendable {
  /// The reader's frame index (nil for a tag frame with no request).
  public var requestFrame: Int?
  /// Request bytes in air order, CRC included when captured.
  public var request: [UInt8]
  /// Request start, ns from the trace's first frame.
  public var requestNs: Int64
  /// The request's CRC check.
  public var requestCRC: CRCStatus?
  /// The request's innermost decode (nil when raw).
  public var command: LayerDecode?
  /// Why the request stayed raw, when it did.
  public var requestRawReason: String?
  /// The answering frame's index.
  public var responseFrame: Int?
  /// Response bytes (nil when none came).
  public var response: [UInt8]?
  /// Response start, ns from the trace's first frame.
  public var responseNs: Int64?
  /// The request's air time, ns (`airTimeNs`).
  public var requestDurationNs: Int64 = 0
  /// The response's air time, ns (0 without a response).
  public var responseDurationNs: Int64 = 0
  /// The response's innermost decode.
  public var answer: LayerDecode?
  /// The response's CRC check.
  public var responseCRC: CRCStatus?
  /// True when the request expected an answer and got none.
  public var unanswered: Bool
  /// Index of the session operation the exchange belongs to (set by `ExchangeRecorder`).
  public var operation: Int?
  /// False when the source has no timestamps (libnfc logs: frames only in order), so times
  /// are not comparable.
  public var timed = true

  /// Bytes of ISO-DEP prologue (PCB, CID, NAD) before the request's APDU, 0 without one.
  var requestPrologue = 0
  /// The whole command APDU when the reader chained it over several I-blocks (ISO/IEC
  /// 14443-4 §7.5.2): the last block's INF alone is not the command.
  var assembledRequest: [UInt8]?
  /// The same for the response.
  var responsePrologue = 0
  /// The whole response APDU when the tag chained it over several I-blocks, each after the
  /// reader's R(ACK) (ISO/IEC 14443-4 §7.5.2); `answer` is then its last part's decode.
  var assembledResponse: [UInt8]?
  /// I-blocks the command (`requestBlocks`) and its answer (`responseBlocks`) took: more than
  /// 1 when chained. Which side chains follows the FSD/FSC each reader and tag announced.
  var requestBlocks = 1
  var responseBlocks = 1

  /// Whether the same exchange took another number of chained I-blocks in `other` (the diff's
  /// `framing` difference: another FSD or FSC).
  func framedDifferently(from other: ExchangeRecord) -> Bool {
    requestBlocks != other.requestBlocks || responseBlocks != other.responseBlocks
  }
  /// True for an exchange that only carries another exchange's chaining — a reader's chained
  /// part and the tag's R(ACK), or the reader's R-block fetching the tag's next part — once
  /// the chain completed: the diff compares the whole APDUs, not their framing.
  var chainStep = false
  /// True for the reader's ISO-DEP presence check after an intact answer — an R(NAK) or
  /// R(ACK) the tag answered with R(ACK), or an empty I-block answered with an I-block (NFC
  /// Forum Digital §16.2.6 / ISO/IEC 14443-4 §7.5.4 rules 11–12): it asks whether the tag is
  /// still there, so how many a reader sends follows how long the app held the session, not
  /// what it did. The diff counts them (`OperationTiming.presenceChecks`) instead of
  /// comparing them; one left unanswered stays an exchange (the tag was gone).
  var presenceCheck = false
  /// True when the tag answered this exchange's request with an S(WTX) request: it asked for
  /// more time (ISO/IEC 14443-4 §7.3). Kept when the wait's final answer becomes the
  /// command's; `OperationTiming.wtxRequests` counts them.
  var wtxRequest = false
  /// Positions in `requestPayload` of bytes that belong to a secret (a Wi-Fi network key the
  /// command writes): printed `••` unless secrets are shown (`TraceDiff.maskSecrets`).
  var secretRequest: Set<Int> = []
  /// Positions in `responsePayload` of bytes that belong to a secret (read back).
  var secretResponse: Set<Int> = []

  /// The request without its CRC (when the capture has one) and its ISO-DEP prologue: what
  /// the reader meant, so captures with and without CRC bytes, and APDUs in blocks of other
  /// numbers, compare alike.
  public var requestPayload: ArraySlice<UInt8> {
    if let assembledRequest { return assembledRequest[...] }
    return Self.payload(request[...], requestCRC).dropFirst(requestPrologue)
  }

  /// The INF of reader I-block `f` (no prologue, no CRC), nil for other frames.
  static func inf(_ f: DecodedFrame) -> ArraySlice<UInt8>? {
    guard let pcb = f.frame.data.first, f.layer(.isoDEP)?.name.hasPrefix("I-block") ?? false
    else { return nil }
    return payload(f.frame.data[...], f.frame.crc)
      .dropFirst(ISODEPBlock.prologueLength(pcb: pcb, kind: .iBlock))
  }

  /// The response without its CRC and ISO-DEP prologue; nil when no response came.
  public var responsePayload: ArraySlice<UInt8>? {
    if let assembledResponse { return assembledResponse[...] }
    return response.map { Self.payload($0[...], responseCRC).dropFirst(responsePrologue) }
  }

  /// The ISO-DEP prologue length of an I-block carrying an APDU, 0 for other frames.
  static func prologue(_ f: DecodedFrame) -> Int {
    guard f.layer(.isoDEP)?.name == "I-block", f.innermost?.protocolID != .isoDEP,
      let pcb = f.frame.data.first
    else { return 0 }
    return ISODEPBlock.prologueLength(pcb: pcb, kind: .iBlock)
  }

  static func payload(_ d: ArraySlice<UInt8>, _ crc: CRCStatus?) -> ArraySlice<UInt8> {
    switch crc {
    case .ok?, .bad?: return d.count >= 2 ? d.dropLast(2) : d
    default: return d
    }
  }

  /// Takes tag frame `f` as the response.
  mutating func setResponse(_ f: DecodedFrame) {
    responseFrame = f.frame.index
    response = f.frame.data
    responseNs = f.frame.timeNs
    responseDurationNs = Self.airTimeNs(f)
    answer = f.innermost
    responseCRC = f.frame.crc
    responsePrologue = Self.prologue(f)
  }

  /// Drops the response taken so far: the tag's S(WTX) request asks for more time, it is no
  /// answer (ISO/IEC 14443-4 §7.3). The command stays unanswered until the wait's answer
  /// comes (`setResponse`), so a tag that leaves during the wait left it unanswered.
  mutating func awaitAnswer() {
    responseFrame = nil
    response = nil
    responseNs = nil
    responseDurationNs = 0
    answer = nil
    responseCRC = nil
    responsePrologue = 0
    unanswered = true
  }

  /// A frame's air time for response times and gaps: as recorded, else estimated for an NFC-A
  /// frame captured on the air at 106 kbit/s (`SessionRFStatistics.duration`). Other
  /// technologies and bit rates, and frames a reader chip or phone reported with its own
  /// host-side time (CRC not captured, reader-chip flags), count 0: start to start. A reader's
  /// short frame counts its 7 bits even where the source kept a whole byte (`shortFrameBits`).
  static func airTimeNs(_ f: DecodedFrame) -> Int64 {
    if let d = f.frame.durationNs { return d }
    // Frames after the anticollision are `.unknown` by themselves (a READ): the session's NFC-A.
    guard f.technology == .nfcA || f.technology == .unknown, f.frame.crc != .notCaptured,
      f.frame.sourceFlags.isEmpty
    else { return 0 }
    var frame = f.frame
    frame.bits = shortFrameBits(f)
    return SessionRFStatistics.duration(frame)
  }

  /// The valid bits of `f`'s last byte: the source's, else 7 for a 1-byte reader frame the
  /// decoder read as a 7-bit short frame (ISO/IEC 14443-3 §6.2.3.1: REQA `26`, WUPA `52`; Apple's
  /// MagSafe wake-ups `7A`–`7D`; the gen1a backdoor `40`), and 4 for a tag's ACK/NAK (NXP
  /// NTAG213/215/216 datasheet §9.3; MIFARE Classic the same), which pcap stores as whole bytes.
  static func shortFrameBits(_ f: DecodedFrame) -> Int? {
    if let bits = f.frame.bits { return bits }
    guard f.frame.data.count == 1 else { return nil }
    guard f.frame.direction == .reader else {
      if case .bool? = f.innermost?.field("ack") { return 4 }
      return nil
    }
    if case .int(let bits)? = f.layer(.iso14443A)?.field("bits") { return bits }
    let wakeUp =
      f.layer(.appleECP)?.name == "MagSafe WUPA" || f.layer(.mifareClassic)?.name == "magic WUPC1"
    return wakeUp ? 7 : nil
  }

  /// True for a reader R-block (R(ACK), R(NAK)).
  var isRBlock: Bool { command?.protocolID == .isoDEP && command?.name.hasPrefix("R(") == true }

  /// The first frame of the exchange.
  public var firstFrame: Int { requestFrame ?? responseFrame ?? 0 }

  /// Response time: tag frame start − reader frame end, in ns (nil without both frames), as
  /// the FWT counts it (ISO/IEC 14443-4 §7.2): the air time of a long command or a chained
  /// part is not the tag's delay. At least 0 (an estimated duration may overshoot).
  public var responseTimeNs: Int64? {
    guard timed, requestFrame != nil, let responseNs else { return nil }
    return max(0, responseNs.saturatingMinus(requestNs.saturatingPlus(requestDurationNs)))
  }

  /// The end of the exchange's last frame, ns from the trace's first frame.
  public var endNs: Int64 {
    if let responseNs { return responseNs.saturatingPlus(responseDurationNs) }
    return requestNs.saturatingPlus(requestDurationNs)
  }

  /// True for the reader's S(WTX) response: a step of the tag's waiting-time extension, not a
  /// command (ISO/IEC 14443-4 §7.3).
  public var isWTXResponse: Bool {
    requestFrame != nil && command?.protocolID == .isoDEP && command?.name == "S(WTX)"
  }

  /// The command's name (`READ`, `WRITE`, `SELECT CL1`, `UPDATE NDEF data`…), or `raw`.
  public var name: String { command?.name ?? (requestFrame == nil ? "(tag frame)" : "raw") }

  /// What identifies the command across sessions: its name plus the fields that say *where*
  /// it acts (page, sector, address, counter, offset, length, file, AID), e.g. `READ page=4`.
  /// Data fields are left out: two WRITEs of page 4 with different bytes are the same command
  /// with different contents.
  public var key: String {
    var k = name
    for f in command?.fields ?? [] where Self.keyFields.contains(f.key) {
      k += " \(f.key)=\(f.value)"
    }
    return k
  }

  /// Field keys that locate a command (Type 2 page/sector/address/counter, Type 4 and APDU
  /// offset/length/file id/AID, ISO-DEP block number).
  public static let keyFields: Set<String> = [
    "page", "start_page", "end_page", "sector", "address", "counter", "key", "offset", "le", "lc",
    "file_id", "aid", "block", "block_number", "level",
  ]

  /// A short text of the request: the innermost summary, or `raw: reason`.
  public var commandSummary: String {
    let damaged = requestCRC == .bad ? " (bad CRC)" : ""
    if let command { return command.summary + damaged }
    return "raw" + (requestRawReason.map { ": " + $0 } ?? "") + damaged
  }

  /// A short text of the response: its summary, `no answer`, or `—` when none was expected.
  public var answerSummary: String {
    guard let response else { return unanswered ? "no answer" : "—" }
    var s = answer?.summary ?? "raw " + Hex.string(response.prefix(8), separator: " ")
    if responseCRC == .bad { s += " (bad CRC)" }
    return s
  }

  /// True when the exchange did not complete cleanly: no answer, a NAK / error status word,
  /// or an answer whose CRC failed. A repeat of such a command is a retry.
  public var failed: Bool {
    if unanswered || responseCRC == .bad { return true }
    if case .bool(false)? = answer?.field("ack") { return true }
    if case .string("failed")? = answer?.field("result") { return true }
    return false
  }
}

/// Collects `ExchangeRecord`s while a trace streams through the pipeline, for chosen sessions
/// only, so memory is bounded by the selected sessions, not by the trace.
///
/// Feed every item of a `SessionAnalysisRun` in order with `take` (or frames with `push` and
/// session analyses with `ended`), call `finish`, then take a session's records with
/// `exchanges(session:operations:)`.
public struct ExchangeRecorder: Sendable {
  /// Which sessions to keep.
  public struct Selection: Sendable, Equatable {
    /// Session indices to keep.
    public var sessions: Set<Int>
    /// Also keep the last session in which a tag completed anticollision (a UID is known).
    public var lastWithTag: Bool

    /// A selection.
    public init(sessions: Set<Int> = [], lastWithTag: Bool = false) {
      self.sessions = sessions
      self.lastWithTag = lastWithTag
    }
  }

  private let selection: Selection
  private var kept: [Int: [ExchangeRecord]] = [:]
  private var current: (index: Int, records: [ExchangeRecord], tag: Bool, touched: Bool)?
  /// Index into `current.records` of requests waiting for their answer, by frame index.
  private var waiting: [Int: Int] = [:]
  /// The reader's chained I-blocks so far (ISO/IEC 14443-4 §7.5.2), joined when the last one
  /// carries the APDU.
  private var chain = ChainAssembly()
  /// Records of the reader's chain so far (its parts, and its R-blocks asking for one again).
  private var chainRecords: [Int] = []
  /// The tag's chained answer in progress: the record of the command it answers, its parts so
  /// far, and the reader's R-block (and S(WTX)) records that fetched them.
  private var responseChain: (owner: Int, parts: ChainAssembly, steps: [Int])?
  /// A command the tag answered with S(WTX) (ISO/IEC 14443-4 §7.3: more time, not an
  /// answer), and the records of the reader's S(WTX) answers since, until the tag's real
  /// answer, which then becomes the command's.
  private var waitingTime: (owner: Int, steps: [Int])?
  /// The last session (so far) in which a UID was completed.
  public private(set) var lastTaggedSession: Int?
  /// The last session (so far) in which a UID was completed and that touched the tag as
  /// `TagReport.touched` says (an operation other than connect, or memory it read or wrote
  /// itself), judged on the session's analysis (`ended`).
  public private(set) var lastTouchedSession: Int?
  /// The session a diff compares by default: the last that touched the tag, else the last
  /// tagged one (`TagReport.defaultSession` makes the same choice for `report`).
  public var defaultSession: Int? { lastTouchedSession ?? lastTaggedSession }

  /// A recorder keeping `selection`.
  public init(selection: Selection) { self.selection = selection }

  /// Takes the next frame of the pipeline.
  public mutating func push(_ f: DecodedFrame) {
    guard let s = f.session else { return }
    if current?.index != s { close() }
    if current == nil { current = (s, [], false, false) }
    if f.completedUID != nil { current?.tag = true }
    guard selection.sessions.contains(s) || selection.lastWithTag else { return }
    switch f.frame.direction {
    case .reader: request(f)
    case .tag: answer(f)
    case .event: break
    }
  }

  /// Takes the next item of a `SessionAnalysisRun`: frames go to `push`, a session's
  /// analysis to `ended`.
  public mutating func take(_ item: AnalysisItem) {
    switch item {
    case .frame(let f): push(f)
    case .session(let s): ended(s)
    case .event: break
    }
  }

  /// Takes the analysis of a session that just ended (`AnalysisItem.session`, handed on
  /// before the next session's first frame): whether it touched the tag is decided as
  /// `report` decides it (`TagReport.touched`), so both pick the same session by default. A
  /// session whose analysis never comes counts as not touched.
  public mutating func ended(_ s: SessionAnalysis) {
    let index = s.info.index
    if current?.index == index {
      current?.touched = TagReport.touched(s)
      return
    }
    // Already closed (its records are kept while it is the last tagged session).
    guard index == lastTaggedSession, index > lastTouchedSession ?? -1, TagReport.touched(s)
    else { return }
    lastTouchedSession = index
    prune()
  }

  /// Closes the session in progress; call once the pipeline returned nil.
  public mutating func finish() { close() }

  /// The records of session `session` (nil when not kept), each with the index of the
  /// operation of `operations` whose frame span holds it.
  public func exchanges(session: Int, operations: [Operation]) -> [ExchangeRecord]? {
    guard var records = kept[session] else { return nil }
    var op = 0
    for i in records.indices {
      let frame = records[i].firstFrame
      while op < operations.count && operations[op].lastFrame < frame { op += 1 }
      if op < operations.count && operations[op].firstFrame <= frame { records[i].operation = op }
    }
    return records
  }

  private mutating func request(_ f: DecodedFrame) {
    guard var c = current else { return }
    current = nil
    let record = ExchangeRecord(
      requestFrame: f.frame.index, request: f.frame.data, requestNs: f.frame.timeNs,
      requestCRC: f.frame.crc, command: f.innermost, requestRawReason: f.undecodedReason,
      responseFrame: nil, response: nil,
      responseNs: nil, answer: nil, responseCRC: nil, unanswered: f.response == .unanswered,
      operation: nil)
    if case .answeredBy(let r) = f.response { waiting[r] = c.records.count }
    c.records.append(record)
    c.records[c.records.count - 1].requestPrologue = ExchangeRecord.prologue(f)
    c.records[c.records.count - 1].requestDurationNs = ExchangeRecord.airTimeNs(f)
    let index = c.records.count - 1
    if let whole = assemble(f, record: index) {
      c.records[index].assembledRequest = whole.apdu
      c.records[index].requestBlocks = whole.blocks
      for i in chainRecords { c.records[i].chainStep = true }
      chainRecords.removeAll()
    }
    // The reader's R-blocks and its S(WTX) answers keep the tag's chain going; any other
    // reader block ends it.
    if let name = f.layer(.isoDEP)?.name, name.hasPrefix("R(") || name == "S(WTX)" {
      responseChain?.steps.append(index)
    } else {
      responseChain = nil
    }
    // The reader's S(WTX) answers, and its R(NAK) asking for a block lost meanwhile (the tag
    // sends its last block again, ISO/IEC 14443-4 §7.5.4), keep the wait going.
    if let name = f.layer(.isoDEP)?.name, name == "S(WTX)" || name == "R(NAK)" {
      waitingTime?.steps.append(index)
    } else {
      waitingTime = nil
    }
    c.records[c.records.count - 1].timed = f.frame.sourceTime?.unit.timesFrames != false
    current = c
  }

  private mutating func answer(_ f: DecodedFrame) {
    guard var c = current else { return }
    current = nil
    if let i = waiting.removeValue(forKey: f.frame.index), i < c.records.count {
      c.records[i].setResponse(f)
      c.records[i].wtxRequest = f.layer(.isoDEP)?.name == "S(WTX)"
      let owner = followWaitingTime(f, record: i, records: &c.records)
      followResponseChain(f, record: owner, records: &c.records)
      c.records[i].presenceCheck = owner == i && isPresenceCheck(record: i, in: c.records)
    } else {
      c.records.append(
        ExchangeRecord(
          requestFrame: nil, request: [], requestNs: f.frame.timeNs, requestCRC: nil, command: nil,
          requestRawReason: nil, responseFrame: f.frame.index, response: f.frame.data,
          responseNs: f.frame.timeNs, answer: f.innermost, responseCRC: f.frame.crc,
          unanswered: false, operation: nil))
      c.records[c.records.count - 1].timed = f.frame.sourceTime?.unit.timesFrames != false
    }
    current = c
  }

  /// Whether answered record `i` is a presence check (see `ExchangeRecord.presenceCheck`): an
  /// R-block answered with R(ACK), or an empty unchained I-block answered with an I-block,
  /// intact, outside any chain or wait, after an exchange that completed (after a lost or
  /// damaged answer the same R(NAK) is ISO-DEP's recovery).
  private func isPresenceCheck(record i: Int, in records: [ExchangeRecord]) -> Bool {
    let r = records[i]
    guard i > 0, r.responseCRC != .bad, let command = r.command, command.protocolID == .isoDEP,
      let answer = r.answer, answer.protocolID == .isoDEP, !chainRecords.contains(i),
      responseChain?.steps.contains(i) != true, waitingTime?.steps.contains(i) != true
    else { return false }
    let previous = records[i - 1]
    guard previous.requestFrame != nil, previous.response != nil, !previous.unanswered,
      previous.responseCRC != .bad
    else { return false }
    switch command.name {
    case "R(NAK)", "R(ACK)": return answer.name == "R(ACK)"
    case "I-block":
      return command.field("inf_length") == .int(0) && command.field("chaining") == .bool(false)
        && answer.name == "I-block" && answer.field("chaining") != .bool(true)
    default: return false
    }
  }

  /// Follows S(WTX) (ISO/IEC 14443-4 §7.3): the tag asking for more time before answering the
  /// command of record `i` opens a wait; its S(WTX) requests answering the reader's S(WTX)
  /// answers extend it; its first other answer is the command's answer (its time includes
  /// the extensions), and the S(WTX) exchanges become steps, as chained parts are. Until then
  /// the command is unanswered: a wait that never gets its answer leaves it so. Returns the
  /// record the answer `f` belongs to.
  private mutating func followWaitingTime(
    _ f: DecodedFrame, record i: Int, records: inout [ExchangeRecord]
  ) -> Int {
    let extends = f.layer(.isoDEP)?.name == "S(WTX)"
    guard let w = waitingTime, w.steps.last == i else {
      // Only a command (an APDU in an I-block) waits; a chain's R-blocks are followed there.
      let command = records[i].command.map { $0.protocolID != .isoDEP } ?? false
      waitingTime = extends && command && records[i].requestPrologue > 0 ? (i, []) : nil
      if waitingTime != nil { records[i].awaitAnswer() }
      return i
    }
    guard !extends else { return i }
    waitingTime = nil
    records[w.owner].setResponse(f)
    records[w.owner].unanswered = false
    for s in w.steps { records[s].chainStep = true }
    return w.owner
  }

  /// Follows the tag's chained I-blocks answering record `i`: the first part opens the chain
  /// on the command's record, the parts fetched by the reader's R(ACK)s join it, and the last
  /// one completes the command's answer (its decode, the whole APDU) and marks the R-block
  /// exchanges as chain steps. A chain that never completes leaves every exchange as it was.
  private mutating func followResponseChain(
    _ f: DecodedFrame, record i: Int, records: inout [ExchangeRecord]
  ) {
    guard let inf = ExchangeRecord.inf(f), let pcb = f.frame.data.first else { return }
    let chained = f.layer(.isoDEP)?.field("chaining") == .bool(true)
    guard var r = responseChain, r.steps.last == i else {
      // A first part answers the command itself.
      guard chained, !records[i].isRBlock else {
        responseChain = nil
        return
      }
      var parts = ChainAssembly()
      parts.add(inf, pcb: pcb)
      responseChain = (owner: i, parts: parts, steps: [])
      return
    }
    r.parts.add(inf, pcb: pcb)
    guard !chained else {
      responseChain = r
      return
    }
    responseChain = nil
    records[r.owner].assembledResponse = r.parts.data
    records[r.owner].answer = f.innermost
    records[r.owner].responseBlocks = r.parts.count
    for s in r.steps { records[s].chainStep = true }
  }

  /// Follows the reader's chained I-blocks: for the block that ends a chain, the whole APDU
  /// and the I-blocks it took, else nil. Other reader frames (R(NAK), S-blocks) leave a chain
  /// open; its parts, its R-blocks and S(WTX) answers are remembered in `chainRecords` (record `index` is
  /// `f`'s).
  private mutating func assemble(_ f: DecodedFrame, record index: Int)
    -> (apdu: [UInt8], blocks: Int)?
  {
    // Its R-blocks, and its S(WTX) answers to a tag asking for time between parts.
    if !chain.data.isEmpty, let name = f.layer(.isoDEP)?.name,
      name.hasPrefix("R(") || name == "S(WTX)"
    {
      chainRecords.append(index)
    }
    guard let inf = ExchangeRecord.inf(f), let pcb = f.frame.data.first else { return nil }
    if f.layer(.isoDEP)?.field("chaining") == .bool(true) {
      chainRecords.append(index)
      chain.add(inf, pcb: pcb)
      return nil
    }
    defer { chain.reset() }
    guard !chain.data.isEmpty, f.layer(.isoDEP)?.field("reassembled_length") != nil else {
      chainRecords.removeAll()
      return nil
    }
    return (chain.data + inf, chain.count + 1)
  }

  private mutating func close() {
    guard let c = current else { return }
    current = nil
    waiting.removeAll()
    chain.reset()
    chainRecords.removeAll()
    responseChain = nil
    if selection.sessions.contains(c.index) { kept[c.index] = c.records }
    guard c.tag else { return }
    lastTaggedSession = c.index
    if c.touched { lastTouchedSession = c.index }
    guard selection.lastWithTag else { return }
    kept[c.index] = c.records
    prune()
  }

  /// Only the latest tagged and touched sessions are kept for `lastWithTag`: drops earlier
  /// ones unless they were asked for by index.
  private mutating func prune() {
    for old in kept.keys
    where old != lastTaggedSession && old != lastTouchedSession && !selection.sessions.contains(old)
    {
      kept[old] = nil
    }
  }
}

/// The INFs of one side's chained I-blocks (ISO/IEC 14443-4 §7.5.2), joined in order. A part
/// sent again (after an R(NAK), a silence or a repeated R(ACK), §7.5.4) has the same block
/// number and replaces the earlier copy. Capped so a chain that never ends cannot grow it
/// without bound.
struct ChainAssembly: Sendable {
  static let limit = 1 << 16
  /// The INFs so far.
  private(set) var data: [UInt8] = []
  /// The parts so far, a part sent again counted once.
  private(set) var count = 0
  /// The block number and INF length of the last part.
  private var last: (block: UInt8, count: Int)?

  /// Adds the INF `inf` of the I-block with PCB `pcb`.
  mutating func add(_ inf: ArraySlice<UInt8>, pcb: UInt8) {
    if let last, last.block == pcb & 1 {
      data.removeLast(min(last.count, data.count))
    } else {
      count += 1
    }
    if data.count + inf.count <= Self.limit {
      data += inf
      last = (pcb & 1, inf.count)
    } else {
      last = (pcb & 1, 0)
    }
  }

  /// Forgets the chain, keeping the buffer's capacity.
  mutating func reset() {
    data.removeAll(keepingCapacity: true)
    count = 0
    last = nil
  }
}
