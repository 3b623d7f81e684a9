/// A Type 4 Tag NDEF file: NLEN (2 bytes, mapping 1.0/2.0) or ENLEN (4 bytes, mapping 3.0)
/// big-endian, then the message (NFC Forum T4T 2.0, NDEF file: NLEN).
public struct Type4NDEFFile: Sendable {
  /// 2 (NLEN) or 4 (ENLEN).
  public let lengthFieldSize: Int
  /// Message length from NLEN/ENLEN (0 = initialized tag with no message).
  public let nlen: Int
  /// Message bytes (those present when NLEN claims more than the file holds).
  public let message: [UInt8]
  /// `nlen-past-end` when NLEN exceeds the bytes given.
  public let findings: [NDEFFinding]

  /// Parses a file read from offset 0. `extendedLength` selects the 4-byte ENLEN of
  /// mapping version 3.0.
  ///
  /// - Throws: `NDEFError` (`length-past-end`, offset 0) when the length field is cut.
  public init(parsing bytes: [UInt8], extendedLength: Bool = false) throws(NDEFError) {
    var c = NDEFByteCursor(bytes)
    lengthFieldSize = extendedLength ? 4 : 2
    nlen = extendedLength ? Int(try c.readUInt32("ENLEN")) : Int(try c.readUInt16("NLEN"))
    let available = min(nlen, c.remaining)
    message = (try? c.readBytes(available, "NDEF message")) ?? []
    if available < nlen {
      findings = [
        NDEFFinding(
          code: "nlen-past-end", severity: .error, offset: 0,
          message: "\(extendedLength ? "ENLEN" : "NLEN") "
            + "says \(nlen) bytes, the file holds \(available) after it (NFC Forum T4T 2.0, NDEF file: NLEN)"
        )
      ]
    } else {
      findings = []
    }
  }
}
