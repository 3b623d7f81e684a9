import Foundation

/// The bytes of one input (a file, or standard input when the path is `-`).
///
/// Files are memory-mapped so that importers can walk them without copying; standard input
/// is read whole.
public struct TraceInput: Sendable {
  /// The path as the user gave it (`-` for standard input).
  public let path: String
  /// The input's bytes.
  public let bytes: Data

  /// Opens `path` (`-` reads standard input).
  /// - Throws: `TraceError.unreadable` for a missing file, a directory or a read error.
  public init(path: String) throws {
    self.path = path
    let here = SourceLocation(file: path, unit: "byte", record: 0, offset: 0)
    if path == "-" {
      bytes = FileHandle.standardInput.readDataToEndOfFile()
      return
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw TraceError(.unreadable, at: here, "no such file")
    }
    if isDirectory.boolValue {
      throw TraceError(.unreadable, at: here, "is a directory, expected a trace file")
    }
    do {
      bytes = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    } catch {
      // A pipe (`<(…)`, a FIFO, /dev/stdin) cannot be mapped: it is read as a stream.
      guard let handle = FileHandle(forReadingAtPath: path) else {
        throw TraceError(.unreadable, at: here, "cannot read: \(error.localizedDescription)")
      }
      bytes = handle.readDataToEndOfFile()
    }
  }

  /// Wraps bytes already in memory; `path` is used in messages.
  public init(path: String, bytes: Data) {
    self.path = path
    self.bytes = bytes
  }

  /// The first `count` bytes, for format detection.
  public func head(_ count: Int = 4096) -> [UInt8] { [UInt8](bytes.prefix(count)) }

  /// A location in this input.
  public func location(unit: String, record: Int, offset: Int) -> SourceLocation {
    SourceLocation(file: path, unit: unit, record: record, offset: offset)
  }
}
