/// MIFARE Plus native commands in ISO-DEP I-blocks: in security level 3 a MIFARE Plus takes
/// its own command codes (First Authenticate `70`, Read `30`–`37`, Write `A0`–`A3`…), not
/// ISO/IEC 7816-4 APDUs, and answers a status byte first (`90` success) then data, mostly
/// ciphertext and MACs. Read as APDUs, their last two bytes would pass for a status word.
///
/// Recognised on a link whose ATS historical bytes carry the NXP MIFARE indicator `C1 05` with
/// the MIFARE Plus family (third byte `2x`, nfc-facts §2.2) and only for the command codes
/// below; anything else on such a link is still read as an APDU (MIFARE Plus EV1 and later
/// also take ISO/IEC 7816-4 wrapped commands). Source: NXP MIFARE Plus EV1 datasheet
/// (MF1PLUSx0y1), command set.
enum MIFAREPlusNative {
  /// Whether the ATS `ats` (TL first, no CRC) names a MIFARE Plus in its historical bytes.
  static func isMIFAREPlus(ats: [UInt8]?) -> Bool {
    guard let ats else { return false }
    let h = ATS(ats).historical
    return h.count >= 3 && h[0] == 0xC1 && h[1] == 0x05 && h[2] >> 4 == 0x2
  }

  /// The command's name for a native code, nil for codes not in the set.
  static func commandName(_ code: UInt8) -> String? {
    switch code {
    case 0x70: return "First Authenticate"
    case 0x72: return "Authenticate (second part)"
    case 0x76: return "Non-first Authenticate"
    case 0x78: return "Reset Authentication"
    case 0x30...0x37: return "Read"
    case 0xA0...0xA3: return "Write"
    default: return nil
    }
  }

  /// The decode of a native command (`bytes[0]` is a code `commandName` knows).
  static func command(_ bytes: [UInt8]) -> LayerDecode {
    let code = bytes.first ?? 0
    let name = commandName(code) ?? "command"
    var fields = [LayerField("command", .hex([code]))]
    var summary = "MIFARE Plus \(name) (native command 0x\(Hex.string([code]).uppercased()))"
    // Read and Write carry the 2-byte block number, little-endian, after the code.
    if (0x30...0x37).contains(code) || (0xA0...0xA3).contains(code), bytes.count >= 3 {
      let block = Int(bytes[1]) | Int(bytes[2]) << 8
      fields.append(LayerField("block", .int(block)))
      summary += ", block \(block)"
    }
    return LayerDecode(.iso7816, "MIFARE Plus command", summary, fields)
  }

  /// The decode of the answer to a native command: its status byte, then data.
  static func answer(_ bytes: [UInt8]) -> LayerDecode {
    guard let status = bytes.first else {
      // No status byte: not an answer the reader can take.
      return LayerDecode(
        .iso7816, "MIFARE Plus answer", "MIFARE Plus answer (empty, no status byte)",
        [LayerField("success", .bool(false))])
    }
    let ok = status == 0x90
    let fields = [
      LayerField("status", .hex([status])), LayerField("success", .bool(ok)),
      LayerField("data_length", .int(bytes.count - 1)),
    ]
    let what = ok ? "success" : "error"
    return LayerDecode(
      .iso7816, "MIFARE Plus answer",
      "MIFARE Plus answer: status 0x\(Hex.string([status]).uppercased()) (\(what)), "
        + "\(bytes.count - 1) byte(s)", fields)
  }
}
