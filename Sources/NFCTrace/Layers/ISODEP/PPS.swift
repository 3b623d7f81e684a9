/// PPS request `D0|CID PPS0 [PPS1]` and its answer `D0|CID`.
///
/// PPS0 is `11` (PPS1 follows) or `01` (no PPS1): b8–b6 0, b5 PPS1 present, b4–b1 0001.
/// PPS1 b8–b5 RFU (0), b4–b3 DSI (PICC→PCD divisor), b2–b1 DRI (PCD→PICC divisor), 0…3 =
/// divisor 1/2/4/8 = 106/212/424/847 kbit/s. ISO/IEC 14443-4 §5.3;
/// nfc-facts §2.4 (bit layout marked unverified there; it matches the nfc-laboratory capture
/// `D0 11 0A` followed by 424 kbit/s frames).
public struct PPSRequest: Sendable, Equatable {
  /// PPSS (`D0`–`DF`).
  public var ppss: UInt8
  /// PPS0.
  public var pps0: UInt8
  /// PPS1, when present.
  public var pps1: UInt8?

  /// Reads a PPS request; nil unless `Dx PPS0 [PPS1]`.
  public init?(_ payload: [UInt8]) {
    guard (2...3).contains(payload.count), payload[0] & 0xF0 == 0xD0 else { return nil }
    ppss = payload[0]
    pps0 = payload[1]
    pps1 = payload.count == 3 && payload[1] & 0x10 != 0 ? payload[2] : nil
    extra = payload.count == 3 && payload[1] & 0x10 == 0
  }

  /// A third byte after a PPS0 that announces no PPS1.
  public var extra = false
  /// PPS0 announces PPS1.
  public var announcesPPS1: Bool { pps0 & 0x10 != 0 }

  /// What breaks ISO/IEC 14443-4 §5.3 in the request, or asks for a bit rate the ATS's TA(1)
  /// does not offer (§5.2.4: DS bits b7–b5 for divisors 8/4/2 PICC→PCD, DR bits b3–b1 for
  /// PCD→PICC); empty when it is valid. `ta`: TA(1), nil when the ATS had none (106 kbit/s only).
  public func problems(ta: UInt8?, atsSeen: Bool) -> [String] {
    var out: [String] = []
    if pps0 & 0xEF != 0x01 {
      out.append("PPS0 \(Hex.string([pps0])) is neither 11 (PPS1 follows) nor 01 (no PPS1)")
    }
    if announcesPPS1, pps1 == nil { out.append("PPS0 announces PPS1, which is missing") }
    if extra { out.append("PPS0 announces no PPS1, yet a third byte follows") }
    if let pps1, pps1 & 0xF0 != 0 {
      out.append("PPS1 \(Hex.string([pps1])) has RFU bits b8–b5 set")
    }
    guard atsSeen, pps1 != nil else { return out }
    let t = ta ?? 0
    if dsi > 0, t & (0x10 << (dsi - 1)) == 0 {
      out.append("DSI \(dsi) (\(Self.rate(dsi)) kbit/s PICC→PCD) is not offered by TA(1)")
    }
    if dri > 0, t & (0x01 << (dri - 1)) == 0 {
      out.append("DRI \(dri) (\(Self.rate(dri)) kbit/s PCD→PICC) is not offered by TA(1)")
    }
    if t & 0x80 != 0, dsi != dri {
      out.append("TA(1) b8 asks for the same divisor both ways, but DSI \(dsi) ≠ DRI \(dri)")
    }
    return out
  }

  /// CID (low nibble of PPSS).
  public var cid: Int { Int(ppss & 0x0F) }
  /// DSI, PICC→PCD (0 when PPS1 is absent).
  public var dsi: Int { Int(((pps1 ?? 0) >> 2) & 0x03) }
  /// DRI, PCD→PICC (0 when PPS1 is absent).
  public var dri: Int { Int((pps1 ?? 0) & 0x03) }

  /// Bit rate in kbit/s of divisor index 0…3.
  static func rate(_ index: Int) -> Int { [106, 212, 424, 847][index & 3] }

  var decode: LayerDecode {
    var fields = [LayerField("cid", .int(cid)), LayerField("pps0", .hex([pps0]))]
    var summary = "PPS CID \(cid)"
    if let pps1 {
      fields += [
        LayerField("pps1", .hex([pps1])), LayerField("dsi", .int(dsi)),
        LayerField("dri", .int(dri)),
        LayerField("picc_to_pcd_kbps", .int(Self.rate(dsi))),
        LayerField("pcd_to_picc_kbps", .int(Self.rate(dri))),
      ]
      summary +=
        ", DSI \(dsi) (PICC→PCD \(Self.rate(dsi)) kbit/s), DRI \(dri) (PCD→PICC \(Self.rate(dri)) kbit/s)"
    }
    return LayerDecode(.isoDEP, "PPS", summary, fields)
  }

  /// `pps-response-cid` when the PPS response `response` carries another CID than the
  /// request's PPSS `request`: the PICC answers with the request's PPSS (ISO/IEC 14443-4 §5.4;
  /// nfc-facts §2.4), so the answer is another tag's or a non-conforming one (§5.6.2: the
  /// reader takes an invalid PPS response as an error).
  static func responseFindings(_ response: UInt8, request: UInt8, frame: Int) -> [Finding] {
    guard response != request else { return [] }
    return [
      Finding(
        "pps-response-cid", .warning,
        "PPS response carries CID \(response & 0x0F), the PPS request CID \(request & 0x0F): "
          + "the PICC answers with the request's PPSS (ISO/IEC 14443-4 §5.4)", frames: [frame])
    ]
  }

  /// The PPS response decode (`PPS response CID 0`).
  static func responseDecode(_ ppss: UInt8) -> LayerDecode {
    let cid = Int(ppss & 0x0F)
    return LayerDecode(
      .isoDEP, "PPS response", "PPS response CID \(cid)", [LayerField("cid", .int(cid))])
  }
}
