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
  /// - Throws: `OutputError` with the system's reason when it cannot be opened for writing
  ///   (`Is a directory`, `No such file or directory`, `Permission denied`).
  public init(creating path: String, keepsOnFailure: Bool = false) throws {
    self.path = path
    self.keepsOnFailure = keepsOnFailure
    if path == "-" {
      handle = FileHandle.standardOutput
      owned = false
      return
    }
    // open(2) follows a symlink and writes into a device or a FIFO; FileManager.createFile
    // would replace any of them with a new regular file.
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
    let h = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
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
