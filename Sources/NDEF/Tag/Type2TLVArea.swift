/// One TLV of a Type 2 Tag data area (NFC Forum T2T 1.0 §2.3; facts §5.1).
public struct Type2TLV: Sendable, Equatable {
  /// The length a TLV length field starting at `bytes[index]` holds: one byte `00`–`FE`, or
  /// `FF` and two more bytes, big-endian (so `FF 00 00` is length 0). Nil when the field does
  /// not fit in `bytes`.
  public static func length(in bytes: [UInt8], at index: Int) -> Int? {
    guard index >= 0, index < bytes.count else { return nil }
    if bytes[index] != 0xFF { return Int(bytes[index]) }
    guard index + 2 < bytes.count else { return nil }
    return Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
  }

  /// The part of a length field starting at `bytes[index]` that one written page holds: the
  /// whole length when the field fits, else (`FF` at the page's end, its two bytes continuing
  /// on the next page after a Lock or Memory Control TLV) the value of the bytes present —
  /// the high byte alone, non-zero for the messages of 256 bytes and more that need the
  /// 3-byte form, 0 for its cleared form `FF 00 00` (and for a 255-byte message, whose high
  /// byte is 0: told apart only by the next page). Nil when `index` is outside `bytes`, or
  /// when `FF` is the last byte (no value byte in this page).
  public static func lengthPart(in bytes: [UInt8], at index: Int) -> Int? {
    guard index >= 0, index < bytes.count else { return nil }
    if let whole = length(in: bytes, at: index) { return whole }
    guard index + 1 < bytes.count else { return nil }
    return bytes[(index + 1)...].reduce(0) { $0 << 8 | Int($1) }
  }

  /// TLV type byte.
  public enum Tag: Sendable, Equatable {
    /// 0x00, single padding byte, no length.
    case null
    /// 0x01, position of dynamic lock bits (3-byte value).
    case lockControl
    /// 0x02, position of reserved bytes (3-byte value).
    case memoryControl
    /// 0x03, NDEF message (length 0 = empty).
    case ndef
    /// 0xFD, vendor data.
    case proprietary
    /// 0xFE, last TLV, no length.
    case terminator
    /// Any other value (RFU).
    case unknown(UInt8)

    init(_ t: UInt8) {
      switch t {
      case 0x00: self = .null
      case 0x01: self = .lockControl
      case 0x02: self = .memoryControl
      case 0x03: self = .ndef
      case 0xFD: self = .proprietary
      case 0xFE: self = .terminator
      default: self = .unknown(t)
      }
    }

    /// Name: "NULL", "Lock Control", "Memory Control", "NDEF Message", "Proprietary",
    /// "Terminator", "RFU 0xNN".
    public var name: String {
      switch self {
      case .null: return "NULL"
      case .lockControl: return "Lock Control"
      case .memoryControl: return "Memory Control"
      case .ndef: return "NDEF Message"
      case .proprietary: return "Proprietary"
      case .terminator: return "Terminator"
      case .unknown(let t): return "RFU 0x" + hex2(t)
      }
    }
  }

  /// TLV type.
  public let tag: Tag
  /// Input offset of the T byte.
  public let offset: Int
  /// Size of the L field: 0 (NULL, Terminator), 1, or 3 (`FF hi lo`).
  public let lengthFieldSize: Int
  /// Value length from L.
  public let length: Int
  /// Value bytes, with reserved/lock bytes inside it skipped (may be shorter than `length`
  /// when the area ends first).
  public let value: [UInt8]
  /// Input offset of the first value byte.
  public let valueOffset: Int

  /// True when every value byte the length announces is in the input.
  public var isComplete: Bool { value.count >= length }
  /// Offset in the parsed input just past the value as its length announces it
  /// (`valueOffset + length`), whether or not the input held all of it.
  public var valueEnd: Int { valueOffset + length }
}

