/// A Type 2 / MIFARE Ultralight / NTAG21x reader command, parsed from one frame without CRC.
///
/// Opcodes: NFC Forum T2T 1.0 §5 (READ `30`, WRITE `A2`, SECTOR_SELECT `C2 FF`), NXP
/// NTAG213/215/216 and MF0ULx1 datasheets §10 (GET_VERSION `60`, FAST_READ `3A`,
/// COMPATIBILITY_WRITE `A0`, READ_SIG `3C`, PWD_AUTH `1B`, READ_CNT `39`, INCR_CNT `A5`,
/// CHECK_TEARING_EVENT `3E`, VCSL `4B`), MF0ICU2 datasheet (AUTHENTICATE `1A`/`AF`),
/// MF0UN(H)00 / Ultralight AES datasheets (WRITE_SIG `A9`, LOCK_SIG `AC`), NXP NTAG I2C plus
/// (NT3H2111/2211) datasheet §10 (FAST_WRITE `A6`); nfc-facts §4.1.
public enum Type2Command: Sendable, Equatable {
  /// READ `30 page`: 16 bytes = pages page…page+3.
  case read(page: Int)
  /// FAST_READ `3A start end`: pages start…end inclusive.
  case fastRead(start: Int, end: Int)
  /// WRITE `A2 page d0 d1 d2 d3`.
  case write(page: Int, data: [UInt8])
  /// FAST_WRITE `A6 start end` + 4 bytes per page: NTAG I2C plus writes the SRAM mapped at
  /// pages F0h…FFh (64 bytes) in pass-through mode; answered ACK.
  case fastWrite(start: Int, end: Int, data: [UInt8])
  /// COMPATIBILITY_WRITE part 1 `A0 page`.
  case compatibilityWrite(page: Int)
  /// COMPATIBILITY_WRITE part 2: 16 data bytes, the first 4 stored.
  case compatibilityWriteData(page: Int, data: [UInt8])
  /// GET_VERSION `60`.
  case getVersion
  /// READ_SIG `3C addr`.
  case readSignature(address: Int)
  /// PWD_AUTH `1B pwd0…pwd3`.
  case passwordAuth(password: [UInt8])
  /// READ_CNT `39 counter`.
  case readCounter(counter: Int)
  /// INCR_CNT `A5 counter v0 v1 v2 rfu` (increment value LSB first).
  case incrementCounter(counter: Int, increment: Int)
  /// CHECK_TEARING_EVENT `3E counter`.
  case checkTearingEvent(counter: Int)
  /// VCSL `4B` + installation identifier and PCD capabilities.
  case vcsl(data: [UInt8])
  /// SECTOR_SELECT part 1 `C2 FF`.
  case sectorSelect
  /// SECTOR_SELECT part 2 `sector 00 00 00` (passively acknowledged).
  case sectorSelectSector(sector: Int)
  /// Ultralight C / AES AUTHENTICATE part 1 `1A key`.
  case authenticate(key: Int)
  /// AUTHENTICATE part 2 `AF` + encrypted RndA‖RndB'.
  case authenticateContinue(data: [UInt8])
  /// WRITE_SIG `A9 addr d0 d1 d2 d3`: one 4-byte block of the originality signature
  /// (MIFARE Ultralight Nano / AES, NTAG 213 TT; answered ACK).
  case writeSignature(address: Int, data: [UInt8])
  /// LOCK_SIG `AC arg`: locks (arg 1) or unlocks (0) the signature, 2 locks it for good.
  case lockSignature(argument: Int)
  /// HLTA `50 00`.
  case halt

  /// The command's name as in the NXP datasheets (`READ`, `FAST_READ`, `PWD_AUTH`).
  public var name: String {
    switch self {
    case .read: return "READ"
    case .fastRead: return "FAST_READ"
    case .write: return "WRITE"
    case .fastWrite: return "FAST_WRITE"
    case .compatibilityWrite, .compatibilityWriteData: return "COMPATIBILITY_WRITE"
    case .getVersion: return "GET_VERSION"
    case .readSignature: return "READ_SIG"
    case .passwordAuth: return "PWD_AUTH"
    case .readCounter: return "READ_CNT"
    case .incrementCounter: return "INCR_CNT"
    case .checkTearingEvent: return "CHECK_TEARING_EVENT"
    case .vcsl: return "VCSL"
    case .sectorSelect, .sectorSelectSector: return "SECTOR_SELECT"
    case .authenticate, .authenticateContinue: return "AUTHENTICATE"
    case .writeSignature: return "WRITE_SIG"
    case .lockSignature: return "LOCK_SIG"
    case .halt: return "HLTA"
    }
  }

