import CInputFault
import Foundation

/// What a memory-mapped input does when another program truncates it while it is read: the
/// next access of a page past its new end raises SIGBUS (POSIX `mmap`), which would end the
/// run with "Bus error" and no word of the file. `install()` turns that into an input error:
/// the message names the file (`reading(_:)` records it before its bytes are used) and the
/// exit status is 3, as for any unreadable input.
///
/// The handler itself is C (`CInputFault`): it writes the message prepared here with raw
/// system calls and touches no Swift global.
public enum MappedFileFault {
  /// Set once by `install()`, before any other thread runs: without the handler (the library
  /// used on its own, the tests' parallel imports) nothing is recorded.
  nonisolated(unsafe) private static var installed = false

  /// Names `path` as the mapped file being read, when the handler is installed. Inputs are
  /// opened one at a time on the command's thread (`diff` reads A, then B).
  static func reading(_ path: String) {
    guard installed else { return }
    let text = Array(
      ("nfctrace: error: \(path): the file shrank while it was read (another program "
        + "truncated or rewrote it); read a copy that nothing writes to\n").utf8)
    text.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        nfctrace_input_fault_set_message(chars.baseAddress, chars.count)
      }
    }
  }

  /// Installs the SIGBUS handler: it writes the message to stderr and exits with status 3.
  public static func install() {
    installed = true
    reading("(input)")
    _ = nfctrace_input_fault_install(3)
  }
}
