/// Renders a report as a text tree (message → records → decoded fields) followed by the
/// findings. Used by `nfctrace ndef`.
public enum NDEFTextRenderer {
  /// The tree for `report`, optionally preceded by the Type 2 TLV area it came from.
  public static func render(
    _ report: NDEFReport, tlvArea: Type2TLVArea? = nil, showSecrets: Bool = false
  ) -> String {
    var out = ""
    if let area = tlvArea { out += renderTLVs(area) }
    let n = report.records.count
    // A message whose framing broke says so at once: its count is of the records before it,
    // and the size is what was given (the bytes used before the damage read as the input's).
    let records = "\(n) record\(n == 1 ? "" : "s")"
    if let failure = report.failure {
      // Offsets count from where the message sits (a TLV's value, a tag's memory): the bytes
      // given are placed there too.
      let given = report.input
      let place =
        given.lowerBound == 0 || given.isEmpty
        ? "" : ", bytes \(given.lowerBound)–\(given.upperBound - 1)"
      // A flag broken on a record that was read (ME missing on the last one) damages it, not
      // what follows it.
      let before = report.records.last.map { failure.offset > $0.record.offset } ?? true
      out +=
        "NDEF message (\(report.mode.rawValue)): \(records)"
        + (before ? " before the damage" : ", damaged") + " at byte "
        + "\(failure.offset) (\(given.count) byte\(given.count == 1 ? "" : "s") given\(place))\n"
    } else {
      out +=
        "NDEF message (\(report.mode.rawValue)): \(records), "
        + "\(report.consumed) byte\(report.consumed == 1 ? "" : "s")\n"
    }
    for (i, r) in report.records.enumerated() {
      let last = i == n - 1
      out += (last ? "└─ " : "├─ ") + recordLine(i, r) + "\n"
      lines(r.payload.fields(showSecrets: showSecrets), indent: last ? "   " : "│  ", into: &out)
    }
    out += renderFindings(report.findings + (tlvArea?.findings ?? []))
    return out
  }

  /// "record 0 @0 [MB ME SR IL] TNF 1 Well-known type "U", payload 12 bytes: URI".
  static func recordLine(_ i: Int, _ r: NDEFDecodedRecord) -> String {
    let rec = r.record
    let first = rec.chunks.first
    var flags: [String] = []
    if let f = first {
      if f.mb { flags.append("MB") }
      if rec.chunks.last?.me == true { flags.append("ME") }
      if f.cf { flags.append("CF") }
      if f.sr { flags.append("SR") }
      if f.il { flags.append("IL") }
    }
    var s =
      "record \(i) @\(rec.offset) [\(flags.joined(separator: " "))] TNF \(rec.tnf.rawValue) \(rec.tnf.name)"
    if !rec.type.isEmpty { s += " type " + quoted(rec.type) }
    if !rec.id.isEmpty || first?.il == true { s += " id " + quoted(rec.id) }
    s += ", payload \(rec.payload.count) bytes"
    if rec.isChunked {
      s +=
        " in \(rec.chunks.count) chunks ("
        + rec.chunks.map { "\($0.payload.count)" }.joined(separator: "+") + ")"
    }
    return s + ": " + r.payload.kindName
  }

  static func quoted(_ b: [UInt8]) -> String {
    if let t = NDEFText.printableASCII(b) { return "\"\(t)\"" }
    return "0x" + b.map(hex2).joined()
  }

  static func lines(_ fields: [NDEFField], indent: String, into out: inout String) {
    for (i, f) in fields.enumerated() {
      let last = i == fields.count - 1
      let branch = indent + (last ? "└─ " : "├─ ")
      let childIndent = indent + (last ? "   " : "│  ")
      switch f.value {
      case .object(let sub):
        out += branch + f.name + "\n"
        lines(sub, indent: childIndent, into: &out)
      case .list(let items):
        out += branch + f.name + " (\(items.count))\n"
        lines(
          items.enumerated().map { NDEFField("[\($0.offset)]", $0.element) }, indent: childIndent,
          into: &out)
      default:
        out += branch + f.name + ": " + scalar(f.value) + "\n"
      }
    }
  }

  static func scalar(_ v: NDEFValue) -> String {
    switch v {
    case .text(let s):
      var e = ""
      JSONWriter.escape(s, into: &e)
      // C1 controls and bidi overrides pass JSON escaping but still act on a terminal.
      return ControlEscape.escaped(e)
    case .int(let n): return String(n)
    case .bool(let b): return b ? "yes" : "no"
    case .bytes(let b):
      return b.isEmpty
        ? "(none)"
        : "0x" + b.prefix(64).map(hex2).joined() + (b.count > 64 ? "… (\(b.count) bytes)" : "")
    case .list(let l): return "\(l.count) items"
    case .object(let o): return "\(o.count) fields"
    }
  }

  static func renderTLVs(_ area: Type2TLVArea) -> String {
    var out =
      "Type 2 TLV area (input byte 0 = tag byte \(area.baseAddress)): \(area.tlvs.count) TLVs\n"
    var i = 0
    while i < area.tlvs.count {
      let t = area.tlvs[i]
      // A run of NULL TLVs (padding, a blank tag's whole data area) is one line, as in the
      // report: a blank NTAG215 would list 496 of them.
      var run = 1
      while t.tag == .null, i + run < area.tlvs.count, area.tlvs[i + run].tag == .null,
        area.tlvs[i + run].offset == t.offset + run
      {
        run += 1
      }
      i += run
      let last = i == area.tlvs.count
      var s = (last ? "└─ " : "├─ ") + "@\(t.offset) \(t.tag.name)"
      if run > 1 { s += " ×\(run) (to byte \(t.offset + run - 1))" }
      if t.lengthFieldSize > 0 {
        s += " L=\(t.length)" + (t.lengthFieldSize == 3 ? " (3-byte form)" : "")
      }
      if let a = area.reservedAreas.first(where: { $0.declaredAt == t.offset }) {
        s +=
          a.isLock
          ? ": \(a.lockBits ?? 0) lock bits at tag byte \(a.address) (\(a.size) bytes), \(a.bytesLockedPerBit ?? 0) bytes per bit"
          : ": \(a.size) reserved bytes at tag byte \(a.address)"
      }
      out += s + "\n"
    }
    return out
  }

  /// The findings block: "Findings (N):" then one entry per finding with readers/fix lines.
  public static func renderFindings(_ findings: [NDEFFinding]) -> String {
    guard !findings.isEmpty else { return "Findings: none\n" }
    var out = "Findings (\(findings.count)):\n"
    for f in findings {
      out += "  \(f.severity.rawValue) \(f.code) @\(f.offset): \(f.message)\n"
      if let r = f.readersShow { out += "    readers show: \(r)\n" }
      if let fix = f.fix { out += "    fix: \(fix)\n" }
    }
    return out
  }
}
