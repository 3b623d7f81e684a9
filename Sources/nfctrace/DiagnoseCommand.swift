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
    let expected = try a.value("--expect").map(readExpected)

    try checkFormatName(a.value("--input-format"))
    let input = try loadInput(path)
    let format = try traceFormat(of: input, named: a.value("--input-format"))
    let run = try DiagnosisRun(importer: try format.open(input))
    var report = run.diagnose(expected: expected)
    if let only {
      let all = report.sessions.map(\.index)
      report.sessions = report.sessions.filter { $0.index == only }
      if report.sessions.isEmpty { throw noSessionError(only, among: all) }
    }
    let out = OutputBuffer()
    if json {
      out.write("{\"tool\":\"nfctrace\",\"version\":")
      JSON.string(Version.string, to: out)
      out.write(",\"source\":{\"path\":")
      JSON.string(path, to: out)
      out.write(",\"format\":\"\(format.name)\"},\"sessions\":[")
      DiagnosisRender.json(report, to: out)
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
    } else {
      // Second pass over the same bytes, keeping only the evidence frames.
      let wanted = Set(report.findings.flatMap(\.frames))
      let frames = try evidence(wanted, format: format, input: input)
      // With an import error and nothing read, the error says why (not "no tag answered").
      if report.sessions.isEmpty, run.error == nil {
        out.write("no sessions: no tag answered in this trace\n")
      }
      DiagnosisRender.text(report, frames: frames, to: out)
    }
    out.flush()
    if !json { reportWarnings(run.warnings, path: path) }
    if let e = run.error { throw e }
    guard let failOn else { return 0 }
    let level: Severity = failOn == "warning" ? .warning : .error
    return report.findings.contains { $0.severity >= level } ? 1 : 0
  }

  /// `--expect`: hex (spaces and colons allowed) or `@FILE` (binary).
  static func readExpected(_ v: String) throws -> [UInt8] {
    if v.hasPrefix("@") {
      let file = String(v.dropFirst())
      guard let d = FileManager.default.contents(atPath: file) else {
        throw UsageError("--expect: cannot read \(file)")
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

  private static func evidence(_ wanted: Set<Int>, format: TraceFormat, input: TraceInput) throws
    -> [Int: DecodedFrame]
  {
    guard let last = wanted.max() else { return [:] }
    var pipeline = FramePipeline(importer: try format.open(input))
    var out: [Int: DecodedFrame] = [:]
    func keep(_ f: DecodedFrame) { if wanted.contains(f.frame.index) { out[f.frame.index] = f } }
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
