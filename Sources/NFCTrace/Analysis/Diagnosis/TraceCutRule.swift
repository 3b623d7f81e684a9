/// Rule: the trace stops before an operation's end (an import error cut it: a copy stopped
/// early, a listing pasted without its last lines), so its end cannot be judged.
///
/// Evidence: the operation's detail `trace_cut` (set by `SessionAnalyzer` when the pipeline
/// reports the import error). Code: `trace-cut` (info; no Core NFC error — what the app saw is
/// not in the trace).
enum TraceCutRule: DiagnosisRule {
  static let codes = ["trace-cut"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.enumerated().compactMap { i, op in
      guard case .string(let location)? = op.detail("trace_cut") else { return nil }
      return DiagnosisFinding(
        code: "trace-cut", severity: .info, operation: i, frames: [op.lastFrame],
        cause: "the trace was cut before the operation's end",
        message: "The input stops at \(location) (an import error), in the middle of "
          + "\(op.kind.rawValue): the answers after that point are not in the trace, so whether "
          + "the operation succeeded, and the error Core NFC reported if any, cannot be told.",
        coreNFCError: nil,
        fix: "Capture again, or use the complete file: the cut is in the capture, not on the "
          + "tag.")
    }
  }
}
