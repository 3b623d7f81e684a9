/// The commands of one session that diagnosis rules need in full and `SessionAnalysis` keeps
/// only in summary: every Type 2 WRITE and every Type 4 UPDATE BINARY with its answer, every
/// command the tag refused (NAK, error status word), every READ BINARY whose Le exceeds the
/// CC's MLe, the activations (REQA/WUPA) and the
/// accepted PWD_AUTHs. Bounded: at most `limit` commands per session.
public struct SessionCommandLog: Sendable {
  /// Most commands kept.
  public static let limit = 4096

  /// How the tag answered a command.
  public enum Answer: Sendable, Equatable {
    /// No answer.
    case none
    /// Type 2 ACK.
    case ack
    /// Type 2 NAK with its 4-bit code.
    case nak(Int)
    /// A response APDU with its status word (`9000`, `6982`…).
    case sw(String)
    /// Any other answer.
    case other
  }

  /// One logged command.
  public struct Command: Sendable, Equatable {
    /// The reader frame (the last block for chained APDUs).
    public var frame: Int
    /// The answering frame, if any.
    public var answerFrame: Int?
    /// The answer.
    public var answer: Answer
    /// The innermost decode's name (`WRITE`, `UPDATE NLEN`, `UPDATE BINARY`, `SELECT file`…).
    public var name: String
    /// The innermost decode's summary.
    public var summary: String
    /// Type 2 page.
    public var page: Int?
    /// Type 2 last page a FAST_READ asks for (its end address).
    public var endPage: Int?
    /// Type 2 first page a FAST_READ asks for (its start address).
    public var startPage: Int?
    /// The counter a READ_CNT / INCR_CNT names.
    public var counter: Int?
    /// Type 4 offset (READ/UPDATE BINARY).
    public var offset: Int?
    /// The short EF identifier a READ/UPDATE BINARY names in P1 (b8 = 1; ISO/IEC 7816-4
    /// §11.2.2): it selects that file and P2 is the offset.
    public var sfi: Int?
    /// APDU P2 (VERIFY: which password).
    public var p2: UInt8?
    /// Type 4: the file a READ/UPDATE of a file other than the CC and NDEF file went to.
    public var fileID: UInt16?
    /// Data written.
    public var data: [UInt8]
    /// APDU fields: INS, case (1–4), Lc, Le (Ne).
    public var ins: UInt8?
    public var apduCase: Int?
    public var lc: Int?
    public var le: Int?
    /// True for an extended-length APDU (3-byte Lc / 2–3-byte Le, ISO/IEC 7816-4 §5.1).
    public var extended = false
    /// True when the Type 4 layer named the APDU (a step of the NDEF procedures).
    public var isType4 = false
    /// True when the answer refused the command: a NAK, or a status word other than 9000 (for
    /// an APDU outside the NDEF procedures, other than a normal-processing one).
    public var refused = false
    /// True when the only answer the capture has is damaged (CRC failed) and reads 9000: the
    /// tag carried the command out, whether or not the reader got the answer.
    public var damagedSuccess = false

    /// True for Type 2 WRITE / COMPATIBILITY_WRITE data and Type 4 UPDATE BINARY, with the
    /// offset in P1 P2 (D6) or in an offset data object 54 (D7, ISO/IEC 7816-4 §11.2.3; T4T
    /// 3.0 past offset 7FFFh): `offset` and `data` are the write's either way.
    public var isWrite: Bool {
      ins == 0xD6 || ins == 0xD7 || name == "WRITE" || name == "COMPATIBILITY_WRITE"
    }
    /// True for COMPATIBILITY_WRITE's first part (`A0 page`): the address, no data yet.
    public var isCompatibilityWriteAddress: Bool { name == "COMPATIBILITY_WRITE (part 1)" }

    /// True when the tag carried the command out: Type 2 ACK, status 9000, or 61xx (done,
    /// with data waiting for GET RESPONSE; ISO/IEC 7816-4 §5.6).
    public var accepted: Bool {
      switch answer {
      case .ack: return true
      case .sw(let sw): return sw == "9000" || sw.hasPrefix("61")
      default: return false
      }
    }
  }

