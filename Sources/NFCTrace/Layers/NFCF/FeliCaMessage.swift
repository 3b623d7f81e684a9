/// The commands and answers of NFC-F (JIS X 6319-4 / FeliCa, as profiled by NFC Forum Digital
/// Protocol §8 and Type 3 Tag 1.0 §4–§5): polling (SENSF_REQ/RES), the requests for services,
/// response mode and system codes, Check (Read Without Encryption) and Update (Write Without
/// Encryption). A frame is `LEN` (itself included), the command code, its parameters, and
/// CRC-F (which the caller has taken off).
///
/// Decoding is by command code alone: answers carry their own code (command + 1), so no state
/// is needed to name them.
enum FeliCaMessage {
  /// Command codes (JIS X 6319-4; NFC Forum T3T 1.0 §5). Answers are the code + 1.
  static let names: [UInt8: String] = [
    0x00: "SENSF_REQ", 0x01: "SENSF_RES",
    0x02: "REQUEST_SERVICE", 0x03: "REQUEST_SERVICE response",
    0x04: "REQUEST_RESPONSE", 0x05: "REQUEST_RESPONSE response",
    0x06: "CHECK", 0x07: "CHECK response",
    0x08: "UPDATE", 0x09: "UPDATE response",
    0x0A: "SEARCH_SERVICE_CODE", 0x0B: "SEARCH_SERVICE_CODE response",
    0x0C: "REQUEST_SYSTEM_CODE", 0x0D: "REQUEST_SYSTEM_CODE response",
  ]

  /// The service codes of the Type 3 Tag NDEF data (NFC Forum T3T 1.0 §7.1): read-only access
  /// `000B`, read/write access `0009`; system code `12FC` is the NDEF system.
  static let ndefSystemCode: UInt16 = 0x12FC

  /// The decode of `body` (the frame without CRC-F, LEN first); nil reason when decoded.
  /// `requestCode`: the request code of the SENSF_REQ a SENSF_RES answers (what its request
  /// data is), nil when unknown. `damaged`: the frame is an answer whose CRC-F failed, so a
  /// CHECK or UPDATE answer's status flags and blocks are not taken (JIS X 6319-4 §7).
  static func decode(_ body: [UInt8], requestCode: UInt8? = nil, damaged: Bool = false)
    -> (LayerDecode?, reason: String?)
  {
    guard body.count >= 2 else { return (nil, "NFC-F frame shorter than LEN and command code") }
    let code = body[1]
    let p = body[2...]
    if code == 0xD4 || code == 0xD5 {
      let name = code == 0xD4 ? "NFC-DEP request" : "NFC-DEP response"
      return (LayerDecode(.felica, name, "\(name) (NFCIP-1 over NFC-F)", [hex("data", p)]), nil)
    }
    guard let name = names[code] else {
      return (nil, "NFC-F command code \(Hex.string([code])) is not a JIS X 6319-4 / T3T command")
    }
    let decode: LayerDecode?
    switch code {
    case 0x00: decode = pollingRequest(p)
    case 0x01: decode = pollingResponse(p, requestCode: requestCode)
    case 0x06, 0x08: decode = blockAccess(name, p, update: code == 0x08)
    case 0x07, 0x09: decode = damaged ? damagedAnswer(name, p) : statusAnswer(name, p)
    default: decode = withIDm(name, p)
    }
    guard let decode else {
      return (nil, "\(name) is too short (\(body.count) bytes with LEN) for its parameters")
    }
    return (decode, nil)
  }

  /// A name for well-known system codes: 12FCh NDEF (NFC Forum T3T 1.0 §2.2), 88B4h FeliCa
  /// Lite / Lite-S (FeliCa Lite-S user's manual §2.1), FE00h the common area of FeliCa
  /// Networks' services, 0003h the transit IC cards (CJRC: Suica and the interoperating ones).
  static func systemName(_ sc: UInt16) -> String? {
    switch sc {
    case ndefSystemCode: "NDEF, Type 3 Tag"
    case 0x88B4: "FeliCa Lite / Lite-S"
    case 0xFE00: "FeliCa common area"
    case 0x0003: "transit IC (CJRC)"
    default: nil
    }
  }

