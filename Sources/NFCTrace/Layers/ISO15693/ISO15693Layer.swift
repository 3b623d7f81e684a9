/// ISO/IEC 15693-3 (NFC-V) requests and responses, and the NFC Forum Type 5 Tag CC they read.
///
/// A response carries no command code: it is read by the request before it (§9: flags, then
/// an error code when the error flag b1 is set, else the command's parameters). The layer keeps
/// the last request and the block size a GET SYSTEM INFORMATION gave. The frames it sees are
/// without CRC (the caller checks and strips it).
struct ISO15693Layer: Sendable {
  /// The last request decoded, until its response.
  private var request: ISO15693Request?
  /// True when the last request did not parse: its response cannot be read.
  private var requestUndecoded = false
  /// Bytes per block, from GET SYSTEM INFORMATION (memory size byte 2, b5–b1, plus 1).
  private var blockSize: Int?

  /// Forgets everything (field off).
  mutating func reset() {
    request = nil
    requestUndecoded = false
    blockSize = nil
  }

  /// A reader's request: its decode, or the reason it does not parse.
  mutating func decodeRequest(_ body: ArraySlice<UInt8>) -> (LayerDecode?, reason: String?) {
    let r: ISO15693Request
    do {
      r = try ISO15693Request(parsing: body)
    } catch {
      request = nil
      requestUndecoded = true
      return (nil, error.reason)
    }
    request = r
    requestUndecoded = false
    return (Self.describe(r), nil)
  }

  /// A tag's response to the last request. `damaged`: its CRC failed, so only its length is
  /// shown.
  mutating func decodeResponse(_ body: ArraySlice<UInt8>, damaged: Bool) -> (
    LayerDecode?, reason: String?
  ) {
    let asked = request
    let name = (asked.map { ISO15693Command.name($0.command, manufacturer: $0.manufacturer) } ?? "")
    let title = asked == nil ? "response" : "\(name) response"
    if damaged {
      return (
        LayerDecode(
          .iso15693, title, "\(title) damaged (CRC mismatch): flags and data not trusted"),
        nil
      )
    }
    guard let flags = body.first else { return (nil, "ISO 15693 response without flags") }
    var fields = [LayerField("flags", .hex([flags]))]
    if flags & 0x01 != 0 {
      guard body.count >= 2 else {
        return (nil, "ISO 15693 error response ends at byte 1 where the error code should be")
      }
      let code = body[body.startIndex + 1]
      let meaning = ISO15693Command.errorMeaning(code)
      fields += [LayerField("error_code", .hex([code])), LayerField("error", .string(meaning))]
      return (
        LayerDecode(
          .iso15693, title, "\(title): error \(ISO15693Command.byteText(code))h (\(meaning))",
          fields),
        nil
      )
    }
    let p = body.dropFirst()
    guard let asked else {
      fields.append(LayerField("data", .hex(Array(p))))
      let summary =
        requestUndecoded
        ? "ISO 15693 response to an undecoded request" : "ISO 15693 response (no request seen)"
      return (LayerDecode(.iso15693, title, summary, fields), nil)
    }
    return answer(to: asked, title: title, p, fields: fields)
  }

  private mutating func answer(
    to r: ISO15693Request, title: String, _ p: ArraySlice<UInt8>, fields: [LayerField]
  ) -> (LayerDecode?, reason: String?) {
    var fields = fields
    switch r.command {
    case 0x01:
      guard p.count >= 9 else { return (nil, "INVENTORY response shorter than DSFID and UID") }
      let uid = Array(p.dropFirst().prefix(8).reversed())
      fields += [LayerField("dsfid", .hex([p[p.startIndex]])), LayerField("uid", .hex(uid))]
      return (
        LayerDecode(.iso15693, title, "\(title) UID \(Self.uidText(uid))", fields), nil
      )
    case 0x2B, 0x3B:
      return systemInformation(title, p, fields: fields, extended: r.command == 0x3B)
    case 0x2C, 0x3C:
      fields.append(LayerField("security_status", .hex(Array(p))))
      let locked = p.filter { $0 & 1 != 0 }.count
      return (
        LayerDecode(
          .iso15693, title, "\(title): \(p.count) block(s), \(locked) locked", fields), nil
      )
    case let c where ISO15693Command.readsBlocks(c):
      return (readAnswer(r, title: title, p, fields: fields), nil)
    default:
      if !p.isEmpty { fields.append(LayerField("data", .hex(Array(p)))) }
      let summary = p.isEmpty ? "\(title): ok" : "\(title): ok, \(Hex.string(p, separator: " "))"
      return (LayerDecode(.iso15693, title, summary, fields), nil)
    }
  }

