/// Rule: an app's own page loop ran past the user memory into the tag's lock and
/// configuration pages.
///
/// Evidence: acknowledged Type 2 WRITEs in consecutive ascending pages that start inside the
/// user memory of an identified product (pages 4 to 3 + user bytes / 4, nfc-facts §4.3) and
/// continue at least two pages past it.
/// Core NFC's writeNDEF never writes there, so the app wrote the pages itself
/// (sendMiFareCommand). What each page past the area holds (nfc-facts §4.3–4.5, NXP NTAG21x
/// datasheet §8.5–8.8): the dynamic lock bytes (one-time programmable: a set bit locks its
/// pages for good), CFG0 (AUTH0: first page needing the password), CFG1 (ACCESS: PROT,
/// CFGLCK, which freezes the configuration for good, AUTHLIM), PWD and PACK.
/// A deliberate lock (writeLock: CC3, then the lock bytes) is not a run from the data area.
/// Code: `t2t-write-past-data-area` (error; no Core NFC error: every WRITE was acknowledged).
enum Type2DataAreaOverflowRule: DiagnosisRule {
  static let codes = ["t2t-write-past-data-area"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let g = Type2Geometry(c.session)
    // Past the user memory of an identified product: NTAG215/216 have user pages after the
    // CC's data area, so the CC alone does not tell where the lock and configuration pages are.
    // Unidentified, a CC of 128 or 144 bytes ends where the dynamic lock page begins
    // (NTAG212/213, MF0UL21: `Type2Geometry.dynamicLockPage`).
    guard let end = g.userBytes.map({ 4 + $0 / 4 }) ?? g.dynamicLockPage else { return [] }
    let (start, spill) = overflow(c.log.commands, end: end)
    // One page past the end may be a deliberate lock right after a full write: two or more
    // are a loop that did not stop, and so is one the message itself runs into or the
    // Terminator TLV written after a message that fills the area.
    guard let start,
      spill.count >= 2 || messageReaches(end, c.session)
        || terminatorPast(spill, end: end, c.session),
      let op = c.operation(at: start)
    else { return [] }
    let pages = spill.compactMap(\.page)
    let what = spill.map { describe($0, g) }
    // The end is the identified product's user memory (NTAG215/216 have user pages past the
    // CC's data area), else the data area the CC declares.
    let (area, source) =
      g.userBytes != nil
      ? ("user memory", "the last user page of the \(c.session.tag.product ?? "product")")
      : ("NDEF data area", "from the CC")
    let ccOverstates = g.dataAreaEndPage.map { $0 > end } ?? false
    // When the CC overstates the memory, queryNDEFStatus's capacity is the CC's: checking
    // against it does not help, the product's user memory is the limit.
    let sizeCheck =
      ccOverstates
      ? "Keep messages within \(Type2CCChecks.largestMessage((end - 4) * 4)) bytes on this tag (its "
        + "user memory, pages 4–\(end - 1), less the NDEF TLV's T and L): queryNDEFStatus's "
        + "capacity comes from the CC, which overstates it, so writeNDEF writes past it too."
      : "Write NDEF with writeNDEF(_:completionHandler:), after checking the message size "
        + "against queryNDEFStatus's capacity."
    var f = DiagnosisFinding(
      code: "t2t-write-past-data-area", severity: .error, operation: op,
      frames: spill.map(\.frame),
      cause:
        "the app's page writes ran past the \(area) (pages 4–\(end - 1)) into "
        + (pages.count == 1 ? "page " : "pages ") + rangesText(pages),
      message:
        "Consecutive WRITEs from the \(area) continued past its end (page \(end - 1), "
        + "\(source)), and the tag acknowledged them: " + what.joined(separator: "; ")
        + (ccOverstates
          ? ". The CC declares a data area up to page \((g.dataAreaEndPage ?? end) - 1), past the "
            + "user memory (t2t-cc-exceeds-memory): Core NFC's writeNDEF, trusting it, writes "
            + "there too."
          : ". Core NFC's writeNDEF never writes there: the app wrote the pages itself."),
      coreNFCError: nil,
      fix:
        sizeCheck + " An app that writes pages with sendMiFareCommand "
        + "must stop at the last user page (\(end - 1)). Lock bits and a set "
        + "CFGLCK cannot be undone; rewrite CFG0/CFG1/PWD with the intended values if they are "
        + "not locked.")
    // The message's tail is not in user memory: it does not read back as written.
    f.effect = .badContent
    return [f]
  }

