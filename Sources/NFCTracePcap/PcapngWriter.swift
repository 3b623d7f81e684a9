import Foundation
import NFCTrace

/// Writes a pcapng file of link type 264 (LINKTYPE_ISO_14443) with nanosecond timestamps.
///
/// libpcap 1.10 reads pcapng but cannot write it, so this writer emits the three block types
/// a capture needs itself: a Section Header Block, one Interface Description Block (link type
/// 264, `if_tsresol` = 9 for nanoseconds) and one Enhanced Packet Block per frame, little
/// endian (pcapng specification, IETF draft-ietf-opsawg-pcapng §4.1, §4.2, §4.3). The packet
/// bytes are the same as `PcapWriter`'s.
public struct PcapngWriter {
  private let file: BufferedFile
  private let path: String
  private let baseEpochNs: Int64
  private var written = 0
  /// Bytes written so far (the next block's offset in the file).
  private var position = 0

  /// Creates `path` (or writes standard output for `-`) and writes the section and interface
  /// headers. `baseEpochNs` is added to every frame's `timeNs`.
  /// - Throws: `TraceError.unreadable` if the file cannot be created.
  public init(path: String, baseEpochNs: Int64 = 0) throws {
    self.path = path
    self.baseEpochNs = baseEpochNs
    file = try BufferedFile(creating: path)
    // SHB: byte-order magic, version 1.0, section length unknown (−1).
    block(
      0x0A0D_0D0A, body: le32(0x1A2B_3C4D) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
    // IDB: link type 264, snaplen 0 (no limit), option if_tsresol (9) = 9 (10⁻⁹ s), end of options.
    block(1, body: le16(264) + le16(0) + le32(0) + le16(9) + le16(1) + [9, 0, 0, 0] + le32(0))
  }

  /// Whether an Enhanced Packet Block can hold `ns` nanoseconds since the Unix epoch: its
  /// time stamp is a u64 (pcapng §4.3), so any time from 1970 on (an `Int64` of ns ends in
  /// 2262, before the u64's 2554). Earlier ones are written at 1970-01-01 (`recordTime(ns:)`;
  /// `convert` warns).
  public static func holds(ns: Int64) -> Bool { ns >= 0 }

  /// The time, in ns since the Unix epoch, a block is written with for a frame at `ns`: `ns`
  /// itself from 1970 on, 0 (1970-01-01T00:00:00Z) for an earlier one — clamped, never wrapped.
  public static func recordTime(ns: Int64) -> Int64 { max(ns, 0) }

  /// Appends one frame as an Enhanced Packet Block.
  /// - Throws: `TraceError.unsupported` for frames link type 264 cannot hold.
  public mutating func write(_ frame: Frame) throws {
    let here = SourceLocation(file: path, unit: "packet", record: written + 1, offset: position)
    let packet = try ISO14443PseudoHeader.packet(for: frame, at: here)
    let ns = UInt64(Self.recordTime(ns: baseEpochNs.saturatingPlus(frame.timeNs)))
    var body = le32(0) + le32(UInt32(ns >> 32)) + le32(UInt32(ns & 0xFFFF_FFFF))
    body += le32(UInt32(packet.count)) + le32(UInt32(packet.count + PcapWriter.cutBytes(frame)))
    body += packet
    body += [UInt8](repeating: 0, count: (4 - packet.count % 4) % 4)
    block(6, body: body)
    written += 1
  }

  /// Writes what is buffered and closes the file.
  /// - Throws: `OutputError` when a write failed (a full disk): the file is incomplete.
  public mutating func close() throws(OutputError) { try file.close() }

  private mutating func block(_ type: UInt32, body: [UInt8]) {
    let length = UInt32(12 + body.count)
    file.write(Data(le32(type) + le32(length) + body + le32(length)))
    position += Int(length)
  }

  private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
  private func le32(_ v: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
  }
}
