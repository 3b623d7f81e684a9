/// Gives the frames of a source that does not say their technology (pcap link type 264, a
/// Proxmark3 `.trace` without type A parity) the technology the decoder reads them as, for
/// writers whose format has no technology field but depends on it: a Proxmark3 trace keeps
/// type A parity bits, zeros for type B, FeliCa, ISO 15693 and iCLASS (`Proxmark3TraceWriter`),
/// and its `trace list` table checks CRC_A, CRC_B or CRC-F by technology
/// (`Proxmark3TextWriter`).
///
/// Every frame goes through one `FrameDecoder`, in order, so that the decoder's link state
/// (an iCLASS ACTALL, a type B activation, a CRC_B link) carries over from frame to frame as
/// when the trace is analysed; only `technology` of the frame handed back changes.
public struct TechnologyResolver: Sendable {
  private var decoder = FrameDecoder()

  /// A resolver with the decoder idle.
  public init() {}

  /// `frame`, its technology set to `DecodedFrame.decodedTechnology` when the source left it
  /// `.unknown` (it stays `.unknown` for frames the decoder takes as type A by assumption).
  public mutating func resolve(_ frame: Frame) -> Frame {
    let decoded = decoder.decode(frame)
    guard frame.technology == .unknown else { return frame }
    var out = frame
    out.technology = decoded.decodedTechnology
    return out
  }
}
