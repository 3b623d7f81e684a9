import NDEF

/// Text for `nfctrace diff`: two columns (A left, B right) at most 160 characters wide, each
/// row marked `=` same, `≠` differs, `−` only in A, `+` only in B.
public enum DiffText {
  /// Width of each column.
  public static let column = 76

  /// The whole report, line by line.
  public static func lines(_ d: TraceDiff) -> [String] {
    var out = header(d)
    out += tag(d)
    out += operations(d)
    out += exchanges(d)
    out += memory(d)
    out += ndef(d)
    out += timing(d)
    return out
  }

  // MARK: Layout

  /// `m left │ right`, each side cut to `column` characters. Control characters (a tag's ESC
  /// or newline in a URI, a type, a decoded field) are escaped first (`ControlEscape`, as
  /// `report` and `ndef` print them), so the terminal shows them instead of obeying them.
  static func row(_ mark: String, _ left: String, _ right: String) -> String {
    let l = fit(ControlEscape.escaped(left))
    let r = fit(ControlEscape.escaped(right))
    let padded = l + String(repeating: " ", count: max(0, column - l.count))
    let line = "\(mark) \(padded) │ \(r)"
    return r.isEmpty ? String(line.dropLast()) : line
  }

  static func fit(_ s: String) -> String {
    s.count <= column ? s : String(s.prefix(column - 1)) + "…"
  }

  static func mark(_ a: Bool, _ b: Bool, same: Bool) -> String {
    a && b ? (same ? "=" : "≠") : a ? "−" : "+"
  }

  static func value(_ v: FieldValue?) -> String { v.map(\.description) ?? "—" }

  /// `v` as text, the bytes at `secret` positions of a hex value printed `••`.
  static func value(_ v: FieldValue?, secret: Set<Int>) -> String {
    guard case .hex(let bytes)? = v, !secret.isEmpty else { return value(v) }
    return ExchangeRecord.hex(bytes, masked: secret, separator: " ")
  }

  static func differenceRows(_ list: [FieldDifference], indent: String = "    ") -> [String] {
    list.map { d in
      // ATQA is a 16-bit value (MSB first): `0x0304`, as the report writes it, not bytes
      // spaced like the air order (`04 03`) they would be mistaken for.
      if d.field == "atqa" { return row(" ", indent + d.field + ": " + atqa(d.a), atqa(d.b)) }
      return row(
        " ", indent + d.field + ": " + value(d.a, secret: d.aSecret), value(d.b, secret: d.bSecret))
    }
  }

  /// `0x0344` for an ATQA value held MSB first.
  static func atqa(_ v: FieldValue?) -> String {
    guard case .hex(let b)? = v else { return value(v) }
    return "0x" + Hex.string(b).uppercased()
  }

  /// `1.234 ms` from ns (µs resolution).
  public static func ms(_ ns: Int64?) -> String {
    guard let ns else { return "—" }
    let us = abs(ns) / 1000
    let frac = us % 1000
    let text = "\(us / 1000)." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + "\(frac)"
    return (ns < 0 ? "-" : "") + text + " ms"
  }

  // MARK: Sections

  static func header(_ d: TraceDiff) -> [String] {
    func line(_ n: String, _ s: DiffSide) -> String {
      let i = s.analysis.info
      return
        "\(n)  \(ControlEscape.escaped(s.path)) · session \(i.index) · frames #\(i.firstFrame)–#\(i.lastFrame) · "
        + i.span
    }
    let verdict =
      d.same ? "same operations, commands, memory and NDEF (timing below)" : "the sessions differ"
    return ["nfctrace diff: \(verdict)", line("A", d.a)] + others("A", d.a) + [line("B", d.b)]
      + others("B", d.b) + ["   = same   ≠ differs   − only in A   + only in B"]
  }

  /// `   A has 3 sessions; not compared: session 0 writeNDEF interrupted`, when another
  /// session of the trace failed: a failure the compared pair does not show.
  private static func others(_ n: String, _ s: DiffSide) -> [String] {
    guard let first = s.otherFailures.first else { return [] }
    var text = ControlEscape.escaped(
      "   \(n) has \(s.sessionCount) sessions; not compared: session \(first.session) "
        + first.operations)
    if s.otherFailures.count > 1 {
      text += " (and \(s.otherFailures.count - 1) more session(s) with failures)"
    }
    return [text.count > 160 ? String(text.prefix(159)) + "…" : text]
  }

