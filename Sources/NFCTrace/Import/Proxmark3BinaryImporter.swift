import Foundation

/// Reads a Proxmark3 binary trace log (`trace save`, `.trace`) of the RfidResearchGroup client.
///
/// The file is a sequence of records with no file header (`tracelog_hdr_t` in
/// `include/pm3_cmd.h`), all little-endian:
///
/// | bytes | field |
/// |---|---|
/// | 4 | timestamp, u32 carrier ticks (1/13.56 MHz) of the frame's start |
/// | 2 | duration, u16 ticks |
/// | 2 | bits 0–14 data length `n`; bit 15 set = tag→reader (`isResponse`) |
/// | n | frame bytes in air order, CRC included |
/// | (n − 1)/8 + 1 | parity bits, MSB first: bit `7 − (j % 8)` of byte `j / 8` belongs to data byte `j` (C integer division: a zero-length record still has 1 parity byte) |
///
/// Frames get `timeNs` from the first record's timestamp, `durationNs`, the raw timestamp as
/// `sourceTime` (`.proxmarkTicks`) and a location (`record`, 1-based, byte offset of the header).
///
/// Parity and short frames (`client/src/cmdtrace.c`): the device records the parity bit it
/// saw for ISO 14443-A, but fills the parity bytes with zeros for 14443-B, ISO 15693 and
/// iCLASS, and stores the valid-bit count of the last byte in the first parity byte for LF
/// (Hitag) frames. Nothing in the file names the protocol, so on opening the importer looks at
/// up to 1024 records for evidence of 14443-A: a non-zero parity field that is correct odd
/// parity for every byte, or a REQA/WUPA with a short-frame duration.
/// - With that evidence, `parityErrors` lists the bytes whose recorded bit is not odd parity,
///   and a 1-byte frame shorter than 1088 ticks gets `bits` from its duration
///   (`Proxmark3.shortFrameBits(durationTicks:)`, the client's rule).
///   A record there whose parity field is all zero and whose bytes carry CRC_B or are an NFC-F
///   frame (LEN, CRC-F) where CRC_A does not verify is another technology's
///   (`Proxmark3Record.isZeroFilledOtherTechnology`): a trace converted from a capture of a
///   reader polling A, B and F in turn. It is read as in a file without that evidence.
/// - Without it, parity is not checked (flag `parity-not-recorded`); a parity field of the form
///   `[k, 0…]` with k in 1…7 gives `bits = k` with flag `msb-first` (LF frames keep their bits
///   MSB first, so the valid bits are the high bits of the last byte).
///
/// Durations are kept in raw ticks; the client multiplies ISO 15693/iCLASS durations by 32
/// when listing, which the importer cannot know to do. Zero-length records (iCLASS SOF/EOF
/// markers) become frames with empty `data` and the flag `empty-record`.
///
/// Timestamps are u32: a drop of more than 2³¹ ticks is read as a wrap-around, a smaller drop
/// as a step back in time (traces that join several runs); both add a warning.
public struct Proxmark3BinaryImporter: TraceImporter {
  /// `pm3-trace`: sniffs by walking the first records (there is no magic number).
  public static let format: TraceFormat = TraceFormat(
    name: "pm3-trace",
    summary: "Proxmark3 binary trace log (trace save, .trace), times in 1/13.56 MHz ticks",
    sniff: { head, path in Proxmark3BinarySniffer.score(head: head, path: path) },
    open: { try Proxmark3BinaryImporter(input: $0) })

  /// Problems met so far that did not stop the import (time going backwards or wrapping).
  public var warnings: [TraceWarning] { log.warnings }

  private let input: TraceInput
  private let parityRecorded: Bool
  private let lowFrequency: Bool
  private var offset = 0
  private var record = 0
  private var clock = TickClock()
  private var log = WarningLog()

  private static let notRecordedFlags = ["parity-not-recorded"]
  private static let lfBitsFlags = ["parity-not-recorded", "msb-first"]
  private static let emptyFlags = ["empty-record"]

  /// Opens `input`; the records are read by `next()`. Never throws: damage is reported when
  /// `next()` reaches it.
  public init(input: TraceInput) throws {
    self.input = input
    let (iso14443A, lf) = input.bytes.withUnsafeBytes {
      (Proxmark3Record.hasISO14443AEvidence($0), Proxmark3Record.lfBitCountRecords($0))
    }
    parityRecorded = iso14443A
    // Without 14443-A evidence, records whose parity field holds LF valid-bit counts (two or
    // more) make it an LF trace (Hitag, EM4x): its frames are kept raw, not read as 14443-A.
    lowFrequency = !iso14443A && lf >= 2
  }

