/// Gives the frames of a source that does not say their technology (pcap link type 264, a
/// Proxmark3 `.trace` without type A parity) the technology the decoder reads them as, for
/// writers whose format has no technology field but depends on it: a Proxmark3 trace keeps
/// type A parity bits, zeros for type B, FeliCa, ISO 15693 and iCLASS (`Proxmark3TraceWriter`),
/// and its `trace list` table checks CRC_A, CRC_B or CRC-F by technology
/// (`Proxmark3TextWriter`).
///
/// It also gives a short frame that the source stored as a whole byte (pcap link type 264 has
/// no bit count) the valid bits the decoder read it with, which the Proxmark3 formats keep
/// (a record's duration, a listing's `(n)`): a reader's REQA `26` / WUPA `52`, which the
/// ISO 14443-A layer decodes as 7-bit short frames (ISO/IEC 14443-3 §6.3.1), and a tag's 1-byte
/// answer the Type 2, MIFARE Classic or ISO-DEP layer decodes as the 4-bit ACK/NAK (NFC Forum
/// T2T §9.3; NXP MF1S50yyX §9.3).
///
/// Every frame goes through one `FrameDecoder`, in order, so that the decoder's link state
/// (an iCLASS ACTALL, a type B activation, a CRC_B link, the command an answer is to) carries
/// over from frame to frame as when the trace is analysed; only `technology` and `bits` of the
/// frame handed back change.
public struct TechnologyResolver: Sendable {
  private var decoder = FrameDecoder()

  /// A resolver with the decoder idle.
  public init() {}

  /// `frame`, its technology set to `DecodedFrame.decodedTechnology` when the source left it
  /// `.unknown` (it stays `.unknown` for frames the decoder takes as type A by assumption),
  /// and its `bits` to the decoded short frame's when the source gave neither a bit count nor
  /// a duration to derive one from (`shortFrameBits`).
  public mutating func resolve(_ frame: Frame) -> Frame {
    let decoded = decoder.decode(frame)
    var out = frame
    if frame.bits == nil, let bits = Self.shortFrameBits(decoded) { out.bits = bits }
    if frame.technology == .unknown { out.technology = decoded.decodedTechnology }
    return out
  }

  /// Whether a pcap (which has no bit count) keeps `frame`'s bits in effect: whole bytes, or
  /// a 1-byte short frame that reads back with the same bits by protocol — REQA/WUPA (and
  /// Apple's `7A`–`7D`) 7 bits from the reader, a tag's 4-bit ACK/NAK below `10`
  /// (`Proxmark3.shortFrameBits(byte:fromReader:)`, ISO/IEC 14443-3 §6.3.1, NFC Forum T2T §9.3).
  public static func pcapKeepsBits(_ frame: Frame) -> Bool {
    guard let bits = frame.bits, (1...7).contains(bits), !frame.data.isEmpty else { return true }
    guard frame.data.count == 1, frame.direction != .event else { return false }
    return Proxmark3.shortFrameBits(byte: frame.data[0], fromReader: frame.direction == .reader)
      == bits
  }

  /// Valid bits of a 1-byte frame as the decoder read it: 7 for the REQA/WUPA the ISO 14443-A
  /// layer decoded (its `bits` field), 4 for a tag's 4-bit ACK/NAK (a value 0–Fh the Type 2,
  /// MIFARE Classic or ISO-DEP layer decoded as `ACK`/`NAK`); nil otherwise.
  static func shortFrameBits(_ decoded: DecodedFrame) -> Int? {
    let frame = decoded.frame
    guard frame.data.count == 1, frame.durationNs == nil, frame.sourceFlags.isEmpty else {
      return nil
    }
    if frame.direction == .reader {
      guard let a = decoded.layer(.iso14443A), a.name == "REQA" || a.name == "WUPA",
        case .int(let bits)? = a.field("bits")
      else { return nil }
      return bits
    }
    let ackNak = decoded.layers.contains {
      ($0.name == "ACK" || $0.name == "NAK")
        && [.type2, .mifareClassic, .isoDEP].contains($0.protocolID)
    }
    return ackNak && frame.data[0] <= 0x0F ? 4 : nil
  }
}
