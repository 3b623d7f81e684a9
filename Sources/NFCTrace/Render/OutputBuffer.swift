import Foundation

/// A byte buffer that flushes to a file descriptor in large writes.
///
/// Renderers append UTF-8 into it; nothing is built as `String` per byte.
public final class OutputBuffer {
  private var bytes: [UInt8] = []
  private let fd: Int32?
  private let flushAt: Int

  /// A buffer writing to `fd` (1 = stdout) every `flushAt` bytes; nil `fd` keeps everything
  /// in memory (for tests).
  public init(fd: Int32? = 1, flushAt: Int = 1 << 16) {
    self.fd = fd
    self.flushAt = flushAt
    bytes.reserveCapacity(flushAt + 4096)
  }

  /// Appends the UTF-8 of `s`.
  @inlinable public func write(_ s: String) {
    var s = s
    s.withUTF8 { append($0) }
  }

  /// Appends raw bytes.
  public func append(_ buffer: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: buffer)
    if fd != nil && bytes.count >= flushAt { flush() }
  }

  /// Appends one byte.
  public func append(_ byte: UInt8) {
    bytes.append(byte)
  }

  /// Appends bytes as lower-case hex, with `separator` between them if given.
  public func appendHex<C: Collection>(_ data: C, separator: UInt8? = nil) where C.Element == UInt8 {
    var first = true
    for b in data {
      if let sep = separator, !first { bytes.append(sep) }
      first = false
      bytes.append(Hex.digits[Int(b >> 4)])
      bytes.append(Hex.digits[Int(b & 0x0F)])
    }
  }

  /// Writes out what is buffered.
  public func flush() {
    guard let fd, !bytes.isEmpty else { return }
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Foundation.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
        if n <= 0 { break }
        offset += n
      }
    }
    bytes.removeAll(keepingCapacity: true)
  }

  /// Everything written, as text (in-memory buffers only).
  public var text: String { String(decoding: bytes, as: UTF8.self) }
}