  /// Whether the NDEF TLV left on the tag announces bytes in page `end` or later.
  private static func messageReaches(_ end: Int, _ s: SessionAnalysis) -> Bool {
    guard let valueEnd = s.memory.type2Area?.ndefValueEndAddress else { return false }
    return valueEnd > end * 4
  }

  /// Whether the one WRITE past the area puts a Terminator TLV (`FE`, NFC Forum T2T 1.0 §2.3.6)
  /// right after a message that ends with the area: the app's loop wrote the TLV after the
  /// message where there was no room for it (Core NFC and Android leave it out then).
  private static func terminatorPast(
    _ spill: [SessionCommandLog.Command], end: Int, _ s: SessionAnalysis
  ) -> Bool {
    guard spill.count == 1, spill[0].page == end, spill[0].data.first == 0xFE,
      let valueEnd = s.memory.type2Area?.ndefValueEndAddress
    else { return false }
    return valueEnd == end * 4
  }

  /// The acknowledged WRITEs past page `end − 1` that continue a run of consecutive pages
  /// begun inside user memory, in order, and the frame of the first run's first WRITE.
  private static func overflow(_ log: [SessionCommandLog.Command], end: Int)
    -> (start: Int?, writes: [SessionCommandLog.Command])
  {
    var out: [SessionCommandLog.Command] = []
    var previous: Int?
    var runStart: Int?
    var start: Int?
    var crossing = false
    for w in log where w.isWrite {
      guard let page = w.page else { continue }
      defer { previous = page }
      guard let p = previous, page == p + 1 else {
        crossing = false
        runStart = w.frame
        continue
      }
      if page >= end, p < end || crossing {
        crossing = true
        if start == nil { start = runStart }
        if w.answer == .ack { out.append(w) }
      }
    }
    return (start, out)
  }

  /// `page 40 (dynamic lock bytes, one-time programmable: 71 71 71 sets lock bits)`.
  private static func describe(_ w: SessionCommandLog.Command, _ g: Type2Geometry) -> String {
    let page = w.page ?? 0
    let bytes = Hex.string(w.data.prefix(4), separator: " ")
    let head = "page \(page) ← \(bytes)"
    if page == g.dynamicLockPage {
      let set = w.data.prefix(3).reduce(0) { $0 + $1.nonzeroBitCount }
      return head
        + " (dynamic lock bytes: \(set) bits set for good; they are one-time programmable)"
    }
    guard let cfg0 = g.cfg0Page else { return head + " (outside the data area)" }
    let family: Type2Configuration.Family =
      g.tag.ntagProduct.flatMap(Type2Configuration.init(product:))?.family ?? .ntag21x
    switch page {
    case cfg0:
      let c = Type2Configuration(
        family: family, cfg0Page: cfg0, cfg0: Array(w.data.prefix(4)), cfg1: nil)
      let auth0 = c.auth0.map { "0x" + String($0, radix: 16, uppercase: true) } ?? "?"
      let protected =
        c.protectedPages.map { "pages \($0.lowerBound)–\($0.upperBound) now need the password" }
        ?? "no page needs the password"
      return head + " (CFG0: AUTH0 \(auth0), \(protected))"
    case cfg0 + 1:
      let access = w.data.first ?? 0
      var parts = ["ACCESS 0x" + Hex.string([access], separator: "")]
      if access & 0x80 != 0 { parts.append("PROT: reads need the password too") }
      if access & 0x40 != 0 { parts.append("CFGLCK: the configuration is now locked for good") }
      if access & 0x07 != 0 { parts.append("AUTHLIM \(access & 0x07)") }
      return head + " (CFG1: " + parts.joined(separator: ", ") + ")"
    case cfg0 + 2: return head + " (PWD: the password is now these bytes)"
    case cfg0 + 3: return head + " (PACK: the password acknowledge is now these bytes)"
    default: return head + " (outside the data area)"
    }
  }
}
