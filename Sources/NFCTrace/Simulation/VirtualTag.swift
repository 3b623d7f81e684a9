/// What a virtual tag puts on the air in answer to one reader frame.
struct TagAnswer {
  /// Bytes in air order, CRC_A included when `hasCRC`.
  var data: [UInt8]
  /// Valid bits of the single byte for the 4-bit ACK/NAK, nil for whole bytes.
  var bits: Int? = nil
  /// True when the last two bytes are a CRC_A (noise may corrupt them).
  var hasCRC: Bool
  /// Ticks added to the FDT: EEPROM programming, APDU processing, WTX.
  var delay: Int64 = 0
  /// True for the answer that acknowledges a write (Type 2 ACK to WRITE, Type 4 9000 to
  /// UPDATE BINARY): counted by the `remove-after-writes` fault.
  var acknowledgesWrite = false
  /// Source flags put on the frame.
  var flags: [String] = []

  /// A whole-byte answer with CRC_A appended.
  static func withCRC(_ payload: [UInt8], delay: Int64 = 0) -> TagAnswer {
    TagAnswer(data: CRC.appendingCRCA(payload), hasCRC: true, delay: delay)
  }

  /// The 4-bit ACK (`A`) or NAK (`code`) of NFC Forum T2T / NTAG21x (facts §4.2).
  static func fourBit(_ code: UInt8, delay: Int64 = 0) -> TagAnswer {
    TagAnswer(data: [code & 0x0F], bits: 4, hasCRC: false, delay: delay)
  }

  /// The Type 2 ACK.
  static let ack: UInt8 = 0x0A
}

/// A tag the reader can talk to. Reference type: the channel and the scenario's fault
/// bookkeeping share it during one run.
protocol VirtualTag: AnyObject {
  /// The UID (4, 7 or 10 bytes).
  var uid: [UInt8] { get }
  /// Handles one reader frame that reached the tag. `intact` is false when noise corrupted
  /// the frame (bad CRC or parity). Returns nil for silence.
  func receive(_ frame: [UInt8], bits: Int?, intact: Bool) -> TagAnswer?
  /// The field went off: the tag loses power and every volatile state (selection, PWD_AUTH,
  /// ISO-DEP block numbers, selected file).
  func powerOff()
}
