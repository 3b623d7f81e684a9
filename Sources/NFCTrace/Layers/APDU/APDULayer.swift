/// ISO/IEC 7816-4 APDUs.
///
/// STUB — to be implemented.
public struct APDULayer: ProtocolLayer {
  public static let protocolID = ProtocolID.iso7816

  /// An idle layer.
  public init() {}

  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    .undecoded("\(Self.protocolID.rawValue) layer not implemented")
  }

  public mutating func reset() {}
}
