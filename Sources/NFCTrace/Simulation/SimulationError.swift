/// Why a scenario cannot be loaded or run.
public enum SimulationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The JSON does not match the scenario schema: the message names the key path and what was
  /// expected.
  case invalidScenario(String)
  /// A value is out of range for the chosen tag (UID length, NDEF message larger than the
  /// memory, page beyond the tag, …).
  case invalidValue(key: String, message: String)

  /// `scenario: <message>` or `scenario key <key>: <message>`.
  public var description: String {
    switch self {
    case .invalidScenario(let m): "scenario: \(m)"
    case .invalidValue(let key, let m): "scenario key \(key): \(m)"
    }
  }

  static func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
    switch error {
    case .dataCorrupted(let c): return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c):
      return "\(path(c.codingPath + [key])): required key is missing"
    case .typeMismatch(let type, let c):
      return "\(path(c.codingPath)): expected \(type) (\(c.debugDescription))"
    case .valueNotFound(let type, let c): return "\(path(c.codingPath)): expected \(type), got null"
    @unknown default: return "\(error)"
    }
  }
}
