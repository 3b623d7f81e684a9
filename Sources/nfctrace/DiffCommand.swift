import Foundation
import NFCTrace

/// `nfctrace diff A B [--session-a N] [--session-b M] [--format text|json] [--input-format NAME]
/// [--show-secrets]`.
enum DiffCommand {
  static let usage =
    "nfctrace diff A B [--session-a N] [--session-b M] [--format text|json] [--input-format NAME]"
    + " [--show-secrets]"
    + "\n  default sessions: in each trace, the last session that read, wrote or sent APDUs to a"
    + "\n  tag after its anticollision, else the last in which a tag completed anticollision;"
    + "\n  sessions 0 and 1 when A and B are the same file and no --session-* is given"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["--session-a", "--session-b", "--format", "--input-format"],
      flags: ["--show-secrets"])
    guard a.positionals.count == 2 else {
      throw UsageError(a.positionals.count < 2 ? "expected two traces A and B" : "too many inputs")
    }
    let json = try a.choice("--format", ["text", "json"], default: "text") == "json"
    let pathA = a.positionals[0]
    let pathB = a.positionals[1]
    var sessionA = try index(a.value("--session-a"), "--session-a")
    var sessionB = try index(a.value("--session-b"), "--session-b")
    let sameFile = isSameFile(pathA, pathB)
    var flagA = "--session-a"
    var flagB = "--session-b"
    if sameFile && sessionA == nil && sessionB == nil {
      // Named so the error reads "session 1: … has only session 0 (…)".
      flagA = "session"
      flagB = "session"
      sessionA = 0
      sessionB = 1
    }
    let format = a.value("--input-format")
    try checkFormatName(format)
    let sideA: DiffSide
    let sideB: DiffSide
    var failures: [TraceError] = []
    var warnings: [TraceWarning] = []
    if sameFile {
      let t = try LoadedTrace(pathA, format: format, wanted: [sessionA, sessionB])
      var a = try side(t, sessionA, name: "A", flag: flagA)
      var b = try side(t, sessionB, name: "B", flag: flagB)
      b.path = pathB  // the same file, as the user spelt it for B
      // The other side's session of the same file is compared, not left out.
      a.otherFailures.removeAll { $0.session == b.session }
      b.otherFailures.removeAll { $0.session == a.session }
      (sideA, sideB) = (a, b)
      failures += [t.result.error].compactMap { $0 }
      warnings = t.result.warnings
    } else {
      let ta = try LoadedTrace(pathA, format: format, wanted: [sessionA])
      let tb = try LoadedTrace(pathB, format: format, wanted: [sessionB])
      sideA = try side(ta, sessionA, name: "A", flag: "--session-a")
      sideB = try side(tb, sessionB, name: "B", flag: "--session-b")
      failures += [ta.result.error, tb.result.error].compactMap { $0 }
      // Each side's warnings name their file (a warning without a place gets its path).
      warnings =
        ta.result.warnings.map { named($0, pathA) } + tb.result.warnings.map { named($0, pathB) }
    }
    if sameFile, sideA.analysis.info.index == sideB.analysis.info.index {
      let n = sideA.analysis.info.index
      StandardError.write(
        Data(
          ("warning: A and B are the same session (session \(n) of \(terminalSafe(pathA))): "
            + "nothing can differ; choose another with --session-a/--session-b\n").utf8))
    }
    let diff = TraceDiff(a: sideA, b: sideB, showSecrets: a.flag("--show-secrets"))
    let out = OutputBuffer()
    if json {
      DiffJSON.render(
        diff, version: Version.string, warnings: warnings, error: failures.first, to: out)
    } else {
      for line in DiffText.lines(diff) { out.write(line + "\n") }
    }
    out.flush()
    if let e = failures.first { throw e }
    return 0
  }

  /// The side's session; when there is none and reading the trace stopped at an import error,
  /// that error is what the user needs: it is thrown, naming the missing session too.
  private static func side(_ t: LoadedTrace, _ n: Int?, name: String, flag: String) throws
    -> DiffSide
  {
    do {
      return try t.side(n, name: name, flag: flag)
    } catch {
      guard var e = t.result.error else { throw error }
      e.message += " (and so: \(error))"
      // The input was recognised before it broke off: its JSON document names the format.
      throw RecognisedTraceError(error: e, format: t.result.format.name)
    }
  }

  /// `w`, its message led by `path` when it has no place in a file.
  private static func named(_ w: TraceWarning, _ path: String) -> TraceWarning {
    guard w.location == nil else { return w }
    var named = w
    named.message = "\(path): \(w.message)"
    return named
  }

  /// True when `a` and `b` name one file, however spelt (`x.pcap`, `./x.pcap`, a link):
  /// same device and inode; the same text for standard input or a file that cannot be read.
  private static func isSameFile(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    func resolved(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().path }
    guard a != "-", b != "-",
      let x = try? FileManager.default.attributesOfItem(atPath: resolved(a)),
      let y = try? FileManager.default.attributesOfItem(atPath: resolved(b)),
      let ix = x[.systemFileNumber] as? UInt64, let iy = y[.systemFileNumber] as? UInt64,
      let dx = x[.systemNumber] as? UInt64, let dy = y[.systemNumber] as? UInt64
    else { return false }
    return ix == iy && dx == dy
  }

  private static func index(_ value: String?, _ name: String) throws -> Int? {
    guard let value else { return nil }
    guard let n = Int(value), n >= 0 else {
      throw UsageError("\(name) must be a session index (0, 1, …), not \(value)")
    }
    return n
  }
}

