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

  /// The scenario's enumerations by the type name Foundation's message gives.
  private static let enumerations: [String: [String]] = [
    "TagKind": TagKind.allCases.map(\.rawValue),
    "ReaderKind": ReaderKind.allCases.map(\.rawValue),
  ]

  /// Foundation's "Cannot initialize TagKind from invalid String value ntag999" in the
  /// scenario's words: the value and the ones allowed (docs/scenario.md).
  private static func choices(_ debug: String) -> String? {
    guard debug.hasPrefix("Cannot initialize "),
      let from = debug.range(of: " from invalid String value ")
    else { return nil }
    let type = String(debug[debug.index(debug.startIndex, offsetBy: 18)..<from.lowerBound])
    guard let allowed = enumerations[type] else { return nil }
    let value = debug[from.upperBound...]
    return "unknown value \"\(value)\"; expected one of \(allowed.joined(separator: ", "))"
  }

  static func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
    switch error {
    case .dataCorrupted(let c):
      return "\(path(c.codingPath)): \(choices(c.debugDescription) ?? c.debugDescription)"
    case .keyNotFound(let key, let c):
      return "\(path(c.codingPath + [key])): required key is missing"
    case .typeMismatch(let type, let c):
      return "\(path(c.codingPath)): expected \(type) (\(c.debugDescription))"
    case .valueNotFound(let type, let c): return "\(path(c.codingPath)): expected \(type), got null"
    @unknown default: return "\(error)"
    }
  }
}
