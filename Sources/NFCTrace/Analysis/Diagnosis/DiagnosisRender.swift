import NDEF

/// Text and JSON for `nfctrace diagnose`.
///
/// Text, per session: a header, then per operation with a verdict or findings, the verdict
/// and the one-line cause, and under it each finding: severity, code, Core NFC error, the
/// explanation, the evidence frames decoded (index, direction, bytes, summary) and the fix.
/// JSON: see docs/json.md, "nfctrace diagnose".
public enum DiagnosisRender {
  /// Text width used for wrapping explanations.
  public static let width = 100

  /// Writes the text report; `frames` holds the evidence frames by index (missing ones are
  /// shown by index only).
  public static func text(_ r: DiagnosisReport, frames: [Int: DecodedFrame], to out: OutputBuffer) {
    var tally = Tally()
    for s in r.sessions {
      session(s, to: out) { i, heard in frameLine(i, frames[i], answersCaptured: heard) }
      tally.add(s)
    }
    tally.write(to: out)
  }

  /// The counts of the text report's last line.
  public struct Tally: Sendable {
    /// Sessions counted.
    public private(set) var sessions = 0
    private var counts: [Severity: Int] = [:]

    /// Nothing counted.
    public init() {}

    /// Counts session `s` and its findings.
    public mutating func add(_ s: SessionDiagnosis) {
      sessions += 1
      for f in s.findings { counts[f.severity, default: 0] += 1 }
    }

    /// `N session(s): E error(s), W warning(s), I note(s)`.
    public func write(to out: OutputBuffer) {
      out.write(
        "\(sessions) session(s): \(counts[.error] ?? 0) error(s), "
          + "\(counts[.warning] ?? 0) warning(s), \(counts[.info] ?? 0) note(s)\n")
    }
  }

  /// A session with no write on the air. Core NFC refuses a writeNDEF whose message exceeds
  /// the capacity queryNDEFStatus gave (402) before sending anything, so say what the radio
  /// cannot show, and how to check it.
  static func noWritesText(_ a: SessionAnalysis) -> String {
    guard let (status, capacity) = a.ndefStatus, status == .readWrite, let capacity,
      !a.operations.contains(where: {
        $0.kind == .writeNDEF || $0.kind == .writeLock || $0.writesNDEFFile
          || $0.overwritesNDEFArea
      })
    else { return "  no writes, nothing failed\n\n" }
    return "  no writes on the air, nothing failed. A writeNDEF Core NFC refuses before sending "
      + "leaves no frame:\n  402 for a message over the \(capacity) bytes queryNDEFStatus "
      + "reported; --expect MESSAGE checks it\n" + emptyTagText(a) + "\n"
  }

  /// The query found an NDEF length of 0 and no readNDEF followed on the air: Core NFC's
  /// readNDEF fails on such a tag with 403 before sending anything (nfc-facts §5.1, §8.3), so
  /// an app that read the tag got that error although the radio shows nothing failing.
  static func emptyTagText(_ a: SessionAnalysis) -> String {
    guard let query = a.operations.last(where: { $0.kind == .queryNDEFStatus }),
      case .int(0)? = query.detail("ndef_length"),
      !a.operations.contains(where: { $0.kind == .readNDEF })
    else { return "" }
    return "  The tag holds an empty message (NDEF length 0): a readNDEF fails with 403\n"
      + "  (ndefReaderSessionErrorZeroLengthMessage) without a frame on the air\n"
  }

