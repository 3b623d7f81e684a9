import Foundation

/// What a memory-mapped input does when another program truncates it while it is read: the
/// next access of a page past its new end raises SIGBUS (POSIX `mmap`), which would end the
/// run with "Bus error" and no word of the file. `install()` turns that into an input error:
/// the message names the file (`reading(_:)` records it before its bytes are used) and the
/// exit status is 3, as for any unreadable input.
public enum MappedFileFault {
  /// Most bytes of the message kept (a longer path is cut).
  private static let capacity = 4096
  /// The message, prepared outside the handler: a signal handler may only write it.
  nonisolated(unsafe) private static let message = UnsafeMutablePointer<UInt8>.allocate(
    capacity: capacity)
  nonisolated(unsafe) private static var length = 0
  /// Set once by `install()`, before any other thread runs: without the handler (the library
  /// used on its own, the tests' parallel imports) nothing is recorded.
  nonisolated(unsafe) private static var installed = false

  /// Names `path` as the mapped file being read, when the handler is installed. Inputs are
  /// opened one at a time on the command's thread (`diff` reads A, then B).
  static func reading(_ path: String) {
    guard installed else { return }
    let text = Array(
      ("nfctrace: error: \(path): the file shrank while it was read (another program "
        + "truncated or rewrote it); read a copy that nothing writes to\n").utf8.prefix(capacity))
    text.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      message.update(from: base, count: buffer.count)
    }
    length = text.count
  }

  /// Installs the SIGBUS handler: it writes the message (async-signal-safe `write`) and exits
  /// with status 3 (`_exit`).
  public static func install() {
    installed = true
    reading("(input)")
    signal(SIGBUS) { _ in
      _ = write(2, MappedFileFault.message, MappedFileFault.length)
      _exit(3)
    }
  }
}