  static func tag(_ d: TraceDiff) -> [String] {
    func text(_ t: TagIdentity) -> String {
      (t.product ?? t.technology.rawValue) + " " + (t.uidString ?? "(no UID)")
    }
    return ["", "TAG"] + [
      row(d.tag.isEmpty ? "=" : "≠", text(d.a.analysis.tag), text(d.b.analysis.tag))
    ]
      + differenceRows(d.tag)
  }

  static func operations(_ d: TraceDiff) -> [String] {
    func text(_ op: Operation?) -> String {
      guard let op else { return "" }
      return "\(op.shortText)  #\(op.firstFrame)–#\(op.lastFrame)"
    }
    var out = ["", "OPERATIONS"]
    for op in d.operations {
      let a = op.a.map { d.a.analysis.operations[$0] }
      let b = op.b.map { d.b.analysis.operations[$0] }
      out.append(row(mark(a != nil, b != nil, same: op.same), text(a), text(b)))
      out += differenceRows(op.differences)
      if a != nil && b != nil && op.differences.isEmpty && !op.same {
        out.append(row(" ", "    commands differ (below)", ""))
      }
    }
    return out
  }

  static func exchanges(_ d: TraceDiff) -> [String] {
    let differing = d.exchanges.filter { !$0.same }
    guard !differing.isEmpty else {
      return [
        "", "COMMANDS: the aligned operations send the same commands and get the same answers",
      ]
    }
    var out = ["", "COMMANDS THAT DIFFER (request → response)"]
    var lastOp: Int?
    for x in differing {
      if x.operation != lastOp {
        lastOp = x.operation
        let op = d.operations[x.operation].a.map { d.a.analysis.operations[$0] }
        out.append("  in " + (op?.kind.rawValue ?? "operation \(x.operation)"))
      }
      out.append(
        row(
          mark(x.a != nil, x.b != nil, same: false), exchange(x.a.map { d.a.exchanges[$0] }),
          exchange(x.b.map { d.b.exchanges[$0] })))
      if let i = x.a, let j = x.b { out += firstDifference(d.a.exchanges[i], d.b.exchanges[j]) }
    }
    return out
  }

  /// Where a pair's bytes first differ (`    response byte 7: 3e │ 3f`): the summaries are cut
  /// to the column, and the difference may lie past the cut, as may their `(bad CRC)` mark, so
  /// a CRC failed on one side only gets a line too (`    response CRC: ok │ bad`). Nothing
  /// when only the presence of an answer differs.
  static func firstDifference(_ a: ExchangeRecord, _ b: ExchangeRecord) -> [String] {
    func first(
      _ x: ArraySlice<UInt8>, _ y: ArraySlice<UInt8>, _ what: String,
      secret: (a: Set<Int>, b: Set<Int>)
    ) -> String? {
      guard x != y else { return nil }
      let k =
        zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(x.count, y.count)
      // Each side's secret bytes are masked; the other side's byte there may be none (a NAK
      // where the other side got its PACK).
      func at(_ s: ArraySlice<UInt8>, _ secret: Set<Int>) -> String {
        guard k < s.count else { return "(\(s.count) bytes)" }
        return secret.contains(k) ? TraceDiff.maskedByte : Hex.string([s[s.startIndex + k]])
      }
      return row(" ", "    \(what) byte \(k): " + at(x, secret.a), at(y, secret.b))
    }
    func blocks(_ r: ExchangeRecord) -> String {
      func part(_ n: Int, _ what: String) -> String {
        n == 1 ? "\(what) in 1 I-block" : "\(what) chained in \(n) I-blocks"
      }
      return part(r.requestBlocks, "command") + ", " + part(r.responseBlocks, "answer")
    }
    func crc(_ x: CRCStatus?, _ y: CRCStatus?, _ what: String) -> String? {
      guard (x == .bad) != (y == .bad) else { return nil }
      return row(" ", "    \(what) CRC: " + (x == .bad ? "bad" : "ok"), y == .bad ? "bad" : "ok")
    }
    let framing = a.framedDifferently(from: b) ? row(" ", "    " + blocks(a), blocks(b)) : nil
    let answered = a.response != nil && b.response != nil
    let lines = [
      first(
        a.requestPayload, b.requestPayload, "command",
        secret: (a.secretRequest, b.secretRequest)),
      crc(a.requestCRC, b.requestCRC, "command"),
      a.responsePayload.flatMap { x in
        b.responsePayload.flatMap {
          first(x, $0, "response", secret: (a.secretResponse, b.secretResponse))
        }
      },
      answered ? crc(a.responseCRC, b.responseCRC, "response") : nil,
      framing,
    ]
    return lines.compactMap { $0 }
  }

