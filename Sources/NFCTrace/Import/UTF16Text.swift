import Foundation

/// Text saved as UTF-16 with a byte order mark — what Windows PowerShell's `>` and
/// `Out-File` write — turned into UTF-8 so the text importers read it like any listing.
///
/// Input that starts with a BOM (`FF FE` little-endian, `FE FF` big-endian) and whose first
/// characters are text (no NUL, no control character but tab, line ends and the ESC of
/// colour codes) is taken as UTF-16: a binary trace that happens to start with `FF FE` stays
/// binary. Lone surrogates and an odd last byte become U+FFFD, as a repairing reader shows
/// them (`repaired` says so).
///
/// The conversion goes in one pass straight from the UTF-16 bytes into the UTF-8 buffer, which
/// may be fed in pieces (`TraceInput` reads a file so): nothing but the UTF-8 text is held.
public enum UTF16Text {
  /// Converted text: the UTF-8 bytes, the source encoding's name (`UTF-16LE`/`UTF-16BE`) and
  /// whether anything was repaired.
  public typealias Converted = (bytes: Data, encoding: String, repaired: Bool)

  /// The bytes read from the start of an input to decide whether it is UTF-16 text: the BOM
  /// and the 256 code units `isLittleEndian(head:)` looks at.
  public static let headLength = 2 + 512

  /// `bytes` converted, nil when they are not UTF-16 text by that test.
  public static func utf8(from bytes: Data) -> Converted? {
    isLittleEndian(head: bytes.prefix(headLength)).map { utf8(from: bytes, littleEndian: $0) }
  }

  /// `bytes`, UTF-16 text with a BOM in the byte order `littleEndian` says, converted.
  static func utf8(from bytes: Data, littleEndian: Bool) -> Converted {
    var converter = UTF16ToUTF8(littleEndian: littleEndian, expectedBytes: bytes.count)
    bytes.withUnsafeBytes { converter.feed(UnsafeRawBufferPointer(rebasing: $0.dropFirst(2))) }
    return converter.finish()
  }

  /// The UTF-16 file at `path` (`littleEndian` as `isLittleEndian(head:)` found it, `size`
  /// bytes) converted as it is read in 4 MiB pieces, so that its UTF-16 bytes are never all in
  /// memory at once; only the UTF-8 text is.
  /// - Throws: the read's error.
  static func utf8(reading path: String, littleEndian: Bool, size: Int) throws -> Converted {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var converter = UTF16ToUTF8(littleEndian: littleEndian, expectedBytes: size)
    _ = try handle.read(upToCount: 2)  // the BOM
    while let piece = try handle.read(upToCount: 1 << 22), !piece.isEmpty {
      piece.withUnsafeBytes { converter.feed($0) }
    }
    return converter.finish()
  }

  /// True for UTF-16LE text, false for UTF-16BE text, nil when `head` (the first
  /// `headLength` bytes of an input, or all of a shorter one) does not start UTF-16 text.
  public static func isLittleEndian(head: Data) -> Bool? {
    guard head.count >= 4 else { return nil }
    let little: Bool
    switch (head[head.startIndex], head[head.startIndex + 1]) {
    case (0xFF, 0xFE): little = true
    case (0xFE, 0xFF): little = false
    default: return nil
    }
    var i = head.startIndex + 2
    while i + 1 < head.endIndex {
      let (a, b) = (UInt16(head[i]), UInt16(head[i + 1]))
      guard isText(little ? b << 8 | a : a << 8 | b) else { return nil }
      i += 2
    }
    return little
  }

  /// A text unit: no NUL, no C0 control but tab, LF, CR and ESC.
  private static func isText(_ unit: UInt16) -> Bool {
    unit >= 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D || unit == 0x1B
  }
}

/// The UTF-16 → UTF-8 conversion of `UTF16Text`, fed the bytes after the BOM in pieces of any
/// size (a code unit or a surrogate pair split between two pieces is joined).
struct UTF16ToUTF8 {
  private let littleEndian: Bool
  private let out: UTF8Buffer
  /// The first byte of a code unit split between two pieces.
  private var halfUnit: UInt8?
  /// A high surrogate waiting for its low one.
  private var highSurrogate: UInt16?
  private var repaired = false

