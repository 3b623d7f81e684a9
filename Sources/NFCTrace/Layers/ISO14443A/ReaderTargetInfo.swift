/// Activation data a reader chip reported instead of the frames themselves.
///
/// A PN53x answers InListPassiveTarget with ATQA, SAK, UID and ATS after doing REQA,
/// anticollision, SELECT and RATS itself; the libnfc importer turns them into tag frames
/// flagged `pn53x-target-info` (the ATQA frame also carries `uid=<hex>`). They are decoded as
/// the activation they summarise (PN532 User Manual §7.3.5, InListPassiveTarget).
enum ReaderTargetInfo {
  /// The flag the libnfc importer sets on these frames.
  static let flag = ReaderChipFlag.targetInfo

  /// The layer result for a target-info frame, or nil when `frame` is not one.
  static func result(_ frame: Frame, context: inout LinkContext) -> FrameLayerResult? {
    guard frame.direction == .tag, frame.sourceFlags.contains(flag) else { return nil }
    if frame.sourceFlags.contains(ReaderChipFlag.listedTarget) { return listedTarget(frame) }
    var newActivation = false
    let decode: LayerDecode
    // The ATQA frame carries the UID flag; a SAK comes once per activation; the rest is the
    // ATS (whose TL can make it 1 or 2 bytes long).
    let isATQA = frame.data.count == 2 && uidFlag(frame) != nil
    let isSAK = frame.data.count == 1 && context.sak == nil
    switch isATQA ? 2 : isSAK ? 1 : 0 {
    case 2:
      newActivation = true
      context.resetActivation()
      context.technology = .nfcA
      let atqa = ATQA(value: UInt16(frame.data[1]) << 8 | UInt16(frame.data[0]))
      context.atqa = atqa.value
      if let uid = uidFlag(frame) { context.uid = uid }
      decode = relabel(atqa.decode, note(frame))
    case 1:
      let sak = SAK(frame.data[0])
      context.sak = sak.value
      context.uidComplete = !context.uid.isEmpty
      decode = relabel(sak.decode(level: nil), note(frame))
    default:
      let ats = ATS(frame.data)
      context.ats = frame.data
      context.isoDEPActive = true
      context.fsc = ats.fsc
      context.fwtNs = ats.fwtNs
      // The ATS's own fields (as a sniffed ATS gives them), and the bytes.
      decode = LayerDecode(
        .isoDEP, "ATS", "ATS FSC \(ats.fsc.map(String.init) ?? "?") (reported by the reader chip)",
        ats.decode.fields + [LayerField("ats", .hex(frame.data))])
    }
    // ATQA has no CRC on air (ISO/IEC 14443-3 §6.4.2): nothing was stripped from it.
    let crc: CRCStatus = isATQA && frame.crc == .notCaptured ? .absent : frame.crc
    return FrameLayerResult(
      result: LayerResult(decode: decode), crc: crc, expectsResponse: false,
      newActivation: newActivation)
  }

  /// For a frame whose ISO-DEP blocks the reader chip built and took apart itself (PN533
  /// user manual §8.4.8, InDataExchange): an ISO-DEP decode that says so and the handoff of
  /// the frame, an APDU, to ISO 7816-4. Nil for other frames.
  static func isoDEPPayload(_ frame: Frame) -> FrameLayerResult? {
    guard !frame.sourceFlags.isEmpty, frame.sourceFlags.contains(ReaderChipFlag.isoDEPPayload)
    else { return nil }
    if frame.data.isEmpty {
      // An I-block without INF: the presence check Android's NFC stack sends to an ISO-DEP
      // tag (ISO/IEC 14443-4 §7.5.6; AOSP RW_T4tPresenceCheck), and the tag's empty answer.
      let decode = LayerDecode(
        .isoDEP, "I-block",
        frame.direction == .reader
          ? "empty I-block framed by the reader chip (presence check, no APDU)"
          : "empty I-block (answer to the presence check)",
        [LayerField("inf_length", .int(0)), LayerField("chaining", .bool(false))])
      return FrameLayerResult(
        result: LayerResult(decode: decode), crc: frame.crc,
        expectsResponse: frame.direction == .reader, newActivation: false)
    }
    let decode = LayerDecode(
      .isoDEP, "I-block INF", "INF of I-blocks framed by the reader chip",
      [LayerField("inf_length", .int(frame.data.count))])
    let unit = LayerUnit(
      direction: frame.direction, bytes: frame.data, frameIndex: frame.index,
      timeNs: frame.timeNs)
    return FrameLayerResult(
      result: LayerResult(decode: decode, handoff: (.iso7816, unit)), crc: frame.crc,
      expectsResponse: frame.direction == .reader, newActivation: false)
  }

  /// A further target the reader chip listed (`ReaderChipFlag.listedTarget`): its target data
  /// `Tg SENS_RES(2, MSB first) SEL_RES NFCIDLength NFCID1 [ATS]` (PN533 user manual §8.4.5,
  /// InListPassiveTarget) decoded as `listed target`, leaving the activation as it is.
  private static func listedTarget(_ frame: Frame) -> FrameLayerResult {
    let d = frame.data
    let decode: LayerDecode
    if d.count >= 5, d.count >= 5 + Int(d[4]) {
      let uid = Array(d[5..<(5 + Int(d[4]))])
      let ats = Array(d[(5 + Int(d[4]))...])
      var fields = [
        LayerField("tg", .int(Int(d[0]))), LayerField("atqa", .hex([d[1], d[2]])),
        LayerField("sak", .hex([d[3]])), LayerField("uid", .hex(uid)),
      ]
      if !ats.isEmpty { fields.append(LayerField("ats", .hex(ats))) }
      decode = LayerDecode(
        .iso14443A, "listed target",
        "Tg \(d[0]) listed by the reader chip: ATQA 0x\(Hex.string([d[1], d[2]])), SAK "
          + "0x\(Hex.string([d[3]])), UID \(Hex.uid(uid))"
          + (ats.isEmpty ? "" : ", ATS \(Hex.string(ats))")
          + " (another target; exchanges addressed to it show its activation first)",
        fields)
    } else {
      decode = LayerDecode(
        .iso14443A, "listed target",
        "target data of another target listed by the reader chip, cut short (\(d.count) bytes)",
        [LayerField("data", .hex(d))])
    }
    return FrameLayerResult(
      result: LayerResult(decode: decode), crc: .absent, expectsResponse: false,
      newActivation: false)
  }

  /// How the activation frame came: reported with the listing, or shown again because an
  /// exchange addressed that target after another one.
  private static func note(_ frame: Frame) -> String {
    frame.sourceFlags.contains(ReaderChipFlag.targetSelected)
      ? "listed by the reader chip, selected again for the exchange addressed to it"
      : "reported by the reader chip"
  }

  private static func uidFlag(_ frame: Frame) -> [UInt8]? {
    guard let flag = frame.sourceFlags.first(where: { $0.hasPrefix("uid=") }) else { return nil }
    return Hex.bytes(flag.dropFirst(4))
  }

  private static func relabel(_ d: LayerDecode, _ note: String) -> LayerDecode {
    var d = d
    d.summary += " (\(note))"
    return d
  }
}
