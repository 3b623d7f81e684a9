/// Rule: a failed or interrupted operation that no specific rule explained.
///
/// Evidence: the operation's outcome and reason (SessionAnalyzer). Severity follows what the
/// app loses: NDEF reads and writes → error; an app's own commands (transceive) interrupted →
/// warning on Type 2 / ISO-DEP tags, info otherwise; refused raw commands, activation
/// failures and identification probes (the Ultralight C AUTHENTICATE other tags ignore) →
/// info. Codes: `write-failed` (401), `read-interrupted` (100), `read-failed` (102),
/// `command-interrupted` (100), `command-refused` (102), `authentication-failed` (102),
/// `connect-failed`, `probe-not-answered` (no error), `command-unsupported` (102). A PWD_AUTH refused with NAK 4 (AUTHLIM
/// reached, NTAG21x datasheet) is an `authentication-failed` error: no retry can help.
enum OperationFallbackRule: DiagnosisRule {
  /// Operation `i` (a raw command, or the status queried again) is the session's last, only
  /// its last command went unanswered, and every earlier operation of the session succeeded,
  /// a readNDEF or writeNDEF among them: the stack checking that the tag is still there
  /// (Android re-reads page 0 every ~125 ms) after it was taken away, the work done.
  static let presenceFix =
    "Nothing to fix: the work was done; the reader's last command checked whether the tag was "
    + "still there (a presence check, or the next NDEF detection) after it had been taken away."

  static func presenceCheck(_ c: DiagnosisContext, _ i: Int) -> Bool {
    let ops = c.session.operations
    guard c.session.tag.isType2 || c.session.tag.isISODEP, i == ops.count - 1, i > 0,
      ops[..<i].allSatisfy({ $0.outcome == .ok }),
      ops[..<i].contains(where: { $0.kind == .readNDEF || $0.kind == .writeNDEF })
    else { return false }
    let op = ops[i]
    let requery = op.kind == .queryNDEFStatus && ops[..<i].contains { $0.kind == .queryNDEFStatus }
    guard op.kind == .transceive || requery else { return false }
    return trailingRetries(op)
  }

  /// Whether the operation's unanswered commands are its last frames, back to back: one
  /// presence check, or the stack's retries of it (nfcpy: READ 0 with `retries=2`, three in
  /// all), at most `CallBoundary.maxRetries` repeats.
  private static func trailingRetries(_ op: Operation) -> Bool {
    let silent = op.unansweredFrames
    guard silent.last == op.lastFrame, silent.count <= 1 + CallBoundary.maxRetries else {
      return false
    }
    return zip(silent, silent.dropFirst()).allSatisfy { $1 == $0 + 1 }
  }

  static let codes = [
    "write-failed", "read-interrupted", "read-failed", "command-interrupted", "command-refused",
    "authentication-failed", "connect-failed", "probe-not-answered", "command-unsupported",
    "answer-not-understood",
  ]

  /// A Type 5 READ answered with an ISO 15693 error response (flags b1, ISO/IEC 15693-3 §9.3,
  /// Table 7): the tag's explicit refusal, not a radio problem.
  private static func type5ReadRefusal(_ c: DiagnosisContext, _ op: Operation)
    -> (message: String, fix: String)?
  {
    guard case .hex(let error)? = op.detail("error_code"), let code = error.first else {
      return nil
    }
    var block = "the block"
    if case .int(let b)? = op.detail("refused_block") { block = "block \(b)" }
    let message =
      "The \(op.kind.rawValue) operation failed: \(op.reason ?? "a READ was refused"). This is "
      + "the tag's answer (an ISO 15693 error response), not a radio problem."
    let m = c.session.memory
    let blocks = m.type5MemorySize.flatMap { size in m.type5BlockSize.map { size / max($0, 1) } }
    switch code {
    case 0x10:
      return (
        message,
        "The READ asks for blocks the tag does not have"
          + (blocks.map { " (it has \($0) blocks: GET SYSTEM INFORMATION)" } ?? "")
          + ": read only up to the end of the T5T area the CC's MLEN declares, and write a CC "
          + "whose MLEN matches the tag's memory (getSystemInfo gives its block count and size)."
      )
    case 0x15, 0x0F, 0xA0...0xDF:
      return (
        message,
        "\(block.prefix(1).uppercased() + block.dropFirst()) may be read-protected (NXP ICODE "
          + "SLIX2 / ST25 password protection, or a custom error code): look the code up in the "
          + "IC's datasheet, and present the read password (NFCISO15693Tag's customCommand) "
          + "before reading, or remove the protection."
      )
    default:
      return (
        message,
        "Look the error code up in ISO/IEC 15693-3 (Table 7) or the IC's datasheet, and send "
          + "the READ in a form the tag supports (READ SINGLE BLOCK instead of READ MULTIPLE "
          + "BLOCKS, no option flag, blocks inside its memory)."
      )
    }
  }