  /// Writes one session's text. `evidence(frame, answersCaptured)` gives the line of an
  /// evidence frame (`frameLine`, or a mark a later pass replaces: `EvidenceMarks`).
  public static func session(
    _ s: SessionDiagnosis, to out: OutputBuffer, evidence: (Int, Bool) -> String
  ) {
    let a = s.analysis
    var title = "── session \(s.index)"
    if let p = a.tag.product { title += " · " + p }
    if let u = a.tag.uidString { title += " · " + u }
    out.write(title + " " + String(repeating: "─", count: max(3, 72 - title.count)) + "\n")
    if s.verdicts.isEmpty && s.findings.isEmpty {
      out.write(noWritesText(a))
      return
    }
    var shown = Set<Int>()
    // Grouped once: a session can hold tens of thousands of operations.
    var verdicts: [Int: OperationVerdict] = [:]
    for v in s.verdicts where v.verdict != .notAttempted && verdicts[v.operation] == nil {
      verdicts[v.operation] = v
    }
    var findings: [Int: [DiagnosisFinding]] = [:]
    for f in s.findings where f.effect != .notAttempted {
      if let i = f.operation { findings[i, default: []].append(f) }
    }
    for (i, op) in a.operations.enumerated() {
      let verdict = verdicts[i]
      let fs = findings[i] ?? []
      guard verdict != nil || !fs.isEmpty else { continue }
      // A verdict (writes, failures) in capitals; other operations with findings show their
      // outcome, which is no verdict (a query's the NDEF status it found, as `sessions`).
      let state = verdict?.verdict.rawValue.uppercased() ?? "outcome " + op.outcomeText
      // An outcome the trace cannot tell (cut, tag not heard) says why before any finding.
      let cause =
        (op.outcome == .unknown ? op.reason : nil) ?? headline(fs, op)?.cause ?? op.reason
        ?? fs.first?.cause ?? ClassicWriteRule.acknowledgedText(op) ?? "no problem found"
      out.write("\(op.kind.rawValue) (operation \(i), frames \(op.firstFrame)–\(op.lastFrame)): ")
      out.write(state + " — " + ControlEscape.escaped(cause) + "\n")
      for f in fs { finding(f, heard: s.analysis.tagHeard, to: out, evidence: evidence) }
      fs.forEach { shown.insert($0.hashKey) }
      out.write("\n")
    }
    for v in s.verdicts where v.verdict == .notAttempted {
      let fs = s.findings.filter { $0.effect == .notAttempted }
      out.write(
        "\(v.kind.rawValue): NOT-ATTEMPTED — \(ControlEscape.escaped(fs.first?.cause ?? ""))\n")
      for f in fs { finding(f, heard: s.analysis.tagHeard, to: out, evidence: evidence) }
      fs.forEach { shown.insert($0.hashKey) }
      out.write("\n")
    }
    let rest = s.findings.filter { !shown.contains($0.hashKey) }
    if !rest.isEmpty {
      out.write("session-wide:\n")
      for f in rest { finding(f, heard: s.analysis.tagHeard, to: out, evidence: evidence) }
      out.write("\n")
    }
  }

  /// The finding that explains operation `op`'s verdict: the first warning or error (for a
  /// failed operation, of those as severe, the one on the refusal that gave its reason), else
  /// a note on the frame that went unanswered last (interrupted) or on the refusal that gave a
  /// failed operation its reason (`Operation.reasonFrame`, the first: the timeline's `◂` line
  /// names it too). Nil when only notes on other frames are there (an APDU refused before the
  /// silence that interrupted the operation): the operation's own reason is the headline then.
  static func headline(_ fs: [DiagnosisFinding], _ op: Operation) -> DiagnosisFinding? {
    if let top = fs.first(where: { $0.severity != .info }) {
      // Of the findings as severe as the first, the one on the refusal that gave a failed
      // operation its reason (unless a root cause leads).
      guard op.outcome == .failed, let r = op.reasonFrame, !Diagnoser.rootCauses.contains(top.code)
      else { return top }
      return fs.first { $0.severity == top.severity && $0.frames.contains(r) } ?? top
    }
    // Interrupted: the silence decided it, not a refusal before it (and the reverse). Failed:
    // the refusal that gave the operation its reason (`Operation.fail`: the first), so the
    // header names the command the timeline's `◂` line names.
    let decisive =
      op.outcome == .interrupted
      ? op.unansweredFrames.last : op.reasonFrame ?? op.failedFrames.last
    guard op.outcome != .ok, let decisive else { return fs.first }
    return fs.first { $0.frames.contains(decisive) }
  }

  /// `heard` false: the capture holds no tag frame of the session, so a reader frame without
  /// answer is not marked `[no answer]` (whether it was answered is unknown).
  private static func finding(
    _ f: DiagnosisFinding, heard: Bool, to out: OutputBuffer, evidence: (Int, Bool) -> String
  ) {
    var head = "  [\(f.severity.rawValue)] \(f.code)"
    if let e = f.coreNFCError { head += " → Core NFC \(e.code) \(e.name)" }
    out.write(head + "\n")
    if f.cause != "", f.operation == nil { wrap(f.cause, indent: "    ", to: out) }
    wrap(f.message, indent: "    ", to: out)
    if !f.frames.isEmpty {
      out.write("    evidence:\n")
      for i in f.frames {
        out.write("      " + evidence(i, heard) + "\n")
      }
    }
    wrap("fix: " + f.fix, indent: "    ", to: out)
  }

  /// `#19  R→T  a2 04 03 14 d1 01 64 06  WRITE page 4 ← 03 14 d1 01`.
  public static func frameLine(_ index: Int, _ f: DecodedFrame?, answersCaptured: Bool = true)
    -> String
  {
    guard let f else { return "#\(index)" }
    return EvidenceLine(index, f).text(answersCaptured: answersCaptured)
  }

  /// An evidence frame's line, kept without its frame: `text(answersCaptured:)` is
  /// `frameLine`'s.
  public struct EvidenceLine: Sendable {
    private var line: String
    /// The reader frame went without answer.
    private var unanswered: Bool

