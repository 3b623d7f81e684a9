/// Who sent a frame: the reader (PCD), the tag (PICC), or neither (an event such as field on/off).
public enum Direction: String, Sendable, Hashable {
  /// Reader (PCD) to tag (PICC).
  case reader
  /// Tag (PICC) to reader (PCD).
  case tag
  /// Not a transmission: an RF field change or another capture event.
  case event
}

/// A capture event that is not a transmission.
public enum FrameEvent: String, Sendable, Hashable {
  /// The reader switched its RF field on (pcap link type 264 event 0xFC).
  case fieldOn = "field-on"
  /// The reader switched its RF field off (pcap link type 264 event 0xFD).
  case fieldOff = "field-off"
}

/// The state of a frame's CRC (CRC_A for type A, CRC_B for type B).
///
/// Importers set `.notCaptured` when the source says the CRC was stripped (pcap events
/// 0xFA/0xFB, libnfc logs, NFCGate) and `.unchecked` otherwise; the ISO 14443 layer replaces
/// `.unchecked` with `.ok`, `.bad` or `.absent` (ISO/IEC 14443-3 §6.2.4).
public enum CRCStatus: String, Sendable, Hashable {
  /// The last two bytes are a CRC that verifies.
  case ok
  /// The frame should carry a CRC and its last two bytes do not verify.
  case bad
  /// The frame carries no CRC by protocol (REQA, ATQA, anticollision, ACK/NAK) or is too short.
  case absent
  /// The capture removed the CRC before recording the frame.
  case notCaptured = "not-captured"
  /// The frame is Crypto1 ciphertext (after a MIFARE Classic AUTH): CRC and parity are
  /// encrypted and cannot be checked without the key.
  case encrypted
  /// Not decided yet (set by importers, resolved by the decoder).
  case unchecked
}

/// The RF technology of a frame, when the source says so or the decoder finds out.
public enum Technology: String, Sendable, Hashable {
  /// ISO/IEC 14443 type A (NFC-A).
  case nfcA = "nfc-a"
  /// ISO/IEC 14443 type B (NFC-B).
  case nfcB = "nfc-b"
  /// JIS X 6319-4 / FeliCa (NFC-F).
  case nfcF = "nfc-f"
  /// ISO/IEC 15693 (NFC-V).
  case nfcV = "nfc-v"
  /// HID iCLASS (ISO 15693 physical layer, proprietary commands).
  case iClass = "iclass"
  /// Low-frequency 125/134 kHz tags (Hitag, EM4x…).
  case lowFrequency = "lf"
  /// Not known from the source; type A is assumed for decoding.
  case unknown
}

/// Where a frame or an error came from in the input.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
  /// The input's path as given by the user (`-` for standard input).
  public var file: String
  /// What `record` counts: `packet`, `record`, `line`, `frame`.
  public var unit: String
  /// 1-based packet, record or line number.
  public var record: Int
  /// Byte offset of the record's start in the input.
  public var offset: Int

  /// Creates a location; `record` is 1-based, `offset` in bytes from the input's start.
  public init(file: String, unit: String, record: Int, offset: Int) {
    self.file = file
    self.unit = unit
    self.record = record
    self.offset = offset
  }

  /// `file: unit N, byte offset M`; `file: byte offset M` for a place that is no record (unit
  /// `byte`: the file's start, a pcapng block); `file` alone for the file as a whole (unit
  /// `file`: it is missing, a directory or cannot be opened, so no byte of it was read).
  public var description: String {
    switch unit {
    case "file": file
    case "byte": "\(file): byte offset \(offset)"
    default: "\(file): \(unit) \(record), byte offset \(offset)"
    }
  }

  /// The file as a whole (unit `file`): for errors that come before any byte is read or
  /// written, where an offset would mean nothing.
  public static func wholeFile(_ path: String) -> SourceLocation {
    SourceLocation(file: path, unit: "file", record: 0, offset: 0)
  }
}

/// A time in the unit the source used, kept beside the nanoseconds we compute.
public struct SourceTime: Sendable, Hashable {
  /// The unit of `value`.
  public enum Unit: String, Sendable, Hashable {
    /// Proxmark3 carrier ticks, 1/13.56 MHz ≈ 73.75 ns.
    case proxmarkTicks = "pm3-ticks"
    /// Microseconds (pcap, Proxmark3 `-u` text).
    case microseconds = "us"
    /// Nanoseconds (pcap with nanosecond resolution; NFC-Laboratory's decimal seconds,
    /// converted).
    case nanoseconds = "ns"
    /// No time in the source: frames are numbered in order.
    case order
    /// Whole seconds of a clock (Flipper Zero's debug pcap stamps frames with its real-time
    /// clock): too coarse to time frames, answers or gaps.
    case wholeSeconds = "whole-s"

