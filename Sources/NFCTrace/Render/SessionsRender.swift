/// Text and JSON for `nfctrace sessions`: one line per session — index, time span, tag
/// (product, UID), and its operations with outcomes.
public enum SessionsRender {
  /// `3  12.408–13.022 s  NTAG215 04:66:D6:5F:00:50:9C  connect ok · queryNDEFStatus readWrite 492 B · writeNDEF interrupted`.
  public static func line(_ s: SessionAnalysis) -> String {
    let span = s.info.span
    var tag = s.tag.product ?? s.info.technology.rawValue
    if let uid = s.tag.uidString { tag += " " + uid }
    if s.tag.collision { tag += " (several tags)" }
    let ops = runs(s.operations.map(\.shortText)).joined(separator: " · ")
    return "\(s.info.index)  \(span)  \(tag)  \(ops.isEmpty ? "(no operations)" : ops)"
  }

  /// Consecutive equal texts as one, counted: a reader polling one tag 300 times gives
  /// `connect unknown ×300`, not a line of thousands of characters.
  static func runs(_ texts: [String]) -> [String] {
    var out: [String] = []
    var count = 0
    for (i, t) in texts.enumerated() {
      count += 1
      if i + 1 < texts.count, texts[i + 1] == t { continue }
      out.append(count > 2 ? "\(t) ×\(count)" : count == 2 ? "\(t) · \(t)" : t)
      count = 0
    }
    return out
  }

  /// Seconds with three decimals: 12_408_000_000 ns → `12.408`.
  public static func seconds(_ ns: Int64) -> String {
    let ms = ns / 1_000_000
    let frac = abs(ms % 1000)
    let fracText = frac < 10 ? "00\(frac)" : frac < 100 ? "0\(frac)" : "\(frac)"
    return "\(ms / 1000).\(fracText)"
  }

  /// Writes the session object with the `tag`, `ndef_status` and `operations` members.
  public static func json(_ s: SessionAnalysis, to out: OutputBuffer) {
    out.write("{\"index\":\(s.info.index),\"technology\":\"\(s.tag.technology.rawValue)\",\"uid\":")
    JSON.optionalString(s.tag.uid.isEmpty ? nil : Hex.string(s.tag.uid), to: out)
    out.write(",\"first_frame\":\(s.info.firstFrame),\"last_frame\":\(s.info.lastFrame)")
    out.write(",\"start_ns\":\(s.info.startNs),\"end_ns\":\(s.info.endNs),\"tag\":")
    tag(s.tag, to: out)
    out.write(",\"ndef_status\":")
    if let st = s.ndefStatus {
      out.write("{\"status\":\"\(st.status.rawValue)\",\"capacity\":")
      JSON.int(st.capacity, to: out)
      out.write(",\"reason\":")
      JSON.optionalString(s.ndefStatusReasonAsReturned, to: out)
      out.write("}")
    } else {
      out.write("null")
    }
    out.write(",\"operations\":[")
    JSON.elements(s.operations, to: out) { op in
      operation(op, to: out)
    }
    out.write("]}")
  }

  /// `{"technology","uid","manufacturer","product","memory_bytes",…}`.
  public static func tag(_ t: TagIdentity, to out: OutputBuffer) {
    out.write("{\"technology\":\"\(t.technology.rawValue)\",\"uid\":")
    JSON.optionalString(t.uid.isEmpty ? nil : Hex.string(t.uid), to: out)
    out.write(",\"manufacturer\":")
    JSON.optionalString(t.manufacturer, to: out)
    out.write(",\"product\":")
    JSON.optionalString(t.product, to: out)
    out.write(",\"memory_bytes\":")
    JSON.int(t.memoryBytes, to: out)
    out.write(",\"atqa\":")
    JSON.optionalString(t.atqa.map { Hex.string([UInt8($0 >> 8), UInt8($0 & 0xFF)]) }, to: out)
    out.write(",\"sak\":")
    JSON.optionalString(t.sak.map { Hex.string([$0]) }, to: out)
    out.write(",\"ats\":")
    JSON.optionalString(t.ats.map { Hex.string($0) }, to: out)
    out.write(",\"atqb\":")
    JSON.optionalString(t.atqb.map { Hex.string($0) }, to: out)
    out.write(",\"atr\":")
    JSON.optionalString(t.atr.map { Hex.string($0) }, to: out)
    out.write(",\"version\":")
    JSON.optionalString(t.version.map { Hex.string($0) }, to: out)
    out.write(",\"signature\":")
    JSON.optionalString(t.signature.map { Hex.string($0) }, to: out)
    out.write(",\"several_tags\":\(t.collision)}")
  }

  /// `{"kind","outcome","reason","first_frame","last_frame","details":{…}}`.
  public static func operation(_ op: Operation, to out: OutputBuffer) {
    out.write(
      "{\"kind\":\"\(op.kind.rawValue)\",\"outcome\":\"\(op.outcome.rawValue)\",\"reason\":")
    JSON.optionalString(op.reason, to: out)
    out.write(",\"first_frame\":\(op.firstFrame),\"last_frame\":\(op.lastFrame)")
    out.write(",\"unanswered_frames\":")
    JSON.ints(op.unansweredFrames, to: out)
    out.write(",\"failed_frames\":")
    JSON.ints(op.failedFrames, to: out)
    out.write(",\"details\":{")
    JSON.elements(op.details, to: out) { d in
      JSON.key(d.key, to: out)
      JSON.value(d.value, to: out)
    }
    out.write("}}")
  }
}
