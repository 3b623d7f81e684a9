import Foundation
import NFCTrace

/// `nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]`.
enum TimelineCommand {
  static let usage =
    "nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(args, options: ["--format", "--input-format"], flags: ["--no-color"])
    let path = try a.singleInput()
    let format = try a.choice("--format", ["text", "json"], default: "text")
    let out = OutputBuffer()
    let result: AnalyzedTrace
    if format == "json" {
      result = try json(path, inputFormat: a.value("--input-format"), out: out)
    } else {
      let color = !a.flag("--no-color") && isatty(1) == 1 && getenv("NO_COLOR") == nil
      let r = TimelineTextRenderer(out: out, color: color)
      result = try analyzeTrace(
        path, formatName: a.value("--input-format"), keepsMemory: false,
        onSession: { _ in }, onEvent: { r.render($0) }, onFrame: { r.render($0) })
      r.finish()
    }
    out.flush()
    if format == "text" { reportWarnings(result.warnings, path: path) }
    if let failure = result.error { throw failure }
    return 0
  }

  /// The JSON document: frames stream to the output; each session's JSON goes to a temporary
  /// buffer file as the session ends and is copied after the frames, so memory stays bounded.
  private static func json(_ path: String, inputFormat: String?, out: OutputBuffer) throws
    -> AnalyzedTrace
  {
    let spool = SessionSpool()
    var renderer: TimelineJSONRenderer?
    let result = try analyzeTrace(
      path, formatName: inputFormat, keepsMemory: false,
      onSession: { spool.add($0) },
      onFrame: { renderer?.render($0) },
      onStart: { format in
        renderer = TimelineJSONRenderer(
          out: out, path: path, format: format.name, version: Version.string)
      })
    renderer?.finish(sessions: spool, warnings: result.warnings, error: result.error)
    return result
  }
}

/// Prints importer warnings on standard error.
/// Prints `warnings` on standard error; one that names no place in the input is prefixed with
/// `path` (the input file), so every line says which file it is about.
func reportWarnings(_ warnings: [TraceWarning], path: String? = nil) {
  for w in warnings {
    let prefix = w.location == nil ? path.map { "\($0): " } ?? "" : ""
    StandardError.write(Data("warning: \(terminalSafe("\(prefix)\(w)"))\n".utf8))
  }
}

/// `text` with control characters (a quoted input line may hold BEL, NUL, ESC…) shown as
/// `\xNN`, so a warning cannot ring, clear or recolour the user's terminal.
func terminalSafe(_ text: String) -> String {
  guard text.unicodeScalars.contains(where: isControl) else { return text }
  var out = String.UnicodeScalarView()
  for u in text.unicodeScalars {
    if isControl(u) {
      out.append(contentsOf: String(format: "\\x%02X", u.value).unicodeScalars)
    } else {
      out.append(u)
    }
  }
  return String(out)
}

private func isControl(_ u: Unicode.Scalar) -> Bool {
  u.value < 0x20 || (0x7F...0x9F).contains(u.value)
}
