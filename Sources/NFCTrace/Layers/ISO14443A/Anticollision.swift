/// Cascade levels of type A anticollision: SEL `93` (CL1), `95` (CL2), `97` (CL3).
///
/// A 4-byte UID needs CL1; a 7-byte UID CL1–CL2; a 10-byte UID CL1–CL3. On every level but
/// the last the UID part starts with the cascade tag `88`. ISO/IEC 14443-3 §6.5.3;
/// nfc-facts §1.2.
public enum CascadeLevel: Int, Sendable, Comparable {
  case cl1 = 1
  case cl2, cl3

  /// The level of a SEL byte, nil for other bytes.
  public init?(sel: UInt8) {
    switch sel {
    case 0x93: self = .cl1
    case 0x95: self = .cl2
    case 0x97: self = .cl3
    default: return nil
    }
  }

  /// The SEL byte (`93`, `95`, `97`).
  public var sel: UInt8 { UInt8(0x91 + 2 * rawValue) }
  /// `CL1`.
  public var name: String { "CL\(rawValue)" }

  /// Orders levels CL1 < CL2 < CL3.
  public static func < (a: CascadeLevel, b: CascadeLevel) -> Bool { a.rawValue < b.rawValue }
}

/// NVB, the "number of valid bits" byte after SEL.
///
/// High nibble: whole bytes sent counting SEL and NVB (2…7); low nibble: valid bits of the
/// last, partial byte (0…7). `20` asks for the full UID part, `70` is SELECT.
/// ISO/IEC 14443-3 §6.5.3.2; nfc-facts §1.2.
public struct NVB: Sendable, Equatable {
  /// The byte.
  public var value: UInt8

  /// Reads an NVB; nil when the nibbles are out of range (bytes 2…7, bits 0…7).
  public init?(_ value: UInt8) {
    let bytes = Int(value >> 4)
    let bits = Int(value & 0x0F)
    guard (2...7).contains(bytes), bits <= 7, bytes < 7 || bits == 0 else { return nil }
    self.value = value
  }

  /// Whole bytes sent, counting SEL and NVB.
  public var byteCount: Int { Int(value >> 4) }
  /// Valid bits in the last, partial byte.
  public var bitCount: Int { Int(value & 0x0F) }
  /// True for `70`: all 40 bits (4 UID bytes + BCC) are sent, i.e. SELECT.
  public var isSelect: Bool { value == 0x70 }
  /// UID/BCC bits the reader sends after SEL and NVB (0…40).
  public var knownBits: Int { (byteCount - 2) * 8 + bitCount }
  /// Bytes the reader frame holds after SEL and NVB, counting a partial byte.
  public var knownByteCount: Int { byteCount - 2 + (bitCount > 0 ? 1 : 0) }
}

/// BCC, the XOR of the four UID-part bytes before it. ISO/IEC 14443-3 §6.5.3.3.
public enum BCC {
  /// XOR of `bytes` (the 4 UID/CT bytes of one cascade level).
  public static func compute<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
    bytes.reduce(0, ^)
  }
}

/// One cascade level's 4 UID bytes (or `88` + 3 UID bytes) and the BCC that followed them.
public struct UIDPart: Sendable, Equatable {
  /// The four bytes, cascade tag included.
  public var bytes: [UInt8]
  /// The BCC as received.
  public var bcc: UInt8

  /// Reads `uid0 uid1 uid2 uid3 bcc` from the start of `data`; nil when shorter than 5.
  public init?(_ data: ArraySlice<UInt8>) {
    guard data.count >= 5 else { return nil }
    let start = data.startIndex
    bytes = Array(data[start..<(start + 4)])
    bcc = data[start + 4]
  }

  /// The BCC the four bytes call for.
  public var expectedBCC: UInt8 { BCC.compute(bytes) }
  /// True when the received BCC matches.
  public var bccOK: Bool { bcc == expectedBCC }
  /// True when the part starts with the cascade tag `88`.
  public var hasCascadeTag: Bool { bytes.first == 0x88 }

  /// `(BCC ok)` or `(BCC bad: expected 3c)`.
  var bccNote: String {
    bccOK ? "(BCC ok)" : "(BCC bad: expected \(Hex.string([expectedBCC])))"
  }

