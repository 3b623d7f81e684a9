/// NFC-DEP (ISO/IEC 18092 §12, NFCIP-1; NFC Forum Digital Protocol §14) carried over NFC-A at
/// 106 kbit/s, after a SAK with b7 set (40h, ISO/IEC 18092 target): the start byte `F0`, LEN
/// (counting itself and the bytes after it), CMD0 (`D4` request, `D5` response), CMD1 (the
/// PDU: ATR, WUP, PSL, DEP, DSL, RLS), then the PDU's bytes; CRC_A is the type A layer's.
///
/// Kept shallow: the PDU is named and its bytes kept, no LLCP or SNEP is decoded.
enum NFCDEPFrame {
  /// CMD1 codes of the requests (ISO/IEC 18092 §12.5–§12.7); a response is the code + 1.
  private static let requests: [UInt8: String] = [
    0x00: "ATR", 0x02: "WUP", 0x04: "PSL", 0x06: "DEP", 0x08: "DSL", 0x0A: "RLS",
  ]

  /// True when `payload` (without CRC_A) is framed as NFC-DEP at 106 kbit/s: `F0`, a LEN that
  /// fits the bytes after it, and CMD0 `D4` or `D5`.
  static func isFramed(_ payload: [UInt8]) -> Bool {
    payload.count >= 4 && payload[0] == 0xF0 && Int(payload[1]) == payload.count - 1
      && (payload[2] == 0xD4 || payload[2] == 0xD5)
  }

  /// The decode of `unit` (a payload `isFramed` accepted): `ATR_REQ`, `DEP_RES`, …, with the
  /// PDU's bytes; a CMD1 outside ISO/IEC 18092 stays raw with the reason.
  static func decode(_ unit: LayerUnit) -> LayerResult {
    let p = unit.bytes
    guard isFramed(p) else {
      return .undecoded("not an NFC-DEP frame (F0, LEN, D4/D5 of ISO/IEC 18092 §12)")
    }
    let response = p[2] == 0xD5
    let cmd1 = p[3]
    guard cmd1 & 1 == (response ? 1 : 0), let pdu = requests[cmd1 & 0xFE] else {
      return .undecoded(
        "NFC-DEP \(response ? "response" : "request") \(Hex.string([cmd1])) is no ISO/IEC 18092 "
          + "PDU")
    }
    let name = pdu + (response ? "_RES" : "_REQ")
    let data = p.dropFirst(4)
    var summary = "NFC-DEP \(name) (ISO/IEC 18092 over NFC-A)"
    if !data.isEmpty { summary += ", \(data.count) byte(s)" }
    return LayerResult(
      decode: LayerDecode(.nfcDEP, name, summary, [LayerField("data", .hex(Array(data)))]))
  }
}
