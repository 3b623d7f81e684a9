import Foundation
import NFCTrace

/// `nfctrace report FILE [--session N | --all] [--format text|json] [--show-secrets]
/// [--input-format NAME]`: the tag's contents after a session, or from a static dump.
enum ReportCommand {
  static let usage =
    "nfctrace report FILE [--session N | --all] [--format text|json] [--show-secrets]"
    + " [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["--format", "--input-format", "--session"],
      flags: ["--all", "--show-secrets"])
    let path = try a.singleInput()
    let json = try a.choice("--format", ["text", "json"], default: "text") == "json"
    let secrets = a.flag("--show-secrets")
    if a.flag("--all") && a.value("--session") != nil {
      throw UsageError("--session and --all exclude each other")
    }
    try checkFormatName(a.value("--input-format"), allowDumps: true)
    let out = OutputBuffer()
    // Sessions stream: `--all` writes each report as its session ends, the other choices keep
    // only the candidates, so memory does not grow with the length of the trace.
    var selection = Selection(session: a.value("--session"), all: a.flag("--all"))
    var writer: ReportWriter?
    let source: ReportSource.Result
    let input = try loadInput(path)
    var progress = Progress(totalBytes: input.bytes.count)
    do {
      defer { progress.finish() }
      source = try ReportSource.stream(
        input, formatName: a.value("--input-format"), registry: registry,
        onFormat: { format in
          if selection.all {
            writer = ReportWriter(path: path, format: format, json: json, out: out)
          }
        },
        onSession: { s in
          if let writer {
            writer.add(TagReport(session: s), secrets: secrets)
          } else {
            selection.offer(s)
          }
        }, onFrame: { progress.frame($0) })
    } catch let e as ReportSource.UnknownFormat {
      throw UsageError(e.description)
    }
    if writer == nil {
      let reports = try selection.reports(of: source)
      writer = ReportWriter(path: path, format: source.format, json: json, out: out)
      reports.forEach { writer?.add($0, secrets: secrets) }
    }
    writer?.finish(source, sessionsSeen: selection.all ? writer?.count ?? 0 : selection.seen.count)
    out.flush()
    if !json { reportWarnings(source.warnings, path: path) }
    if let e = source.error { throw e }
    return 0
  }

  /// Which sessions to report, picked as they stream by: `--session N`'s, every one
  /// (`--all`, written as they come), or the default (`TagReport.defaultSession`).
  struct Selection {
    /// `--session`'s value as given: checked once the input was read, so that a damaged or
    /// missing input, or a dump, is what the error names first.
    var session: String?
    var all: Bool
    /// The indices of the sessions offered (for the error naming the ones there are).
    private(set) var seen: [Int] = []
    private var chosen: SessionAnalysis?
    private var choice = TagReport.DefaultSessionChoice()

    init(session: String?, all: Bool) {
      self.session = session
      self.all = all
    }

    mutating func offer(_ s: SessionAnalysis) {
      seen.append(s.info.index)
      if let session {
        if Int(session) == s.info.index { chosen = s }
      } else {
        choice.offer(s)
      }
    }

    /// The reports to print: the dump's, or the chosen session's.
    /// - Throws: `UsageError` for `--session` on a dump, not a number, or a session the trace
    ///   does not hold.
    func reports(of source: ReportSource.Result) throws -> [TagReport] {
      if let dump = source.dump {
        if session != nil { throw UsageError("--session: a static dump has no sessions") }
        return [TagReport(dump: dump)]
      }
      if let session {
        guard let n = Int(session) else {
          throw UsageError("--session needs a number, not \(session)")
        }
        guard let chosen else { throw noSessionError(n, among: seen) }
        return [TagReport(session: chosen)]
      }
      return choice.session.map { [TagReport(session: $0)] } ?? []
    }
  }
}

/// Writes `report`'s document, text or JSON, one report at a time.
final class ReportWriter {
  private let json: Bool
  private let out: OutputBuffer
  /// Reports written.
  private(set) var count = 0

  /// Writes the head: the input's path and format.
  init(path: String, format: String, json: Bool, out: OutputBuffer) {
    self.json = json
    self.out = out
    if json {
      JSON.documentHead(version: Version.string, path: path, format: format, to: out)
      out.write(",\"reports\":[")
    } else {
      out.write("\(path) (\(format))\n")
    }
  }

  /// Writes one report.
  func add(_ r: TagReport, secrets: Bool) {
    if json {
      if count > 0 { out.append(0x2C) }
      out.write("\n")
      ReportJSON.report(r, showSecrets: secrets, to: out)
    } else {
      out.write("\n")
      out.write(ReportText.render(r, showSecrets: secrets))
    }
    count += 1
  }

  /// Ends the document: text says when there was no session to report (unless an import
  /// error explains an empty trace), JSON closes with the warnings and the error.
  func finish(_ source: ReportSource.Result, sessionsSeen: Int) {
    guard json else {
      if count == 0, source.error == nil || sessionsSeen > 0 {
        out.write("no sessions: no tag answered in this trace\n")
      }
      return
    }
    out.write("\n],\"warnings\":[")
    JSON.elements(source.warnings, to: out) { w in
      TimelineJSONRenderer.warning(w, to: out)
    }
    out.write("],\"error\":")
    TimelineJSONRenderer.error(source.error, to: out)
    out.write("}\n")
  }
}
