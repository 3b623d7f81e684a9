import Foundation

/// A byte buffer that flushes to a file descriptor in large writes.
///
/// Renderers append UTF-8 into it; nothing is built as `String` per byte.
public final class OutputBuffer {
  // Only ever touched from the one thread that renders; skipping the dynamic exclusivity
  // check on every append is worth ~10% of the timeline.
  @exclusivity(unchecked) private var bytes: [UInt8] = []
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

  /// Bytes buffered now; positions taken from it stay valid until `endLine()` flushes.
  public var count: Int { bytes.count }

  /// Appends `n` spaces (nothing when `n` ≤ 0).
  public func appendSpaces(_ n: Int) {
    if n > 0 { bytes.append(contentsOf: repeatElement(0x20, count: n)) }
  }

  /// Appends a newline, flushing when the buffer is full. Line renderers use this rather than
  /// relying on `append` to flush, so column positions inside a line never move.
  public func endLine() {
    bytes.append(0x0A)
    if fd != nil && bytes.count >= flushAt { flush() }
  }

  /// Appends the decimal digits of `v`.
  public func appendInt(_ v: Int64) {
    if v < 0 { bytes.append(0x2D) }
    var m = v.magnitude
    var digits:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
      ) = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
      )
    var n = 0
    withUnsafeMutableBytes(of: &digits) { buf in
      repeat {
        buf[n] = 0x30 + UInt8(m % 10)
        m /= 10
        n += 1
      } while m > 0
      while n > 0 {
        n -= 1
        bytes.append(buf[n])
      }
    }
  }

  /// Moves the bytes from `mark` to the end right by `width - (count - mark)` spaces, so the
  /// text written since `mark` ends at column `mark + width` (right alignment).
  public func alignRight(from mark: Int, width: Int) {
    let pad = width - (bytes.count - mark)
    guard pad > 0 else { return }
    bytes.insert(contentsOf: repeatElement(0x20, count: pad), at: mark)
  }

  /// Pads with spaces so the text since `mark` is `width` bytes wide (left alignment); at
  /// least one space is added when the text is already that wide.
  public func padLeftAligned(from mark: Int, width: Int) {
    let used = bytes.count - mark
    appendSpaces(used < width ? width - used : 1)
  }

  /// Appends one byte.
  public func append(_ byte: UInt8) {
    bytes.append(byte)
  }

  /// Appends bytes as lower-case hex, with `separator` between them if given.
  public func appendHex<C: Collection>(_ data: C, separator: UInt8? = nil)
  where C.Element == UInt8 {
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

  /// Removes and returns the buffered bytes (in-memory buffers).
  public func takeBytes() -> [UInt8] {
    defer { bytes.removeAll(keepingCapacity: true) }
    return bytes
  }

  /// Everything written, as text (in-memory buffers only).
  public var text: String { String(decoding: bytes, as: UTF8.self) }
}
