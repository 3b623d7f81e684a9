/// Rule: trouble on the radio link, from frame-level evidence (`SessionRFStatistics`).
///
/// - `rf-damaged-frames`: frames with a bad CRC_A or parity errors (ISO/IEC 14443-3 §6.2.4,
///   nfc-facts §1.5). Three or more inside a window of 16 frames is a cluster (warning, 102
///   when the operation there failed); fewer is info.
/// - `command-retried`: the reader sent the same frame again after no answer or a damaged
///   answer. Recovered (last attempt answered cleanly): warning; last answer damaged: error,
///   101 readerTransceiveErrorRetryExceeded; never answered: left to the interruption rules.
/// - `late-response`: an ISO-DEP answer started later than FWT (× WTXM after S(WTX)) after the
///   end of the reader frame (ISO/IEC 14443-4 §7.2; FWT = 4096·2^FWI/fc from the ATS,
///   nfc-facts §2.3). Warning; 100 when the operation failed.
/// - `wtx-storm`: 10 or more S(WTX) requests in a row for one command (our threshold): the tag
///   keeps asking for time. Warning; 100 when the operation failed.
/// - `response-exceeds-fsd`: a tag frame longer than the FSD from RATS (ISO/IEC 14443-4 §5.1,
///   nfc-facts §2.1): the reader cannot take it. Error, 102; warning without an error when
///   its operation succeeded (the reader took it anyway). One finding per operation.
/// - `command-exceeds-fsc`: a reader frame longer than the FSC from the tag's ATS, a whole
///   command or a chained part (ISO/IEC 14443-4 §5.2.4 FSC, §7.5.2 chaining; nfc-facts §2.1):
///   the tag may drop it. Error; 100 when the tag did not answer it; warning without an error
///   when its operation succeeded (the tag took it anyway).
/// - `raw-command-crc-appended`: a reader frame whose two bytes before its own CRC_A are CRC_A
///   of the bytes before them, not answered: the app appended a CRC to a raw command and the
///   stack added another (nfc-facts §10, `sendMiFareCommand` CRC). Error, 100.
/// - `answer-not-captured`: the reader's I-block toggled its block number although the trace
///   has no answer to its previous one; a reader toggles only on receiving the answer
///   (ISO/IEC 14443-4 §7.5.3 PCD rule B), so the sniffer missed it; or the reader went on
///   from a Type 2 READ or WRITE with no answer to another command the tag answered, where a
///   reader resends a silent command (nfc-facts §4.2). Info: the command is not counted as
///   unanswered.
/// - `answer-all-zeros`: tag answers that are zeros to their CRC (an emulator's empty buffer
///   or a sniffer's filler, `SessionRFStatistics.isZeroAnswer`), kept apart from
///   `rf-damaged-frames`. Info.
enum RFRule: DiagnosisRule {
  static let codes = [
    "rf-damaged-frames", "command-retried", "late-response", "wtx-storm", "response-exceeds-fsd",
    "command-exceeds-fsc", "raw-command-crc-appended", "answer-not-captured", "answer-all-zeros",
  ]

