import Foundation

/// Writes frames as a Proxmark3 binary trace log (`trace save`, `.trace`), readable by
/// `pm3 --> trace load -f X; trace list -1 -t 14a` and by `Proxmark3BinaryImporter`.
///
/// Record layout (RfidResearchGroup/proxmark3 `include/pm3_cmd.h` `tracelog_hdr_t`, read by
/// `client/src/cmdtrace.c`), little-endian, no file header:
///
/// | bytes | field |
/// |---|---|
/// | 4 | timestamp, u32 carrier ticks (1/13.56 MHz) |
/// | 2 | duration, u16 ticks (clamped to 65 535: frames longer than 56 bytes at 106 kbit/s) |
/// | 2 | data length (bits 0–14), bit 15 set for tag→reader |
/// | n | data in air order, CRC included |
/// | (n − 1)/8 + 1 | parity: bit `7 − j % 8` of byte `j / 8` is the parity bit sent after data byte `j` — odd parity, inverted for the bytes in `Frame.parityErrors` (the client prints them with `!`) |
///
/// Parity (`parityField`): type A frames only. The device zero-fills the field for type B,
/// FeliCa, ISO 15693 and iCLASS, and stores an LF (Hitag) frame's valid-bit count in its first
/// byte (`armsrc/BigBuf.c` `LogTraceBits`: `parity[0] = bitLen % 8`), so a file of those
/// technologies must have no odd-parity field: one would make `Proxmark3BinaryImporter` read
/// the whole file as type A.
///
/// Times: the frame's `sourceTime` when it is in Proxmark3 ticks, otherwise `timeNs` converted
/// (a frame before the first one, `timeNs` < 0, is written at the first frame's time 0: a u32
/// below it would read back ≈ 316.7 s later); the duration from `durationNs`, or computed for
/// 106 kbit/s (`AirTiming`) when missing — and for a type A 1-byte frame whose duration does
/// not give its `bits` by the client's short-frame rule, the only place the format keeps them.
/// Event frames (field on/off) have no record in this format and are skipped. A frame with
/// more than 32 767 bytes is cut to 32 767 (the length field has 15 bits).
public enum Proxmark3TraceWriter {
  /// The records for `frames`.
  public static func encode<S: Sequence>(_ frames: S) -> Data where S.Element == Frame {
    var data = Data()
    for frame in frames { append(frame, to: &data) }
    return data
  }

