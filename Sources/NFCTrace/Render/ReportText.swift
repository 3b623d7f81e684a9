import NDEF

/// The text form of `nfctrace report`: tag identity, operations, NDEF status, CC, lock bits,
/// configuration pages, TLVs, the NDEF message (through `NDEFTextRenderer`) and the memory map,
/// as left at the end of the session and, where it differs, as found at its start.
///
/// Secrets (PWD, PACK, the PWD_AUTH password) are shown as `present (masked)` unless
/// `showSecrets` is set.
public enum ReportText {
  /// The whole report of `r`.
  public static func render(_ r: TagReport, showSecrets: Bool = false) -> String {
    var out = header(r)
    out += identity(r.tag, dump: r.isDump)
    out += operations(r, showSecrets: showSecrets)
    out += status(r)
    out += cc(r.end)
    out += locks(r.end)
    out += config(r, showSecrets: showSecrets)
    out += ultralightCAuth(r.end)
    out += tlvs(r.end, title: "TLVs")
    out += message(
      r.end.message, title: r.changed ? "As left at the end" : nil, showSecrets: showSecrets,
      unreadable: r.end.unreadableReason, type3: r.layout == .type3)
    for note in r.notes { out += "note: \(note)\n" }
    if r.changed {
      out += tlvs(r.start, title: "TLVs as found at the start", skipIfSame: r.end)
      out += message(
        r.start.message, title: "As found at the start", showSecrets: showSecrets,
        unreadable: r.start.unreadableReason, type3: r.layout == .type3)
    }
    out += memory(r, showSecrets: showSecrets)
    out += unknowns(r)
    for w in r.warnings { out += "warning: \(w)\n" }
    return out
  }

  // MARK: Header and identity

  static func header(_ r: TagReport) -> String {
    switch r.origin {
    case .dump(let format):
      return "Tag report · static dump: contents only, no exchange (\(format))\n"
    case .session(let info):
      return "Tag report · session \(info.index) · frames #\(info.firstFrame)–#\(info.lastFrame) · "
        + info.span + "\n"
    }
  }

  /// `  key            value`: the value starts at column `width` after the indent.
  static func row(_ key: String, _ value: String, indent: String = "  ", width: Int = 16)
    -> String
  {
    let pad = max(1, width - key.count)
    return indent + key + String(repeating: " ", count: pad) + value + "\n"
  }

  static func identity(_ t: TagIdentity, dump: Bool) -> String {
    let missing = dump ? "not stored in the dump" : "not seen"
    var out = "\nTag\n"
    out += row("technology", t.technology.rawValue)
    var uid = t.uidString ?? "unknown"
    if let m = t.manufacturer { uid += " · \(m)" }
    if t.collision { uid += " (several tags answered)" }
    out += row("UID", uid)
    if t.technology == .nfcF {
      // NFC-F has no ATQA, SAK or ATS: the card's PMm says what it is.
      let pmm = t.pmm.map {
        Hex.string($0, separator: " ") + " (IC code \(Hex.string(Array($0.dropFirst().prefix(1)))))"
      }
      out += row("PMm", pmm ?? missing)
    } else if t.technology != .nfcV {
      // NFC-V (ISO/IEC 15693) has no ATQA, SAK or ATS either: its UID names the maker.
      out += row(
        "ATQA", t.atqa.map { ATQA(value: $0).decode.summary.dropFirst(5).description } ?? missing)
      out += row(
        "SAK", t.sak.map { SAK($0).decode(level: nil).summary.dropFirst(4).description } ?? missing)
      out += row("ATS", t.ats.map { ATS($0).decode.summary.dropFirst(4).description } ?? "none")
    }
    if let atqb = t.atqb.flatMap(ATQB.init(parsing:)) {
      out += row("ATQB", atqb.decode.summary.dropFirst(5).description)
    }
    if let atr = t.atr { out += row("ATR", Hex.string(atr, separator: " ") + " (PC/SC reader)") }
    var product = t.product ?? "unknown"
    if let v = t.version {
      let named =
        t.versionContradictsSize
        ? t.versionInfo.map { ", which names the \($0.productName): not this dump's size" } ?? ""
        : ""
      product += " (GET_VERSION \(Hex.string(v, separator: " "))\(named))"
    }
    out += row("product", product)
    let memory =
      t.memoryBytes.map { "\($0) bytes" }
      ?? t.memoryRange.map {
        "between \($0.lowerBound) and \($0.upperBound) bytes (GET_VERSION storage size)"
      }
      ?? "unknown"
    out += row("memory", memory)
    // The originality signature (READ_SIG, NXP's ECC signature of the UID): a public value.
    if let sig = t.signature { out += row("signature", Hex.string(sig, separator: " ")) }
    return out
  }