    /// The line of frame `f`, numbered `index`.
    public init(_ index: Int, _ f: DecodedFrame) {
      let dir: String
      switch f.frame.direction {
      case .reader: dir = "R→T"
      case .tag: dir = "T→R"
      case .event:
        line = "#\(index)  \(f.frame.event?.rawValue ?? "event")"
        unanswered = false
        return
      }
      var bytes = Hex.string(f.frame.data.prefix(20), separator: " ")
      if f.frame.data.count > 20 { bytes += " …" }
      if let b = f.frame.bits, f.frame.data.count == 1 { bytes += "(\(b))" }
      var summary = f.innermost?.summary ?? ("raw" + (f.undecodedReason.map { ": " + $0 } ?? ""))
      if f.frame.crc == .bad { summary += "  [bad CRC]" }
      // Crypto1 encrypts the parity bits too (computed over the plaintext, sent encrypted:
      // Garcia et al., "Wirelessly Pickpocketing a Mifare Classic Card", IEEE S&P 2009): on
      // ciphertext they say nothing, as the RF statistics and `FrameCRC.parityFindings` take it.
      if !f.frame.parityErrors.isEmpty, f.frame.crc != .encrypted { summary += "  [parity error]" }
      // At least one space before the direction, past six-digit frame numbers too.
      let number = "#\(index)"
      let idx = number.padding(toLength: max(7, number.count + 1), withPad: " ", startingAt: 0)
      line =
        "\(idx)\(dir)  \(bytes.padding(toLength: max(bytes.count, 24), withPad: " ", startingAt: 0))  \(summary)"
      unanswered = f.response == .unanswered
    }

    /// The line; `answersCaptured` false (the capture holds no tag frame of the session): a
    /// reader frame without answer is not marked `[no answer]`.
    public func text(answersCaptured: Bool) -> String {
      unanswered && answersCaptured ? line + "  [no answer]" : line
    }
  }

  private static func wrap(_ text: String, indent: String, to out: OutputBuffer) {
    var prefix = indent
    var line = ""
    // Causes and messages may quote the tag's bytes (a URI, a TYPE): no raw control codes.
    for word in ControlEscape.escaped(text).split(separator: " ", omittingEmptySubsequences: true) {
      let candidate = line.isEmpty ? String(word) : line + " " + word
      if !line.isEmpty && prefix.count + candidate.count > width {
        out.write(prefix + line + "\n")
        prefix = indent + "  "
        line = String(word)
      } else {
        line = candidate
      }
    }
    if !line.isEmpty { out.write(prefix + line + "\n") }
  }

  // MARK: JSON

  /// Writes the `sessions` array members.
  public static func json(_ r: DiagnosisReport, to out: OutputBuffer) {
    JSON.elements(r.sessions, to: out) { json($0, to: out) }
  }

  /// Writes one member of the `sessions` array (a newline, then the object).
  public static func json(_ s: SessionDiagnosis, to out: OutputBuffer) {
    out.write("\n{\"index\":\(s.index),\"uid\":")
    JSON.optionalString(
      s.analysis.tag.uid.isEmpty ? nil : Hex.string(s.analysis.tag.uid), to: out)
    out.write(",\"product\":")
    JSON.optionalString(s.analysis.tag.product, to: out)
    out.write(",\"verdicts\":[")
    JSON.elements(s.verdicts, to: out) { v in
      out.write(
        "{\"operation\":\(v.operation),\"kind\":\"\(v.kind.rawValue)\",\"verdict\":\"\(v.verdict.rawValue)\"}"
      )
    }
    out.write("],\"findings\":[")
    JSON.elements(s.findings, to: out) { f in
      finding(f, to: out)
    }
    out.write("]}")
  }

  /// `{"code","severity","session","operation","frames","cause","message","core_nfc_error","fix"}`.
  public static func finding(_ f: DiagnosisFinding, to out: OutputBuffer) {
    out.write("{\"code\":")
    JSON.string(f.code, to: out)
    out.write(",\"severity\":\"\(f.severity.rawValue)\",\"session\":\(f.session),\"operation\":")
    JSON.int(f.operation, to: out)
    out.write(",\"frames\":")
    JSON.ints(f.frames, to: out)
    out.write(",\"cause\":")
    JSON.string(f.cause, to: out)
    out.write(",\"message\":")
    JSON.string(f.message, to: out)
    out.write(",\"core_nfc_error\":")
    JSON.coreNFCError(f.coreNFCError, to: out)
    out.write(",\"fix\":")
    JSON.string(f.fix, to: out)
    out.write("}")
  }
}

extension DiagnosisFinding {
  /// Identity inside one session's list (code, operation, first frame).
  fileprivate var hashKey: Int {
    var h = Hasher()
    h.combine(code)
    h.combine(operation)
    h.combine(frames)
    h.combine(cause)
    return h.finalize()
  }
}