  /// Appends the record of `frame` (nothing for an event frame).
  public static func append(_ frame: Frame, to data: inout Data) {
    guard frame.direction != .event else { return }
    let bytes = frame.data.prefix(0x7FFF)
    let ticks = max(timestampTicks(frame), 0)
    let duration = min(max(durationTicks(frame), 0), 0xFFFF)
    let length = UInt16(bytes.count) | (frame.direction == .tag ? 0x8000 : 0)
    var header = [UInt8](repeating: 0, count: 8)
    for i in 0..<4 {
      header[i] = UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: ticks) >> (8 * i))
    }
    header[4] = UInt8(duration & 0xFF)
    header[5] = UInt8(duration >> 8)
    header[6] = UInt8(length & 0xFF)
    header[7] = UInt8(length >> 8)
    data.append(contentsOf: header)
    data.append(contentsOf: bytes)
    data.append(contentsOf: parityField(frame, byteCount: bytes.count))
  }

  /// The record's parity bytes: odd parity with `parityErrors` for a type A frame, the
  /// valid-bit count `[k, 0…]` for an LF frame of k < 8 bits in its last byte, zeros otherwise.
  static func parityField(_ frame: Frame, byteCount: Int) -> [UInt8] {
    if let bits = lowFrequencyBits(frame) {
      var field = [UInt8](repeating: 0, count: parityByteCount(byteCount))
      field[0] = UInt8(bits)
      return field
    }
    guard hasTypeAParity(frame) else {
      return [UInt8](repeating: 0, count: parityByteCount(byteCount))
    }
    return parity(Array(frame.data.prefix(byteCount)), errors: frame.parityErrors)
  }

  /// Valid bits of the last byte of an LF frame (technology `.lowFrequency`, or flagged
  /// `msb-first` by an importer that read them from a Proxmark3 LF trace), 1…7; nil otherwise.
  static func lowFrequencyBits(_ frame: Frame) -> Int? {
    guard let bits = frame.bits, (1...7).contains(bits), !frame.data.isEmpty,
      frame.technology == .lowFrequency || frame.sourceFlags.contains("msb-first")
    else { return nil }
    return bits
  }

  /// Whether the frame travelled with type A parity bits. Other technologies (type B, FeliCa,
  /// ISO 15693, iCLASS, LF) have none: the Proxmark3 client zero-fills their parity bytes, and
  /// parity that checks out would make the importer take the file for type A. Callers that
  /// can decode should set the technology first (`convert` takes `DecodedFrame.
  /// decodedTechnology`); a frame still `.unknown` is type A unless a Proxmark3 source found
  /// no type A parity in its file (flag `parity-not-recorded`: its parity bytes were not type
  /// A, so none are made up) or its CRC_B verifies and its CRC_A does not.
  static func hasTypeAParity(_ frame: Frame) -> Bool {
    switch frame.technology {
    case .nfcA: return true
    case .unknown:
      if !frame.sourceFlags.isEmpty, frame.sourceFlags.contains("parity-not-recorded") {
        return false
      }
      return frame.data.count < 3 || CRC.hasValidCRCA(frame.data)
        || !CRC.hasValidCRCB(frame.data)
    default: return false
    }
  }

  /// Writes the records for `frames` to `path`.
  /// - Throws: the file system error.
  public static func write<S: Sequence>(_ frames: S, to path: String) throws
  where S.Element == Frame {
    try encode(frames).write(to: URL(fileURLWithPath: path))
  }

  /// The frame's time in ticks (1/13.56 MHz) before it is cut to the record's 32 bits: the
  /// source's own ticks, else the frame's time converted (below 0 for a frame before the
  /// first, which `append` writes at 0).
  public static func timestampTicks(_ frame: Frame) -> Int64 {
    if let t = frame.sourceTime, t.unit == .proxmarkTicks { return t.value }
    return AirTiming.ticks(ns: frame.timeNs)
  }

  /// The record's duration in ticks (1/13.56 MHz) before the u16 field clamps it to 65535:
  /// the frame's own, unless it is a type A 1-byte frame whose
  /// duration would read back with other valid bits than its `bits` (the client's short-frame
  /// rule, `Proxmark3.shortFrameBits(durationTicks:)`: a 7-bit REQA must last 961–1087
  /// ticks) — then, as when there is none, the duration at 106 kbit/s, which gives them.
  public static func durationTicks(_ frame: Frame) -> Int64 {
    let airTicks =
      frame.direction == .tag
      ? AirTiming.tagFrameTicks(frame.data, bits: frame.bits)
      : AirTiming.readerFrameTicks(frame.data, bits: frame.bits)
    guard let ns = frame.durationNs else { return airTicks }
    let ticks = AirTiming.ticks(ns: ns)
    if frame.data.count == 1, hasTypeAParity(frame),
      Proxmark3.shortFrameBits(durationTicks: ticks) != shortBits(frame)
    {
      return airTicks
    }
    return ticks
  }

  /// A 1-byte frame's valid bits when fewer than 8, else nil.
  private static func shortBits(_ frame: Frame) -> Int? {
    guard let bits = frame.bits, (1...7).contains(bits) else { return nil }
    return bits
  }

  /// Parity bytes of an `n`-byte frame: `(n − 1) / 8 + 1`, one for an empty frame.
  static func parityByteCount(_ n: Int) -> Int { n == 0 ? 1 : (n - 1) / 8 + 1 }

  /// Parity bytes, MSB first: odd parity per byte, inverted at `errors`. An empty frame still
  /// gets one parity byte, as the client's `(n − 1) / 8 + 1` in C gives for n = 0.
  static func parity(_ bytes: [UInt8], errors: [Int]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: parityByteCount(bytes.count))
    let wrong = Set(errors)
    for (j, b) in bytes.enumerated() {
      var bit = Proxmark3.oddParity(b)
      if wrong.contains(j) { bit ^= 1 }
      out[j / 8] |= bit << UInt8(7 - j % 8)
    }
    return out
  }
}