/// Bytes declared by a Lock Control or Memory Control TLV (facts §5.2): readers skip them when
/// reading TLVs and NDEF data.
public struct Type2ReservedArea: Sendable, Equatable {
  /// Lock bits (Lock Control) or reserved memory (Memory Control).
  public let isLock: Bool
  /// Byte address in tag memory: PageAddr × 2^BytesPerPage + ByteOffset.
  public let address: Int
  /// Size in bytes: ceil(lock bits / 8) or the reserved size.
  public let size: Int
  /// Lock Control only: number of lock bits (0 in the TLV = 256).
  public let lockBits: Int?
  /// Lock Control only: bytes locked per lock bit (2^n).
  public let bytesLockedPerBit: Int?
  /// Input offset of the declaring TLV.
  public let declaredAt: Int

  /// The tag byte addresses reserved: `address ..< address + size`.
  public var bytes: Range<Int> { address..<(address + max(size, 0)) }

  /// Whether tag byte `address` is one of the reserved bytes.
  public func contains(_ address: Int) -> Bool { bytes.contains(address) }
}

/// A parsed Type 2 Tag TLV area (NFC Forum T2T 1.0 §2.3 / §2.4; facts §5): every TLV with its
/// offset, the areas declared by Lock/Memory Control TLVs (skipped), the first NDEF TLV.
public struct Type2TLVArea: Sendable {
  /// Tag byte address of the first input byte (16 = page 4, the start of the data area).
  public let baseAddress: Int
  /// TLVs in order, up to and including the Terminator.
  public let tlvs: [Type2TLV]
  /// Areas declared by Lock Control / Memory Control TLVs.
  public let reservedAreas: [Type2ReservedArea]
  /// Findings (truncated TLVs, several NDEF TLVs, RFU TLV types), offsets in the input.
  public let findings: [NDEFFinding]

  /// The first NDEF Message TLV (the one readers use).
  public var ndef: Type2TLV? { tlvs.first { $0.tag == .ndef } }
  /// The NDEF message bytes of the first NDEF TLV (empty for `03 00`).
  public var ndefMessage: [UInt8]? { ndef?.value }
  /// Tag byte address of the first NDEF TLV's length field (the byte after its T).
  /// Reserved bytes between T and L are skipped, as the TLV reader skips them.
  public var ndefLengthAddress: Int? { ndefLengthAddresses?.first }
  /// Tag byte addresses of the first NDEF TLV's length field (1 byte, or `FF` and 2 bytes),
  /// reserved bytes skipped.
  public var ndefLengthAddresses: [Int]? {
    ndef.map {
      Self.addresses(
        from: baseAddress + $0.offset + 1, count: $0.lengthFieldSize,
        skipping: reservedAreas)
    }
  }
  /// Tag byte address just past the first NDEF TLV's value, as its length announces it
  /// (reserved and lock bytes inside the value skipped, as readers skip them).
  public var ndefValueEndAddress: Int? {
    guard let ndef else { return nil }
    let start = baseAddress + ndef.valueOffset
    return Self.runs(from: start, count: ndef.length, skipping: reservedAreas).last?.upperBound
      ?? start
  }

  /// The tag byte addresses of `count` value bytes from address `start`, skipping the bytes
  /// of `reserved` areas (NFC Forum T2T 1.0 §2.3: a TLV's value runs around them). `count`
  /// is capped at 64 Ki so a lying length cannot allocate without bound.
  public static func addresses(from start: Int, count: Int, skipping reserved: [Type2ReservedArea])
    -> [Int]
  {
    runs(from: start, count: min(count, 1 << 16), skipping: reserved).flatMap { Array($0) }
  }

  /// The same addresses as contiguous runs, in order: one per gap between reserved areas, so
  /// a long value over many areas costs the number of areas, not of bytes.
  public static func runs(from start: Int, count: Int, skipping reserved: [Type2ReservedArea])
    -> [Range<Int>]
  {
    var out: [Range<Int>] = []
    var a = start
    var left = max(count, 0)
    let areas = reserved.filter { $0.size > 0 && $0.address + $0.size > start }
      .sorted { $0.address < $1.address }
    for r in areas where left > 0 {
      let end = r.address + r.size
      if end <= a { continue }
      if r.address >= a + left { break }
      if r.address > a {
        out.append(a..<r.address)
        left -= r.address - a
      }
      a = end
    }
    if left > 0 { out.append(a..<(a + left)) }
    return out
  }