  /// A Type 2 READ/FAST_READ refused with NAK 0 or 4 (invalid argument, not allowed; NXP
  /// NTAG21x datasheet §9.3): an address outside the tag or a read-protected page, not radio.
  private static func readRefusal(_ c: DiagnosisContext, _ op: Operation)
    -> (message: String, fix: String)?
  {
    guard let first = op.failedFrames.first,
      let cmd = c.log.commands.first(where: { $0.answerFrame == first }),
      case .nak(let code) = cmd.answer, code == 0 || code == 4,
      op.kind != .transceive || cmd.name == "READ" || cmd.name == "FAST_READ"
    else { return nil }
    var message =
      "The tag refused \(cmd.summary) with NAK \(code) ("
      + (code == 0 ? "invalid argument" : "not allowed") + ")."
    // FAST_READ's start after its end is an invalid range (NTAG213/215/216 datasheet §10.3).
    if let start = cmd.startPage, let end = cmd.endPage, end < start {
      return (
        message + " Its start page \(Type2Geometry.page(start)) is after its end page "
          + "\(Type2Geometry.page(end)): an invalid range, which the tag refuses. This is not a "
          + "radio problem.",
        "Send FAST_READ with the start page first and the end page last (start ≤ end), both "
          + "inside the tag's memory."
      )
    }
    // A READ that rolled over to page 0 at AUTH0 showed the tag read-protected from there.
    let protectedFrom = c.session.operations.lazy.compactMap { o -> Int? in
      if case .int(let p)? = o.detail("read_protected_from") { return p }
      return nil
    }.first
    if let from = protectedFrom, let page = cmd.page, page >= from {
      message +=
        " An earlier READ rolled over to page 0 after page \(Type2Geometry.page(from - 1)): the "
        + "tag is read-protected from page \(Type2Geometry.page(from)) (AUTH0 = \(from), PROT "
        + "set; NXP NTAG21x datasheet §8.8), and page \(Type2Geometry.page(page)) is behind the "
        + "password. This is not a radio problem."
      return (
        message,
        "Send PWD_AUTH with the tag's password (sendMiFareCommand, 1B + password) before "
          + "reading: Core NFC's queryNDEFStatus and readNDEF cannot send the password "
          + "themselves, so a read-protected tag is read only after PWD_AUTH (or clear "
          + "PROT/raise AUTH0 on the tag)."
      )
    }
    // READ rolls over past the last page (only its start can be out of range); FAST_READ is
    // refused when its end address is (NTAG213/215/216 datasheet §10.3).
    let pastEnd = c.session.tag.lastPage.map { last in
      (cmd.endPage ?? cmd.page).map { $0 > last } ?? true
    }
    if let last = c.session.tag.lastPage, pastEnd == true {
      message +=
        " The \(c.session.tag.product ?? "tag")'s last page is \(Type2Geometry.page(last)):"
        + " a read that reaches past it is refused."
    }
    if let free = readsFree(c, cmd) {
      // Neither the size nor the password: the trace does not show why.
      message += " The password does not explain it: \(free). This is not a radio problem."
      if pastEnd != true {
        return (
          message,
          "Check the command's address against the tag's datasheet memory map (GET_VERSION "
            + "gives the product); the trace rules out the tag's size and its password."
        )
      }
      return (
        message,
        "Read only the tag's own pages (GET_VERSION gives the product and its size); Core NFC's "
          + "readNDEF reads only the NDEF area."
      )
    }
    message += " A read of a password-protected page is refused too. This is not a radio problem."
    // Inside the identified product's memory, the size is not the cause: protection is.
    if pastEnd == false {
      return (
        message,
        "The pages are the tag's own: send PWD_AUTH with the tag's password before reading "
          + "them (AUTH0 gives the first protected page, PROT whether reads are protected), or "
          + "clear PROT on the tag to leave reads free."
      )
    }
    return (
      message,
      "Read only the tag's own pages (GET_VERSION gives the product and its size) and send "
        + "PWD_AUTH before reading protected pages; Core NFC's readNDEF reads only the NDEF area."
    )
  }

