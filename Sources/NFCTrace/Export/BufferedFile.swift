import Foundation

/// An output file (or standard output for `-`) written in 64 KiB pieces: the writers of
/// `convert` and `simulate` stream through it, so memory stays bounded.
public final class BufferedFile {
  private let handle: FileHandle
  private let owned: Bool
  private var buffer = Data()

  /// Creates (or truncates) `path`.
  /// - Throws: `TraceError.unreadable` when it cannot be created.
  public init(creating path: String) throws {
    if path == "-" {
      handle = FileHandle.standardOutput
      owned = false
      return
    }
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let h = FileHandle(forWritingAtPath: path)
    else {
      var directory: ObjCBool = false
      let isDirectory =
        FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
      throw TraceError(
        .unreadable, at: SourceLocation(file: path, unit: "byte", record: 0, offset: 0),
        isDirectory
          ? "cannot write: it is a directory" : "cannot write: the file cannot be created")
    }
    handle = h
    owned = true
  }

  /// Appends `data`, writing every 64 KiB.
  public func write(_ data: Data) {
    buffer.append(data)
    if buffer.count >= 1 << 16 { flush() }
  }

  private func flush() {
    handle.write(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes what is buffered and closes the file.
  public func close() {
    flush()
    if owned { handle.closeFile() }
  }
}
