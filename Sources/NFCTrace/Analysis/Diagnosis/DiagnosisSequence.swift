/// Diagnoses a trace's sessions one after the other, in trace order, keeping only what a
/// later session's rules look back at: the session before it (`DiagnosisContext.previous`)
/// and the frame of each UID's last accepted authentication (`earlierAuthFrame`). Serves the
/// whole-trace `Diagnoser.diagnose(sessions:observer:expected:)` and the streamed
/// `DiagnosisRun.init(importer:expected:onSession:)` alike.
public struct DiagnosisSequence: Sendable {
  /// The NDEF message the app meant to write (`--expect`), if given.
  public let expected: [UInt8]?
  private var authByUID: [[UInt8]: Int] = [:]
  private var previous: SessionAnalysis?

  /// A sequence before its first session.
  public init(expected: [UInt8]?) { self.expected = expected }

  /// Diagnoses the next session `s` with its RF statistics and command log.
  public mutating func diagnose(
    _ s: SessionAnalysis, rf: SessionRFStatistics, log: SessionCommandLog
  ) -> SessionDiagnosis {
    let uid = s.tag.uid
    let c = DiagnosisContext(
      session: s, rf: rf, log: log, expected: expected,
      earlierAuthFrame: uid.isEmpty ? nil : authByUID[uid], previous: previous)
    let d = Diagnoser.diagnose(c)
    previous = d.analysis
    // One entry per UID that ever authenticated: not capped, as dropping one would change a
    // later session's diagnosis (a lost authentication read as an unexplained NAK).
    if !uid.isEmpty, let last = log.packFrames.last { authByUID[uid] = last }
    return d
  }
}
