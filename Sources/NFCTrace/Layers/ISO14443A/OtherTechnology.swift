/// Frames of technologies the decoder does not decode yet: kept raw with a reason, never
/// dropped. Type B frames still get their CRC_B checked (ISO/IEC 14443-3 §7.2).
enum OtherTechnology {
  /// The result for a frame that is not type A, nil for type A and unknown technology.
  static func result(_ frame: Frame) -> FrameLayerResult? {
    let reason: String
    var crc = frame.crc
    var findings: [Finding] = []
    switch frame.technology {
    case .nfcA, .unknown:
      return nil
    case .nfcB:
      reason = "ISO 14443-B not decoded yet"
      let resolved = FrameCRC.resolve(frame, carriesCRC: true, encrypted: false, typeB: true)
      crc = resolved.0
      if let f = resolved.1 { findings.append(f) }
    case .nfcF:
      reason = "FeliCa (NFC-F) not decoded yet"
    case .nfcV:
      reason = "ISO 15693 (NFC-V) not decoded yet"
    case .iClass:
      reason = "HID iCLASS not decoded yet"
    case .lowFrequency:
      reason = "low-frequency (125/134 kHz) frames not decoded yet"
    }
    return FrameLayerResult(
      result: LayerResult(findings: findings, reason: reason), crc: crc,
      expectsResponse: frame.direction == .reader, newActivation: false)
  }
}
