import Foundation

/// How one NFC-Laboratory frame object (a `frame.json` element or one `-j` line) becomes a
/// `Frame`. Both spellings are accepted: camelCase in `frame.json` (`frameType`, `techType`,
/// `frameFlags` bitmask, `frameData`, `timeStart`) and snake_case in the `-j` stream
/// (`frame_type`, `tech_type`, `flags` string array, `data`, `time_start`).
///
/// Constants from nfc-laboratory `README.md` (TRZ format) and `lab/data/RawFrame.h`:
/// frame types 0x0100 carrier off, 0x0101 carrier on, 0x0102 poll (reader), 0x0103 listen
/// (tag); techs 0x0101…0x0104 NFC-A/B/F/V; flags 0x01 short frame, 0x02 encrypted,
/// 0x08 truncated, 0x10 parity error, 0x20 CRC error, 0x40 sync error. 1.x exports: `Legacy`.
enum NFCLabRecord {
  enum FrameType: Int {
    case carrierOff = 0x0100
    case carrierOn = 0x0101
    case poll = 0x0102
    case listen = 0x0103
  }

  /// Frame flag bits of `frameFlags` (RawFrame.h `FrameFlags`).
  enum Flag {
    static let shortFrame = 0x01
    static let encrypted = 0x02
    static let truncated = 0x08
    static let parityError = 0x10
    static let crcError = 0x20
    static let syncError = 0x40
  }

  /// The fields of one record, read but not yet turned into a frame.
  struct Fields {
    var frameType: Int
    var tech: Technology
    var data: [UInt8]
    var startNs: Int64
    var durationNs: Int64?
    var flags: [String]
    var shortFrame: Bool
    /// A `techType` code the record gave that names no known technology (`tech` is then
    /// `.unknown` and the decoder infers it from the bytes).
    var unknownTechCode: Int? = nil
    /// Why `frameFlags` was not read (a string, a fraction, a negative number): the frame's
    /// flags are then unknown, which the importer warns of.
    var flagsProblem: String? = nil
  }

  /// NFC-Laboratory 1.x (`frameCmd` or `frameType` 2 poll, 3 listen; `techType` 1 NFC-A or
  /// none; flags 0x01 short frame, 0x08 encrypted, 0x20 parity error, 0x40 CRC error, 0x80
  /// truncated — its `Nfc.h` and `FrameStorageTask.cpp`).
  enum Legacy {
    static let poll = 2
    static let listen = 3
    static let flags: [(Int, String)] = [
      (0x08, "encrypted"), (0x20, "parity-error"), (0x40, "crc-error"), (0x80, "truncated"),
    ]
  }

  /// Reads a record's fields, or returns the reason it cannot.
  static func fields(_ object: [String: Any]) -> Result<Fields, RecordFailure> {
    guard var frameType = frameType(object) else {
      return .failure(
        .init("expected a numeric frameType (0x0100…0x0103, or 2/3 in 1.x exports) or a type name"))
    }
    // A 1.x export: poll/listen as 2/3, its own flag bits, NFC-A unless it says otherwise.
    let legacy = frameType == Legacy.poll || frameType == Legacy.listen
    if legacy {
      frameType = frameType == Legacy.poll ? FrameType.poll.rawValue : FrameType.listen.rawValue
    }
    guard
      let start = seconds(
        object, "timeStart", "time_start", "dateTime", "date_time", "timestamp")
    else {
      return .failure(.init("expected timeStart (time_start, timestamp), a time in seconds"))
    }
    guard let startNs = nanoseconds(start) else {
      return .failure(.init("timeStart \(start) is not a finite time in seconds"))
    }
    let hex = object["frameData"] ?? object["data"]
    var data: [UInt8] = []
    if let text = hex as? String {
      guard let parsed = Hex.bytes(text) else {
        return .failure(.init("frameData is not hex bytes: \"\(text.prefix(40))\""))
      }
      data = parsed
    } else if hex != nil {
      return .failure(.init("frameData is not a string of hex bytes"))
    } else if frameType == FrameType.poll.rawValue || frameType == FrameType.listen.rawValue {
      return .failure(.init("poll/listen frame without frameData (hex bytes expected)"))
    }
    var durationNs: Int64?
    if let end = seconds(object, "timeEnd", "time_end"), let endNs = nanoseconds(end),
      endNs >= startNs
    {
      // Both ends lie within ±9.2e18 ns, so the difference can exceed Int64: no duration then.
      let (d, overflow) = endNs.subtractingReportingOverflow(startNs)
      durationNs = overflow ? nil : d
    }
    var (flags, short) = flagNames(object, legacy: legacy)
    let tech = legacy ? legacyTechnology(object) : technology(object)
    // The -j stream has no short-frame flag: a one-byte NFC-A poll frame can only be a
    // 7-bit short frame (REQA/WUPA or a proprietary wake-up, ISO/IEC 14443-3 §6.2.3.1).
    let inferred =
      !short && object["frameFlags"] == nil && tech == .nfcA
      && frameType == FrameType.poll.rawValue && data.count == 1
    if inferred {
      short = true
      flags.append("short-frame-inferred")
    }
    // 0x0100 (and 0 in 1.x) is NFC-Laboratory's "no technology", as on carrier events.
    let code = integer(object["techType"] ?? object["tech_type"]).flatMap {
      $0 == 0x0100 || $0 == 0 ? nil : $0
    }
    return .success(
      Fields(
        frameType: frameType, tech: tech, data: data, startNs: startNs, durationNs: durationNs,
        flags: flags, shortFrame: short, unknownTechCode: tech == .unknown ? code : nil,
        flagsProblem: flagsProblem(object)))
  }