  // MARK: Operations and status

  static func operations(_ r: TagReport, showSecrets: Bool) -> String {
    guard !r.isDump else { return "" }
    var out = "\nOperations\n"
    if r.operations.isEmpty { out += "  none\n" }
    let spans = r.operations.map { "#\($0.firstFrame)–#\($0.lastFrame)" }
    let width = spans.map(\.count).max() ?? 0
    for (recorded, span) in zip(r.operations, spans) {
      let op = showSecrets ? recorded : ReportJSON.masking(recorded)
      let gap = String(repeating: " ", count: width - span.count)
      var line = "  \(span)\(gap)  \(op.shortText)"
      if let reason = op.reason { line += ": \(reason)" }
      let details = op.details.filter {
        !["message", "rule", "status", "capacity"].contains($0.key)
      }
      if !details.isEmpty {
        line +=
          "  ["
          + details.map { "\($0.key) \(detailText($0, showSecrets: showSecrets))" }.joined(
            separator: ", ") + "]"
      }
      out += line + "\n"
    }
    return out
  }

  static func detailText(_ d: LayerField, showSecrets: Bool) -> String {
    if !showSecrets && ReportJSON.secretKeys.contains(d.key)
      && !ReportJSON.isFactoryDefault(d.value)
    {
      return ReportJSON.masked
    }
    if !showSecrets, d.key == "message", case .hex(let message) = d.value,
      let masked = ReportJSON.maskedMessage(message, separator: " ")
    {
      return masked
    }
    switch d.value {
    case .int(let i): return String(i)
    case .string(let s): return s
    case .bool(let b): return b ? "yes" : "no"
    case .hex(let b): return Hex.string(b, separator: " ")
    }
  }

  static func status(_ r: TagReport) -> String {
    guard let s = r.ndefStatus else {
      let why =
        r.layout == .type3
        ? "the Attribute Information Block was not read"
        : r.tag.isMIFAREClassic && r.layout != .type4
          ? TagContents.classicNotDecoded
          : r.layout == .type5
            ? "the CC (block 0) was not read"
            : r.end.type4CCIncomplete ? "the CC was read only in part" : "the CC was not read"
      return "\n" + row("NDEF status", "unknown (\(why))", indent: "", width: 18)
    }
    var text = s.status.rawValue
    if let c = s.capacity { text += ", capacity \(c) bytes" }
    if let reason = s.reason { text += " (\(reason))" }
    return "\n" + row("NDEF status", text, indent: "", width: 18)
  }

  // MARK: CC

  static func cc(_ c: TagContents) -> String {
    if let cc = c.type2CC { return type2CC(cc) }
    if let cc = c.type4CC { return type4CC(cc) }
    if let aib = c.type3AIB { return type3AIB(aib) }
    if let cc = c.type5CC { return type5CC(cc) }
    if let e = c.type4CCError {
      let state = c.type4CCIncomplete ? "read only in part" : "invalid"
      return "\nCapability container: \(state) (\(e))\n"
    }
    return ""
  }

  static func access(_ nibble: Int, write: Bool) -> String {
    switch nibble {
    case 0: return "0 (free)"
    case 0xF where write: return "F (none: read-only)"
    case 8 where write: return "8 (proprietary: password, as nfcpy writes for NTAG21x)"
    default:
      let meaning = Type2CapabilityContainer.accessMeaning(nibble, write: write)
      return "\(String(nibble, radix: 16, uppercase: true)) (\(meaning))"
    }
  }

  static func type2CC(_ cc: Type2CapabilityContainer) -> String {
    var out = "\nCapability container (page 3: \(Hex.string(cc.bytes, separator: " ")))\n"
    let magic = Hex.string([cc.bytes[0]])
    out += row("magic", magic + (cc.hasMagic ? " (NDEF)" : " (not the NDEF magic e1)"))
    out += row("version", "\(cc.version.major).\(cc.version.minor)")
    out += row("data area", "\(cc.dataAreaSize) bytes (CC2 \(Hex.string([cc.bytes[2]])) × 8)")
    out += row("read access", access(cc.readAccess, write: false))
    out += row("write access", access(cc.writeAccess, write: true))
    return out
  }

