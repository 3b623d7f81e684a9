/// MIFARE Classic.
///
/// STUB — to be implemented.
public struct MIFAREClassicLayer: ProtocolLayer {
  public static let protocolID = ProtocolID.mifareClassic

  /// An idle layer.
  public init() {}

  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    .undecoded("\(Self.protocolID.rawValue) layer not implemented")
  }

  public mutating func reset() {}
}
