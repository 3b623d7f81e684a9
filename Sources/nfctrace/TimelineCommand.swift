import Foundation
import NFCTrace

/// `nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]`.
enum TimelineCommand {
  static let usage = "nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(args, options: ["--format", "--input-format"], flags: ["--no-color"])
    let path = try a.singleInput()
    let format = try a.choice("--format", ["text", "json"], default: "text")
    let out = OutputBuffer()
    let result: AnalyzedTrace
    if format == "json" {
      var renderer: TimelineJSONRenderer?
      result = try analyzeTrace(path, formatName: a.value("--input-format")) { _ in
      } onFrame: { f in
        renderer?.render(f)
      } onStart: { format in
        renderer = TimelineJSONRenderer(
          out: out, path: path, format: format.name, version: Version.string)
      }
      renderer?.finish(sessions: result.sessions, warnings: result.warnings, error: result.error)
    } else {
      let color = !a.flag("--no-color") && isatty(1) == 1 && getenv("NO_COLOR") == nil
      let r = TimelineTextRenderer(out: out, color: color)
      result = try analyzeTrace(path, formatName: a.value("--input-format")) { e in
        r.render(e)
      } onFrame: { f in
        r.render(f)
      }
      r.finish()
    }
    out.flush()
    if format == "text" { reportWarnings(result.warnings) }
    if let failure = result.error { throw failure }
    return 0
  }
}

/// Prints importer warnings on standard error.
func reportWarnings(_ warnings: [TraceWarning]) {
  for w in warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
}
