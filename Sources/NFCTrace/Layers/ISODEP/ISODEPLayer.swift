/// ISO/IEC 14443-4 (ISO-DEP).
///
/// STUB — to be implemented.
public struct ISODEPLayer: ProtocolLayer {
  public static let protocolID = ProtocolID.isoDEP

  /// An idle layer.
  public init() {}

  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    .undecoded("\(Self.protocolID.rawValue) layer not implemented")
  }

  public mutating func reset() {}
}
