/// The ISO/IEC 14443-3 type B commands and answers (§7.7–§7.11). Every type B frame ends with
/// CRC_B; the messages here are parsed from the payload without it.

/// REQB / WUPB: APf `05`, AFI, PARAM (ISO/IEC 14443-3 §7.7).
///
/// PARAM b5: the reader supports the extended ATQB; b4: WUPB (also wakes HALTed tags);
/// b3–b1: N, the tags answer in one of 2^N slots (N 5–7 RFU).
public struct REQB: Sendable, Equatable {
  /// Application Family Identifier (`00`: all families answer).
  public var afi: UInt8
  /// PARAM.
  public var param: UInt8

  /// Parses `05 AFI PARAM`; nil for anything else.
  public init?(parsing payload: [UInt8]) {
    guard payload.count == 3, payload[0] == 0x05 else { return nil }
    afi = payload[1]
    param = payload[2]
  }

  /// True for WUPB.
  public var isWUPB: Bool { param & 0x08 != 0 }
  /// N (PARAM b3–b1).
  public var slotExponent: Int { Int(param & 0x07) }
  /// Number of slots 2^N, nil for the RFU values 5–7.
  public var slots: Int? { slotExponent <= 4 ? 1 << slotExponent : nil }
  /// PARAM b5: the reader accepts the extended ATQB (with SFGI).
  public var extendedATQB: Bool { param & 0x10 != 0 }

  /// `REQB AFI 00, 1 slot` / `WUPB AFI 00, 4 slots, extended ATQB`.
  var decode: LayerDecode {
    let name = isWUPB ? "WUPB" : "REQB"
    var parts = ["AFI \(Hex.string([afi]))"]
    parts.append(slots.map { $0 == 1 ? "1 slot" : "\($0) slots" } ?? "N \(slotExponent) (RFU)")
    if extendedATQB { parts.append("extended ATQB") }
    var fields = [
      LayerField("afi", .hex([afi])), LayerField("param", .hex([param])),
      LayerField("wupb", .bool(isWUPB)),
    ]
    if let slots { fields.append(LayerField("slots", .int(slots))) }
    return LayerDecode(.iso14443B, name, "\(name) " + parts.joined(separator: ", "), fields)
  }
}

/// Slot-MARKER: APn = (n − 1) << 4 | `5`, n = 2…16 (ISO/IEC 14443-3 §7.8): opens slot n of a
/// REQB with several slots.
public struct SlotMarker: Sendable, Equatable {
  /// The slot opened, 2…16.
  public var slot: Int

  /// Parses the 1-byte APn; nil for anything else (`05` alone is REQB's APf).
  public init?(parsing payload: [UInt8]) {
    guard payload.count == 1, payload[0] & 0x0F == 0x05, payload[0] >> 4 != 0 else { return nil }
    slot = Int(payload[0] >> 4) + 1
  }

  var decode: LayerDecode {
    LayerDecode(
      .iso14443B, "Slot-MARKER", "Slot-MARKER slot \(slot)", [LayerField("slot", .int(slot))])
  }
}

/// ATQB: `50`, PUPI (4), Application Data (4), Protocol Info (3, or 4 in the extended ATQB)
/// (ISO/IEC 14443-3 §7.9).
///
/// Protocol Info byte 1: bit rates; byte 2: Max_Frame_Size (FSCI, b8–b5) and Protocol_Type
/// (b4–b1; b1: ISO/IEC 14443-4 compliant); byte 3: FWI (b8–b5), ADC (b4–b3), FO (b2: NAD
/// supported, b1: CID supported); byte 4: SFGI (b8–b5).
public struct ATQB: Sendable, Equatable {
  /// Pseudo-Unique PICC Identifier: the type B tag's identifier.
  public var pupi: [UInt8]
  /// Application Data (AFI, CRC_B(AID), number of applications).
  public var applicationData: [UInt8]
  /// Protocol Info (3 or 4 bytes).
  public var protocolInfo: [UInt8]

  /// Parses `50` + 11 or 12 bytes; nil for anything else.
  public init?(parsing payload: [UInt8]) {
    guard payload.count == 12 || payload.count == 13, payload[0] == 0x50 else { return nil }
    pupi = Array(payload[1..<5])
    applicationData = Array(payload[5..<9])
    protocolInfo = Array(payload[9...])
  }

