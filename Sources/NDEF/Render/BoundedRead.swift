import Foundation

/// Reads a stream (standard input, a pipe, a device) to its end with a size limit: such input
/// cannot be mapped like a regular file and is held in memory, and an endless one
/// (`/dev/zero`, `yes |`) must end the run instead of exhausting memory.
public enum BoundedRead {
  /// The stream went on past `limit` bytes.
  public struct TooLarge: Error, CustomStringConvertible, Sendable {
    /// The limit in bytes.
    public let limit: Int
    /// `more than 1 GiB`.
    public var description: String { "more than \(Self.size(limit))" }

    /// `1 GiB`, `64 MiB`, `512 bytes`.
    static func size(_ n: Int) -> String {
      if n >= 1 << 30, n % (1 << 30) == 0 { return "\(n >> 30) GiB" }
      if n >= 1 << 20, n % (1 << 20) == 0 { return "\(n >> 20) MiB" }
      return "\(n) bytes"
    }
  }

  /// Reads `handle` to its end in 1 MiB pieces.
  /// - Throws: `TooLarge` once more than `limit` bytes came; the read's own error.
  public static func readToEnd(_ handle: FileHandle, limit: Int) throws -> Data {
    var data = Data()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      data.append(chunk)
      if data.count > limit { throw TooLarge(limit: limit) }
    }
    return data
  }
}
