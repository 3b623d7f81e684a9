/// Where a byte's last known value came from.
public enum ByteProvenance: String, Sendable, Hashable {
  /// Never read nor written in the trace.
  case unknown
  /// Read from the tag (READ/FAST_READ/READ BINARY answer, or a static dump).
  case read
  /// Written, and the tag acknowledged the write (ACK / SW 9000).
  case written
  /// Written, but no acknowledgement was seen (tag left, NAK, error status word).
  case unacknowledged = "written-unacknowledged"
  /// Written, and the tag acknowledged the write, but the value is not known: the command
  /// carried it MACed or encrypted (a MIFARE DESFire / NTAG 424 DNA WriteData in MAC or Full
  /// communication mode; NTAG 424 DNA datasheet NT4H2421Gx §9.1 secure messaging, §10 WriteData). The byte's old
  /// value no longer stands, and no new one is known.
  case writtenUnknown = "written-unknown"

  /// True when the byte's value is known: read, or written with the value on the air
  /// (acknowledged or not); false for `unknown` and `written-unknown`.
  public var hasValue: Bool { self != .unknown && self != .writtenUnknown }

  /// True for a byte written (acknowledged or not, or with a value not known).
  var isWritten: Bool { self == .written || self == .unacknowledged || self == .writtenUnknown }
}

/// A tag memory (Type 2 pages as bytes from page 0, or one Type 4 file) with, per byte, the
/// last known value, its provenance and the frame it came from.
///
/// Stored as parallel arrays (compact: 1 + 1 + 4 bytes per tag byte); grows on demand up to
/// `limit` bytes so a lying page number cannot allocate without bound.
public struct ByteImage: Sendable, Equatable {
  /// Largest image kept: 64 KiB (Type 4 files may be up to 32 KiB with mapping 2.0; NTAG I2C
  /// 2K has 2 KiB).
  public static let limit = 1 << 16
  /// Last known value of each byte (0 where unknown).
  public private(set) var values: [UInt8] = []
  /// Provenance of each byte.
  public private(set) var provenance: [ByteProvenance] = []
  /// Frame index each byte's value came from (-1 where unknown).
  public private(set) var frames: [Int32] = []

  /// An empty image.
  public init() {}

  /// Number of bytes covered (known or not).
  public var count: Int { values.count }

  private mutating func grow(to n: Int) {
    guard n > values.count else { return }
    let add = n - values.count
    values += repeatElement(0, count: add)
    provenance += repeatElement(.unknown, count: add)
    frames += repeatElement(-1, count: add)
  }

  /// Grows the image to cover bytes up to `end` (capped at `limit`) at once, before a loop of
  /// per-byte `record(byte:…)` calls (which would otherwise grow it one byte at a time).
  mutating func cover(upTo end: Int) { grow(to: min(max(end, 0), Self.limit)) }

  /// Records `data` at `offset` with `state`, from frame `frame`. Bytes past `limit` are ignored.
  public mutating func record<C: Collection>(
    _ data: C, at offset: Int, state: ByteProvenance, frame: Int
  ) where C.Element == UInt8 {
    guard offset >= 0, offset < Self.limit else { return }
    let end = min(offset + data.count, Self.limit)
    // Grown even for no bytes (a Type 4 UPDATE BINARY without data covers its offset), as the
    // byte-by-byte version did.
    grow(to: end)
    guard end > offset else { return }
    // Through the arrays' buffers, once each: element by element, every write checked the
    // array's uniqueness and bounds (a read of a page or file records every byte of it).
    let n = end - offset
    values.withUnsafeMutableBufferPointer { v in
      var i = offset
      for b in data.prefix(n) {
        v[i] = b
        i += 1
      }
    }
    provenance.withUnsafeMutableBufferPointer { p in
      p.baseAddress.map { ($0 + offset).update(repeating: state, count: n) }
    }
    let source = Int32(clamping: frame)
    frames.withUnsafeMutableBufferPointer { p in
      p.baseAddress.map { ($0 + offset).update(repeating: source, count: n) }
    }
  }

  /// Whether byte `i` was written (`ByteProvenance.isWritten`) by frame `firstFrame` or later;
  /// false past the end.
  func written(_ i: Int, since firstFrame: Int) -> Bool {
    i >= 0 && i < count && provenance[i].isWritten && frames[i] >= firstFrame
  }

  /// Whether a byte of `range` was written by frame `firstFrame` or later.
  func anyWritten(in range: Range<Int>, since firstFrame: Int) -> Bool {
    range.clamped(to: 0..<count).contains { written($0, since: firstFrame) }
  }