  /// A Type 3 read that failed on an answer, not on the radio: a CHECK refused by status flags
  /// (the fix follows Status Flag 2, JIS X 6319-4 / FeliCa user's manual; 102 as for any
  /// refused read), or an Attribute Information Block that rules the message out (detail
  /// `ndef_unreadable`: WriteF ON — nfcpy `tt3.py` reads only with WriteF 00h —, Ln past
  /// NmaxB × 16, no valid block 0; T3T 1.0 §7.1, §7.4). How Core NFC's readNDEF reports such
  /// a block is not verified: no error is named, as for `ndef-malformed-on-read`. Nil for other
  /// failures.
  private static func type3ReadFailure(_ op: Operation)
    -> (message: String, fix: String, error: CoreNFCError?)?
  {
    let reason = op.reason ?? "failed"
    if case .hex(let bytes)? = op.detail("status_flags") {
      let sf2 = bytes.last
      let fix: String
      switch sf2 {
      case 0xA8?:
        fix =
          "Read only blocks 1 to NmaxB of the NDEF service, the ⌈Ln / 16⌉ that hold the "
          + "message (block 0 gives NmaxB and Ln), or leave NDEF to readNDEF(completionHandler:); "
          + "the tag answered, so holding it still does not help."
      case 0xA2?:
        fix =
          "Read at most Nbr blocks per CHECK (block 0's Nbr) with NFCFeliCaTag's "
          + "readWithoutEncryption(serviceCode:blockList:completionHandler:), or leave NDEF to "
          + "readNDEF(completionHandler:); the tag answered, so holding it still does not help."
      case 0xA4?, 0xA5?, 0xA6?, 0xB1?:
        fix =
          "The tag's NDEF service 000B is not readable without encryption or authentication: "
          + "check queryNDEFStatus(completionHandler:) first, and read such a card with its "
          + "maker's protocol; the tag answered, so holding it still does not help."
      default:
        fix =
          "Check the CHECK's service and block list against the FeliCa user's manual (Status "
          + "Flag 2 \(sf2.map { Hex.string([$0]).uppercased() } ?? "?")); the tag answered, so holding "
          + "it still does not help."
      }
      return (
        "The tag refused the readNDEF's CHECK: \(reason). The refusal is the tag's answer, not "
          + "a radio problem.", fix, .tagResponseError
      )
    }
    guard case .string(let why)? = op.detail("ndef_unreadable") else { return nil }
    let fix: String
    switch why {
    case "write-flag-on":
      fix =
        "Write the whole message again with writeNDEF(_:completionHandler:) while the tag is "
        + "held still: a complete write sets WriteF OFF with the message's Ln."
    case "ln-exceeds-capacity":
      fix =
        "Write the message again with writeNDEF(_:completionHandler:), which sets Ln to the "
        + "message's length, or format the tag with a FeliCa tool."
    default:
      fix =
        "Call queryNDEFStatus(completionHandler:) first: .notSupported means the tag is not NDEF "
        + "formatted (Core NFC does not format tags); format it with a FeliCa tool."
    }
    return (
      "The readNDEF operation failed: \(reason). The tag answered every CHECK: this is the "
        + "tag's content, not a radio problem. How Core NFC's readNDEF reports it is not "
        + "verified.", fix, nil
    )
  }