  /// The Type 5 CC, field by field (NFC Forum T5T 1.0 §4.3.1).
  static func type5CC(_ cc: Type5CapabilityContainer) -> String {
    var out =
      "\nCapability container (block 0: \(Hex.string(cc.bytes, separator: " ")))\n"
    let addressing = cc.magic == 0xE2 ? "2-byte block addresses" : "1-byte block addresses"
    out += row("magic", Hex.string([cc.magic]) + " (NDEF, \(addressing))")
    out += row("version", cc.version)
    let mlen = cc.eightBytes ? "bytes 6–7" : "MLEN \(Hex.string([cc.bytes[2]]))"
    out += row("T5T area", "\(cc.areaSize) bytes (\(mlen) × 8)")
    out += row("read access", cc.readAccess)
    out += row("write access", cc.writeAccess)
    let multiple =
      cc.features & 1 != 0 ? "READ MULTIPLE BLOCKS supported" : "no READ MULTIPLE BLOCKS"
    out += row("features", Hex.string([cc.features]) + " (\(multiple))")
    return out
  }

  /// The Type 3 Attribute Information Block, field by field (NFC Forum T3T 1.0 §7.1).
  static func type3AIB(_ a: Type3AttributeBlock) -> String {
    var out =
      "\nAttribute Information Block (block 0: \(Hex.string(a.bytes, separator: " ")))\n"
    out += row("version", a.versionText)
    out += row("Nbr / Nbw", "\(a.nbr) / \(a.nbw) blocks per CHECK / UPDATE")
    out += row("NmaxB", "\(a.nmaxb) blocks (\(a.capacity) bytes)")
    let write =
      a.writeFlag == 0
      ? "00 (OFF)"
      : a.writeInProgress
        ? "0F (ON: a write began and did not end)" : "\(Hex.string([a.writeFlag])) (RFU)"
    out += row("WriteF", write)
    let rw =
      a.rwFlag == 1
      ? "01 (read/write)" : a.rwFlag == 0 ? "00 (read-only)" : "\(Hex.string([a.rwFlag])) (RFU)"
    out += row("RW Flag", rw)
    out += row("Ln", "\(a.ln) bytes")
    let sum = Hex.word(UInt16(truncatingIfNeeded: a.computedChecksum))
    out += row(
      "checksum",
      Hex.word(UInt16(a.checksum))
        + (a.checksumValid ? " (ok)" : " (wrong: bytes 0–13 sum to \(sum))"))
    return out
  }

  static func type4CC(_ cc: CapabilityContainer4) -> String {
    let f = cc.ndefFile
    var out = "\nCapability container (file E103)\n"
    out += row("CCLEN", "\(cc.ccLen)" + (cc.isTruncated ? " (read only partly)" : ""))
    out += row("mapping version", cc.versionString)
    out += row("MLe", "\(cc.mle) bytes")
    out += row("MLc", "\(cc.mlc) bytes")
    let id = Hex.string([UInt8(f.fileID >> 8), UInt8(f.fileID & 0xFF)])
    out += row("NDEF file", id + (f.tlvType == 0x06 ? " (extended NDEF file control)" : ""))
    out += row("max size", "\(f.maxSize) bytes")
    out += row(
      "read access",
      "\(Hex.string([f.readAccess])) (\(CapabilityContainer4.accessMeaning(f.readAccess)))")
    out += row(
      "write access",
      "\(Hex.string([f.writeAccess])) (\(CapabilityContainer4.accessMeaning(f.writeAccess)))")
    // Proprietary File Control TLVs (05h): files beside the NDEF file, with their own access.
    for p in cc.proprietaryFiles {
      out += row(
        "proprietary",
        "file " + Hex.string([UInt8(p.fileID >> 8), UInt8(p.fileID & 0xFF)])
          + ", max \(p.maxSize) bytes, "
          + "read \(Hex.string([p.readAccess])) (\(CapabilityContainer4.accessMeaning(p.readAccess))), "
          + "write \(Hex.string([p.writeAccess])) "
          + "(\(CapabilityContainer4.accessMeaning(p.writeAccess)))")
    }
    // Values T4T does not allow, each named (Android's NDEF detection refuses such a tag).
    for p in cc.valueProblems { out += row("invalid", p.description) }
    return out
  }

