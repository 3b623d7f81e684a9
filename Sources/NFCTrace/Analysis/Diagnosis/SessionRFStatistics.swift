/// Frame-level evidence about the radio link of one session, gathered while streaming, in
/// bounded memory (counts plus at most `sampleLimit` frame indices per kind): damaged frames
/// (bad CRC, parity errors), retried commands, ISO-DEP answers later than the FWT, runs of
/// S(WTX), answers longer than the reader's FSD, raw Type 2 commands sent with their own CRC,
/// bad BCCs and the UIDs seen.
///
/// Sources: ISO/IEC 14443-3 §6.2.4 (CRC_A), ISO/IEC 14443-4 §7.2 (FWT, S(WTX)), §7.1 (FSD);
/// nfc-facts §1.5, §2.3, §10 (`sendMiFareCommand` CRC).
public struct SessionRFStatistics: Sendable {
  /// Most frame indices kept per list.
  public static let sampleLimit = 64
  /// Window (in session frames) inside which damaged frames count as one cluster.
  public static let clusterWindow = 16

  /// A command the reader sent again because the first attempt failed.
  public struct Retry: Sendable, Equatable {
    /// The attempts' frame indices (first one included).
    public var attempts: [Int]
    /// The answer to the last attempt, if any.
    public var finalAnswer: Int?
    /// True when the final answer was itself damaged (bad CRC, parity) or a NAK.
    public var finalAnswerDamaged: Bool
    /// The command's summary.
    public var summary: String
  }

  /// An ISO-DEP answer that came later than the frame waiting time allows.
  public struct LateAnswer: Sendable, Equatable {
    /// The reader frame.
    public var request: Int
    /// The tag frame.
    public var answer: Int
    /// Time from the end of the reader frame to the start of the answer, ns.
    public var delayNs: Int64
    /// The FWT in force (× WTXM after an S(WTX)), ns.
    public var fwtNs: Int64
    /// The WTXM of the S(WTX) that extended the FWT for this answer; 1 when none did.
    public var wtxm: Int = 1
  }

  /// Frames with a bad CRC or a parity error.
  public private(set) var damagedCount = 0
  /// The first damaged frames.
  public private(set) var damagedFrames: [Int] = []
  /// Damaged frames the reader itself reported (`ReaderChipFlag.damagedAnswer`), not damage a
  /// sniffer saw.
  public private(set) var readerReportedDamage = 0
  /// Tag frames of 3 bytes or more that are all zeros, their CRC too (`isZeroAnswer`): not
  /// counted as damaged.
  public private(set) var zeroAnswers: [Int] = []
  /// The most damaged frames inside one window of `clusterWindow` frames, and those frames.
  public private(set) var worstCluster: [Int] = []
  /// Retried commands.
  public private(set) var retries: [Retry] = []
  /// Late ISO-DEP answers.
  public private(set) var lateAnswers: [LateAnswer] = []
  /// The longest run of S(WTX) requests for one command, with its frames.
  public private(set) var longestWTXRun: [Int] = []
  /// Tag frames longer than the FSD the reader announced.
  public private(set) var fsdOverruns: [Int] = []
  /// Reader frames longer than the FSC the tag announced in its ATS.
  public private(set) var fscOverruns: [Int] = []
  /// Reader frames whose last two bytes before their own CRC are CRC_A of the bytes before
  /// them, that the tag did not answer.
  public private(set) var crcAppended: [Int] = []
  /// Frames with a bad BCC in anticollision.
  public private(set) var badBCC: [Int] = []
  /// Reader I-blocks whose answer the capture missed (`answer-not-captured`: the reader's next
  /// I-block toggled its number).
  public private(set) var missedAnswers: [Int] = []
  /// Further targets a reader chip listed beside the one it activated (PN53x NbTg 2:
  /// `ReaderChipFlag.listedTarget` frames).
  public private(set) var listedTargets: [Int] = []
  /// The distinct UIDs completed in the session, with the frame that completed each.
  public private(set) var uids: [(uid: [UInt8], frame: Int)] = []
  /// True when the source gives no times (frames only in order).
  public private(set) var untimed = false

  private var ordinal = 0
  private var recentDamaged: [(ordinal: Int, frame: Int)] = []
  private var lastReader: (frame: DecodedFrame, bytes: [UInt8], failed: Bool)?
  private var run: Retry?
  private var fwtNs: Int64?
  /// The ATQBs' PUPI and FWT (ISO/IEC 14443-3 §7.9.4.3), the last few: type B has no ATS, a
  /// tag's FWT applies once ATTRIB selects it (several tags may answer one REQB).
  private var atqbFWTs: [(pupi: [UInt8], ns: Int64)] = []
  private var wtxm: Int64 = 1
  private var wtxRun: [Int] = []
  private var readerEnd: (frame: Int, ns: Int64)?

