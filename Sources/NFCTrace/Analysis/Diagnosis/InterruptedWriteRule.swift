import NDEF

/// Rule: the tag left the field (or stopped answering) in the middle of a write, and what
/// the NDEF on the tag looks like afterwards.
///
/// Evidence: a `writeNDEF`/`writeLock` operation whose outcome is `interrupted` (a command
/// with no answer, SessionAnalyzer). From the command log: the Type 2 WRITEs acknowledged
/// (ACK, nfc-facts §4.2) and the ones never answered (the tag may or may not have programmed
/// them); the Type 4 UPDATE BINARYs answered 9000 and the unanswered ones. From the end memory
/// image (per-byte provenance): the NDEF length field (Type 2 NDEF TLV L, nfc-facts §5.1;
/// Type 4 NLEN, §6.2) and where each byte it claims came from (`NDEFWriteState`).
///
/// Codes: `write-interrupted` (error, 100 readerTransceiveErrorTagConnectionLost); after a
/// failed or interrupted write, `ndef-torn` (error, 100 or the write's error: the length field
/// claims bytes that were not all written), `ndef-emptied` (warning: the length was set to 0 —
/// the safe first step, nfc-facts §5.5/§6.4 — and the write never finished: the tag holds an
/// empty message, readNDEF reports 403), `ndef-length-uncertain` (warning: every byte of the
/// new message was acknowledged but the final write of the length got no answer — the tag
/// holds the new message or the earlier length, the length-last procedure's safe outcome),
/// `write-unfinished` (error: every command was acknowledged, but the writer stopped short —
/// after clearing the length and writing the message data it never wrote the final length,
/// the procedure's last step, and the tag holds an empty message; or it wrote the real length
/// first and stopped before all the data it announces, and the tag holds a torn message).
/// Which case is the session's judgement (`WriteCompletion`, operation detail `unfinished`).
enum InterruptedWriteRule: DiagnosisRule {
  static let codes = [
    "write-interrupted", "ndef-torn", "ndef-emptied", "ndef-length-uncertain", "write-unfinished",
  ]

  static let keepStill = keepStill(onError: 100)

  /// The fix for a writeLock the field cut short: part of it may be on the tag (CC write
  /// access F without the lock bits, or the reverse), and both are one-time programmable.
  static let lockAgain =
    "Keep the tag still until the writeLock(completionHandler:) completion handler is called. "
    + "On error 100 the tag has left the field: call session.restartPolling(), connect(to:) the "
    + "tag when readerSession(_:didDetect:) reports it again, and writeLock again: "
    + "part of the lock may already be on the tag (the CC's write access or the lock bits, both "
    + "one-time programmable), so queryNDEFStatus may now say .readOnly and writeNDEF fail with "
    + "400 while the tag is not fully locked."

