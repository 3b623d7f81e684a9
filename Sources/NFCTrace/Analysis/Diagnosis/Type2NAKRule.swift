/// Rule: a Type 2 tag answered a WRITE with a NAK; tells the causes apart.
///
/// Evidence, per NAK'd WRITE in the command log (NAK codes: NXP NTAG21x datasheet §9.3,
/// nfc-facts §4.2; pages: §4.3–§4.5):
/// - NAK 1: the tag received a damaged frame (CRC/parity) → `t2t-nak-transmission-error`.
/// - NAK 5 (NXP: EEPROM write error) → `t2t-nak-eeprom-error`; but on a page at or past AUTH0
///   (read) with no PWD_AUTH accepted, the password causes below (`t2t-nak-password`, …) as
///   the likely cause, the EEPROM error named as the other.
/// - NAK 0/4 (invalid argument / not allowed), in this order:
///   page 0–1 (UID, never writable), a static lock bit set for the page (page 2 read), a
///   dynamic lock bit set (lock page read, product identified) → `t2t-nak-locked-page`;
///   page past the product's last page → `t2t-nak-beyond-memory`;
///   AUTH0 (CFG0 byte 3, read) ≤ page and no PACK in this activation → `t2t-nak-password`,
///   or `t2t-auth-lost-on-reactivation` when a PWD_AUTH was accepted in an earlier activation
///   (authentication does not survive a new REQA/WUPA; NTAG21x datasheet §8.8);
///   no AUTH0 known but a PWD_AUTH in an earlier activation → `t2t-auth-lost-on-reactivation`;
///   no AUTH0 known and the app's PWD_AUTH refused (none accepted since) → `t2t-nak-password`
///   as the likely cause; a PWD_AUTH refused with NAK 4 is a wrong password or AUTHLIM
///   reached, as ACCESS read in the trace tells (`Type2AuthLimit`, nfc-facts §4.2, §10);
///   the dynamic lock page → `t2t-nak-lock-page`; a page past the CC data area of an
///   unidentified product → `t2t-nak-outside-ndef-area`; else `t2t-nak-unexplained`, naming
///   what the trace does not show.
/// Core NFC: 401 ndefReaderSessionErrorTagUpdateFailure for writeNDEF/writeLock, 102
/// readerTransceiveErrorTagResponseError for sendMiFareCommand.
enum Type2NAKRule: DiagnosisRule {
  static let codes = [
    "t2t-nak-transmission-error", "t2t-nak-eeprom-error", "t2t-nak-locked-page",
    "t2t-nak-beyond-memory", "t2t-nak-password", "t2t-auth-lost-on-reactivation",
    "t2t-nak-lock-page", "t2t-nak-outside-ndef-area", "t2t-nak-unexplained",
  ]

