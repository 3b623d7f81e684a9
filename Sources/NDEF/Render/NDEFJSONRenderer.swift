/// Renders a report as JSON:
/// `{"records":[{"tnf":1,"tnf_name":"Well-known","type":"U","id":"","payload":"hex",
/// "decoded":{…}}],"findings":[{"code","severity","offset","message","readers_show","fix"}]}`.
/// TYPE and ID are text when printable, else hex. With a TLV area a `"tlvs"` array is added.
/// Without `showSecrets`, a record's `payload` (and the NDEF TLV's `value`) is null when it
/// holds a secret (`NDEFPayload.holdsSecret`). A key repeated in one decoded object (two Wi-Fi
/// credentials, two titles in one language) gets `_2`, `_3`… on its repeats (RFC 8259 §4:
/// names should be unique).
public enum NDEFJSONRenderer {
  /// JSON text (one line) for `report`.
  public static func render(
    _ report: NDEFReport, tlvArea: Type2TLVArea? = nil, showSecrets: Bool = false
  ) -> String {
    var w = JSONWriter()
    w.open("{")
    let masked = !showSecrets && report.records.contains(where: \.holdsSecret)
    if let area = tlvArea {
      w.key("tlvs")
      w.array(area.tlvs) { w, t in
        w.open("{")
        w.key("offset")
        w.int(t.offset)
        w.key("tag")
        w.string(t.tag.name)
        w.key("length")
        w.int(t.length)
        w.key("value")
        if masked && t.tag == .ndef { w.raw("null") } else { w.string(t.value.map(hex2).joined()) }
        w.close("}")
      }
    }
    w.key("records")
    w.array(report.records) { w, r in
      w.open("{")
      w.key("tnf")
      w.int(Int(r.record.tnf.rawValue))
      w.key("tnf_name")
      w.string(r.record.tnf.name)
      w.key("type")
      w.value(textOrHexValue(r.record.type))
      w.key("id")
      w.value(textOrHexValue(r.record.id))
      w.key("payload")
      if !showSecrets && r.holdsSecret {
        w.raw("null")
      } else {
        w.string(r.record.payload.map(hex2).joined())
      }
      if r.record.isChunked {
        w.key("chunks")
        w.array(r.record.chunks) { w, c in w.int(c.payload.count) }
      }
      w.key("kind")
      w.string(r.payload.kindName)
      w.key("decoded")
      w.value(.object(r.payload.fields(showSecrets: showSecrets)))
      w.close("}")
    }
    w.key("findings")
    w.array(report.findings + (tlvArea?.findings ?? [])) { w, f in
      w.open("{")
      w.key("code")
      w.string(f.code)
      w.key("severity")
      w.string(f.severity.rawValue)
      w.key("offset")
      w.int(f.offset)
      w.key("message")
      w.string(f.message)
      w.key("readers_show")
      if let r = f.readersShow { w.string(r) } else { w.raw("null") }
      w.key("fix")
      if let fix = f.fix { w.string(fix) } else { w.raw("null") }
      w.close("}")
    }
    w.close("}")
    return w.out
  }
}

/// Minimal JSON writer with RFC 8259 string escaping and comma bookkeeping.
struct JSONWriter {
  var out = ""
  private var needComma: [Bool] = []

  mutating func open(_ c: String) {
    comma()
    out += c
    needComma.append(false)
  }
  mutating func close(_ c: String) {
    out += c
    _ = needComma.popLast()
    markWritten()
  }
  mutating func key(_ k: String) {
    comma()
    JSONWriter.escape(k, into: &out)
    out += ":"
    suppress()
  }
  mutating func string(_ s: String) {
    comma()
    JSONWriter.escape(s, into: &out)
    markWritten()
  }
  mutating func int(_ n: Int) { raw(String(n)) }
  mutating func raw(_ s: String) {
    comma()
    out += s
    markWritten()
  }

  mutating func array<T>(_ items: [T], _ body: (inout JSONWriter, T) -> Void) {
    open("[")
    for item in items { body(&self, item) }
    close("]")
  }

  mutating func value(_ v: NDEFValue) {
    switch v {
    case .text(let s): string(s)
    case .int(let n): int(n)
    case .bool(let b): raw(b ? "true" : "false")
    case .bytes(let b): string(b.map(hex2).joined())
    case .list(let l): array(l) { w, e in w.value(e) }
    case .object(let fields):
      open("{")
      for (f, name) in zip(fields, NDEFField.uniqueNames(fields)) {
        key(name)
        value(f.value)
      }
      close("}")
    }
  }

  private var afterKey = false
  private mutating func suppress() { afterKey = true }
  private mutating func comma() {
    if afterKey {
      afterKey = false
      return
    }
    if let last = needComma.last, last { out += "," }
  }
  private mutating func markWritten() {
    if !needComma.isEmpty { needComma[needComma.count - 1] = true }
  }

  static func escape(_ s: String, into out: inout String) {
    out += "\""
    for u in s.unicodeScalars {
      switch u {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if u.value < 0x20 {
          out += "\\u00" + hex2(UInt8(u.value))
        } else {
          out.unicodeScalars.append(u)
        }
      }
    }
    out += "\""
  }
}
