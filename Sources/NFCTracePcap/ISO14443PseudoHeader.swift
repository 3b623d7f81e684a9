import NFCTrace

/// The event byte of the LINKTYPE_ISO_14443 (264) pseudo-header.
///
/// Values as defined by the link type's documentation (Martin Kaiser,
/// "pcap-iso14443", referenced by tcpdump.org's link-layer header types list) and
/// Wireshark `epan/dissectors/packet-iso14443.c` (`ISO14443_EVT_*`).
enum ISO14443PcapEvent: UInt8 {
  /// Data PCD → PICC whose CRC bytes were dropped by the capture.
  case readerDataNoCRC = 0xFA
  /// Data PICC → PCD whose CRC bytes were dropped by the capture.
  case tagDataNoCRC = 0xFB
  /// The reader switched its RF field on.
  case fieldOn = 0xFC
  /// The reader switched its RF field off.
  case fieldOff = 0xFD
  /// Data PCD → PICC, CRC included when the frame has one.
  case readerData = 0xFE
  /// Data PICC → PCD, CRC included when the frame has one.
  case tagData = 0xFF

  /// Direction, event and CRC state of a frame carrying this event.
  var frameShape: (direction: Direction, event: FrameEvent?, crc: CRCStatus) {
    switch self {
    case .readerDataNoCRC: return (.reader, nil, .notCaptured)
    case .tagDataNoCRC: return (.tag, nil, .notCaptured)
    case .fieldOn: return (.event, .fieldOn, .unchecked)
    case .fieldOff: return (.event, .fieldOff, .unchecked)
    case .readerData: return (.reader, nil, .unchecked)
    case .tagData: return (.tag, nil, .unchecked)
    }
  }

  /// True for the four data-transfer events (not field on/off).
  var carriesData: Bool { self != .fieldOn && self != .fieldOff }

  /// The event that represents `frame`; nil for an event frame without a `FrameEvent`.
  init?(for frame: Frame) {
    let dropped = frame.crc == .notCaptured
    switch frame.direction {
    case .reader: self = dropped ? .readerDataNoCRC : .readerData
    case .tag: self = dropped ? .tagDataNoCRC : .tagData
    case .event:
      switch frame.event {
      case .fieldOn: self = .fieldOn
      case .fieldOff: self = .fieldOff
      case nil: return nil
      }
    }
  }
}

/// The 4-byte pseudo-header that starts every LINKTYPE_ISO_14443 (264) packet:
/// byte 0 version (0), byte 1 event (`ISO14443PcapEvent`), bytes 2–3 the length of the data
/// that follows, big-endian.
///
/// Source: Wireshark `packet-iso14443.c` `dissect_iso14443` (rejects version ≠ 0, unknown
/// events and a length field ≠ packet length − 4); checked with tshark 4.0.17 on
/// `shared/traces/derived/synthetic/*.pcap`.
enum ISO14443PseudoHeader {
  /// Size of the pseudo-header in bytes.
  static let size = 4
  /// The only version defined.
  static let version: UInt8 = 0

  /// The 4 header bytes for `event` and a payload of `length` bytes (≤ 65535).
  /// The link-type-264 packet for `frame`: pseudo-header + data (data only for data events).
  /// - Throws: `TraceError.unsupported` (at `here`) for an event frame with no field on/off
  ///   kind, or data longer than the 16-bit length field allows.
  static func packet(for frame: Frame, at here: SourceLocation) throws -> [UInt8] {
    guard let event = ISO14443PcapEvent(for: frame) else {
      throw TraceError(
        .unsupported, at: here,
        "frame \(frame.index) is an event without a kind; expected field on or field off")
    }
    let data = event.carriesData ? frame.data : []
    guard data.count <= 0xFFFF else {
      throw TraceError(
        .unsupported, at: here,
        "frame \(frame.index) holds \(data.count) bytes, more than the 65535 a link type 264 "
          + "packet can carry")
    }
    return bytes(event: event, length: data.count) + data
  }

  static func bytes(event: ISO14443PcapEvent, length: Int) -> [UInt8] {
    [
      version, event.rawValue, UInt8(truncatingIfNeeded: length >> 8),
      UInt8(truncatingIfNeeded: length),
    ]
  }
}

extension ISO14443PseudoHeader {
  /// A LINKTYPE_ISO_14443 packet split into its header fields and payload, or why not.
  enum Parsed {
    /// A known event; `payload` is what follows the header; `lengthField` is the header's
    /// length, which may disagree with `payload.count`.
    case frame(ISO14443PcapEvent, payload: UnsafeBufferPointer<UInt8>, lengthField: Int)
    /// The packet cannot be read as ISO 14443; `reason` says what was expected.
    case skip(reason: String)
  }

  /// Splits a captured packet (no copying).
  static func parse(_ packet: UnsafeBufferPointer<UInt8>) -> Parsed {
    guard packet.count >= size else {
      return .skip(
        reason: "packet of \(packet.count) bytes, expected at least the 4-byte ISO 14443 "
          + "pseudo-header; skipped")
    }
    guard packet[0] == version else {
      return .skip(reason: "ISO 14443 pseudo-header version \(packet[0]), expected 0; skipped")
    }
    guard let event = ISO14443PcapEvent(rawValue: packet[1]) else {
      let hex = Hex.string([packet[1]])
      return .skip(
        reason: "unknown ISO 14443 pseudo-header event 0x\(hex), expected FA…FF; skipped")
    }
    let lengthField = Int(packet[2]) << 8 | Int(packet[3])
    let payload = UnsafeBufferPointer(rebasing: packet[size...])
    return .frame(event, payload: payload, lengthField: lengthField)
  }
}
