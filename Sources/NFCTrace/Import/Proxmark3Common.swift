/// Rules shared by the Proxmark3 binary (`.trace`) and text (`trace list`) importers.
///
/// Source: RfidResearchGroup/proxmark3 `include/pm3_cmd.h` (`tracelog_hdr_t`) and
/// `client/src/cmdtrace.c` (`printTraceLine`, `printHexLine`).
enum Proxmark3 {
  /// Carrier frequency: one Proxmark3 tick is 1/13.56 MHz ≈ 73.75 ns.
  static let ticksPerSecond: Int64 = 13_560_000

  /// Nanoseconds for `ticks` carrier periods, rounded to the nearest nanosecond.
  ///
  /// 10⁹ / 13 560 000 = 25 000 / 339; the quotient and remainder are scaled separately so the
  /// product cannot overflow for any tick count a trace can hold (saturates beyond ±2⁶³ ns).
  static func nanoseconds(ticks: Int64) -> Int64 {
    let quotient = ticks / 339
    let remainder = (ticks % 339) * 25_000
    let rounded = remainder >= 0 ? (remainder + 169) / 339 : (remainder - 169) / 339
    let (whole, overflow) = quotient.multipliedReportingOverflow(by: 25_000)
    if overflow { return ticks < 0 ? Int64.min : Int64.max }
    return whole + rounded
  }

  /// Tick-equivalent of a time printed in microseconds (`-u`): `mantissa / 10^fractionDigits` µs
  /// × 13.56, rounded.
  static func ticks(microsMantissa mantissa: Int64, fractionDigits: Int) -> Int64 {
    var divisor: Int64 = 100
    for _ in 0..<min(fractionDigits, 12) { divisor *= 10 }
    let (scaled, overflow) = mantissa.multipliedReportingOverflow(by: 1356)
    if overflow { return mantissa < 0 ? Int64.min / 2 : Int64.max / 2 }
    return (scaled + divisor / 2) / divisor
  }

  /// Valid bits in a 1-byte ISO 14443-A frame, derived from its duration the way the client
  /// marks short frames in `trace list` (`cmdtrace.c`, "mark short bytes").
  ///
  /// One bit with its share of parity lasts 128 ticks; the client calls a frame shorter than
  /// 1088 ticks (8 × 128 + 64) short and gives it the largest `m` in 1…7 with
  /// `duration > 128·m + 64`: REQA (1056 ticks) and WUPA (992) → 7, a 4-bit ACK/NAK
  /// (577…704) → 4. Returns nil for whole bytes and for durations of 192 ticks or less, where
  /// the client prints `(0)` (no valid bit: noise, not a frame we can represent).
  static func shortFrameBits(durationTicks: Int64) -> Int? {
    guard durationTicks < 1088 else { return nil }
    var bits = 7
    while bits > 0 {
      if durationTicks > Int64(128 * bits + 64) { return bits }
      bits -= 1
    }
    return nil
  }

  /// Valid bits of a 1-byte frame when the source has no duration (`trace list -x`): ISO/IEC
  /// 14443-3 §6.3.1 sends REQA `26`, WUPA `52` (and Apple's `7A`–`7D` wake-ups) as 7-bit
  /// short frames, and a 1-byte tag answer below `10` is the 4-bit ACK/NAK (NFC Forum T2T
  /// §9.3, MIFARE Classic ACK/NAK).
  static func shortFrameBits(byte: UInt8, fromReader: Bool) -> Int? {
    if fromReader {
      switch byte {
      case 0x26, 0x52, 0x7A...0x7D: return 7
      default: return nil
      }
    }
    return byte < 0x10 ? 4 : nil
  }

  /// The odd-parity bit ISO/IEC 14443-3 §6.2.3.1 sends after `byte`.
  @inline(__always)
  static func oddParity(_ byte: UInt8) -> UInt8 {
    UInt8(truncatingIfNeeded: (byte.nonzeroBitCount + 1) & 1)
  }
}

/// Places 32-bit Proxmark3 timestamps on a 64-bit time line.
///
/// The device counts ticks in a `uint32_t` that wraps after 2³² ticks (≈ 316.7 s), and traces
/// that join several runs restart from small values. A value above the previous one (as u32)
/// is later, however far (a sniff idle for minutes between two taps); a value below it is
/// read as the closer of a step back in time (a drop of less than 2³¹ ticks ≈ 158 s) and a
/// wrap-around. Both are reported so the importer can warn.
struct TickClock {
  /// What happened between the previous value and this one.
  enum Step {
    case first
    case forward
    /// The value crossed a multiple of 2³² ticks (u32 wrap-around assumed).
    case wrapped
    /// The value is earlier than the previous one.
    case backward
  }

  private(set) var first: Int64 = 0
  private(set) var last: Int64 = 0
  private var started = false
  /// Placed ticks minus the raw count since the last `restart` (0 before any).
  private var offset: Int64 = 0

  /// The raw u32 value the previous placed one stands for.
  var lastRaw: UInt32 { raw(of: last) }

  /// The raw u32 count that placed `ticks` stands for (since the last `restart`).
  func raw(of ticks: Int64) -> UInt32 { UInt32(truncatingIfNeeded: ticks - offset) }

  /// The 64-bit tick count for a raw u32 `value`, and how it relates to the previous one.
  mutating func place(_ value: UInt32) -> (ticks: Int64, step: Step) {
    guard started else {
      started = true
      first = Int64(value)
      last = first
      return (last, .first)
    }
    let previous = lastRaw
    let delta =
      value >= previous
      ? Int64(value - previous) : Int64(Int32(bitPattern: value &- previous))
    let ticks = last + delta
    // From a restart's negative count (`restart`) up past 0 is no wrap-around.
    let step: Step =
      delta < 0
      ? .backward
      : ((ticks - offset) >> 32 != (last - offset) >> 32 && last - offset >= 0
        ? .wrapped : .forward)
    last = ticks
    return (ticks, step)
  }

  /// Places raw count `value` (negative: the counter restarted just after the frame began) at
  /// `ticks`, and the values after it relative to it: the device's counter restarted, so the
  /// time between the previous frame and this one is not known.
  mutating func restart(_ value: Int64, at ticks: Int64) -> Int64 {
    if !started {
      started = true
      first = ticks
    }
    offset = ticks - value
    last = ticks
    return ticks
  }

  /// Nanoseconds from the first placed value to `ticks`.
  func nanosecondsSinceFirst(_ ticks: Int64) -> Int64 {
    Proxmark3.nanoseconds(ticks: ticks - first)
  }
}

/// Warnings with a cap per kind, so a damaged multi-million-frame trace does not produce
/// millions of warnings; the first suppressed one of a kind is announced.
struct WarningLog {
  private(set) var warnings: [TraceWarning] = []
  private var counts: [String: Int] = [:]
  let limitPerKind: Int

  init(limitPerKind: Int = 20) { self.limitPerKind = limitPerKind }

  /// Adds `warning` of `kind`, unless `limit` (default `limitPerKind`) of that kind came first.
  mutating func add(_ kind: String, _ warning: TraceWarning, limit: Int? = nil) {
    let limit = limit ?? limitPerKind
    let count = counts[kind, default: 0] + 1
    counts[kind] = count
    if count <= limit {
      warnings.append(warning)
    } else if count == limit + 1 {
      warnings.append(
        TraceWarning(
          "further warnings of this kind (\(kind)) are not listed", location: warning.location))
    }
  }
}
