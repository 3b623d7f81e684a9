import Foundation
import NFCTrace

/// `nfctrace diagnose FILE [--session N] [--expect NDEF] [--format text|json]
/// [--fail-on error|warning] [--input-format NAME]`.
///
/// Exit status: 0 no finding at the `--fail-on` level (or no `--fail-on`), 1 findings at that
/// level or worse, 2 usage error, 3 unreadable or invalid input.
enum DiagnoseCommand {
  static let usage =
    "nfctrace diagnose FILE [--session N] [--expect NDEF] [--format text|json] "
    + "[--fail-on error|warning] [--input-format NAME]\n"
    + "  NDEF: the message the app meant to write, as hex or @FILE (binary)"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["--session", "--expect", "--format", "--fail-on", "--input-format"],
      flags: [])
    let path = try a.singleInput()
    let json = try a.choice("--format", ["text", "json"], default: "text") == "json"
    let failOn = try a.value("--fail-on").map { _ in
      try a.choice("--fail-on", ["error", "warning"], default: "error")
    }
    let only = try a.value("--session").map { v -> Int in
      guard let n = Int(v), n >= 0 else {
        throw UsageError("--session needs a session index, not \(v)")
      }
      return n
    }
    let expected: [UInt8]?
    do {
      expected = try a.value("--expect").map(readExpected)
    } catch let e as TraceError {
      // The JSON error document's source is still the trace; `error.file` names the message.
      throw RecognisedTraceError(error: e, format: nil, sourcePath: path)
    }

    try checkFormatName(a.value("--input-format"))
    let input = try loadInput(path)
    let format = try traceFormat(of: input, named: a.value("--input-format"))
    let out = OutputBuffer()
    // Sessions are diagnosed and written as they end; text goes to a temporary file first,
    // its evidence lines as marks filled in by a second pass over the frames.
    var writer: DiagnosisWriter =
      json
      ? JSONDiagnosisWriter(path: path, format: format.name, out: out)
      : TextDiagnosisWriter(out: out)
    var seen: [Int] = []
    var failing = false
    let level: Severity = failOn == "warning" ? .warning : .error
    var progress = Progress(totalBytes: input.bytes.count)
    let run = try DiagnosisRun(
      importer: try format.open(input), expected: expected, onFrame: { progress.frame($0) }
    ) { d in
      seen.append(d.index)
      guard only == nil || only == d.index else { return }
      writer.add(d)
      failing = failing || d.findings.contains { $0.severity >= level }
    }
    progress.finish()
    if let only, !seen.contains(only) { throw noSessionError(only, among: seen) }
    try writer.finish(run, format: format, input: input)
    out.flush()
    if !json { reportWarnings(run.warnings, path: path) }
    if let e = run.error { throw e }
    return failOn != nil && failing ? 1 : 0
  }

  /// `--expect`: hex (spaces and colons allowed) or `@FILE` (binary).
  /// - Throws: `UsageError` for text that is not hex or an empty message, `TraceError`
  ///   `.unreadable` for a file that cannot be read.
  static func readExpected(_ v: String) throws -> [UInt8] {
    if v.hasPrefix("@") {
      let file = String(v.dropFirst())
      // An unreadable file is bad input (exit 3), as for every other file the tool reads.
      guard let d = FileManager.default.contents(atPath: file) else {
        throw TraceError(
          .unreadable, at: .wholeFile(file),
          "cannot read the --expect message (expected a readable file)")
      }
      guard !d.isEmpty else { throw UsageError("--expect: \(file) is empty") }
      return [UInt8](d)
    }
    let cleaned = v.filter { !" :\n\t".contains($0) }
    // `-` (a separator to the hex reader) alone is no message: it was read as an empty one.
    guard let b = Hex.bytes(cleaned), !(b.isEmpty && !cleaned.isEmpty) else {
      throw UsageError("--expect: not hex (and not @FILE): \(v)")
    }
    // Core NFC cannot write an empty message: an empty --expect is a mistake, not a message.
    guard !b.isEmpty else {
      throw UsageError("--expect: empty message (give the NDEF message's hex)")
    }
    return b
  }

  /// The lines of the `wanted` frames, read again from `input`.
  static func evidence(_ wanted: Set<Int>, format: TraceFormat, input: TraceInput) throws
    -> [Int: DiagnosisRender.EvidenceLine]
  {
    guard let last = wanted.max() else { return [:] }
    var pipeline = FramePipeline(importer: try format.open(input))
    var out: [Int: DiagnosisRender.EvidenceLine] = [:]
    // The second pass over the input: its progress starts again from 0 %.
    var progress = Progress(totalBytes: input.bytes.count)
    defer { progress.finish() }
    func keep(_ f: DecodedFrame) {
      progress.frame(f)
      let i = f.frame.index
      if wanted.contains(i) { out[i] = DiagnosisRender.EvidenceLine(i, f) }
    }
    do {
      while let f = try pipeline.next() {
        keep(f)
        if f.frame.index > last + 8 { break }
      }
    } catch is TraceError {
      pipeline.drain().forEach(keep)
    }
    return out
  }
}

