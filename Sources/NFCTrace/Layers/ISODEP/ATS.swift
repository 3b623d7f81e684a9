/// ATS, the tag's answer to RATS: TL, T0, optional TA(1), TB(1), TC(1), historical bytes.
///
/// T0: b7 TC present (0x40), b6 TB present (0x20), b5 TA present (0x10), b4–b1 FSCI.
/// TA: b8 same divisor both ways, b7–b5 DS 8/4/2 (PICC→PCD), b3–b1 DR 8/4/2 (PCD→PICC).
/// TB: FWI high nibble, SFGI low nibble. TC: b1 NAD supported, b2 CID supported.
/// Defaults when absent: FSCI 2, FWI 4, SFGI 0, CID supported, NAD not supported.
/// ISO/IEC 14443-4 §5.2; nfc-facts §2.2, §2.3.
public struct ATS: Sendable, Equatable {
  /// The ATS bytes without CRC.
  public var bytes: [UInt8]
  /// TL, the length byte.
  public var tl: Int
  /// T0, when TL > 1.
  public var t0: UInt8?
  /// TA(1), TB(1), TC(1) when present.
  public var ta: UInt8?, tb: UInt8?, tc: UInt8?
  /// Historical bytes T1…Tk.
  public var historical: [UInt8]
  /// Problems found while reading (length mismatch, missing bytes, RFU bits).
  var problems: [String] = []