    /// False when the unit cannot time frames (`order`, `wholeSeconds`): analyses of delays
    /// and gaps are then off.
    public var timesFrames: Bool { self != .order && self != .wholeSeconds }
  }
  /// The raw value in `unit`.
  public var value: Int64
  /// The source's unit.
  public var unit: Unit

  /// Creates a source time of `value` in `unit`.
  public init(_ value: Int64, _ unit: Unit) {
    self.value = value
    self.unit = unit
  }
}

/// One frame on the air, or one capture event, as an importer read it.
///
/// `data` holds the bytes in air order including the CRC when the source captured it.
/// `bits` is the number of valid bits in the last byte when it is not 8 (7 for REQA/WUPA,
/// 4 for the Type 2 ACK/NAK); `nil` means whole bytes.
public struct Frame: Sendable {
  /// 0-based position in the trace, counting event frames too.
  public var index: Int
  /// Time of the frame's start in nanoseconds from the trace's first frame.
  public var timeNs: Int64
  /// Frame duration in nanoseconds, when the source records it (Proxmark3).
  public var durationNs: Int64?
  /// The time as the source recorded it, in its own unit.
  public var sourceTime: SourceTime?
  /// Reader, tag or event.
  public var direction: Direction
  /// The event, for `direction == .event`.
  public var event: FrameEvent?
  /// Bytes in air order, CRC included when captured.
  public var data: [UInt8]
  /// Valid bits in the last byte (1…7) for short frames; `nil` for whole bytes.
  public var bits: Int?
  /// Indices into `data` of bytes whose parity bit was wrong, when the source records parity.
  public var parityErrors: [Int]
  /// CRC state (importers set `.unchecked` or `.notCaptured`).
  public var crc: CRCStatus
  /// RF technology, if the source says.
  public var technology: Technology
  /// Flags the source set on the frame (e.g. NFC-Laboratory `encrypted`, `truncated`).
  public var sourceFlags: [String]
  /// Where the frame is in the input.
  public var location: SourceLocation
  /// Bytes the frame had before the capture cut it (a pcap snap length: the record's original
  /// length less the pseudo-header); nil when `data` is whole or the source does not say.
  /// Writers keep it, so a converted capture still shows the cut.
  public var originalLength: Int?

  /// Creates a frame. Defaults: whole bytes, no parity errors, CRC unchecked, technology unknown.
  public init(
    index: Int, timeNs: Int64, durationNs: Int64? = nil, sourceTime: SourceTime? = nil,
    direction: Direction, event: FrameEvent? = nil, data: [UInt8], bits: Int? = nil,
    parityErrors: [Int] = [], crc: CRCStatus = .unchecked, technology: Technology = .unknown,
    sourceFlags: [String] = [], location: SourceLocation, originalLength: Int? = nil
  ) {
    self.index = index
    self.timeNs = timeNs
    self.durationNs = durationNs
    self.sourceTime = sourceTime
    self.direction = direction
    self.event = event
    self.data = data
    self.bits = bits
    self.parityErrors = parityErrors
    self.crc = crc
    self.technology = technology
    self.sourceFlags = sourceFlags
    self.location = location
    self.originalLength = originalLength
  }

  /// True for a short frame (fewer than 8 valid bits in a 1-byte frame, e.g. REQA `26` (7)).
  public var isShortFrame: Bool { data.count == 1 && (bits ?? 8) < 8 }
}

extension Int64 {
  /// `self - other`, clamped to `Int64.min`/`Int64.max` instead of trapping: frame times come
  /// from the input (a pcap time stamp can be anything), so differences of two of them must
  /// never overflow.
  @inlinable
  public func saturatingMinus(_ other: Int64) -> Int64 {
    let (d, overflow) = subtractingReportingOverflow(other)
    return overflow ? (self < other ? .min : .max) : d
  }

  /// `self + other`, clamped to `Int64.min`/`Int64.max` instead of trapping (a frame time plus
  /// a duration, both from the input).
  @inlinable
  public func saturatingPlus(_ other: Int64) -> Int64 {
    let (s, overflow) = addingReportingOverflow(other)
    return overflow ? (other < 0 ? .min : .max) : s
  }
}