  /// Parses a data area. `bytes` starts at tag byte address `baseAddress` (16 for page 4,
  /// 0 when a whole memory dump is given — then the first 16 bytes are skipped).
  /// Never throws: damage is reported in `findings` and parsing stops there.
  public init(parsing bytes: [UInt8], baseAddress: Int = 16) {
    self.init(bytes, baseAddress: baseAddress, areaStart: 16, collectsFindings: true)
  }

  /// Parses a TLV area that starts at tag byte address `areaStart` (a Type 5 Tag's, right
  /// after its 4- or 8-byte CC: NFC Forum T5T 1.0, whose TLVs are Type 2's), `bytes`
  /// starting at `baseAddress`; `findings` collected when `findings` is true.
  public init(tlvArea bytes: [UInt8], baseAddress: Int, areaStart: Int, findings: Bool) {
    self.init(bytes, baseAddress: baseAddress, areaStart: areaStart, collectsFindings: findings)
  }

  /// Parses a data area as `init(parsing:baseAddress:)` does, for its layout only (TLVs,
  /// reserved areas): `findings` stays empty. The session analyzer parses the area at every
  /// write and query, where messages built for no one cost more than the walk itself.
  public init(layoutOf bytes: [UInt8], baseAddress: Int = 16) {
    self.init(bytes, baseAddress: baseAddress, areaStart: 16, collectsFindings: false)
  }

  private init(_ bytes: [UInt8], baseAddress: Int, areaStart: Int, collectsFindings: Bool) {
    var reader = TLVReader(bytes: bytes, base: baseAddress)
    reader.sink.isOn = collectsFindings
    if baseAddress < areaStart { reader.position = areaStart - baseAddress }
    self.baseAddress = baseAddress
    var tlvs: [Type2TLV] = []
    // Kept as a flag, not looked up: an area of NULL TLVs is one TLV per byte.
    var sawNDEF = false
    while let tlv = reader.next() {
      tlvs.append(tlv)
      if tlv.tag == .terminator { break }
      if tlv.tag == .ndef { sawNDEF = true }
      // Past the NDEF TLV only NULL, Proprietary, Terminator (and further NDEF) TLVs are
      // defined (misplaced Lock/Memory Control TLVs are read to be reported); other bytes there are an earlier, longer message's leftovers (a rewrite or
      // a torn write left them), which readers never look at (NFC Forum T2T 1.0 §2.3).
      if sawNDEF, let t = reader.peek(),
        ![0x00, 0x01, 0x02, 0x03, 0xFD, 0xFE].contains(t)
      {
        reader.note(
          "ndef-trailing-bytes", .info, reader.position,
          "bytes after the NDEF Message TLV, from tag byte \(baseAddress + reader.position) "
            + "(0x\(hex2(t))), are not TLVs: left over from an earlier message; readers stop "
            + "at the NDEF Message TLV and ignore them")
        break
      }
    }
    let ndefs = tlvs.filter { $0.tag == .ndef }
    if ndefs.count > 1 {
      reader.note(
        "ndef-tlv-multiple", .info, ndefs[1].offset,
        "\(ndefs.count) NDEF TLVs; "
          + "readers use the first one (at tag byte \(baseAddress + ndefs[0].offset)) (NFC Forum T2T 1.0 §2.4)"
      )
    }
    if let first = ndefs.first,
      let late = tlvs.first(where: {
        ($0.tag == .lockControl || $0.tag == .memoryControl) && $0.offset > first.offset
      })
    {
      reader.note(
        "control-tlv-after-ndef", .warning, late.offset,
        "\(late.tag.name) TLV after the NDEF Message TLV: Lock and Memory Control TLVs come "
          + "before any NDEF TLV (NFC Forum T2T 1.0 §2.3), and readers that stop at the message "
          + "never see it")
    }
    if ndefs.isEmpty && !reader.ndefHeaderCut {
      reader.note(
        "ndef-tlv-missing", .warning, bytes.count,
        "no NDEF Message TLV (0x03) in the "
          + "data area (NFC Forum T2T 1.0 §2.3)")
    }
    self.tlvs = tlvs
    self.reservedAreas = reader.areas
    self.findings = reader.sink.findings
  }