  /// True for the commands a tag answers with a 4-bit ACK on success.
  var answeredByACK: Bool {
    switch self {
    case .write, .fastWrite, .compatibilityWrite, .compatibilityWriteData, .incrementCounter,
      .sectorSelect, .writeSignature, .lockSignature:
      return true
    default: return false
    }
  }

  /// The page the command addresses, if any.
  var page: Int? {
    switch self {
    case .read(let p), .write(let p, _), .compatibilityWrite(let p),
      .compatibilityWriteData(let p, _):
      return p
    case .fastRead(let start, _), .fastWrite(let start, _, _): return start
    default: return nil
    }
  }

  /// True for the commands answered by ACK/NAK alone: WRITE and both COMPATIBILITY_WRITE
  /// parts (a reader chip that consumes the ACK reports them with no data).
  var isWrite: Bool {
    switch self {
    case .write, .fastWrite, .compatibilityWrite, .compatibilityWriteData, .writeSignature,
      .lockSignature:
      return true
    default: return false
    }
  }

  /// Parses a reader frame by its opcode; the error text is the reason to keep it raw.
  static func parse(_ b: [UInt8]) -> Result<Type2Command, Type2ParseFailure> {
    guard let op = b.first else { return .failure(Type2ParseFailure("empty frame")) }
    func need(_ n: Int, _ shape: String) -> Type2ParseFailure? {
      b.count == n
        ? nil : Type2ParseFailure("\(shape) needs \(n) byte\(n == 1 ? "" : "s"), got \(b.count)")
    }
    func arg(_ i: Int) -> Int { i < b.count ? Int(b[i]) : 0 }
    let shape: (Int, String, () -> Type2Command)
    switch op {
    case 0x30: shape = (2, "READ (30 page)", { .read(page: arg(1)) })
    case 0x3A: shape = (3, "FAST_READ (3A start end)", { .fastRead(start: arg(1), end: arg(2)) })
    case 0xA2:
      shape = (
        6, "WRITE (A2 page + 4 bytes)", { .write(page: arg(1), data: Array(b.dropFirst(2))) }
      )
    case 0xA6 where b.count >= 3:
      let pages = Int(b[2]) - Int(b[1]) + 1
      guard pages > 0 else {
        return .failure(Type2ParseFailure("FAST_WRITE end page \(b[2]) before its start \(b[1])"))
      }
      shape = (
        3 + pages * 4, "FAST_WRITE (A6 start end + 4 bytes per page)",
        { .fastWrite(start: arg(1), end: arg(2), data: Array(b.dropFirst(3))) }
      )
    case 0xA0: shape = (2, "COMPATIBILITY_WRITE (A0 page)", { .compatibilityWrite(page: arg(1)) })
    case 0x60: shape = (1, "GET_VERSION (60)", { .getVersion })
    case 0x3C: shape = (2, "READ_SIG (3C addr)", { .readSignature(address: arg(1)) })
    case 0x1B:
      shape = (
        5, "PWD_AUTH (1B + 4-byte password)", { .passwordAuth(password: Array(b.dropFirst())) }
      )
    case 0x39: shape = (2, "READ_CNT (39 counter)", { .readCounter(counter: arg(1)) })
    case 0xA5:
      shape = (
        6, "INCR_CNT (A5 counter + 4 bytes)",
        {
          .incrementCounter(counter: arg(1), increment: arg(2) | arg(3) << 8 | arg(4) << 16)
        }
      )
    case 0x3E:
      shape = (2, "CHECK_TEARING_EVENT (3E counter)", { .checkTearingEvent(counter: arg(1)) })
    case 0xC2 where b.count == 2 && b[1] == 0xFF: shape = (2, "SECTOR_SELECT", { .sectorSelect })
    case 0x1A: shape = (2, "AUTHENTICATE (1A key)", { .authenticate(key: arg(1)) })
    case 0x50 where b.count == 2 && b[1] == 0x00: shape = (2, "HLTA", { .halt })
    case 0xA9:
      shape = (
        6, "WRITE_SIG (A9 addr + 4 bytes)",
        { .writeSignature(address: arg(1), data: Array(b.dropFirst(2))) }
      )
    case 0xAC: shape = (2, "LOCK_SIG (AC arg)", { .lockSignature(argument: arg(1)) })
    case 0x4B: return .success(.vcsl(data: Array(b.dropFirst())))
    default:
      return .failure(Type2ParseFailure("unknown Type 2 command 0x\(Hex.string([op]))"))
    }
    let (n, text, make) = shape
    if let failure = need(n, text) { return .failure(failure) }
    return .success(make())
  }
}

/// Why a reader frame is not a Type 2 command.
struct Type2ParseFailure: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
