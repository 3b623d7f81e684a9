/// Rule: a writeLock that wrote dynamic lock bits where NFC Forum T2T's default layout puts
/// them, on a product whose dynamic lock bytes are elsewhere.
///
/// Evidence: an identified product with a dynamic lock page (NTAG215/216: pages 82h / E2h,
/// NTAG213/215/216 datasheet §8.5.3), a writeLock with an acknowledged WRITE of bits into the
/// default dynamic lock bytes — right after the CC's data area (16 + CC2 × 8) when no Lock
/// Control TLV says otherwise (T2T 1.0 §4.4, nfc-facts §5.2) — and that default place is not
/// the product's lock page: there it is user memory (nfc-facts §5.2 caution), so the WRITE
/// changed user data and locked nothing.
/// Code: `t2t-lock-misplaced` (warning; no Core NFC error: every WRITE was acknowledged).
enum Type2MisplacedLockRule: DiagnosisRule {
  static let codes = ["t2t-lock-misplaced"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let product = c.session.tag.ntagProduct,
      let lockPage = Type2Locks.dynamicLayout(product)?.page,
      let bytes = Type2Procedure.defaultLockBytes(c.session.memory),
      bytes.lowerBound / 4 != lockPage
    else { return [] }
    let pages = (bytes.lowerBound / 4)...((bytes.upperBound - 1) / 4)
    for op in c.writeOperations where c.session.operations[op].kind == .writeLock {
      let writes = c.commands(in: op).filter {
        $0.isWrite && $0.accepted && $0.page.map(pages.contains) == true
      }
      guard let first = writes.first else { continue }
      let written =
        (writes.count == 1 ? "page " : "pages ") + rangesText(writes.compactMap(\.page))
      let lock = Type2Geometry.page(lockPage)
      return [
        DiagnosisFinding(
          code: "t2t-lock-misplaced", severity: .warning, operation: op,
          frames: writes.map(\.frame),
          cause: "the dynamic lock bits went to \(written), user memory on \(product.displayName); "
            + "its lock page is \(lock)",
          message: "The writeLock wrote lock bits to \(written) (#\(first.frame)), where "
            + "NFC Forum T2T's default layout puts the dynamic lock bytes (right after the CC's "
            + "data area, byte \(bytes.lowerBound), when no Lock Control TLV says otherwise). "
            + "On \(product.displayName) that is user memory: its dynamic lock bytes are page \(lock). "
            + "The WRITE changed user data and locked nothing, so the pages after 15 stay "
            + "writable unless page \(lock) is set too.",
          coreNFCError: nil,
          fix: "Locate the dynamic lock bytes by product (GET_VERSION) or by the tag's Lock "
            + "Control TLV, not by the default layout: on \(product.displayName) write page \(lock) "
            + "(datasheet §8.5.3). writeLock(completionHandler:) is the Core NFC call.")
      ]
    }
    return []
  }
}
