/// Air timing at 106 kbit/s, in carrier ticks (1/fc, fc = 13.56 MHz, ≈ 73.75 ns).
///
/// Frame lengths follow the way a Proxmark3 records ISO/IEC 14443-A frames (start of the first
/// modulation to the end of the last), which matches every frame in the public PM3 traces:
/// - reader (PCD, modified Miller): 128 ticks per bit (8 data bits + parity per byte, or the
///   short frame's 7 bits), plus 96 ticks when the last bit sent is 1 and 160 when it is 0
///   (REQA `26(7)` = 1056, WUPA `52(7)` = 992, `30 04 26 EE` = 4704);
/// - tag (PICC, Manchester + subcarrier): 9 × 128 ticks per byte plus 64
///   (ATQA 2368, SAK + CRC 3520); the 4-bit ACK/NAK is SOF + 4 bits = 640 ticks, inside the
///   577…704 window the Proxmark3 client marks as `(4)`.
///
/// Frame delay time (ISO/IEC 14443-3 §6.2.1.1, reference/nfc-facts.md §1.6): the tag starts
/// n·128 + 84 ticks after a reader frame ending in 1 and n·128 + 20 after one ending in 0, n = 9.
public enum AirTiming {
  /// Ticks per second (fc).
  public static let ticksPerSecond: Int64 = 13_560_000
  /// One bit (etu) at 106 kbit/s: 128 ticks.
  public static let etu: Int64 = 128
  /// FDT after a reader frame whose last bit is 1: 1236 ticks (91.15 µs).
  public static let fdtLastBitOne: Int64 = 1236
  /// FDT after a reader frame whose last bit is 0: 1172 ticks (86.43 µs).
  public static let fdtLastBitZero: Int64 = 1172
  /// Shortest gap between the end of a tag frame and the next reader frame: 1172 ticks
  /// (proxmark3 `armsrc/iso14443a.c`).
  public static let minimumReaderGap: Int64 = 1172
  /// EEPROM programming time of a Type 2 WRITE before the ACK: 4.1 ms (NXP NTAG213/215/216
  /// datasheet, WRITE timing) = 55 596 ticks.
  public static let type2WriteProgramming: Int64 = 55_596
  /// Guard time after field on before the first command: 5.1 ms (ISO/IEC 14443-3 §6.2.1: at
  /// least 5 ms of unmodulated carrier) = 69 156 ticks.
  public static let fieldOnGuard: Int64 = 69_156
  /// ΔFWT added by readers to the ISO-DEP frame waiting time: 49 152 ticks (nfcpy `tt4.py`).
  public static let deltaFWT: Int64 = 49_152

  /// Ticks for `ms` milliseconds.
  public static func ticks(ms: Double) -> Int64 { Int64((ms * 13_560).rounded()) }

  /// Nanoseconds for `ticks` (rounded).
  public static func nanoseconds(ticks: Int64) -> Int64 { Proxmark3.nanoseconds(ticks: ticks) }

  /// Whole ticks for `ns` nanoseconds (rounded).
  public static func ticks(ns: Int64) -> Int64 {
    let (q, r) = ns.quotientAndRemainder(dividingBy: 25_000)
    return q * 339 + (r * 339 + 12_500) / 25_000
  }

  /// The last bit a frame puts on the air: the parity bit of the last byte (odd parity) for
  /// whole bytes, bit `bits` of the last byte for a partial byte.
  static func lastBitIsOne(_ data: [UInt8], bits: Int?) -> Bool {
    guard let last = data.last else { return false }
    if let bits, bits < 8 { return bits > 0 && (last >> UInt8(bits - 1)) & 1 == 1 }
    return Proxmark3.oddParity(last) == 1
  }

  /// Data bits on air including parity: 9 per whole byte, `bits` for a partial last byte.
  static func airBits(_ data: [UInt8], bits: Int?) -> Int64 {
    guard !data.isEmpty else { return 0 }
    if let bits, bits < 8 { return Int64(data.count - 1) * 9 + Int64(bits) }
    return Int64(data.count) * 9
  }

  /// Duration of a reader frame.
  static func readerFrameTicks(_ data: [UInt8], bits: Int?) -> Int64 {
    airBits(data, bits: bits) * etu + (lastBitIsOne(data, bits: bits) ? 96 : 160)
  }

  /// Duration of a tag frame (the 4-bit ACK/NAK has no parity bit).
  static func tagFrameTicks(_ data: [UInt8], bits: Int?) -> Int64 {
    if data.count == 1, let bits, bits < 8 { return Int64(bits + 1) * etu }
    return airBits(data, bits: bits) * etu + 64
  }

  /// FDT after a reader frame (n = 9).
  static func fdt(after data: [UInt8], bits: Int?) -> Int64 {
    lastBitIsOne(data, bits: bits) ? fdtLastBitOne : fdtLastBitZero
  }

  /// FWT = 256 · 16 · 2^FWI ticks (ISO/IEC 14443-4 §7.2; FWI 15 read as 4, as nfcpy does).
  static func fwt(fwi: Int) -> Int64 {
    let f = (0...14).contains(fwi) ? fwi : 4
    return 4096 << Int64(f)
  }
}