  /// Bit_Rate_capability.
  public var bitRate: UInt8 { protocolInfo[0] }
  /// FSCI (Max_Frame_Size code).
  public var fsci: Int { Int(protocolInfo[1] >> 4) }
  /// FSC in bytes, nil for the RFU codes.
  public var fsc: Int? { ISODEPTiming.frameSize(fsci) }
  /// Protocol_Type b1: the tag speaks ISO/IEC 14443-4.
  public var iso14443_4: Bool { protocolInfo[1] & 0x01 != 0 }
  /// FWI.
  public var fwi: Int { Int(protocolInfo[2] >> 4) }
  /// FWT in nanoseconds; FWI 15 (RFU) is read as the default 4.
  public var fwtNs: Int64 { ISODEPTiming.waitingTimeNs(fwi) ?? ISODEPTiming.waitingTimeNs(4) ?? 0 }
  /// FO b2.
  public var nadSupported: Bool { protocolInfo[2] & 0x02 != 0 }
  /// FO b1.
  public var cidSupported: Bool { protocolInfo[2] & 0x01 != 0 }
  /// SFGI from the extended ATQB.
  public var sfgi: Int? { protocolInfo.count == 4 ? Int(protocolInfo[3] >> 4) : nil }
  /// SFGT in nanoseconds from the extended ATQB's SFGI (0 for SFGI 0, nil without it or for
  /// the RFU 15), computed as the ATS's (ISO/IEC 14443-3 §7.9.4).
  public var sfgtNs: Int64? {
    guard let sfgi else { return nil }
    return sfgi == 0 ? 0 : ISODEPTiming.waitingTimeNs(sfgi)
  }

  /// `ATQB PUPI 820de174, FSC 32, FWT 77.3 ms, ISO 14443-4, CID`.
  var decode: LayerDecode {
    var parts = ["PUPI \(Hex.string(pupi))", "FSC " + (fsc.map(String.init) ?? "RFU")]
    parts.append("FWT " + ISODEPTiming.text(fwtNs) + (fwi == 15 ? " (FWI 15 RFU, read as 4)" : ""))
    if let sfgtNs, sfgtNs > 0 { parts.append("SFGT " + ISODEPTiming.text(sfgtNs)) }
    parts.append(iso14443_4 ? "ISO 14443-4" : "not ISO 14443-4")
    if cidSupported { parts.append("CID") }
    if nadSupported { parts.append("NAD") }
    var fields = [
      LayerField("pupi", .hex(pupi)), LayerField("application_data", .hex(applicationData)),
      LayerField("protocol_info", .hex(protocolInfo)), LayerField("fsci", .int(fsci)),
    ]
    if let fsc { fields.append(LayerField("fsc", .int(fsc))) }
    fields += [
      LayerField("fwi", .int(fwi)), LayerField("fwt_us", .int(ISODEPTiming.micros(fwtNs))),
      LayerField("iso14443_4", .bool(iso14443_4)), LayerField("cid_supported", .bool(cidSupported)),
      LayerField("nad_supported", .bool(nadSupported)),
    ]
    if let sfgi { fields.append(LayerField("sfgi", .int(sfgi))) }
    if let sfgtNs { fields.append(LayerField("sfgt_us", .int(ISODEPTiming.micros(sfgtNs)))) }
    return LayerDecode(.iso14443B, "ATQB", "ATQB " + parts.joined(separator: ", "), fields)
  }

  /// `rfu-fsci` for an RFU Max_Frame_Size code, `rfu-fwi` for FWI 15, `rfu-sfgi` for SFGI 15
  /// (ISO/IEC 14443-3 §7.9.4: RFU, as in the ATS).
  func findings(frameIndex: Int) -> [Finding] {
    ISODEPTiming.rfuFindings(
      "ATQB", fsciName: "Max_Frame_Size", fsci: fsci, fwi: fwi, sfgi: sfgi, frame: frameIndex)
  }
}

