/// Core NFC's `NFCNDEFStatus`, as `queryNDEFStatus` returns it (Apple Core NFC,
/// `NFCNDEFStatus`: 1 notSupported, 2 readWrite, 3 readOnly).
public enum NDEFStatus: String, Sendable, Hashable {
  /// The tag is not NDEF formatted (no valid CC / no NDEF application).
  case notSupported
  /// NDEF formatted and writable.
  case readWrite
  /// NDEF formatted, write access denied.
  case readOnly
}

/// An `NFCReaderError` code with its Swift case name (Apple Core NFC `NFCError.h`; codes per
/// reference/nfc-facts.md §8.2).
public struct CoreNFCError: Sendable, Hashable, CustomStringConvertible {
  /// The numeric code (`NFCReaderError.Code.rawValue`).
  public let code: Int
  /// The Swift case name.
  public let name: String

  /// 100: the connection to the tag was lost.
  public static let tagConnectionLost = CoreNFCError(
    code: 100, name: "readerTransceiveErrorTagConnectionLost")
  /// 101: retries exhausted.
  public static let retryExceeded = CoreNFCError(
    code: 101, name: "readerTransceiveErrorRetryExceeded")
  /// 102: invalid or missing tag answer.
  public static let tagResponseError = CoreNFCError(
    code: 102, name: "readerTransceiveErrorTagResponseError")
  /// 105: packet exceeds the limit.
  public static let packetTooLong = CoreNFCError(
    code: 105, name: "readerTransceiveErrorPacketTooLong")
  /// 400: tag not writable.
  public static let tagNotWritable = CoreNFCError(
    code: 400, name: "ndefReaderSessionErrorTagNotWritable")
  /// 401: NDEF write failed.
  public static let tagUpdateFailure = CoreNFCError(
    code: 401, name: "ndefReaderSessionErrorTagUpdateFailure")
  /// 402: message larger than the tag's capacity.
  public static let tagSizeTooSmall = CoreNFCError(
    code: 402, name: "ndefReaderSessionErrorTagSizeTooSmall")
  /// 403: zero-length message.
  public static let zeroLengthMessage = CoreNFCError(
    code: 403, name: "ndefReaderSessionErrorZeroLengthMessage")

  /// `100 readerTransceiveErrorTagConnectionLost`.
  public var description: String { "\(code) \(name)" }
}
