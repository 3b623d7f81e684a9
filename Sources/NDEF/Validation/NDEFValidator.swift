/// Everything known about one NDEF message: records, typed payloads, findings.
public struct NDEFReport: Sendable {
  /// Mode the report was made in.
  public let mode: NDEFValidationMode
  /// The parsed message (records before any damage).
  public let message: NDEFMessage
  /// Records with decoded payloads, same order as `message.records`.
  public let records: [NDEFDecodedRecord]
  /// Structural, payload and semantic findings, ordered by byte offset.
  public let findings: [NDEFFinding]
  /// Strict: the first structural (or nesting) error. Relax/ignore: framing damage that
  /// stopped decoding.
  public let failure: NDEFError?
  /// Bytes of the input used by the message.
  public let consumed: Int
  /// Offsets of the bytes given to the validator (the message as read, damage included),
  /// from its `base`.
  public let input: Range<Int>

  /// True when the run should be reported as failed: any error finding (strict, relax);
  /// never in `ignore` mode.
  public var failed: Bool {
    mode != .ignore && (failure != nil || findings.contains { $0.severity == .error })
  }
}

/// Validates NDEF bytes: structure (NFC Forum NDEF 1.0), typed payloads (RTDs, MIME) and the
/// mistakes apps commonly make (facts §7; Core NFC tutorials).
public enum NDEFValidator {
  /// Default nesting limit for Smart Poster / Handover payloads.
  public static let defaultMaxDepth = 4

  /// Parses and checks `bytes` (offsets reported from `base`). Never throws and never traps.
  public static func validate(
    _ bytes: [UInt8], mode: NDEFValidationMode = .relax, maxDepth: Int = defaultMaxDepth,
    base: Int = 0
  ) -> NDEFReport {
    let parsed = NDEFMessageParser.parse(bytes, mode: mode, base: base)
    var ctx = NDEFDecodeContext(mode: mode, maxDepth: maxDepth)
    let records = parsed.message.records.map { r in
      NDEFDecodedRecord(record: r, payload: NDEFPayloadDecoder.decode(r, context: &ctx))
    }
    NDEFHandover.checkReferences(records, ctx: &ctx)
    var failure = parsed.failure
    if mode == .strict && failure == nil,
      let deep = ctx.findings.first(where: { $0.code == "nesting-too-deep" })
    {
      failure = NDEFError(
        kind: .nestingTooDeep, code: deep.code, offset: deep.offset,
        expected: "at most \(maxDepth) nested message levels", message: deep.message)
    }
    let all = (parsed.findings + ctx.findings).enumerated().sorted {
      ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset)
    }.map(\.element)
    return NDEFReport(
      mode: mode, message: parsed.message, records: records, findings: all, failure: failure,
      consumed: parsed.consumed, input: base..<(base + bytes.count))
  }
}
