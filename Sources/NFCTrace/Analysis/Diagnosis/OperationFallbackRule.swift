/// Rule: a failed or interrupted operation that no specific rule explained.
///
/// Evidence: the operation's outcome and reason (SessionAnalyzer). Severity follows what the
/// app loses: NDEF reads and writes → error; an app's own commands (transceive) interrupted →
/// warning on Type 2 / ISO-DEP tags, info otherwise; refused raw commands, activation
/// failures and identification probes (the Ultralight C AUTHENTICATE other tags ignore) →
/// info. Codes: `write-failed` (401), `read-interrupted` (100), `read-failed` (102),
/// `command-interrupted` (100), `command-refused` (102), `authentication-failed` (102),
/// `connect-failed`, `probe-not-answered` (no error).
enum OperationFallbackRule: DiagnosisRule {
  static let codes = [
    "write-failed", "read-interrupted", "read-failed", "command-interrupted", "command-refused",
    "authentication-failed", "connect-failed", "probe-not-answered",
  ]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in finding(c, i) }
  }

  private static func finding(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    let interrupted = op.outcome == .interrupted
    guard interrupted || op.outcome == .failed else { return nil }
    let frames = op.failedFrames + op.unansweredFrames
    let reason = op.reason ?? op.outcome.rawValue
    func make(_ code: String, _ sev: Severity, _ e: CoreNFCError?, _ fix: String)
      -> DiagnosisFinding
    {
      DiagnosisFinding(
        code: code, severity: sev, operation: i, frames: frames.isEmpty ? [op.firstFrame] : frames,
        cause: "\(op.kind.rawValue) \(op.outcome.rawValue): \(reason)",
        message:
          "The \(op.kind.rawValue) operation \(interrupted ? "was cut off" : "failed"): \(reason).",
        coreNFCError: e, fix: fix)
    }
    let still = RFRule.holdStill
    switch op.kind {
    case .writeNDEF, .writeLock:
      return interrupted
        ? nil
        : make(
          "write-failed", .error, .tagUpdateFailure,
          "Check queryNDEFStatus before writing and retry with the tag held still.")
    case .readNDEF, .queryNDEFStatus:
      return interrupted
        ? make("read-interrupted", .error, .tagConnectionLost, still)
        : make("read-failed", .error, .tagResponseError, still)
    case .transceive:
      if interrupted {
        let decoded = c.session.tag.isType2 || c.session.tag.isISODEP
        return make("command-interrupted", decoded ? .warning : .info, .tagConnectionLost, still)
      }
      return make(
        "command-refused", .info, .tagResponseError,
        "Check the command against the tag's datasheet; a refusal is an answer, not a radio problem."
      )
    case .authenticate:
      if reason.contains("not a MIFARE Ultralight C") {
        return make(
          "probe-not-answered", .info, nil,
          "Nothing to fix: readers send this to tell Ultralight C apart from other tags.")
      }
      return make(
        "authentication-failed", .warning, .tagResponseError,
        "Check the password/key; after a failed PWD_AUTH, reconnect before retrying.")
    case .connect:
      return make("connect-failed", .info, nil, still)
    }
  }
}
