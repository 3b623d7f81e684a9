/// Type Name Format, the 3 low bits of the record header (NFC Forum NDEF 1.0 §3.2.6).
public enum NDEFTNF: UInt8, Sendable, CaseIterable, CustomStringConvertible {
  /// 0: no type, id or payload.
  case empty = 0
  /// 1: NFC Forum well-known type (`urn:nfc:wkt:`), NFC Forum RTD 1.0.
  case wellKnown = 1
  /// 2: media type (RFC 2046).
  case media = 2
  /// 3: absolute URI (RFC 3986) in the TYPE field.
  case absoluteURI = 3
  /// 4: NFC Forum external type (`urn:nfc:ext:`), NFC Forum RTD 1.0.
  case external = 4
  /// 5: unknown payload type; TYPE_LENGTH must be 0.
  case unknown = 5
  /// 6: unchanged, only in middle and terminating chunks (NDEF 1.0 §2.3.3).
  case unchanged = 6
  /// 7: reserved.
  case reserved = 7

  /// Name as printed by the renderers: "Empty", "Well-known", "Media", "Absolute URI",
  /// "External", "Unknown", "Unchanged", "Reserved".
  public var name: String {
    switch self {
    case .empty: return "Empty"
    case .wellKnown: return "Well-known"
    case .media: return "Media"
    case .absoluteURI: return "Absolute URI"
    case .external: return "External"
    case .unknown: return "Unknown"
    case .unchanged: return "Unchanged"
    case .reserved: return "Reserved"
    }
  }

  /// The Core NFC `NFCTypeNameFormat` case name (facts §8.1), e.g. `nfcWellKnown`.
  public var coreNFCName: String {
    switch self {
    case .empty: return "empty"
    case .wellKnown: return "nfcWellKnown"
    case .media: return "media"
    case .absoluteURI: return "absoluteURI"
    case .external: return "nfcExternal"
    case .unknown: return "unknown"
    case .unchanged: return "unchanged"
    case .reserved: return "(none: reserved)"
    }
  }

  public var description: String { "\(rawValue) (\(name))" }
}

/// Header flag masks (NFC Forum NDEF 1.0 §3.2.1–§3.2.5; facts §7.1).
public enum NDEFFlag {
  /// MB, message begin (b8).
  public static let mb: UInt8 = 0x80
  /// ME, message end (b7).
  public static let me: UInt8 = 0x40
  /// CF, chunk flag (b6).
  public static let cf: UInt8 = 0x20
  /// SR, short record: 1-byte PAYLOAD_LENGTH (b5).
  public static let sr: UInt8 = 0x10
  /// IL, ID_LENGTH present (b4).
  public static let il: UInt8 = 0x08
}

/// One record exactly as laid out on the wire: an unchunked record or one chunk
/// (NFC Forum NDEF 1.0 §3.2: header, TYPE_LENGTH, PAYLOAD_LENGTH (1 or 4 bytes),
/// [ID_LENGTH], TYPE, [ID], PAYLOAD).
public struct NDEFRawRecord: Sendable, Equatable {
  /// The header byte: MB ME CF SR IL flags and TNF.
  public var header: UInt8
  /// TYPE field bytes.
  public var type: [UInt8]
  /// ID field bytes (empty when IL is clear).
  public var id: [UInt8]
  /// PAYLOAD field bytes.
  public var payload: [UInt8]
  /// Offset of the header byte in the parsed input (0 for records built in code).
  public var offset: Int
  /// Offset of the first PAYLOAD byte in the parsed input.
  public var payloadOffset: Int

  /// Creates a wire record. Offsets default to 0 for records built in code.
  public init(
    header: UInt8, type: [UInt8], id: [UInt8], payload: [UInt8], offset: Int = 0,
    payloadOffset: Int = 0
  ) {
    self.header = header
    self.type = type
    self.id = id
    self.payload = payload
    self.offset = offset
    self.payloadOffset = payloadOffset
  }

  /// TNF value 0–7 (header & 0x07).
  public var tnfValue: UInt8 { header & 0x07 }
  /// TNF as an enum (all 8 values are representable).
  public var tnf: NDEFTNF { NDEFTNF(rawValue: tnfValue) ?? .reserved }
  /// MB flag.
  public var mb: Bool { header & NDEFFlag.mb != 0 }
  /// ME flag.
  public var me: Bool { header & NDEFFlag.me != 0 }
  /// CF flag.
  public var cf: Bool { header & NDEFFlag.cf != 0 }
  /// SR flag.
  public var sr: Bool { header & NDEFFlag.sr != 0 }
  /// IL flag.
  public var il: Bool { header & NDEFFlag.il != 0 }

