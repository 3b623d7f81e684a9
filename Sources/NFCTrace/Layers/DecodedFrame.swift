/// How a frame relates to the request/response pairing done after decoding.
public enum ResponseLink: Sendable, Equatable {
  /// This request was answered by the frame at the index.
  case answeredBy(Int)
  /// This response answers the request at the index.
  case answers(Int)
  /// This request got no answer before the next request or event.
  case unanswered
  /// A command that by protocol gets no answer (HLTA), or an event.
  case noAnswerExpected
}

/// A frame with everything the decoder stack understood of it.
///
/// A reference: a frame passes through several stages (decoder, pairer, session segmenter,
/// analysis, renderers) and copying its arrays and strings at every hand-over was a large part
/// of the time per frame. Each stage owns the frame while it holds it: the decoder fills it in,
/// the pairer sets `response`, the segmenter `session`; after that nothing changes it, so it
/// may be shared across threads (hence `@unchecked Sendable`: the hand-over from the decoding
/// thread goes through a lock, see `DecodeThread`). For the same reason the properties skip the
/// dynamic exclusivity check, which cost more than the copies it replaced.
public final class DecodedFrame: @unchecked Sendable {
  /// The frame; its `crc` is resolved by the ISO 14443 layer.
  @exclusivity(unchecked) public var frame: Frame
  /// Decodes from the outermost layer (ISO 14443-3) to the innermost (T2T, T4T, NDEF…).
  @exclusivity(unchecked) public var layers: [LayerDecode]
  /// Per-frame findings (bad CRC, parity errors, bad BCC, malformed APDU…).
  @exclusivity(unchecked) public var findings: [Finding]
  /// Why the innermost layer reached did not decode the bytes, when it did not.
  @exclusivity(unchecked) public var undecodedReason: String?
  /// False for commands that by protocol get no answer (HLTA) and for events.
  @exclusivity(unchecked) public var expectsResponse: Bool
  /// Request/response pairing, set by the transaction stage.
  @exclusivity(unchecked) public var response: ResponseLink?
  /// Session index, set by the session stage (nil for polling frames no tag answered).
  @exclusivity(unchecked) public var session: Int?
  /// True for a REQA/WUPA: the frame starts a new activation.
  @exclusivity(unchecked) public var startsActivation = false
  /// The complete UID, on the frame whose SAK completed it (ISO/IEC 14443-3 §6.5.3.4).
  @exclusivity(unchecked) public var completedUID: [UInt8]?
  /// The technology whose layer took the frame: the source's, else the one `FrameDecoder`
  /// found for a source that does not say — NFC-F (LEN and CRC-F), HID iCLASS (after ACTALL),
  /// ISO 14443-B (`ISO14443BLayer.claims`, or a link whose frames verified CRC_B alone).
  /// `.unknown` for events and for such a source's frames the type A layer took (type A is
  /// assumed there; a frame whose CRC_B verifies alone stays raw, `OtherTechnology`).
  /// Writers of formats that have no technology field (a Proxmark3 trace: type A parity or
  /// none) take it from here.
  @exclusivity(unchecked) public var decodedTechnology: Technology
  /// True for a frame of a source that does not say its technology whose CRC_B verifies where
  /// CRC_A and CRC-F do not: ISO 14443-B or ISO 15693 (both use the CRC of ISO/IEC 13239),
  /// kept raw — of neither NFC-A nor NFC-F, though `technology` stays `.unknown`.
  @exclusivity(unchecked) public var crcBAlone = false

  /// Creates a decoded frame with no layers.
  public init(frame: consuming Frame) {
    self.decodedTechnology = frame.technology
    self.frame = frame
    self.layers = []
    self.findings = []
    self.undecodedReason = nil
    self.expectsResponse = frame.direction == .reader
    self.response = nil
    self.session = nil
  }

  /// The technology the outermost decode shows (ISO 14443-3 type A or B), else what the
  /// source said.
  public var technology: Technology {
    switch layers.first?.protocolID {
    case .iso14443A: return .nfcA
    case .iso14443B: return .nfcB
    default: return frame.technology
    }
  }

  /// The innermost decode, if any. Inlined: callers mostly read one field of it (`name`), and
  /// a call returned the whole decode, its strings and fields retained and released.
  @inline(__always) public var innermost: LayerDecode? { layers.last }

  /// The decode of `protocolID`, if this frame carries that layer.
  @inline(__always) public func layer(_ protocolID: ProtocolID) -> LayerDecode? {
    layers.first { $0.protocolID == protocolID }
  }
}