  /// The next record as a frame, or nil at the end of the file.
  /// - Throws: `TraceError(.truncated)` when a record's header or its data and parity run past
  ///   the end of the file, naming the record number, its offset, the length it claims and the
  ///   bytes left; every earlier record has been returned by then.
  public mutating func next() throws -> Frame? {
    let bytes = input.bytes
    guard offset < bytes.count else { return nil }
    record += 1
    let header = try bytes.withUnsafeBytes { raw -> Proxmark3Record in
      guard let header = Proxmark3Record(raw, at: offset) else { throw truncation(raw) }
      return header
    }
    let frame = bytes.withUnsafeBytes { makeFrame(header, raw: $0) }
    offset += header.size
    return frame
  }

  private func truncation(_ raw: UnsafeRawBufferPointer) -> TraceError {
    let left = raw.count - offset
    let here = input.location(unit: "record", record: record, offset: offset)
    guard left >= Proxmark3Record.headerSize else {
      return TraceError(
        .truncated, at: here,
        "record header needs 8 bytes (timestamp, duration, length), only \(left) left")
    }
    let length = Proxmark3Record.claimedLength(raw, at: offset)
    return TraceError(
      .truncated, at: here,
      "record claims \(length) data bytes plus \(Proxmark3Record.parityLength(length)) parity "
        + "bytes after its 8-byte header, only \(left - Proxmark3Record.headerSize) bytes left")
  }

  private mutating func makeFrame(_ header: Proxmark3Record, raw: UnsafeRawBufferPointer) -> Frame {
    let location = input.location(unit: "record", record: record, offset: offset)
    let placed = clock.place(header.timestamp)
    noteStep(placed.step, header.timestamp, location)
    let dataStart = offset + Proxmark3Record.headerSize
    let data = [UInt8](raw[dataStart..<(dataStart + header.length)])
    let parity = UnsafeRawBufferPointer(
      rebasing: raw[(dataStart + header.length)..<(offset + header.size)])
    var frame = Frame(
      index: record - 1, timeNs: clock.nanosecondsSinceFirst(placed.ticks),
      durationNs: Proxmark3.nanoseconds(ticks: Int64(header.duration)),
      sourceTime: SourceTime(Int64(header.timestamp), .proxmarkTicks),
      direction: header.isResponse ? .tag : .reader, data: data, location: location)
    if data.isEmpty {
      frame.sourceFlags = Self.emptyFlags
    } else if parityRecorded, !Proxmark3Record.isZeroFilledOtherTechnology(data, parity) {
      // The file's parity bits check out as ISO 14443-A: say so, so no frame is mistaken for
      // another technology.
      frame.technology = .nfcA
      frame.parityErrors = Proxmark3Record.parityErrors(data, parity)
      if data.count == 1 {
        frame.bits = Proxmark3.shortFrameBits(durationTicks: Int64(header.duration))
      }
    } else if let bits = Proxmark3Record.leadingBitCount(parity) {
      frame.bits = bits
      frame.sourceFlags = Self.lfBitsFlags
    } else {
      frame.sourceFlags = Self.notRecordedFlags
    }
    if lowFrequency, !data.isEmpty { frame.technology = .lowFrequency }
    return frame
  }

  private mutating func noteStep(_ step: TickClock.Step, _ value: UInt32, _ at: SourceLocation) {
    switch step {
    case .first, .forward: return
    case .wrapped:
      log.add(
        "time wrap",
        TraceWarning(
          "timestamp \(value) is below the previous one by more than 2^31 ticks: read as a "
            + "wrap-around of the 32-bit tick counter (every 2^32 ticks, about 316.7 s)",
          frame: record - 1, location: at))
    case .backward:
      log.add(
        "time backwards",
        TraceWarning(
          "timestamp \(value) is earlier than the previous record's (a new run joined to the "
            + "trace, or overlapping sniffed frames); times are kept as recorded",
          frame: record - 1, location: at),
        // Type B and LF sniffs step back on many records: one is enough to say so.
        limit: 1)
    }
  }
}

/// One record header of a Proxmark3 trace (`tracelog_hdr_t`), validated against the bytes left.
struct Proxmark3Record {
  static let headerSize = 8

  let timestamp: UInt32
  let duration: UInt16
  let length: Int
  let isResponse: Bool
  /// Header + data + parity bytes.
  let size: Int

