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
    bytes.withUnsafeBytes { all in
      // In 4 MiB pieces, as a file is read: the code units of one piece at a time.
      var start = min(2, all.count)
      while start < all.count {
        let end = min(all.count, start + (1 << 22))
        converter.feed(UnsafeRawBufferPointer(rebasing: all[start..<end]))
        start = end
      }
    }
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
/// size (a code unit or a surrogate pair split between two pieces is joined). The transcoding
/// is the standard library's `transcode(_:from:to:stoppingOnError:into:)`, which repairs lone
/// surrogates with U+FFFD; this type only carries what a piece boundary splits.
struct UTF16ToUTF8 {
  private let littleEndian: Bool
  private var out = Data()
  /// The first byte of a code unit split between two pieces.
  private var halfUnit: UInt8?
  /// A high surrogate ending a piece, waiting for the next piece's first unit.
  private var pendingHigh: UInt16?
  private var repaired = false
  /// The current piece's code units and their UTF-8 bytes (kept to reuse their storage).
  private var units: [UInt16] = []
  private var bytes: [UInt8] = []

  /// A converter; `expectedBytes` (the input's size) sizes the UTF-8 buffer: half of it is
  /// exact for ASCII text.
  init(littleEndian: Bool, expectedBytes: Int) {
    self.littleEndian = littleEndian
    out.reserveCapacity(expectedBytes / 2 + 16)
  }

  /// Converts the next piece of the UTF-16 bytes.
  mutating func feed(_ piece: UnsafeRawBufferPointer) {
    units.removeAll(keepingCapacity: true)
    units.reserveCapacity(piece.count / 2 + 2)
    if let high = pendingHigh {
      units.append(high)
      pendingHigh = nil
    }
    var i = 0
    if let first = halfUnit, !piece.isEmpty {
      halfUnit = nil
      units.append(unit(first, piece[0]))
      i = 1
    }
    while i + 1 < piece.count {
      units.append(unit(piece[i], piece[i + 1]))
      i += 2
    }
    if i < piece.count { halfUnit = piece[i] }
    if let last = units.last, UTF16.isLeadSurrogate(last) { pendingHigh = units.removeLast() }
    flush()
  }

  /// The UTF-8 text; a high surrogate left alone or an odd last byte becomes U+FFFD.
  mutating func finish() -> UTF16Text.Converted {
    units.removeAll(keepingCapacity: true)
    if let high = pendingHigh { units.append(high) }
    pendingHigh = nil
    flush()
    if halfUnit != nil {
      repaired = true
      out.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
    }
    return (out, littleEndian ? "UTF-16LE" : "UTF-16BE", repaired)
  }

  private func unit(_ a: UInt8, _ b: UInt8) -> UInt16 {
    littleEndian ? UInt16(b) << 8 | UInt16(a) : UInt16(a) << 8 | UInt16(b)
  }

  /// Transcodes `units` and appends the bytes to `out`.
  private mutating func flush() {
    var converted = bytes
    bytes = []
    converted.removeAll(keepingCapacity: true)
    let hadErrors = transcode(
      units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: false
    ) { converted.append($0) }
    if hadErrors { repaired = true }
    out.append(contentsOf: converted)
    bytes = converted
  }
}