  /// Size on the wire in bytes, for the flags the record would be written with.
  public var encodedLength: Int {
    let shortLength = sr && payload.count < 256
    return 2 + (shortLength ? 1 : 4) + (il || !id.isEmpty ? 1 : 0) + type.count + id.count
      + payload.count
  }

  /// Appends the record with the given MB/ME/CF flags; SR and IL are kept from `header`
  /// unless the payload or id no longer fits them (SR cleared for payloads ≥ 256 bytes,
  /// IL set when an id is present).
  public func append(to out: inout [UInt8], mb: Bool, me: Bool, cf: Bool) {
    let shortLength = sr && payload.count < 256
    let idPresent = il || !id.isEmpty
    var h = header & 0x07
    if mb { h |= NDEFFlag.mb }
    if me { h |= NDEFFlag.me }
    if cf { h |= NDEFFlag.cf }
    if shortLength { h |= NDEFFlag.sr }
    if idPresent { h |= NDEFFlag.il }
    out.append(h)
    out.append(UInt8(truncatingIfNeeded: type.count))
    if shortLength {
      out.append(UInt8(payload.count))
    } else {
      let n = UInt32(truncatingIfNeeded: payload.count)
      out.append(contentsOf: [
        UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF),
      ])
    }
    if idPresent { out.append(UInt8(truncatingIfNeeded: id.count)) }
    out.append(contentsOf: type)
    out.append(contentsOf: id)
    out.append(contentsOf: payload)
  }
}

/// One logical NDEF record: an unchunked record, or a chunked record reassembled from its
/// initial, middle and terminating chunks (NFC Forum NDEF 1.0 §2.3.3). The chunk layout is
/// kept in `chunks`, so serializing gives back the same bytes.
public struct NDEFRecord: Sendable, Equatable {
  /// TNF of the record (of the initial chunk when chunked).
  public let tnf: NDEFTNF
  /// TYPE field (of the initial chunk).
  public let type: [UInt8]
  /// ID field (of the initial chunk).
  public let id: [UInt8]
  /// The payload; for chunked records the concatenation of all chunk payloads.
  public let payload: [UInt8]
  /// Wire records: one for an unchunked record, two or more for a chunked one.
  public let chunks: [NDEFRawRecord]

  /// Builds an unchunked record. `shortRecord` nil = SR when the payload is < 256 bytes;
  /// `false` forces the 4-byte PAYLOAD_LENGTH; `idLengthPresent` forces IL with an empty id.
  public init(
    tnf: NDEFTNF, type: [UInt8], id: [UInt8] = [], payload: [UInt8],
    shortRecord: Bool? = nil, idLengthPresent: Bool = false
  ) {
    let sr = (shortRecord ?? true) && payload.count < 256
    var header = tnf.rawValue
    if sr { header |= NDEFFlag.sr }
    if idLengthPresent || !id.isEmpty { header |= NDEFFlag.il }
    self.init(chunks: [NDEFRawRecord(header: header, type: type, id: id, payload: payload)])
  }

  /// Builds a chunked record: the initial chunk carries TNF, TYPE and ID; middle and
  /// terminating chunks are TNF 6 (Unchanged) with no type and no IL (NDEF 1.0 §2.3.3).
  /// `chunkPayloads` must hold at least one element; `shortRecords[i]` picks SR per chunk.
  public init(
    tnf: NDEFTNF, type: [UInt8], id: [UInt8] = [], chunkPayloads: [[UInt8]],
    shortRecords: [Bool]? = nil
  ) {
    var raws: [NDEFRawRecord] = []
    for (i, part) in chunkPayloads.enumerated() {
      let srWanted = shortRecords.flatMap { i < $0.count ? $0[i] : nil } ?? true
      var header: UInt8 = i == 0 ? tnf.rawValue : NDEFTNF.unchanged.rawValue
      if srWanted && part.count < 256 { header |= NDEFFlag.sr }
      if i == 0 && !id.isEmpty { header |= NDEFFlag.il }
      if i < chunkPayloads.count - 1 { header |= NDEFFlag.cf }
      raws.append(
        NDEFRawRecord(header: header, type: i == 0 ? type : [], id: i == 0 ? id : [], payload: part)
      )
    }
    if raws.isEmpty {
      raws = [NDEFRawRecord(header: tnf.rawValue | NDEFFlag.sr, type: type, id: id, payload: [])]
    }
    self.init(chunks: raws)
  }