  /// Fields shared by the UID answer and SELECT decodes.
  func fields(level: CascadeLevel) -> [LayerField] {
    [
      LayerField("level", .string(level.name)),
      LayerField("uid_part", .hex(bytes)),
      LayerField("bcc", .hex([bcc])),
      LayerField("bcc_ok", .bool(bccOK)),
      LayerField("cascade_tag", .bool(hasCascadeTag)),
    ]
  }

  /// `bad-bcc` (error) when the BCC does not match.
  func bccFindings(frameIndex: Int, offset: Int) -> [Finding] {
    guard !bccOK else { return [] }
    let message =
      "BCC mismatch: expected \(Hex.string([expectedBCC])), got \(Hex.string([bcc]))"
      + " (XOR of \(Hex.string(bytes, separator: " ")))"
    return [Finding("bad-bcc", .error, message, frames: [frameIndex], offset: offset)]
  }
}

/// Decoding of ANTICOLLISION / SELECT commands and the tag's UID answers.
/// ISO/IEC 14443-3 §6.5.3; nfc-facts §1.2.
enum Anticollision {
  /// `ANTICOLL CL1`, or with a bit-frame `ANTICOLL CL1 (21 bits known)`.
  static func requestDecode(level: CascadeLevel, nvb: NVB, data: [UInt8]) -> LayerDecode {
    var summary = "ANTICOLL \(level.name)"
    if nvb.knownBits > 0 { summary += " (\(nvb.knownBits) bits known)" }
    var fields: [LayerField] = [
      LayerField("level", .string(level.name)),
      LayerField("nvb", .hex([nvb.value])),
      LayerField("nvb_bytes", .int(nvb.byteCount)),
      LayerField("nvb_bits", .int(nvb.bitCount)),
    ]
    if data.count > 2 {
      fields.append(LayerField("known_uid_bits", .hex(Array(data.dropFirst(2)))))
    }
    return LayerDecode(.iso14443A, "ANTICOLLISION", summary, fields)
  }

  /// Completes a tag's anticollision answer with the bits the reader already sent.
  ///
  /// The tag sends the remaining 40 − known bits; the first answer byte carries the upper bits
  /// of the split byte (its low `bitCount` bits belong to the reader). A 5-byte answer to a
  /// request that already sent whole bytes is taken as a full UID part.
  static func merge(known: [UInt8], nvb: NVB, answer: [UInt8]) -> [UInt8] {
    let whole = nvb.byteCount - 2
    if nvb.knownBits == 0 || (answer.count == 5 && answer.count != 5 - whole) { return answer }
    var out = Array(known.prefix(whole))
    var rest = answer[...]
    if nvb.bitCount > 0, let first = rest.first, known.count > whole {
      let mask = UInt8((1 << nvb.bitCount) - 1)
      out.append((known[whole] & mask) | (first & ~mask))
      rest = rest.dropFirst()
    }
    out += rest
    return out
  }

  /// `UID CL1 88 04 66 d6 (BCC ok)`.
  static func answerDecode(level: CascadeLevel, part: UIDPart) -> LayerDecode {
    let summary = "UID \(level.name) \(Hex.string(part.bytes, separator: " ")) \(part.bccNote)"
    return LayerDecode(.iso14443A, "UID", summary, part.fields(level: level))
  }

  /// `SELECT CL2 5f 00 50 9c`.
  static func selectDecode(level: CascadeLevel, part: UIDPart) -> LayerDecode {
    var summary = "SELECT \(level.name) \(Hex.string(part.bytes, separator: " "))"
    if !part.bccOK { summary += " " + part.bccNote }
    // A SELECT carries NVB 70: 7 whole bytes, SEL to BCC (ISO/IEC 14443-3, NVB coding).
    var fields = part.fields(level: level)
    fields.insert(
      contentsOf: [
        LayerField("nvb", .hex([0x70])), LayerField("nvb_bytes", .int(7)),
        LayerField("nvb_bits", .int(0)),
      ], at: 1)
    return LayerDecode(.iso14443A, "SELECT", summary, fields)
  }

  /// The UID assembled from the selected parts: the cascade tag is dropped from every level
  /// whose SAK had the cascade bit (all parts when `complete` is false, all but the last when
  /// it is true).
  static func assemble(_ parts: [UIDPart], complete: Bool) -> [UInt8] {
    var uid: [UInt8] = []
    for (i, part) in parts.enumerated() {
      let isFinal = complete && i == parts.count - 1
      uid += (!isFinal && part.hasCascadeTag) ? Array(part.bytes.dropFirst()) : part.bytes
    }
    return uid
  }
}