  // MARK: Locks and configuration

  static func ranges(_ pages: [Int]) -> String {
    guard !pages.isEmpty else { return "none" }
    var parts: [String] = []
    var start = pages[0]
    var last = pages[0]
    for p in pages.dropFirst() + [Int.min] {
      if p == last + 1 {
        last = p
        continue
      }
      parts.append(start == last ? "\(start)" : "\(start)–\(last)")
      start = p
      last = p
    }
    return parts.joined(separator: ", ")
  }

  static func locks(_ c: TagContents) -> String {
    guard let l = c.locks else { return "" }
    var out = "\nLock bits\n"
    let staticPages = l.staticLockedPages
    let setOnly = { (name: String) in setOnlyMark(l, name) }
    if l.lock0 != nil || l.lock1 != nil {
      // One byte alone is known after a WRITE of page 2 that wrote 00 over the other.
      let hex = { (b: UInt8?, name: String) in
        b.map { Hex.string([$0]) + setOnly(name) } ?? "??"
      }
      out += row(
        "static",
        "LOCK0 \(hex(l.lock0, "LOCK0")) LOCK1 \(hex(l.lock1, "LOCK1")): "
          + (staticPages.isEmpty ? "no page locked" : pagesLocked(staticPages)))
      let bl = l.blockLocks.map(\.rawValue)
      out += row(
        "block-lock",
        l.lock0 == nil ? "not known" : bl.isEmpty ? "none" : bl.joined(separator: ", ") + " frozen")
    } else {
      out += row(
        "static",
        c.staticLocksUnacknowledged
          ? "not known (page 2 written without acknowledgement)" : "not read (page 2)")
    }
    if let d = l.dynamic {
      let locked = d.lockedRanges.flatMap { Array($0) }
      let byte = { (i: Int) in
        d.unknownBytes.contains(i) ? "??" : Hex.string([d.bytes[i]]) + setOnly("LOCK\(i + 2)")
      }
      var text = "page \(d.page): LOCK2 \(byte(0)) LOCK3 \(byte(1))"
      if d.lock4 != nil { text += " LOCK4 \(byte(2))" }
      text += " (\(d.pagesPerBit) pages per bit): "
      text += locked.isEmpty ? "no page locked" : pagesLocked(locked)
      out += row("dynamic", text)
    }
    var unknown: [String] = []
    if l.lock0 == nil || l.lock1 == nil {
      unknown.append("static")
    } else if l.setBitsOnly.contains(where: { $0 == "LOCK0" || $0 == "LOCK1" }) {
      unknown.append("some static")
    }
    if l.dynamicUnknown { unknown.append(l.dynamic == nil ? "dynamic" : "some dynamic") }
    let caveat =
      unknown.isEmpty ? "" : " (\(unknown.joined(separator: " and ")) lock bits not known)"
    out += row("read-only pages", ranges(l.lockedPages) + caveat)
    return out
  }

  /// ` (set bits only)` after a lock byte written over a value never read
  /// (`Type2Locks.setBitsOnly`): the bits shown clear may be set.
  private static func setOnlyMark(_ l: Type2Locks, _ name: String) -> String {
    l.setBitsOnly.contains(name) ? " (set bits only)" : ""
  }

  /// `page 3 locked`, `pages 3–15 locked`.
  private static func pagesLocked(_ pages: [Int]) -> String {
    (pages.count == 1 ? "page " : "pages ") + ranges(pages) + " locked"
  }

  /// A secret's text: masked unless `showSecrets`. Zeros are what NTAG21x and Ultralight EV1
  /// answer to a READ of the PWD/PACK pages (datasheet §8.5.7): `source` says where they were
  /// read, so the text can say whether they can be the real value.
  static func secret(_ b: [UInt8]?, _ showSecrets: Bool, source: SecretSource = .sent)
    -> String
  {
    // The tag never returns them (a READ answers zeros): only a PWD_AUTH on the air or a
    // dump can show them, so "not read" would suggest reading them could.
    guard let b else { return "not known (the tag never returns it; reads as zeros)" }
    // Sent on the air (PWD_AUTH), zeros are the password itself: masked like any other.
    if source != .sent, b.allSatisfy({ $0 == 0 }) {
      switch source {
      case .trace:
        return "reads as zeros (the tag never returns it: the real value is not in the trace)"
      case .dump:
        return Hex.string(b, separator: " ")
          + " (zeros: a dump read from a tag holds zeros here, not the real value; an "
          + "emulator image holds the value it uses)"
      case .sent: break
      }
    }
    // NXP's factory default (NTAG213/215/216 datasheet §8.8.1) is public, not a secret: seeing
    // it tells whether the tag was ever protected, and a dump tool fills an unknown PWD with it.
    if ReportJSON.isFactoryDefaultPassword(b) {
      return Hex.string(b, separator: " ") + " (NXP's factory default password, not a secret)"
    }
    return showSecrets ? Hex.string(b, separator: " ") : ReportJSON.masked
  }