  /// A READ answer: per block an optional security status byte (option flag), then the block.
  private func readAnswer(
    _ r: ISO15693Request, title: String, _ p: ArraySlice<UInt8>, fields: [LayerField]
  ) -> LayerDecode {
    var fields = fields
    let (first, count) = Self.blockRange(r) ?? (0, 1)
    var data = Array(p)
    var status: [UInt8] = []
    // With the option flag each block is preceded by its security status byte (§10.3.1).
    // The block size GET SYSTEM INFORMATION gave decides; else the answer's length.
    let known = blockSize.flatMap { p.count == count * ($0 + 1) ? $0 + 1 : nil }
    let even = count > 0 && p.count % count == 0 ? p.count / count : nil
    if r.option, let stride = known ?? even, stride >= 2 {
      data = []
      data.reserveCapacity(p.count - count)
      for i in 0..<count {
        let at = p.startIndex + i * stride
        status.append(p[at])
        data += p[(at + 1)..<(at + stride)]
      }
    }
    let blocks = count == 1 ? "block \(first)" : "blocks \(first)–\(first + count - 1)"
    if r.option, status.isEmpty, !p.isEmpty {
      // With the option flag every block carries a status byte, but this length fits no block
      // size: which bytes are status and which data is unknown (`data_with_status`).
      fields += [LayerField("block", .int(first)), LayerField("data_with_status", .hex(data))]
      return LayerDecode(
        .iso15693, title,
        "\(title) \(blocks): \(data.count) byte(s) with security status bytes that fit no block "
          + "size: not split", fields)
    }
    if !status.isEmpty { fields.append(LayerField("security_status", .hex(status))) }
    fields += [LayerField("block", .int(first)), LayerField("data", .hex(data))]
    var summary = "\(title) \(blocks): \(data.count) byte(s)"
    if first == 0, let cc = Type5CapabilityContainer(data[...]) {
      fields.append(LayerField("cc", .string(cc.summary)))
      summary += "; \(cc.summary)"
    } else if count == 1, data.count <= 8 {
      summary = "\(title) \(blocks): \(Hex.string(data, separator: " "))"
    }
    return LayerDecode(.iso15693, title, summary, fields)
  }

  /// GET SYSTEM INFORMATION: info flags, UID, then DSFID (b1), AFI (b2), memory size (b3: 1
  /// byte blocks − 1 and 1 byte block size − 1; 2 bytes of blocks for the extended form), IC
  /// reference (b4) — §10.4.12.
  private mutating func systemInformation(
    _ title: String, _ p: ArraySlice<UInt8>, fields: [LayerField], extended: Bool
  ) -> (LayerDecode?, reason: String?) {
    var fields = fields
    guard p.count >= 9 else { return (nil, "\(title) shorter than info flags and UID") }
    let info = p[p.startIndex]
    let uid = Array(p.dropFirst().prefix(8).reversed())
    fields += [LayerField("info_flags", .hex([info])), LayerField("uid", .hex(uid))]
    var rest = p.dropFirst(9)
    var summary = "\(title) UID \(Self.uidText(uid))"
    func take(_ n: Int) -> ArraySlice<UInt8>? {
      guard rest.count >= n else { return nil }
      defer { rest = rest.dropFirst(n) }
      return rest.prefix(n)
    }
    if info & 0x01 != 0, let b = take(1) { fields.append(LayerField("dsfid", .hex(Array(b)))) }
    if info & 0x02 != 0, let b = take(1) { fields.append(LayerField("afi", .hex(Array(b)))) }
    if info & 0x04 != 0, let m = take(extended ? 3 : 2) {
      let blocks =
        extended
        ? (Int(m[m.startIndex + 1]) << 8 | Int(m[m.startIndex])) + 1 : Int(m[m.startIndex]) + 1
      let size = Int(m[m.endIndex - 1] & 0x1F) + 1
      blockSize = size
      fields += [LayerField("blocks", .int(blocks)), LayerField("block_size", .int(size))]
      summary += ", \(blocks) blocks of \(size) bytes"
    }
    if info & 0x08 != 0, let b = take(1) {
      fields.append(LayerField("ic_reference", .hex(Array(b))))
    }
    return (LayerDecode(.iso15693, title, summary, fields), nil)
  }

