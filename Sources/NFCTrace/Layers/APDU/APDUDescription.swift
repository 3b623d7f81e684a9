/// Builds the timeline decode (name, summary, fields) of command and response APDUs.
///
/// Field keys: `cla`, `ins`, `p1`, `p2` (hex), `case` (1–4), `extended` (bool), `lc`, `le`
/// (Ne, int), `data` (hex); SELECT adds `select_by`, `aid`, `aid_name`, `file_id`, `path`,
/// `response_data`; READ/UPDATE BINARY add `offset` and, with P1 b8 = 1, `sfi`. Responses
/// carry `command`, `data`, `data_length`, `sw` (hex), `sw_meaning`, `sw_kind`.
enum APDUDescription {
  /// The decode of a command APDU.
  static func command(_ c: CommandAPDU) -> LayerDecode {
    let name = APDUInstruction.name(cla: c.cla, ins: c.ins)
    var fields: [LayerField] = [
      LayerField("cla", .hex([c.cla])), LayerField("ins", .hex([c.ins])),
      LayerField("p1", .hex([c.p1])), LayerField("p2", .hex([c.p2])),
      LayerField("case", .int(c.apduCase)),
    ]
    if c.isExtended { fields.append(LayerField("extended", .bool(true))) }
    if let lc = c.lc { fields.append(LayerField("lc", .int(lc))) }
    if !c.data.isEmpty { fields.append(LayerField("data", .hex(c.data))) }
    if let le = c.le { fields.append(LayerField("le", .int(le))) }
    let detail: String
    if c.cla == 0x90 {
      detail = lengths(c)
    } else {
      switch c.ins {
      case 0xA4: detail = select(c, &fields)
      case 0xB0, 0xD6, 0xD0: detail = binary(c, &fields)
      default: detail = generic(c)
      }
    }
    return LayerDecode(.iso7816, name, detail.isEmpty ? name : name + " " + detail, fields)
  }

  /// The decode of a response APDU answering `command` (its name, if known).
  static func response(_ r: ResponseAPDU, command: String?) -> LayerDecode {
    var fields: [LayerField] = []
    if let command { fields.append(LayerField("command", .string(command))) }
    if !r.data.isEmpty { fields.append(LayerField("data", .hex(r.data))) }
    fields += [
      LayerField("data_length", .int(r.data.count)), LayerField("sw", .string(r.status.hex)),
      LayerField("sw_meaning", .string(r.status.meaning)),
      LayerField("sw_kind", .string(r.status.kind.rawValue)),
    ]
    var summary = r.status.description
    if !r.data.isEmpty { summary += " (\(r.data.count) data bytes)" }
    let name = command.map { $0 + " response" } ?? "response"
    return LayerDecode(.iso7816, name, summary, fields)
  }

  // MARK: - Commands

  private static func select(_ c: CommandAPDU, _ fields: inout [LayerField]) -> String {
    let by: String
    var what: String
    switch c.p1 {
    case 0x04:
      by = "AID"
      what = "AID " + Hex.string(c.data)
      fields.append(LayerField("aid", .hex(c.data)))
      if let known = KnownAID.name(c.data) {
        what += " (\(known))"
        fields.append(LayerField("aid_name", .string(known)))
      }
    case 0x00, 0x01, 0x02:
      by = c.p1 == 0x00 ? "file identifier" : (c.p1 == 0x01 ? "child DF" : "EF under current DF")
      // P1 01h selects a DF, 02h an EF, under the current DF (ISO/IEC 7816-4 §11.2.2,
      // Table 39); 3F00h is the MF's reserved identifier (§7.1.1).
      let kind = c.p1 == 0x01 ? "child DF " : (c.p1 == 0x02 ? "EF " : "file ")
      what = c.data.isEmpty ? "MF" : kind + Hex.string(c.data)
      if c.data == [0x3F, 0x00] { what += " (MF)" }
      if c.data.count == 2 { fields.append(LayerField("file_id", .hex(c.data))) }
    case 0x03:
      by = "parent DF"
      what = "parent DF"
    case 0x08, 0x09:
      by = c.p1 == 0x08 ? "path from MF" : "path from current DF"
      what = "path " + Hex.string(c.data)
      fields.append(LayerField("path", .hex(c.data)))
    default:
      by = "P1 " + Hex.string([c.p1])
      what = "P1 " + Hex.string([c.p1]) + " " + Hex.string(c.data)
    }
    fields.append(LayerField("select_by", .string(by)))
    fields.append(LayerField("response_data", .string(selectResponse(c.p2))))
    return what  // Le stays in the fields: SELECT's Le only sizes the FCI
  }

  /// P2 b4–b3 of SELECT: which template the card returns (nfc-facts §3.3).
  private static func selectResponse(_ p2: UInt8) -> String {
    switch p2 & 0x0C {
    case 0x00: return "FCI"
    case 0x04: return "FCP"
    case 0x08: return "FMD"
    default: return "none"
    }
  }

  /// READ/UPDATE/WRITE BINARY with an offset in P1P2 (P1 b8 = 0) or a short EF identifier in
  /// P1 b5–b1 and the offset in P2 (P1 b8 = 1, ISO/IEC 7816-4 §7.2.2).
  private static func binary(_ c: CommandAPDU, _ fields: inout [LayerField]) -> String {
    var text: String
    if c.p1 & 0x80 == 0 {
      let offset = Int(c.p1) << 8 | Int(c.p2)
      fields.append(LayerField("offset", .int(offset)))
      text = "offset \(offset)"
    } else {
      let sfi = Int(c.p1 & 0x1F)
      fields.append(LayerField("sfi", .int(sfi)))
      fields.append(LayerField("offset", .int(Int(c.p2))))
      text = "SFI \(sfi) offset \(c.p2)"
    }
    let rest = lengths(c)
    if !rest.isEmpty { text += " " + rest }
    return text
  }

  private static func generic(_ c: CommandAPDU) -> String {
    let params = "P1 \(Hex.string([c.p1])) P2 \(Hex.string([c.p2]))"
    let rest = lengths(c)
    return rest.isEmpty ? params : params + " " + rest
  }

  private static func lengths(_ c: CommandAPDU) -> String {
    var parts: [String] = []
    if let lc = c.lc { parts.append("Lc \(lc)") }
    if let le = c.le { parts.append("Le \(le)") }
    return parts.joined(separator: " ")
  }
}