  static func config(_ r: TagReport, showSecrets: Bool) -> String {
    let c = r.end.config
    guard c != nil || !r.passwordAuths.isEmpty || !r.counters.isEmpty else { return "" }
    var out = "\nConfiguration" + (c.map { " (CFG0 page \($0.cfg0Page))" } ?? "") + "\n"
    if let c { out += configPages(c, showSecrets: showSecrets, source: r.isDump ? .dump : .trace) }
    for a in r.passwordAuths {
      var text = "#\(a.frame) password \(secret(a.password, showSecrets))"
      if let pack = a.pack { text += ", PACK \(secret(pack, showSecrets))" }
      text += a.outcome == .ok ? ": accepted" : ": \(a.outcome.rawValue)"
      out += row("PWD_AUTH", text)
    }
    for (n, v) in r.counters { out += row("counter \(n)", "\(v)") }
    return out
  }

  static func ultralightCAuth(_ c: TagContents) -> String {
    guard let a = c.ultralightCAuth else { return "" }
    var out = "\nAuthentication (MIFARE Ultralight C, 3DES)\n"
    out += row(
      "AUTH0", a.auth0.map { "\(Hex.string([$0])): \(a.protectionText ?? "")" } ?? "not read")
    out += row(
      "AUTH1",
      a.auth1.map {
        "\(Hex.string([$0])): "
          + ($0 & 1 == 1
            ? "bit 0 = 1 (reads free)"
            : a.auth0 != nil && a.protectedPages == nil
              ? "bit 0 = 0 (no page protected)" : "bit 0 = 0 (reads need it too)")
      } ?? "not read")
    out += row("3DES key", "pages 44–47, write-only (a READ never returns it)")
    return out
  }

  static func configPages(
    _ c: Type2Configuration, showSecrets: Bool, source: SecretSource = .trace
  ) -> String {
    var out = ""
    if let cfg0 = c.cfg0 {
      out += row("CFG0", Hex.string(cfg0, separator: " "))
      if let m = c.mirrorConf, let b = c.mirrorByte, let p = c.mirrorPage {
        out += row(
          "MIRROR",
          "\(Type2Configuration.mirrorNames[m]) (MIRROR_CONF \(m)), MIRROR_BYTE \(b), MIRROR_PAGE \(p)"
        )
      }
      if let strong = c.strongModulation {
        out += row("strong mod.", strong ? "enabled" : "disabled")
      }
      if let sleep = c.sleepEnabled, let fdp = c.fieldDetectConf {
        out += row("SLEEP_EN", sleep ? "1 (sleep mode enabled)" : "0")
        out += row("FDP_CONF", "\(fdp) (\(fdp >> 1)\(fdp & 1)b)")
      }
      out += row("AUTH0", "\(Hex.string(cfg0.suffix(1))): \(c.protectionText ?? "")")
    } else {
      out += row("CFG0", "not read")
    }
    if let cfg1 = c.cfg1 {
      out += row("CFG1", Hex.string(cfg1, separator: " "))
      out += row("ACCESS", accessText(c))
      if let v = c.vctid { out += row("VCTID", Hex.string([v])) }
    } else {
      out += row("CFG1", "not read")
    }
    out += row("PWD", secret(c.pwd, showSecrets, source: source))
    out += row("PACK", secret(c.pack, showSecrets, source: source))
    return out
  }

