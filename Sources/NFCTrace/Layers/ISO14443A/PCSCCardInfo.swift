/// What a PC/SC contactless reader reports of the card it activated, in place of the
/// activation frames it does not pass to the host: the ATR it builds (CCID IccPowerOn answer)
/// and the UID (GET DATA `FF CA 00 00`). The importers flag these tag frames
/// `ReaderChipFlag.atr` and `ReaderChipFlag.uid`.
///
/// ATR layouts (PC/SC 2.01 part 3 §3.1.3.2.3): a storage card (ISO/IEC 14443-3 or FeliCa) has
/// `3B 8F 80 01 80 4F 0C` RID `A0 00 00 03 06`, the standard byte SS, the card name NN (2
/// bytes), 4 RFU bytes and TCK; an ISO/IEC 14443-4 card has `3B 8n 80 01` followed by the
/// ATS historical bytes (type A) or ATQB data (type B) and TCK.
public enum PCSCCardInfo {
  /// The layer result for an ATR or UID frame, or nil when `frame` is neither.
  static func result(_ frame: Frame, context: inout LinkContext) -> FrameLayerResult? {
    // Most frames carry no flags: one check keeps this off the hot path.
    guard frame.direction == .tag, !frame.sourceFlags.isEmpty else { return nil }
    if frame.sourceFlags.contains(ReaderChipFlag.atr) { return atr(frame, &context) }
    guard frame.sourceFlags.contains(ReaderChipFlag.uid) else { return nil }
    context.uid = frame.data
    context.uidComplete = !frame.data.isEmpty
    let decode = LayerDecode(
      .iso14443A, "UID", "UID \(Hex.string(frame.data)) (GET DATA, reported by the reader)",
      [LayerField("uid_part", .hex(frame.data))])
    return FrameLayerResult(
      result: LayerResult(decode: decode), crc: frame.crc, expectsResponse: false,
      newActivation: false)
  }

  /// True for the ATR of an ISO/IEC 14443-4 card (`3B 8n 80 01` …).
  public static func isISODEP(atr b: [UInt8]) -> Bool {
    PCSCCardName(atr: b) == nil && b.count >= 4 && b[0] == 0x3B && b[1] & 0xF0 == 0x80
      && b[2] == 0x80 && b[3] == 0x01
  }

  private static func atr(_ frame: Frame, _ context: inout LinkContext) -> FrameLayerResult {
    let b = frame.data
    context.resetActivation()
    var fields = [LayerField("atr", .hex(b))]
    var what = "card"
    if let card = PCSCCardName(atr: b) {
      fields += [
        LayerField("standard", .int(Int(card.standard))),
        LayerField("card_name", .int(Int(card.name))),
      ]
      if card.standard == 0x03 { context.technology = .nfcA }
      context.mifareClassicByATR = card.isMIFAREClassic
      what = "storage card, \(card.standardName), \(card.product ?? card.nameText)"
    } else if isISODEP(atr: b) {
      context.isoDEPActive = true
      what = "ISO/IEC 14443-4 card"
    }
    let decode = LayerDecode(
      .iso14443A, "ATR", "ATR \(Hex.string(b)) (PC/SC: \(what), reported by the reader)", fields)
    return FrameLayerResult(
      result: LayerResult(decode: decode), crc: frame.crc, expectsResponse: false,
      newActivation: true)
  }
}

/// The standard byte SS and card name NN of a PC/SC storage-card ATR (`3B 8F 80 01 80 4F 0C`
/// RID `A0 00 00 03 06` SS NN NN, PC/SC 2.01 part 3 §3.1.3.2.3 and its supplemental document).
public struct PCSCCardName: Sendable, Equatable {
  /// SS: 03 ISO/IEC 14443 A part 3, 07 B part 3, 0B ISO/IEC 15693 part 3, 11 FeliCa, …
  public var standard: UInt8
  /// NN: 0001 MIFARE Classic 1K, 0002 4K, 0003 Ultralight, …
  public var name: UInt16

  /// The card of a storage-card ATR, nil for another ATR.
  public init?(atr b: [UInt8]) {
    let rid: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]
    guard b.count >= 15, b[0] == 0x3B, b[4] == 0x80, b[5] == 0x4F, Array(b[7..<12]) == rid
    else { return nil }
    standard = b[12]
    name = UInt16(b[13]) << 8 | UInt16(b[14])
  }

  /// The standard SS names.
  public var standardName: String {
    switch standard {
    case 0x03: return "ISO/IEC 14443-3 type A"
    case 0x07: return "ISO/IEC 14443-3 type B"
    case 0x0B: return "ISO/IEC 15693-3"
    case 0x11: return "FeliCa"
    default: return "standard 0x\(Hex.string([standard]))"
    }
  }

  /// The product NN names, as the session's tag identity names products.
  public var product: String? {
    switch name {
    case 0x0001: return "MIFARE Classic 1K"
    case 0x0002: return "MIFARE Classic 4K"
    case 0x0003: return "MIFARE Ultralight / NTAG (Type 2)"
    case 0x0026: return "MIFARE Mini"
    case 0x003A: return "MIFARE Ultralight C"
    case 0x0036: return "MIFARE Plus (SL1 2K)"
    case 0x0037: return "MIFARE Plus (SL1 4K)"
    default: return nil
    }
  }

  /// `card name 0x0042`.
  public var nameText: String {
    "card name 0x" + Hex.string([UInt8(name >> 8), UInt8(name & 0xFF)])
  }

  /// MIFARE Classic, or a MIFARE Plus in its Classic-compatible security level 1.
  public var isMIFAREClassic: Bool { [0x0001, 0x0002, 0x0026, 0x0036, 0x0037].contains(name) }

  /// MIFARE Ultralight family: NFC Forum Type 2.
  public var isType2: Bool { name == 0x0003 || name == 0x003A }
}
