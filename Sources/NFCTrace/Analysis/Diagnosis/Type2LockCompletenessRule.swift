/// Rule: a writeLock that left pages of the NDEF data area writable.
///
/// Evidence: a Type 2 writeLock that ended `ok`, after which the CC's write access is Fh
/// (queryNDEFStatus now says .readOnly), while lock bits known from the memory the session
/// left (page 2: static bits of pages 3–15; the dynamic lock bytes of an identified product or
/// of a Lock Control TLV: pages 16 on) leave pages of the data area unlocked. Read-only in
/// NFC Forum terms is the CC's write access Fh and the lock bits set; Android and nfcpy set
/// both static and dynamic bits (nfc-facts §5.3). Pages whose lock bits are unknown are not
/// counted. Also a writeLock that failed or was interrupted at its WRITE of the lock bits
/// after the tag acknowledged its WRITE of the CC with write access Fh (half-locked; the
/// refusal's own finding gives the Core NFC error).
/// Code: `t2t-lock-incomplete` (warning; no Core NFC error of its own).
enum Type2LockCompletenessRule: DiagnosisRule {
  static let codes = ["t2t-lock-incomplete"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let g = Type2Geometry(c.session)
    guard let cc = g.cc, cc.hasMagic, cc.bytes[3] & 0x0F == 0x0F, let end = g.dataAreaEndPage
    else { return [] }
    if let stopped = stoppedAfterCC(c, g, end: end) { return [stopped] }
    guard
      let op = c.writeOperations.last(where: {
        c.session.operations[$0].kind == .writeLock && c.session.operations[$0].outcome == .ok
      })
    else { return [] }
    let open = (4..<end).filter { p in
      g.pageLocked(p) == false
    }
    guard !open.isEmpty else { return [] }
    let writes = c.commands(in: op).filter(\.isWrite).map(\.frame)
    let frozen = frozenStaticPages(open, g)
    let fix =
      frozen.isEmpty
      ? "To make the tag permanently read-only, set the static lock bytes (page 2 bytes "
        + "2–3 = FF FF) and the dynamic lock bytes of the product as well, as Android's "
        + "makeReadOnly and nfcpy do; writeLock(completionHandler:) is the Core NFC call."
      : "The block-locking bits of LOCK0 (page 2 byte 2, bits 1–2) are set: they freeze the "
        + "lock bits of pages " + rangesText(frozen) + " for good, so no WRITE can set them any "
        + "more (NTAG213/215/216 datasheet §8.5.2) and those pages stay writable by raw WRITEs. "
        + "Treat the tag as read-only by its CC only, or use another tag where locking must hold"
        + (frozen.count == open.count
          ? "."
          : "; the lock bits of pages " + rangesText(open.filter { !frozen.contains($0) })
            + " can still be set (the product's lock bytes).")
    return [
      DiagnosisFinding(
        code: "t2t-lock-incomplete", severity: .warning, operation: op,
        frames: Array(writes.prefix(4)),
        cause: "the lock left pages " + rangesText(open) + " of the data area writable",
        message: "The CC's write access is now Fh, so queryNDEFStatus reports .readOnly and "
          + "NDEF writers stop, but the lock bits of pages " + rangesText(open) + " are not "
          + "set (read from or written to the tag in this session): raw WRITEs "
          + "(sendMiFareCommand, other readers ignoring the CC) still change them. The tag is "
          + "read-only by convention only.",
        coreNFCError: nil, fix: fix)
    ]
  }

  /// The pages of `open` whose static lock bit a block-locking bit of LOCK0 freezes
  /// (`Type2Locks.BlockLock`; NTAG213/215/216 datasheet §8.5.2), when page 2 is known.
  private static func frozenStaticPages(_ open: [Int], _ g: Type2Geometry) -> [Int] {
    guard let lock0 = g.memory.known(10, 1)?.first else { return [] }
    let frozen = Set(Type2Locks.BlockLock.frozenPages(lock0: lock0))
    return open.filter(frozen.contains)
  }

  /// A writeLock that failed or was interrupted after its WRITE of the CC with write access Fh
  /// was acknowledged, at a WRITE of lock bits (page 2, or the dynamic lock page) the tag
  /// refused or did not answer: the CC says read-only, the lock bits do not (half-locked).
  private static func stoppedAfterCC(_ c: DiagnosisContext, _ g: Type2Geometry, end: Int)
    -> DiagnosisFinding?
  {
    for op in c.writeOperations.reversed() {
      let o = c.session.operations[op]
      guard o.kind == .writeLock, o.outcome == .failed || o.outcome == .interrupted else {
        continue
      }
      let commands = c.commands(in: op)
      guard
        let ccWrite = commands.first(where: {
          $0.isWrite && $0.page == 3 && $0.accepted && $0.data.count == 4
            && $0.data[3] & 0x0F == 0x0F
        }),
        let stop = commands.first(where: {
          $0.frame > ccWrite.frame && $0.isWrite && !$0.accepted
        }), let page = stop.page
      else { continue }
      let covered: [Int]
      if page == 2 {
        covered = (4..<min(16, end)).filter { g.staticLock($0)?.locked != true }
      } else if page == g.dynamicLockPage {
        covered = (16..<end).filter { g.dynamicLock($0)?.locked != true }
      } else {
        continue
      }
      guard !covered.isEmpty else { continue }
      return halfLocked(op, ccWrite: ccWrite.frame, stop: stop, covered: covered)
    }
    return nil
  }

  private static func halfLocked(
    _ op: Int, ccWrite: Int, stop: SessionCommandLog.Command, covered: [Int]
  ) -> DiagnosisFinding {
    let what = stop.answer == .none ? "got no answer" : "was refused"
    let lockPage = stop.page.map(Type2Geometry.page) ?? "?"
    return DiagnosisFinding(
      code: "t2t-lock-incomplete", severity: .warning, operation: op,
      frames: [ccWrite, stop.frame],
      cause: "the lock stopped after the CC: its WRITE of the lock bits on page \(lockPage) "
        + what + ", pages " + rangesText(covered) + " stay writable",
      message: "This writeLock first wrote the CC with write access Fh, which the tag "
        + "acknowledged, so queryNDEFStatus now reports .readOnly and NDEF writers stop; then "
        + "its WRITE of the lock bits on page \(lockPage) \(what), so the lock bits of pages "
        + rangesText(covered) + " are not set and raw WRITEs (sendMiFareCommand) still change "
        + "them. The tag is half-locked, and stays so: on NTAG21x and MIFARE Ultralight the CC "
        + "page is one-time programmable (its bits can be set, never cleared), so its write "
        + "access cannot go back to 0h.",
      coreNFCError: nil,
      fix: "Find why the lock bits were not set (read page 2 and the product's configuration "
        + "pages: block-locking bits, or a password protecting them, which PWD_AUTH opens), then "
        + "write them with a raw WRITE (sendMiFareCommand, A2 + page + bytes): page 2 bytes "
        + "2–3 = FF FF, and the dynamic lock bytes of the product.")
  }
}
