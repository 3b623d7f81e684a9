import Foundation
import NFCTrace

/// A trace run through the pipeline and the session analysis.
struct AnalyzedTrace {
  var format: TraceFormat
  var sessions: [SessionAnalysis]
  var warnings: [TraceWarning]
  /// The import error that stopped reading, if any (what came before it is analysed).
  var error: TraceError?
}

/// Runs the pipeline over a trace and the session analysis over its frames, streaming.
/// - Parameters:
///   - onEvent: called with each operation start and end, before the frame that caused it.
///   - onFrame: called with every decoded frame.
///   - onStart: called once the input is open, with its format.
///   - onSession: when given, each session's analysis is handed to it as soon as it ends and
///     not kept (the result's `sessions` is then empty).
func analyzeTrace(
  _ path: String, formatName: String?, keepsMemory: Bool = true,
  onSession: ((SessionAnalysis) -> Void)? = nil,
  onEvent: (OperationEvent) -> Void = { _ in },
  onFrame: (DecodedFrame) -> Void = { _ in }, onStart: (TraceFormat) -> Void = { _ in }
) throws -> AnalyzedTrace {
  let (format, importer, size) = try openTraceInput(path, formatName: formatName)
  onStart(format)
  var progress = Progress(totalBytes: size)
  let run = try SessionAnalysisRun(
    importer: importer, keepsMemory: keepsMemory, retainsSessions: onSession == nil
  ) { item in
    switch item {
    case .session(let s): onSession?(s)
    case .event(let e): onEvent(e)
    case .frame(let f):
      progress.frame(f)
      onFrame(f)
    }
  }
  progress.finish()
  return AnalyzedTrace(
    format: format, sessions: run.sessions, warnings: run.warnings, error: run.error)
}

/// `nfctrace sessions FILE [--format text|json] [--input-format NAME]`.
enum SessionsCommand {
  static let usage = "nfctrace sessions FILE [--format text|json] [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(args, options: ["--format", "--input-format"], flags: [])
    let path = try a.singleInput()
    let json = try a.choice("--format", ["text", "json"], default: "text") == "json"
    let out = OutputBuffer()
    var count = 0
    let result = try analyzeTrace(
      path, formatName: a.value("--input-format"), keepsMemory: false,
      onSession: { s in
        if json {
          if count > 0 { out.append(0x2C) }
          out.write("\n")
          SessionsRender.json(s, to: out)
        } else {
          out.write(SessionsRender.line(s))
          out.endLine()
        }
        count += 1
      },
      onStart: { format in
        guard json else { return }
        JSON.documentHead(version: Version.string, path: path, format: format.name, to: out)
        out.write(",\"sessions\":[")
      })
    if json {
      out.write("\n],\"warnings\":[")
      JSON.elements(result.warnings, to: out) { w in
        TimelineJSONRenderer.warning(w, to: out)
      }
      out.write("],\"error\":")
      TimelineJSONRenderer.error(result.error, to: out)
      out.write("}\n")
    } else if count == 0, result.error == nil {
      out.write("no sessions: no tag answered in this trace\n")
    }
    out.flush()
    if !json { reportWarnings(result.warnings, path: path) }
    if let e = result.error { throw e }
    return 0
  }
}
