/// A record together with its decoded payload.
public struct NDEFDecodedRecord: Sendable, Equatable {
  /// The record as parsed.
  public let record: NDEFRecord
  /// Its typed payload.
  public let payload: NDEFPayload

  /// Pairs a record with its decoded payload.
  public init(record: NDEFRecord, payload: NDEFPayload) {
    self.record = record
    self.payload = payload
  }
}

/// A typed NDEF payload, chosen by TNF and TYPE.
public indirect enum NDEFPayload: Sendable, Equatable {
  /// Well-known `T`: NFC Forum RTD-Text 1.0 §3.2.1 (facts §7.5).
  case text(NDEFText)
  /// Well-known `U`: NFC Forum RTD-URI 1.0 §3.2 (identifier codes facts §7.4).
  case uri(NDEFURI)
  /// Well-known `Sp`: NFC Forum Smart Poster RTD 1.0 §3 (nested message, facts §7.3).
  case smartPoster(NDEFSmartPoster)
  /// Well-known `act` inside a Smart Poster: NFC Forum Smart Poster RTD 1.0 §3.2.3 (1 byte:
  /// 0 do the action, 1 save for later, 2 open for editing).
  case action(UInt8)
  /// Well-known `s` inside a Smart Poster: NFC Forum Smart Poster RTD 1.0 (4-byte big-endian
  /// size of the referenced object).
  case size(UInt32)
  /// Well-known `t` inside a Smart Poster: NFC Forum Smart Poster RTD 1.0 (MIME type of the
  /// referenced object, UTF-8).
  case posterType(String)
  /// Well-known `Hs`, `Hr`, `Hm`, `Hi`: NFC Forum Connection Handover 1.2/1.3 (version byte +
  /// nested message; facts §7.3).
  case handover(NDEFHandover)
  /// Well-known `Hc`: NFC Forum Connection Handover (CTF, carrier type, carrier data).
  case handoverCarrier(NDEFHandoverCarrier)
  /// Well-known `ac`: NFC Forum Connection Handover (CPS, data reference, auxiliary references).
  case alternativeCarrier(NDEFAlternativeCarrier)
  /// Well-known `cr`: NFC Forum Connection Handover collision resolution (16-bit random number).
  case collisionResolution(UInt16)
  /// Well-known `err`: NFC Forum Connection Handover error record (reason byte + data).
  case handoverError(reason: UInt8, data: [UInt8])
  /// Well-known `Sig`: NFC Forum Signature RTD 2.0 (header fields; facts §7.3).
  case signature(NDEFSignature)
  /// `application/vnd.bluetooth.ep.oob` / `application/vnd.bluetooth.le.oob`: Bluetooth
  /// Secure Simple Pairing OOB data (Bluetooth Core Vol 3 Part C §5.2.2, §8; facts §7.6).
  case bluetoothOOB(NDEFBluetoothOOB)
  /// `application/vnd.wfa.wsc`: Wi-Fi Simple Configuration 2.0 credential TLVs (facts §7.7).
  case wifiSimpleConfig(NDEFWiFiSimpleConfig)
  /// `text/vcard` / `text/x-vcard`: vCard (RFC 6350 / vCard 2.1) as text.
  case vcard(String)
  /// Any other `text/*` media type (RFC 2046 §4.1) shown as text.
  case mimeText(type: String, text: String)
  /// Any other media type (TNF 2, RFC 2046): bytes.
  case mime(type: String, data: [UInt8])
  /// External `android.com:pkg`: Android Application Record, package name (facts §7.8).
  case androidApplication(package: String)
  /// Other external type `domain:type` (TNF 4, NFC Forum RTD 1.0 §2.3.2).
  case external(type: String, data: [UInt8])
  /// TNF 3: absolute URI (RFC 3986) in the TYPE field; payload as bytes (NDEF 1.0 §3.2.6).
  case absoluteURI(uri: String, data: [UInt8])
  /// Other well-known type (e.g. `Di`): bytes.
  case wellKnown(type: String, data: [UInt8])
  /// TNF 0: Empty (NDEF 1.0 §3.2.6).
  case empty
  /// TNF 5: Unknown payload type (NDEF 1.0 §3.2.6).
  case unknown(data: [UInt8])
  /// TNF 6 outside a chunk: Unchanged is only valid in middle/last chunks (NDEF 1.0 §2.3.3).
  case unchanged(data: [UInt8])
  /// TNF 7: Reserved (NDEF 1.0 §3.2.6).
  case reserved(data: [UInt8])
  /// A payload of a known type that could not be decoded; the findings say why.
  case undecodable(kind: String, data: [UInt8])

  /// Short name of the payload kind, e.g. "Text", "URI", "Smart Poster".
  public var kindName: String {
    switch self {
    case .text: return "Text"
    case .uri: return "URI"
    case .smartPoster: return "Smart Poster"
    case .action: return "Action"
    case .size: return "Size"
    case .posterType: return "Type"
    case .handover(let h): return h.kind.name
    case .handoverCarrier: return "Handover Carrier"
    case .alternativeCarrier: return "Alternative Carrier"
    case .collisionResolution: return "Collision Resolution"
    case .handoverError: return "Handover Error"
    case .signature: return "Signature"
    case .bluetoothOOB(let b): return b.kind == .bredr ? "Bluetooth BR/EDR OOB" : "Bluetooth LE OOB"
    case .wifiSimpleConfig: return "Wi-Fi Simple Config"
    case .vcard: return "vCard"
    case .mimeText: return "MIME text"
    case .mime: return "MIME"
    case .androidApplication: return "Android Application Record"
    case .external: return "External"
    case .absoluteURI: return "Absolute URI"
    case .wellKnown: return "Well-known"
    case .empty: return "Empty"
    case .unknown: return "Unknown"
    case .unchanged: return "Unchanged"
    case .reserved: return "Reserved"
    case .undecodable(let kind, _): return kind + " (undecodable)"
    }
  }
}
