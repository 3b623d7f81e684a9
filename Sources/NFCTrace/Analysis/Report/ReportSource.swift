/// Opens an input for `nfctrace report`: a static tag dump (tried first) or a trace run through
/// the pipeline and the session analysis, and gives the reports to print.
public enum ReportSource {
  /// Names of the static dump formats `TagDumpReader` reads.
  public static let dumpFormats = ["flipper-nfc", "pm3-json", "raw-type2"]

  /// What an input gave.
  public struct Result: Sendable {
    /// The format name (a trace format's, or a dump's).
    public var format: String
    /// The static dump, when the input is one.
    public var dump: TagDump?
    /// The analysed sessions of a trace.
    public var sessions: [SessionAnalysis]
    /// Importer warnings.
    public var warnings: [TraceWarning]
    /// The import error that stopped reading (what came before it is analysed).
    public var error: TraceError?
  }

  /// Reads `input`. A dump is tried first unless `formatName` names a trace format of
  /// `registry`; a dump format name forces that dump reader.
  /// - Throws: `TraceError` for a damaged dump, an unknown format (`.unsupported`) or an
  ///   input no trace format recognises; `ReportSource.UnknownFormat` for a name that is
  ///   neither a trace nor a dump format.
  public static func open(_ input: TraceInput, formatName: String?, registry: FormatRegistry)
    throws -> Result
  {
    switch try identify(input, formatName: formatName, registry: registry) {
    case .dump(let dump):
      return Result(format: dump.format, dump: dump, sessions: [], warnings: dump.inputWarnings)
    case .trace(let format):
      return try analyze(try format.open(input), format: format.name)
    }
  }

  /// `open`, streaming a trace's sessions: `onFormat` gets the trace format's name before any
  /// session, `onSession` each session as it ends (in order), `onFrame` every decoded frame
  /// (for progress), and the result's `sessions` stays empty, so memory does not grow with the
  /// number of sessions. A dump calls none of them and comes back in `dump`.
  /// - Throws: as `open`.
  public static func stream(
    _ input: TraceInput, formatName: String?, registry: FormatRegistry,
    onFormat: (String) -> Void, onSession: (SessionAnalysis) -> Void,
    onFrame: (DecodedFrame) -> Void = { _ in }
  ) throws -> Result {
    switch try identify(input, formatName: formatName, registry: registry) {
    case .dump(let dump):
      return Result(format: dump.format, dump: dump, sessions: [], warnings: dump.inputWarnings)
    case .trace(let format):
      onFormat(format.name)
      let run = try SessionAnalysisRun(importer: try format.open(input), retainsSessions: false) {
        switch $0 {
        case .session(let s): onSession(s)
        case .frame(let f): onFrame(f)
        case .event: break
        }
      }
      return Result(
        format: format.name, dump: nil, sessions: [], warnings: run.warnings, error: run.error)
    }
  }

  /// What an input is: a static dump (read) or a trace of `format`.
  private enum Identified {
    case dump(TagDump)
    case trace(TraceFormat)
  }

  private static func identify(_ input: TraceInput, formatName: String?, registry: FormatRegistry)
    throws -> Identified
  {
    let traceFormat = formatName.flatMap { registry.format(named: $0) }
    if let formatName, traceFormat == nil, !dumpFormats.contains(formatName) {
      throw UnknownFormat(name: formatName, known: registry.formats.map(\.name) + dumpFormats)
    }
    if traceFormat == nil, let dump = try TagDumpReader.read(input) {
      if let formatName, dump.format != formatName {
        throw TraceError(
          .unsupported, at: input.location(unit: "byte", record: 0, offset: 0),
          "the input is a \(dump.format) dump, not \(formatName)")
      }
      return .dump(dump)
    }
    if let formatName, dumpFormats.contains(formatName) {
      throw TraceError(
        .unsupported, at: input.location(unit: "byte", record: 0, offset: 0),
        "not a \(formatName) dump"
          + (formatName == "raw-type2" ? ": " + RawType2Image.rejection(input) : ""))
    }
    do {
      return .trace(try traceFormat ?? registry.detect(input))
    } catch var e as TraceError where e.kind == .unknownFormat {
      // `report` reads static dumps too: name them with the trace formats.
      let known = (registry.formats.map(\.name) + dumpFormats).joined(separator: ", ")
      e.message = "not a recognised trace or tag dump format (known: \(known)); use --input-format"
      throw e
    }
  }

  /// Runs the pipeline and the session analysis over `importer`, keeping what came before an
  /// import error.
  /// - Throws: errors other than `TraceError` (none are expected from the pipeline).
  public static func analyze(_ importer: any TraceImporter, format: String) throws -> Result {
    let run = try SessionAnalysisRun(importer: importer)
    return Result(
      format: format, dump: nil, sessions: run.sessions, warnings: run.warnings, error: run.error)
  }

  /// An `--input-format` name that no reader knows.
  public struct UnknownFormat: Error, CustomStringConvertible {
    /// The name given.
    public var name: String
    /// The names known.
    public var known: [String]
    /// `unknown input format X (known: …)`.
    public var description: String {
      "unknown input format \(name) (known: \(known.joined(separator: ", ")))"
    }
  }
}
