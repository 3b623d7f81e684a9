import Foundation

/// A byte buffer that flushes to a file descriptor in large writes.
///
/// Renderers append UTF-8 into it; nothing is built as `String` per byte. The bytes live in
/// memory the buffer owns (not an `Array`): every frame of a timeline appends a hundred-odd
/// bytes one or a few at a time, and an array's uniqueness and bounds bookkeeping on each
/// append was a tenth of the renderer's time.
public final class OutputBuffer {
  // Unchecked exclusivity: every append reads and writes these, and the dynamic check of each
  // access cost more than the append. No method holds an access to them across a call that
  // could reach them again.
  @exclusivity(unchecked) private var base: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private var capacity: Int
  /// Bytes buffered now (not yet written out).
  @exclusivity(unchecked) private var used = 0
  /// Bytes written out so far.
  @exclusivity(unchecked) private var flushed = 0
  private let fd: Int32?
  private let flushAt: Int

  /// A buffer writing to `fd` (1 = stdout) every `flushAt` bytes; nil `fd` keeps everything
  /// in memory (for tests and spooling).
  public init(fd: Int32? = 1, flushAt: Int = 1 << 16) {
    self.fd = fd
    self.flushAt = flushAt
    capacity = flushAt + 4096
    base = .allocate(capacity: capacity)
  }

  deinit { base.deallocate() }

  /// Bytes appended so far, written out or not: a position for the alignment calls that stays
  /// right when a long line made the buffer flush in its middle.
  public var count: Int { flushed + used }

  /// Makes room for `n` more bytes.
  @inline(__always) private func reserve(_ n: Int) {
    if used + n > capacity { grow(used + n) }
  }

  private func grow(_ needed: Int) {
    let newCapacity = max(needed, capacity * 2)
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    bigger.update(from: base, count: used)
    base.deallocate()
    base = bigger
    capacity = newCapacity
  }

  /// Appends the UTF-8 of `s`.
  public func write(_ s: String) {
    // In place when the string's UTF-8 is contiguous (native and small strings): no copy.
    if s.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
    var s = s
    s.withUTF8 { append($0) }
  }

  /// Appends raw bytes, flushing when the buffer is full.
  public func append(_ buffer: UnsafeBufferPointer<UInt8>) {
    guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
    reserve(buffer.count)
    (base + used).update(from: source, count: buffer.count)
    used += buffer.count
    if fd != nil && used >= flushAt { flush() }
  }

  /// Appends `n` spaces (nothing when `n` ≤ 0).
  public func appendSpaces(_ n: Int) {
    guard n > 0 else { return }
    reserve(n)
    Self.fillSpaces(base + used, n)
    used += n
  }

  /// Spaces at `p`: the pads of a timeline line are a few bytes, where a call of `memset` cost
  /// more than these stores (a loop of byte stores is turned into `memset` by the compiler).
  @inline(__always) private static func fillSpaces(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) {
    if n > 31 { return p.update(repeating: 0x20, count: n) }
    let raw = UnsafeMutableRawPointer(p)
    let spaces: UInt64 = 0x2020_2020_2020_2020
    var i = 0
    if n & 16 != 0 {
      raw.storeBytes(of: spaces, toByteOffset: 0, as: UInt64.self)
      raw.storeBytes(of: spaces, toByteOffset: 8, as: UInt64.self)
      i = 16
    }
    if n & 8 != 0 {
      raw.storeBytes(of: spaces, toByteOffset: i, as: UInt64.self)
      i += 8
    }
    if n & 4 != 0 {
      raw.storeBytes(of: UInt32(truncatingIfNeeded: spaces), toByteOffset: i, as: UInt32.self)
      i += 4
    }
    if n & 2 != 0 {
      raw.storeBytes(of: UInt16(truncatingIfNeeded: spaces), toByteOffset: i, as: UInt16.self)
      i += 2
    }
    if n & 1 != 0 { p[i] = 0x20 }
  }

  /// Appends a newline, flushing when the buffer is full.
  public func endLine() {
    append(0x0A)
    if fd != nil && used >= flushAt { flush() }
  }

  /// Appends the decimal digits of `v`.
  public func appendInt(_ v: Int64) {
    reserve(20)
    if v < 0 {
      base[used] = 0x2D
      used += 1
    }
    let m = v.magnitude
    writeDigits(m, count: Self.digitCount(m))
  }

  /// Appends `v` (below 10^`count`) as exactly `count` decimal digits, with leading zeros
  /// (`appendDigits(7, count: 3)` → `007`).
  public func appendDigits(_ v: UInt64, count: Int) {
    reserve(count)
    writeDigits(v, count: count)
  }

  /// Writes the last `count` decimal digits of `m` at the end; room is reserved.
  @inline(__always) private func writeDigits(_ m: UInt64, count: Int) {
    var m = m
    let p = base
    var i = used + count
    while i > used {
      i -= 1
      let (q, r) = m.quotientAndRemainder(dividingBy: 10)
      p[i] = 0x30 &+ UInt8(truncatingIfNeeded: r)
      m = q
    }
    used += count
  }

