/// NFC Forum Type 2 Tag commands.
///
/// STUB — to be implemented.
public struct Type2Layer: ProtocolLayer {
  public static let protocolID = ProtocolID.type2

  /// An idle layer.
  public init() {}

  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    .undecoded("\(Self.protocolID.rawValue) layer not implemented")
  }

  public mutating func reset() {}
}
