import Foundation
import NFCTrace

/// Progress on standard error for long inputs: percentage of the input's bytes read and
/// frames per second, redrawn in place at most every 0.25 s. Silent unless standard error is a
/// terminal and the input is larger than 8 MiB.
struct Progress {
  private let total: Int
  private let enabled: Bool
  private let started = DispatchTime.now().uptimeNanoseconds
  private var lastDraw: UInt64 = 0
  private var frames = 0

  /// Progress over an input of `totalBytes` bytes.
  init(totalBytes: Int) {
    total = totalBytes
    enabled = isatty(2) == 1 && totalBytes > 8 << 20
  }

  /// Counts one frame; redraws now and then.
  mutating func frame(_ f: DecodedFrame) {
    guard enabled else { return }
    frames += 1
    guard frames & 0x3FFF == 0 else { return }
    let now = DispatchTime.now().uptimeNanoseconds
    guard now - lastDraw > 250_000_000 else { return }
    lastDraw = now
    let percent = min(100, f.frame.location.offset * 100 / max(total, 1))
    let seconds = Double(now - started) / 1e9
    let rate = seconds > 0 ? Int(Double(frames) / seconds) : 0
    StandardError.write(Data("\r\(percent)%  \(frames) frames  \(rate) frames/s ".utf8))
  }

  /// Clears the progress line.
  func finish() {
    guard enabled, lastDraw > 0 else { return }
    StandardError.write(Data("\r\u{1B}[K".utf8))
  }
}
