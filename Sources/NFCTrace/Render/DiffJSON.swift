/// JSON for `nfctrace diff` (documented in docs/json.md, "nfctrace diff").
public enum DiffJSON {
  /// Writes the whole document and a final newline; `warnings` are both traces' importer
  /// warnings, `error` the import error that cut a side short (null when none).
  public static func render(
    _ d: TraceDiff, version: String, warnings: [TraceWarning] = [], error: TraceError? = nil,
    to out: OutputBuffer
  ) {
    out.write("{\"tool\":\"nfctrace\",\"version\":")
    JSON.string(version, to: out)
    out.write(",\"same\":\(d.same),\"a\":")
    side(d.a, ndef: d.ndef.a, to: out)
    out.write(",\"b\":")
    side(d.b, ndef: d.ndef.b, to: out)
    out.write(",\"tag\":")
    differences(d.tag, to: out)
    out.write(",\n\"operations\":[")
    list(d.operations, to: out) { op, out in operation(op, d, to: out) }
    out.write("],\n\"exchanges\":[")
    list(d.exchanges.filter { !$0.same }, to: out) { x, out in exchange(x, d, to: out) }
    out.write("],\n\"memory\":[")
    list(d.memory, to: out) { m, out in memory(m, to: out) }
    out.write("],\n\"ndef_state\":")
    differences(d.ndef.differences, to: out)
    out.write(",\"ndef\":[")
    list(d.ndef.records, to: out) { r, out in
      out.write("{\"a\":")
      JSON.int(r.a, to: out)
      out.write(",\"b\":")
      JSON.int(r.b, to: out)
      out.write(",\"same\":\(r.same),\"differences\":")
      differences(r.differences, to: out)
      out.write("}")
    }
    out.write("],\n\"timing\":[")
    list(d.timing, to: out) { t, out in timing(t, d, to: out) }
    out.write("],\n\"warnings\":[")
    JSON.elements(warnings, to: out) { w in TimelineJSONRenderer.warning(w, to: out) }
    out.write("],\"error\":")
    TimelineJSONRenderer.error(error, to: out)
    out.write("}\n")
  }

  private static func list<T>(_ items: [T], to out: OutputBuffer, _ each: (T, OutputBuffer) -> Void)
  {
    JSON.elements(items, to: out) { item in
      out.write("\n")
      each(item, out)
    }
  }

  /// `{"path","session","first_frame","last_frame","start_ns","end_ns","sessions",
  /// "other_failures","tag","ndef"}`.
  static func side(_ s: DiffSide, ndef: NDEFSideState, to out: OutputBuffer) {
    out.write("{\"path\":")
    JSON.string(s.path, to: out)
    let info = s.analysis.info
    out.write(",\"session\":\(info.index),\"first_frame\":\(info.firstFrame)")
    // A source without times (libnfc logs, untimed packets) has no start or end either.
    let timed = info.timed && (s.exchanges.isEmpty || s.exchanges.contains { $0.timed })
    out.write(",\"last_frame\":\(info.lastFrame),\"start_ns\":")
    JSON.int(timed ? Int(info.startNs) : nil, to: out)
    out.write(",\"end_ns\":")
    JSON.int(timed ? Int(info.endNs) : nil, to: out)
    out.write(",\"sessions\":\(s.sessionCount),\"other_failures\":[")
    for (k, o) in s.otherFailures.enumerated() {
      out.write((k == 0 ? "" : ",") + "{\"session\":\(o.session),\"operations\":")
      JSON.string(o.operations, to: out)
      out.write("}")
    }
    out.write("]")
    out.write(",\"tag\":")
    SessionsRender.tag(s.analysis.tag, to: out)
    out.write(",\"ndef\":{\"state\":\"\(ndef.state)\",\"message\":")
    if let m = ndef.message {
      out.append(0x22)
      out.write(ExchangeRecord.hex(m, masked: ndef.secretOffsets, separator: ""))
      out.append(0x22)
    } else {
      out.write("null")
    }
    out.write(",\"records\":\(ndef.report?.records.count ?? 0)")
    out.write(",\"unacknowledged_bytes\":\(ndef.unacknowledgedBytes),\"errors\":[")
    JSON.elements(ndef.errors, to: out) { e in
      JSON.string(e, to: out)
    }
    out.write("]}}")
  }

  /// `[{"field","a","b"}]`.
  static func differences(_ list: [FieldDifference], to out: OutputBuffer) {
    out.write("[")
    JSON.elements(list, to: out) { f in
      out.write("{\"field\":")
      JSON.string(f.field, to: out)
      out.write(",\"a\":")
      optional(f.a, secret: f.aSecret, to: out)
      out.write(",\"b\":")
      optional(f.b, secret: f.bSecret, to: out)
      out.write("}")
    }
    out.write("]")
  }

  /// `v`, the bytes at `secret` positions of a hex value as `••`.
  private static func optional(_ v: FieldValue?, secret: Set<Int> = [], to out: OutputBuffer) {
    if case .hex(let bytes)? = v, !secret.isEmpty {
      JSON.string(ExchangeRecord.hex(bytes, masked: secret, separator: ""), to: out)
    } else if let v {
      JSON.value(v, to: out)
    } else {
      out.write("null")
    }
  }

