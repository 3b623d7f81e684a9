/// Rule: a writeLock's WRITE of page 2 asked for static lock bits that the block-locking bits
/// already set in LOCK0 freeze (NXP NTAG213/215/216 datasheet §8.5.2; MF0ICU2 §7.5.2: BL-CC
/// freezes the CC's lock bit, BL 9–4 those of pages 4–9, BL 15–10 those of pages 10–15).
///
/// Evidence: an acknowledged WRITE of page 2 in a writeLock, LOCK0 known before it (read, or
/// written earlier), and lock bits the WRITE sets for pages whose bits are frozen and still
/// clear (LOCK1's only when LOCK1 is known). The tag acknowledges such a WRITE, yet those pages
/// stay writable: the lock did nothing for them.
/// Code: `t2t-lock-bits-frozen` (warning; no Core NFC error: the WRITE was acknowledged).
enum Type2FrozenLockRule: DiagnosisRule {
  static let codes = ["t2t-lock-bits-frozen"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let g = Type2Geometry(c.session)
    var out: [DiagnosisFinding] = []
    for i in c.writeOperations where c.session.operations[i].kind == .writeLock {
      for w in c.commands(in: i) where w.isWrite && w.accepted && w.page == 2 && w.data.count == 4 {
        guard let (lock0, _) = g.byte(10, at: w.frame, writes: c.log.commands) else { continue }
        let lock1 = g.byte(11, at: w.frame, writes: c.log.commands)?.0
        let current = Int(lock0) | Int(lock1 ?? 0) << 8
        let requested = Int(w.data[2]) | Int(w.data[3]) << 8
        let lost = Type2Locks.BlockLock.frozenPages(lock0: lock0).filter { p in
          (p < 8 || lock1 != nil) && requested & (1 << p) != 0 && current & (1 << p) == 0
        }
        guard !lost.isEmpty else { continue }
        out.append(finding(i, write: w.frame, lock0: lock0, pages: lost))
        break
      }
    }
    return out
  }

  private static func finding(_ op: Int, write: Int, lock0: UInt8, pages: [Int])
    -> DiagnosisFinding
  {
    let list = (pages.count == 1 ? "page " : "pages ") + rangesText(pages)
    return DiagnosisFinding(
      code: "t2t-lock-bits-frozen", severity: .warning, operation: op, frames: [write],
      cause: "the lock bits of \(list) were frozen by block-locking bits already set",
      message: "The tag acknowledged the WRITE of page 2, but LOCK0 (\(Hex.string([lock0]))) "
        + "already had the block-locking bits that freeze the lock bits of \(list) (NXP "
        + "NTAG213/215/216 datasheet §8.5.2): the WRITE could not set them, so \(list) "
        + "\(pages.count == 1 ? "stays" : "stay") writable although the lock was acknowledged.",
      coreNFCError: nil,
      fix: "Set lock bits before (or with) the block-locking bits that freeze them. On this tag "
        + "\(list) can no longer be locked: treat the lock as incomplete, and set the CC's "
        + "write access to Fh (writeLock(completionHandler:)) so readers report it read-only.")
  }
}