  /// A converter; `expectedBytes` (the input's size) sizes the UTF-8 buffer: half of it is
  /// exact for ASCII text.
  init(littleEndian: Bool, expectedBytes: Int) {
    self.littleEndian = littleEndian
    out = UTF8Buffer(capacity: expectedBytes / 2 + 16)
  }

  /// Converts the next piece of the UTF-16 bytes.
  mutating func feed(_ piece: UnsafeRawBufferPointer) {
    var i = 0
    if let first = halfUnit, !piece.isEmpty {
      halfUnit = nil
      unit(first, piece[0])
      i = 1
    }
    while i + 1 < piece.count {
      unit(piece[i], piece[i + 1])
      i += 2
    }
    if i < piece.count { halfUnit = piece[i] }
  }

  /// The UTF-8 text; a high surrogate left alone or an odd last byte becomes U+FFFD.
  mutating func finish() -> UTF16Text.Converted {
    if highSurrogate != nil { replacement() }
    if halfUnit != nil { replacement() }
    return (out.data(), littleEndian ? "UTF-16LE" : "UTF-16BE", repaired)
  }

  private mutating func unit(_ a: UInt8, _ b: UInt8) {
    let u = littleEndian ? UInt16(b) << 8 | UInt16(a) : UInt16(a) << 8 | UInt16(b)
    if let high = highSurrogate {
      highSurrogate = nil
      if (0xDC00...0xDFFF).contains(u) {
        scalar(0x10000 + (UInt32(high - 0xD800) << 10 | UInt32(u - 0xDC00)))
        return
      }
      replacement()
    }
    switch u {
    case 0xD800...0xDBFF: highSurrogate = u
    case 0xDC00...0xDFFF: replacement()
    default: scalar(UInt32(u))
    }
  }

  private mutating func replacement() {
    repaired = true
    scalar(0xFFFD)
  }

  /// Appends one scalar value's UTF-8 bytes.
  private mutating func scalar(_ v: UInt32) {
    out.reserve(4)
    switch v {
    case ..<0x80:
      out.append(UInt8(v))
    case ..<0x800:
      out.append(0xC0 | UInt8(v >> 6))
      out.append(0x80 | UInt8(v & 0x3F))
    case ..<0x10000:
      out.append(0xE0 | UInt8(v >> 12))
      out.append(0x80 | UInt8(v >> 6 & 0x3F))
      out.append(0x80 | UInt8(v & 0x3F))
    default:
      out.append(0xF0 | UInt8(v >> 18))
      out.append(0x80 | UInt8(v >> 12 & 0x3F))
      out.append(0x80 | UInt8(v >> 6 & 0x3F))
      out.append(0x80 | UInt8(v & 0x3F))
    }
  }
}

/// A growing byte buffer handed over to `Data` without a copy (`realloc` grows a large block
/// in place or by remapping it), so that a text of hundreds of megabytes is held once.
private final class UTF8Buffer {
  private var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  private var count = 0
  /// `data()` gave the bytes away: no longer freed here.
  private var handedOver = false

  init(capacity: Int) {
    self.capacity = max(capacity, 16)
    base = Self.allocate(nil, self.capacity)
  }

  deinit { if !handedOver { free(base) } }

  /// Makes room for `n` more bytes.
  func reserve(_ n: Int) {
    guard count + n > capacity else { return }
    capacity += max(capacity / 2, n)
    base = Self.allocate(base, capacity)
  }

  /// Appends a byte (room reserved first).
  func append(_ byte: UInt8) {
    base[count] = byte
    count += 1
  }

  /// The bytes, owned by the `Data` from now on (the buffer must not be used again).
  func data() -> Data {
    handedOver = true
    return Data(bytesNoCopy: base, count: count, deallocator: .free)
  }

  /// `realloc`; out of memory ends the run as Swift's own allocations do.
  private static func allocate(_ old: UnsafeMutablePointer<UInt8>?, _ size: Int)
    -> UnsafeMutablePointer<UInt8>
  {
    guard let raw = realloc(old, size) else {
      preconditionFailure("out of memory converting UTF-16 text (\(size) bytes)")
    }
    return raw.assumingMemoryBound(to: UInt8.self)
  }
}