  /// Empty statistics.
  public init() {}

  /// Takes the session's next frame.
  public mutating func push(_ f: DecodedFrame) {
    ordinal += 1
    if f.frame.sourceTime?.unit.timesFrames == false { untimed = true }
    noteDamage(f)
    for finding in f.findings {
      if finding.code == "frame-exceeds-fsd" { Self.add(f.frame.index, to: &fsdOverruns) }
      if finding.code == "frame-exceeds-fsc" { Self.add(f.frame.index, to: &fscOverruns) }
      // A reader's SELECT with a bad BCC says nothing of a second tag: only answers count.
      if finding.code == "bad-bcc", f.frame.direction == .tag {
        Self.add(f.frame.index, to: &badBCC)
      }
      if finding.code == "answer-not-captured", let unanswered = finding.frames.first {
        Self.add(unanswered, to: &missedAnswers)
      }
    }
    if !f.frame.sourceFlags.isEmpty, f.frame.sourceFlags.contains(ReaderChipFlag.listedTarget) {
      Self.add(f.frame.index, to: &listedTargets)
    }
    if let uid = f.completedUID, !uids.contains(where: { $0.uid == uid }), uids.count < 8 {
      uids.append((uid, f.frame.index))
    }
    switch f.frame.direction {
    case .reader: reader(f)
    case .tag: tag(f)
    case .event: endRun()
    }
  }

  /// Ends the open retry run (call at the end of the session).
  public mutating func finish() { endRun() }

  // MARK: Damage

  private mutating func noteDamage(_ f: DecodedFrame) {
    guard f.frame.crc == .bad || (!f.frame.parityErrors.isEmpty && f.frame.crc != .encrypted)
    else { return }
    if Self.isZeroAnswer(f) { return Self.add(f.frame.index, to: &zeroAnswers) }
    damagedCount += 1
    if f.frame.sourceFlags.contains(ReaderChipFlag.damagedAnswer) { readerReportedDamage += 1 }
    Self.add(f.frame.index, to: &damagedFrames)
    recentDamaged.append((ordinal, f.frame.index))
    recentDamaged.removeAll { $0.ordinal <= ordinal - Self.clusterWindow }
    if recentDamaged.count > worstCluster.count { worstCluster = recentDamaged.map(\.frame) }
  }

  /// A tag frame of 3 bytes or more, every byte zero, CRC bytes included: no radio damage
  /// turns an answer into zeros with a matching zero checksum (CRC_A of zeros is not zero,
  /// ISO/IEC 14443-3 Annex B); an emulator answering from an empty buffer (the GET_VERSION
  /// answers of the public Proxmark3 trace hf_14a_mfu-sim) or a sniffer that filled a frame
  /// it did not demodulate does.
  static func isZeroAnswer(_ f: DecodedFrame) -> Bool {
    f.frame.direction == .tag && f.frame.data.count >= 3 && f.frame.crc == .bad
      && f.frame.data.allSatisfy { $0 == 0 }
  }

  static func damaged(_ f: DecodedFrame) -> Bool {
    if f.frame.crc == .bad { return true }
    if !f.frame.parityErrors.isEmpty && f.frame.crc != .encrypted { return true }
    // NAK 1 is the tag's report of a damaged reader frame (CRC or parity); NAK 0, 4 and 5
    // refuse the command itself (argument, counter, EEPROM): answers, not radio damage. A NAK
    // with no code (a reader chip's report of a failure) may be either.
    if let nak = f.innermost, nak.name == "NAK" {
      if case .int(let code)? = nak.field("nak_code") { return code == 1 }
      return true
    }
    if f.innermost?.protocolID == .isoDEP, f.innermost?.name.hasPrefix("R(NAK)") == true {
      return true
    }
    return false
  }

  // MARK: Reader frames