  static func accessText(_ c: Type2Configuration) -> String {
    func bit(_ name: String, _ v: Bool?) -> String? { v.map { "\(name) \($0 ? 1 : 0)" } }
    var parts: [String] = []
    if let p = c.prot {
      parts.append("PROT \(p ? "1 (read and write protected)" : "0 (only write protected)")")
    }
    parts += [
      bit("CFGLCK", c.cfgLock), bit("NFC_CNT_EN", c.nfcCounterEnabled),
      bit("NFC_CNT_PWD_PROT", c.nfcCounterPasswordProtected),
    ].compactMap { $0 }
    if let a = c.authLimit { parts.append("AUTHLIM \(a)" + (a == 0 ? " (unlimited)" : "")) }
    return "\(Hex.string([c.access ?? 0])): " + parts.joined(separator: " · ")
  }

  // MARK: TLVs and message

  static func tlvs(_ c: TagContents, title: String, skipIfSame other: TagContents? = nil) -> String
  {
    guard let area = c.tlvArea else { return "" }
    if let other, let o = other.tlvArea, o.tlvs == area.tlvs { return "" }
    let unit = c.tlvUnit
    var out = "\n\(title) (tag byte address, \(unit.name).byte)\n"
    var i = 0
    while i < area.tlvs.count {
      let t = area.tlvs[i]
      let address = area.baseAddress + t.offset
      var line =
        "  @\(address) (\(unit.name) \(address / unit.size).\(address % unit.size))  \(t.tag.name)"
      // Runs of NULL TLVs are padding: one line each would bury the rest.
      var n = 1
      while t.tag == .null, i + n < area.tlvs.count, area.tlvs[i + n].tag == .null { n += 1 }
      if n > 1 { line += " ×\(n) (to byte \(address + n - 1))" }
      if t.lengthFieldSize > 0 { line += "  L=\(t.length)" }
      out += line + "\n"
      i += n
    }
    if !c.tlvFindings.isEmpty {
      out +=
        NDEFTextRenderer.renderFindings(c.tlvFindings).split(separator: "\n").map { "  " + $0 }
        .joined(separator: "\n") + "\n"
    }
    return out
  }

  /// The NDEF message block, under `title` ("As found at the start") when given; `type3`: a
  /// Type 3 Tag, whose empty message is Ln = 0 (NFC Forum T3T 1.0 §7.1).
  static func message(
    _ m: TagContents.Message, title: String?, showSecrets: Bool, unreadable: String? = nil,
    type3: Bool = false
  ) -> String {
    // A CC that grants no read access: the bytes are data, not NDEF a reader reads.
    let raw = unreadable.map { "data area as raw data, not the tag's readable NDEF (\($0)): " }
    let head = "\n" + (title.map { "\($0): " } ?? "") + (raw ?? "")
    switch m {
    case .unknown(let why): return head + "NDEF message unknown: \(why)\n"
    case .absent(let why): return head + "no NDEF message: \(why)\n"
    case .empty:
      if type3 {
        return head
          + "NDEF message empty (Ln = 0 in the Attribute Information Block: formatted, no "
          + "message)\n"
      }
      return head + "NDEF message empty (NDEF TLV / NLEN of length 0: initialized, no message)\n"
    case .incomplete(let length, let known):
      return head
        + "NDEF message of \(length) bytes, only \(known) known (read or written): not decoded\n"
    case .pastDataArea(let length, let available):
      return head
        + "NDEF message of \(length) bytes, but only \(available) remain in the data area: "
        + "readers reject it; not decoded\n"
    case .decoded(let report):
      return head + NDEFTextRenderer.render(report, showSecrets: showSecrets)
    }
  }

  // MARK: Memory

  /// Why the memory section has no row: nothing read, or — a MIFARE Classic whose plaintext
  /// READs the tag answered (MF1S50yyX datasheet §12.2) — blocks read but not decoded
  /// (`TagContents.classicNotDecoded`).
  static func nothingShown(_ r: TagReport) -> String {
    let blocks = Set(r.operations.flatMap(\.classicReads)).sorted()
    guard r.tag.isMIFAREClassic, !blocks.isEmpty else { return "nothing read" }
    let list = blocks.prefix(16).map(String.init).joined(separator: ", ")
    return "MIFARE Classic block\(blocks.count == 1 ? "" : "s") \(list)"
      + (blocks.count > 16 ? " … (\(blocks.count) in all)" : "")
      + " read, not shown: MIFARE Classic memory is not decoded"
  }