  /// A READ_CNT the tag refused, explained when the trace shows why (NTAG213/215/216
  /// datasheet §10.7, nfc-facts §4.1, §4.5): NTAG213/215/216 have only the NFC counter, 02h; with
  /// NFC_CNT_PWD_PROT set (CFG1 ACCESS 0x08) it needs a PWD_AUTH in the same activation.
  private static func counterRefusal(_ c: DiagnosisContext, _ op: Operation)
    -> (message: String, fix: String)?
  {
    guard let first = op.failedFrames.first,
      let cmd = c.log.commands.first(where: { $0.answerFrame == first }), cmd.name == "READ_CNT",
      case .nak(let code) = cmd.answer, code == 0 || code == 4, let n = cmd.counter
    else { return nil }
    let g = Type2Geometry(c.session)
    let message = "The tag refused READ_CNT of counter \(n) with NAK \(code)."
    // NTAG213/215/216 (and F) have the NFC counter; NTAG210/212 have none, and on them and
    // on Ultralight EV1 ACCESS bit 0x08 is not NFC_CNT_PWD_PROT.
    let counterTags: Set<NTAGProduct> = [.ntag213, .ntag215, .ntag216, .ntag213F, .ntag216F]
    guard let product = c.session.tag.ntagProduct, counterTags.contains(product) else {
      return nil
    }
    if n != 2 {
      return (
        message + " An \(product.rawValue) has one counter, the NFC counter at "
          + "address 02h: there is no counter \(n). This is not a radio problem.",
        "Read the NFC counter with READ_CNT 39 02 (sendMiFareCommand)."
      )
    }
    guard let (access, frame) = g.access, access & 0x08 != 0 else { return nil }
    guard c.authentication(before: cmd.frame) == nil else { return nil }
    let at = frame.map { " at #\($0)" } ?? ""
    return (
      message + " The NFC counter is password protected (CFG1 ACCESS \(Hex.string([access])) read"
        + "\(at): NFC_CNT_PWD_PROT set) and no PWD_AUTH was accepted in this activation. This "
        + "is not a radio problem.",
      "Send PWD_AUTH (sendMiFareCommand, 1B + password) before READ_CNT in the same "
        + "connection, or clear NFC_CNT_PWD_PROT on the tag."
    )
  }

