/// An input that cannot be read as the format it claims to be.
///
/// Every error names the file, the packet/record/line and the byte offset where it was
/// found, and what was expected there. The CLI exits with status 3 on these.
public struct TraceError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: String, Sendable {
    /// The input could not be opened or read (missing file, directory, permission).
    case unreadable
    /// The input ended in the middle of a record.
    case truncated
    /// A value in the input is not what the format allows.
    case malformed
    /// The input is of a kind we recognise but do not support (e.g. pcap link type 245).
    case unsupported
    /// No importer recognised the input.
    case unknownFormat = "unknown-format"
  }
  /// The kind of failure.
  public var kind: Kind
  /// Where in the input (file, record/line, byte offset).
  public var location: SourceLocation
  /// What was expected and what was found.
  public var message: String

  /// Creates an error at `location`.
  public init(_ kind: Kind, at location: SourceLocation, _ message: String) {
    self.kind = kind
    self.location = location
    self.message = message
  }

  /// `file: record N, byte offset M: message`.
  public var description: String { "\(location): \(message)" }
}

extension TraceError {
  /// The error for an input that gave no frame because every record in it was rejected:
  /// `.malformed` at the first rejected record (the first warning with a location), nil when
  /// no warning names a record (an input that is merely empty is not invalid).
  public static func allRejected(_ warnings: [TraceWarning]) -> TraceError? {
    let rejected = warnings.filter { $0.location != nil && $0.rejectsRecord }
    guard let first = rejected.first, let location = first.location else { return nil }
    let count =
      rejected.count >= TraceWarning.limit ? "\(rejected.count) or more" : "\(rejected.count)"
    return TraceError(
      .malformed, at: location,
      "no frame could be read: every record was rejected (\(count) warning(s)); the first: "
        + first.message)
  }
}

/// A problem an importer or decoder noticed but could continue past.
public struct TraceWarning: Sendable, CustomStringConvertible {
  /// What happened, with what was expected.
  public var message: String
  /// The frame it concerns, if any.
  public var frame: Int?
  /// Where in the input, if known.
  public var location: SourceLocation?
  /// False for a warning about what the record says rather than about reading it (a reader
  /// chip that polled and found no target): an input whose every warning is such a note is
  /// not "every record rejected" (`TraceError.allRejected`).
  public var rejectsRecord = true

  /// Creates a warning.
  public init(
    _ message: String, frame: Int? = nil, location: SourceLocation? = nil,
    rejectsRecord: Bool = true
  ) {
    self.message = message
    self.frame = frame
    self.location = location
    self.rejectsRecord = rejectsRecord
  }

  /// `file: record N, byte offset M: message` or just the message.
  public var description: String {
    if let location { return "\(location): \(message)" }
    return message
  }

  /// Warnings an importer records before it stops recording them: a damaged trace of millions
  /// of frames can give one per frame.
  public static let limit = 1000
}

extension Array where Element == TraceWarning {
  /// Appends `warning` while fewer than `TraceWarning.limit` are recorded, then once a note
  /// that no more are, then nothing.
  public mutating func appendCapped(_ warning: @autoclosure () -> TraceWarning) {
    guard count <= TraceWarning.limit else { return }
    append(
      count == TraceWarning.limit
        ? TraceWarning("more than \(TraceWarning.limit) warnings; no more recorded") : warning())
  }
}