  static func memory(_ r: TagReport, showSecrets: Bool = false) -> String {
    let type4 = r.layout == .type4
    let type3 = r.layout == .type3
    let type5 = r.layout == .type5
    let end = r.rows(showSecrets: showSecrets)
    guard !end.isEmpty else { return "\nMemory: \(nothingShown(r))\n" }
    let start = r.rows(atStart: true, showSecrets: showSecrets)
    var out = "\nMemory" + (r.isDump ? " (from the dump)" : r.changed ? " as left at the end" : "")
    if r.changed { out += "; a \"start\" line gives the row as found where it differs" }
    out +=
      "\n"
      + (type4
        ? "  file  offset  bytes" + String(repeating: " ", count: 42)
        : type3
          ? "  block   bytes" + String(repeating: " ", count: 44)
          : type5
            ? "  block   bytes"
              + String(repeating: " ", count: max(0, (end.first?.bytes.count ?? 4) * 3 - 4))
            : "  page    bytes        ")
    out += "state           frame\n"
    var i = 0
    while i < end.count {
      let run = unknownRun(end, from: i)
      if run >= 3 {
        let range =
          type4
          ? label(end[i]) + "–" + String(end[i + run - 1].address, radix: 16)
          : pad("\(end[i].address)–\(end[i + run - 1].address)", 6)
        out += "  \(range)  not read (\(run) rows)\n"
        i += run
        continue
      }
      out += memoryLine(end[i], label: label(end[i]))
      let s =
        start.first { $0.file == end[i].file && $0.address == end[i].address }
        ?? MemoryRow(
          file: end[i].file, address: end[i].address, bytes: end[i].bytes.map { _ in 0 },
          known: end[i].known.map { _ in false }, state: .unknown, frame: nil)
      if !s.sameContents(as: end[i]) { out += memoryLine(s, label: pad("start", type4 ? 12 : 6)) }
      i += 1
    }
    return out
  }

  static func unknownRun(_ rows: [MemoryRow], from i: Int) -> Int {
    var n = 0
    while i + n < rows.count, rows[i + n].state == .unknown, rows[i + n].file == rows[i].file {
      n += 1
    }
    return n
  }

  static func label(_ row: MemoryRow) -> String {
    if let file = row.file {
      let id = Hex.string([UInt8(file >> 8), UInt8(file & 0xFF)])
      let offset = String(row.address, radix: 16)
      return id + "  " + String(repeating: "0", count: max(0, 6 - offset.count)) + offset
    }
    // NTAG I2C pages past sector 0 are numbered sector × 256 + page: shown as the tag's
    // sector and page (hex), `3:f8`, not as a page number the tag does not have.
    if row.address >= 256, !row.isBlock {
      return pad("\(row.address / 256):" + Hex.string([UInt8(row.address % 256)]), 6)
    }
    return pad(String(row.address), 6)
  }

  /// `text` right-aligned in `width` columns.
  static func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }

  static func memoryLine(_ row: MemoryRow, label: String) -> String {
    var bytes = ""
    for (i, (b, known)) in zip(row.bytes, row.known).enumerated() {
      if !bytes.isEmpty { bytes += " " }
      bytes += row.isMasked(i) ? "**" : known ? Hex.string([b]) : "??"
    }
    let width = row.file == nil ? row.bytes.count * 3 - 1 : 47
    bytes += String(repeating: " ", count: max(0, width - bytes.count))
    let state = row.state == .unacknowledged ? "unacknowledged" : row.state.rawValue
    let frame = row.frame.map { "#\($0)" + (row.earlierSession ? " (earlier session)" : "") } ?? ""
    let line =
      "  \(label)  \(bytes)  \(state)\(String(repeating: " ", count: max(1, 16 - state.count)))\(frame)"
    return line.trimmingSuffixSpaces() + "\n"
  }

  static func unknowns(_ r: TagReport) -> String {
    guard !r.end.unknowns.isEmpty else { return "" }
    return "\nNot known from this " + (r.isDump ? "dump" : "session") + "\n"
      + r.end.unknowns.map { "  - \($0)\n" }.joined()
  }
}

extension String {
  /// The string without trailing spaces.
  fileprivate func trimmingSuffixSpaces() -> String {
    var s = Substring(self)
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}

/// Where a PWD/PACK value shown in a report comes from.
enum SecretSource {
  /// A READ answer in a trace (zeros are the tag's read-back).
  case trace
  /// A memory dump (zeros are a reader's dump's read-back, or an emulator image's value).
  case dump
  /// Sent or answered on air (a PWD_AUTH's password, its PACK): the real bytes.
  case sent
}
