/// How serious a finding is.
public enum NDEFSeverity: String, Sendable, Comparable, CaseIterable {
  /// Informational note (e.g. a second NDEF TLV that readers ignore).
  case info
  /// Allowed or tolerated by common readers, but likely a mistake.
  case warning
  /// Breaks a MUST of the cited specification.
  case error

  private var rank: Int {
    switch self {
    case .info: return 0
    case .warning: return 1
    case .error: return 2
    }
  }

  public static func < (a: NDEFSeverity, b: NDEFSeverity) -> Bool { a.rank < b.rank }
}

/// Validation modes, after ndeflib's `errors=` argument of `message_decoder`
/// (nfcpy/ndeflib `src/ndef/message.py`):
/// - `strict`: the first structural error stops decoding (`NDEFMessage(parsing:)` throws);
///   an undefined URI identifier code is an error.
/// - `relax`: minor errors — MB not set on the first record, MB on a later record, ME missing,
///   CF on the last record, undefined URI identifier codes (decoded as "no prefix") — are
///   warnings and decoding goes on; real damage (lengths past the end, TNF 7, type-length
///   rules) is an error, the records before it are kept.
/// - `ignore`: like relax, but nothing makes the run fail; decoding stops quietly at damage.
public enum NDEFValidationMode: String, Sendable, CaseIterable {
  case strict, relax, ignore
}

/// One problem or note about NDEF bytes.
public struct NDEFFinding: Sendable, Equatable, CustomStringConvertible {
  /// Stable kebab-case identifier, e.g. `mb-missing`, `uri-code-reserved`.
  public let code: String
  /// Severity (depends on the mode for the minor structural errors listed in
  /// `NDEFValidationMode`).
  public let severity: NDEFSeverity
  /// Byte offset in the input where the problem is.
  public internal(set) var offset: Int
  /// What is wrong, citing the spec clause.
  public let message: String
  /// What other readers will show for these bytes, when known.
  public let readersShow: String?
  /// How to write it correctly with Core NFC, when there is such a fix.
  public let fix: String?

  /// Creates a finding; see the properties.
  public init(
    code: String, severity: NDEFSeverity, offset: Int, message: String,
    readersShow: String? = nil, fix: String? = nil
  ) {
    self.code = code
    self.severity = severity
    self.offset = offset
    // Messages quote the tag's bytes (TYPE, package names, URIs): never raw control codes.
    self.message = ControlEscape.escaped(message)
    self.readersShow = readersShow.map(ControlEscape.escaped)
    self.fix = fix.map(ControlEscape.escaped)
  }

  /// `"error mb-missing @0: message"`.
  public var description: String { "\(severity.rawValue) \(code) @\(offset): \(message)" }
}
