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
    let source: ReportSource.Result
    do {
      source = try ReportSource.open(
        loadInput(path), formatName: a.value("--input-format"), registry: registry)
    } catch let e as ReportSource.UnknownFormat {
      throw UsageError(e.description)
    }
    let reports = try select(source, session: a.value("--session"), all: a.flag("--all"))
    let out = OutputBuffer()
    if json {
      writeJSON(reports, path: path, source: source, secrets: secrets, to: out)
    } else {
      writeText(reports, path: path, source: source, secrets: secrets, to: out)
    }
    out.flush()
    if !json { reportWarnings(source.warnings, path: path) }
    if let e = source.error { throw e }
    return 0
  }

  /// The reports asked for: the dump's, one session's, or every session's.
  static func select(_ source: ReportSource.Result, session: String?, all: Bool) throws
    -> [TagReport]
  {
    if let dump = source.dump {
      if session != nil { throw UsageError("--session: a static dump has no sessions") }
      return [TagReport(dump: dump)]
    }
    if all { return source.sessions.map { TagReport(session: $0) } }
    if let session {
      guard let n = Int(session) else {
        throw UsageError("--session needs a number, not \(session)")
      }
      guard let s = source.sessions.first(where: { $0.info.index == n }) else {
        throw noSessionError(n, among: source.sessions.map(\.info.index))
      }
      return [TagReport(session: s)]
    }
    return TagReport.defaultSession(source.sessions).map { [TagReport(session: $0)] } ?? []
  }

  static func writeText(
    _ reports: [TagReport], path: String, source: ReportSource.Result, secrets: Bool,
    to out: OutputBuffer
  ) {
    out.write("\(path) (\(source.format))\n")
    // With an import error and nothing read, the error says why (not "no tag answered").
    if reports.isEmpty, source.error == nil || !source.sessions.isEmpty {
      out.write("no sessions: no tag answered in this trace\n")
    }
    for r in reports {
      out.write("\n")
      out.write(ReportText.render(r, showSecrets: secrets))
    }
  }

  static func writeJSON(
    _ reports: [TagReport], path: String, source: ReportSource.Result, secrets: Bool,
    to out: OutputBuffer
  ) {
    out.write("{\"tool\":\"nfctrace\",\"version\":")
    JSON.string(Version.string, to: out)
    out.write(",\"source\":{\"path\":")
    JSON.string(path, to: out)
    out.write(",\"format\":")
    JSON.string(source.format, to: out)
    out.write("},\"reports\":[")
    JSON.elements(reports, to: out) { r in
      out.write("\n")
      ReportJSON.report(r, showSecrets: secrets, to: out)
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