  /// True when the walk ended at a Terminator TLV (NFC Forum T2T 1.0 §2.3.4): the TLVs after
  /// it are not looked at, so the area was walked whole whatever bytes follow.
  public var endsAtTerminator: Bool { tlvs.last?.tag == .terminator }
}

/// Walks the TLVs, skipping bytes inside declared lock/reserved areas.
private struct TLVReader {
  /// The most reserved areas honoured (see `declare`).
  static let maximumAreas = 16
  let bytes: [UInt8]
  let base: Int
  var position = 0
  var areas: [Type2ReservedArea] = []
  var tooManyAreas = false
  /// Where findings go: a reference, so `note` reads the reader while it adds one.
  let sink = FindingSink()
  var done = false
  /// An NDEF Message TLV whose length field the data area cut (`tlv-length-past-end` says so;
  /// it is there, only unreadable: no `ndef-tlv-missing`).
  var ndefHeaderCut = false

  init(bytes: [UInt8], base: Int) {
    self.bytes = bytes
    self.base = base
  }

  func note(
    _ code: String, _ sev: NDEFSeverity, _ offset: Int, _ message: @autoclosure () -> String
  ) {
    guard sink.isOn else { return }
    sink.findings.append(
      NDEFFinding(code: code, severity: sev, offset: offset, message: message()))
  }

  /// The next readable byte, without moving past it.
  mutating func peek() -> UInt8? {
    skipReserved()
    return position < bytes.count ? bytes[position] : nil
  }

  /// Moves past reserved bytes; returns the next readable byte and its offset.
  mutating func byte() -> (UInt8, Int)? {
    skipReserved()
    guard position < bytes.count else { return nil }
    defer { position += 1 }
    return (bytes[position], position)
  }

  mutating func skipReserved() {
    var moved = true
    while moved {
      moved = false
      for a in areas {
        let start = a.address - base
        if position >= start && position < start + a.size {
          position = start + a.size
          moved = true
        }
      }
    }
  }

  mutating func next() -> Type2TLV? {
    guard !done, let (t, at) = byte() else { return nil }
    let tag = Type2TLV.Tag(t)
    if tag == .null || tag == .terminator {
      return Type2TLV(
        tag: tag, offset: at, lengthFieldSize: 0, length: 0, value: [], valueOffset: at + 1)
    }
    guard let (l0, _) = byte() else { return truncated(tag, at, "length byte") }
    var length = Int(l0)
    var lengthSize = 1
    if l0 == 0xFF {
      guard let (hi, _) = byte(), let (lo, _) = byte() else {
        return truncated(tag, at, "3-byte length FF hi lo")
      }
      length = Int(hi) << 8 | Int(lo)
      lengthSize = 3
      if length < 0xFF {
        note(
          "tlv-long-length-form", .info, at,
          "\(tag.name) TLV uses the 3-byte length form for "
            + "\(length) bytes; the 1-byte form covers 0–254 (NFC Forum T2T 1.0 §2.3)")
      }
    }
    skipReserved()
    let valueOffset = position
    let value = readValue(length)
    if value.count < length {
      note(
        "tlv-length-past-end", .error, at,
        "\(tag.name) TLV at tag byte \(base + at) claims \(length) "
          + "bytes, only \(value.count) remain (NFC Forum T2T 1.0 §2.3)")
      done = true
    }
    let tlv = Type2TLV(
      tag: tag, offset: at, lengthFieldSize: lengthSize, length: length, value: value,
      valueOffset: valueOffset)
    declare(tlv)
    if case .unknown(let t) = tag {
      note(
        "tlv-rfu", .warning, at,
        "TLV type 0x\(hex2(t)) is RFU; skipped using its length "
          + "(NFC Forum T2T 1.0 §2.3)")
    }
    return tlv
  }