  static func exchange(_ r: ExchangeRecord?) -> String {
    guard let r else { return "" }
    let frame = r.requestFrame.map { "#\($0) " } ?? ""
    let command = r.shownCommandSummary
    var answer = r.shownAnswerSummary
    // Type 2 answers repeat their command (`READ page 3 → e1 10 …`): say it once. Only a
    // prefix naming the command followed by its arrow: a raw answer (`raw ff 0f`) to a raw
    // command (`raw`) keeps its words.
    let repeated = command + " → "
    if answer.hasPrefix(repeated), answer.count > repeated.count {
      answer = String(answer.dropFirst(repeated.count))
    }
    return frame + command + " → " + answer
  }

  static func memory(_ d: TraceDiff) -> [String] {
    guard !d.memory.isEmpty else { return ["", "MEMORY: no difference in value or certainty"] }
    var out = ["", "MEMORY (value, provenance, frame that set it)"]
    var image: MemoryImage?
    for m in d.memory {
      if m.image != image {
        image = m.image
        out.append(m.image == .end ? "  as left at the end" : "  as found at the start")
      }
      let unit =
        m.file.map { "file \(Hex.string([UInt8($0 >> 8), UInt8($0 & 0xFF)])) +\(m.offset)" }
        ?? (m.isBlock ? "block \(m.unit)" : "page \(m.unit)")
      // Each byte as known, `??` where it is not (a unit known in part keeps its known bytes).
      // A byte of a secret is `••`.
      // A frame before the session's own: carried from an earlier one (as `report` says).
      func side(_ bytes: [UInt8?], _ state: String, _ frame: Int?, _ earlier: Bool) -> String {
        let hex = bytes.enumerated().map { i, b in
          b.map { m.secret.contains(i) ? TraceDiff.maskedByte : Hex.string([$0]) } ?? "??"
        }.joined(separator: " ")
        let from = frame.map { " #\($0)" + (earlier ? " (earlier session)" : "") } ?? ""
        return (hex.isEmpty ? "??" : hex) + "  " + state + from
      }
      out.append(
        row(
          "≠", unit.padding(10) + side(m.aBytes, m.aState, m.aFrame, m.aEarlierSession),
          side(m.bBytes, m.bState, m.bFrame, m.bEarlierSession)))
    }
    return out
  }

  static func ndef(_ d: TraceDiff) -> [String] {
    func text(_ s: NDEFSideState) -> String {
      var t = s.state
      if let m = s.message, s.state == "message" {
        let n = s.report?.records.count ?? 0
        t += ", \(m.count) B, \(n) record\(n == 1 ? "" : "s")"
      }
      if s.unacknowledgedBytes > 0 { t += ", \(s.unacknowledgedBytes) B unacknowledged" }
      if !s.errors.isEmpty { t += ", errors: " + s.errors.joined(separator: ",") }
      return t
    }
    var out = ["", "NDEF (final message)"]
    out.append(row(d.ndef.differences.isEmpty ? "=" : "≠", text(d.ndef.a), text(d.ndef.b)))
    if let m = d.ndef.differences.first(where: { $0.field == "message" }) {
      out += firstMessageDifference(m)
    }
    let ra = d.ndef.a.report?.records ?? []
    let rb = d.ndef.b.report?.records ?? []
    for r in d.ndef.records {
      let left = r.a.map { "record \($0) " + recordText(ra[$0]) } ?? ""
      let right = r.b.map { "record \($0) " + recordText(rb[$0]) } ?? ""
      out.append(row(mark(r.a != nil, r.b != nil, same: r.same), left, right))
      out += differenceRows(r.differences)
    }
    return out
  }

