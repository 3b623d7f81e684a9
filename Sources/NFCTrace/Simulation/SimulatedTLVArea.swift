/// The TLV area of a Type 2 tag as the simulated reader sees it (kept independent of the
/// analyzer's NDEF.Type2TLVArea on purpose: the simulator is the ground truth it is tested
/// against): finding the NDEF Message TLV and the NDEF
/// capacity (NFC Forum T2T 1.0 §2.3; reference/nfc-facts.md §5.1–§5.4).
enum SimulatedTLVArea {
  /// Where the NDEF TLV is, in byte addresses from page 0.
  struct NDEFTLV: Equatable {
    /// Address of the T byte (`03`).
    var start: Int
    /// Size of the L field: 1, or 3 for `FF hi lo`.
    var lengthFieldSize: Int
    /// The message length L.
    var length: Int
    /// Address of the first message byte.
    var valueStart: Int { start + 1 + lengthFieldSize }
  }

  /// Result of a scan over the bytes a reader has read so far.
  enum Scan: Equatable {
    case found(NDEFTLV)
    /// A Terminator TLV or the area end came first: no NDEF TLV.
    case none
    /// The bytes up to this address (exclusive) are needed to go on.
    case needMore(Int)
  }

  /// Data area end (exclusive) from CC2: 16 + CC2 × 8.
  static func areaEnd(cc: [UInt8]) -> Int { 16 + Int(cc.count > 2 ? cc[2] : 0) * 8 }

  /// Scans the TLVs from byte 16; `known` bytes of `image` (from page 0) have been read.
  static func scan(_ image: [UInt8], known: Int, areaEnd: Int) -> Scan {
    var i = 16
    let known = min(known, image.count)
    while i < areaEnd {
      guard i < known else { return .needMore(i + 1) }
      let t = image[i]
      if t == 0x00 {
        i += 1
        continue
      }
      if t == 0xFE { return .none }
      guard i + 1 < known else { return .needMore(i + 2) }
      var length = Int(image[i + 1])
      var size = 1
      if length == 0xFF {
        guard i + 3 < known else { return .needMore(i + 4) }
        length = Int(image[i + 2]) << 8 | Int(image[i + 3])
        size = 3
      }
      if t == 0x03 { return .found(NDEFTLV(start: i, lengthFieldSize: size, length: length)) }
      i += 1 + size + length
    }
    return .none
  }

  /// NDEF capacity by nfcpy's rule: bytes from the T byte to the area end, minus T and a
  /// 1-byte L, or minus T and `FF hi lo` when a 1-byte L cannot hold it (NTAG213 137,
  /// NTAG215 492, NTAG216 868). Lock and reserved bytes inside the area are not subtracted:
  /// none of the simulated products has any there.
  static func capacity(tlvStart: Int, areaEnd: Int) -> Int {
    let count = areaEnd - tlvStart
    return max(count - 2 > 254 ? count - 4 : count - 2, 0)
  }

  /// The TLV bytes for `message`: `03`, L (1 byte below 255, else `FF hi lo`), the message and a
  /// Terminator when `room` allows it.
  static func ndefTLV(_ message: [UInt8], room: Int) -> [UInt8] {
    var tlv: [UInt8] = [0x03]
    if message.count < 0xFF {
      tlv.append(UInt8(message.count))
    } else {
      tlv += [0xFF, UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)]
    }
    tlv += message
    if tlv.count < room { tlv.append(0xFE) }
    return tlv
  }

  /// A Type 2 memory image at delivery, with `spec`'s options and initial NDEF message applied.
  /// - Throws: `SimulationError.invalidValue` for a UID that is not 7 bytes, hex options of
  ///   the wrong size, or a message that does not fit.
  static func factoryImage(_ p: Type2Product, uid: [UInt8], spec: TagSpec) throws -> [UInt8] {
    guard uid.count == 7 else {
      throw SimulationError.invalidValue(
        key: "tag.uid", message: "a Type 2 tag has a 7-byte UID, got \(uid.count) bytes")
    }
    var m = [UInt8](repeating: 0, count: p.pageCount * 4)
    m.replaceSubrange(0..<4, with: [uid[0], uid[1], uid[2], 0x88 ^ uid[0] ^ uid[1] ^ uid[2]])
    m.replaceSubrange(4..<8, with: uid[3..<7])
    let lock = try sized(spec.staticLock, 2, "tag.static_lock") ?? [0, 0]
    m.replaceSubrange(8..<12, with: [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, lock[0], lock[1]])
    m.replaceSubrange(12..<16, with: try sized(spec.cc, 4, "tag.cc") ?? p.factoryCC)
    try placeData(&m, p, spec: spec)
    if let dyn = p.dynamicLockPage {
      let bits = spec.dynamicLock?.bytes ?? []
      guard bits.count <= 3 else {
        throw SimulationError.invalidValue(key: "tag.dynamic_lock", message: "at most 3 bytes")
      }
      let padded = bits + [UInt8](repeating: 0, count: 3 - bits.count)
      m.replaceSubrange((dyn * 4)..<(dyn * 4 + 4), with: padded + [p.dynamicLockRFUI])
    }
    try placeConfiguration(&m, p, spec: spec)
    return m
  }

  private static func placeData(_ m: inout [UInt8], _ p: Type2Product, spec: TagSpec) throws {
    let userBytes = (p.userEnd - 3) * 4
    var area = Array(p.factoryData.prefix(userBytes))
    if let message = spec.ndef?.bytes {
      area = Array(area.prefix(p.ndefTLVOffset))
      // An unformatted tag (CC2 = 0) gets the TLV anyway, bounded by its user memory.
      let ccEnd = areaEnd(cc: Array(m[12..<16]))
      let end = ccEnd > 16 ? min(ccEnd, 16 + userBytes) : 16 + userBytes
      let room = end - 16 - p.ndefTLVOffset
      let tlv = ndefTLV(message, room: room)
      guard tlv.count <= room else {
        throw SimulationError.invalidValue(
          key: "tag.ndef",
          message: "the \(message.count)-byte message needs \(tlv.count) TLV bytes, "
            + "the tag's NDEF area has \(room)")
      }
      area += tlv
    }
    m.replaceSubrange(16..<(16 + area.count), with: area)
  }

  private static func placeConfiguration(_ m: inout [UInt8], _ p: Type2Product, spec: TagSpec)
    throws
  {
    guard let cfg0 = p.cfg0Page else { return }
    let auth0 = spec.auth0 ?? 0xFF
    guard (0...0xFF).contains(auth0) else {
      throw SimulationError.invalidValue(key: "tag.auth0", message: "a page number 0…255")
    }
    let access: UInt8 = spec.prot == true ? 0x80 : 0x00
    let pwd = try sized(spec.pwd, 4, "tag.pwd") ?? [0xFF, 0xFF, 0xFF, 0xFF]
    let pack = try sized(spec.pack, 2, "tag.pack") ?? [0, 0]
    let pages: [[UInt8]] = [
      [p.cfg0Byte0, 0x00, 0x00, UInt8(auth0)], [access, 0x05, 0x00, 0x00], pwd, pack + [0, 0],
    ]
    for (i, bytes) in pages.enumerated() {
      m.replaceSubrange(((cfg0 + i) * 4)..<((cfg0 + i) * 4 + 4), with: bytes)
    }
  }

  private static func sized(_ value: HexBytes?, _ count: Int, _ key: String) throws -> [UInt8]? {
    guard let value else { return nil }
    guard value.bytes.count == count else {
      throw SimulationError.invalidValue(
        key: key, message: "expected \(count) bytes, got \(value.bytes.count)")
    }
    return value.bytes
  }
}
