/// Extracts PN53x host-link frames from a byte stream (PN533 user manual §6.2 / PN532 user
/// manual §6.2.1): normal information frame `00 00 FF LEN LCS TFI PD0…PDn DCS 00`, extended
/// frame `00 00 FF FF FF LENm LENl LCS TFI … DCS 00`, ACK `00 00 FF 00 FF 00`, NACK
/// `00 00 FF FF 00 00`. Leading preamble/wake-up bytes (`00`, `55`) are skipped by searching
/// for the start code `00 FF`.
///
/// Bytes can arrive split over several log lines (PN532 UART drivers read the header and
/// the body separately), so bytes are buffered until a whole frame is present.
struct PN53xFraming: Sendable {
  /// One unwrapped frame: `TFI PD0…PDn` (TFI D4 host→chip, D5 chip→host, 7F error).
  enum Item: Sendable {
    case information([UInt8])
    case ack
    case nack
  }

  private var buffer: [UInt8] = []

  /// True when bytes are waiting for the rest of a frame.
  var isPending: Bool { !buffer.isEmpty }

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
    while let (item, consumed, problem) = nextFrame() {
      if let problem { problems.append(problem) }
      if let item { items.append(item) }
      buffer.removeFirst(consumed)
    }
    return (items, problems)
  }

  /// The first frame in the buffer: the item (nil when skipped), bytes consumed, a problem.
  /// Nil when more bytes are needed.
  private func nextFrame() -> (Item?, Int, String?)? {
    guard let code = startCode() else {
      // No start code: keep a trailing 00 that may begin one, drop the rest.
      let keep = buffer.last == 0x00 ? 1 : 0
      guard buffer.count > keep else { return nil }
      return (nil, buffer.count - keep, "bytes outside a PN53x frame ignored")
    }
    let s = code + 2  // first byte after 00 FF
    guard s + 2 <= buffer.count else { return nil }
    let len = buffer[s]
    let lcs = buffer[s + 1]
    if len == 0x00, lcs == 0xFF { return (.ack, min(s + 3, buffer.count), nil) }
    if len == 0xFF, lcs == 0x00 { return (.nack, min(s + 3, buffer.count), nil) }
    if len == 0xFF, lcs == 0xFF { return extendedFrame(at: s) }
    guard len &+ lcs == 0 else {
      return (nil, s, "PN53x frame with bad length checksum (LEN \(len), LCS \(lcs)) skipped")
    }
    return body(start: s + 2, length: Int(len))
  }

  private func extendedFrame(at s: Int) -> (Item?, Int, String?)? {
    guard s + 5 <= buffer.count else { return nil }
    let (m, l, lcs) = (buffer[s + 2], buffer[s + 3], buffer[s + 4])
    guard m &+ l &+ lcs == 0 else {
      return (nil, s, "PN53x extended frame with bad length checksum skipped")
    }
    return body(start: s + 5, length: Int(m) << 8 | Int(l))
  }

  /// TFI…PDn at `start` of `length` bytes, then DCS and an optional postamble.
  private func body(start: Int, length: Int) -> (Item?, Int, String?)? {
    guard start + length + 1 <= buffer.count else { return nil }
    let data = Array(buffer[start..<(start + length)])
    let dcs = buffer[start + length]
    var end = start + length + 1
    if end < buffer.count, buffer[end] == 0x00 { end += 1 }  // postamble
    let sum = data.reduce(dcs) { $0 &+ $1 }
    let problem = sum == 0 ? nil : "PN53x frame data checksum (DCS) does not verify"
    return (.information(data), end, problem)
  }

  /// Index of the `00` of the first `00 FF` start code.
  private func startCode() -> Int? {
    var i = 0
    while i + 1 < buffer.count {
      if buffer[i] == 0x00, buffer[i + 1] == 0xFF { return i }
      i += 1
    }
    return nil
  }
}
