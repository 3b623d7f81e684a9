/// What the outermost layer returns for a whole frame.
public struct FrameLayerResult: Sendable {
  /// The layer's decode and handoff.
  public var result: LayerResult
  /// The frame's CRC status, resolved (never `.unchecked`).
  public var crc: CRCStatus
  /// False for commands that get no answer by protocol (HLTA).
  public var expectsResponse: Bool
  /// True when this frame starts a new activation (REQA/WUPA): inner layers reset.
  public var newActivation: Bool

  /// Creates a result.
  public init(result: LayerResult, crc: CRCStatus, expectsResponse: Bool, newActivation: Bool) {
    self.result = result
    self.crc = crc
    self.expectsResponse = expectsResponse
    self.newActivation = newActivation
  }
}

/// ISO/IEC 14443-3 type A: REQA/WUPA, ATQA, anticollision and SELECT for cascade levels 1–3,
/// SAK, HLTA, CRC_A; hands everything else to ISO-DEP (after ATS), MIFARE Classic or Type 2.
///
/// STUB — to be implemented.
public struct ISO14443ALayer: Sendable {
  /// An idle layer.
  public init() {}

  /// Decodes one frame (CRC included), resolving its CRC status.
  public mutating func decode(frame: Frame, context: inout LinkContext) -> FrameLayerResult {
    FrameLayerResult(
      result: .undecoded("ISO 14443-3A layer not implemented"), crc: .absent,
      expectsResponse: frame.direction == .reader, newActivation: false)
  }

  /// Forgets the anticollision state.
  public mutating func reset() {}
}
