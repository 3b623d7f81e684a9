/// Rule: a writeLock that left pages of the NDEF data area writable.
///
/// Evidence: a Type 2 writeLock that ended `ok`, after which the CC's write access is Fh
/// (queryNDEFStatus now says .readOnly), while lock bits known from the memory the session
/// left (page 2: static bits of pages 3–15; the dynamic lock bytes of an identified product or
/// of a Lock Control TLV: pages 16 on) leave pages of the data area unlocked. Read-only in
/// NFC Forum terms is the CC's write access Fh and the lock bits set; Android and nfcpy set
/// both static and dynamic bits (nfc-facts §5.3). Pages whose lock bits are unknown are not
/// counted.
/// Code: `t2t-lock-incomplete` (warning; no Core NFC error: the writes were acknowledged).
enum Type2LockCompletenessRule: DiagnosisRule {
  static let codes = ["t2t-lock-incomplete"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let g = Type2Geometry(c.session)
    guard let cc = g.cc, cc.hasMagic, cc.bytes[3] & 0x0F == 0x0F, let end = g.dataAreaEndPage,
      let op = c.writeOperations.last(where: {
        c.session.operations[$0].kind == .writeLock && c.session.operations[$0].outcome == .ok
      })
    else { return [] }
    let open = (4..<end).filter { p in
      (p <= 15 ? g.staticLock(p)?.locked : g.dynamicLock(p)?.locked) == false
    }
    guard !open.isEmpty else { return [] }
    let writes = c.commands(in: op).filter(\.isWrite).map(\.frame)
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
        coreNFCError: nil,
        fix: "To make the tag permanently read-only, set the static lock bytes (page 2 bytes "
          + "2–3 = FF FF) and the dynamic lock bytes of the product as well, as Android's "
          + "makeReadOnly and nfcpy do; writeLock(completionHandler:) is the Core NFC call.")
    ]
  }
}