  static let holdStill =
    "Hold the phone flat on the tag without moving until the completion handler is called; "
    + "keep metal and other cards away; on error, restartPolling() and try again."

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var out: [DiagnosisFinding] = []
    if let f = damaged(c) { out.append(f) }
    if let f = zeroAnswers(c) { out.append(f) }
    out += retries(c)
    if let f = late(c) { out.append(f) }
    if c.rf.longestWTXRun.count >= 10 {
      let op = c.operation(at: c.rf.longestWTXRun[0])
      out.append(
        DiagnosisFinding(
          code: "wtx-storm", severity: .warning, operation: op,
          frames: Array(c.rf.longestWTXRun.prefix(3)),
          cause: "the tag asked for more time \(c.rf.longestWTXRun.count) times in a row (S(WTX))",
          message: "Instead of answering, the tag sent \(c.rf.longestWTXRun.count) waiting-time "
            + "extension requests for one command: it is slow (busy, or short of power at the "
            + "edge of the field). The reader may give up before it answers.",
          coreNFCError: failed(c, op) ? .tagConnectionLost : nil, fix: holdStill))
    }
    out += fsdOverruns(c)
    if let f = fscOverrun(c) { out.append(f) }
    out += crcAppended(c)
    out += cutAnswers(c)
    if let f = missedType2Answers(c) { out.append(f) }
    if let first = c.rf.missedAnswers.first {
      let n = c.rf.missedAnswers.count
      out.append(
        DiagnosisFinding(
          code: "answer-not-captured", severity: .info, operation: c.operation(at: first),
          frames: Array(c.rf.missedAnswers.prefix(3)),
          cause: "the capture misses the tag's answer to \(n) command(s) the reader received",
          message: "The reader's next ISO-DEP block toggled its block number, which a reader "
            + "does only after receiving the tag's answer intact (ISO/IEC 14443-4 §7.5.3): the "
            + "tag answered, and the sniffer missed the answer or caught it damaged. What the "
            + "answer said is not known (the damaged copy cannot be trusted); the reader went on "
            + "to its next command. " + outcomeSentence(c, first),
          coreNFCError: nil,
          fix: "Place the sniffer's antenna closer to the tag, or capture again."))
    }
    return out
  }

  /// Type 2 commands whose answer the capture misses although the reader went on to another
  /// command the tag answered (SessionAnalyzer, operation detail `answer_not_captured`).
  private static func missedType2Answers(_ c: DiagnosisContext) -> DiagnosisFinding? {
    let frames = c.session.operations.compactMap { op -> Int? in
      guard case .int(let f)? = op.detail("answer_not_captured"), op.detail("answer_cut") == nil,
        !c.rf.missedAnswers.contains(f)
      else { return nil }
      return f
    }
    guard let first = frames.first else { return nil }
    return DiagnosisFinding(
      code: "answer-not-captured", severity: .info, operation: c.operation(at: first),
      frames: Array(frames.prefix(3)),
      cause: "the capture misses the tag's answer to \(frames.count) command(s) the reader "
        + "went on from",
      message: "The reader sent its next command, which the tag answered, without sending the "
        + "silent one again. Readers resend a READ or WRITE that got no answer (or give up the "
        + "call), so this one got its answer (ACK, NAK or data) and the sniffer missed it: the "
        + "tag did not leave the field. What the answer said is not known. "
        + outcomeSentence(c, first),
      coreNFCError: nil,
      fix: "Place the sniffer's antenna closer to the tag, or capture again.")
  }

  /// Answers the capture cut short (Type 4 before the status word, Type 5 flagged truncated):
  /// one finding per operation (detail `answer_cut`).
  private static func cutAnswers(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in
      let op = c.session.operations[i]
      guard op.detail("answer_cut") != nil, case .int(let f)? = op.detail("answer_not_captured"),
        !c.rf.missedAnswers.contains(f)
      else { return nil }
      return cutAnswer(c, i, f)
    }
  }

  /// An answer the capture cut short (the source flagged it truncated, or one or two bytes
  /// where a frame with CRC was due: `frame-too-short`): the reader received it
  /// whole or not, the capture does not say.
  private static func cutAnswer(_ c: DiagnosisContext, _ i: Int, _ frame: Int)
    -> DiagnosisFinding
  {
    DiagnosisFinding(
      code: "answer-not-captured", severity: .info, operation: i, frames: [frame],
      cause: "the capture cut the tag's answer short",
      message: "The capture kept only the first bytes of the tag's answer (the source marks the "
        + "frame truncated, or it is too short to hold its CRC: the CRC was not captured): the part that decides — the data's end, the "
        + "status — is not in it, and what the reader received is not known. "
        + outcomeSentence(c, frame),
      coreNFCError: nil,
      fix: "Capture again with a longer snap length or frame buffer (the sniffer cut the frame, "
        + "not the radio link).")
  }

  /// What a missed answer means for the operation of `frame`: its outcome is unknown, or the
  /// frames after it settled the outcome (a later refusal, the tag leaving the field).
  private static func outcomeSentence(_ c: DiagnosisContext, _ frame: Int) -> String {
    guard let i = c.operation(at: frame) else { return "" }
    let outcome = c.session.operations[i].outcome
    return outcome == .unknown
      ? "So the operation's outcome is unknown."
      : "The operation's outcome (\(outcome.rawValue)) rests on the frames after it."
  }

  /// One finding per operation with tag frames longer than the FSD. When the operation went on
  /// and succeeded, the reader took the frame anyway (the session analyzer fails the operation
  /// when the reader's next frame shows the drop): a warning, as another reader may not.
  private static func fsdOverruns(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var byOperation: [(op: Int?, frames: [Int])] = []
    for f in c.rf.fsdOverruns {
      let op = c.operation(at: f)
      if let last = byOperation.last, last.op == op {
        byOperation[byOperation.count - 1].frames.append(f)
      } else {
        byOperation.append((op, [f]))
      }
    }
    return byOperation.map { group in
      let taken = group.op.map { c.session.operations[$0].outcome == .ok } ?? false
      return DiagnosisFinding(
        code: "response-exceeds-fsd", severity: taken ? .warning : .error, operation: group.op,
        frames: Array(group.frames.prefix(3)),
        cause: "the tag sent a frame longer than the reader can receive (FSD)",
        message: "The reader announced in \(typeB(c) ? "ATTRIB" : "RATS") the largest frame "
          + "it can take (FSD); the tag answered with a longer one, which the reader has to drop."
          + (taken
            ? " This reader took it anyway (the operation went on and succeeded); a reader that "
              + "keeps to its FSD fails here with a tag response error." : ""),
        coreNFCError: taken ? nil : .tagResponseError,
        fix: "The tag (or the card emulation serving it) must chain any answer longer than "
          + "the reader's FSD (ISO/IEC 14443-4 §7.5.2): fix its firmware, or use another tag. "
          + "Core NFC's readNDEF chooses its own Le; an app reading with sendCommand(apdu:) can "
          + "ask for less per READ BINARY (a smaller Le) to stay under the FSD meanwhile.")
    }
  }

  private static func fscOverrun(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard let first = c.rf.fscOverruns.first else { return nil }
    let op = c.operation(at: first)
    let silent = c.rf.fscOverruns.contains { f in
      c.session.operations.contains { $0.unansweredFrames.contains(f) }
    }
    // As for the FSD: a tag that took the frame and let its operation succeed makes it a
    // warning, which another tag may not forgive.
    let taken = !silent && op.map { c.session.operations[$0].outcome == .ok } == true
    return DiagnosisFinding(
      code: "command-exceeds-fsc", severity: taken ? .warning : .error, operation: op,
      frames: Array(c.rf.fscOverruns.prefix(3)),
      cause: "the reader sent a frame longer than the tag can receive (FSC)"
        + (silent ? ", and the tag did not answer it" : ""),
      message: "The tag announced in its \(typeB(c) ? "ATQB" : "ATS") the largest frame it can "
        + "take (FSC); the reader "
        + "sent a longer one (ISO/IEC 14443-4 §7.5.2: a command larger than the FSC goes in "
        + "chained blocks of at most FSC bytes each)"
        + (silent
          ? ". The tag dropped it and stayed silent, which looks like the tag leaving the field."
          : taken
            ? ". This tag took it anyway (the operation succeeded); a tag that keeps to its FSC "
              + "drops such frames."
            : ". Tags may drop such frames."),
      coreNFCError: silent ? .tagConnectionLost : nil,
      fix: "Send shorter commands: at most the CC's MLc bytes per UPDATE BINARY, and let the "
        + "reader chain blocks larger than the FSC (Core NFC's sendCommand(apdu:) and writeNDEF "
        + "do; a reader or library that does not is at fault).")
  }

  private static func failed(_ c: DiagnosisContext, _ op: Int?) -> Bool {
    guard let op, c.session.operations.indices.contains(op) else { return false }
    let o = c.session.operations[op].outcome
    return o == .failed || o == .interrupted
  }

  /// Only NFC-A sessions: CRC_A and parity are what our decoder checks; the checks of other
  /// technologies' frames (proprietary iCLASS, LF, sniffed 14443-B) would raise false alarms.
  private static func damaged(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard c.rf.damagedCount > 0,
      c.session.info.technology == .nfcA || c.session.tag.technology == .nfcA
    else { return nil }
    let cluster = c.rf.worstCluster.count >= 3
    let frames = cluster ? c.rf.worstCluster : Array(c.rf.damagedFrames.prefix(3))
    let op = frames.first.flatMap { c.operation(at: $0) }
    return DiagnosisFinding(
      code: "rf-damaged-frames", severity: cluster ? .warning : .info, operation: op,
      frames: frames,
      cause: cluster
        ? "\(c.rf.worstCluster.count) damaged frames close together (bad CRC or parity)"
        : "\(c.rf.damagedCount) damaged frame(s) (bad CRC or parity)",
      message: "\(c.rf.damagedCount) frame(s) in this session arrived damaged (their checksum or "
        + "parity bits do not match). "
        + (cluster
          ? (c.rf.worstCluster.count == c.rf.damagedCount
            ? "They come" : "\(c.rf.worstCluster.count) of them come")
            + " in a cluster: the radio link was poor at that moment (distance, movement, "
            + "metal, another card)."
          : c.rf.readerReportedDamage == c.rf.damagedCount
            ? "The reader itself received them damaged and reported an error for the command."
            : "Isolated damage is common in sniffed traces and usually harmless."),
      coreNFCError: cluster && failed(c, op) ? .tagResponseError : nil, fix: holdStill)
  }

  private static func zeroAnswers(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard let first = c.rf.zeroAnswers.first else { return nil }
    let n = c.rf.zeroAnswers.count
    return DiagnosisFinding(
      code: "answer-all-zeros", severity: .info, operation: c.operation(at: first),
      frames: Array(c.rf.zeroAnswers.prefix(3)),
      cause: "\(n) answer(s) of all zeros, the CRC too: not radio damage",
      message: "The tag's answer is zeros from its first byte to its CRC. Radio damage does not "
        + "do that (the CRC_A of zeros is not zero): an emulator (a Proxmark3 or Chameleon "
        + "simulating a tag) answering a command from an empty buffer, such as GET_VERSION of "
        + "a dump without version data, or a sniffer that filled in a frame it could not "
        + "demodulate. The answer's decode is meaningless.",
      coreNFCError: nil,
      fix: "If the tag is an emulator, load a dump with the data this command reads (for "
        + "GET_VERSION, the version bytes), or test with the real tag; otherwise capture again.")
  }

  private static func retries(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.rf.retries.compactMap { r in
      let op = c.operation(at: r.attempts[0])
      let frames = r.attempts + [r.finalAnswer].compactMap { $0 }
      if r.finalAnswer == nil { return nil }  // never answered: the interruption rules speak
      if r.finalAnswerDamaged {
        // The last damaged answer ends the operation with nothing after it: the capture has
        // it damaged, but the reader may have received it whole (the operation's outcome is
        // unknown, `last_answer_damaged`), so the give-up is not certain either.
        if let op, let last = r.finalAnswer, c.session.operations[op].outcome == .unknown,
          c.session.operations[op].detail("last_answer_damaged") == .int(last)
        {
          return DiagnosisFinding(
            code: "command-retried", severity: .warning, operation: op, frames: frames,
            cause:
              "the reader sent \(r.summary) \(r.attempts.count) times; the capture has every "
              + "answer damaged",
            message:
              "Each attempt got no answer, a damaged one, or NAK 1 in the capture, and the "
              + "reader sent nothing after the last answer: if it received that one damaged "
              + "too, it gave up (Core NFC 101 readerTransceiveErrorRetryExceeded); if it "
              + "received it whole, the call completed with it. The capture cannot tell which.",
            coreNFCError: nil, fix: holdStill)
        }
        return DiagnosisFinding(
          code: "command-retried", severity: .error, operation: op, frames: frames,
          cause:
            "the reader sent \(r.summary) \(r.attempts.count) times and never got a clean answer",
          message:
            "Each attempt got no answer, a damaged one, or NAK 1 (the tag received the command "
            + "damaged); the reader gave up.",
          coreNFCError: .retryExceeded, fix: holdStill)
      }
      return DiagnosisFinding(
        code: "command-retried", severity: .warning, operation: op, frames: frames,
        cause: "the reader had to send \(r.summary) \(r.attempts.count) times",
        message:
          "The first attempt(s) failed (no answer, a damaged answer, or a refusal the reader "
          + "retries: NAK 1 or 5, SW 6581); a later attempt got through. "
          + survived(c, op),
        coreNFCError: nil, fix: holdStill)
    }
  }

  /// What the retried command's operation became: it survived, or — a later command failed
  /// it — it still ended failed or interrupted.
  private static func survived(_ c: DiagnosisContext, _ op: Int?) -> String {
    guard let op, c.session.operations.indices.contains(op) else {
      return "The radio link was marginal."
    }
    let o = c.session.operations[op]
    switch o.outcome {
    case .failed, .interrupted:
      return "The \(o.kind.rawValue) operation still ended \(o.outcome.rawValue) (its other "
        + "findings say why), and the radio link was marginal."
    default:
      return "The operation survived, but the radio link was marginal."
    }
  }

  private static func late(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard let first = c.rf.lateAnswers.first else { return nil }
    let op = c.operation(at: first.request)
    let worst = c.rf.lateAnswers.max { $0.delayNs < $1.delayNs } ?? first
    let ms = { (ns: Int64) -> String in
      let hundredths = (ns + 5_000) / 10_000
      let frac = hundredths % 100
      return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac) ms"
    }
    return DiagnosisFinding(
      code: "late-response", severity: .warning, operation: op,
      frames: c.rf.lateAnswers.prefix(3).flatMap { [$0.request, $0.answer] },
      cause: "the tag answered later than its own frame waiting time (\(c.rf.lateAnswers.count)×)",
      message: (worst.wtxm > 1
        ? "The tag asked for more time with S(WTX) (WTXM \(worst.wtxm)), extending its frame "
          + "waiting time (FWT, from the \(typeB(c) ? "ATQB" : "ATS")) to \(ms(worst.fwtNs)), "
          + "but took "
        : "The tag promised in its \(typeB(c) ? "ATQB" : "ATS") to answer within "
          + "\(ms(worst.fwtNs)) (FWT), but took ")
        + "\(ms(worst.delayNs)). A strict reader stops waiting at FWT (plus a small margin) and "
        + "reports the tag as lost.",
      coreNFCError: failed(c, op) ? .tagConnectionLost : nil,
      fix: "Nothing in the app changes the tag's timing; keep the phone still so the tag gets "
        + "full power, or use tags that answer within their FWT.")
  }

  /// One finding per operation: the reader's retry of the same doubled-CRC frame is the same
  /// mistake, not a second one.
  private static func crcAppended(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var groups: [(op: Int?, frames: [Int])] = []
    for frame in c.rf.crcAppended {
      let op = c.operation(at: frame)
      if let last = groups.indices.last, groups[last].op == op, op != nil {
        groups[last].frames.append(frame)
      } else {
        groups.append((op, [frame]))
      }
    }
    return groups.map { group in
      DiagnosisFinding(
        code: "raw-command-crc-appended", severity: .error, operation: group.op,
        frames: group.frames,
        cause: "a raw command was sent with its own CRC appended, plus the reader's CRC",
        message: "The frame's last two bytes before its CRC are themselves the CRC of the bytes "
          + "before them: the app added a CRC to the command and the phone added another. The "
          + "tag does not understand the longer frame and stays silent.",
        coreNFCError: .tagConnectionLost,
        fix: "Send the bare command with NFCMiFareTag.sendMiFareCommand(commandPacket:"
          + "completionHandler:), without CRC (e.g. Data([0x30, 0x04]) for READ page 4): the "
          + "phone appends CRC_A itself. Apple's documentation page asks callers to append the "
          + "CRC for the Ultralight family, while the SDK header says the CRC is added "
          + "automatically; the trace shows the phone adding it.")
    }
  }

  /// True for a type B tag: FSC and FWT come from its ATQB, FSD from the reader's ATTRIB
  /// (ISO/IEC 14443-3 §7.9.4, §7.10.3), not from an ATS and RATS.
  private static func typeB(_ c: DiagnosisContext) -> Bool {
    c.session.tag.technology == .nfcB
  }
}
