/// PPS request `D0|CID PPS0 [PPS1]` and its answer `D0|CID`.
///
/// PPS0 b5 (0x10) says PPS1 follows; PPS1 b4–b3 DSI (PICC→PCD divisor), b2–b1 DRI (PCD→PICC
/// divisor), 0…3 = divisor 1/2/4/8 = 106/212/424/847 kbit/s. ISO/IEC 14443-4 §5.3;
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
    pps1 = payload.count == 3 ? payload[2] : nil
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

  /// The PPS response decode (`PPS response CID 0`).
  static func responseDecode(_ ppss: UInt8) -> LayerDecode {
    let cid = Int(ppss & 0x0F)
    return LayerDecode(
      .isoDEP, "PPS response", "PPS response CID \(cid)", [LayerField("cid", .int(cid))])
  }
}
