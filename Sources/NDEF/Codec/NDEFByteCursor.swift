/// A bounds-checked reader over input bytes.
///
/// Every read checks the remaining length first, so a length field claiming gigabytes fails
/// with `NDEFError.Kind.truncated` instead of allocating: no read ever returns more bytes than
/// the input holds. Offsets in errors are `base + position` so nested payloads report
/// positions in the outermost input.
public struct NDEFByteCursor: Sendable {
  /// The bytes being read.
  public let bytes: [UInt8]
  /// Index of the next byte to read in `bytes`.
  public private(set) var position: Int
  /// Offset of `bytes[0]` in the outermost input (added to every reported offset).
  public let base: Int

  /// Starts reading `bytes` at index 0; `base` is the offset of `bytes[0]` in the outer input.
  public init(_ bytes: [UInt8], base: Int = 0) {
    self.bytes = bytes
    self.position = 0
    self.base = base
  }

  /// Bytes left to read.
  public var remaining: Int { bytes.count - position }
  /// True when every byte has been read.
  public var isAtEnd: Bool { position >= bytes.count }
  /// Offset of the next byte in the outermost input.
  public var absoluteOffset: Int { base + position }

  /// Reads one byte. Throws `.truncated` naming `what` when the input has ended.
  public mutating func readByte(_ what: String) throws(NDEFError) -> UInt8 {
    try need(1, what)
    let b = bytes[position]
    position += 1
    return b
  }

  /// Reads a big-endian 16-bit value (network order, as in NDEF and WSC fields).
  public mutating func readUInt16(_ what: String) throws(NDEFError) -> UInt16 {
    try need(2, what)
    let v = UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    position += 2
    return v
  }

  /// Reads a big-endian 32-bit value (NDEF 1.0 §3.2.4 long PAYLOAD_LENGTH).
  public mutating func readUInt32(_ what: String) throws(NDEFError) -> UInt32 {
    try need(4, what)
    var v: UInt32 = 0
    for i in 0..<4 { v = v << 8 | UInt32(bytes[position + i]) }
    position += 4
    return v
  }

  /// Reads `count` bytes. Throws `.truncated` before allocating when fewer remain.
  public mutating func readBytes(_ count: Int, _ what: String) throws(NDEFError) -> [UInt8] {
    try need(count, what)
    let out = Array(bytes[position..<position + count])
    position += count
    return out
  }

  /// Skips `count` bytes (throws `.truncated` when fewer remain).
  public mutating func skip(_ count: Int, _ what: String) throws(NDEFError) {
    try need(count, what)
    position += count
  }

  /// Reads everything that is left.
  public mutating func readRest() -> [UInt8] {
    let out = Array(bytes[min(position, bytes.count)...])
    position = bytes.count
    return out
  }

  private func need(_ count: Int, _ what: String) throws(NDEFError) {
    guard count >= 0, count <= remaining else {
      throw NDEFError(
        kind: .truncated, code: "length-past-end", offset: absoluteOffset,
        expected: "\(what) (\(count) byte\(count == 1 ? "" : "s"))",
        message: "input ends after \(max(remaining, 0)) more byte(s); \(what) needs \(count)")
    }
  }
}