  /// Logged commands in order.
  public private(set) var commands: [Command] = []
  /// The frame of the last accepted write in `commands` of each byte: Type 4 file offsets
  /// (UPDATE BINARY D6/D7) and Type 2 byte addresses (page × 4 + i), for `wroteLater`.
  private var lastFileWrite = LastWriteIndex()
  private var lastPageWrite = LastWriteIndex()

  /// Whether an accepted write logged after frame `frame` set byte `i`: a Type 4 file offset
  /// when `fileOffsets`, else a Type 2 byte address. One lookup, so judging every operation
  /// of a session stays linear in its writes.
  public func wroteLater(_ i: Int, after frame: Int, fileOffsets: Bool) -> Bool {
    ((fileOffsets ? lastFileWrite : lastPageWrite).frame(at: i) ?? -1) > frame
  }

  /// The logged commands whose (request) frame lies in `frames`. Commands are logged in frame
  /// order, so this is a binary search, not a walk of the session's log.
  public func commands(in frames: ClosedRange<Int>) -> ArraySlice<Command> {
    commands[
      firstIndex(atOrAfter: frames.lowerBound)..<firstIndex(atOrAfter: frames.upperBound + 1)]
  }

  private func firstIndex(atOrAfter frame: Int) -> Int {
    var lo = 0
    var hi = commands.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if commands[mid].frame < frame { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }
  /// Frames that started an activation (REQA/WUPA answered or not).
  public private(set) var activations: [Int] = []
  /// Frames of accepted PWD_AUTH answers (PACK).
  public private(set) var packFrames: [Int] = []
  /// Reader frames of SELECTs of the NDEF application the tag answered 9000 (T4T 2.0 §5.4.2).
  public private(set) var applicationSelections: [Int] = []
  /// SELECTs the tag accepted (9000 or 61xx), in order: the reader frame, the data (AID or
  /// file id) and, for a SELECT of an elementary file by id, the file (nil: an application by
  /// name, or the master file 3F00). After the SELECT of an application or of the MF no file
  /// is current until one is selected (ISO/IEC 7816-4 §5.3.1; T4T 2.0 §5.4.3).
  public private(set) var selections: [(frame: Int, data: [UInt8], file: UInt16?)] = []
  /// The APDU instructions (INS) the tag showed it implements somewhere in the session: it
  /// answered a command with that INS with a status other than 6D00 (INS not supported) and
  /// 6E00 (CLA not supported) — 9000, a warning (62xx, 63xx), 6Cxx (wrong Le), a refusal of
  /// the file or parameters: each means it decoded the instruction (ISO/IEC 7816-4 §5.6).
  public private(set) var implementedINS: Set<UInt8> = []
  /// Every VERIFY (INS 20, ISO/IEC 7816-4 §11.5.6) with the tag's answer, accepted or not:
  /// whether the last password sent before a refused write was wrong (63Cx) or accepted.
  public private(set) var verifications: [Command] = []
  private var pending: Command?
  /// MLe and MLc of the session's last Type 4 CC answer.
  private var mle: Int?
  private var mlc: Int?
  /// The last command the tag refused with NAK, until the tag answers anything else or is
  /// activated again.
  private var lastNAK: Command?
  /// Reader frames left unanswered while `lastNAK` stood, with that NAK's command.
  private var silencesAfterNAK: [Int: Command] = [:]
  /// The reader's last halt — an HLTA, or an S(DESELECT) the tag answered — until the tag
  /// answers anything else or is activated again with WUPA.
  private var lastHalt: Halt?
  /// The reader's S(DESELECT) still waiting for its answer.
  private var pendingDeselect: Int?
  /// The reader's HLTB still waiting for its answer.
  private var pendingHLTB: Int?
  /// True from the reader's RATS until the next activation: the tag is in ISO-DEP.
  private var afterRATS = false
  /// Reader frames left unanswered while `lastHalt` stood, with that halt.
  private var silencesAfterHalt: [Int: Halt] = [:]

  /// The reader command that put the tag in the HALT state: an HLTA (ISO/IEC 14443-3 §6.4.3),
  /// or an S(DESELECT) the tag answered (ISO/IEC 14443-4 §8: the PICC enters HALT).
  public struct Halt: Sendable, Equatable {
    /// The reader frame of the HLTA, HLTB or S(DESELECT).
    public let frame: Int
    /// True for an S(DESELECT), false for an HLTA or HLTB.
    public let isDeselect: Bool
    /// True for a type B HLTB the tag answered (ISO/IEC 14443-3 §7.12: HALT state, left only
    /// by WUPB).
    public var isTypeB = false
    /// "HLTA", "HLTB" or "S(DESELECT)".
    public var name: String { isDeselect ? "S(DESELECT)" : isTypeB ? "HLTB" : "HLTA" }
    /// The only command a tag in this HALT state answers: WUPB (type B) or WUPA.
    public var wakeCommand: String { isTypeB ? "WUPB" : "WUPA" }
  }

  /// The command whose NAK last preceded the unanswered reader frame `frame`, when the tag
  /// answered nothing else and was not activated again in between (reader-reported
  /// activations included). NXP Type 2 tags leave the ACTIVE state after a NAK and ignore
  /// commands until activated again (NTAG21x state diagram; nfcpy re-activates after every
  /// NAK, nfc-facts §4.2), so that silence is the NAK's doing, not the field's.
  public func nakBefore(silence frame: Int) -> Command? { silencesAfterNAK[frame] }

  /// The reader's HLTA (or answered S(DESELECT)) that preceded the unanswered reader frame
  /// `frame`, when the tag answered nothing since and was not woken with WUPA. A halted tag
  /// ignores every command but WUPA (ISO/IEC 14443-3 §6.3, HALT state), so that silence is the
  /// reader's doing, and the command never reached the tag's memory.
  public func haltBefore(silence frame: Int) -> Halt? { silencesAfterHalt[frame] }

  /// `nakBefore` or `haltBefore`: the tag ignored the unanswered frame, it did not leave.
  func ignored(silence frame: Int) -> Bool {
    silencesAfterNAK[frame] != nil || silencesAfterHalt[frame] != nil
  }

  /// An empty log.
  public init() {}

  /// Takes the session's next frame.
  public mutating func push(_ f: DecodedFrame) {
    // Reader REQA/WUPA and the activations a reader chip reports on the tag's side.
    if f.startsActivation {
      lastNAK = nil
      // A halted tag ignores REQA (ISO/IEC 14443-3 §6.3, HALT state): one left unanswered
      // leaves it halted; only WUPA, or an answer, ends the halt.
      if !Self.isUnansweredREQA(f) { lastHalt = nil }
      afterRATS = false
      if activations.count < Self.limit { activations.append(f.frame.index) }
    }
    switch f.frame.direction {
    case .reader: reader(f)
    case .tag: tag(f)
    case .event: close(answer: .none, frame: nil)
    }
  }

  /// A REQA no tag answered.
  static func isUnansweredREQA(_ f: DecodedFrame) -> Bool {
    f.response == .unanswered && f.innermost?.protocolID == .iso14443A
      && f.innermost?.name == "REQA"
  }

  /// Logs the command still waiting (call at the end of the session).
  public mutating func finish() { close(answer: .none, frame: nil) }

  private mutating func reader(_ f: DecodedFrame) {
    if let nak = lastNAK, f.response == .unanswered, silencesAfterNAK.count < Self.limit {
      silencesAfterNAK[f.frame.index] = nak
    }
    if let halt = lastHalt, f.response == .unanswered, silencesAfterHalt.count < Self.limit {
      silencesAfterHalt[f.frame.index] = halt
    }
    // A damaged HLTA is discarded by the tag, and one in the ISO-DEP protocol state (after
    // RATS) is no valid block there: neither halts it (ISO/IEC 14443-3 §6.3, 14443-4 §5).
    if f.innermost?.protocolID == .iso14443A, f.innermost?.name == "HLTA", f.frame.crc != .bad,
      !afterRATS
    {
      lastHalt = Halt(frame: f.frame.index, isDeselect: false)
    }
    if f.layer(.isoDEP)?.name == "RATS" { afterRATS = true }
    pendingDeselect =
      f.layer(.isoDEP)?.name == "S(DESELECT)" && f.frame.crc != .bad ? f.frame.index : nil
    pendingHLTB =
      f.innermost?.protocolID == .iso14443B && f.innermost?.name == "HLTB"
        && f.frame.crc != .bad ? f.frame.index : nil
    if let apdu = f.layer(.iso7816), apdu.name != "not an APDU" {
      close(answer: .none, frame: nil)
      pending = Self.command(f, apdu: apdu)
    } else if let t2 = f.layer(.type2), f.layer(.isoDEP) == nil {
      close(answer: .none, frame: nil)
      pending = Self.command(f, type2: t2)
    } else if f.layer(.isoDEP)?.name == "I-block" || f.innermost?.protocolID == .iso14443A {
      close(answer: .none, frame: nil)
    }
  }

  private mutating func tag(_ f: DecodedFrame) {
    if f.layer(.type2)?.name != "NAK" { lastNAK = nil }
    lastHalt = nil  // a tag that answers was not halted
    // Its answer to S(DESELECT) is the last thing a deselected tag says: it is now halted.
    if let deselect = pendingDeselect, f.layer(.isoDEP)?.name == "S(DESELECT)",
      f.frame.crc != .bad
    {
      lastHalt = Halt(frame: deselect, isDeselect: true)
      afterRATS = false
    }
    pendingDeselect = nil
    // A type B tag's answer to HLTB (ISO/IEC 14443-3 §7.12) is its last word until WUPB.
    if let hltb = pendingHLTB, f.innermost?.protocolID == .iso14443B,
      f.innermost?.name == "HLTB answer", f.frame.crc != .bad
    {
      var halt = Halt(frame: hltb, isDeselect: false)
      halt.isTypeB = true
      lastHalt = halt
      afterRATS = false
    }
    pendingHLTB = nil
    // An accepted PWD_AUTH (PACK), or an Ultralight C / AES authentication's last answer.
    if let t2 = f.layer(.type2), packFrames.count < Self.limit,
      t2.name == "PACK" || t2.field("authenticated") == .bool(true)
    {
      packFrames.append(f.frame.index)
    }
    // A damaged answer (CRC failed) carries no status to trust (a "SW 0000" of garbage): the
    // command waits for an intact one, as the reader does.
    guard pending != nil, f.frame.crc != .bad else {
      if pending != nil, f.layer(.iso7816)?.field("sw") == .string("9000") {
        pending?.damagedSuccess = true
      }
      return
    }
    if let t2 = f.layer(.type2) {
      switch t2.name {
      case "ACK": close(answer: .ack, frame: f.frame.index)
      case "NAK":
        if case .int(let code)? = t2.field("nak_code") {
          close(answer: .nak(code), frame: f.frame.index)
        } else {
          close(answer: .other, frame: f.frame.index)
        }
      default: close(answer: .other, frame: f.frame.index)
      }
    } else if let r = f.layer(.iso7816), case .string(let sw)? = r.field("sw") {
      let normal = r.field("sw_kind") == .string("success")
      close(answer: .sw(sw.uppercased()), frame: f.frame.index, normalStatus: normal)
      // After the READ CC's own close: a reader cannot know MLe before reading it.
      if case .int(let m)? = f.layer(.type4)?.field("mle") { mle = m }
      if case .int(let m)? = f.layer(.type4)?.field("mlc") { mlc = m }
    }
  }

  /// Keeps the pending command if it is a write, was refused, or is an NDEF-procedure command
  /// answered 61xx (kept for `t4t-get-response`). `normalStatus`: the status
  /// word is a normal-processing one (61xx, DESFire 9100/91AF), which refuses only an NDEF
  /// procedure's command (those expect 9000, T4T 2.0 §5.4).
  private mutating func close(answer: Answer, frame: Int?, normalStatus: Bool = false) {
    guard var c = pending else { return }
    pending = nil
    c.answer = answer
    c.answerFrame = frame
    let refused: Bool
    var getResponse = false
    switch answer {
    case .nak: refused = true
    case .sw(let sw):
      let strict = c.isType4 && Type4Procedure.isNDEFProcedure(c.name)
      getResponse = strict && sw.hasPrefix("61")
      // 6282 to READ BINARY: the file ended before Le bytes, which came with it (ISO/IEC
      // 7816-4 §5.6 warning; a whole-file read with Le 00 / 0000 gets it): not a refusal.
      // B1 (offset in a data object, T4T 3.0) ends the same way as B0.
      let shortRead = sw == "6282" && (c.ins == 0xB0 || c.ins == 0xB1)
      // 910C to DESFire CommitTransaction / AbortTransaction: NO_CHANGES, nothing to do.
      let noChanges =
        sw == "910C"
        && (c.name == "DESFire COMMIT TRANSACTION" || c.name == "DESFire ABORT TRANSACTION")
      // 61xx: done, more bytes for GET RESPONSE (ISO/IEC 7816-4 §5.6): no refusal either.
      refused =
        sw != "9000" && !shortRead && !noChanges && !sw.hasPrefix("61")
        && (strict || !normalStatus)
    default: refused = false
    }
    c.refused = refused
    if case .nak = answer { lastNAK = c }
    if c.ins == 0x20, case .sw = answer, verifications.count < Self.limit {
      verifications.append(c)
    }
    if let ins = c.ins, case .sw(let sw) = answer, sw != "6D00", sw != "6E00" {
      implementedINS.insert(ins)
    }
    if c.ins == 0xA4, c.accepted, selections.count < Self.limit {
      let id = c.data.count == 2 ? UInt16(c.data[0]) << 8 | UInt16(c.data[1]) : nil
      selections.append((c.frame, c.data, id == 0x3F00 ? nil : id))
    }
    if answer == .sw("9000"), c.name.hasPrefix("SELECT NDEF application"),
      applicationSelections.count < Self.limit
    {
      applicationSelections.append(c.frame)
    }
    // A READ BINARY asking for more than the CC's MLe, accepted or not (`t4t-le-exceeds-mle`);
    // Le 00 (0000 extended) asks for whatever is there, up to the most (ISO/IEC 7816-4 §5.1).
    // The odd-INS forms (T4T 3.0) count their data objects' headers in Le and Lc too; an even
    // UPDATE BINARY is logged as a write anyway.
    let le = c.le ?? 0
    let overMLe =
      (c.ins == 0xB0 || c.ins == 0xB1) && le != 256 && le != 65536 && mle.map { le > $0 } ?? false
      || (c.ins == 0xD7 && mlc.map { (c.lc ?? 0) > $0 } ?? false)
    // DESFire authentications are kept to name the step an ADDITIONAL FRAME's refusal ends.
    let authentication = c.name.hasPrefix("DESFire AUTHENTICATE")
    if c.isWrite || refused || getResponse || overMLe || authentication,
      commands.count < Self.limit
    {
      commands.append(c)
      if c.isWrite && c.accepted { recordWrite(c) }
    }
  }

  /// Marks the bytes accepted write `c` set as last written by its frame (`wroteLater`).
  private mutating func recordWrite(_ c: Command) {
    if c.ins == 0xD6 || c.ins == 0xD7, let o = c.offset {
      lastFileWrite.mark(o..<(o + c.data.count), frame: c.frame)
    } else if let p = c.page {
      lastPageWrite.mark((p * 4)..<(p * 4 + c.data.count), frame: c.frame)
    }
  }

  private static func command(_ f: DecodedFrame, apdu: LayerDecode) -> Command {
    let d = f.layer(.type4) ?? apdu
    var c = Command(
      frame: f.frame.index, answerFrame: nil, answer: .none, name: d.name, summary: d.summary,
      page: nil, offset: nil, data: [])
    if case .hex(let b)? = apdu.field("ins"), let ins = b.first { c.ins = ins }
    if case .int(let v)? = apdu.field("case") { c.apduCase = v }
    if case .int(let v)? = apdu.field("lc") { c.lc = v }
    if case .int(let v)? = apdu.field("le") { c.le = v }
    if case .bool(true)? = apdu.field("extended") { c.extended = true }
    if case .int(let v)? = apdu.field("offset") { c.offset = v }
    if case .int(let v)? = apdu.field("sfi") { c.sfi = v }
    if case .hex(let v)? = apdu.field("p2") { c.p2 = v.first }
    if case .hex(let v)? = d.field("file_id"), v.count == 2 {
      c.fileID = UInt16(v[0]) << 8 | UInt16(v[1])
    }
    c.isType4 = f.layer(.type4) != nil
    if case .hex(let b)? = apdu.field("data") { c.data = b }
    // Odd INS B1 / D7 (ISO/IEC 7816-4 §11.2.3): the offset is the data object 54's value
    // (P1 P2 are 0000), and D7's data the discretionary data object 53's value.
    if c.ins == 0xB1 || c.ins == 0xD7, let (offset, rest) = Type4Layer.offsetDataObject(c.data[...])
    {
      c.offset = offset
      if c.ins == 0xD7, let data = Type4Layer.discretionaryDataObject(rest) { c.data = data }
    }
    return c
  }

  private static func command(_ f: DecodedFrame, type2 d: LayerDecode) -> Command {
    var c = Command(
      frame: f.frame.index, answerFrame: nil, answer: .none, name: d.name, summary: d.summary,
      page: nil, offset: nil, data: [])
    if let p = d.absolutePage { c.page = p }
    if case .int(let e)? = d.field("end_page") { c.endPage = e }
    if case .int(let b)? = d.field("start_page") { c.startPage = b }
    if case .int(let n)? = d.field("counter") { c.counter = n }
    if case .hex(let b)? = d.field("data") { c.data = Array(b.prefix(4)) }
    if d.name == "COMPATIBILITY_WRITE", c.data.isEmpty { c.name = "COMPATIBILITY_WRITE (part 1)" }
    return c
  }
}

/// Disjoint byte ranges, each with the frame of the last write that set it, sorted by start:
/// one entry per run of bytes one write set, however long (an entry per byte held 16 M of them
/// for a T4T 3.0 file written whole). Writes are marked in frame order, so a new one wins.
struct LastWriteIndex: Sendable {
  private var spans: [(range: Range<Int>, frame: Int)] = []