  private static func operation(_ op: OperationDiff, _ d: TraceDiff, to out: OutputBuffer) {
    let a = op.a.map { d.a.analysis.operations[$0] }
    let b = op.b.map { d.b.analysis.operations[$0] }
    out.write("{\"a\":")
    JSON.int(op.a, to: out)
    out.write(",\"b\":")
    JSON.int(op.b, to: out)
    out.write(",\"kind\":\"\((a ?? b)?.kind.rawValue ?? "")\",\"a_outcome\":")
    JSON.optionalString(a?.outcome.rawValue, to: out)
    out.write(",\"b_outcome\":")
    JSON.optionalString(b?.outcome.rawValue, to: out)
    out.write(",\"same\":\(op.same),\"differences\":")
    differences(op.differences, to: out)
    out.write("}")
  }

  private static func exchange(_ x: ExchangeDiff, _ d: TraceDiff, to out: OutputBuffer) {
    out.write("{\"operation\":\(x.operation),\"a\":")
    exchangeSide(x.a.map { ($0, d.a.exchanges[$0]) }, to: out)
    out.write(",\"b\":")
    exchangeSide(x.b.map { ($0, d.b.exchanges[$0]) }, to: out)
    out.write(",\"same\":\(x.same),\"differences\":[")
    out.write(x.differences.map { "\"\($0)\"" }.joined(separator: ","))
    out.write("]}")
  }

  /// `{"index","frame","command","data","response","response_frame","response_data","response_time_ns","command_blocks","response_blocks"}`.
  private static func exchangeSide(_ x: (Int, ExchangeRecord)?, to out: OutputBuffer) {
    guard let (i, r) = x else { return out.write("null") }
    out.write("{\"index\":\(i),\"frame\":")
    JSON.int(r.requestFrame, to: out)
    out.write(",\"command\":")
    JSON.string(r.shownCommandSummary, to: out)
    out.write(",\"data\":\"")
    out.write(r.shownRequestHex)
    out.write("\",\"response\":")
    JSON.string(r.shownAnswerSummary, to: out)
    out.write(",\"response_frame\":")
    JSON.int(r.responseFrame, to: out)
    out.write(",\"response_data\":")
    if let data = r.shownResponseHex {
      out.append(0x22)
      out.write(data)
      out.append(0x22)
    } else {
      out.write("null")
    }
    out.write(",\"response_time_ns\":")
    JSON.int(r.responseTimeNs.map { Int($0) }, to: out)
    out.write(",\"command_blocks\":\(r.requestBlocks),\"response_blocks\":\(r.responseBlocks)}")
  }

  private static func memory(_ m: MemoryDifference, to out: OutputBuffer) {
    out.write("{\"image\":\"\(m.image.rawValue)\",")
    if let file = m.file {
      out.write("\"file\":\"")
      out.appendHex([UInt8(file >> 8), UInt8(file & 0xFF)])
      out.write("\",\"offset\":\(m.offset)")
    } else if m.isBlock {
      out.write("\"block\":\(m.unit)")
    } else {
      out.write("\"page\":\(m.unit)")
    }
    for (name, bytes) in [("a", m.a), ("b", m.b)] {
      out.write(",\"\(name)\":")
      if let bytes {
        out.append(0x22)
        out.write(ExchangeRecord.hex(bytes, masked: m.secret, separator: ""))
        out.append(0x22)
      } else {
        out.write("null")
      }
    }
    out.write(",\"a_state\":\"\(m.aState)\",\"b_state\":\"\(m.bState)\",\"a_frame\":")
    JSON.int(m.aFrame, to: out)
    out.write(",\"b_frame\":")
    JSON.int(m.bFrame, to: out)
    out.write(",\"a_earlier_session\":\(m.aEarlierSession)")
    out.write(",\"b_earlier_session\":\(m.bEarlierSession)}")
  }

  private static func timing(_ t: TimingDiff, _ d: TraceDiff, to out: OutputBuffer) {
    out.write("{\"operation\":\(t.operation),\"a\":")
    opTiming(t.a, to: out)
    out.write(",\"b\":")
    opTiming(t.b, to: out)
    out.write(",\"median_differs\":\(t.medianDiffers),\"notable\":[")
    JSON.elements(t.notable, to: out) { n in
      let x = d.exchanges[n.exchange]
      let ra = x.a.map { d.a.exchanges[$0] }
      let rb = x.b.map { d.b.exchanges[$0] }
      out.write("{\"command\":")
      JSON.string((ra ?? rb)?.shownCommandSummary ?? "", to: out)
      out.write(",\"a_frame\":")
      JSON.int(ra?.requestFrame, to: out)
      out.write(",\"b_frame\":")
      JSON.int(rb?.requestFrame, to: out)
      for (k, v) in [
        ("a_response_ns", n.aResponseNs), ("b_response_ns", n.bResponseNs), ("a_gap_ns", n.aGapNs),
        ("b_gap_ns", n.bGapNs),
      ] {
        out.write(",\"\(k)\":")
        JSON.int(v.map { Int($0) }, to: out)
      }
      out.write(",\"why\":\"\(n.why)\"}")
    }
    out.write("]}")
  }

  /// `{"exchanges","answered","median_response_ns","max_response_ns","retries","duration_ns",
  /// "presence_checks","wtx_requests"}`.
  private static func opTiming(_ t: OperationTiming?, to out: OutputBuffer) {
    guard let t else { return out.write("null") }
    out.write("{\"exchanges\":\(t.exchanges),\"answered\":\(t.answered),\"median_response_ns\":")
    JSON.int(t.medianResponseNs.map { Int($0) }, to: out)
    out.write(",\"max_response_ns\":")
    JSON.int(t.maxResponseNs.map { Int($0) }, to: out)
    out.write(",\"retries\":\(t.retries),\"duration_ns\":")
    JSON.int(t.durationNs.map { Int($0) }, to: out)
    out.write(",\"presence_checks\":\(t.presenceChecks),\"wtx_requests\":\(t.wtxRequests)}")
  }
}
