/// Feeds every session's frames to its `SessionRFStatistics` and `SessionCommandLog`,
/// streaming. Keeps one small record per session, never the frames.
public struct DiagnosisObserver: Sendable {
  /// Per-session RF statistics, by session index.
  public private(set) var rf: [Int: SessionRFStatistics] = [:]
  /// Per-session command logs, by session index.
  public private(set) var logs: [Int: SessionCommandLog] = [:]
  private var current: Int?

  /// An observer with no session.
  public init() {}

  /// Takes the pipeline's next frame.
  public mutating func push(_ f: DecodedFrame) {
    guard let s = f.session else {
      if f.frame.direction == .event { closeCurrent() }
      return
    }
    if current != s {
      closeCurrent()
      current = s
    }
    rf[s, default: SessionRFStatistics()].push(f)
    logs[s, default: SessionCommandLog()].push(f)
  }

  /// Closes the last session (end of the trace).
  public mutating func finish() { closeCurrent() }

  /// Takes session `s`'s evidence out of the observer, closing the session first if it is the
  /// open one: for a diagnosis made as each session ends, so that the observer keeps only the
  /// open session's.
  public mutating func take(_ s: Int) -> (rf: SessionRFStatistics, log: SessionCommandLog) {
    if current == s { closeCurrent() }
    return (
      rf.removeValue(forKey: s) ?? SessionRFStatistics(),
      logs.removeValue(forKey: s) ?? SessionCommandLog()
    )
  }

  private mutating func closeCurrent() {
    guard let s = current else { return }
    current = nil
    rf[s]?.finish()
    logs[s]?.finish()
  }
}

/// Runs the whole analysis for `diagnose` over one importer, streaming: pipeline → session
/// collector + diagnosis observer → rules.
public struct DiagnosisRun {
  /// The sessions analysed.
  public private(set) var sessions: [SessionAnalysis] = []
  /// The observer's per-session evidence.
  public private(set) var observer = DiagnosisObserver()
  /// The import error that stopped reading, if any (what came before it is analysed).
  public private(set) var error: TraceError?
  /// Importer warnings.
  public private(set) var warnings: [TraceWarning] = []

  /// Reads the whole trace from `importer`. A `TraceError` met while reading is kept in
  /// `error` (the frames before it are analysed); other errors are rethrown.
  public init(importer: any TraceImporter) throws {
    var observer = DiagnosisObserver()
    let run = try SessionAnalysisRun(importer: importer) { item in
      if case .frame(let f) = item { observer.push(f) }
    }
    observer.finish()
    self.sessions = run.sessions
    self.observer = observer
    self.warnings = run.warnings
    self.error = run.error
  }

  /// Reads the whole trace from `importer`, diagnosing each session as it ends (comparing
  /// writes with `expected`) and handing it to `onSession`, in order. `sessions` stays empty
  /// and the observer keeps only the open session's evidence, so memory does not grow with the
  /// number of sessions. `onFrame` sees every decoded frame (for progress). Errors as
  /// `init(importer:)`.
  public init(
    importer: any TraceImporter, expected: [UInt8]?,
    onFrame: (DecodedFrame) -> Void = { _ in }, onSession: (SessionDiagnosis) -> Void
  ) throws {
    var observer = DiagnosisObserver()
    var sequence = DiagnosisSequence(expected: expected)
    let run = try SessionAnalysisRun(importer: importer, retainsSessions: false) { item in
      switch item {
      case .frame(let f):
        observer.push(f)
        onFrame(f)
      case .session(let s):
        // Every frame of a session is handed on before the session ends.
        let evidence = observer.take(s.info.index)
        onSession(sequence.diagnose(s, rf: evidence.rf, log: evidence.log))
      default: break
      }
    }
    self.warnings = run.warnings
    self.error = run.error
  }

  /// The diagnosis, comparing writes with `expected` (the message the app meant to write).
  public func diagnose(expected: [UInt8]? = nil) -> DiagnosisReport {
    Diagnoser.diagnose(sessions: sessions, observer: observer, expected: expected)
  }
}
