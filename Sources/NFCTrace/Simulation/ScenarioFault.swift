import Foundation

/// One injected fault (`kind` key).
///
/// | `kind` | keys | effect |
/// |---|---|---|
/// | `remove-after-frame` | `frame` | the tag leaves the field after the frame with this 0-based index |
/// | `remove-after-writes` | `count` | the tag leaves the field right after its `count`-th acknowledged write (Type 2 WRITE ACK, Type 4 UPDATE BINARY 9000) |
/// | `nak-on-page` | `page`, `code` (default 0) | every WRITE to `page` is answered with the 4-bit NAK `code` |
/// | `noise` | `crc_error_rate`, `parity_error_rate` (0…1) | each frame carrying a CRC gets a flipped CRC bit / a parity error with that probability |
/// | `slow-tag` | `wtx` (0–16) | a Type 4 tag sends `wtx` S(WTX) requests before every APDU answer |
/// | `second-tag` | `uid` (hex), `polls` (default 1) | a second NTAG213 answers in the first `polls` polling rounds: collision in anticollision |
/// | `response-longer-than-fsd` | — | a Type 4 tag sends its answers in one block, ignoring the reader's FSD |
/// | `app-appends-crc` | — | `sendMiFareCommand` data already ends with the app's CRC_A; the reader adds its own |
/// | `reactivate-before-write` | — | the reader re-activates the tag (HLTA, WUPA, anticollision) before `writeNDEF` writes: PWD_AUTH state and the selected file are lost |
public enum ScenarioFault: Codable, Sendable, Hashable {
  case removeAfterFrame(frame: Int)
  case removeAfterWrites(count: Int)
  case nakOnPage(page: Int, code: UInt8)
  case noise(crcErrorRate: Double, parityErrorRate: Double)
  case slowTag(wtx: Int)
  case secondTag(uid: [UInt8], polls: Int)
  case responseLongerThanFSD
  case appAppendsCRC
  case reactivateBeforeWrite

  /// The `kind` string.
  public var kind: String {
    switch self {
    case .removeAfterFrame: "remove-after-frame"
    case .removeAfterWrites: "remove-after-writes"
    case .nakOnPage: "nak-on-page"
    case .noise: "noise"
    case .slowTag: "slow-tag"
    case .secondTag: "second-tag"
    case .responseLongerThanFSD: "response-longer-than-fsd"
    case .appAppendsCRC: "app-appends-crc"
    case .reactivateBeforeWrite: "reactivate-before-write"
    }
  }

  private enum CodingKeys: String, CodingKey {
    case kind, frame, count, page, code, wtx, uid, polls
    case crcErrorRate = "crc_error_rate"
    case parityErrorRate = "parity_error_rate"
  }

  /// A count or frame index: 0 or more.
  private static func natural(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws
    -> Int
  {
    let v = try c.decode(Int.self, forKey: key)
    guard v >= 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: c, debugDescription: "\(key.rawValue) is 0 or more, got \(v)")
    }
    return v
  }

  /// A rate: 0…1 (0 when absent).
  private static func probability(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys)
    throws -> Double
  {
    let v = try c.decodeIfPresent(Double.self, forKey: key) ?? 0
    guard (0...1).contains(v) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: c, debugDescription: "\(key.rawValue) is a probability 0…1, got \(v)")
    }
    return v
  }

  /// Decodes `{"kind": …}` with its keys.
  /// - Throws: `DecodingError` for an unknown kind or a missing/invalid key.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let kind = try c.decode(String.self, forKey: .kind)
    switch kind {
    case "remove-after-frame":
      self = .removeAfterFrame(frame: try Self.natural(c, .frame))
    case "remove-after-writes":
      self = .removeAfterWrites(count: try Self.natural(c, .count))
    case "nak-on-page":
      let code = try c.decodeIfPresent(Int.self, forKey: .code) ?? 0
      guard (0...0x0F).contains(code) else {
        throw DecodingError.dataCorruptedError(
          forKey: .code, in: c, debugDescription: "a 4-bit NAK code is 0…15, got \(code)")
      }
      // A Type 2 page address is one byte (NFC Forum T2T 1.0 §5.2: READ/WRITE's argument).
      let page = try Self.natural(c, .page)
      guard page <= 0xFF else {
        throw DecodingError.dataCorruptedError(
          forKey: .page, in: c, debugDescription: "a Type 2 page is 0…255, got \(page)")
      }
      self = .nakOnPage(page: page, code: UInt8(code))
    case "noise":
      self = .noise(
        crcErrorRate: try Self.probability(c, .crcErrorRate),
        parityErrorRate: try Self.probability(c, .parityErrorRate))
    case "slow-tag":
      // As `tag.wtx`: each S(WTX) is a frame pair, so the count must stay bounded.
      let wtx = try Self.natural(c, .wtx)
      guard wtx <= 16 else {
        throw DecodingError.dataCorruptedError(
          forKey: .wtx, in: c, debugDescription: "wtx is 0…16 S(WTX) per answer, got \(wtx)")
      }
      self = .slowTag(wtx: wtx)
    case "second-tag":
      let uid = try c.decode(HexBytes.self, forKey: .uid).bytes
      guard uid.count == 7 else {
        throw DecodingError.dataCorruptedError(
          forKey: .uid, in: c,
          debugDescription: "the second tag is an NTAG213, whose UID has 7 bytes, got \(uid.count)")
      }
      let polls = c.contains(.polls) ? try Self.natural(c, .polls) : 1
      self = .secondTag(uid: uid, polls: polls)
    case "response-longer-than-fsd": self = .responseLongerThanFSD
    case "app-appends-crc": self = .appAppendsCRC
    case "reactivate-before-write": self = .reactivateBeforeWrite
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: c,
        debugDescription: "unknown fault kind \"\(kind)\"; expected remove-after-frame, "
          + "remove-after-writes, nak-on-page, noise, slow-tag, second-tag, "
          + "response-longer-than-fsd, app-appends-crc or reactivate-before-write")
    }
  }

  /// Encodes `{"kind": …}` with its keys.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(kind, forKey: .kind)
    switch self {
    case .removeAfterFrame(let n): try c.encode(n, forKey: .frame)
    case .removeAfterWrites(let n): try c.encode(n, forKey: .count)
    case .nakOnPage(let page, let code):
      try c.encode(page, forKey: .page)
      try c.encode(code, forKey: .code)
    case .noise(let crc, let parity):
      try c.encode(crc, forKey: .crcErrorRate)
      try c.encode(parity, forKey: .parityErrorRate)
    case .slowTag(let wtx): try c.encode(wtx, forKey: .wtx)
    case .secondTag(let uid, let polls):
      try c.encode(HexBytes(uid), forKey: .uid)
      try c.encode(polls, forKey: .polls)
    case .responseLongerThanFSD, .appAppendsCRC, .reactivateBeforeWrite: break
    }
  }
}
