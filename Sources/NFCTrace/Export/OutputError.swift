import Foundation

/// The output could not be written: a full disk, a device that refuses writes (`/dev/full`),
/// a file system gone read-only. `path` is the output file, or `-` for standard output;
/// `reason` the system's message for the error (`strerror`).
public struct OutputError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The output file, `-` for standard output.
  public var path: String
  /// The system's message, e.g. "No space left on device".
  public var reason: String

  /// An error for `path` from the C `errno` value `code`.
  public init(path: String, errno code: Int32) {
    self.path = path
    reason = String(cString: strerror(code))
  }

  /// An error for `path` with `reason`.
  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  /// `cannot write OUT.pcap: No space left on device` (`standard output` for `-`).
  public var description: String {
    "cannot write \(path == "-" ? "standard output" : path): \(reason)"
  }
}
