import Foundation
import NFCTrace

/// `nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]`.
enum TimelineCommand {
  static let usage = "nfctrace timeline FILE [--format text|json] [--no-color] [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(args, options: ["--format", "--input-format"], flags: ["--no-color"])
    let path = try a.singleInput()
    let format = try a.choice("--format", ["text", "json"], default: "text")
    let (traceFormat, importer) = try openTrace(path, formatName: a.value("--input-format"))
    var pipeline = FramePipeline(importer: importer)
    let out = OutputBuffer()
    var failure: TraceError?
    if format == "json" {
      let r = TimelineJSONRenderer(
        out: out, path: path, format: traceFormat.name, version: Version.string)
      failure = pump(&pipeline) { r.render($0) }
      r.finish(sessions: pipeline.sessions, warnings: pipeline.warnings, error: failure)
    } else {
      let color = !a.flag("--no-color") && isatty(1) == 1 && getenv("NO_COLOR") == nil
      let r = TimelineTextRenderer(out: out, color: color)
      failure = pump(&pipeline) { r.render($0) }
      r.finish()
    }
    out.flush()
    if format == "text" { reportWarnings(pipeline.warnings) }
    if let failure { throw failure }
    return 0
  }

  /// Runs the pipeline to the end or to the import error, rendering every frame decoded.
  private static func pump(_ p: inout FramePipeline, _ render: (DecodedFrame) -> Void) -> TraceError? {
    do {
      while let f = try p.next() { render(f) }
      return nil
    } catch let e as TraceError {
      for f in p.drain() { render(f) }
      return e
    } catch {
      for f in p.drain() { render(f) }
      return TraceError(
        .malformed, at: SourceLocation(file: "?", unit: "record", record: 0, offset: 0),
        "\(error)")
    }
  }
}

/// Prints importer warnings on standard error.
func reportWarnings(_ warnings: [TraceWarning]) {
  for w in warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
}
