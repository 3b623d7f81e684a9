/// NFC Forum Type 4 Tag NDEF application.
///
/// STUB — to be implemented.
public struct Type4Layer: ProtocolLayer {
  public static let protocolID = ProtocolID.type4

  /// An idle layer.
  public init() {}

  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    .undecoded("\(Self.protocolID.rawValue) layer not implemented")
  }

  public mutating func reset() {}
}
