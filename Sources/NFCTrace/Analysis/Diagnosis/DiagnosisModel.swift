/// What became of one operation, in the words an app developer uses.
public enum Verdict: String, Sendable, Hashable {
  /// The operation completed and the tag acknowledged every command.
  case succeeded
  /// The tag refused (NAK, error status word).
  case failed
  /// The tag stopped answering before the operation completed.
  case interrupted
  /// The write completed on the radio, but the NDEF it wrote is malformed.
  case succeededWithBadContent = "succeeded-with-bad-content"
  /// The operation the app meant to do could not even be started (read-only tag, message
  /// larger than the capacity, empty message, tag not NDEF formatted).
  case notAttempted = "not-attempted"
  /// The trace does not show how the operation ended (it was cut, or the tag's side was not
  /// captured): neither a success nor the tag's fault.
  case unknown
}

/// The verdict on one operation of a session.
public struct OperationVerdict: Sendable, Equatable {
  /// Index into `SessionAnalysis.operations` (for `notAttempted`: the operation after which
  /// the write would have come, usually `queryNDEFStatus`).
  public var operation: Int
  /// The operation's kind (`writeNDEF` for a write that was not attempted).
  public var kind: OperationKind
  /// The verdict.
  public var verdict: Verdict

  /// Creates a verdict.
  public init(operation: Int, kind: OperationKind, verdict: Verdict) {
    self.operation = operation
    self.kind = kind
    self.verdict = verdict
  }
}

/// One diagnosis: what went wrong (or is risky), the frames that show it, what the app saw and
/// how to fix it in the app.
public struct DiagnosisFinding: Sendable, Equatable {
  /// Stable kebab-case code (e.g. `write-interrupted`, `t2t-nak-locked-page`), or the NDEF
  /// validator's code for content findings (e.g. `uri-no-identifier-byte`).
  public var code: String
  /// Severity: `error` for a failed or damaging operation, `warning` for a risk or a
  /// recovered problem, `info` for context.
  public var severity: Severity
  /// Session index.
  public var session: Int
  /// Operation index in the session, or nil for session-wide findings.
  public var operation: Int?
  /// The evidence: frame indices, in trace order.
  public var frames: [Int]
  /// The cause in one line.
  public var cause: String
  /// A plain explanation, readable without knowing ISO 14443.
  public var message: String
  /// The Core NFC error the app most likely saw, or nil (none, or not knowable).
  public var coreNFCError: CoreNFCError?
  /// The fix, in Core NFC terms.
  public var fix: String
  /// How the finding changes its operation's verdict.
  var effect: Effect = .none

  /// What a finding does to a verdict.
  enum Effect: Sendable, Equatable {
    case none
    /// The write succeeded on the radio but wrote bad NDEF.
    case badContent
    /// The app's write could not be attempted.
    case notAttempted
    /// Every command was acknowledged, but the write procedure stopped before its last step.
    case unfinished
  }

  /// Creates a finding (`session` is filled in by the diagnoser).
  public init(
    code: String, severity: Severity, operation: Int?, frames: [Int], cause: String,
    message: String, coreNFCError: CoreNFCError?, fix: String, session: Int = 0
  ) {
    self.code = code
    self.severity = severity
    self.session = session
    self.operation = operation
    // A frame cited twice (an operation's first frame that is also its last command) is
    // shown once.
    var seen = Set<Int>()
    self.frames = frames.filter { seen.insert($0).inserted }
    self.cause = cause
    self.message = message
    self.coreNFCError = coreNFCError
    self.fix = fix
  }
}

/// The diagnosis of one session.
public struct SessionDiagnosis: Sendable {
  /// The session analysed.
  public var analysis: SessionAnalysis
  /// Verdicts for every write and every failed or interrupted operation, in order.
  public var verdicts: [OperationVerdict]
  /// Findings, most severe first, then by first evidence frame.
  public var findings: [DiagnosisFinding]

  /// The session index.
  public var index: Int { analysis.info.index }
}

/// The diagnosis of a trace.
public struct DiagnosisReport: Sendable {
  /// One entry per session, in order.
  public var sessions: [SessionDiagnosis]

  /// The most severe finding's severity, nil when there are none.
  public var worstSeverity: Severity? {
    sessions.flatMap(\.findings).map(\.severity).max()
  }

  /// All findings in session order.
  public var findings: [DiagnosisFinding] { sessions.flatMap(\.findings) }
}
