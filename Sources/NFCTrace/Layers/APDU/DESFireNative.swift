/// MIFARE DESFire native commands in ISO-DEP I-blocks (what libfreefare and Core NFC's
/// `sendMiFareCommand` send): a command code then its parameters, answered by a status byte
/// then data (`00` OK, `AF` additional frame, `0C` no changes, `Ax`/`9x`… errors), where the
/// ISO/IEC 7816-4 wrapping would send `90 code 00 00 Lc data 00` and answer `data 91 status`.
///
/// Decoded as the wrapped form is (`DESFire GET VERSION`, `DESFire GET VERSION response` with
/// `sw` `91xx`), so that the session analysis reads both alike; `native` is true. A reader
/// payload is taken as native when its first byte is a DESFire command code and it is no
/// APDU, or once the tag has answered a native command with a DESFire status (the link speaks
/// the native protocol: `5A 01 00 00` is SelectApplication, not a case 1 APDU). Sources: NXP
/// MIFARE DESFire EV1 datasheet (MF3ICDx21_41_81), native command set and status codes; NTAG
/// 424 DNA datasheet (NT4H2421Gx) §10.
enum DESFireNative {
  /// The command's name for a native code (`GET VERSION`), nil for codes not in the set.
  static func commandName(_ code: UInt8) -> String? { APDUInstruction.desfireName(code) }

  /// True when `status`, an answer's first byte, is a DESFire status code.
  static func isStatus(_ status: UInt8) -> Bool {
    StatusWord.desfire[0x9100 | UInt16(status)] != nil
  }

  /// True when `bytes`, the answer to a command that parsed as an APDU but starts with a
  /// DESFire command code, is a native answer: a DESFire status byte first, and no status word
  /// at the end (SW1 6x or 9x, ISO/IEC 7816-4 §5.6) — `00`, `A0`, `00 01 02 07`.
  static func isNativeAnswer(_ bytes: [UInt8]) -> Bool {
    guard let status = bytes.first, isStatus(status) else { return false }
    guard bytes.count >= 2 else { return true }
    let sw1 = bytes[bytes.count - 2]
    return !(0x61...0x6F).contains(sw1) && !(0x90...0x9F).contains(sw1)
  }

  /// The decode of a native command (`bytes[0]` is a code `commandName` knows).
  static func command(_ bytes: [UInt8]) -> LayerDecode {
    let code = bytes.first ?? 0
    let name = "DESFire " + (commandName(code) ?? "command")
    var fields = [
      LayerField("native", .bool(true)), LayerField("ins", .hex([code])),
    ]
    var summary = "\(name) (native command 0x\(Hex.string([code]).uppercased()))"
    if bytes.count > 1 {
      fields.append(LayerField("data", .hex(Array(bytes.dropFirst()))))
      summary += ", \(bytes.count - 1) byte(s)"
    }
    return LayerDecode(.iso7816, name, summary, fields)
  }

  /// The decode of the answer to native command `command` (its name): the status byte as the
  /// wrapped status word `91 status`, then the data.
  static func answer(_ bytes: [UInt8], command: String?) -> LayerDecode {
    guard let status = bytes.first else {
      return LayerDecode(
        .iso7816, (command.map { $0 + " response" }) ?? "response",
        "DESFire answer with no status byte", [LayerField("native", .bool(true))])
    }
    let wrapped = ResponseAPDU(data: Array(bytes.dropFirst()), status: StatusWord(0x91, status))
    var d = APDUDescription.response(wrapped, command: command)
    d.fields.insert(LayerField("native", .bool(true)), at: 0)
    let meaning = wrapped.status.meaning.replacingOccurrences(of: "DESFire: ", with: "")
    d.summary = "DESFire status 0x\(Hex.string([status]).uppercased()) \(meaning)"
    if !wrapped.data.isEmpty { d.summary += " (\(wrapped.data.count) data bytes)" }
    return d
  }
}