  /// Reads an ATS; never fails, missing bytes become problems and defaults apply.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    let tl = Int(bytes.first ?? 0)
    self.tl = tl
    let end = min(tl, bytes.count)
    var problems: [String] = []
    if tl != bytes.count { problems.append("TL says \(tl) bytes, the ATS has \(bytes.count)") }
    var i = 1
    func next(_ name: String) -> UInt8? {
      guard i < end else {
        problems.append("\(name) announced but the ATS ends")
        return nil
      }
      i += 1
      return bytes[i - 1]
    }
    let t0 = end > 1 ? next("T0") : nil
    self.t0 = t0
    if let t0, t0 & 0x80 != 0 { problems.append("T0 b8 must be 0") }
    ta = (t0 ?? 0) & 0x10 != 0 ? next("TA(1)") : nil
    tb = (t0 ?? 0) & 0x20 != 0 ? next("TB(1)") : nil
    tc = (t0 ?? 0) & 0x40 != 0 ? next("TC(1)") : nil
    historical = i < end ? Array(bytes[i..<end]) : []
    // RFU bits (ISO/IEC 14443-4 §5.2.4, §5.2.6): TA(1) b4, TC(1) b8–b3.
    if let ta, ta & 0x08 != 0 { problems.append("TA(1) b4 must be 0 (RFU)") }
    if let tc, tc & 0xFC != 0 { problems.append("TC(1) b8–b3 must be 0 (RFU)") }
    self.problems = problems
  }

  /// FSCI (default 2).
  public var fsci: Int { t0.map { Int($0 & 0x0F) } ?? 2 }
  /// FSC in bytes, nil for RFU FSCI.
  public var fsc: Int? { ISODEPTiming.frameSize(fsci) }
  /// FWI (default 4).
  public var fwi: Int { tb.map { Int($0 >> 4) } ?? 4 }
  /// SFGI (default 0).
  public var sfgi: Int { tb.map { Int($0 & 0x0F) } ?? 0 }
  /// FWT in nanoseconds; FWI 15 (RFU) is read as the default 4.
  public var fwtNs: Int64 {
    ISODEPTiming.waitingTimeNs(fwi) ?? ISODEPTiming.waitingTimeNs(4) ?? 0
  }
  /// SFGT in nanoseconds (0 for SFGI 0, nil for RFU SFGI 15).
  public var sfgtNs: Int64? { sfgi == 0 ? 0 : ISODEPTiming.waitingTimeNs(sfgi) }
  /// TC b1.
  public var nadSupported: Bool { tc.map { $0 & 0x01 != 0 } ?? false }
  /// TC b2.
  public var cidSupported: Bool { tc.map { $0 & 0x02 != 0 } ?? true }
  /// TA b8: the same divisor must be used in both directions.
  public var sameDivisor: Bool { ta.map { $0 & 0x80 != 0 } ?? false }
  /// Divisors (2, 4, 8) the tag supports PICC→PCD (DS); empty = 106 kbit/s only.
  public var ds: [Int] { divisors((ta ?? 0) >> 4) }
  /// Divisors (2, 4, 8) the tag supports PCD→PICC (DR).
  public var dr: [Int] { divisors(ta ?? 0) }

  private func divisors(_ bits: UInt8) -> [Int] {
    [(0x01, 2), (0x02, 4), (0x04, 8)].compactMap { bits & $0.0 != 0 ? $0.1 : nil }
  }

  /// `compact-TLV` for `80`/`00` first bytes, `NXP` for `C1`, else nil.
  public var historicalFormat: String? {
    switch historical.first {
    case 0x80, 0x00: return "compact-TLV"
    case 0xC1: return "NXP MIFARE indicator"
    default: return nil
    }
  }

  var decode: LayerDecode {
    var fields = [LayerField("tl", .int(tl))]
    if let t0 { fields.append(LayerField("t0", .hex([t0]))) }
    fields.append(LayerField("fsci", .int(fsci)))
    if let fsc { fields.append(LayerField("fsc", .int(fsc))) }
    if let ta {
      fields += [
        LayerField("ta", .hex([ta])), LayerField("same_divisor", .bool(sameDivisor)),
        LayerField("ds", .string(divisorText(ds))), LayerField("dr", .string(divisorText(dr))),
      ]
    }
    if let tb { fields.append(LayerField("tb", .hex([tb]))) }
    fields += [
      LayerField("fwi", .int(fwi)), LayerField("fwt_us", .int(ISODEPTiming.micros(fwtNs))),
      LayerField("sfgi", .int(sfgi)),
    ]
    if let sfgtNs { fields.append(LayerField("sfgt_us", .int(ISODEPTiming.micros(sfgtNs)))) }
    if let tc { fields.append(LayerField("tc", .hex([tc]))) }
    fields += [
      LayerField("cid_supported", .bool(cidSupported)),
      LayerField("nad_supported", .bool(nadSupported)),
      LayerField("historical", .hex(historical)),
    ]
    if let historicalFormat {
      fields.append(LayerField("historical_format", .string(historicalFormat)))
    }
    return LayerDecode(.isoDEP, "ATS", summary, fields)
  }

  /// `ATS FSC 64, FWT 77.3 ms, SFGT 604 µs, CID, historical 80`.
  private var summary: String {
    var parts = ["FSC " + (fsc.map(String.init) ?? "RFU")]
    parts.append("FWT " + ISODEPTiming.text(fwtNs))
    if let sfgtNs, sfgtNs > 0 { parts.append("SFGT " + ISODEPTiming.text(sfgtNs)) }
    if ta != nil, !ds.isEmpty || !dr.isEmpty {
      parts.append("DS \(divisorText(ds)) DR \(divisorText(dr))")
    }
    if cidSupported { parts.append("CID") }
    if nadSupported { parts.append("NAD") }
    if !historical.isEmpty { parts.append("historical " + Hex.string(historical, separator: " ")) }
    return "ATS " + parts.joined(separator: ", ")
  }

  private func divisorText(_ d: [Int]) -> String {
    d.isEmpty ? "106 only" : d.map(String.init).joined(separator: "/")
  }

  func findings(frameIndex: Int) -> [Finding] {
    var out = problems.map {
      Finding("malformed-ats", .warning, "ATS: \($0)", frames: [frameIndex])
    }
    out += ISODEPTiming.rfuFindings(
      "ATS", fsciName: "FSCI", fsci: fsci, fwi: fwi, sfgi: sfgi, frame: frameIndex)
    return out
  }
}