  /// Why password protection cannot explain the refused read `cmd`, when the trace shows it:
  /// PROT 0 (only writes protected), every page read before AUTH0, or a PWD_AUTH accepted in
  /// this activation (NTAG213/215/216 datasheet §8.8). Nil when it may.
  private static func readsFree(_ c: DiagnosisContext, _ cmd: SessionCommandLog.Command)
    -> String?
  {
    let g = Type2Geometry(c.session)
    guard let page = cmd.page ?? cmd.startPage else { return nil }
    if let prot = g.prot, !prot.value {
      return "PROT is 0 (CFG1 read" + (prot.frame.map { " at #\($0)" } ?? "")
        + "): reads are free, only writes need the password"
    }
    if let a = g.auth0(at: cmd.frame, writes: c.log.commands), (cmd.endPage ?? page) < a.value {
      return "AUTH0 is \(Type2Geometry.page(a.value))"
        + (a.frame.map { " (read at #\($0))" } ?? "") + ", after the pages read"
    }
    if let pack = c.authentication(before: cmd.frame) {
      return "the tag accepted PWD_AUTH in this activation (PACK at #\(pack))"
    }
    return nil
  }

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in finding(c, i) }
  }

  /// A read the tag did not answer right after it refused a command (NAK) with no
  /// reactivation between: NXP Type 2 tags are reported to go back to IDLE after a NAK and to
  /// ignore commands until activated again (nfc-facts §4.2 marks it unverified in the
  /// datasheets; nfcpy re-activates after every NAK for that reason). The usual NAK is the
  /// stack's GET_VERSION probe on a tag that lacks it. When a
  /// later activation read the tag, the stack recovered (as nfcpy and Android do): a note.
  private static func idleAfterNAK(
    _ c: DiagnosisContext, _ i: Int, nak: SessionCommandLog.Command, frames: [Int]
  ) -> DiagnosisFinding {
    let op = c.session.operations[i]
    let read = op.kind == .queryNDEFStatus || op.kind == .readNDEF
    // Recovered: a later read (for a read), or any later command (for a raw one) went through.
    let recovered = c.session.operations[(i + 1)...].contains {
      (read ? $0.kind == .queryNDEFStatus || $0.kind == .readNDEF : $0.kind != .connect)
        && $0.outcome == .ok
    }
    let silent = op.unansweredFrames.first.map { "the command at #\($0)" } ?? "the read"
    let message =
      "The tag did not answer \(silent) right after it refused "
      + "\(nak.summary) (NAK at #\(nak.answerFrame ?? nak.frame)), with no reactivation in "
      + "between. NXP Type 2 tags are reported to leave the ACTIVE state after a NAK and to "
      + "ignore commands until the reader activates them again (WUPA, anticollision, SELECT; "
      + "nfcpy re-activates after every NAK): the silence is most likely the NAK's doing, not "
      + "the phone moving away."
      + (recovered
        ? " The reader activated the tag again and \(read ? "read it" : "went on"): the stack "
          + "recovered."
        : "")
    return DiagnosisFinding(
      code: read ? "read-interrupted" : "command-interrupted",
      severity: recovered ? .info : read ? .error : .warning, operation: i,
      frames: [nak.frame] + (nak.answerFrame.map { [$0] } ?? []) + frames,
      cause: "the tag went idle after it refused \(nak.summary) (NAK), and did not answer "
        + "\(op.kind.rawValue) without a reactivation",
      message: message, coreNFCError: recovered ? nil : .tagConnectionLost,
      fix: recovered
        ? "Nothing to fix: the reader re-activated the tag after the NAK, as it must."
        : "After any NAK, activate the tag again before the next command (a stack of your own: "
          + "WUPA, anticollision, SELECT; Core NFC: session.restartPolling() or connect(to:) "
          + "again), then \(read ? "read" : "send the next command").")
  }

  /// A read or raw command left unanswered after the reader's own HLTA, or an S(DESELECT) the
  /// tag answered, with no WUPA since: a halted tag ignores everything but WUPA (ISO/IEC
  /// 14443-3 §6.3, HALT state), so the silence is the reader's doing, not the tag leaving.
  private static func haltedTag(
    _ c: DiagnosisContext, _ i: Int, halt: SessionCommandLog.Halt
  ) -> DiagnosisFinding {
    let op = c.session.operations[i]
    let read = op.kind == .queryNDEFStatus || op.kind == .readNDEF
    let silent = op.unansweredFrames.first.map { "the command at #\($0)" } ?? "the command"
    return DiagnosisFinding(
      code: read ? "read-interrupted" : "command-interrupted",
      severity: read ? .error : .warning, operation: i,
      frames: [halt.frame] + op.unansweredFrames,
      cause: "the reader halted the tag (\(halt.name) at #\(halt.frame)) and sent "
        + "\(op.kind.rawValue)'s commands without waking it",
      message: "The reader sent \(halt.name) (#\(halt.frame)) and then \(silent) with no "
        + "\(halt.wakeCommand) in between. A halted tag ignores every command but "
        + "\(halt.wakeCommand) (ISO/IEC 14443-3 \(halt.isTypeB ? "§7.12" : "§6.3"): HALT state), "
        + "so the silence is the reader's doing, not the tag leaving the field.",
      coreNFCError: .tagConnectionLost, fix: halt.restartFix)
  }

  private static func finding(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    let interrupted = op.outcome == .interrupted
    guard interrupted || op.outcome == .failed else { return nil }
    // The refused commands belong to the evidence with their refusals: the NAK alone does not
    // say what was refused.
    let logged = c.commands(in: i)
    let requests = op.failedFrames.compactMap { f in logged.first { $0.answerFrame == f }?.frame }
    let frames = Array(Set(requests + op.failedFrames)).sorted() + op.unansweredFrames
    let reason = op.reason ?? op.outcome.rawValue
    func make(_ code: String, _ sev: Severity, _ e: CoreNFCError?, _ fix: String)
      -> DiagnosisFinding
    {
      DiagnosisFinding(
        code: code, severity: sev, operation: i, frames: frames.isEmpty ? [op.firstFrame] : frames,
        cause: "\(op.kind.rawValue) \(op.outcome.rawValue): \(reason)",
        message:
          "The \(op.kind.rawValue) operation \(interrupted ? "was cut off" : "failed"): \(reason).",
        coreNFCError: e, fix: fix)
    }
    let still = RFRule.holdStill
    switch op.kind {
    case .writeNDEF, .writeLock:
      return interrupted
        ? nil
        : make(
          "write-failed", .error, .tagUpdateFailure,
          "Check queryNDEFStatus before writing and retry with the tag held still.")
    case .readNDEF, .queryNDEFStatus:
      // The reader's own halt explains the silence before any presence-check reading does.
      if interrupted, let halt = op.unansweredFrames.first.flatMap(c.log.haltBefore(silence:)) {
        return haltedTag(c, i, halt: halt)
      }
      if interrupted, presenceCheck(c, i) {
        return make("read-interrupted", .info, nil, presenceFix)
      }
      if interrupted, let nak = op.unansweredFrames.first.flatMap(c.log.nakBefore(silence:)) {
        return idleAfterNAK(c, i, nak: nak, frames: frames)
      }
      if !interrupted, let refusal = readRefusal(c, op) {
        var f = make("read-failed", .error, .tagResponseError, refusal.fix)
        f.message = refusal.message
        return f
      }
      if !interrupted, c.session.tag.technology == .nfcV, let t5 = type5ReadRefusal(c, op) {
        var f = make("read-failed", .error, .tagResponseError, t5.fix)
        f.message = t5.message
        return f
      }
      if !interrupted, c.session.tag.technology == .nfcF, let t3 = type3ReadFailure(op) {
        var f = make("read-failed", .error, t3.error, t3.fix)
        f.message = t3.message
        return f
      }
      return interrupted
        ? make("read-interrupted", .error, .tagConnectionLost, still)
        : make("read-failed", .error, .tagResponseError, still)
    case .transceive:
      if reason.contains("has no GET_VERSION") {
        return make(
          "probe-not-answered", .info, nil,
          "Nothing to fix: readers send GET_VERSION to identify the tag; this one lacks it.")
      }
      if reason.contains("a Type 2 tag goes idle on a command it does not know") {
        // The app's own command (sendMiFareCommand) gets no answer; the tag went idle, it did
        // not leave (`Type2Procedure.unsupported`).
        return make(
          "command-unsupported", .info, .tagResponseError,
          "Send NTAG21x / Ultralight EV1 commands (READ_SIG, FAST_READ, READ_CNT, PWD_AUTH) only "
            + "to a tag that answered GET_VERSION; after a silence, activate the tag again "
            + "before the next command (Core NFC: restartPolling() or connect(to:) again).")
      }
      if interrupted {
        if c.session.tag.sawMIFAREClassicAuth || !(c.session.tag.isType2 || c.session.tag.isISODEP)
        {
          // MIFARE Classic (Core NFC does not expose it; its last encrypted frame may be an
          // HLTA, which has no answer) and other undecoded tags: no Core NFC error to give.
          return make(
            "command-interrupted", .info, nil,
            "Nothing Core NFC reports here; if the reader expected an answer, hold the tag "
              + "still and retry.")
        }
        if let halt = op.unansweredFrames.first.flatMap(c.log.haltBefore(silence:)) {
          return haltedTag(c, i, halt: halt)
        }
        if presenceCheck(c, i) { return make("command-interrupted", .info, nil, presenceFix) }
        if c.session.tag.isType2,
          let nak = op.unansweredFrames.first.flatMap(c.log.nakBefore(silence:))
        {
          return idleAfterNAK(c, i, nak: nak, frames: frames)
        }
        return make("command-interrupted", .warning, .tagConnectionLost, still)
      }
      // An answer of the wrong form (a READ answer of 15 bytes) is no refusal: the tag is
      // not the product the command was meant for, or the frame was damaged or cut. Not an
      // empty answer (a 4-bit NAK the source dropped), not an ISO-DEP R(ACK) to an unchained
      // block (a protocol error the stack reports), not MIFARE Classic (no Core NFC API).
      if reason.contains(" not understood: "), !reason.contains(" has 0 byte(s)"),
        !reason.contains("acknowledges only a chained block"),
        !c.session.tag.sawMIFAREClassicAuth, !c.session.tag.isMIFAREClassic
      {
        var f = make(
          "answer-not-understood", .info, nil,
          "Check that the tag is the product the command is meant for (GET_VERSION, or the "
            + "datasheet of the tag in hand) and, if the sniffer may have cut or damaged the "
            + "frame, capture again. sendMiFareCommand hands the app these bytes as they came, "
            + "without an error: check the answer's length before using it.")
        f.cause = "the tag's answer does not have the form the command expects"
        return f
      }
      if let refusal = readRefusal(c, op) ?? counterRefusal(c, op) {
        var f = make("command-refused", .info, .tagResponseError, refusal.fix)
        f.message = refusal.message
        return f
      }
      // Core NFC cannot send MIFARE Classic commands (nfc-facts §8.3): no Core NFC error.
      return make(
        "command-refused", .info, c.session.tag.isMIFAREClassic ? nil : .tagResponseError,
        "Check the command against the tag's datasheet; a refusal is an answer, not a radio problem."
      )
    case .authenticate:
      if let first = op.failedFrames.first,
        let cmd = c.log.commands.first(where: { $0.answerFrame == first }),
        cmd.name == "PWD_AUTH", cmd.answer == .nak(4)
      {
        // NAK 4 to PWD_AUTH: a wrong password or AUTHLIM reached, as ACCESS tells
        // (Type2AuthLimit; nfc-facts §4.2, §10).
        let limit = Type2AuthLimit.at(cmd, c, Type2Geometry(c.session))
        var f = make(
          "authentication-failed", limit.wrongPassword ? .warning : .error, .tagResponseError,
          limit.fix(then: "read or write the protected pages"))
        f.frames += limit.frames
        f.cause =
          limit.wrongPassword
          ? "the tag refused the password sent (\(Type2AuthLimit.label) on PWD_AUTH)"
          : "the tag refused PWD_AUTH with \(Type2AuthLimit.label): " + limit.likelyCause
        f.message =
          "The tag answered PWD_AUTH with \(Type2AuthLimit.label). \(Type2AuthLimit.disputed) "
          + limit.reason + " This is not a radio problem."
        return f
      }
      // {nr}{ar} unanswered and nothing but a new activation after it: the tag rejected the
      // key (it stays silent and idle); encrypted answers after it would show it accepted.
      if op.detail("classic_auth_unanswered") != nil,
        i + 1 == c.session.operations.count || c.session.operations[i + 1].kind == .connect
      {
        var f = make("authentication-failed", .warning, nil, classicAuthFix)
        f.cause =
          "the tag did not answer the reader's nonce and answer {nr}{ar}: most likely it "
          + "rejected the key"
        f.message =
          "The tag answered the AUTH with its nonce nt, then left the reader's {nr}{ar} "
          + "unanswered and nothing encrypted followed: a MIFARE Classic tag stays silent and "
          + "goes idle when the reader's answer does not match its key (the wrong key A/B for "
          + "the sector), as it does when taken away — within a millisecond of answering, the "
          + "wrong key is the likelier."
        return f
      }
      if reason.contains("not a MIFARE Ultralight C") {
        return make(
          "probe-not-answered", .info, nil,
          "Nothing to fix: readers send this to tell Ultralight C apart from other tags.")
      }
      // A refused MIFARE Classic AUTH (NAK, or the reader chip's authentication error): Core
      // NFC has no MIFARE Classic API (nfc-facts §8.3), so no Core NFC error, and no PWD_AUTH.
      if c.session.tag.sawMIFAREClassicAuth {
        return make("authentication-failed", .warning, nil, classicAuthFix)
      }
      // The 3DES (MIFARE Ultralight C) or AES AUTHENTICATE (1Ah, AF …): a key, no password.
      if let first = op.failedFrames.first,
        let cmd = c.log.commands.first(where: { $0.answerFrame == first }),
        cmd.name == "AUTHENTICATE"
      {
        // Refused at once: no key was tried yet.
        if !cmd.summary.hasPrefix("AUTHENTICATE part 2") {
          return make(
            "authentication-failed", .warning, .tagResponseError,
            "The tag refused AUTHENTICATE's first step (1A + key number) before any key was "
              + "tried: it is no MIFARE Ultralight C (or not in a state to authenticate), or the "
              + "key number is not one it has. Check the product (a GET_VERSION answer means an "
              + "NTAG / Ultralight EV1, which authenticates with PWD_AUTH instead), activate "
              + "the tag again (restartPolling() or connect(to:)) and retry.")
        }
        return make(
          "authentication-failed", .warning, .tagResponseError,
          "Check the key and its byte order: a NAK to the second step means ek(RndA ‖ RndB') "
            + "did not decrypt with the tag's key (MIFARE Ultralight C: the 16-byte 3DES key of "
            + "pages 2Ch–2Fh, each 8-byte half written with its bytes reversed, MF0ICU2 "
            + "datasheet §7.5.7). The "
            + "tag is idle after the refusal: call restartPolling() (or connect(to:)) and send "
            + "AUTHENTICATE (sendMiFareCommand, 1A 00) again from the first step.")
      }
      return make(
        "authentication-failed", .warning, .tagResponseError,
        "Check the password; a tag that refused PWD_AUTH ignores commands until it is "
          + "activated again: call restartPolling() (or connect(to:)) before sending PWD_AUTH "
          + "(sendMiFareCommand, 1B + password) again.")
    case .connect:
      var f = make("connect-failed", .info, nil, still)
      if reason.contains("named a PUPI no ATQB gave") {
        f.fix =
          "The reader's ATTRIB must carry the PUPI of the tag's ATQB (bytes 2–5 of the ATQB); "
          + "a phone's NFC stack does this itself, so this is a reader or sniffer-side script "
          + "to correct, not the tag's position."
        return f
      }
      // After the reader's own HLTA the tag ignores REQA and anticollision (ISO/IEC 14443-3
      // §6.3, HALT state): the silence is the reader's doing, not the field's.
      if let silent = op.unansweredFrames.first, let halt = c.log.haltBefore(silence: silent) {
        f.frames = [halt.frame] + op.unansweredFrames
        f.cause =
          "connect failed: the reader halted the tag (\(halt.name) at #\(halt.frame)) and did "
          + "not wake it"
        f.message =
          "The reader sent \(halt.name) (#\(halt.frame)), then activated again without WUPA: a "
          + "halted tag ignores REQA and anticollision (ISO/IEC 14443-3 §6.3, HALT state) and "
          + "answers only WUPA, so nothing answered. The tag did not leave the field."
        f.fix =
          "Wake a halted tag with WUPA (52), not REQA (26)"
          + (halt.isDeselect
            ? "; Core NFC's own reconnect (session.restartPolling() or connect(to:)) does."
            : "; in Core NFC do not send HLTA yourself — reconnect with "
              + "session.restartPolling() or connect(to:).")
      }
      return f
    }
  }
}