  /// Records `data` only into bytes still unknown (to build the "as the session found it" view).
  /// Records one byte (the per-byte form of `record`, without a collection per byte).
  mutating func record(byte b: UInt8, at offset: Int, state: ByteProvenance, frame: Int) {
    guard offset >= 0, offset < Self.limit else { return }
    grow(to: offset + 1)
    values[offset] = b
    provenance[offset] = state
    frames[offset] = Int32(clamping: frame)
  }

  public mutating func recordIfUnknown<C: Collection>(_ data: C, at offset: Int, frame: Int)
  where C.Element == UInt8 {
    guard offset >= 0, offset < Self.limit else { return }
    let end = min(offset + data.count, Self.limit)
    grow(to: end)
    var i = offset
    for b in data where i < end {
      if provenance[i] == .unknown {
        values[i] = b
        provenance[i] = .read
        frames[i] = Int32(clamping: frame)
      }
      i += 1
    }
  }

  /// The bytes `offset..<offset+length` if every one of them is known.
  public func known(_ offset: Int, _ length: Int) -> [UInt8]? {
    guard offset >= 0, length >= 0, offset + length <= count else { return nil }
    for i in offset..<(offset + length) where !provenance[i].hasValue { return nil }
    return Array(values[offset..<(offset + length)])
  }

  /// The big-endian unsigned integer in the `size` known bytes at `offset` (a Type 4 NLEN is
  /// 2 bytes, an ENLEN 4; NFC Forum T4T 3.0 §5.1), or nil when any of them is unknown.
  public func knownBigEndian(_ offset: Int, _ size: Int) -> Int? {
    known(offset, size).map(ByteImage.bigEndian)
  }

  /// The big-endian unsigned integer `bytes` spell (empty: 0).
  public static func bigEndian<C: Collection<UInt8>>(_ bytes: C) -> Int {
    bytes.reduce(0) { $0 << 8 | Int($1) }
  }

  /// The known prefix starting at `offset` (stops at the first unknown byte).
  public func knownRun(from offset: Int) -> [UInt8] {
    guard offset >= 0, offset < count else { return [] }
    var end = offset
    while end < count && provenance[end].hasValue { end += 1 }
    return Array(values[offset..<end])
  }

  /// Whether writing `value` at byte `i` changes what this image holds there: a known byte
  /// that differs, or, where nothing is known, a non-zero value (a page write that skips bytes
  /// writes them back with what they hold, zeros on an erased tag).
  public func changed(by value: UInt8, at i: Int) -> Bool {
    state(i).hasValue ? values[i] != value : value != 0
  }

  /// Marks `range` written with a value not known (`writtenUnknown`, value 0), from frame
  /// `frame`. Bytes past `limit` are ignored.
  mutating func recordWrittenUnknown(_ range: Range<Int>, frame: Int) {
    let lower = max(range.lowerBound, 0)
    let upper = min(range.upperBound, Self.limit)
    guard lower < upper else { return }
    grow(to: upper)
    for i in lower..<upper {
      values[i] = 0
      provenance[i] = .writtenUnknown
      frames[i] = Int32(clamping: frame)
    }
  }

  /// The provenance of byte `i` (`.unknown` past the end).
  public func state(_ i: Int) -> ByteProvenance { i >= 0 && i < count ? provenance[i] : .unknown }

  /// The frame that set byte `i`, if any.
  public func frame(_ i: Int) -> Int? {
    guard i >= 0, i < count, frames[i] >= 0 else { return nil }
    return Int(frames[i])
  }
}

extension ByteImage {
  /// This image with every known byte of `top` written over it (provenance kept from `top`).
  public func overlaid(with top: ByteImage) -> ByteImage {
    let n = top.count
    // Nothing on top (a Type 4 session's Type 2 image): this image as it is, its arrays shared
    // rather than made unique for no change.
    guard n > 0 else { return self }
    var out = self
    out.grow(to: n)
    // Byte by byte in place, through the arrays' buffers (an array per byte made this the
    // costliest step of closing a session that carries memory over; element writes checked
    // each array's uniqueness and bounds every time).
    top.values.withUnsafeBufferPointer { tv in
      top.provenance.withUnsafeBufferPointer { tp in
        top.frames.withUnsafeBufferPointer { tf in
          out.values.withUnsafeMutableBufferPointer { v in
            out.provenance.withUnsafeMutableBufferPointer { p in
              out.frames.withUnsafeMutableBufferPointer { f in
                for i in 0..<n where tp[i] != .unknown {
                  v[i] = tv[i]
                  p[i] = tp[i]
                  f[i] = tf[i]
                }
              }
            }
          }
        }
      }
    }
    return out
  }
}
