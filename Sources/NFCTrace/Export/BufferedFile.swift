import Foundation

/// An output file (or standard output for `-`) written in 64 KiB pieces: the writers of
/// `convert` and `simulate` stream through it, so memory stays bounded.
public final class BufferedFile {
  private let handle: FileHandle
  private let owned: Bool
  private let path: String
  private var buffer = Data()
  /// The first write that failed; later writes are dropped (or kept in `overflow`) and
  /// `close()` throws it.
  private var failure: OutputError?
  private let keepsOnFailure: Bool
  /// What could not be written once a write failed, when created with `keepsOnFailure`: the
  /// file holds everything before it, whole.
  public private(set) var overflow = Data()

  /// Creates (or truncates) `path`. `keepsOnFailure`: a spool — when a write fails (a full
  /// temporary disk) the part of it written is cut off again and the rest is kept in memory
  /// (`overflow`) instead of lost; `close()` then does not throw.
  /// - Throws: `TraceError.unreadable` when it cannot be created.
  public init(creating path: String, keepsOnFailure: Bool = false) throws {
    self.path = path
    self.keepsOnFailure = keepsOnFailure
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
        .unreadable, at: .wholeFile(path),
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
    guard !buffer.isEmpty else { return }
    if failure == nil {
      let end = keepsOnFailure ? try? handle.offset() : nil
      do {
        try handle.write(contentsOf: buffer)
      } catch {
        failure = Self.failure(path, error)
        if keepsOnFailure, let end { try? handle.truncate(atOffset: end) }
      }
    }
    if failure != nil && keepsOnFailure { overflow.append(buffer) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes what is buffered and closes the file.
  /// - Throws: `OutputError` when a write failed (a full disk): the file is incomplete (not
  ///   for a file created with `keepsOnFailure`, whose rest is in `overflow`).
  public func close() throws(OutputError) {
    flush()
    if owned { try? handle.close() }
    if let failure, !keepsOnFailure { throw failure }
  }

  /// The `OutputError` of a failed `FileHandle` write (its POSIX code when it has one).
  private static func failure(_ path: String, _ error: any Error) -> OutputError {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return OutputError(path: path, errno: Int32(ns.code)) }
    if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError,
      posix.domain == NSPOSIXErrorDomain
    {
      return OutputError(path: path, errno: Int32(posix.code))
    }
    return OutputError(path: path, reason: ns.localizedDescription)
  }
}