  /// Marks `range` as set by the write of frame `frame`, later than every write marked before.
  mutating func mark(_ range: Range<Int>, frame: Int) {
    guard !range.isEmpty else { return }
    let first = firstIndex(endingAfter: range.lowerBound)
    var end = first
    var kept: [(range: Range<Int>, frame: Int)] = []
    // The spans it overlaps keep only their parts outside it.
    while end < spans.count, spans[end].range.lowerBound < range.upperBound {
      let s = spans[end]
      if s.range.lowerBound < range.lowerBound {
        kept.append((s.range.lowerBound..<range.lowerBound, s.frame))
      }
      if s.range.upperBound > range.upperBound {
        kept.append((range.upperBound..<s.range.upperBound, s.frame))
      }
      end += 1
    }
    kept.append((range, frame))
    kept.sort { $0.range.lowerBound < $1.range.lowerBound }
    spans.replaceSubrange(first..<end, with: kept)
  }

  /// The frame of the last write of byte `i`, nil when none set it.
  func frame(at i: Int) -> Int? {
    let k = firstIndex(endingAfter: i)
    guard k < spans.count, spans[k].range.lowerBound <= i else { return nil }
    return spans[k].frame
  }

  /// The first span ending after `x` (disjoint and sorted, their ends ascend too).
  private func firstIndex(endingAfter x: Int) -> Int {
    var lo = 0
    var hi = spans.count
    while lo < hi {
      let m = (lo + hi) / 2
      if spans[m].range.upperBound > x { hi = m } else { lo = m + 1 }
    }
    return lo
  }
}