  /// Up to `length` readable bytes from `position`, reserved bytes skipped, copied a run
  /// between reserved areas at a time (a message is hundreds of bytes; areas are few).
  mutating func readValue(_ length: Int) -> [UInt8] {
    var value: [UInt8] = []
    value.reserveCapacity(min(length, bytes.count))
    while value.count < length {
      skipReserved()
      guard position < bytes.count else { break }
      var end = min(bytes.count, position + (length - value.count))
      for a in areas where a.size > 0 {
        let start = a.address - base
        if start > position && start < end { end = start }
      }
      value.append(contentsOf: bytes[position..<end])
      position = end
    }
    return value
  }

  mutating func truncated(_ tag: Type2TLV.Tag, _ at: Int, _ what: String) -> Type2TLV? {
    if tag == .ndef { ndefHeaderCut = true }
    note(
      "tlv-length-past-end", .error, at,
      "\(tag.name) TLV at tag byte \(base + at): data area ends before "
        + "its \(what) (NFC Forum T2T 1.0 §2.3)")
    done = true
    return nil
  }

  /// Lock Control / Memory Control value (facts §5.2).
  mutating func declare(_ tlv: Type2TLV) {
    guard tlv.tag == .lockControl || tlv.tag == .memoryControl else { return }
    guard tlv.value.count == 3 else {
      // A length of 3 cut by the end of the data is `tlv-length-past-end`, not a wrong length.
      if tlv.length != 3 {
        note(
          "tlv-control-length", .error, tlv.offset,
          "\(tlv.tag.name) TLV must have a 3-byte "
            + "value, has \(tlv.length) (NFC Forum T2T 1.0 §2.3.1/§2.3.2)")
      }
      return
    }
    // Real tags declare one or two areas; every byte of the walk checks each area, so a
    // flood of Control TLVs would make the walk quadratic.
    guard areas.count < Self.maximumAreas else {
      if !tooManyAreas {
        tooManyAreas = true
        note(
          "tlv-control-too-many", .warning, tlv.offset,
          "more than \(Self.maximumAreas) Lock/Memory Control TLVs: the ones after the "
            + "\(Self.maximumAreas)th are ignored")
      }
      return
    }
    let v = tlv.value
    let pageAddr = Int(v[0] >> 4)
    let byteOffset = Int(v[0] & 0x0F)
    let bytesPerPage = 1 << Int(v[2] & 0x0F)
    let address = pageAddr * bytesPerPage + byteOffset
    let isLock = tlv.tag == .lockControl
    let count = v[1] == 0 ? 256 : Int(v[1])
    let area = Type2ReservedArea(
      isLock: isLock, address: address, size: isLock ? (count + 7) / 8 : count,
      lockBits: isLock ? count : nil, bytesLockedPerBit: isLock ? 1 << Int(v[2] >> 4) : nil,
      declaredAt: tlv.offset)
    noteOverlapWithRead(area, declaredBy: tlv)
    areas.append(area)
  }

  /// A declared area that covers bytes already walked as TLVs (the Control TLV itself, say)
  /// contradicts the layout: the bytes after it are then skipped where TLVs were expected,
  /// which can hide the NDEF TLV behind a bare `ndef-tlv-missing`.
  mutating func noteOverlapWithRead(_ area: Type2ReservedArea, declaredBy tlv: Type2TLV) {
    let readStart = base + max(0, 16 - base)
    let readEnd = base + position
    let end = area.address + area.size
    guard area.address < readEnd, end > readStart else { return }
    let skipped = min(end, base + bytes.count) - readEnd
    let what = area.isLock ? "lock bytes" : "reserved bytes"
    note(
      "tlv-control-overlaps-tlvs", .warning, tlv.offset,
      "\(tlv.tag.name) TLV at tag byte \(base + tlv.offset) declares \(what) at tag bytes "
        + "\(area.address)–\(end - 1), over TLV bytes already read (tag bytes "
        + "\(max(area.address, readStart))–\(min(end, readEnd) - 1))"
        + (skipped > 0 ? "; readers skip the next \(skipped) bytes, where TLVs follow" : "")
        + " (NFC Forum T2T 1.0 §2.3.1/§2.3.2: lock and reserved bytes lie outside the TLVs)")
  }
}

/// The findings of one TLV walk. Off for a layout-only parse: `note` then builds no message.
private final class FindingSink {
  var isOn = true
  var findings: [NDEFFinding] = []
}