  /// The decimal digits of `m`: by compares up to 8 digits (the numbers printed, frame indices
  /// and milliseconds, are short; a loop of divisions cost more), a loop beyond.
  @inline(__always) private static func digitCount(_ m: UInt64) -> Int {
    if m < 10_000 { return m < 100 ? (m < 10 ? 1 : 2) : (m < 1000 ? 3 : 4) }
    if m < 100_000_000 {
      return m < 1_000_000 ? (m < 100_000 ? 5 : 6) : (m < 10_000_000 ? 7 : 8)
    }
    var digits = 9
    var rest = m / 100_000_000
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    return digits
  }

  /// Moves the text written since position `mark` right so it ends at `mark + width` (right
  /// alignment). A mark already written out cannot move: the text then stays left-aligned
  /// and is padded after.
  public func alignRight(from mark: Int, width: Int) {
    let start = mark - flushed
    let text = count - mark
    let pad = width - text
    guard pad > 0 else { return }
    guard start >= 0 else { return appendSpaces(pad) }
    // 16 more: room for the word moves below (before `base` is read: reserving may move it).
    reserve(pad + 16)
    let from = base + start
    if text > 16 {
      (from + pad).update(from: from, count: text)
    } else {
      // A few bytes (a time): moved as two words, both read before either is written (the
      // regions overlap). The words may take up to 16 bytes past the text, all inside the
      // reserved room and past the end: nothing written there counts.
      let raw = UnsafeMutableRawPointer(from)
      let low = raw.loadUnaligned(as: UInt64.self)
      let high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
      raw.storeBytes(of: low, toByteOffset: pad, as: UInt64.self)
      raw.storeBytes(of: high, toByteOffset: pad + 8, as: UInt64.self)
    }
    Self.fillSpaces(from, pad)
    used += pad
  }

  /// Pads with spaces so the text since position `mark` is `width` bytes wide (left
  /// alignment); at least one space is added when the text is already that wide.
  public func padLeftAligned(from mark: Int, width: Int) {
    let text = count - mark
    appendSpaces(text < width ? width - text : 1)
  }

  /// Appends one byte.
  @inline(__always) public func append(_ byte: UInt8) {
    reserve(1)
    base[used] = byte
    used += 1
  }

  /// Appends bytes as lower-case hex, with `separator` between them if given.
  public func appendHex<C: Collection>(_ data: C, separator: UInt8? = nil)
  where C.Element == UInt8 {
    if data.withContiguousStorageIfAvailable({ appendHex(buffer: $0, separator: separator) })
      != nil
    {
      return
    }
    appendHex(buffer: Array(data), separator: separator)
  }

  /// The hex of `buffer` through a local pointer, digits computed (no table read, bounds check
  /// or optional test per byte): a timeline writes every frame's bytes this way.
  private func appendHex(buffer: UnsafeBufferPointer<UInt8>, separator: UInt8?) {
    let n = buffer.count
    guard n > 0 else { return }
    reserve(n * 3)
    var q = base + used
    q[0] = Self.hexDigit(buffer[0] >> 4)
    q[1] = Self.hexDigit(buffer[0] & 0x0F)
    q += 2
    if let sep = separator {
      for i in 1..<n {
        q[0] = sep
        q[1] = Self.hexDigit(buffer[i] >> 4)
        q[2] = Self.hexDigit(buffer[i] & 0x0F)
        q += 3
      }
    } else {
      for i in 1..<n {
        q[0] = Self.hexDigit(buffer[i] >> 4)
        q[1] = Self.hexDigit(buffer[i] & 0x0F)
        q += 2
      }
    }
    used = q - base
  }

  private func appendHex(buffer bytes: [UInt8], separator: UInt8?) {
    bytes.withUnsafeBufferPointer { appendHex(buffer: $0, separator: separator) }
  }

  /// The lower-case hex digit of nibble `n` (0–15).
  @inline(__always) private static func hexDigit(_ n: UInt8) -> UInt8 {
    n < 10 ? 0x30 &+ n : 0x57 &+ n
  }

  /// Whether any buffer has written to standard output (fd 1) in this process: the CLI prints
  /// its own error document only when a command printed nothing. Set on the caller's thread
  /// only (renderers run there).
  nonisolated(unsafe) public static var wroteStandardOutput = false

  /// The first error writing to a file descriptor in this process (`errno`), nil while every
  /// write succeeded: the CLI reports it and exits non-zero instead of losing the output
  /// silently. Set on the caller's thread only, as `wroteStandardOutput`.
  nonisolated(unsafe) public static var writeFailure: Int32?

  /// Writes out what is buffered. After a failed write (`writeFailure`) the rest is dropped:
  /// the output is already incomplete.
  public func flush() {
    guard let fd, used > 0 else { return }
    if fd == 1 { Self.wroteStandardOutput = true }
    var offset = 0
    while offset < used, Self.writeFailure == nil {
      let n = Foundation.write(fd, base + offset, used - offset)
      if n > 0 {
        offset += n
      } else if n < 0 && errno == EINTR {
        continue
      } else {
        Self.writeFailure = n < 0 ? errno : EIO
      }
    }
    flushed += used
    used = 0
  }

  /// Removes and returns the buffered bytes (in-memory buffers; `count` starts again at 0).
  public func takeBytes() -> [UInt8] {
    defer { used = 0 }
    return Array(UnsafeBufferPointer(start: base, count: used))
  }

  /// Everything buffered, as text (in-memory buffers).
  public var text: String {
    String(decoding: UnsafeBufferPointer(start: base, count: used), as: UTF8.self)
  }
}