  /// SENSF_REQ: system code (2, `FFFF` = any), request code (1), time slot number (1: slots −1).
  private static func pollingRequest(_ p: ArraySlice<UInt8>) -> LayerDecode? {
    guard p.count >= 4 else { return nil }
    let sc = UInt16(p[p.startIndex]) << 8 | UInt16(p[p.startIndex + 1])
    let rc = p[p.startIndex + 2]
    let slots = Int(p[p.startIndex + 3]) + 1
    let request: String
    switch rc {
    case 0x00: request = "no request"
    case 0x01: request = "system code request"
    case 0x02: request = "communication performance request"
    default: request = "request code \(Hex.string([rc])) (RFU)"
    }
    let system =
      sc == 0xFFFF
      ? "any system" : "system code \(Hex.word(sc))" + (systemName(sc).map { " (\($0))" } ?? "")
    return LayerDecode(
      .felica, "SENSF_REQ", "SENSF_REQ \(system), \(request), \(slots) time slot(s)",
      [
        LayerField("system_code", .hex(Array(p.prefix(2)))),
        LayerField("request_code", .hex([rc])), LayerField("time_slots", .int(slots)),
      ])
  }

  /// SENSF_RES: IDm (8; `01 FE` first for NFC-DEP), PMm (8), request data (2, when asked:
  /// the system code for request code 01h, the communication performance for 02h; NFC
  /// Digital Protocol §8.6.2). Request data after an unseen request is taken as a system code,
  /// what readers ask for.
  private static func pollingResponse(_ p: ArraySlice<UInt8>, requestCode: UInt8?)
    -> LayerDecode?
  {
    guard p.count >= 16 else { return nil }
    let idm = Array(p.prefix(8))
    let pmm = Array(p.dropFirst(8).prefix(8))
    var fields = [LayerField("idm", .hex(idm)), LayerField("pmm", .hex(pmm))]
    var summary = "SENSF_RES IDm \(Hex.string(idm, separator: " "))"
    if idm[0] == 0x01 && idm[1] == 0xFE {
      summary += " (NFC-DEP target)"
      fields.append(LayerField("nfc_dep", .bool(true)))
    }
    if p.count >= 18 {
      let rd = Array(p.dropFirst(16).prefix(2))
      let sc = UInt16(rd[0]) << 8 | UInt16(rd[1])
      fields.append(LayerField("request_data", .hex(rd)))
      switch requestCode {
      case nil, 0x01?:
        summary += ", system code \(Hex.word(sc))"
        if let name = systemName(sc) { summary += " (\(name))" }
      case 0x02?: summary += ", communication performance \(Hex.word(sc))"
      default: summary += ", request data \(Hex.word(sc))"
      }
    }
    return LayerDecode(.felica, "SENSF_RES", summary, fields)
  }

  /// CHECK / UPDATE: IDm (8), number of services n, n service codes (2, little-endian), number
  /// of blocks m, m block list elements (2 or 3 bytes: b7 of the first byte set = 2-byte
  /// element with a 1-byte block number), then for UPDATE 16 bytes per block.
  private static func blockAccess(_ name: String, _ p: ArraySlice<UInt8>, update: Bool)
    -> LayerDecode?
  {
    var r = p
    guard r.count >= 9 else { return nil }
    let idm = Array(r.prefix(8))
    r = r.dropFirst(8)
    let n = Int(r.removeFirst())
    guard r.count >= 2 * n + 1 else { return nil }
    var services: [UInt16] = []
    for _ in 0..<n {
      services.append(UInt16(r[r.startIndex + 1]) << 8 | UInt16(r[r.startIndex]))
      r = r.dropFirst(2)
    }
    let m = Int(r.removeFirst())
    var blocks: [Int] = []
    for _ in 0..<m {
      guard let first = r.first else { return nil }
      let size = first & 0x80 != 0 ? 2 : 3
      guard r.count >= size else { return nil }
      let number =
        size == 2
        ? Int(r[r.startIndex + 1]) : Int(r[r.startIndex + 2]) << 8 | Int(r[r.startIndex + 1])
      blocks.append(number)
      r = r.dropFirst(size)
    }
    var fields = [
      LayerField("idm", .hex(idm)),
      LayerField("service_codes", .string(services.map(Hex.word).joined(separator: " "))),
      LayerField("blocks", .string(blocks.map(String.init).joined(separator: " "))),
    ]
    let verb = update ? "UPDATE" : "CHECK"
    let list =
      blocks.isEmpty
      ? "an empty block list"
      : "block\(blocks.count == 1 ? "" : "s") "
        + blocks.map(String.init).joined(separator: ", ")
    var summary = "\(verb) \(list) of service \(services.map(Hex.word).joined(separator: ", "))"
    if services.contains(0x000B) || services.contains(0x0009) { summary += " (NDEF)" }
    if update {
      fields.append(hex("data", r))
      if r.count != 16 * m {
        summary += " — \(r.count) data bytes for \(m) block(s) of 16"
      }
      // Block 0 of the NDEF service written: the Attribute Information Block the writer sets
      // (WriteF ON before the data blocks, OFF with the new Ln after them; T3T 1.0 §7.4.3),
      // decoded as a CHECK answer's is.
      if blocks.first == 0, !services.isEmpty, services.allSatisfy(isNDEFService),
        let aib = Type3AttributeBlock(parsing: r)
      {
        summary += " — Attribute Information: \(aib.summary)"
        fields.append(LayerField("attribute_information", .string(aib.summary)))
      }
    }
    return LayerDecode(.felica, name, summary, fields)
  }