/// A trace analysed with the exchanges of the wanted sessions kept (nil = the last session
/// that touched a tag, as `report` picks it, else the last in which a tag completed
/// anticollision: `ExchangeRecorder.defaultSession`).
private struct LoadedTrace {
  let path: String
  let result: AnalyzedTrace
  let recorder: ExchangeRecorder
  /// The analyses of the sessions a side may take (asked for, or the recorder's default):
  /// the others are not kept, so memory does not grow with the number of sessions.
  let kept: [Int: SessionAnalysis]
  /// How many sessions the trace has.
  let sessionCount: Int
  /// Every session's failed or interrupted operations (`DiffSide.failures`).
  let failures: [(session: Int, operations: String)]

  init(_ path: String, format: String?, wanted: [Int?]) throws {
    let asked = Set(wanted.compactMap { $0 })
    var recorder = ExchangeRecorder(
      selection: .init(sessions: asked, lastWithTag: wanted.contains { $0 == nil }))
    var kept: [Int: SessionAnalysis] = [:]
    var count = 0
    var failures: [(session: Int, operations: String)] = []
    // Each session's analysis goes to the recorder too, which picks the default session by
    // it (as `report` does). It decides on a session when the next one starts: when session
    // `current` ends, every earlier one is decided, so at most four are kept at a time.
    func candidate(_ i: Int, current: Int) -> Bool {
      asked.contains(i) || i == recorder.lastTaggedSession || i == recorder.lastTouchedSession
        || i >= current
    }
    let result = try analyzeTrace(
      path, formatName: format,
      onSession: { s in
        recorder.ended(s)
        count += 1
        if let bad = DiffSide.failures(of: s) { failures.append((s.info.index, bad)) }
        kept[s.info.index] = s
        for i in kept.keys where !candidate(i, current: s.info.index) { kept[i] = nil }
      }, onFrame: { f in recorder.push(f) })
    self.result = result
    recorder.finish()
    reportWarnings(result.warnings, path: path)
    self.path = path
    self.recorder = recorder
    self.kept = kept
    self.sessionCount = count
    self.failures = failures
  }

  func side(_ wanted: Int?, name: String, flag: String) throws -> DiffSide {
    let count = sessionCount
    // No session at all is the input's fault (exit 3), whichever session was asked for; a
    // session number the trace does not reach is the command's (exit 2, below).
    if count == 0 { throw DiffInputError("\(name) (\(path)): the trace has no sessions") }
    guard let index = wanted ?? recorder.defaultSession else {
      // Choosing a session helps only when the trace is whole: a file cut short (the import
      // error then leads the message) needs repairing, not another session.
      let hint =
        result.error == nil
        ? "; choose one with \(flag) (the trace has \(count) session\(count == 1 ? "" : "s"))"
        : ""
      throw DiffInputError(
        "\(name) (\(path)): no session in which a tag completed anticollision" + hint)
    }
    guard let analysis = kept[index] else {
      let hint =
        flag.hasPrefix("--")
        ? "" : " (A and B are the same file: sessions 0 and 1 unless --session-a/-b say otherwise)"
      throw UsageError(
        "\(flag) \(index): \(path) has "
          + (count == 1 ? "only session 0" : "sessions 0–\(count - 1)")
          + hint)
    }
    let exchanges = recorder.exchanges(session: index, operations: analysis.operations) ?? []
    return DiffSide(
      path: path, analysis: analysis, exchanges: exchanges, sessionCount: count,
      failures: failures)
  }
}

/// The chosen trace has no session to compare (exit status 3).
private struct DiffInputError: Error, CustomStringConvertible {
  let description: String
  init(_ message: String) { description = message }
}

/// An import error of an input whose format was recognised before it broke off (a truncated
/// pcap): its JSON error document names `format` instead of null. Also the error of a file
/// other than the trace (`diagnose --expect @FILE`), whose document's source is the trace.
struct RecognisedTraceError: Error, CustomStringConvertible {
  /// The import error.
  let error: TraceError
  /// The recognised format's name (`pcap`); nil when the trace was not read.
  var format: String?
  /// The trace the command was given, when the error is of another file (`diagnose --expect
  /// @FILE`): the JSON error document's `source.path`.
  var sourcePath: String? = nil

  var description: String { error.description }
}