extension OperationFallbackRule {
  /// The fix for a MIFARE Classic authentication the tag rejected or refused (NXP MF1S50yyX
  /// datasheet §10.3: a wrong key leaves the tag silent and idle; a NAK refuses the AUTH, e.g.
  /// of a block the tag does not have). Core NFC cannot send it, so it names no iOS call.
  static let classicAuthFix =
    "Authenticate with the sector's right key (key A or B, as the sector trailer's access "
    + "bits allow; Android: MifareClassic.authenticateSectorWithKeyA/B returns false) and a "
    + "block the tag has (a 1K: 0–63). After a rejected authentication the tag is idle: "
    + "activate it again (REQA/WUPA, anticollision, SELECT) before the next AUTH."
}

extension SessionCommandLog.Halt {
  /// The fix for commands sent to a tag this halt left halted.
  var restartFix: String {
    (isDeselect
      ? "After S(DESELECT) the tag is halted; before the next command, reconnect"
      : isTypeB
        ? "Do not send HLTB (50 + PUPI) in the middle of a session: to start over, reconnect"
        : "Do not send HLTA (50 00) in the middle of a session (an app's own sendMiFareCommand): "
          + "to start over, reconnect")
      + " — session.restartPolling() or connect(to:) — whose activation ("
      + (isTypeB ? "WUPB, ATTRIB" : "WUPA, anticollision, SELECT") + ") wakes the tag."
  }
}