  private mutating func reader(_ f: DecodedFrame) {
    let bytes = f.frame.data
    // ATTRIB selects the tag whose ATQB gave the FWT (several tags may answer one REQB).
    if let d = f.innermost, d.protocolID == .iso14443B, d.name == "ATTRIB",
      case .hex(let id)? = d.field("identifier"),
      let atqb = atqbFWTs.last(where: { $0.pupi == id })
    {
      fwtNs = atqb.ns
    }
    if f.startsActivation || f.innermost?.protocolID == .iso14443A
      || f.innermost?.protocolID == .appleECP || f.response == .noAnswerExpected
    {
      endRun()
      lastReader = nil
      if f.startsActivation {
        fwtNs = nil
        wtxm = 1
      }
      return
    }
    if let last = lastReader, last.failed, last.bytes == bytes {
      if run == nil {
        run = Retry(
          attempts: [last.frame.frame.index], finalAnswer: nil, finalAnswerDamaged: false,
          summary: last.frame.innermost?.summary ?? "frame")
      }
      run?.attempts.append(f.frame.index)
      run?.finalAnswer = nil
      run?.finalAnswerDamaged = false
    } else {
      endRun()
    }
    lastReader = (f, bytes, f.response == .unanswered)
    checkCRCAppended(f)
    if f.innermost?.protocolID == .isoDEP, f.innermost?.name == "S(WTX)" {
      if case .int(let m)? = f.innermost?.field("wtxm"), m > 0 { wtxm = Int64(m) }
    } else {
      wtxm = 1
      wtxRun = []
    }
    readerEnd = (f.frame.index, f.frame.timeNs.saturatingPlus(Self.duration(f.frame)))
  }

  /// The frame's duration as recorded, else estimated at 106 kbit/s (9 etu of 128/fc per byte,
  /// a short frame's valid bits for a partial last byte, plus start and end of frame: ISO/IEC
  /// 14443-2/-3; nfc-facts §1.6). A higher bit rate only makes the estimate longer, so the
  /// measured delay shorter: never a false "late".
  static func duration(_ frame: Frame) -> Int64 {
    if let d = frame.durationNs { return d }
    let bits = AirTiming.airBits(frame.data, bits: frame.bits) + 2
    return bits * 128 * 1_000_000_000 / 13_560_000
  }

  private mutating func checkCRCAppended(_ f: DecodedFrame) {
    guard f.response == .unanswered, f.frame.crc == .ok else { return }
    let p = f.frame.data.dropLast(2)
    guard p.count >= 3, f.layer(.isoDEP) == nil else { return }
    let body = p.dropLast(2)
    let crc = CRC.crcA(body)
    let i = p.startIndex + p.count - 2
    if p[i] == UInt8(crc & 0xFF) && p[i + 1] == UInt8(crc >> 8) {
      Self.add(f.frame.index, to: &crcAppended)
    }
  }

  // MARK: Tag frames

  private mutating func tag(_ f: DecodedFrame) {
    let damagedAnswer = Self.damaged(f)
    if run != nil {
      run?.finalAnswer = f.frame.index
      run?.finalAnswerDamaged = damagedAnswer
    }
    if lastReader != nil { lastReader?.failed = damagedAnswer }
    if f.innermost?.protocolID == .isoDEP, f.innermost?.name == "S(WTX)" {
      wtxRun.append(f.frame.index)
      if wtxRun.count > longestWTXRun.count {
        longestWTXRun = Array(wtxRun.prefix(Self.sampleLimit))
      }
    }
    // The ATS's own FWT applies from the next command on, not to the ATS itself. Type B has no
    // ATS: the ATQB's protocol info gives FWI (ISO/IEC 14443-3 §7.9.4.3), for the blocks after
    // ATTRIB.
    checkLate(f)
    guard let d = f.innermost, case .int(let us)? = d.field("fwt_us") else { return }
    if d.protocolID == .isoDEP, d.name == "ATS" { fwtNs = Int64(us) * 1000 }
    if d.protocolID == .iso14443B, d.name == "ATQB", case .hex(let pupi)? = d.field("pupi") {
      if atqbFWTs.count == 8 { atqbFWTs.removeFirst() }
      atqbFWTs.append((pupi, Int64(us) * 1000))
    }
  }

  private mutating func checkLate(_ f: DecodedFrame) {
    guard !untimed, let fwt = fwtNs, let end = readerEnd, f.layer(.isoDEP) != nil,
      case .answers(let request)? = f.response, request == end.frame
    else { return }
    let delay = f.frame.timeNs.saturatingMinus(end.ns)
    let allowed = wtxm > 1 ? ISODEPTiming.temporaryFWTNs(fwt: fwt, wtxm: wtxm) : fwt
    if delay > allowed, lateAnswers.count < Self.sampleLimit {
      lateAnswers.append(
        LateAnswer(
          request: request, answer: f.frame.index, delayNs: delay, fwtNs: allowed,
          wtxm: Int(max(wtxm, 1))))
    }
  }

  private mutating func endRun() {
    if let r = run, retries.count < Self.sampleLimit { retries.append(r) }
    run = nil
  }

  private static func add(_ i: Int, to list: inout [Int]) {
    if list.count < sampleLimit { list.append(i) }
  }
}
