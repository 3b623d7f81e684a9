/// Rule: a Type 4 tag refused an APDU of the NDEF procedures with an error status word, or
/// the reader sent more data than the CC allows.
///
/// Evidence, per refused APDU in the command log (status words: ISO/IEC 7816-4 §5.6,
/// nfc-facts §3.4; CC: NFC Forum T4T, §6.1):
/// - 6700 on UPDATE BINARY whose command APDU is case 4 (an Le byte after the data; UPDATE
///   BINARY is case 3) → `t4t-update-with-le`; 6700 with Lc > MLc → `t4t-lc-exceeds-mlc`;
///   6700 on READ BINARY with Le > MLe → `t4t-le-exceeds-mle`; other 6700 → `t4t-wrong-length`.
/// - 6982 to an UPDATE BINARY after a VERIFY the tag refused (63Cx wrong password, x tries
///   left; 6300; 6983 blocked; ISO/IEC 7816-4 §11.5.6) with no accepted VERIFY since →
///   `t4t-write-password-wrong`, no Core NFC error (writeNDEF sends no VERIFY: both were the
///   app's own sendCommand(apdu:)).
/// - 6982 → `t4t-security-not-satisfied` (with the CC's write access when read); to a READ
///   BINARY of a file other than the CC and the NDEF file (a proprietary file the CC's TLV 05h
///   lists, T4T 2.0 §5.1.2) → `t4t-proprietary-file-protected` (info: the app's own read).
/// - 6A82 on SELECT of the CC or NDEF file → `t4t-file-not-found` (SELECT of the NDEF
///   application failing is "not NDEF formatted", see `NDEFPreconditionRule`).
/// - 6A86 / 6B00 on READ/UPDATE BINARY → `t4t-offset-out-of-range` (P1P2 is the offset; a READ
///   of the CC within its 15 bytes or CCLEN blames the tag); on SELECT → `t4t-error-status`
///   (the tag refuses that selection control).
/// - 6581 → `t4t-memory-failure`.
/// - 6A84 (or 6A86 / 6B00) on an UPDATE BINARY ending past the CC's NDEF file size →
///   `t4t-write-past-file`,
///   without a Core NFC error (writeNDEF would have stopped at 402 before sending it).
/// - other error SWs in the NDEF procedures → `t4t-error-status`; APDUs outside the NDEF
///   procedures (an app's own sendCommand(apdu:)) → `apdu-refused` (info); none for the
///   stack's discovery probe inside connect (nfc-facts §8.4).
/// - 61xx to a command of the NDEF procedures → `t4t-get-response` (warning): ISO/IEC 7816-4
///   §5.6 has the data fetched with GET RESPONSE, but T4T 2.0 §5.4 expects 9000 with it, and a
///   reader that follows T4T alone does not fetch it.
/// - An UPDATE BINARY with Lc > MLc (a READ BINARY with Le > MLe) that the tag accepted →
///   `t4t-lc-exceeds-mlc` (`t4t-le-exceeds-mle`) (warning);
///   unanswered → error (nfcpy#204: too large Lc makes tags time out).
/// Core NFC: writeNDEF/writeLock → 401 (400 when the CC already said read-only); reads → 102;
/// sendCommand(apdu:) gets SW1 SW2 in its completion handler and no NFCReaderError (nil).
enum Type4StatusRule: DiagnosisRule {
  static let codes = [
    "t4t-update-with-le", "t4t-lc-exceeds-mlc", "t4t-le-exceeds-mle", "t4t-wrong-length",
    "t4t-security-not-satisfied",
    "t4t-file-not-found", "t4t-application-not-found", "t4t-offset-out-of-range",
    "t4t-sfi-not-supported", "t4t-ins-not-supported",
    "t4t-memory-failure", "t4t-error-status", "t4t-get-response", "t4t-write-past-file",
    "t4t-proprietary-file-protected", "t4t-write-password-wrong", "apdu-refused",
  ]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var out: [DiagnosisFinding] = []
    for cmd in c.log.commands where cmd.ins != nil {
      if case .sw(let sw) = cmd.answer, cmd.refused {
        if cmd.name == "SELECT NDEF application" {
          // A tag without NDEF is not-ndef-formatted's; one that served it before dropped it.
          if let f = applicationDropped(cmd, sw: sw, c) { out.append(f) }
          continue
        }
        let op = c.operation(at: cmd.frame)
        // An APDU inside connect is the stack's tag discovery (its GetVersion probe,
        // nfc-facts §8.4), no app's call: no one is handed its status word.
        if let op, c.session.operations[op].kind == .connect { continue }
        // The reader's repeat made up for it (Type4Procedure): 6Cxx is ISO/IEC 7816-4's way
        // of giving the right Le, nothing to report; a 6581 the repeat got past is a warning.
        if let op, c.session.operations[op].outcome == .ok {
          if sw.lowercased().hasPrefix("6c") { continue }
          if sw == "6581" || (sw == "6700" && cmd.ins == 0xB0) {
            var f = refusal(cmd, sw: sw, c)
            f.severity = .warning
            f.coreNFCError = nil
            f.cause += ", and the command sent again was accepted"
            f.message +=
              sw == "6581"
              ? " The reader sent the same command again and the tag accepted it (9000), so the data is written."
              : " The reader read again with another Le and the tag answered, so the read went on."
            out.append(f)
            continue
          }
        }
        out.append(refusal(cmd, sw: sw, c))
      } else if case .sw(let sw) = cmd.answer, sw.hasPrefix("61"), cmd.isType4,
        Type4Procedure.isNDEFProcedure(cmd.name)
      {
        out.append(getResponse(cmd, sw: sw, c))
      } else if let f = oversized(cmd, c) {
        out.append(f)
      }
    }
    return out
  }

  /// 6982 to an UPDATE of a file other than the CC and the NDEF file (a proprietary file such
  /// as ST25TA's system file or NTAG 424 DNA's E105): the app's own write, judged by the
  /// access its Proprietary File Control TLV (05h, T4T 2.0 §5.1.2) gives, not the NDEF file's.
  private static func otherFileRefused(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let id = cmd.fileID ?? 0
    let name = Hex.string([UInt8(id >> 8), UInt8(id & 0xFF)])
    let ndef =
      c.session.type4CC.map { f in
        " (the NDEF file is "
          + Hex.string([UInt8(f.ndefFile.fileID >> 8), UInt8(f.ndefFile.fileID & 0xFF)]) + ")"
      } ?? ""
    var m =
      "The tag answered 6982 (security status not satisfied) to \(cmd.summary): file "
      + "\(name) is not the NDEF file\(ndef). "
    let control = c.session.type4CC?.proprietaryFiles.first { $0.fileID == id }
    switch control?.writeAccess {
    case 0x00?:
      m +=
        "The CC lists it as a proprietary file with write access 00 (granted): the tag "
        + "protects it beyond what the CC says (a password or key in its own file settings). "
    case let w? where w == 0xFF:
      m +=
        "The CC lists it as a proprietary file with write access FF (none): it is "
        + "read-only, so the refusal is the expected answer. "
    case let w?:
      m +=
        "The CC lists it as a proprietary file with write access \(Hex.string([w]).uppercased()) "
        + "(\(CapabilityContainer4.accessMeaning(w))): the tag asks for its vendor's condition "
        + "first. "
    case nil:
      m += "The CC read in this session lists no such file. "
    }
    m +=
      "writeNDEF and queryNDEFStatus never use this file: the app sent the UPDATE itself "
      + "(sendCommand(apdu:) gets the status word, no NFCReaderError), and the NDEF file's "
      + "access is not what was refused."
    return (
      "t4t-security-not-satisfied", "the tag refused a write of file \(name), not the NDEF file",
      m,
      "To write file \(name), meet the vendor's access condition first through "
        + "sendCommand(apdu:) (ST25TA: VERIFY with the file's write password, 00 20 00 0x 10 …; "
        + "NTAG 424 DNA: AuthenticateEV2First with the file's key, then WriteData 90 8D). An NDEF "
        + "message belongs in the NDEF file: write it with writeNDEF."
    )
  }

  /// Whether `cmd` is a READ BINARY of a file other than the NDEF file the CC read in the
  /// session names (a proprietary file such as NTAG 424 DNA's E105, listed in the CC's
  /// Proprietary File Control TLV 05h, T4T 2.0 §5.1.2): the app's own read, not NDEF's.
  private static func protectedFileRead(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> Bool
  {
    guard cmd.ins == 0xB0, let id = cmd.fileID, let cc = c.session.type4CC else { return false }
    return id != cc.ndefFile.fileID && id != 0xE103
  }

  /// 6982 to a READ BINARY of a file other than the NDEF file and the CC (`protectedFileRead`):
  /// the file's own read condition, which its Proprietary File Control TLV announces (80h–FEh
  /// proprietary, FFh none: the refusal is expected), not the NDEF file's. An info note
  /// (`t4t-proprietary-file-protected`): readNDEF never reads this file, the app's
  /// sendCommand(apdu:) gets the status word and no NFCReaderError.
  private static func otherFileReadRefused(
    _ cmd: SessionCommandLog.Command, _ c: DiagnosisContext
  ) -> (code: String, cause: String, message: String, fix: String) {
    let id = cmd.fileID ?? 0
    let name = Hex.word(id)
    let ndef = c.session.type4CC.map { " (the NDEF file is \(Hex.word($0.ndefFile.fileID)))" } ?? ""
    var m =
      "The tag answered 6982 (security status not satisfied) to \(cmd.summary): file \(name) "
      + "is not the NDEF file\(ndef). "
    let control = c.session.type4CC?.proprietaryFiles.first { $0.fileID == id }
    let cause: String
    switch control?.readAccess {
    case 0x00?:
      cause = "the tag protects file \(name) although its CC grants read access"
      m +=
        "The CC lists it as a proprietary file with read access 00 (granted): the tag protects "
        + "it beyond what the CC says (a key in its own file settings). "
    case let r?:
      cause = "file \(name) is protected, as the CC announces"
      m +=
        "The CC lists it as a proprietary file with read access \(Hex.string([r]).uppercased()) "
        + "(\(CapabilityContainer4.accessMeaning(r))): the tag asks for its vendor's condition "
        + "first, so the refusal is the expected answer. "
    case nil:
      cause = "file \(name), not the NDEF file, is protected"
      m += "The CC read in this session lists no such file. "
    }
    m +=
      "readNDEF and queryNDEFStatus never read this file: the app sent the READ itself "
      + "(sendCommand(apdu:) gets the status word, no NFCReaderError), and the NDEF file's "
      + "access is not what was refused."
    return (
      "t4t-proprietary-file-protected", cause, m,
      "To read file \(name), meet the vendor's access condition first through "
        + "sendCommand(apdu:) (NTAG 424 DNA: AuthenticateEV2First with the file's read key, then "
        + "ReadData 90 AD in the file's communication mode); the NDEF message is in the NDEF "
        + "file: read it with readNDEF."
    )
  }

  /// Refusals that show the APDU was the app's own: past the NDEF file or above MLc / MLe.
  /// writeNDEF and readNDEF stay within the CC's limits (402 before sending), and
  /// sendCommand(apdu:) returns the status word without an NFCReaderError.
  static let ownAPDUCodes: Set<String> = [
    "t4t-write-past-file", "t4t-lc-exceeds-mlc", "t4t-le-exceeds-mle", "t4t-write-password-wrong",
  ]

  /// Whether operation `i` was refused by such an APDU (its Core NFC error is none).
  static func refusedAsOwnAPDU(_ c: DiagnosisContext, _ i: Int) -> Bool {
    c.commands(in: i).contains { cmd in
      guard cmd.refused, cmd.ins != nil, case .sw(let sw) = cmd.answer else { return false }
      return ownAPDUCodes.contains(explain(cmd, sw: sw, c).code)
    }
  }

  /// The NDEF application's SELECT refused after the tag had accepted it and its detection
  /// found NDEF in this session: the tag (or HCE service) dropped an application it has.
  private static func applicationDropped(
    _ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext
  ) -> DiagnosisFinding? {
    // The same AID accepted before (a T4T 1.0 probe after the 2.0 application is another).
    guard
      let earlier = c.log.selections.last(where: { $0.frame < cmd.frame && $0.data == cmd.data })?
        .frame,
      let status = c.session.ndefStatus?.status, status == .readWrite || status == .readOnly
    else { return nil }
    let op = c.operation(at: cmd.frame)
    return DiagnosisFinding(
      code: "t4t-application-not-found", severity: .error, operation: op,
      frames: [earlier, cmd.frame] + [cmd.answerFrame].compactMap { $0 },
      cause: "the tag refused the NDEF application it had served (SW \(sw))",
      message: "The tag accepted the SELECT of the NDEF application (D2760000850101) at #"
        + "\(earlier) and served its files, then answered SW \(sw) to the same SELECT at "
        + "#\(cmd.frame): it dropped an application it has. The tag is not unformatted; it (or "
        + "the HCE service emulating it: an app whose service stopped, or another service "
        + "taking the AID) failed in the middle of the session.",
      coreNFCError: error(c, op, sw: sw) ?? .tagResponseError,
      fix: "Nothing in the reader app makes up for it: check the tag (or the HCE service — that "
        + "it stays registered for the AID and answers every SELECT), then tap again; "
        + "restartPolling() and a new queryNDEFStatus show whether it is back.")
  }

  private static func getResponse(
    _ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext
  ) -> DiagnosisFinding {
    DiagnosisFinding(
      code: "t4t-get-response", severity: .warning, operation: c.operation(at: cmd.frame),
      frames: [cmd.frame] + [cmd.answerFrame].compactMap { $0 },
      cause: "the tag answered SW \(sw) (data waiting for GET RESPONSE) to \(cmd.summary)",
      message: "SW \(sw) means the command succeeded and the tag holds the answer's data for a "
        + "GET RESPONSE (ISO/IEC 7816-4). The NFC Forum Type 4 Tag procedures expect 9000 with "
        + "the data in the answer itself; a reader that follows them alone does not send GET "
        + "RESPONSE and fails here, so the tag reads on some phones and not on others.",
      coreNFCError: nil,
      fix: "Configure the tag (or the HCE service / applet) to answer the NDEF commands with "
        + "their data and 9000. An app reading it with sendCommand(apdu:) must send GET "
        + "RESPONSE (00 C0 00 00 xx) itself.")
  }

  private static func error(_ c: DiagnosisContext, _ op: Int?, sw: String) -> CoreNFCError? {
    guard let op, c.session.operations.indices.contains(op) else { return nil }
    switch c.session.operations[op].kind {
    case .writeNDEF, .writeLock:
      return sw == "6982" && c.session.ndefStatus?.status == .readOnly
        ? .tagNotWritable : .tagUpdateFailure
    case .transceive, .authenticate: return nil
    default: return .tagResponseError
    }
  }

  private static func refusal(_ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext)
    -> DiagnosisFinding
  {
    let op = c.operation(at: cmd.frame)
    let frames = [cmd.frame] + [cmd.answerFrame].compactMap { $0 }
    let x = explain(cmd, sw: sw, c)
    let ndef = cmd.isType4
    // The CC's SELECT after the NDEF application was refused: the expected end of the query
    // on a tag that is not NDEF (queryNDEFStatus returns notSupported, no error).
    // A refusal the reader got past (a later SELECT of the same file worked) is a warning;
    // one expected on the way (no NDEF application selected yet) an info; neither raised
    // the error in this trace.
    // A protected proprietary file's refused read is an info note (the app's own read).
    let soft: Severity? =
      x.cause == noApplication || x.code == "t4t-proprietary-file-protected"
      ? .info : x.cause.hasPrefix(formRefused) ? .warning : nil
    // Past the file, only a writer other than writeNDEF sends it (writeNDEF stops at 402).
    // A query whose NDEF detection stopped at this refusal returned notSupported, no error.
    let detectionStop =
      op.map {
        c.session.operations[$0].detail("ndef_detection_failed") == .int(cmd.answerFrame ?? -1)
      }
      ?? false
    // A SELECT refused inside an operation that still ended ok: the reader selected the same
    // file in another form and the tag accepted it (Type4Procedure recovers the operation).
    let passed =
      cmd.ins == 0xA4 && !detectionStop && soft == nil
      && op.map { c.session.operations[$0].outcome == .ok } ?? false
    let raised = soft == nil && !passed && !ownAPDUCodes.contains(x.code) && !detectionStop
    var message = x.message
    if passed {
      message += " Here the reader sent the SELECT again in another form and the tag accepted it."
    }
    var fix = x.fix
    if !ndef && x.code == "t4t-error-status" { (message, fix) = ownAPDURefused(cmd, sw: sw) }
    return DiagnosisFinding(
      code: ndef ? x.code : "apdu-refused",
      severity: ndef ? soft ?? (passed ? .warning : .error) : .info,
      operation: op, frames: frames, cause: "\(x.cause) (SW \(sw) to \(cmd.summary))",
      message: message, coreNFCError: raised ? error(c, op, sw: sw) : nil, fix: fix)
  }

  /// An APDU outside the NFC Forum NDEF procedures refused with a status word no rule
  /// explains: what the status word means (ISO/IEC 7816-4 §5.6) and where to look — the
  /// specification of the application the APDU addresses, not NFC Forum T4T.
  private static func ownAPDURefused(_ cmd: SessionCommandLog.Command, sw: String)
    -> (message: String, fix: String)
  {
    let value = UInt16(sw, radix: 16) ?? 0
    let word = StatusWord(UInt8(value >> 8), UInt8(value & 0xFF))
    let meaning = word.kind == .unknown ? "" : " (\(word.meaning))"
    return (
      "The tag answered \(sw)\(meaning) to \(cmd.summary), an APDU outside the NFC Forum NDEF "
        + "procedures (the app's own NFCISO7816Tag.sendCommand(apdu:), or a stack probing a "
        + "payment, transit or access application): Core NFC hands the status word to the app "
        + "and raises no NFCReaderError.",
      "Check the APDU against the specification of the application it addresses (ISO/IEC "
        + "7816-4 for the inter-industry commands, the issuer's or the scheme's — e.g. EMV — "
        + "for proprietary CLA 8x/9x ones); NDEF reading and writing are not involved."
    )
  }

  /// An UPDATE BINARY refused because it ends past the NDEF file the CC declares: 6A84, the
  /// offset (6A86/6B00; the chunk may start at or after the end too), or the length (6700)
  /// refused once a chunk starting inside the file reaches past its end.
  private static func writePastFile(
    _ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext
  ) -> (code: String, cause: String, message: String, fix: String) {
    // The message's size either way: writeNDEF writes inside the file only, so a write that
    // starts at or after its end is no more writeNDEF's than one that runs past it.
    let size = c.session.type4CC?.ndefFile.maxSize ?? 0
    let end = (cmd.offset ?? 0) + cmd.data.count
    let meaning: String
    switch sw {
    case "6A84": meaning = "not enough memory space in the file"
    case "6700": meaning = "wrong length: the data reaches past the file"
    default:
      meaning =
        oddINS(cmd)
        ? (sw == "6A86" ? "incorrect" : "wrong")
          + " parameters: D7's offset, in data object 54 (P1 P2 are 0000), lies past the file"
        : (sw == "6A86" ? "incorrect" : "wrong") + " P1 P2: an offset past the file"
    }
    return (
      "t4t-write-past-file", "the write runs past the end of the NDEF file",
      "The tag answered \(sw) (\(meaning)) to \(cmd.summary): the "
        + "write ends at byte \(end), and the CC gives the NDEF file \(size) bytes (NLEN "
        + "included). Core NFC's writeNDEF compares the message with queryNDEFStatus's capacity "
        + "and fails with 402 before sending anything, so this writer (the app's own "
        + "sendCommand(apdu:), which gets the status word and no NFCReaderError, or another "
        + "stack) wrote more than fits.",
      "Check the message's length against queryNDEFStatus's capacity before writing, or "
        + "write with writeNDEF(_:completionHandler:); use a tag with a larger NDEF file for "
        + "this message."
    )
  }

  /// 6982 to an UPDATE of the CC that sets no lock value: the app's write went to the CC.
  private static func ccUpdateRefused(_ cmd: SessionCommandLog.Command) -> (
    code: String, cause: String, message: String, fix: String
  ) {
    return (
      "t4t-security-not-satisfied", "the app's UPDATE BINARY went to the CC file",
      "The tag answered 6982 (security status not satisfied) to \(cmd.summary): the file "
        + "selected was the CC, for which NFC Forum T4T has no write procedure. The update does "
        + "not set the CC's write access byte to a lock value (FFh, 80h–FEh), so it is no lock: "
        + "most often an NLEN or message write sent without first selecting the NDEF file the "
        + "CC names.",
      "SELECT the NDEF file (00 A4 00 0C 02 + its file id from the CC) before UPDATE BINARY "
        + "in the app's sendCommand(apdu:) sequence, or write with "
        + "NFCNDEFTag.writeNDEF(_:completionHandler:), which selects it."
    )
  }

  /// Whether UPDATE CC `cmd` sets the NDEF file's write access byte to 00h (granted) on a tag
  /// whose CC denies writing.
  private static func grantsWriteAccess(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> Bool
  {
    // Only on a tag whose CC denies writing: on a writable one, 00 there changes nothing.
    guard let cc = c.session.type4CC, cc.ndefFile.writeAccess != 0, let offset = cmd.offset
    else { return false }
    let at = cc.writeAccessOffset
    guard offset <= at, at - offset < cmd.data.count else { return false }
    return cmd.data[at - offset] == 0
  }

  /// Whether an UPDATE BINARY ends past the NDEF file size the CC gives.
  private static func writesPastFile(
    _ cmd: SessionCommandLog.Command, _ c: DiagnosisContext, startingInside: Bool = false
  ) -> Bool {
    guard let size = c.session.type4CC?.ndefFile.maxSize, let offset = cmd.offset else {
      return false
    }
    return offset + cmd.data.count > size && (!startingInside || offset < size)
  }

  private static let noApplication = "no NDEF application was selected, so the file cannot be found"
  private static let formRefused = "the tag refused this form of SELECT of file"

  /// 6A82 to a SELECT of a file: the app's wrong file id, or a tag without the file its CC
  /// names (or without the CC file E103, which T4T fixes).
  private static func fileNotFound(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let selected = cmd.ins == 0xA4 && cmd.data.count == 2 ? Hex.string(cmd.data).uppercased() : nil
    let named = c.session.type4CC.map { Hex.word($0.ndefFile.fileID) }
    let tagFault =
      "The tag or the HCE service emulating it is misconfigured, not the reader: every NDEF "
      + "reader fails on it the same way."
    let tagFix =
      "Fix the tag (or the HCE service): give it the file its CC names, or a CC naming the "
      + "file it has. No app-side change can read or write NDEF on it."
    // Without a selected NDEF application (its SELECT was refused) the CC file cannot be
    // found: the tag is not NDEF (not-ndef-formatted says so), not misconfigured.
    let applicationSelected = c.log.applicationSelections.contains { $0 < cmd.frame }
    if selected != nil, !applicationSelected {
      let later = c.log.applicationSelections.contains { $0 > cmd.frame }
      return (
        "t4t-file-not-found", noApplication,
        later
          ? "The tag answered 6A82 (file not found) to \(cmd.summary), sent before the NDEF "
            + "application was selected: until it is, its files cannot be found. The reader "
            + "selected the application later."
          : "The tag answered 6A82 (file not found) to \(cmd.summary), after refusing the NDEF "
            + "application's SELECT: without that application there is no CC or NDEF file to "
            + "select. The tag is not NDEF formatted.",
        later
          ? "Nothing to fix on the tag; a reader should SELECT the NDEF application "
            + "(D2760000850101) first, as Core NFC does."
          : "Use NDEF-formatted tags; on this one, readNDEF and writeNDEF cannot work."
      )
    }
    // The same file read afterwards: it exists, the tag refused this form of SELECT.
    if let selected, let id = UInt16(selected, radix: 16),
      let file = c.session.memory.filesEnd[id],
      file.knownRun(from: 0).count > 0
        || (0..<file.count).contains(where: { file.state($0) != .unknown })
    {
      return (
        "t4t-file-not-found",
        "the tag refused this form of SELECT of file \(selected), which exists",
        "The tag answered 6A82 (file not found) to \(cmd.summary), yet the file was read in this "
          + "session: the tag (or HCE service) refuses this form of the SELECT (its P1/P2 or Le) "
          + "and accepts another. Readers that send only this form fail on it — the T4T "
          + "procedure selects files by id with P1 00, P2 0C, as Core NFC does.",
        "Make the tag (or the HCE service's processCommandApdu) accept SELECT by file id with "
          + "P2 0C and no Le, the form NFC Forum T4T 2.0 and iPhones use."
      )
    }
    if cmd.ins != 0xA4, let x = currentFileExplanation(cmd, c, tagFault: tagFault, sw: "6A82") {
      return x
    }
    // READ/UPDATE BINARY after the NDEF file was selected and read in this session: the file
    // was there; the tag dropped its current file, or (an HCE service) answers READ but not
    // UPDATE on it (ISO/IEC 7816-4: 6A82, file not found).
    if cmd.ins != 0xA4, readInThisActivation(cmd, c) {
      let fileID = c.session.type4NDEFFile ?? 0xE104
      let id = Hex.word(fileID)
      return (
        "t4t-file-not-found", "the tag lost the NDEF file \(id) it had selected and read",
        "The tag answered 6A82 (file not found) to \(cmd.summary), yet the reader had selected "
          + "the NDEF file \(id) and read it in this session: the tag lost its current file, or "
          + "(an HCE service) handles SELECT and READ BINARY but has no writable file behind "
          + "them. " + tagFault,
        "Fix the tag (or the HCE service's processCommandApdu: answer UPDATE BINARY on the "
          + "selected NDEF file). No app-side change helps; use another tag."
      )
    }
    if selected == "E103" {
      return (
        "t4t-file-not-found", "the tag has no CC file (E103)",
        "The tag answered 6A82 (file not found) to \(cmd.summary): its NDEF application has no "
          + "capability container file E103, which NFC Forum T4T requires at that id. " + tagFault,
        tagFix
      )
    }
    if let selected, selected == named {
      return (
        "t4t-file-not-found", "the tag has no NDEF file \(selected), which its CC names",
        "The tag answered 6A82 (file not found) to \(cmd.summary), the file id its own CC names "
          + "for the NDEF file. " + tagFault, tagFix
      )
    }
    return (
      "t4t-file-not-found", "the file does not exist on the tag",
      "The tag answered 6A82 (file not found) to \(cmd.summary). The file id must be the one "
        + "the CC names (\(named.map { "here \($0)" } ?? "usually E104") for the NDEF file, E103 "
        + "for the CC).",
      "Use NFCNDEFTag.readNDEF/writeNDEF, which take the file id from the CC; with "
        + "sendCommand(apdu:), SELECT the file id read from the CC."
    )
  }

  /// Whether the NDEF file was read (so selected) in the same activation as `cmd`, before it:
  /// bytes an earlier session left in the image, or a read before a reactivation, do not
  /// show the file selected when `cmd` came.
  /// 6A82 to READ/UPDATE BINARY, from the SELECTs the tag accepted since its last activation:
  /// none (a new activation forgets the selected application and file), only the
  /// application's (no file is current after it), or the file's — which the tag then does
  /// not serve — unless the file was also read since (`readInThisActivation` tells that case).
  /// 6986 (command not allowed: no current EF) gets the same explanation when no file was
  /// selected since the activation or the application's SELECT (`sw`: the status word).
  private static func currentFileExplanation(
    _ cmd: SessionCommandLog.Command, _ c: DiagnosisContext, tagFault: String, sw: String
  ) -> (code: String, cause: String, message: String, fix: String)? {
    guard let activation = c.log.activations.last(where: { $0 < cmd.frame }) else { return nil }
    let last = c.log.selections.last { $0.frame > activation && $0.frame < cmd.frame }
    let answered =
      sw == "6986" ? "6986 (command not allowed: no current EF)" : "6A82 (file not found)"
    let inWrite =
      c.operation(at: cmd.frame).map { c.session.operations[$0].kind == .writeNDEF } ?? false
    if last == nil, inWrite {
      return (
        "t4t-file-not-found", "writeNDEF wrote after the tag was activated again, with no SELECT",
        "The tag answered \(answered) to \(cmd.summary), writeNDEF's first step (the length "
          + "field set to 0, NFC Forum T4T §5.5), sent after the activation at #\(activation) "
          + "with no SELECT since. An earlier session selected the NDEF application and file; "
          + "the reader activated the tag again inside writeNDEF and wrote without selecting "
          + "them again, and a new activation forgets the selected application and file "
          + "(ISO/IEC 7816-4 §5.6: no current EF). Nothing was written: the tag keeps its old "
          + "message.",
        "Hold the tag still until writeNDEF's completion handler is called, so the reader does "
          + "not activate it again mid-call; on 401, call restartPolling(), connect(to:) and "
          + "queryNDEFStatus again (which SELECT the NDEF application and file), then writeNDEF. "
          + "If it repeats with the tag held still, the reader's stack loses the selection: "
          + "report it to the stack's vendor."
      )
    }
    guard let last else {
      return (
        "t4t-file-not-found", "no file was selected since the tag was activated again",
        "The tag answered \(answered) to \(cmd.summary), sent after the "
          + "activation at #\(activation) with no SELECT since: a new activation forgets the "
          + "selected application and file, so the command has no file to act on.",
        "After connecting again (connect(to:), restartPolling()), SELECT the NDEF application "
          + "(D2760000850101) and the NDEF file again before READ/UPDATE BINARY, or use "
          + "NFCNDEFTag.readNDEF/writeNDEF, which do."
      )
    }
    guard let file = last.file else {
      return (
        "t4t-file-not-found", "no file was selected after the application's SELECT",
        "The tag answered \(answered) to \(cmd.summary), sent after the SELECT of an "
          + "application or the master file (#\(last.frame)) with no file selected since: "
          + "selecting one leaves no current file (ISO/IEC 7816-4), so READ and UPDATE BINARY "
          + "have none to act on. The tag is right; the command order is the reader's.",
        "SELECT the file (the NDEF file's id from the CC, usually E104; E103 for the CC) after "
          + "the application and before READ/UPDATE BINARY, as NFC Forum T4T's procedure does, "
          + "or use NFCNDEFTag.readNDEF/writeNDEF, which do."
      )
    }
    if readInThisActivation(cmd, c) || sw == "6986" { return nil }
    let id = Hex.word(file)
    return (
      "t4t-file-not-found", "the tag selected file \(id) but cannot find it for \(cmd.name)",
      "The tag accepted the SELECT of file \(id) (#\(last.frame)) and then answered 6A82 (file "
        + "not found) to \(cmd.summary): it selects a file it does not serve (an HCE service "
        + "that answers SELECT but not READ/UPDATE BINARY, or a broken file system). " + tagFault,
      "Fix the tag (or the HCE service's processCommandApdu: serve READ and UPDATE BINARY on the "
        + "file it selects). No app-side change helps; use another tag."
    )
  }

  /// 6D00 (instruction not supported, ISO/IEC 7816-4 §5.6) to a command of the T4T NDEF
  /// procedure: the tag (or HCE service) lacks the instruction every NDEF reader sends.
  private static func insNotSupported(_ cmd: SessionCommandLog.Command)
    -> (code: String, cause: String, message: String, fix: String)
  {
    if cmd.ins == 0xB1 || cmd.ins == 0xD7 { return offsetDONotSupported(cmd) }
    let update = cmd.ins == 0xD6
    let instruction = update ? "UPDATE BINARY (D6)" : "READ BINARY (B0)"
    return (
      "t4t-ins-not-supported", "the tag does not implement \(instruction)",
      "The tag answered 6D00 (instruction not supported) to \(cmd.summary), a command of the "
        + "NFC Forum T4T NDEF procedure, which every NDEF reader sends the same way: the tag (or "
        + "the HCE service emulating it) does not implement \(instruction). "
        + (update
          ? "It cannot be written through NDEF: read-only in practice, whatever write access "
            + "its CC gives."
          : "Its NDEF cannot be read."),
      update
        ? "Treat the tag as read-only (or use one that implements UPDATE BINARY); an HCE "
          + "service must answer UPDATE BINARY on its NDEF file. Nothing in the reader app "
          + "makes up for it."
        : "Use a tag (or HCE service) that implements the T4T NDEF procedure; nothing in the "
          + "reader app makes up for it."
    )
  }

  /// 6D00 to READ/UPDATE BINARY with an offset data object (B1/D7, ISO/IEC 7816-4 §11.2),
  /// the form NFC Forum T4T 3.0 uses past offset 7FFFh of an extended NDEF file.
  private static func offsetDONotSupported(_ cmd: SessionCommandLog.Command)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let update = cmd.ins == 0xD7
    let instruction =
      update
      ? "UPDATE BINARY with an offset data object (D7)"
      : "READ BINARY with an offset data object (B1)"
    return (
      "t4t-ins-not-supported", "the tag does not implement \(instruction)",
      "The tag answered 6D00 (instruction not supported) to \(cmd.summary). NFC Forum T4T 3.0 "
        + "reaches offsets above 7FFFh (32767) of an extended NDEF file only with the odd "
        + "instructions B1/D7, whose offset travels in a data object: the tag (or the HCE "
        + "service emulating it) announces such a file in its CC but does not implement "
        + "\(instruction), so the file's bytes past 32 KiB cannot be "
        + (update ? "written." : "read."),
      update
        ? "Keep the NDEF message within the first 32 KiB of the file (NLEN/ENLEN and message "
          + "below offset 8000h), or use a tag that implements D7; an HCE service must answer "
          + "B1/D7 if its CC announces a file that large."
        : "Nothing in the reader app makes up for it: write a message that ends below offset "
          + "8000h, or use a tag that implements B1."
    )
  }

  private static func readInThisActivation(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> Bool
  {
    guard let file = c.session.memory.filesEnd[c.session.type4NDEFFile ?? 0xE104] else {
      return false
    }
    let since = max(
      c.session.memory.sessionFirstFrame,
      c.log.activations.last(where: { $0 < cmd.frame }) ?? Int.min)
    return (0..<file.count).contains { i in
      guard file.state(i) != .unknown, let f = file.frame(i) else { return false }
      return f >= since && f < cmd.frame
    }
  }

  private static func explain(_ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let mlc = c.session.type4CC?.mlc
    if sw.hasPrefix("91"), let x = desfireExplanation(cmd, sw: sw, c) { return x }
    if cmd.ins == 0x20, let x = verifyExplanation(cmd, sw: sw) { return x }
    if sw == "6982", cmd.ins == 0xD6 || cmd.ins == 0xD7, cmd.name != "UPDATE CC",
      let verify = refusedVerify(before: cmd, c)
    {
      return wrongPassword(cmd, verify)
    }
    // No current EF (ISO/IEC 7816-4 §5.6): as 6A82 when no file was selected since.
    if sw == "6986", [0xB0, 0xB1, 0xD6, 0xD7].contains(cmd.ins ?? 0),
      let x = currentFileExplanation(cmd, c, tagFault: "", sw: sw)
    {
      return x
    }
    switch sw {
    case "6700":
      if cmd.ins == 0xD6, cmd.apduCase == 4 {
        return (
          "t4t-update-with-le", "UPDATE BINARY was sent with an Le byte",
          "The tag answered 6700 (wrong length): the UPDATE BINARY carried an Le byte after its "
            + "data (a case 4 APDU). UPDATE BINARY returns no data, so it must be case 3 (no Le); "
            + "strict tags reject the extra byte.",
          "Build the APDU with NFCISO7816APDU(instructionClass:instructionCode:p1Parameter:"
            + "p2Parameter:data:expectedResponseLength:) and expectedResponseLength: -1 (no Le), "
            + "or use NFCNDEFTag.writeNDEF(_:completionHandler:)."
        )
      }
      if let lc = cmd.lc, let mlc, lc > mlc { return lcTooLarge(lc, mlc) }
      if cmd.ins == 0xB0, let le = cmd.le, let mle = c.session.type4CC?.mle, le > mle {
        return leTooLarge(le, mle)
      }
      // Lc within MLc, but the data reaches past the file: tags refuse the length then.
      if cmd.ins == 0xD6 || cmd.ins == 0xD7, writesPastFile(cmd, c, startingInside: true) {
        return writePastFile(cmd, sw: sw, c)
      }
      // A short case 3 UPDATE with Lc within the CC's MLc, inside the file: the APDU is what
      // the tag's own CC asks for.
      let fileSize = c.session.type4CC?.ndefFile.maxSize
      if cmd.ins == 0xD6, let lc = cmd.lc, let mlc, lc <= mlc, cmd.apduCase == 3, !cmd.extended,
        let offset = cmd.offset, let fileSize, offset + lc <= fileSize
      {
        return (
          "t4t-wrong-length", "the tag refused an UPDATE whose length its own CC allows",
          "The tag answered 6700 (wrong length) to \(cmd.summary): a case 3 APDU (no Le) with "
            + "Lc \(lc), within the MLc of \(mlc) bytes its CC declares. The APDU is legal for "
            + "this tag; its CC promises more than it accepts (a smaller buffer), or its firmware "
            + "(or the HCE service emulating it) mishandles the command. Core NFC chunks writes "
            + "by MLc, so every NDEF writer fails on it the same way.",
          "Fix the tag's CC (an MLc it really accepts) or its firmware / HCE service; an app "
            + "cannot change writeNDEF's chunking. Use another tag."
        )
      }
      if cmd.extended, let cc = c.session.type4CC, cc.mlc <= 0xFF, cc.mle <= 0x100 {
        return extendedRefused(cmd, cc)
      }
      if cmd.ins == 0xB0 || cmd.ins == 0xB1 { return readLengthRefused(cmd, c) }
      return (
        "t4t-wrong-length", "the tag rejected the APDU's length",
        "The tag answered 6700 (wrong length, Lc or Le): the lengths in the APDU do not fit "
          + "what the tag accepts for this command.",
        "Check Lc/Le against the CC's MLc/MLe, or use NFCNDEFTag.writeNDEF(_:completionHandler:)."
      )
    case "6982"
    where cmd.name == "UPDATE CC"
      && c.operation(at: cmd.frame).map({
        c.session.operations[$0].kind != .writeLock
      }) ?? false:
      guard grantsWriteAccess(cmd, c) else { return ccUpdateRefused(cmd) }
      return (
        "t4t-security-not-satisfied", "the tag refused to have its write access granted",
        "The tag answered 6982 (security status not satisfied) to \(cmd.summary), which sets "
          + "the CC's write access byte to 00 (write access granted): an attempt to make a "
          + "read-only tag writable again. NFC Forum T4T has no procedure for it, and a tag "
          + "locked this way refuses it: the tag stays read-only.",
        "A Type 4 tag's write access is the tag's file setting: only the vendor's procedure "
          + "changes it (NTAG 424 DNA ChangeFileSettings with the file's key, ST25TA the write "
          + "password), if the lock is not permanent. Otherwise use another tag."
      )
    case "6982" where cmd.name == "UPDATE CC":
      return (
        "t4t-security-not-satisfied", "the tag refused an update of its CC file",
        "The tag answered 6982 (security status not satisfied) to \(cmd.summary). NFC Forum "
          + "T4T gives the CC file no write procedure: making the tag read-only by rewriting the "
          + "CC's write access byte is proprietary, and many tags refuse it. The NDEF file's "
          + "own access is not what was refused.",
        "writeLock cannot lock this tag this way: use the tag vendor's lock procedure (for "
          + "example NTAG 424 DNA ChangeFileSettings with the file's key, through "
          + "sendCommand(apdu:)), or treat the tag as one that stays writable."
      )
    case "6982"
    where cmd.name == "UPDATE file" && cmd.fileID != nil && c.session.type4CC != nil
      && cmd.fileID != c.session.type4CC?.ndefFile.fileID:
      return otherFileRefused(cmd, c)
    case "6982" where protectedFileRead(cmd, c):
      return otherFileReadRefused(cmd, c)
    case "6982":
      var m = "The tag answered 6982 (security status not satisfied): it refuses this access."
      if let w = c.session.type4CC?.ndefFile.writeAccess, cmd.isWrite, w == 0x00 {
        m += " Its CC grants write access to the NDEF file (00), so queryNDEFStatus reports"
        m += " .readWrite and Core NFC sends the UPDATE; the file is protected beyond what the"
        m += " CC says (a password or key in the tag's own file settings, e.g. NTAG 424 DNA, or"
        m += " a permanent lock), or the CC is wrong."
        return (
          "t4t-security-not-satisfied", "the tag refused a write its CC allows (protected)", m,
          "Core NFC's writeNDEF cannot meet the tag's own access condition. Write with the "
            + "vendor's commands through sendCommand(apdu:) — ST25TA: VERIFY with the write "
            + "password (00 20 00 02 10 …) before UPDATE BINARY; NTAG 424 DNA: "
            + "AuthenticateEV2First, then WriteData (90 8D) in the file's communication mode "
            + "(its ISO UPDATE BINARY stays refused on a file that needs a key) — or set the "
            + "file's write access to free with the vendor's tool, or use another tag."
        )
      } else if let w = c.session.type4CC?.ndefFile.writeAccess, cmd.isWrite {
        m += " Its CC gives the NDEF file write access \(Hex.string([w]).uppercased())"
        m +=
          w == 0xFF
          ? " (no write access: the tag is read-only)."
          : " (\(CapabilityContainer4.accessMeaning(w)))."
        m += " queryNDEFStatus reports such a tag as .readOnly, and Core NFC's writeNDEF fails"
        m += " with 400 without sending anything; this writer sent the UPDATE anyway."
        if (0x80...0xFE).contains(w) {
          // A proprietary condition (T4T 2.0 §5.1.2): the vendor's password or key opens it.
          return (
            "t4t-security-not-satisfied",
            "the tag refused a write its CC puts under a proprietary condition", m,
            "The NDEF file is writable only after the vendor's access condition is met, which "
              + "writeNDEF cannot do: send the vendor's commands through sendCommand(apdu:) "
              + "first (ST25TA: VERIFY with the write password, 00 20 00 02 10 …; NTAG 424 DNA: "
              + "AuthenticateEV2First, then WriteData 90 8D), then UPDATE BINARY yourself — or "
              + "set the write access to free (00) with the vendor's tool."
          )
        }
      } else if cmd.ins == 0xB0 {
        m += " The file needs authentication to be read"
        if let r = c.session.type4CC?.ndefFile.readAccess, r != 0 {
          m += " (its CC read access is \(Hex.string([r]).uppercased()), not 00: free)"
        }
        m += "."
        return (
          "t4t-security-not-satisfied", "the tag refused to be read (protected)", m,
          "The message can only be read after the vendor's authentication: set the NDEF "
            + "file's read access to free (00) with the vendor's tool, or authenticate with "
            + "NFCISO7816Tag.sendCommand(apdu:) before reading."
        )
      } else {
        m += " The file needs authentication or is read-only."
      }
      return (
        "t4t-security-not-satisfied", "the tag refused access (read-only or protected)", m,
        AppsOwnWrites.genericReadOnlyFix + " when the status is .readWrite; "
          + "use another tag when it is .readOnly."
      )
    case "6A82" where cmd.ins == 0xA4 && cmd.summary.contains("AID"):
      // SELECT by DF name: 6A82 means the application is not on the tag (ISO/IEC 7816-4 §7.1.1).
      return (
        "t4t-application-not-found", "the application is not on the tag",
        "The tag answered 6A82 (file or application not found) to \(cmd.summary): it has no "
          + "application with that AID. For NDEF the AID is D2760000850101; other AIDs only "
          + "answer on cards that carry that application.",
        "Check that the AID is right and present on this card, and that it is listed in the app's "
          + "com.apple.developer.nfc.readersession.iso7816.select-identifiers (Info.plist); for "
          + "NDEF use NFCNDEFReaderSession / NFCNDEFTag instead of raw SELECTs."
      )
    case "6A82":
      return fileNotFound(cmd, c)
    case "6A84" where cmd.isWrite && writesPastFile(cmd, c),
      "6A86" where cmd.isWrite && writesPastFile(cmd, c),
      "6B00" where cmd.isWrite && writesPastFile(cmd, c):
      return writePastFile(cmd, sw: sw, c)
    case "6A86" where cmd.ins == 0xA4, "6B00" where cmd.ins == 0xA4:
      // SELECT's P1 P2 are its selection control (P1 04 by name, 00 by file id; P2 00 or 0C for
      // no FCI, ISO/IEC 7816-4 §11.1.1), not an offset: the tag refuses this form of SELECT.
      return (
        "t4t-error-status", "the tag refused this form of SELECT (P1 P2)",
        "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary). For SELECT, P1 P2 choose "
          + "how to select (P1 04: by AID, 00: by file identifier; P2 0C: no answer data, 00: "
          + "return the FCI), not an offset. NFC Forum T4T 2.0 selects the CC and NDEF files with "
          + "P1 00, P2 0C; a tag or HCE service that accepts only another form fails with the "
          + "readers (iPhones among them) that send this one.",
        "Make the tag (or the HCE service) accept SELECT by file identifier with P1 00 and P2 "
          + "0C as T4T 2.0 sends it; an app of its own can send the form the tag accepts through "
          + "sendCommand(apdu:)."
      )
    case "6A86" where cmd.sfi != nil, "6B00" where cmd.sfi != nil:
      // P1 b8 = 1: P1 names a file by short EF identifier, which T4T tags need not support
      // (T4T 2.0 §5.4 addresses the selected file by offset, P1 b8 = 0).
      return (
        "t4t-sfi-not-supported", "the tag does not take a file named by short EF identifier",
        "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary). Its P1 has b8 set: P1 "
          + "names the file by short EF identifier (SFI \(cmd.sfi ?? 0)) and P2 is the offset "
          + "(ISO/IEC 7816-4 §11.2.2). NFC Forum T4T 2.0 READ/UPDATE BINARY address the selected "
          + "file by a 15-bit offset (P1 b8 = 0), and a T4T tag need not accept SFI addressing: "
          + "this refuses the command's form, not its offset.",
        "SELECT the file by its file identifier first (00 A4 00 0C 02 E1 04 for the NDEF file), "
          + "then send READ/UPDATE BINARY with the offset in P1 P2 (P1 b8 = 0), as writeNDEF does."
      )
    case "6A86" where cmd.name == "READ CC", "6B00" where cmd.name == "READ CC":
      return ccOffsetRefused(cmd, sw: sw, c)
    case "6A86", "6B00":
      let size = c.session.type4CC?.ndefFile.maxSize
      let end = (cmd.offset ?? 0) + (cmd.isWrite ? cmd.data.count : max(cmd.le ?? 1, 1))
      if let size, cmd.offset != nil, end <= size {
        // Inside the file the CC declares: the tag's file is smaller than its CC says.
        return (
          "t4t-offset-out-of-range", "the tag refused an offset inside the file its CC declares",
          "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary)\(offsetInDO(cmd)), but "
            + "the CC gives the NDEF file \(size) bytes, so the access is inside it: the tag's "
            + "file is smaller than its CC says (a READ that ends early with 6282 shows where it ends). The tag "
            + "or the HCE service emulating it is misconfigured, not the reader.",
          "Make the CC's maximum NDEF file size match the file the tag (or the HCE service) "
            + "really has; readers trust the CC."
        )
      }
      return (
        "t4t-offset-out-of-range",
        oddINS(cmd)
          ? "the offset (data object 54) is wrong for this file"
          : "the offset (P1 P2) is wrong for this file",
        "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary). For READ/UPDATE BINARY, "
          + (oddINS(cmd)
            ? "B1/D7 carry the offset in the offset data object 54 of the data field (P1 P2 are "
              + "0000, ISO/IEC 7816-4 §11.2.3); it is \(cmd.offset ?? 0) here"
            : "P1 P2 is the offset in the file")
          + (size.map { "; the file holds \($0) bytes." } ?? "."),
        "Keep offsets inside the NDEF file's size from the CC (or use writeNDEF, which does)."
      )
    case "6581":
      return (
        "t4t-memory-failure", "the tag failed to write its memory",
        "The tag answered 6581 (memory failure): programming its memory failed — the field "
          + "weakened during the write (the tag still answered, so it was powered), or, when it "
          + "repeats with the phone held still, the memory is worn or defective and the tag must "
          + "be replaced. What the file holds now is uncertain.",
        InterruptedWriteRule.keepStill(onError: CoreNFCError.tagUpdateFailure.code)
      )
    case "6D00"
    where [0xB0, 0xB1, 0xD6, 0xD7].contains(cmd.ins) && cmd.isType4
      && Type4Procedure.isNDEFProcedure(cmd.name)
      && !c.log.implementedINS.contains(cmd.ins ?? 0):
      // READ/UPDATE BINARY the tag decoded nowhere in the session (any other answer to the
      // same INS, before or after, shows it has it).
      return insNotSupported(cmd)
    case _ where sw.count == 4 && sw.uppercased().hasPrefix("6C"):
      return wrongLe(cmd, sw: sw)
    default:
      return (
        "t4t-error-status", "the tag refused the APDU",
        "The tag answered \(sw) to \(cmd.summary).",
        "Check the APDU against NFC Forum T4T, or use NFCNDEFTag.readNDEF/writeNDEF."
      )
    }
  }

  /// 6Cxx (wrong Le field; xx gives the exact length available, ISO/IEC 7816-4 §5.6) that the
  /// reader did not follow with the same command and Le = xx (a repeat makes the operation ok
  /// and no finding is given): the Le was wrong, and xx is the length to ask for.
  private static func wrongLe(_ cmd: SessionCommandLog.Command, sw: String)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let xx = String(sw.uppercased().suffix(2))
    let value = Int(xx, radix: 16) ?? 0
    let n = value == 0 ? 256 : value
    return (
      "t4t-error-status", "the Le was wrong: the tag gives \(n) bytes as the length to ask for",
      "The tag answered \(sw.uppercased()) (wrong Le field, ISO/IEC 7816-4 §5.6) to "
        + "\(cmd.summary): it does not return the bytes for this Le, and xx = \(xx)h "
        + "gives the exact length available, \(n) bytes. The reader did not send the command "
        + "again with Le = \(xx)h, so it got no data.",
      "Send the same command again with Le = \(xx)h (\(n) bytes), as 6Cxx asks; with "
        + "sendCommand(apdu:), set expectedResponseLength to \(n) and repeat the APDU."
    )
  }

  /// 6700 (wrong length) to a READ BINARY (B0/B1) whose Le is within the CC's MLe (or no CC
  /// was read): the tag refuses to return that many bytes here — the read reaches past the
  /// file's end (a tag may refuse instead of answering 6282, ISO/IEC 7816-4 §5.6), or the tag
  /// accepts less than its CC says. A read-side fix: read again with a smaller Le.
  private static func readLengthRefused(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let le = cmd.le.map { "Le \($0)" } ?? "Le"
    let mle = c.session.type4CC.map { ", within the MLe of \($0.mle) bytes its CC declares" } ?? ""
    return (
      "t4t-wrong-length", "the tag refused the READ BINARY's length (\(le))",
      "The tag answered 6700 (wrong length) to \(cmd.summary): it refuses to return "
        + (cmd.le.map { "\($0) bytes" } ?? "that many bytes")
        + " from offset \(cmd.offset ?? 0)\(mle). Either the read reaches past the end of "
        + "the file (this tag refuses instead of returning the bytes up to it with 6282), or the "
        + "tag accepts a smaller Le than its CC says.",
      "Read again with a smaller Le: no more than the message's bytes left past the offset "
        + "(NLEN plus the length field's size, minus the offset), in chunks within MLe, as "
        + "readNDEF does. If readNDEF fails the same way, "
        + "the tag's CC (MLe) or file is wrong: use another tag."
    )
  }

  /// 6700 to a command in the extended length form (Lc in 3 bytes, Le in 2 or 3; ISO/IEC
  /// 7816-4 §5.1) on a tag whose CC keeps MLc ≤ 255 and MLe ≤ 256, which short APDUs cover:
  /// a card need support the extended form only when it says so (NFC Forum T4T 3.0 §5.1:
  /// MLe/MLc above those limits), so the length form, not the length, was refused.
  private static func extendedRefused(_ cmd: SessionCommandLog.Command, _ cc: CapabilityContainer4)
    -> (code: String, cause: String, message: String, fix: String)
  {
    let limits =
      " Its CC (mapping \(cc.versionString), MLe \(cc.mle), MLc \(cc.mlc)) stays within what "
      + "short APDUs carry, so it need not take the extended form."
    return (
      "t4t-wrong-length", "the tag refused the extended length form of the APDU",
      "The tag answered 6700 (wrong length) to \(cmd.summary), sent with extended length "
        + "fields (Lc in 3 bytes, Le in 2 or 3; ISO/IEC 7816-4 §5.1). A card takes that form "
        + "only when it supports extended lengths, which this one does not: the length form "
        + "was refused, not the length itself." + limits,
      "Send short APDUs: at most 255 data bytes and an expected length of at most 256, "
        + "chunked by the CC's MLc and MLe (NFCISO7816APDU uses the extended form beyond "
        + "those); writeNDEF and readNDEF do this themselves."
    )
  }

  /// Whether `cmd` is READ/UPDATE BINARY with an odd INS (B1/D7): its offset is in an offset
  /// data object 54 of its data field and P1 P2 are 0000 (ISO/IEC 7816-4 §11.2.3).
  private static func oddINS(_ cmd: SessionCommandLog.Command) -> Bool {
    cmd.ins == 0xB1 || cmd.ins == 0xD7
  }

  /// For B1/D7, where their offset travels (P1 P2 being 0000): appended to "incorrect P1 P2".
  private static func offsetInDO(_ cmd: SessionCommandLog.Command) -> String {
    oddINS(cmd) ? " (for B1/D7 the offset, \(cmd.offset ?? 0), is in data object 54)" : ""
  }

  /// 6A86 / 6B00 to a READ of the CC file: within its first 15 bytes (every CC has them, T4T
  /// 2.0 §5.1) or its CCLEN the offset cannot be wrong, so the tag is at fault.
  private static func ccOffsetRefused(
    _ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext
  ) -> (code: String, cause: String, message: String, fix: String) {
    let length = max(c.session.type4CC?.ccLen ?? 15, 15)
    let end = (cmd.offset ?? 0) + max(cmd.le ?? 1, 1)
    guard cmd.offset != nil, end <= length else {
      return (
        "t4t-offset-out-of-range", "the READ of the CC file goes past its end",
        "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary): the CC file holds "
          + "\(length) bytes (CCLEN), and the read ends at byte \(end).",
        "Read the CC from offset 0 with Le = 15 (Le = CCLEN for a longer CC), as queryNDEFStatus does."
      )
    }
    return (
      "t4t-offset-out-of-range", "the tag refused a READ of its CC inside the CC's bytes",
      "The tag answered \(sw) (incorrect P1 P2) to \(cmd.summary), but every Type 4 CC file "
        + "holds at least 15 bytes read from offset 0 (NFC Forum T4T 2.0 §5.1)"
        + (length > 15 ? " and this one declares \(length) (CCLEN)" : "")
        + ": the offset is right, the tag (or the HCE service emulating it) serves a CC file "
        + "shorter than a CC, so NDEF detection cannot complete.",
      "Fix the tag's (or HCE service's) CC file: at least 15 bytes, CCLEN first; readers "
        + "read it whole from offset 0."
    )
  }

  private static func leTooLarge(_ le: Int, _ mle: Int)
    -> (code: String, cause: String, message: String, fix: String)
  {
    (
      "t4t-le-exceeds-mle", "the READ BINARY asked for more bytes than the tag sends at once",
      "The READ BINARY asked for \(le) bytes (Le) but the tag's CC sets MLe = \(mle), the most "
        + "one READ BINARY may return (NFC Forum T4T, CC). Read in chunks of at most \(mle) "
        + "bytes.",
      "Use NFCNDEFTag.readNDEF(completionHandler:), which honours MLe; with sendCommand(apdu:), "
        + "set expectedResponseLength to at most MLe and read in chunks."
    )
  }

  private static func lcTooLarge(_ lc: Int, _ mlc: Int)
    -> (code: String, cause: String, message: String, fix: String)
  {
    (
      "t4t-lc-exceeds-mlc", "the UPDATE BINARY carried more bytes than the tag accepts",
      "The UPDATE BINARY carried \(lc) bytes but the tag's CC sets MLc = \(mlc), the most one "
        + "UPDATE BINARY may carry. Split the data into chunks of at most \(mlc) bytes.",
      "Use NFCNDEFTag.writeNDEF(_:completionHandler:), which honours MLc; with "
        + "sendCommand(apdu:), write in chunks of at most MLc bytes."
    )
  }

  private static func oversized(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> DiagnosisFinding?
  {
    let x: (code: String, cause: String, message: String, fix: String)
    let update = cmd.ins == 0xD6 || cmd.ins == 0xD7
    let read = cmd.ins == 0xB0 || cmd.ins == 0xB1
    if update, let lc = cmd.lc, let mlc = c.session.type4CC?.mlc, lc > mlc {
      x = lcTooLarge(lc, mlc)
    } else if read, let le = cmd.le, le != 256, le != 65536, let mle = c.session.type4CC?.mle,
      le > mle
    {
      x = leTooLarge(le, mle)
    } else {
      return nil
    }
    let op = c.operation(at: cmd.frame)
    let silent = cmd.answer == .none
    return DiagnosisFinding(
      code: x.code, severity: silent ? .error : .warning, operation: op,
      frames: [cmd.frame] + [cmd.answerFrame].compactMap { $0 },
      cause: x.cause
        + (silent ? " and it never answered" : " (this tag accepted it; others refuse)"),
      message: x.message, coreNFCError: silent ? .tagConnectionLost : nil, fix: x.fix)
  }
}
