import NDEF

/// Rule: a writer put NDEF message bytes into bytes a Lock or Memory Control TLV reserves.
///
/// Evidence: acknowledged Type 2 WRITEs of a writeNDEF, from the NDEF TLV's page on, that
/// cover bytes of a reserved area inside the CC's data area (the areas the Lock and Memory
/// Control TLVs of the data area as found declare, NFC Forum T2T 1.0 §2.3.1–§2.3.2, nfc-facts
/// §5.2). NDEF readers skip reserved bytes when they read the message (nfcpy
/// `get_rsvd_byte_range`), so a writer that ignores the Control TLVs leaves a message that reads
/// back shifted: the bytes after the area are read as the message's next ones, its tail runs
/// past what was written, and reserved bytes (lock bits, on a Lock Control area) are
/// overwritten. Core NFC follows the TLVs, so the app wrote the pages itself.
/// Code: `t2t-write-into-reserved-area` (error, verdict `succeeded-with-bad-content` when the
/// write otherwise completed; no Core NFC error).
enum Type2ReservedAreaRule: DiagnosisRule {
  static let codes = ["t2t-write-into-reserved-area"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let start = c.session.memory.type2Start.knownRun(from: 16)
    guard !start.isEmpty else { return [] }
    let area = Type2TLVArea(parsing: start, baseAddress: 16)
    let dataEnd =
      c.session.memory.type2Start.known(12, 4).flatMap(Type2CapabilityContainer.init).map {
        16 + $0.dataAreaSize
      } ?? Int.max
    let reserved = area.reservedAreas.filter { $0.address >= 16 && $0.address < dataEnd }
    guard !reserved.isEmpty, let ndefAt = area.ndef.map({ 16 + $0.offset }) else { return [] }
    let before = c.session.memory.type2Start
    // A WRITE covers a whole page: a writer that skips the reserved bytes still writes their
    // page, with some values. Only a changed reserved byte is message data put there; one not
    // read before, written non-zero, is — unless the message as readers read it (around the
    // reserved bytes) is whole and well formed: then the writer skipped them.
    let readsWhole = endMessageValid(c)
    func changes(_ w: SessionCommandLog.Command, _ p: Int) -> Bool {
      w.data.enumerated().contains { k, b in
        let a = p * 4 + k
        guard reserved.contains(where: { $0.contains(a) }) else {
          return false
        }
        if readsWhole, before.known(a, 1) == nil { return false }
        return before.changed(by: b, at: a)
      }
    }
    var out: [DiagnosisFinding] = []
    for i in c.writeOperations where c.session.operations[i].kind == .writeNDEF {
      let hits = c.commands(in: i).filter { w in
        guard w.isWrite, w.answer == .ack, let p = w.page, p * 4 + 3 >= ndefAt else {
          return false
        }
        return changes(w, p)
      }
      guard let first = hits.first,
        let page = first.page,
        let r = reserved.first(where: { $0.bytes.overlaps(page * 4..<(page * 4 + 4)) })
      else { continue }
      out.append(finding(c, i, hits, area: r))
    }
    return out
  }

  /// Whether the NDEF message at the end reads as a writer that skipped the reserved areas
  /// laid it out: its Terminator (FEh) right after the message read around them, not where a
  /// writer going straight through would have put it, and the message free of errors
  /// (NDEFValidator, relax mode). A payload does not show a shift by itself (a MIME payload
  /// takes any bytes): the Terminator does.
  private static func endMessageValid(_ c: DiagnosisContext) -> Bool {
    let image = c.session.memory.type2End
    guard let area = c.session.memory.type2Area, let tlv = area.ndef, tlv.isComplete,
      tlv.length > 0, let end = area.ndefValueEndAddress,
      image.known(end, 1) == [0xFE]
    else { return false }
    let straightEnd = area.baseAddress + tlv.valueOffset + tlv.length
    if straightEnd != end, image.known(straightEnd, 1) == [0xFE] { return false }
    return !NDEFValidator.validate(tlv.value, mode: .relax).findings.contains {
      $0.severity == .error
    }
  }

  private static func finding(
    _ c: DiagnosisContext, _ i: Int, _ hits: [SessionCommandLog.Command], area r: Type2ReservedArea
  ) -> DiagnosisFinding {
    let kind = r.isLock ? "Lock Control" : "Memory Control"
    let pages = rangesText(hits.compactMap(\.page))
    var f = DiagnosisFinding(
      code: "t2t-write-into-reserved-area", severity: .error, operation: i,
      frames: hits.map(\.frame),
      cause: "the writer put message bytes into bytes the \(kind) TLV reserves (page "
        + "\(pages))",
      message: "The \(kind) TLV at tag byte \(r.declaredAt + 16) reserves \(r.size) byte(s) "
        + "from tag byte \(r.address) (page \(r.address / 4)), inside the data area. The writer "
        + "wrote message bytes straight through them, and the tag acknowledged: NDEF readers "
        + "skip reserved bytes when they read the message (NFC Forum T2T 1.0 §2.3), so they "
        + "read it shifted — the bytes after the area as the next ones, and a tail past what "
        + "was written."
        + (r.isLock ? " The bytes written there are lock bits: set ones are permanent." : ""),
      coreNFCError: nil,
      fix: "Write NDEF with writeNDEF(_:completionHandler:), which follows the Control TLVs; an "
        + "app writing pages itself must skip the reserved bytes, continuing the message after "
        + "them.")
    f.effect = .badContent
    return f
  }
}
