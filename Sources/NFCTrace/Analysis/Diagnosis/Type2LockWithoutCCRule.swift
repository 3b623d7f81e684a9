/// Rule: lock bits set on pages of the NDEF data area while the CC still grants write access.
///
/// Evidence: a session that leaves the CC with NDEF's magic E1h and write access 0h (CC3's low
/// nibble, nfc-facts §5.3), and an acknowledged WRITE of page 2 (static lock bits, pages 3–15)
/// or of the dynamic lock bytes after which pages of the data area are locked. Read-only in
/// NFC Forum terms is both: the CC's write access Fh and the lock bits (NFC Forum T2T 1.0
/// §4.5; Android and nfcpy write CC3 = 0Fh first, nfc-facts §5.3). With the bits alone,
/// queryNDEFStatus still reports .readWrite and the full capacity, while the tag refuses
/// (NAK) every WRITE to a locked page: each later writeNDEF fails with Core NFC 401. When the
/// static lock bit of page 3 is set too, the CC itself can no longer be written: the
/// mismatch is permanent.
/// Code: `t2t-lock-cc-writable` (warning; no Core NFC error of its own: the WRITEs were
/// acknowledged, the error comes with the next writeNDEF).
enum Type2LockWithoutCCRule: DiagnosisRule {
  static let codes = ["t2t-lock-cc-writable"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let g = Type2Geometry(c.session)
    guard let cc = g.cc, cc.hasMagic, cc.bytes[3] & 0x0F == 0, let end = g.dataAreaEndPage
    else { return [] }
    let locked = (4..<end).filter { p in
      g.pageLocked(p) == true
    }
    guard !locked.isEmpty else { return [] }
    // The session's own acknowledged WRITEs that set lock bits: bits read as set were set in
    // an earlier session, which this one cannot speak for.
    for op in c.writeOperations {
      let writes = c.commands(in: op).filter {
        $0.isWrite && $0.accepted && $0.data.count == 4
          && ($0.page == 2 && ($0.data[2] | $0.data[3]) != 0
            || $0.page != nil && $0.page == g.dynamicLockPage
              && ($0.data[0] | $0.data[1]) != 0)
      }
      guard !writes.isEmpty else { continue }
      return [finding(op, writes: writes.map(\.frame), locked: locked, ccLocked: g.staticLock(3))]
    }
    return []
  }

  private static func finding(
    _ op: Int, writes: [Int], locked: [Int], ccLocked: (locked: Bool, frame: Int?)?
  ) -> DiagnosisFinding {
    let pages = (locked.count == 1 ? "page " : "pages ") + rangesText(locked)
    let permanent = ccLocked?.locked == true
    let tail: String
    if permanent {
      tail =
        "The static lock bit of page 3 is set as well, so the CC can never be written: the tag "
        + "stays in this state for good."
    } else if ccLocked == nil {
      // LOCK0 written over a value never read: its clear bits are not known.
      tail =
        "Whether the CC page is locked is not known (LOCK0 was not read): if it is not, its "
        + "write access can still be set to Fh (its bits are one-time programmable: they can "
        + "be set, never cleared)."
    } else {
      tail =
        "The CC page is not locked, so its write access can still be set to Fh (its bits are "
        + "one-time programmable: they can be set, never cleared)."
    }
    return DiagnosisFinding(
      code: "t2t-lock-cc-writable", severity: .warning, operation: op, frames: writes,
      cause: "lock bits set on \(pages) while the CC's write access is still 0h",
      message: "The tag acknowledged the lock bits of \(pages) of the data area, but the "
        + "CC (page 3) still says write access 0h: queryNDEFStatus reports .readWrite with the "
        + "full capacity, yet the tag refuses (NAK) every WRITE to those pages, so each later "
        + "writeNDEF that reaches them fails with Core NFC 401 "
        + "(ndefReaderSessionErrorTagUpdateFailure). " + tail,
      coreNFCError: nil,
      fix: permanent
        ? "This tag cannot be repaired: treat it as read-only. To lock tags, call "
          + "writeLock(completionHandler:), which sets the CC's write access to Fh before the "
          + "lock bits, as Android's makeReadOnly and nfcpy do."
        : "Write the CC's byte 3 as 0Fh (a raw WRITE of page 3 keeping bytes 0–2) so readers "
          + "see the tag as read-only; to lock tags, call writeLock(completionHandler:), which "
          + "sets the CC's write access to Fh before the lock bits.")
  }
}