  /// Parity bytes after `length` data bytes: `(length − 1) / 8 + 1` with C division, so 1 for 0.
  static func parityLength(_ length: Int) -> Int { length == 0 ? 1 : (length - 1) / 8 + 1 }

  /// The record at `offset`, or nil when its header or body runs past the end of `raw`.
  init?(_ raw: UnsafeRawBufferPointer, at offset: Int) {
    guard offset >= 0, raw.count - offset >= Self.headerSize else { return nil }
    timestamp = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    duration = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self))
    let lengthField = UInt16(
      littleEndian: raw.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self))
    length = Int(lengthField & 0x7FFF)
    isResponse = lengthField & 0x8000 != 0
    size = Self.headerSize + length + Self.parityLength(length)
    guard raw.count - offset >= size else { return nil }
  }

  /// The data length the header at `offset` claims (the 8 header bytes must be in `raw`).
  static func claimedLength(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Int {
    Int(
      UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)) & 0x7FFF)
  }

  /// Indices of bytes whose recorded parity bit (MSB first) is not odd parity.
  static func parityErrors(_ data: [UInt8], _ parity: UnsafeRawBufferPointer) -> [Int] {
    var errors: [Int] = []
    for (j, byte) in data.enumerated() {
      let recorded = (parity[j >> 3] >> (7 - UInt8(j & 7))) & 1
      if recorded != Proxmark3.oddParity(byte) { errors.append(j) }
    }
    return errors
  }

  /// Whether a record of a file with type A parity is another technology's: its parity field is
  /// all zero, as the device and `Proxmark3TraceWriter` write it for type B and FeliCa, and its
  /// bytes end in a CRC_B or are an NFC-F frame (LEN, CRC-F, `B2 4D` sync code or not) where
  /// CRC_A does not verify. A type A frame of n ≥ 3 bytes has an all-zero parity field only when
  /// every byte has an odd number of ones (2⁻ⁿ), and such a CRC besides by chance (2⁻¹⁶).
  static func isZeroFilledOtherTechnology(_ data: [UInt8], _ parity: UnsafeRawBufferPointer)
    -> Bool
  {
    guard data.count >= 3, parity.allSatisfy({ $0 == 0 }), !CRC.hasValidCRCA(data) else {
      return false
    }
    return CRC.hasValidCRCB(data) || CRC.isNFCFFrame(data) || CRC.hasNFCFSync(data)
  }

  /// `k` when the parity field is `[k, 0, …]` with k in 1…7 (LF valid-bit count), else nil.
  static func leadingBitCount(_ parity: UnsafeRawBufferPointer) -> Int? {
    guard let first = parity.first, (1...7).contains(first) else { return nil }
    return parity.dropFirst().allSatisfy { $0 == 0 } ? Int(first) : nil
  }

  /// Calls `body` with each of the first 1024 records, its data and its parity field, until
  /// it returns false.
  private static func firstRecords(
    _ raw: UnsafeRawBufferPointer,
    _ body: (Proxmark3Record, UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool
  ) {
    var offset = 0
    var seen = 0
    while seen < 1024, let record = Proxmark3Record(raw, at: offset) {
      let dataStart = offset + headerSize
      let data = UnsafeRawBufferPointer(rebasing: raw[dataStart..<(dataStart + record.length)])
      let parity = UnsafeRawBufferPointer(
        rebasing: raw[(dataStart + record.length)..<(offset + record.size)])
      guard body(record, data, parity) else { return }
      offset += record.size
      seen += 1
    }
  }

  /// How many of the first 1024 records have a parity field of the LF form `[k, 0, …]`
  /// (`leadingBitCount`).
  static func lfBitCountRecords(_ raw: UnsafeRawBufferPointer) -> Int {
    var count = 0
    firstRecords(raw) { record, _, parity in
      if record.length > 0, leadingBitCount(parity) != nil { count += 1 }
      return true
    }
    return count
  }

  /// True when the first records show ISO 14443-A parity (see `Proxmark3BinaryImporter`).
  static func hasISO14443AEvidence(_ raw: UnsafeRawBufferPointer) -> Bool {
    var found = false
    firstRecords(raw) { record, data, parity in
      if record.length == 1, !record.isResponse, data[0] == 0x26 || data[0] == 0x52,
        Proxmark3.shortFrameBits(durationTicks: Int64(record.duration)) == 7
      {
        found = true
      } else if record.length > 0, parity.contains(where: { $0 != 0 }),
        paritiesMatch(data, parity)
      {
        found = true
      }
      return !found
    }
    return found
  }

  private static func paritiesMatch(
    _ data: UnsafeRawBufferPointer, _ parity: UnsafeRawBufferPointer
  ) -> Bool {
    for j in 0..<data.count
    where (parity[j >> 3] >> (7 - UInt8(j & 7))) & 1 != Proxmark3.oddParity(data[j]) {
      return false
    }
    return true
  }
}

