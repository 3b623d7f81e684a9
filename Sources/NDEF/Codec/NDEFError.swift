/// Why decoding NDEF bytes (a message, a nested message, a TLV area or CLI input) stopped.
///
/// Every error names the byte `offset` (from the start of the outermost input; for CLI hex
/// text it is the character position) and what the decoder `expected` there.
public struct NDEFError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Broad classes of failure.
  public enum Kind: String, Sendable {
    /// The input ended inside a field (a length claimed more bytes than remain).
    case truncated
    /// A record header or message flag breaks NFC Forum NDEF 1.0 §2.3 / §3.2.
    case structure
    /// Nested messages (Smart Poster, Handover) go deeper than the configured limit.
    case nestingTooDeep
    /// The input text (hex, file, stdin) could not be read as bytes.
    case invalidInput
  }

  /// Class of failure.
  public let kind: Kind
  /// Stable kebab-case code, the same as the matching `NDEFFinding.code`.
  public let code: String
  /// Byte offset of the damage from the start of the input (character position for hex text).
  public let offset: Int
  /// What should have been at `offset`.
  public let expected: String
  /// Human-readable explanation.
  public let message: String

  /// Creates an error; see the properties for the meaning of each argument.
  public init(kind: Kind, code: String, offset: Int, expected: String, message: String) {
    self.kind = kind
    self.code = code
    self.offset = offset
    self.expected = expected
    self.message = message
  }

  /// `"byte 12: <message> (expected <expected>)"`.
  public var description: String { "byte \(offset): \(message) (expected \(expected))" }
}