  /// Where two different messages part: their first differing byte and up to 4 bytes from
  /// it (records whose decoded fields are alike may differ in encoding: chunks, the SR or IL
  /// flag, an empty ID), or the shorter one's end. Secret bytes stay masked.
  static func firstMessageDifference(_ d: FieldDifference) -> [String] {
    guard case .hex(let a)? = d.a, case .hex(let b)? = d.b else { return [] }
    let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    func at(_ m: [UInt8], _ secret: Set<Int>) -> String {
      guard i < m.count else { return "(message ends)" }
      let end = min(m.count, i + 4)
      let masked = Set(secret.filter { $0 >= i && $0 < end }.map { $0 - i })
      return ExchangeRecord.hex(Array(m[i..<end]), masked: masked, separator: " ")
    }
    return [
      row(
        " ", "    first difference at message byte \(i): " + at(a, d.aSecret), at(b, d.bSecret))
    ]
  }

  static func timing(_ d: TraceDiff) -> [String] {
    func text(_ t: OperationTiming?) -> String {
      guard let t else { return "" }
      return "\(t.exchanges)".padding(5) + ms(t.medianResponseNs).padding(11)
        + ms(t.maxResponseNs).padding(11) + "\(t.retries)".padding(8) + ms(t.durationNs)
    }
    let header =
      "n".padding(5) + "median".padding(11) + "max".padding(11) + "retries".padding(8) + "duration"
    var out = [
      "",
      "TIMING (response = tag frame start − reader frame end; gap = since the previous frame ended)",
      row(" ", "operation".padding(18) + header, header),
    ]
    for t in d.timing {
      let op = d.operations[t.operation]
      let kind =
        (op.a.map { d.a.analysis.operations[$0] } ?? op.b.map { d.b.analysis.operations[$0] })?
        .kind.rawValue ?? ""
      out.append(
        row(mark(t.a != nil, t.b != nil, same: t.same), kind.padding(18) + text(t.a), text(t.b)))
      let wtx = (t.a?.wtxRequests ?? 0, t.b?.wtxRequests ?? 0)
      if wtx != (0, 0) {
        out.append(
          row(
            " ", "    S(WTX) requests (tag asked for more time): \(wtx.0)",
            "S(WTX) requests: \(wtx.1)"))
      }
      let checks = (t.a?.presenceChecks ?? 0, t.b?.presenceChecks ?? 0)
      if checks != (0, 0) {
        out.append(
          row(
            " ", "    presence checks (not compared): \(checks.0)",
            "presence checks: \(checks.1)"))
      }
      if t.medianDiffers {
        out.append(row(" ", "    median response differs (no exchange aligned)", ""))
      }
      for n in t.notable {
        let x = d.exchanges[n.exchange]
        let name =
          (x.a.map { d.a.exchanges[$0] } ?? x.b.map { d.b.exchanges[$0] })?.shownCommandSummary
          ?? ""
        func side(_ r: Int64?, _ g: Int64?) -> String { "response \(ms(r)), gap \(ms(g))" }
        out.append(
          row(
            " ", "    \(n.why): " + name + "  " + side(n.aResponseNs, n.aGapNs),
            side(n.bResponseNs, n.bGapNs)))
      }
    }
    return out
  }
}

extension DiffText {
  /// `URI https://nfctrace.dev/ok`: the payload kind and its first decoded text field.
  static func recordText(_ r: NDEFDecodedRecord) -> String {
    let fields = r.payload.fields()
    let main = fields.first { $0.name == "uri" || $0.name == "text" } ?? fields.first
    if let main, case .text(let t) = main.value { return r.payload.kindName + " " + t }
    return r.payload.kindName
  }
}

extension String {
  /// Pads with spaces to `n` characters (never cuts).
  fileprivate func padding(_ n: Int) -> String {
    count >= n ? self + " " : self + String(repeating: " ", count: n - count)
  }
}
