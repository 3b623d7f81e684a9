/// Frames of technologies the decoder does not decode yet: kept raw with a reason, never
/// dropped.
enum OtherTechnology {
  /// The result for a frame that is not type A, nil for type A and unknown technology.
  static func result(_ frame: Frame, crcAValid: Bool?) -> FrameLayerResult? {
    let reason: String
    var crc = frame.crc
    var findings: [Finding] = []
    switch frame.technology {
    case .nfcA, .nfcB:
      return nil  // type B frames go to ISO14443BLayer before the type A layer
    case .unknown:
      // Sources that do not say the technology (Proxmark3 traces without type A parity, pcap
      // 264): a frame whose CRC_B verifies and whose CRC_A does not is ISO 14443-B or ISO 15693
      // (both use the CRC of ISO/IEC 13239), not a type A command.
      guard frame.crc == .unchecked, frame.data.count >= 3,
        !(crcAValid ?? CRC.hasValidCRCA(frame.data)), CRC.hasValidCRCB(frame.data)
      else { return nil }
      reason = "CRC_B verifies, not CRC_A: an ISO 14443-B or ISO 15693 frame, not decoded yet"
      crc = .ok
    case .nfcF:
      reason = "FeliCa (NFC-F) not decoded yet"
    case .nfcV:
      reason = "ISO 15693 (NFC-V) not decoded yet"
      let (status, finding) = ISO15693CRC.resolve(frame)
      crc = status
      if let finding { findings = [finding] }
    case .iClass:
      reason = "HID iCLASS not decoded yet"
    case .lowFrequency:
      reason = "low-frequency (125/134 kHz) frames not decoded yet"
    }
    var out = FrameLayerResult(
      result: LayerResult(findings: findings, reason: reason), crc: crc,
      expectsResponse: frame.direction == .reader, newActivation: false)
    out.crcBAlone = frame.technology == .unknown
    return out
  }
}