  /// The first block and block count a request names (nil for one naming no block).
  static func blockRange(_ r: ISO15693Request) -> (first: Int, count: Int)? {
    guard let layout = ISO15693Command.blockLayout(r.command),
      r.parameters.count >= layout.numbersSize
    else { return nil }
    let p = r.parameters
    func number(at i: Int) -> Int {
      layout.numberSize == 2 ? Int(p[i + 1]) << 8 | Int(p[i]) : Int(p[i])
    }
    let first = number(at: p.startIndex)
    return (first, layout.counted ? number(at: p.startIndex + layout.numberSize) + 1 : 1)
  }

  /// A request in words: its command, blocks and data, mode.
  static func describe(_ r: ISO15693Request) -> LayerDecode {
    let name = ISO15693Command.name(r.command, manufacturer: r.manufacturer)
    var fields = [LayerField("flags", .hex([r.flags])), LayerField("command", .hex([r.command]))]
    if let m = r.manufacturer { fields.append(LayerField("ic_manufacturer", .hex([m]))) }
    if let uid = r.uid { fields.append(LayerField("uid", .hex(uid))) }
    fields.append(LayerField("option", .bool(r.option)))
    var summary = name
    if r.command == 0x01 {
      summary += inventoryDetail(r, fields: &fields)
    } else if let (first, count) = blockRange(r) {
      fields += [LayerField("block", .int(first)), LayerField("block_count", .int(count))]
      summary += count == 1 ? " \(first)" : " \(first)–\(first + count - 1)"
      if let layout = ISO15693Command.blockLayout(r.command), layout.data {
        let data = r.parameters.dropFirst(layout.numbersSize)
        fields.append(LayerField("data", .hex(Array(data))))
        summary += " ← \(Hex.string(data, separator: " "))"
      }
    } else if !r.parameters.isEmpty {
      fields.append(LayerField("parameters", .hex(Array(r.parameters))))
    }
    if r.isInventory && r.command != 0x01 { summary += " (inventory flag set)" }
    if let uid = r.uid {
      summary += ", addressed to \(uidText(uid))"
    } else if r.selectMode {
      summary += ", selected tag"
    }
    if r.option { summary += ", option flag" }
    return LayerDecode(.iso15693, name, summary, fields)
  }

  /// INVENTORY: AFI when its flag is set, mask length in bits, mask value (§10.3.1).
  private static func inventoryDetail(_ r: ISO15693Request, fields: inout [LayerField])
    -> String
  {
    var p = r.parameters
    let slots = r.flags & 0x20 != 0 ? 1 : 16
    var s = " \(slots) slot(s)"
    fields.append(LayerField("slots", .int(slots)))
    if r.flags & 0x10 != 0, let afi = p.first {
      fields.append(LayerField("afi", .hex([afi])))
      s += ", AFI \(ISO15693Command.byteText(afi))h"
      p = p.dropFirst()
    }
    if let bits = p.first {
      fields.append(LayerField("mask_length", .int(Int(bits))))
      s += bits == 0 ? ", no mask" : ", mask of \(bits) bit(s)"
    }
    return s
  }

  /// A UID as ISO/IEC 15693 writes it: most significant byte first, colons, and its maker.
  static func uidText(_ uid: [UInt8]) -> String {
    var s = Hex.string(uid, separator: ":").uppercased()
    if uid.count == 8, uid[0] == 0xE0, let maker = Manufacturer.name(code: uid[1]) {
      s += " (\(maker))"
    }
    return s
  }
}