/// Content sniffer for Proxmark3 binary traces, which have no magic number.
enum Proxmark3BinarySniffer {
  /// Largest data length accepted while sniffing (the device's frames stay far below this).
  static let plausibleLength = 1024

  /// 0 unless the head walks as a chain of plausible records: every length is at most 1024
  /// bytes and at least one record holds data; a head of 4 KiB (a larger file) walks three
  /// records or more before the 4 KiB limit cuts one of plausible length; a head shorter than
  /// 4 KiB (the whole file) is consumed exactly or — a cut file — ends inside a record of
  /// plausible length after three records or more with data, in time order but for one step
  /// back (two runs joined, a tick wrap). Known magic numbers (pcap, pcapng, gzip, zip) and
  /// text score 0. 60 for three records or more, 40 for fewer, +20 for a `.trace` name.
  /// A binary head named `.trace` (the Proxmark3 client's `trace save` name) that does not
  /// walk scores 10, the least: the importer then names the damaged record and its offset
  /// instead of detection calling the file unknown (a head of zeros, a wiped file, is none).
  static func score(head: [UInt8], path: String) -> Int {
    guard !head.isEmpty, !hasOtherMagic(head), !looksLikeText(head) else { return 0 }
    let named = path.lowercased().hasSuffix(".trace")
    guard head.count > Proxmark3Record.headerSize,
      let records = walk(head, wholeFile: head.count < 4096), records > 0
    else { return named && head.contains(where: { $0 != 0 }) ? 10 : 0 }
    return (records >= 3 ? 60 : 40) + (named ? 20 : 0)
  }

  private static func walk(_ head: [UInt8], wholeFile: Bool) -> Int? {
    head.withUnsafeBytes { raw -> Int? in
      var offset = 0
      var records = 0
      var withData = 0
      var stepsBack = 0
      var last: UInt32 = 0
      while offset < raw.count {
        guard let record = Proxmark3Record(raw, at: offset) else {
          // A damaged record after a long run of good ones: the file is a trace whose damage
          // the importer names (record, byte offset), not another format.
          if damagedAfterRun(records: records, withData: withData, stepsBack: stepsBack) {
            return records
          }
          guard records >= 3, cutPlausibly(raw, at: offset) else { return nil }
          // The 4 KiB head limit cuts a record of a larger file; a whole file cut inside its
          // last record is still a trace when enough records in time order walk before it.
          return !wholeFile || (withData >= 3 && stepsBack <= 1) ? records : nil
        }
        if record.length > plausibleLength {
          return damagedAfterRun(records: records, withData: withData, stepsBack: stepsBack)
            ? records : nil
        }
        if record.timestamp < last { stepsBack += 1 }
        last = record.timestamp
        if record.length > 0 { withData += 1 }
        offset += record.size
        records += 1
      }
      return withData > 0 ? records : nil
    }
  }

  /// Records walked before a damaged one that make the head a trace anyway: at least
  /// `damagedRunLength` records, three with data, in time order but for one step back.
  private static func damagedAfterRun(records: Int, withData: Int, stepsBack: Int) -> Bool {
    records >= damagedRunLength && withData >= 3 && stepsBack <= 1
  }

  /// Good records before a damaged one for the head to count as a trace.
  static let damagedRunLength = 16

  /// The bytes at `offset` are a record cut by the end of the bytes: a partial header, or a
  /// header claiming a plausible length whose data or parity runs past the end.
  private static func cutPlausibly(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    raw.count - offset < Proxmark3Record.headerSize
      || Proxmark3Record.claimedLength(raw, at: offset) <= plausibleLength
  }

  /// pcap (both byte orders, µs and ns), pcapng, gzip (`1F 8B`), zip (`PK 03 04`).
  private static func hasOtherMagic(_ head: [UInt8]) -> Bool {
    let magic = head.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let known: Set<UInt32> = [
      0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1, 0x0A0D_0D0A, 0x504B_0304,
    ]
    return known.contains(magic) || head.starts(with: [0x1F, 0x8B])
  }

  private static func looksLikeText(_ head: [UInt8]) -> Bool {
    head.allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x1B || $0 >= 0x20 }
  }
}