  /// Why a record could not be read.
  struct RecordFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  private static func frameType(_ object: [String: Any]) -> Int? {
    if let n = integer(object["frameType"] ?? object["frame_type"] ?? object["frameCmd"]) {
      return n
    }
    switch object["type"] as? String {
    case "CarrierOff": return FrameType.carrierOff.rawValue
    case "CarrierOn": return FrameType.carrierOn.rawValue
    case "Poll": return FrameType.poll.rawValue
    case "Listen": return FrameType.listen.rawValue
    default: return nil
    }
  }

  private static func technology(_ object: [String: Any]) -> Technology {
    let code = integer(object["techType"] ?? object["tech_type"])
    switch code {
    case 0x0101: return .nfcA
    case 0x0102: return .nfcB
    case 0x0103: return .nfcF
    case 0x0104: return .nfcV
    case .some: return .unknown
    case nil:
      switch object["tech"] as? String {
      case "NfcA": return .nfcA
      case "NfcB": return .nfcB
      case "NfcF": return .nfcF
      case "NfcV": return .nfcV
      default: return .unknown
      }
    }
  }

  /// 1.x `techType`: 1 NFC-A (also when absent: 1.x decoded NFC-A only), 2 NFC-B.
  private static func legacyTechnology(_ object: [String: Any]) -> Technology {
    switch integer(object["techType"]) {
    case nil, 1: return .nfcA
    case 2: return .nfcB
    default: return .unknown
    }
  }

  /// Source flags and whether the short-frame bit is set, from either spelling.
  /// `frameFlags` present but not a bit mask (a non-negative integer below 2^31).
  private static func flagsProblem(_ object: [String: Any]) -> String? {
    guard let value = object["frameFlags"] ?? object["frame_flags"] else { return nil }
    if mask(value) != nil { return nil }
    let shown = value is NSNull ? "null" : value is String ? "\"\(value)\"" : "\(value)"
    return "frameFlags \(shown.prefix(40)) is not a bit mask (an integer 0 or more): the frame's "
      + "flags (short frame, encrypted, CRC or parity error) are not known"
  }

  private static func mask(_ value: Any?) -> Int? {
    guard let n = integer(value), n >= 0, n < 1 << 31 else { return nil }
    return n
  }

  private static func flagNames(_ object: [String: Any], legacy: Bool) -> ([String], Bool) {
    var names: [String] = []
    if legacy, let mask = mask(object["frameFlags"]) {
      names = Legacy.flags.filter { mask & $0.0 != 0 }.map(\.1)
      return (names, mask & Flag.shortFrame != 0)
    }
    if let mask = mask(object["frameFlags"] ?? object["frame_flags"]) {
      if mask & Flag.encrypted != 0 { names.append("encrypted") }
      if mask & Flag.truncated != 0 { names.append("truncated") }
      if mask & Flag.parityError != 0 { names.append("parity-error") }
      if mask & Flag.crcError != 0 { names.append("crc-error") }
      if mask & Flag.syncError != 0 { names.append("sync-error") }
      return (names, mask & Flag.shortFrame != 0)
    }
    var short = false
    for case let name as String in (object["flags"] as? [Any]) ?? [] {
      switch name {
      case "request", "response": continue  // direction, already in the frame type
      case "short-frame", "short": short = true
      default: names.append(name)
      }
    }
    return (names, short)
  }

  private static func integer(_ value: Any?) -> Int? {
    guard let number = value as? NSNumber else { return nil }
    let d = number.doubleValue
    guard d.isFinite, d == d.rounded(), abs(d) < 1e15 else { return nil }
    return Int(d)
  }

  private static func seconds(_ object: [String: Any], _ keys: String...) -> Double? {
    for key in keys {
      // JSON true/false come as NSNumber too (Objective-C type `c`): not a time.
      if let number = object[key] as? NSNumber, number.objCType.pointee != 0x63 {
        return number.doubleValue
      }
    }
    return nil
  }

  /// Seconds → whole nanoseconds, nil when not finite or beyond ±292 years.
  private static func nanoseconds(_ seconds: Double) -> Int64? {
    let ns = (seconds * 1e9).rounded()
    guard ns.isFinite, abs(ns) < 9.2e18 else { return nil }
    return Int64(ns)
  }
}