  /// The fix for a write the field cut short, for the Core NFC error the app got.
  static func keepStill(onError code: Int) -> String {
    // Error 100 means the tag left the field: connect(to:) the same NFCTag object fails then,
    // the tag has to be detected again first.
    let reconnect =
      code == CoreNFCError.tagConnectionLost.code
      ? "the tag has left the field: call session.restartPolling(), connect(to:) the tag when "
        + "readerSession(_:didDetect:) reports it again"
      : "call session.restartPolling() (or connect(to:) again)"
    return "Keep the tag still against the phone until the writeNDEF(_:completionHandler:) "
      + "completion handler is called: set session.alertMessage to ask the user to hold still, "
      + "and only report success from the completion handler. On error \(code), \(reconnect), "
      + "write the whole message again, then readNDEF to verify."
  }

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var out: [DiagnosisFinding] = []
    for i in c.writeOperations {
      let op = c.session.operations[i]
      // Every command acknowledged, but the writer stopped short (WriteCompletion).
      if case .string(let gap)? = op.detail("unfinished") {
        let f =
          gap == WriteCompletion.Gap.messageData.rawValue ? stoppedShort(c, i) : unfinished(c, i)
        out += [f].compactMap { $0 }
        continue
      }
      // A command whose answer the sniffer missed was answered (`answer-not-captured`).
      let interrupted =
        op.outcome == .interrupted
        || (op.outcome == .unknown && !op.unansweredFrames.isEmpty
          && op.detail("answer_not_captured") == nil)
      if interrupted { out.append(interruption(c, i)) }
      if interrupted || op.outcome == .failed, let f = ndefState(c, i, interrupted: interrupted) {
        out.append(f)
      }
    }
    return out
  }

  /// A write whose every command was acknowledged but that left the length 0 after writing
  /// the message data past it: the length-last procedure without its last step.
  private static func unfinished(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    guard let st = NDEFWriteState.after(op, in: c.session, log: c.log),
      st.shape == .empty, st.lengthWrittenHere
    else { return nil }
    let commands = c.commands(in: i)
    // The length is 0 by this operation's own last write of it (the end image may hold a
    // later operation's 0: a write, then an erase).
    guard let lengthWrite = commands.last(where: { $0.frame == st.lengthFrame }),
      ownLength(commands, lengthWrite, st, c) == 0
    else { return nil }
    // Each acknowledged write's bytes from the message's first byte on.
    func past(_ w: SessionCommandLog.Command) -> ArraySlice<UInt8> {
      let start = w.page.map { $0 * 4 } ?? (w.offset ?? 0)
      return w.data.dropFirst(max(0, st.valueStart - start))
    }
    let data = commands.filter { w in
      guard w.isWrite, w.accepted, !past(w).isEmpty else {
        return false
      }
      // The length write counts when it also carries the message's first bytes (`03 00 D1 01`).
      return w.frame != st.lengthFrame || past(w).contains { $0 != 0 && $0 != 0xFE }
    }
    // Zeros and a terminator after the cleared length are an erase (a wipe), not a message.
    guard let last = data.last,
      data.contains(where: { past($0).contains { $0 != 0 && $0 != 0xFE } })
    else { return nil }
    let type2 = last.page != nil
    let span =
      type2
      ? "page" + (data.count == 1 ? " " : "s ") + rangesText(data.compactMap(\.page))
      : "\(data.count) UPDATE BINARY" + (data.count == 1 ? "" : "s")
    var f = DiagnosisFinding(
      code: "write-unfinished", severity: .error, operation: i,
      frames: [st.lengthFrame].compactMap { $0 }
        + data.map(\.frame).filter { $0 != st.lengthFrame },
      cause:
        "\(op.kind.rawValue) stopped before its last step: the message data was written after "
        + "the \(st.lengthName) was set to 0, but the final \(st.lengthName) never was",
      message:
        "The writer set the \(st.lengthName) to 0 and wrote the message data (\(span), all "
        + "acknowledged), but the trace has no write of the final \(st.lengthName) after them: "
        + "the tag holds an empty NDEF message, and readNDEF reports error 403 "
        + "(ndefReaderSessionErrorZeroLengthMessage) until it is rewritten. Core NFC's "
        + "writeNDEF(_:completionHandler:) always ends with that write, so its session ended "
        + "first (invalidated, or the 60 s session limit) or the phone left just before it; "
        + "an app that writes pages or APDUs itself left the last step out."
        + splitZero(commands, lengthWrite, st, c),
      coreNFCError: nil,
      fix:
        "Keep the session and the tag until the writeNDEF completion handler is called, then "
        + "verify with readNDEF. If the app writes itself (sendMiFareCommand / "
        + "sendCommand(apdu:)), write the real length last, after the data.")
    f.effect = .unfinished
    return f
  }

  /// A write whose every command was acknowledged, that set the real length first and then
  /// stopped before writing all the bytes it announces: the tag holds a torn message.
  private static func stoppedShort(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    guard let st = NDEFWriteState.after(op, in: c.session, log: c.log),
      st.shape == .torn, st.lengthWrittenHere
    else { return nil }
    let type2 = c.session.usesType2Memory
    let acked = c.commands(in: i).filter {
      $0.isWrite && $0.accepted
    }
    let range = "\(st.valueStart)–\(st.valueStart + st.claimed - 1)"
    var f = DiagnosisFinding(
      code: "write-unfinished", severity: .error, operation: i,
      frames: acked.map(\.frame),
      cause:
        "\(op.kind.rawValue) stopped before the end of its message: the \(st.lengthName) was "
        + "written first and the data it announces only in part",
      message:
        "The writer set the \(st.lengthName) to \(st.claimed) (bytes \(range)) before the "
        + "data, and every write was acknowledged, but the trace has no write of the rest: "
        + "\(st.composition(pages: type2)). The tag now holds a corrupt message that readers "
        + "reject or misread. The session ended (invalidated, or the 60 s session limit) or the "
        + "phone left before the remaining writes were sent; Core NFC's writeNDEF completion "
        + "handler was not called with success.",
      coreNFCError: nil,
      fix:
        "Keep the session and the tag until the writeNDEF completion handler is called, then "
        + "verify with readNDEF. If the app writes itself (sendMiFareCommand / "
        + "sendCommand(apdu:)), write the length as 0 first, the data next and the real length "
        + "last, so a stop leaves an empty message rather than a corrupt one.")
    f.effect = .unfinished
    return f
  }

  /// The length the operation's own acknowledged writes left in the length field, its last
  /// write of the field being `w`: each byte of a Type 2 length as the operation last wrote
  /// it (a 3-byte length `FF hi lo` may continue on the next page, which the operation wrote
  /// earlier: `03 FF` on page 4 over the `00 00` it put on page 5 reads length 0), nil when
  /// it did not write them all; Type 4: what `w` puts at offset 0.
  private static func ownLength(
    _ commands: [SessionCommandLog.Command], _ w: SessionCommandLog.Command,
    _ st: NDEFWriteState, _ c: DiagnosisContext
  ) -> Int? {
    guard w.page != nil, let addresses = c.session.memory.type2Area?.ndefLengthAddresses,
      addresses.count > 1, w.data.last == 0xFF, w.page.map({ $0 * 4 + 3 }) == st.lengthAddress
    else { return lengthIn(w, st) }
    let bytes = addresses.map { address in
      commands.last { $0.isWrite && $0.accepted && $0.page == address / 4 && $0.data.count == 4 }
        .map { $0.data[address % 4] }
    }
    return bytes.contains(nil) ? nil : Type2TLV.length(in: bytes.compactMap { $0 }, at: 0)
  }

  /// For a 3-byte length whose `FF` the last write put at the end of its page over the `00 00`
  /// the operation wrote on the next page: what the field now says.
  private static func splitZero(
    _ commands: [SessionCommandLog.Command], _ w: SessionCommandLog.Command,
    _ st: NDEFWriteState, _ c: DiagnosisContext
  ) -> String {
    guard lengthIn(w, st) == nil, let page = w.page else { return "" }
    return " The last write (page \(page)) began the 3-byte length (FF), but the page holding its "
      + "two length bytes was not written after it: they are still the 00 00 written before, "
      + "so the field reads FF 00 00, length 0."
  }

  /// The length write `w` puts in place: the Type 2 TLV length part in its page, or the
  /// Type 4 NLEN/ENLEN at offset 0.
  private static func lengthIn(_ w: SessionCommandLog.Command, _ st: NDEFWriteState) -> Int? {
    if let page = w.page {
      return Type2TLV.lengthPart(in: w.data, at: st.lengthAddress - page * 4)
    }
    let size = st.valueStart
    guard w.offset == 0, w.data.count >= size else { return nil }
    return ByteImage.bigEndian(w.data.prefix(size))
  }

  private static func interruption(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding {
    let op = c.session.operations[i]
    let cmds = c.commands(in: i).filter(\.isWrite)
    let acked = cmds.filter { $0.accepted || $0.damagedSuccess }
    let silent = cmds.filter { $0.answer == .none && !$0.damagedSuccess }
    let type2 = cmds.contains { $0.page != nil }
    func what(_ list: [SessionCommandLog.Command]) -> String {
      if type2 {
        return (list.count == 1 ? "page " : "pages ") + rangesText(list.compactMap(\.page))
      }
      return list.map { "\(bytesText($0.data.count)) at offset \($0.offset ?? 0)" }
        .joined(separator: ", ")
    }
    let oversized = op.unansweredFrames.contains { c.rf.fscOverruns.contains($0) }
    // A silence that follows a NAK with no reactivation is the idle tag ignoring the commands.
    let idleNAK =
      oversized ? nil : op.unansweredFrames.first.flatMap { c.log.nakBefore(silence: $0) }
    // A silence after the reader's own HLTA, no WUPA since: the halted tag ignored it.
    let halt =
      oversized || idleNAK != nil
      ? nil : op.unansweredFrames.first.flatMap { c.log.haltBefore(silence: $0) }
    // What was acknowledged and what got no answer, after the opening sentence.
    var details = ""
    if !acked.isEmpty {
      details += " The tag acknowledged \(what(acked)): those bytes are on the tag."
    }
    if !silent.isEmpty {
      var seen = Set<Int>()
      let unique = silent.filter { seen.insert($0.page ?? ($0.offset ?? 0)).inserted }
      details += " The write of \(what(unique)) got no answer"
      if silent.count > unique.count { details += " (\(silent.count) attempts)" }
      details +=
        idleNAK != nil
        ? ": the idle tag ignored it, so it did not reach the tag's memory."
        : halt != nil
          ? ": the halted tag ignored it, so it did not reach the tag's memory."
          : ": whether it reached the tag's memory is unknown."
    }
    // A chained command cut off before its last part never ran (ISO/IEC 14443-4 §7.5.2: the
    // PICC executes a chained command once its last block arrives): none of its data landed.
    if let reason = op.reason, reason.hasPrefix("the chained command was cut off") {
      details +=
        " The next write was sent as chained I-blocks, and " + reason
        + ": none of its bytes reached the tag's memory."
    }
    if let nak = idleNAK { return idleAfterNAK(c, i, nak: nak, details: details) }
    if let halt { return haltedTag(c, i, halt: halt, details: details) }
    details += completeMessageNote(c, i)
    var text = "The tag stopped answering in the middle of \(op.kind.rawValue)." + details
    // Every unanswered frame reached the capture damaged: the tag may have got them damaged
    // too and ignored them (a tag does not answer an invalid block, ISO/IEC 14443-4 §7.5.4).
    let damagedSilence =
      !oversized && !op.unansweredFrames.isEmpty
      && op.unansweredFrames.allSatisfy { c.rf.damagedFrames.contains($0) }
    text +=
      oversized
      ? " The unanswered frame was longer than the tag's FSC (see command-exceeds-fsc): the tag"
        + " most likely dropped it rather than left the field."
      : damagedSilence
        ? " Every unanswered frame of the reader reached the capture damaged (CRC or parity): "
          + "the tag may have received them damaged too and ignored them, as tags do with an "
          + "invalid frame — a disturbed radio link (metal, interference, a weak field at the "
          + "edge) rather than, or before, the tag leaving."
        : " Usually the phone moved away from the tag, or the tag sat at the edge of the field."
    // The unanswered commands themselves too: after an S(WTX) the silent frame is the reader's
    // WTX answer, not the command the tag was working on.
    let frames = Array(
      Set(
        acked.map(\.frame) + acked.compactMap(\.answerFrame) + silent.map(\.frame)
          + op.unansweredFrames)
    ).sorted()
    let cause: String
    if let last = silent.first, oversized {
      cause =
        "the tag did not answer \(last.summary) during \(op.kind.rawValue): a frame longer than "
        + "its FSC"
    } else if let last = silent.first, damagedSilence {
      cause =
        "the tag did not answer \(last.summary) during \(op.kind.rawValue), whose frames reached "
        + "the capture damaged"
    } else if let last = silent.first {
      cause = "the tag left the field during \(op.kind.rawValue): no answer to \(last.summary)"
    } else {
      cause = "the tag left the field during \(op.kind.rawValue)"
    }
    return DiagnosisFinding(
      code: "write-interrupted", severity: .error, operation: i, frames: frames, cause: cause,
      message: text, coreNFCError: .tagConnectionLost,
      fix: oversized
        ? "Nothing about holding the phone: send commands no longer than the tag's FSC, "
          + "chaining longer ones (see command-exceeds-fsc), then write the whole message again."
        : op.kind == .writeLock ? lockAgain : keepStill)
  }

  /// When the interrupted write had already put the whole new message on the tag — its
  /// length and every byte it announces acknowledged, only a later write (Android's
  /// Terminator TLV after the final length, nfc-facts §5.5) unanswered — says so: readers
  /// stop at the length (NFC Forum T2T 1.0 §2.3; NLEN, T4T 2.0 §5.1), so the tag reads the
  /// new message even though the app saw the write fail. Empty otherwise.
  private static func completeMessageNote(_ c: DiagnosisContext, _ i: Int) -> String {
    let op = c.session.operations[i]
    guard let st = NDEFWriteState.after(op, in: c.session, log: c.log), st.shape == .complete,
      st.lengthWrittenHere, !st.lengthUnacknowledged, st.claimed > 0,
      let frame = st.lengthFrame
    else { return "" }
    return " The new message is nevertheless whole on the tag: its \(st.lengthName) "
      + "\(lengthText(st.claimed)) (frame #\(frame)) and every byte it announces were "
      + "acknowledged, and readers stop at that length, so readNDEF returns the new message; "
      + "the app still saw the write fail, and only what follows the message is uncertain."
  }

  /// The silence follows a NAK with no reactivation: the tag went idle, it did not leave.
  private static func idleAfterNAK(
    _ c: DiagnosisContext, _ i: Int, nak: SessionCommandLog.Command, details: String
  ) -> DiagnosisFinding {
    let op = c.session.operations[i]
    let password = nak.name == "PWD_AUTH"
    let refusal = password ? "refused the password" : "refused \(nak.summary)"
    let message =
      "The tag stopped answering during \(op.kind.rawValue) right after it \(refusal) (NAK at "
      + "#\(nak.answerFrame ?? nak.frame)), with no reactivation in between." + details
      + " NXP Type 2 tags are reported to leave the ACTIVE state after a NAK and to ignore "
      + "commands until the reader activates them again (WUPA, anticollision, SELECT; nfcpy "
      + "re-activates after every NAK), so the silence is most likely the NAK's doing, not the "
      + "phone moving away."
    let fix =
      (password
        ? "Send the tag's password: PWD_AUTH was refused, so the password sent is not the one "
          + "in the tag's PWD page. "
        : "")
      + "After any NAK, reconnect before the next command: session.restartPolling() or "
      + "connect(to:) again, then authenticate (if needed) and write."
    return DiagnosisFinding(
      code: "write-interrupted", severity: .error, operation: i,
      frames: [nak.frame] + (nak.answerFrame.map { [$0] } ?? []) + op.unansweredFrames,
      cause: "the tag went idle after it \(refusal) (NAK), and did not answer "
        + "\(op.kind.rawValue) without a reactivation",
      message: message, coreNFCError: .tagConnectionLost, fix: fix)
  }

  /// The silence follows the reader's own HLTA with no WUPA since: the tag was halted.
  private static func haltedTag(
    _ c: DiagnosisContext, _ i: Int, halt: SessionCommandLog.Halt, details: String
  ) -> DiagnosisFinding {
    let op = c.session.operations[i]
    return DiagnosisFinding(
      code: "write-interrupted", severity: .error, operation: i,
      frames: [halt.frame] + op.unansweredFrames,
      cause: "the reader halted the tag (\(halt.name) at #\(halt.frame)) and sent "
        + "\(op.kind.rawValue)'s commands without waking it",
      message: "The reader sent \(halt.name) (#\(halt.frame)) and then the commands of "
        + "\(op.kind.rawValue) with no \(halt.wakeCommand) in between." + details + " A halted "
        + "tag ignores every command but \(halt.wakeCommand) (ISO/IEC 14443-3 "
        + "\(halt.isTypeB ? "§7.12" : "§6.3"): HALT state), so the silence is the "
        + "reader's doing, not the tag leaving the field.",
      coreNFCError: .tagConnectionLost, fix: halt.restartFix)
  }

  /// Whether the session found the length field 0 before its writes (an empty tag): then
  /// clearing it lost no message.
  static func startedEmpty(_ c: DiagnosisContext, _ st: NDEFWriteState, type2: Bool)
    -> Bool
  {
    if type2 {
      guard let first = c.session.memory.type2Start.known(st.lengthAddress, 1)?.first else {
        return false
      }
      if first != 0xFF { return first == 0 }
      return c.session.memory.type2Start.knownBigEndian(st.lengthAddress + 1, 2) == 0
    }
    let file = c.session.memory.filesStart[c.session.type4NDEFFile ?? 0xE104]
    return file?.knownBigEndian(st.lengthAddress, st.valueStart - st.lengthAddress) == 0
  }

  private static func ndefState(_ c: DiagnosisContext, _ i: Int, interrupted: Bool)
    -> DiagnosisFinding?
  {
    let op = c.session.operations[i]
    guard let st = NDEFWriteState.after(op, in: c.session, log: c.log) else {
      return nil
    }
    // A later write of the session set the length the end image holds: what this operation
    // left was superseded, and the later operation's own state is judged there.
    let at = st.lengthAddress
    let rewritten = c.log.commands.contains { w in
      guard w.isWrite, w.frame > op.lastFrame, w.accepted,
        w.page != nil || Type4Procedure.ndefUpdates.contains(w.name)
      else { return false }
      let start = w.page.map { $0 * 4 } ?? (w.offset ?? 0)
      return start <= at && at < start + w.data.count
    }
    if rewritten { return nil }
    // A write refused for the app's own APDU (Lc above MLc, past the file) raised no error.
    let error: CoreNFCError? =
      interrupted
      ? .tagConnectionLost : Type4StatusRule.refusedAsOwnAPDU(c, i) ? nil : c.refusalError(i)
    let type2 = c.session.usesType2Memory
    let lengthFrame = st.lengthFrame
    let lengthText = Self.lengthText(st.claimed)
    // A write the idle or halted tag ignored did not land: nothing uncertain about it.
    let ignored = lengthFrame.map { c.log.ignored(silence: $0) } ?? false
    if ignored {
      // The idle or halted tag ignored the length's write: the length before it stands — 0
      // when the operation had cleared it (its earlier write acknowledged), else the old one.
      return st.earlierLength == 0 && st.lengthWrittenHere
        ? emptied(c, st, op: i, error: error) : nil
    }
    if st.oneUnansweredWrite, st.claimed > 0 {
      return wholeWriteUncertain(st, op: i, error: error, lengthText: lengthText)
    }
    switch st.shape {
    case .torn:
      let range = "\(st.valueStart)–\(st.valueStart + st.claimed - 1)"
      let lastPage = type2 ? c.session.tag.lastPage : nil
      var message =
        "The \(st.lengthName) on the tag now claims \(lengthText) bytes (bytes \(range)), but "
        + "they were not all written: \(st.composition(pages: type2, lastPage: lastPage))."
      // Written last (after the data, the safe order), the length still lands over data
      // writes that failed: the writer went on past a refused or unanswered one.
      let writes = c.commands(in: i).filter(\.isWrite)
      let lengthLast = writes.count > 1 && writes.last?.frame == lengthFrame
      message +=
        !st.lengthWrittenHere
        ? " The old length now covers partly overwritten bytes: the message is corrupt."
        : lengthLast
          ? " The length was written last, but after data writes that did not all land: the"
            + " writer went on past them, so the tag now holds a corrupt message that readers"
            + " reject or misread (readNDEF fails or returns garbage)."
          : " The length was written before the data it announces, so the tag now holds a"
            + " corrupt message that readers reject or misread (readNDEF fails or returns garbage)."
      let frames = [lengthFrame].compactMap { $0 } + op.unansweredFrames + op.failedFrames
      var f = DiagnosisFinding(
        code: "ndef-torn", severity: .error, operation: i, frames: frames,
        cause:
          "the NDEF message on the tag is now corrupt: \(st.lengthName) \(lengthText) covers bytes that were not all written",
        message: message, coreNFCError: error,
        fix:
          "Write the message again with writeNDEF(_:completionHandler:) while the tag is held still, "
          + "then readNDEF to verify. Until then every reader sees a broken tag.")
      if st.lengthWrittenHere, let cap = c.session.ndefStatus?.capacity, st.claimed > cap {
        // The message cannot fit (`message-too-large` says why): no rewrite of it succeeds,
        // and the page writes were the app's own, which raise no NFCReaderError.
        f.message +=
          " The message is larger than the tag's capacity (\(bytesText(cap))): writing it again "
          + "fails the same way."
        f.coreNFCError = nil
        f.fix =
          "Shorten the message to at most \(bytesText(cap)) (or use a tag with more memory) and "
          + "write it with writeNDEF(_:completionHandler:), which checks the size; until then "
          + "every reader sees a broken tag."
      }
      return f
    case .empty where st.lengthWrittenHere && st.lengthUnacknowledged:
      return emptyingUncertain(c, st, op: i, error: error)
    case .empty where st.lengthWrittenHere:
      return emptied(c, st, op: i, error: error)
    case .complete where st.lengthUnacknowledged:
      return lengthUncertain(st, op: i, error: error, lengthText: lengthText)
    default:
      return nil
    }
  }

  /// The writer set the length to 0 first and the write did not finish: an empty message.
  private static func emptied(
    _ c: DiagnosisContext, _ st: NDEFWriteState, op i: Int, error: CoreNFCError?
  ) -> DiagnosisFinding {
    let type2 = c.session.usesType2Memory
    let lengthFrame = st.lengthFrame
    return DiagnosisFinding(
      code: "ndef-emptied", severity: .warning, operation: i,
      frames: [lengthFrame].compactMap { $0 },
      cause:
        "the write stopped after clearing the old message: the tag now holds an empty NDEF message",
      message:
        "The writer first set the \(st.lengthName) to 0 (the safe procedure), but the write "
        + "did not finish. "
        + (startedEmpty(c, st, type2: type2)
          ? "The tag held an empty message before and still does"
          : "The old message is gone and the tag holds an empty one")
        + ": readNDEF reports error 403 (ndefReaderSessionErrorZeroLengthMessage) until it is "
        + "rewritten.",
      coreNFCError: error,
      fix:
        "Write the message again with writeNDEF(_:completionHandler:) and verify with readNDEF.")
  }

  /// The write that set the length to 0 got no answer. After a NAK with no reactivation the
  /// tag was idle and ignored it (tags are reported to return to IDLE after a NAK, nfc-facts
  /// §4.2, unverified in the datasheets; nfcpy re-activates after every NAK): the old
  /// message stands, and `write-interrupted` already says why. Otherwise the tag holds an
  /// empty message or the old one.
  private static func emptyingUncertain(
    _ c: DiagnosisContext, _ st: NDEFWriteState, op i: Int, error: CoreNFCError?
  ) -> DiagnosisFinding? {
    guard let frame = st.lengthFrame, !c.log.ignored(silence: frame) else { return nil }
    var earlier =
      st.earlierLength == 0
      ? "An earlier write of this operation had already set it to 0 and was acknowledged: the "
        + "tag holds an empty message (readNDEF reports 403)."
      : "The tag holds either an empty message (readNDEF reports 403) or its old message "
        + "untouched; the trace cannot tell which."
    // A 3-byte length set by two WRITEs, one acknowledged: not the old length either way.
    if st.lengthSplit, let other = st.priorLength, other != 0 {
      earlier =
        "The tag holds either an empty message (readNDEF reports 403) or a length of "
        + Self.lengthText(other) + " — the acknowledged bytes of "
        + "the 3-byte length beside the old ones — that matches no message: a corrupt one. The "
        + "length continues on the next page, so two WRITEs set it."
    }
    let silence = st.lengthSilenceText
    return DiagnosisFinding(
      code: "ndef-length-uncertain", severity: .warning, operation: i, frames: [frame],
      cause: "the write of \(st.lengthName) 0 (the safe first step) \(silence)",
      message: "The writer set the \(st.lengthName) to 0 first (the safe procedure), but that "
        + "write \(silence) and the new message was not written. " + earlier,
      coreNFCError: error,
      fix: "Write the message again with writeNDEF(_:completionHandler:) while the tag is held "
        + "still, then readNDEF to verify." + (st.lengthSplit ? splitOrder : ""))
  }

  /// One write carried the length and the whole message and got no answer (a Type 4 UPDATE
  /// BINARY of NLEN and data together): nothing shows whether it reached the tag's memory.
  private static func wholeWriteUncertain(
    _ st: NDEFWriteState, op i: Int, error: CoreNFCError?, lengthText: String
  ) -> DiagnosisFinding {
    DiagnosisFinding(
      code: "ndef-length-uncertain", severity: .warning, operation: i,
      frames: [st.lengthFrame].compactMap { $0 },
      cause: "the one write of the \(st.lengthName) and the whole message got no answer",
      message:
        "The \(st.lengthName) (\(lengthText)) and the whole \(st.claimed)-byte message went in one "
        + "write, which got no answer: whether it reached the tag's memory is unknown. The tag "
        + "holds the new message or its old one untouched — or, had it lost power while "
        + "programming, a mix of both; the trace cannot tell which.",
      coreNFCError: error,
      fix: "Read the tag (readNDEF) to see which; write the message again with "
        + "writeNDEF(_:completionHandler:) while the tag is held still if it is not the new one.")
  }

  private static func lengthUncertain(
    _ st: NDEFWriteState, op i: Int, error: CoreNFCError?, lengthText: String
  ) -> DiagnosisFinding? {
    let silence = st.lengthSilenceText
    var f = DiagnosisFinding(
      code: "ndef-length-uncertain", severity: .warning, operation: i,
      frames: [st.lengthFrame].compactMap { $0 },
      cause:
        "the final write of the \(st.lengthName) "
        + (st.lengthProgrammingFailure.map { "failed (\($0))" } ?? "got no answer")
        + "; the message bytes are all on the tag",
      message:
        "Every byte of the new \(st.claimed)-byte message was written and acknowledged, but the "
        + "last write, of the \(st.lengthName) (\(lengthText)), \(silence). Depending on whether "
        + "it reached the tag's memory, the tag holds the complete new message or ",
      coreNFCError: error,
      fix: "Read the tag (readNDEF) to see which; write the message again if it is not the new one."
    )
    let other = st.earlierLength ?? st.priorLength
    if let f = splitLengthHalfSent(st, op: i, error: error, other: other) { return f }
    guard let other, other != 0 else {
      f.message +=
        (other == 0
          ? "an empty message (length 0; readNDEF reports 403)" : "the length it had before")
        + "; never a torn one: the length was written last, the safe order."
      return f
    }
    // The length it had before is the new one: the tag holds the new message either way.
    if other == st.claimed { return nil }
    // The length the tag holds if the unanswered write did not land covers a different span
    // of the new message: it cuts it short or runs past it.
    let otherText = Self.lengthText(other)
    let reach =
      other < st.claimed
      ? "which cuts the message short" : "which runs past the message's end"
    f.message +=
      "a length of \(otherText), \(reach): a corrupt message that readers reject or misread "
      + "(readNDEF fails or returns garbage)."
    if st.lengthSplit { splitLength(&f, st, otherText: otherText) }
    return f
  }

  /// A 3-byte length continuing on the next page whose final value needs two WRITEs: the one
  /// sent got no answer (or NAK 5) and the other was never sent, so `st.claimed` mixes new
  /// and earlier bytes. When the message written before it is longer (its ME record ends
  /// past the claimed bytes), the length the tag may hold cuts it short: torn, not the "new
  /// message or empty" of a length written whole.
  private static func splitLengthHalfSent(
    _ st: NDEFWriteState, op i: Int, error: CoreNFCError?, other: Int?
  ) -> DiagnosisFinding? {
    guard st.lengthSplit, let size = st.writtenMessageSize, size > st.claimed else { return nil }
    let first = st.lengthAddress / 4
    let otherText =
      other.map { $0 == 0 ? "0 (an empty message; readNDEF reports 403)" : lengthText($0) }
      ?? "its earlier value"
    return DiagnosisFinding(
      code: "ndef-length-uncertain", severity: .warning, operation: i,
      frames: [st.lengthFrame].compactMap { $0 },
      cause: "the final 3-byte \(st.lengthName) was written only in part (pages \(first) and "
        + "\(first + 1)): the write sent \(st.lengthSilenceText), the other was never sent",
      message: "The writer wrote a \(size)-byte message, then began the final \(st.lengthName): "
        + "its 3 bytes continue on the next page, so two WRITEs set them, and the first one "
        + "\(st.lengthSilenceText) while the other was never sent. Depending on whether that "
        + "write reached the tag's memory, the length reads \(lengthText(st.claimed)) — which "
        + "cuts the \(size)-byte message short: a torn message readers reject or misread — or "
        + "\(otherText).",
      coreNFCError: error,
      fix: "Write the message again with writeNDEF(_:completionHandler:) while the tag is held "
        + "still, then readNDEF to verify." + splitOrder)
  }

  /// The length is a 3-byte field continuing on the next page, set by two WRITEs (T2T 1.0
  /// §2.3, §6.4.2): whichever comes first, the tag holds a wrong length between them.
  private static func splitLength(
    _ f: inout DiagnosisFinding, _ st: NDEFWriteState, otherText: String
  ) {
    let field = st.lengthAddress..<(st.lengthAddress + 3)
    let first = st.lengthAddress / 4
    let pages = "pages \(first) and \(first + 1)"
    f.cause =
      "one of the two WRITEs of the 3-byte \(st.lengthName) (\(pages)) got no answer: the "
      + "tag holds the new length or \(otherText), a corrupt message"
    f.message +=
      " The 3-byte \(st.lengthName) (bytes \(rangesText(Array(field)))) continues on the next "
      + "page, so no single WRITE sets it: the writer wrote \(pages) in turn, and between the "
      + "two WRITEs the tag holds a length that matches no message."
    f.fix += splitOrder
  }

  /// A length as `0x12D (301)`.
  static func lengthText(_ n: Int) -> String { "0x\(String(n, radix: 16, uppercase: true)) (\(n))" }

  /// How a writer of its own pages sets a 3-byte length that continues on the next page.
  static let splitOrder =
    " A writer of its own pages (sendMiFareCommand) avoids the wrong length in between: "
    + "clear the length as `03 00 FE` (its 1-byte form), write the page with the length's "
    + "low bytes together with the data, and write the page holding `03 FF` and the high "
    + "byte last, so one WRITE switches the length."
}