  /// CHECK / UPDATE answers: IDm (8), status flag 1 and 2 (`00 00` = success), then for CHECK
  /// the number of blocks and 16 bytes per block.
  private static func statusAnswer(_ name: String, _ p: ArraySlice<UInt8>) -> LayerDecode? {
    guard p.count >= 10 else { return nil }
    let idm = Array(p.prefix(8))
    let sf1 = p[p.startIndex + 8]
    let sf2 = p[p.startIndex + 9]
    let verb = name.hasPrefix("CHECK") ? "CHECK" : "UPDATE"
    // Status Flag 2 71h is a warning given after the write was done.
    let warning = verb == "UPDATE" && sf1 != 0x00 && sf2 == 0x71
    var fields = [
      LayerField("idm", .hex(idm)), LayerField("status_flags", .hex([sf1, sf2])),
      LayerField("success", .bool(sf1 == 0x00 || warning)),
    ]
    var summary: String
    if sf1 == 0x00 {
      summary = "\(verb) ok"
      let rest = p.dropFirst(10)
      if verb == "CHECK", let count = rest.first {
        let data = rest.dropFirst()
        fields.append(LayerField("block_count", .int(Int(count))))
        fields.append(hex("data", data))
        summary += ": \(count) block(s)"
        if !data.isEmpty { summary += " → \(Hex.string(data.prefix(4), separator: " ")) …" }
        if data.count != 16 * Int(count) {
          summary += " — \(data.count) data bytes for \(count) block(s) of 16"
        }
      } else if verb == "CHECK" {
        // A CHECK answered with success carries the number of blocks and their data (FeliCa
        // user's manual, Read Without Encryption): an answer that stops at the flags is cut.
        summary += " — no block count or data after the status flags (cut short)"
      }
    } else if warning {
      summary =
        "UPDATE ok, with a warning: status flags \(Hex.string([sf1, sf2], separator: " ")) "
        + "(\(statusMeaning(sf1, sf2)))"
      fields.append(LayerField("status_meaning", .string(statusMeaning(sf1, sf2))))
    } else {
      summary =
        "\(verb) refused: status flags \(Hex.string([sf1, sf2], separator: " ")) "
        + "(\(statusMeaning(sf1, sf2)))"
      fields.append(LayerField("status_meaning", .string(statusMeaning(sf1, sf2))))
    }
    return LayerDecode(.felica, name, summary, fields)
  }

  /// A CHECK / UPDATE answer whose CRC-F failed: its IDm as received, no status flags, success
  /// or blocks (their bytes may not be the card's).
  private static func damagedAnswer(_ name: String, _ p: ArraySlice<UInt8>) -> LayerDecode? {
    guard p.count >= 8 else { return nil }
    return LayerDecode(
      .felica, name, "\(name) damaged (CRC-F mismatch): status flags and blocks not trusted",
      [LayerField("idm", .hex(Array(p.prefix(8))))])
  }