/// ATTRIB: `1D`, Identifier (the PUPI), Param 1–4, higher-layer INF (ISO/IEC 14443-3 §7.10):
/// selects the tag and sets the link parameters.
///
/// Param 2: b4–b1 FSDI (the reader's frame size); Param 3 b1: ISO/IEC 14443-4 follows;
/// Param 4 b4–b1: CID.
public struct ATTRIB: Sendable, Equatable {
  /// The PUPI of the tag selected.
  public var identifier: [UInt8]
  /// Param 1 (TR0, TR1, EOF/SOF suppression).
  public var param1: UInt8
  /// Param 2 (bit rates, FSDI).
  public var param2: UInt8
  /// Param 3 (protocol type).
  public var param3: UInt8
  /// Param 4 (CID).
  public var param4: UInt8
  /// Higher-layer INF, often empty.
  public var higherLayer: [UInt8]

  /// Parses `1D` + 8 or more bytes; nil for anything else.
  public init?(parsing payload: [UInt8]) {
    guard payload.count >= 9, payload[0] == 0x1D else { return nil }
    identifier = Array(payload[1..<5])
    param1 = payload[5]
    param2 = payload[6]
    param3 = payload[7]
    param4 = payload[8]
    higherLayer = Array(payload[9...])
  }

  /// FSDI.
  public var fsdi: Int { Int(param2 & 0x0F) }
  /// FSD in bytes, nil for the RFU codes.
  public var fsd: Int? { ISODEPTiming.frameSize(fsdi) }
  /// CID.
  public var cid: Int { Int(param4 & 0x0F) }
  /// Param 3 b1.
  public var iso14443_4: Bool { param3 & 0x01 != 0 }

  /// `ATTRIB PUPI 820de174, FSDI 8 (FSD 256), CID 0, ISO 14443-4`.
  var decode: LayerDecode {
    var text = "ATTRIB PUPI \(Hex.string(identifier)), FSDI \(fsdi)"
    text += fsd.map { " (FSD \($0))" } ?? " (RFU)"
    text += ", CID \(cid)" + (iso14443_4 ? ", ISO 14443-4" : "")
    if !higherLayer.isEmpty { text += ", higher layer \(higherLayer.count) byte(s)" }
    var fields = [
      LayerField("identifier", .hex(identifier)),
      LayerField("params", .hex([param1, param2, param3, param4])),
      LayerField("fsdi", .int(fsdi)),
    ]
    if let fsd { fields.append(LayerField("fsd", .int(fsd))) }
    fields += [LayerField("cid", .int(cid)), LayerField("iso14443_4", .bool(iso14443_4))]
    if !higherLayer.isEmpty { fields.append(LayerField("higher_layer", .hex(higherLayer))) }
    return LayerDecode(.iso14443B, "ATTRIB", text, fields)
  }
}

/// The answer to ATTRIB: MBLI (b8–b5) and CID (b4–b1), then the higher-layer response
/// (ISO/IEC 14443-3 §7.11). The tag is ACTIVE after it.
public struct ATTRIBAnswer: Sendable, Equatable {
  /// The first byte.
  public var byte: UInt8
  /// Higher-layer response.
  public var higherLayer: [UInt8]

  /// Parses one byte or more; nil for an empty payload.
  public init?(parsing payload: [UInt8]) {
    guard let first = payload.first else { return nil }
    byte = first
    higherLayer = Array(payload.dropFirst())
  }

  /// Maximum Buffer Length Index (0: not given).
  public var mbli: Int { Int(byte >> 4) }
  /// The CID the tag took.
  public var cid: Int { Int(byte & 0x0F) }

  var decode: LayerDecode {
    var text = "ATTRIB answer CID \(cid)"
    text += mbli == 0 ? ", MBLI not given" : ", MBLI \(mbli)"
    var fields = [LayerField("mbli", .int(mbli)), LayerField("cid", .int(cid))]
    if !higherLayer.isEmpty { fields.append(LayerField("higher_layer", .hex(higherLayer))) }
    return LayerDecode(.iso14443B, "ATTRIB answer", text, fields)
  }
}

/// HLTB: `50` + the PUPI, answered by `00` (ISO/IEC 14443-3 §7.12).
public struct HLTB: Sendable, Equatable {
  /// The PUPI of the tag halted.
  public var identifier: [UInt8]

  /// Parses `50` + 4 bytes; nil for anything else.
  public init?(parsing payload: [UInt8]) {
    guard payload.count == 5, payload[0] == 0x50 else { return nil }
    identifier = Array(payload[1...])
  }

  var decode: LayerDecode {
    LayerDecode(
      .iso14443B, "HLTB", "HLTB PUPI \(Hex.string(identifier))",
      [LayerField("identifier", .hex(identifier))])
  }
}
