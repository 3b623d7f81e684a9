import Foundation

/// Writes to standard error without trapping: `FileHandle.write` traps when the descriptor is
/// closed (`2>&-`) or full (`2>/dev/full`), and a message or a warning must never crash the
/// tool. A failed write is dropped — there is nowhere left to report it.
enum StandardError {
  /// Writes `data` to descriptor 2, retrying short writes and EINTR, giving up on any error.
  static func write(_ data: Data) {
    data.withUnsafeBytes { raw in
      guard var p = raw.baseAddress else { return }
      var left = raw.count
      while left > 0 {
        let n = Glibc.write(2, p, left)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        p += n
        left -= n
      }
    }
  }
}