  /// Status Flag 2 error codes (JIS X 6319-4; Sony FeliCa card user's manual, "Status Flag"):
  /// Status Flag 1 names where the error is (a bitmap of block list elements: `01h` the first,
  /// `02h` the second, `04h` the third, …; `FFh`: not tied to one), Status Flag 2 what it is;
  /// `B1h` and `B2h` are the FeliCa Lite-S codes (FeliCa Lite-S user's manual, "Status
  /// Flag").
  static let statusFlag2: [UInt8: String] = [
    0x01: "purse data under- or overflow",
    0x02: "cash-back data exceeded",
    0x70: "memory error (fatal)",
    0x71:
      "memory write count exceeded (a warning: the block was written, the memory is wearing out)",
    0xA1: "illegal number of services",
    0xA2: "illegal number of blocks",
    0xA3: "illegal service code list order in the block list",
    0xA4: "illegal service type or access mode",
    0xA5: "access denied (the service needs authentication)",
    0xA6: "illegal service code (no such service)",
    0xA7: "illegal block list (access mode)",
    0xA8: "illegal block number (out of the service's range)",
    0xA9: "data write failure",
    0xAA: "key change failure",
    0xAB: "illegal package parity or illegal package MAC",
    0xAC: "illegal parameter",
    0xAD: "service exists already",
    0xAE: "illegal system code",
    0xAF: "too many simultaneous cyclic write operations",
    0xC0: "illegal package identifier",
    0xC1: "discrepancy of parameters inside the card",
    0xB1: "authentication required (the block is protected by MAC_A)",
    0xB2: "MAC error (the MAC_A sent does not match)",
    0xC2: "command disabled already",
  ]

  /// `illegal block number (out of the service's range), block list element 1`.
  static func statusMeaning(_ sf1: UInt8, _ sf2: UInt8) -> String {
    let what = statusFlag2[sf2] ?? "error code \(Hex.string([sf2]).uppercased())"
    if sf1 == 0xFF { return what }
    let elements = (0..<8).filter { sf1 & (1 << $0) != 0 }.map { String($0 + 1) }
    let plural = elements.count == 1 ? "" : "s"
    return "\(what), block list element\(plural) \(elements.joined(separator: ", "))"
  }

  /// The NDEF service codes (`000B` read-only access, `0009` read/write access).
  static func isNDEFService(_ code: UInt16) -> Bool { code == 0x000B || code == 0x0009 }

  /// The block numbers of a CHECK or UPDATE decode (`blocks`), in order.
  static func blocks(_ d: LayerDecode) -> [Int] {
    guard case .string(let s)? = d.field("blocks") else { return [] }
    return s.split(separator: " ").compactMap { Int($0) }
  }

  /// Whether CHECK or UPDATE decode `d` addresses the Type 3 NDEF service only.
  static func addressesNDEFService(_ d: LayerDecode) -> Bool {
    guard case .string(let s)? = d.field("service_codes") else { return false }
    let codes = s.split(separator: " ").compactMap { UInt16($0, radix: 16) }
    return !codes.isEmpty && codes.allSatisfy(isNDEFService)
  }

  /// The first block of `d` when it is a CHECK of the NDEF service.
  static func checkedFirstBlock(_ d: LayerDecode) -> Int? {
    d.name == "CHECK" && addressesNDEFService(d) ? blocks(d).first : nil
  }

  /// A successful CHECK answer's decode annotated by what its first block (`firstBlock`, the
  /// request's) is: block 0 the Attribute Information Block (`attribute_information`), 88h a
  /// FeliCa Lite / Lite-S Memory Configuration (`memory_configuration`) unless the card's
  /// IC code (`icCode`, PMm byte 1) names another card.
  static func annotating(_ d: LayerDecode, firstBlock: Int, icCode: UInt8?) -> LayerDecode {
    guard case .hex(let data)? = d.field("data") else { return d }
    var out = d
    if firstBlock == 0, let aib = Type3AttributeBlock(parsing: data) {
      out.summary += " — Attribute Information: \(aib.summary)"
      out.fields.append(LayerField("attribute_information", .string(aib.summary)))
    } else if firstBlock == 0x88, data.count >= 16,
      icCode.map({ FeliCaProduct.isLite(icCode: $0) }) ?? true,
      let mc = FeliCaLiteMemoryConfiguration(parsing: data)
    {
      out.summary += " — Memory Configuration: \(mc.summary)"
      out.fields.append(LayerField("memory_configuration", .string(mc.summary)))
    }
    return out
  }

  /// The other commands and answers: IDm, then parameters kept as hex.
  private static func withIDm(_ name: String, _ p: ArraySlice<UInt8>) -> LayerDecode? {
    guard p.count >= 8 else { return nil }
    let idm = Array(p.prefix(8))
    var fields = [LayerField("idm", .hex(idm))]
    let rest = p.dropFirst(8)
    if !rest.isEmpty { fields.append(hex("parameters", rest)) }
    return LayerDecode(.felica, name, name, fields)
  }

  private static func hex(_ key: String, _ bytes: ArraySlice<UInt8>) -> LayerField {
    LayerField(key, .hex(Array(bytes)))
  }

}