/// Writes `diagnose`'s output, one session at a time.
protocol DiagnosisWriter {
  /// Writes (or spools) one session's diagnosis.
  mutating func add(_ d: SessionDiagnosis)
  /// Ends the output after the last session of `run`.
  /// - Throws: `TraceError` when the trace cannot be opened again for the evidence frames.
  mutating func finish(_ run: DiagnosisRun, format: TraceFormat, input: TraceInput) throws
}

/// The JSON document (docs/json.md), sessions streamed.
struct JSONDiagnosisWriter: DiagnosisWriter {
  private let out: OutputBuffer
  private var count = 0

  init(path: String, format: String, out: OutputBuffer) {
    self.out = out
    JSON.documentHead(version: Version.string, path: path, format: format, to: out)
    out.write(",\"sessions\":[")
  }

  mutating func add(_ d: SessionDiagnosis) {
    if count > 0 { out.append(0x2C) }
    count += 1
    DiagnosisRender.json(d, to: out)
  }

  func finish(_ run: DiagnosisRun, format: TraceFormat, input: TraceInput) {
    // The importer's warnings and error belong in the document: in JSON mode nothing else
    // reports them.
    out.write("\n],\"warnings\":[")
    JSON.elements(run.warnings, to: out) { w in
      out.write("\n")
      TimelineJSONRenderer.warning(w, to: out)
    }
    out.write("\n],\"error\":")
    TimelineJSONRenderer.error(run.error, to: out)
    out.write("}\n")
  }
}

/// The text report: each session's text spooled to a temporary file with its evidence lines
/// as marks (`EvidenceMarks`), then copied with the lines of a second pass over the frames.
struct TextDiagnosisWriter: DiagnosisWriter {
  private let out: OutputBuffer
  private let spool: SessionSpool
  private var marks = EvidenceMarks()
  private var tally = DiagnosisRender.Tally()

  init(out: OutputBuffer) {
    self.out = out
    spool = SessionSpool(suffix: "txt")
  }

  mutating func add(_ d: SessionDiagnosis) {
    tally.add(d)
    spool.write { b in
      DiagnosisRender.session(d, to: b) { marks.mark($0, answersCaptured: $1) }
    }
  }

  mutating func finish(_ run: DiagnosisRun, format: TraceFormat, input: TraceInput) throws {
    let lines = try DiagnoseCommand.evidence(marks.wanted, format: format, input: input)
    // With an import error and nothing read, the error says why (not "no tag answered").
    if tally.sessions == 0, run.error == nil {
      out.write("no sessions: no tag answered in this trace\n")
    }
    var filler = EvidenceMarks.Filler(lines: lines, to: out)
    spool.chunks { filler.copy($0) }
    filler.finish()
    tally.write(to: out)
  }
}