  struct Cause {
    var code: String
    var cause: String
    var message: String
    var fix: String
    var frames: [Int] = []
  }

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let geo = Type2Geometry(c.session)
    var out: [DiagnosisFinding] = []
    // COMPATIBILITY_WRITE's first part carries the page: the tag refuses the address there
    // (NTAG21x datasheet §10.5), before any data.
    for cmd in c.log.commands
    where (cmd.isWrite || cmd.isCompatibilityWriteAddress) && cmd.page != nil {
      guard case .nak(let code) = cmd.answer, let page = cmd.page else { continue }
      let op = c.operation(at: cmd.frame)
      // A NAK 1 or 5 the reader's repeat of the WRITE got past (Type2Procedure): the page is
      // programmed; the weak field is worth a warning, not a failure (`command-retried`
      // reports it), even when the operation later fails for another refusal.
      let recovered = acknowledgedAgain(cmd, page: page, operation: op, c)
      let retried = Type2Layer.isRetriableNAK(code) && recovered
      // The same WRITE acknowledged after a re-activation (a NAK sends an NTAG to IDLE, so a
      // stack that recovers re-activates first), in a write that then completed.
      let resumed =
        Type2Layer.isRetriableNAK(code) && !recovered
        ? c.log.commands.first { w in
          w.frame > cmd.frame && w.page == page && w.data == cmd.data && w.answer == .ack
            && c.operation(at: w.frame).map {
              c.session.operations[$0].kind == .writeNDEF
                && c.session.operations[$0].outcome == .ok
            } == true
        } : nil
      let soft = retried || resumed != nil
      let x = cause(code: code, page: page, at: cmd.frame, c, geo, recovered: soft)
      let again =
        resumed.map {
          ", and the same WRITE sent after a re-activation was acknowledged (#\($0.frame))"
        }
        ?? (retried ? ", and the WRITE sent again was acknowledged" : "")
      out.append(
        DiagnosisFinding(
          code: x.code, severity: soft ? .warning : .error, operation: op,
          frames: [cmd.frame] + [cmd.answerFrame].compactMap { $0 } + x.frames
            + (resumed.map { [$0.frame] } ?? []),
          cause: "\(x.cause) (NAK \(code) on \(cmd.isWrite ? "WRITE" : "COMPATIBILITY_WRITE") page "
            + "\(Type2Geometry.page(page)))" + again,
          message: x.message
            + (retried
              ? " The reader sent the same WRITE again and the tag acknowledged it: the page is "
                + "programmed and the operation went on." : "")
            + (resumed != nil
              ? " The reader re-activated the tag and sent the same WRITE again; the tag "
                + "acknowledged it and the write completed in the next operation: the damage "
                + "was recovered (a stack that retries this way reports no error)." : ""),
          coreNFCError: soft ? nil : c.refusalError(op), fix: x.fix))
    }
    return out
  }

  /// Whether the refused WRITE `cmd` of `page` was sent again later in its operation `op` and
  /// the tag acknowledged it: that page is programmed, whatever ended the operation (a NAK 5
  /// on a later page). Matched by page, as `Type2Procedure` matches the repeat of a command
  /// captured damaged (NXP NTAG213/215/216 datasheet §9.3: a NAK leaves the page unwritten).
  static func acknowledgedAgain(
    _ cmd: SessionCommandLog.Command, page: Int, operation op: Int?, _ c: DiagnosisContext
  ) -> Bool {
    guard let op else { return false }
    let last = c.session.operations[op].lastFrame
    guard cmd.frame < last else { return false }
    return c.log.commands(in: (cmd.frame + 1)...last).contains {
      $0.isWrite && $0.page == page && $0.answer == .ack
    }
  }

  /// The cause of NAK `code` to the WRITE of `page` at `frame`; `recovered`: the same WRITE
  /// was acknowledged when sent again (so no password kept it out).
  static func cause(
    code: Int, page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry,
    recovered: Bool = false
  ) -> Cause {
    let p = Type2Geometry.page(page)
    if code == 1 {
      return Cause(
        code: "t2t-nak-transmission-error", cause: "the tag received a damaged command",
        message: "The tag answered NAK 1: the WRITE reached it with a CRC or parity error, so "
          + "it did not write page \(p). This is a radio problem (distance, metal, interference).",
        fix: "Hold the phone flat and still on the tag; on error, write again.")
    }
    if !Type2Layer.isDefinedNAK(code) {
      return Cause(
        code: "t2t-nak-transmission-error", cause: "the tag's answer arrived damaged",
        message: "The answer to the WRITE of page \(p) was the 4-bit code "
          + "\(String(code, radix: 16, uppercase: true))h, which is neither the ACK (Ah) nor a "
          + "NAK NXP defines (0, 1, 4, 5): an ACK or NAK damaged on the air, so whether page "
          + "\(p) was written is unknown. This is a radio problem (distance, metal, interference).",
        fix: "Hold the phone flat and still on the tag; on error, write again.")
    }
    if code == 5 {
      // NXP's code for an EEPROM write error; but a page the trace shows behind AUTH0, written
      // with no PWD_AUTH accepted, could not be written anyway: the password comes first.
      if !recovered, let pw = nak5PasswordCause(page, at: frame, c, g) { return pw }
      return Cause(
        code: "t2t-nak-eeprom-error", cause: "the tag could not program its memory",
        message: "The tag answered NAK 5 (EEPROM write error, NXP datasheet): programming page "
          + "\(p) failed, typically because the field was too weak during the write.",
        fix:
          "Hold the phone still on the tag and write again; a tag that keeps failing is worn out.")
    }
    if let x = lockCause(page, before: frame, g, log: c.log) { return x }
    if let last = g.lastPage, page > last {
      return Cause(
        code: "t2t-nak-beyond-memory", cause: "the page does not exist on this tag",
        message: "Page \(p) is past the last page \(Type2Geometry.page(last)) of this "
          + "\(g.tag.product ?? "tag"); the tag refuses addresses it does not have.",
        fix: "Write only inside the tag's memory: check queryNDEFStatus's capacity before "
          + "writeNDEF, and compute raw sendMiFareCommand page numbers from the product's memory map."
      )
    }
    if let x = passwordCause(page, at: frame, c, g) { return x }
    if page == g.dynamicLockPage { return lockPageCause(code: code, page: page, at: frame, c, g) }
    if g.lastPage == nil, let end = g.dataAreaEndPage, page >= end {
      return Cause(
        code: "t2t-nak-outside-ndef-area", cause: "the page is outside the tag's NDEF data area",
        message: "Page \(p) is past the \(g.cc?.dataAreaSize ?? 0)-byte NDEF data area the "
          + "capability container declares (pages 4–\(end - 1)); the product was not identified "
          + "(no GET_VERSION), so the page may not exist or may be a configuration page.",
        fix: "Keep NDEF writes inside the data area (writeNDEF does); for raw "
          + "sendMiFareCommand writes, identify the product with GET_VERSION (0x60) first.")
    }
    return unexplained(code: code, page: page, at: frame, c, g)
  }

  /// `t2t-nak-lock-page`: a NAK to a WRITE of the dynamic lock page (the page after the data
  /// area or user memory). A WRITE whose lock bytes (bytes 0–2; byte 3 is RFUI) are all 0 sets
  /// no lock bit (lock bits are only ever set, NTAG213/215/216 datasheet §8.5.3): it is said,
  /// and an app's own WRITE (not Core NFC's writeNDEF/writeLock) is told it need not send it.
  /// On a product the trace did not identify, the page is a lock page only if the tag is as
  /// large as the CC says, and NAK 0 (invalid page address, datasheet §9.3) is also the answer
  /// to a page the tag lacks: that reading is given too.
  private static func lockPageCause(
    code: Int, page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Cause {
    let p = Type2Geometry.page(page)
    let data = c.log.commands.first { $0.frame == frame }?.data ?? []
    let setsNoLockBit = data.count >= 3 && data.prefix(3).allSatisfy { $0 == 0 }
    let unidentified = g.lastPage == nil
    // Advice on raw writes is for the app's own commands, not for Core NFC's procedures.
    let ownWrite =
      c.operation(at: frame).map {
        ![.writeNDEF, .writeLock].contains(c.session.operations[$0].kind)
      } ?? true
    let operation =
      setsNoLockBit
      ? "Writing there is a lock operation, though this WRITE sets no lock bit (lock bytes "
        + "00 00 00: it would lock nothing), and the tag refused it. "
      : "Writing there is a lock operation, and the tag refused it. "
    let smallerTag =
      unidentified && code == 0
      ? " The product was not identified (no GET_VERSION): page \(p) is a lock page only if the "
        + "tag is as large as its CC says, and NAK 0 (invalid page address) is also what a "
        + "smaller tag answers for a page it does not have." : ""
    return Cause(
      code: "t2t-nak-lock-page", cause: "the tag refused a write to its lock bytes",
      message: "Page \(p) is not NDEF data: it is the first page after the "
        + (g.userBytes.map { "\($0)-byte user memory" }
          ?? "\(g.cc.map { "\($0.dataAreaSize)-byte " } ?? "")NDEF data area")
        + ", where this tag keeps its "
        + "dynamic lock bytes (LOCK2–LOCK4, as on NTAG213 / Ultralight C for a 144-byte area, "
        + "NTAG212 for 128). " + operation
        + "The trace does not show why: a lock-page write is refused when the lock bytes' own "
        + "block-lock bits are set or the page is password protected (AUTH0 at or below it); "
        + "neither the lock page nor CFG0 was read." + smallerTag,
      fix: "A refused lock-page write means the lock bytes are block-locked already or "
        + "password protected: read the lock page and CFG0 (AUTH0) to see which — "
        + "queryNDEFStatus reads only the CC and does not tell. To make a tag read-only, "
        + "NFCNDEFTag.writeLock(completionHandler:) is the Core NFC call (permanent); an app "
        + "writing the lock bytes itself with sendMiFareCommand must send PWD_AUTH first on "
        + "a protected tag."
        + (setsNoLockBit && ownWrite
          ? " A WRITE of lock bytes 00 00 00 changes nothing: the app need not send it." : "")
        + (unidentified && ownWrite
          ? " Identify the product with GET_VERSION (0x60) before raw writes past the data area."
          : ""))
  }

  /// `t2t-nak-unexplained`: what the trace shows of the usual causes (lock bits, password),
  /// and what is left to read. Static lock bits cover pages 3–15, dynamic ones the user pages
  /// after them; neither covers the configuration pages past the dynamic lock page
  /// (NTAG213/215/216 datasheet §8.5.2–8.5.3, §8.5.7).
  private static func unexplained(
    code: Int, page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Cause {
    var unknown: [String] = []
    var toRead: [String] = []
    if page <= 15 {
      if g.memory.known(10, 2) == nil {
        unknown.append("the static lock bytes (page 2)")
        toRead.append("page 2, the static lock bits,")
      }
    } else if let cfg0 = g.cfg0Page, (cfg0...cfg0 + 3).contains(page) {
      // The configuration pages: CFGLCK (CFG1 ACCESS 0x40) locks CFG0 and CFG1, not PWD and
      // PACK (NTAG213/215/216 datasheet §8.8.1); no lock bit does.
      if page <= cfg0 + 1, g.memory.known((cfg0 + 1) * 4, 1) == nil {
        unknown.append("CFGLCK (CFG1, page \(Type2Geometry.page(cfg0 + 1)))")
        toRead.append("page \(Type2Geometry.page(cfg0 + 1)), CFG1 with CFGLCK,")
      }
    } else if let lock = g.dynamicLockPage {
      if page < lock, g.memory.known(lock * 4, 3) == nil {
        unknown.append("the dynamic lock bytes (page \(Type2Geometry.page(lock)))")
        toRead.append("page \(Type2Geometry.page(lock)), the dynamic lock bits,")
      }
    } else {
      unknown.append("the dynamic lock bytes")
      toRead.append("the dynamic lock page")
    }
    let lockUnknown = !unknown.isEmpty
    // NTAG21x and Ultralight EV1 answer GET_VERSION: a tag that refused it has no PWD_AUTH
    // (an original Ultralight, or an Ultralight C with 3DES authentication).
    let probeRefused = getVersionRefused(c)
    // Only an NXP UID (UID0 04h, ISO/IEC 7816-6) with a CC no larger than the Ultralight C's
    // 144-byte data area (CC2 12h) may be one; another maker's tag protects pages its own way.
    let nxp = !g.tag.isOtherMakersUID
    let ulc =
      g.tag.isUltralightC
      || (probeRefused && g.tag.ntagProduct == nil && nxp && (g.cc?.bytes[2] ?? 0) <= 0x12)
    let foreign = g.tag.ntagProduct == nil && !ulc && !nxp
    // An Ultralight C keeps AUTH0 in page 2Ah (MF0ICU2 §7.5.7).
    // AUTH0 as it stood at the refused WRITE (one written after it protected nothing then).
    let auth0 =
      ulc
      ? g.auth0Address(ultralightC: true).flatMap { g.byte($0, at: frame, writes: c.log.commands) }
        .map { Int($0.0) }
      : g.auth0(at: frame, writes: c.log.commands)?.value
    let auth0Known = auth0 != nil
    // An authentication the tag accepted in this activation opens every page it protects.
    let authenticated = c.authentication(before: frame)
    if foreign, authenticated == nil {
      // Nothing NXP's memory map names can be read to rule its protection out.
      unknown.append("this maker's password protection (its datasheet's, not NXP's AUTH0)")
    } else if !auth0Known, authenticated == nil {
      unknown.append(ulc ? "AUTH0 (page 2Ah)" : "AUTH0 (CFG0)")
      toRead.append(
        ulc
          ? "page 2Ah, AUTH0,"
          : g.cfg0Page.map { "page \(Type2Geometry.page($0)), CFG0 with AUTH0," }
            ?? "CFG0 (AUTH0)")
    }
    // Read but at or below the page, AUTH0 is no NTAG21x cause here (`passwordCause` took
    // it): it is page 2Ah of a tag that refused GET_VERSION, which may be an Ultralight C.
    let covered = authenticated == nil && auth0.map { $0 <= page } == true
    let passwordOut =
      authenticated.map { "the tag accepted the authentication in this activation (#\($0))" }
      ?? (auth0Known && !covered && !foreign
        ? "AUTH0 read in this session leaves the page free" : nil)
    let coveredText =
      covered
      ? " AUTH0 (page 2Ah, read) is \(Type2Geometry.page(auth0 ?? 0)): if this tag is a MIFARE "
        + "Ultralight C (it has no GET_VERSION and a page 2Ah), the page needs its 3DES "
        + "authentication, which this activation did not do." : ""
    let lockOut =
      lockUnknown
      ? nil
      : (g.cfg0Page.map { (($0)...($0 + 3)).contains(page) } == true
        ? (g.access.map { $0.value & 0x40 == 0 } == true && page <= (g.cfg0Page ?? 0) + 1
          ? "CFGLCK in CFG1 read in this session is clear, and " : "")
          + "no lock bit covers a configuration page"
        : "the lock bits read in this session leave it writable")
    let known = [lockOut, passwordOut].compactMap { $0 }
    // A CC this session made read-only itself (a writeLock's first WRITE) says nothing of
    // how the tag was: only a CC found read-only points at locked pages.
    let ccWritten = [.written, .unacknowledged].contains(c.session.memory.type2End.state(15))
    if let cc = g.cc, cc.status == .readOnly, !unknown.isEmpty, !ccWritten {
      return readOnlyCC(cc, code: code, page: page, unknown: unknown)
    }
    return Cause(
      code: "t2t-nak-unexplained", cause: "the tag refused the write",
      message: refusal(code, page: page) + " "
        + explanation(unknown: unknown, known: known, covered: coveredText),
      fix: unknown.isEmpty && !covered
        // Lock bits and AUTH0 were read and allow the write: no password or lock to suggest.
        ? "queryNDEFStatus reads only the CC and said .readWrite; what this session read and "
          + "sent allows this write, so neither a password nor a lock is the cause: "
          + "identify the tag (its GET_VERSION answer and, on an NTAG21x, its READ_SIG "
          + "originality signature, with sendMiFareCommand; a clone answers them wrongly or not "
          + "at all) and use a genuine tag of the product the app expects."
        : (toRead.isEmpty
          ? "queryNDEFStatus reads only the CC, so a password leaves it at .readWrite"
          : "queryNDEFStatus reads only the CC, so lock bits and a password leave it at "
            + ".readWrite: read " + toRead.joined(separator: " and ") + " to see which applies")
          + (passwordOut != nil
            ? ""
            : foreign
              ? "; a password-protected tag of another maker than NXP needs the authentication "
                + "its datasheet gives before writing"
              : ulc
                ? "; on a protected Ultralight C authenticate with its 3DES key (AUTHENTICATE 1A "
                  + "00, sendMiFareCommand) before writing"
                : "; on a protected NTAG21x send PWD_AUTH (sendMiFareCommand, 1B + password) before "
                  + "writing")
          + (lockUnknown ? ", and use another tag if the pages are locked." : "."))
  }

  /// "The tag answered NAK 0 (invalid argument or page) to the WRITE of page 5 (0x5)."
  private static func refusal(_ code: Int, page: Int) -> String {
    "The tag answered NAK \(code) ("
      + (code == 4 ? "not allowed, or authentication counter overflow" : "invalid argument or page")
      + ") to the WRITE of page \(Type2Geometry.page(page))."
  }

  /// `t2t-nak-unexplained` on a tag whose CC says read-only (write access not 0, T2T 1.0
  /// §6.1): the lock bits were not read, but writeLock (and Android's makeReadOnly) set them
  /// together with the CC, so a locked page is the likely cause, and queryNDEFStatus already
  /// said .readOnly — no password advice.
  private static func readOnlyCC(
    _ cc: Type2CapabilityContainer, code: Int, page: Int, unknown: [String]
  ) -> Cause {
    let access = String(cc.writeAccess, radix: 16, uppercase: true)
    return Cause(
      code: "t2t-nak-unexplained", cause: "the tag refused the write",
      message: refusal(code, page: page) + " The CC marks the tag read-only "
        + "(write access \(access)h); writeLock sets that together with the lock bits, so a "
        + "locked page is the likely cause, although the trace does not show "
        + unknown.joined(separator: " or ") + ".",
      fix: "queryNDEFStatus reported .readOnly: the tag is not meant to be written. Check the "
        + "status before writing and tell the user to use another tag; do not write its pages "
        + "with sendMiFareCommand either (locked pages stay read-only for good).")
  }

  /// The unexplained refusal's account: what the trace rules out (`known`), what it does not
  /// show (`unknown`), and an AUTH0 that may cover the page (`covered`, a sentence or "").
  private static func explanation(unknown: [String], known: [String], covered: String) -> String {
    if !unknown.isEmpty {
      return "Usual causes are a locked page or password protection; the trace does not show "
        + unknown.joined(separator: " or ") + ", so the cause stays open"
        + (known.isEmpty ? "" : " (" + known.joined(separator: "; ") + ")") + "." + covered
    }
    if !covered.isEmpty {
      return "The lock bits are ruled out (" + known.joined(separator: "; ") + ")." + covered
    }
    return "The lock bits and the password are ruled out (" + known.joined(separator: "; ")
      + "), so neither explains the refusal: the tag does not behave as its datasheet "
      + "says (a clone), or protects the page some other way."
  }

  /// The static lock bit of `page` was set by a WRITE of page 2 (`frame`) before the refused
  /// WRITE — in this session, or in an earlier one of the trace (`earlier`): a lock written in
  /// the wrong order when `page` is the CC's and the session wrote both.
  private static func ownLock(
    _ page: Int, frame: Int, earlier: Bool, fix: String, lockPage: String = "Page 2"
  ) -> Cause {
    let p = Type2Geometry.page(page)
    return Cause(
      code: "t2t-nak-locked-page",
      cause: earlier
        ? "the page was locked by lock bits written in an earlier session"
        : "the page was locked by this session's own lock bits",
      message: (earlier
        ? "\(lockPage), written in an earlier session (its lock bytes last seen at #\(frame)), set "
        : "\(lockPage), written in this session (acknowledged at #\(frame)), set ")
        + "the lock bit for page \(p) before this WRITE: the page is permanently read-only, so "
        + "the tag refuses to write it.",
      fix: page == 3 && !earlier
        ? "The lock was written in the wrong order: setting the static lock bits before the CC's "
          + "write access locked the CC page first, and the CC now says .readWrite for good. "
          + "Write CC byte 3 (write access Fh) first, then the dynamic lock bytes, then the "
          + "static ones (Android's makeReadOnly order, nfc-facts §5.3)."
        : fix,
      frames: [frame])
  }

  private static func lockCause(
    _ page: Int, before frame: Int, _ g: Type2Geometry, log: SessionCommandLog
  ) -> Cause? {
    let p = Type2Geometry.page(page)
    // With the CC's write access still 00h the query says .readWrite: checking it cannot help.
    let fix =
      g.cc?.status == .readWrite
      ? "The page is permanently read-only, but the CC's write access byte is still 00h, so "
        + "queryNDEFStatus reports .readWrite and the write fails only when it reaches this "
        + "page: the lock bits and the CC disagree (the tag was partly locked with raw writes). "
        + "Core NFC cannot tell before writing: tell the user to use another tag. To make tags "
        + "read-only, use writeLock(completionHandler:), which sets both."
      : "The tag (or this part of it) is permanently read-only. Check queryNDEFStatus before "
        + "writeNDEF (status .readOnly) and tell the user to use another tag."
    if page < 2 {
      return Cause(
        code: "t2t-nak-locked-page", cause: "the page holds the UID and is never writable",
        message: "Pages 0–1 hold the tag's serial number (UID), fixed at the factory.",
        fix: "Do not write pages 0–1; NDEF data starts at page 4.")
    }
    // The lock bytes as they were when the tag refused: bits a later writeLock set are no cause.
    if let s = g.staticLock(page, before: frame), s.locked {
      // The WRITE of page 2 that set this page's bit before the refusal — in this session (its
      // ACK), or carried from an earlier one — else the bit was read from the tag.
      let byte = page < 8 ? 10 : 11
      let mask = UInt8(1 << (page < 8 ? page : page - 8))
      if let ack = log.commands.last(where: {
        $0.page == 2 && $0.isWrite && $0.accepted && ($0.answerFrame ?? .max) < frame
          && $0.data.count == 4 && $0.data[byte - 8] & mask != 0
      })?.answerFrame {
        return ownLock(page, frame: ack, earlier: false, fix: fix)
      }
      if g.memoryAtStart.state(byte) == .written, let earlier = g.memoryAtStart.frame(byte),
        earlier < g.sessionFirstFrame
      {
        return ownLock(page, frame: earlier, earlier: true, fix: fix)
      }
      return Cause(
        code: "t2t-nak-locked-page", cause: "the page is locked by a static lock bit",
        message: "Page 2 (read from the tag) has the lock bit for page \(p) set: the page is "
          + "permanently read-only, so the tag refuses to write it.", fix: fix,
        frames: [s.frame].compactMap { $0 })
    }
    // CFGLCK as the session found it: one the session itself wrote may take effect only from
    // the next activation, so a refusal in the same one is not proven to be its doing.
    if let cfg0 = g.cfg0Page, page == cfg0 || page == cfg0 + 1,
      let access = g.memoryAtStart.known((cfg0 + 1) * 4, 1)?.first, access & 0x40 != 0
    {
      // CFGLCK (ACCESS bit 6) freezes CFG0 and CFG1 for good (NTAG213/215/216 datasheet §8.8.1).
      return Cause(
        code: "t2t-nak-locked-page", cause: "the configuration pages are locked (CFGLCK)",
        message:
          "CFG1's ACCESS byte (0x\(Hex.string([access], separator: "").uppercased())) has CFGLCK set: "
          + "CFG0 and CFG1 (pages \(cfg0)–\(cfg0 + 1)) are permanently read-only, so the tag "
          + "refuses to write page \(p).",
        fix: "The configuration can no longer be changed on this tag; use another tag, and set "
          + "CFGLCK only after the final configuration is written.",
        frames: [g.memoryAtStart.frame((cfg0 + 1) * 4)].compactMap { $0 })
    }
    if let d = g.dynamicLock(page, before: frame), d.locked {
      // The session's own acknowledged WRITE of the lock page that set the bit, if any (the
      // page need not have been read: lock bits are one-time programmable).
      if let lockPage = g.dynamicLockPage, let bit = g.dynamicLockBit(page) {
        let mask = UInt8(1 << (bit % 8))
        if bit < 16,
          let ack = log.commands.last(where: {
            $0.page == lockPage && $0.isWrite && $0.accepted
              && ($0.answerFrame ?? .max) < frame && $0.data.count == 4
              && $0.data[bit / 8] & mask != 0
          })?.answerFrame
        {
          return ownLock(
            page, frame: ack, earlier: false, fix: fix,
            lockPage: "The dynamic lock page \(Type2Geometry.page(lockPage))")
        }
      }
      return Cause(
        code: "t2t-nak-locked-page", cause: "the page is locked by a dynamic lock bit",
        message:
          "The dynamic lock bytes (page \(Type2Geometry.page((g.dynamicLockAddress ?? 0) / 4)), "
          + "read from the tag) lock the range holding page \(p): it is permanently read-only.",
        fix: fix, frames: [d.frame].compactMap { $0 })
    }
    return nil
  }

  private static func passwordCause(
    _ page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Cause? {
    let activation = c.activation(of: frame)
    let authBefore = c.log.packFrames.last { $0 < activation } ?? c.earlierAuthFrame
    guard c.authentication(before: frame) == nil else { return nil }
    let p = Type2Geometry.page(page)
    let lost = Cause(
      code: "t2t-auth-lost-on-reactivation",
      cause: "the password authentication was lost on re-activation",
      message: "The tag accepted PWD_AUTH earlier (frame \(authBefore ?? 0)), but it was then "
        + "activated again (frame \(activation)) and authentication does not survive a new "
        + "activation. The WRITE of page \(p) came without a new PWD_AUTH, so the tag refused it.",
      fix: "Send PWD_AUTH (sendMiFareCommand with 0x1B + password) again after every "
        + "connect(to:) / restartPolling, immediately before the writes.",
      frames: [authBefore, activation].compactMap { $0 })
    if let a = g.auth0(at: frame, writes: c.log.commands) {
      guard a.value <= page else { return nil }
      if authBefore != nil { return lost }
      if let refused = c.log.commands.last(where: {
        ($0.name == "PWD_AUTH" || $0.name == "AUTHENTICATE") && $0.refused && $0.frame < frame
      }) {
        // NAK 4 to PWD_AUTH: a wrong password, or AUTHLIM reached — ACCESS tells which
        // (Type2AuthLimit; nfc-facts §4.2, §10).
        let limit =
          refused.name == "PWD_AUTH" && refused.answer == .nak(4)
          ? Type2AuthLimit.at(refused, c, g) : nil
        if let limit, !limit.wrongPassword {
          return Cause(
            code: "t2t-nak-password",
            cause: "the page is password protected and the tag refused PWD_AUTH with "
              + "\(Type2AuthLimit.label): " + limit.likelyCause,
            message: "CFG0 (read from the tag) sets AUTH0 = \(Type2Geometry.page(a.value)): pages "
              + "from there on need PWD_AUTH before writing. The tag answered the PWD_AUTH at "
              + "frame \(refused.frame) with \(Type2AuthLimit.label). "
              + "\(Type2AuthLimit.disputed) " + limit.reason + " No PWD_AUTH was accepted, so "
              + "the tag refused the WRITE of page \(p).",
            fix: limit.fix(then: "write"),
            frames: [a.frame, refused.frame, refused.answerFrame].compactMap { $0 } + limit.frames)
        }
        if c.session.tag.isUltralightC {
          return Cause(
            code: "t2t-nak-password",
            cause: "the page is protected by the 3DES key and the authentication failed",
            message: "AUTH0 (page 2Ah, read from the tag) is \(Type2Geometry.page(a.value)): "
              + "pages from there on need the Ultralight C 3DES authentication before writing. "
              + "The AUTHENTICATE at frame \(refused.frame) was refused with a NAK: the key used "
              + "is not the tag's. No authentication succeeded, so the tag refused the WRITE of "
              + "page \(p).",
            fix: "Authenticate with the tag's 3DES key (AUTHENTICATE 1A 00, then AF + "
              + "ek(RndA‖RndB')) through sendMiFareCommand before writing. After the failed "
              + "authentication the tag ignores commands until it is connected again: "
              + "restartPolling() or connect(to:) first.",
            frames: [a.frame, refused.frame, refused.answerFrame].compactMap { $0 })
        }
        return Cause(
          code: "t2t-nak-password",
          cause: "the page is password protected and the password sent was refused",
          message: "CFG0 (read from the tag) sets AUTH0 = \(Type2Geometry.page(a.value)): pages "
            + "from there on need PWD_AUTH before writing. The app sent PWD_AUTH (frame "
            + "\(refused.frame)), but the tag refused it with "
            + (limit.map { "\(Type2AuthLimit.label): " + $0.reason }
              ?? "a NAK: the password is not the tag's.")
            + " No PWD_AUTH was accepted, so the tag refused the WRITE of page \(p).",
          fix: "Send the tag's password (the PWD page's 4 bytes) with sendMiFareCommand("
            + "commandPacket: [0x1B] + password) and check the 2-byte PACK before writing. After "
            + "the refused PWD_AUTH the tag ignores commands until it is connected again: "
            + "restartPolling() or connect(to:) first.",
          frames: [a.frame, refused.frame, refused.answerFrame].compactMap { $0 }
            + (limit?.frames ?? []))
      }
      if c.session.tag.isUltralightC {
        return Cause(
          code: "t2t-nak-password",
          cause: "the page is protected by the 3DES key and no authentication was done",
          message: "AUTH0 (page 2Ah, read from the tag) is \(Type2Geometry.page(a.value)): pages "
            + "from there on need the Ultralight C 3DES authentication before writing. No "
            + "authentication succeeded in this activation, so the tag refused the WRITE of page "
            + "\(p).",
          fix: "Authenticate with the tag's 3DES key through sendMiFareCommand (AUTHENTICATE 1A "
            + "00, then AF + ek(RndA‖RndB')) and check the tag's answer, then write. Core NFC's "
            + "writeNDEF cannot authenticate itself.",
          frames: [a.frame].compactMap { $0 })
      }
      return Cause(
        code: "t2t-nak-password", cause: "the page is password protected and no password was sent",
        message: "CFG0 (read from the tag) sets AUTH0 = \(Type2Geometry.page(a.value)): pages from "
          + "there on need PWD_AUTH before writing. No PWD_AUTH was accepted in this activation, "
          + "so the tag refused the WRITE of page \(p).",
        fix: "Authenticate first: sendMiFareCommand(commandPacket: [0x1B] + password) and check "
          + "the 2-byte PACK, then write. Core NFC's writeNDEF cannot send the password itself.",
        frames: [a.frame].compactMap { $0 })
    }
    if authBefore != nil { return lost }
    return refusedPasswordCause(page, at: frame, c, g)
  }

  /// NAK 5 (NXP: EEPROM write error, NTAG213/215/216 datasheet §9.3) to a WRITE of a page at or
  /// past AUTH0 (read in the trace, CFG0 byte 3: protected for writes whatever PROT says,
  /// §8.8) with no PWD_AUTH accepted in the activation: the missing password is the likely
  /// cause — some tags and emulators refuse that way (nfc-facts §4.2, §10: NAK codes differ
  /// between sources) — and authenticating comes first; the EEPROM error stays named.
  private static func nak5PasswordCause(
    _ page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Cause? {
    guard let a = g.auth0(at: frame, writes: c.log.commands), a.value <= page,
      let pw = passwordCause(page, at: frame, c, g)
    else { return nil }
    return Cause(
      code: pw.code,
      cause: "most likely " + pw.cause + "; NAK 5 is NXP's EEPROM write error",
      message: "The tag answered NAK 5, which NXP's datasheet names an EEPROM write error "
        + "(programming failed, typically in a weak field). But the trace shows why this WRITE "
        + "could not succeed anyway: " + pw.message + " NXP's tags refuse a protected page with "
        + "NAK 0 or 4; a tag or emulator that answers NAK 5 there refuses it all the same, so "
        + "the missing password is the likely cause, an EEPROM failure the other possibility.",
      fix: pw.fix + " If the WRITE still gets NAK 5 after an accepted PWD_AUTH, the EEPROM "
        + "write failed: hold the phone still on the tag and write again; a tag that keeps "
        + "failing is worn out.",
      frames: pw.frames)
  }

  /// Whether the tag refused GET_VERSION: NTAG21x and Ultralight EV1 answer it, so such a tag
  /// has no PWD_AUTH either (an original Ultralight, an Ultralight C, NTAG203).
  private static func getVersionRefused(_ c: DiagnosisContext) -> Bool {
    c.log.commands.contains {
      if case .nak = $0.answer { return $0.name == "GET_VERSION" }
      return false
    }
  }

  /// AUTH0 not read, but the app sent PWD_AUTH before the WRITE and the tag refused it, and
  /// none was accepted since: the app expected a password and had the wrong one, so the
  /// protection of the page is the likely cause — not proven without AUTH0 (CFG0 byte 3,
  /// NTAG21x datasheet §8.8.1). Only on products with PWD_AUTH (or unidentified ones).
  private static func refusedPasswordCause(
    _ page: Int, at frame: Int, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Cause? {
    // A tag that refused GET_VERSION has no PWD_AUTH either (an original Ultralight, an
    // Ultralight C, NTAG203): its NAK says nothing of a password. NAK 1 (a damaged frame)
    // neither: only NAK 0 (wrong password) and 4 (AUTHLIM reached) refuse the password.
    guard !g.tag.isUltralightC, !getVersionRefused(c),
      g.cfg0Page != nil || g.tag.ntagProduct == nil,
      let refused = c.log.commands.last(where: { $0.name == "PWD_AUTH" && $0.frame < frame }),
      case .nak(let code) = refused.answer, code == 0 || code == 4,
      !c.log.packFrames.contains(where: { $0 > refused.frame && $0 < frame })
    else { return nil }
    let p = Type2Geometry.page(page)
    let cfg0 = g.cfg0Page.map { "page \(Type2Geometry.page($0)), CFG0" } ?? "CFG0"
    // NAK 4: a wrong password, or AUTHLIM reached — ACCESS tells which (Type2AuthLimit).
    let limit = code == 4 ? Type2AuthLimit.at(refused, c, g) : nil
    let lockBytes = page <= 15 ? "page 2 (static lock bits)" : "the dynamic lock bytes"
    let confirm = "To confirm, read \(cfg0) (AUTH0 ≤ \(p) means protected) and \(lockBytes)."
    return Cause(
      code: "t2t-nak-password",
      cause: "the page is most likely password protected: the tag refused the app's password"
        + (limit.map {
          $0.wrongPassword ? "" : " (\(Type2AuthLimit.label): wrong, or AUTHLIM reached)"
        }
          ?? ""),
      message: "The app sent PWD_AUTH at frame \(refused.frame) and the tag refused it ("
        + (limit.map { "\(Type2AuthLimit.label)). \(Type2AuthLimit.disputed) " + $0.reason }
          ?? "NAK \(code)): the password sent is not the one in the tag's PWD page.")
        + " No PWD_AUTH was accepted before the WRITE of page \(p), and the tag refused it. The "
        + "trace does not show AUTH0 (\(cfg0)), so password protection of page \(p) is the "
        + "likely cause, not a proven one; a locked page is refused the same way.",
      fix: limit.map { $0.fix(then: "write") + " " + confirm }
        ?? ("Send the tag's password (the PWD page's 4 bytes) with sendMiFareCommand("
          + "commandPacket: [0x1B] + password) and check the 2-byte PACK before writing; after "
          + "a refused PWD_AUTH reconnect first (restartPolling() or connect(to:)). " + confirm),
      frames: [refused.frame, refused.answerFrame].compactMap { $0 } + (limit?.frames ?? []))
  }
}
