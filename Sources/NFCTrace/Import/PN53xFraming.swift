/// Extracts PN53x host-link frames from a byte stream (PN533 user manual §6.2 / PN532 user
/// manual §6.2.1): normal information frame `00 00 FF LEN LCS TFI PD0…PDn DCS 00`, extended
/// frame `00 00 FF FF FF LENm LENl LCS TFI … DCS 00`, ACK `00 00 FF 00 FF 00`, NACK
/// `00 00 FF FF 00 00`. Leading preamble/wake-up bytes (`00`, `55`) are skipped by searching
/// for the start code `00 FF`.
///
/// Bytes can arrive split over several log lines or USB transfers (PN532 UART drivers read the
/// header and the body separately), so bytes are buffered until a whole frame is present. An
/// extended frame announcing more than `maxExtendedLength` bytes (the chips' buffers hold 264)
/// is not a frame: its start code is skipped, so that a damaged header cannot hold back every
/// later byte.
struct PN53xFraming: Sendable {
  /// One unwrapped frame: `TFI PD0…PDn` (TFI D4 host→chip, D5 chip→host, 7F error).
  enum Item: Sendable {
    case information([UInt8])
    case ack
    case nack
  }

  /// The largest extended-frame length taken as a frame.
  static let maxExtendedLength = 512

  private var buffer: [UInt8] = []

  /// True when bytes are waiting for the rest of a frame.
  var isPending: Bool { !buffer.isEmpty }

  /// True when the waiting bytes are all `00`: a postamble or preamble, no frame's start.
  var holdsOnlyZeros: Bool { buffer.allSatisfy { $0 == 0x00 } }

  /// Forgets buffered bytes (returns how many were dropped).
  mutating func reset() -> Int {
    defer { buffer.removeAll(keepingCapacity: true) }
    return buffer.count
  }

  /// Appends `bytes` and returns every complete frame, plus problems found (checksum errors,
  /// bytes that are not a frame).
  mutating func feed(_ bytes: [UInt8]) -> (items: [Item], problems: [String]) {
    buffer.append(contentsOf: bytes)
    var items: [Item] = []
    var problems: [String] = []
    // Consumed bytes are dropped once at the end: one removal per frame would make a long
    // run of bad frames quadratic.
    var head = 0
    while let (item, consumed, problem) = nextFrame(from: head) {
      if let problem { problems.append(problem) }
      if let item { items.append(item) }
      head += consumed
    }
    buffer.removeFirst(head)
    return (items, problems)
  }

  /// The first frame at or after `head`: the item (nil when skipped), bytes consumed from
  /// `head`, a problem. Nil when more bytes are needed.
  private func nextFrame(from head: Int) -> (Item?, Int, String?)? {
    guard let code = startCode(from: head) else {
      // No start code: keep a trailing 00 that may begin one, drop the rest.
      let keep = buffer.last == 0x00 ? 1 : 0
      guard buffer.count - head > keep else { return nil }
      let dropped = buffer.count - head - keep
      return (nil, dropped, "\(dropped) byte(s) outside a PN53x frame ignored (expected 00 FF)")
    }
    let s = code + 2  // first byte after 00 FF
    guard s + 2 <= buffer.count else { return nil }
    let len = buffer[s]
    let lcs = buffer[s + 1]
    if len == 0x00, lcs == 0xFF { return (.ack, min(s + 3, buffer.count) - head, nil) }
    if len == 0xFF, lcs == 0x00 { return (.nack, min(s + 3, buffer.count) - head, nil) }
    if len == 0xFF, lcs == 0xFF { return extendedFrame(at: s, head: head) }
    guard len &+ lcs == 0 else {
      return (
        nil, s - head, "PN53x frame with bad length checksum (LEN \(len), LCS \(lcs)) skipped"
      )
    }
    return body(start: s + 2, length: Int(len), head: head)
  }

  private func extendedFrame(at s: Int, head: Int) -> (Item?, Int, String?)? {
    guard s + 5 <= buffer.count else { return nil }
    let (m, l, lcs) = (buffer[s + 2], buffer[s + 3], buffer[s + 4])
    guard m &+ l &+ lcs == 0 else {
      return (nil, s - head, "PN53x extended frame with bad length checksum skipped")
    }
    let length = Int(m) << 8 | Int(l)
    guard length <= Self.maxExtendedLength else {
      return (
        nil, s - head,
        "PN53x extended frame of \(length) bytes (more than the chip's buffer) skipped"
      )
    }
    return body(start: s + 5, length: length, head: head)
  }

  /// TFI…PDn at `start` of `length` bytes, then DCS and an optional postamble.
  private func body(start: Int, length: Int, head: Int) -> (Item?, Int, String?)? {
    guard start + length + 1 <= buffer.count else { return nil }
    let data = Array(buffer[start..<(start + length)])
    let dcs = buffer[start + length]
    var end = start + length + 1
    if end < buffer.count, buffer[end] == 0x00 { end += 1 }  // postamble
    let sum = data.reduce(dcs) { $0 &+ $1 }
    let problem = sum == 0 ? nil : "PN53x frame data checksum (DCS) does not verify"
    return (.information(data), end - head, problem)
  }

  /// Index of the `00` of the first `00 FF` start code at or after `head`.
  private func startCode(from head: Int) -> Int? {
    var i = head
    while i + 1 < buffer.count {
      if buffer[i] == 0x00, buffer[i + 1] == 0xFF { return i }
      i += 1
    }
    return nil
  }
}