  /// Reassembles a logical record from wire records (first = initial chunk).
  public init(chunks: [NDEFRawRecord]) {
    let first = chunks.first ?? NDEFRawRecord(header: NDEFFlag.sr, type: [], id: [], payload: [])
    self.tnf = first.tnf
    self.type = first.type
    self.id = first.id
    self.chunks = chunks.isEmpty ? [first] : chunks
    if chunks.count <= 1 {
      self.payload = first.payload
    } else {
      var joined: [UInt8] = []
      joined.reserveCapacity(chunks.reduce(0) { $0 + $1.payload.count })
      for c in chunks { joined.append(contentsOf: c.payload) }
      self.payload = joined
    }
  }

  /// True when the record was (or will be) written as two or more chunks.
  public var isChunked: Bool { chunks.count > 1 }
  /// Offset of the (first) header byte in the parsed input.
  public var offset: Int { chunks.first?.offset ?? 0 }
  /// Offset of the first payload byte in the parsed input.
  public var payloadOffset: Int { chunks.first?.payloadOffset ?? 0 }
  /// TYPE as text (ASCII per NFC Forum RTD 1.0 / RFC 2046), nil when not printable ASCII.
  public var typeText: String? { NDEFText.printableASCII(type) }
  /// ID as text, nil when not printable ASCII.
  public var idText: String? { NDEFText.printableASCII(id) }
}

extension NDEFRecord {
  /// Well-known Text record (NFC Forum RTD-Text 1.0 §3.2.1): status byte (UTF-16 bit, language
  /// length), IANA language code, text. UTF-16 text is written big-endian with a BOM when
  /// `utf16` is true.
  public static func text(
    _ text: String, language: String = "en", utf16: Bool = false, id: [UInt8] = []
  )
    -> NDEFRecord
  {
    let lang = Array(language.utf8.prefix(63))
    var payload: [UInt8] = [UInt8(lang.count) | (utf16 ? 0x80 : 0)]
    payload += lang
    if utf16 {
      payload += [0xFE, 0xFF]
      for unit in text.utf16 { payload += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
    } else {
      payload += Array(text.utf8)
    }
    return NDEFRecord(tnf: .wellKnown, type: Array("T".utf8), id: id, payload: payload)
  }

  /// Well-known URI record (NFC Forum RTD-URI 1.0 §3.2): identifier code + rest (UTF-8).
  /// `abbreviate` picks the longest matching prefix of the code table (facts §7.4).
  public static func uri(_ uri: String, abbreviate: Bool = true, id: [UInt8] = []) -> NDEFRecord {
    let (code, rest) = abbreviate ? NDEFURI.abbreviate(uri) : (0, uri)
    return NDEFRecord(
      tnf: .wellKnown, type: Array("U".utf8), id: id, payload: [code] + Array(rest.utf8))
  }

  /// Media-type record (TNF 2, RFC 2046 type such as `text/vcard`).
  public static func mime(_ type: String, payload: [UInt8], id: [UInt8] = []) -> NDEFRecord {
    NDEFRecord(tnf: .media, type: Array(type.utf8), id: id, payload: payload)
  }

  /// External-type record (TNF 4, `domain:type`), e.g. `android.com:pkg` (facts §7.8).
  public static func external(_ type: String, payload: [UInt8], id: [UInt8] = []) -> NDEFRecord {
    NDEFRecord(tnf: .external, type: Array(type.utf8), id: id, payload: payload)
  }

  /// Smart Poster (NFC Forum Smart Poster RTD 1.0): `Sp` whose payload is `message`.
  public static func smartPoster(_ message: NDEFMessage, id: [UInt8] = []) -> NDEFRecord {
    NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), id: id, payload: message.bytes)
  }

  /// Empty record (TNF 0, all lengths 0).
  public static var empty: NDEFRecord { NDEFRecord(tnf: .empty, type: [], payload: []) }
}
