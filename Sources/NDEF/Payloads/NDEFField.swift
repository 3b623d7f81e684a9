/// A value in the decoded-field tree used by the text and JSON renderers.
public indirect enum NDEFValue: Sendable, Equatable {
  /// Text.
  case text(String)
  /// Integer (lengths, codes, sizes).
  case int(Int)
  /// Flag.
  case bool(Bool)
  /// Raw bytes, rendered as lower-case hex.
  case bytes([UInt8])
  /// An ordered list.
  case list([NDEFValue])
  /// A nested group of named fields.
  case object([NDEFField])
}

/// One named decoded field, e.g. `language = "en"`.
public struct NDEFField: Sendable, Equatable {
  /// Field name (snake_case; JSON key).
  public let name: String
  /// Field value.
  public let value: NDEFValue

  /// A named value.
  public init(_ name: String, _ value: NDEFValue) {
    self.name = name
    self.value = value
  }

  /// The names of `fields`, one object's members, made unique as JSON needs them (RFC 8259
  /// §4): a repeated name (two Wi-Fi credentials, two titles in one language) gets the first
  /// `_2`, `_3`… that no field of the object has (a real name may be `en_2` already). Names
  /// are compared ignoring letter case, as title languages are (BCP 47 tags, RFC 5646 §2.1.1):
  /// `en` and `EN` are one language, the second `EN_2`.
  public static func uniqueNames(_ fields: [NDEFField]) -> [String] {
    let original = Set(fields.map { $0.name.lowercased() })
    var used = Set<String>()
    return fields.map { f in
      var name = f.name
      var n = 2
      while used.contains(name.lowercased())
        || (name != f.name && original.contains(name.lowercased()))
      {
        name = "\(f.name)_\(n)"
        n += 1
      }
      used.insert(name.lowercased())
      return name
    }
  }

  /// Text field.
  public static func text(_ name: String, _ s: String) -> NDEFField { NDEFField(name, .text(s)) }
  /// Integer field.
  public static func int(_ name: String, _ v: Int) -> NDEFField { NDEFField(name, .int(v)) }
  /// Bytes field.
  public static func bytes(_ name: String, _ b: [UInt8]) -> NDEFField { NDEFField(name, .bytes(b)) }
}

/// State shared while decoding payloads: mode, nesting depth and collected findings.
public struct NDEFDecodeContext: Sendable {
  /// Validation mode (severity of the minor errors, URI RFU codes).
  public let mode: NDEFValidationMode
  /// Current nesting depth (0 = top-level message).
  public var depth: Int
  /// Deepest nesting allowed for Smart Poster / Handover payloads before
  /// `nesting-too-deep` is reported.
  public let maxDepth: Int
  /// Findings collected so far.
  public var findings: [NDEFFinding] = []

  /// A context at depth 0.
  public init(mode: NDEFValidationMode, maxDepth: Int = 4) {
    self.mode = mode
    self.depth = 0
    self.maxDepth = maxDepth
  }

  /// Moves the offsets of findings `from` on that fall inside a chunked record's joined
  /// payload (counted from the first chunk's payload) to the input byte in the chunk that
  /// holds it, past the chunk headers between (NFC Forum NDEF 1.0 §2.3.3).
  mutating func mapJoinedOffsets(from start: Int, to chunks: [NDEFRawRecord]) {
    guard let base = chunks.first?.payloadOffset, start < findings.count else { return }
    let total = chunks.reduce(0) { $0 + $1.payload.count }
    for i in start..<findings.count {
      var k = findings[i].offset - base
      guard k >= 0 && k <= total else { continue }
      for (n, chunk) in chunks.enumerated() {
        if k < chunk.payload.count || (k == chunk.payload.count && n == chunks.count - 1) {
          findings[i].offset = chunk.payloadOffset + k
          break
        }
        k -= chunk.payload.count
      }
    }
  }

  mutating func add(
    _ code: String, _ severity: NDEFSeverity, _ offset: Int, _ message: String,
    readers: String? = nil, fix: String? = nil
  ) {
    findings.append(
      NDEFFinding(
        code: code, severity: severity, offset: offset, message: message, readersShow: readers,
        fix: fix))
  }
}
