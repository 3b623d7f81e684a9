import CPcap
import Foundation
import NFCTrace

/// Writes frames as a nanosecond-resolution pcap of link type 264 (LINKTYPE_ISO_14443),
/// through libpcap (`pcap_open_dead_with_tstamp_precision`, `pcap_dump_open`, `pcap_dump`).
///
/// Each frame becomes one packet: the 4-byte pseudo-header (version 0, event, big-endian data
/// length; Wireshark `packet-iso14443.c`) then `frame.data`. Events: reader → 0xFE, tag →
/// 0xFF, or 0xFA/0xFB when `frame.crc == .notCaptured`; field on → 0xFC, field off → 0xFD.
/// The packet time is `baseEpochNs + frame.timeNs` (ns since the Unix epoch), moved into the
/// range a record holds (`recordTime(ns:)`) when it lies outside.
///
/// The file is flushed and closed by `close()` (or when the last copy is released).
/// Copies share one output.
public struct PcapWriter {
  /// The largest `frame.data` a packet can carry (16-bit length field).
  public static let maximumDataLength = 0xFFFF

  private let output: Output
  private let path: String
  private let baseEpochNs: Int64
  private var written = 0

  /// Creates (or truncates) the pcap file at `path` (`-` writes standard output).
  /// - Parameter baseEpochNs: time of `timeNs == 0` in ns since the Unix epoch.
  /// - Throws: `OutputError` with libpcap's reason if the file cannot be created;
  ///   `TraceError(.unreadable)` if libpcap cannot make a handle.
  public init(path: String, baseEpochNs: Int64 = 0) throws {
    self.path = path
    self.baseEpochNs = baseEpochNs
    let here = SourceLocation.wholeFile(path)
    let snaplen = Int32(ISO14443PseudoHeader.size + Self.maximumDataLength)
    guard
      let dead = pcap_open_dead_with_tstamp_precision(
        Int32(PcapLinkType.iso14443), snaplen, UInt32(PCAP_TSTAMP_PRECISION_NANO))
    else { throw TraceError(.unreadable, at: here, "libpcap cannot create a pcap handle") }
    guard let dumper = pcap_dump_open(dead, path) else {
      let message = String(cString: pcap_geterr(dead))
      pcap_close(dead)
      // libpcap says `PATH: reason` (its fopen's errno): the reason alone, after our path.
      let reason =
        message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
      throw OutputError(path: path, reason: reason)
    }
    output = Output(handle: dead, dumper: dumper)
  }

  /// Appends `frame` as one packet.
  /// - Throws: `TraceError(.unsupported)` for an event frame without a `FrameEvent` or data
  ///   longer than `maximumDataLength`; `.unreadable` after `close()`.
  public mutating func write(_ frame: Frame) throws {
    let here = SourceLocation(file: path, unit: "packet", record: written + 1, offset: position)
    guard let dumper = output.dumper else {
      throw TraceError(.unreadable, at: here, "the pcap writer is closed")
    }
    let packet = try ISO14443PseudoHeader.packet(for: frame, at: here)
    var header = pcap_pkthdr()
    let ns = Self.recordTime(ns: baseEpochNs.saturatingPlus(frame.timeNs))
    let (seconds, fraction) = ns.quotientAndRemainder(dividingBy: 1_000_000_000)
    header.ts.tv_sec = Int(seconds)
    header.ts.tv_usec = Int(fraction)
    header.caplen = UInt32(packet.count)
    header.len = UInt32(packet.count + Self.cutBytes(frame))
    // pcap_dump takes the dumper as its `u_char *user` argument (pcap_dump(3PCAP)).
    let user = UnsafeMutablePointer<UInt8>(dumper)
    packet.withUnsafeBufferPointer { bytes in pcap_dump(user, &header, bytes.baseAddress) }
    output.checkWrite()
    written += 1
  }

  /// Whether a record can hold `ns` nanoseconds since the Unix epoch: "the on-disk format of
  /// savefiles uses 32-bit tv_sec" (libpcap `pcap/pcap.h`), read unsigned by `PcapImporter`
  /// and Wireshark: 1970-01-01 to 2106-02-07T06:28:15.999999999Z. Other times are written at
  /// the nearer end of that range (`recordTime(ns:)`; `convert` warns).
  public static func holds(ns: Int64) -> Bool { recordTime(ns: ns) == ns }

  /// The latest time a record holds, in ns since the Unix epoch: u32 seconds 4294967295 and
  /// 999999999 ns (2106-02-07T06:28:15.999999999Z).
  public static let latestNs: Int64 = (Int64(UInt32.max) + 1) * 1_000_000_000 - 1

  /// The time, in ns since the Unix epoch, a record is written with for a frame at `ns`:
  /// `ns` itself when the record holds it, else the nearer end of the range (0, 1970-01-01;
  /// `latestNs`, 2106): clamped, never wrapped, so frames keep their order.
  public static func recordTime(ns: Int64) -> Int64 { min(max(ns, 0), latestNs) }

  /// Bytes a capture's snap length cut from `frame` (`Frame.originalLength`), kept in the
  /// record's original length so that the cut survives a conversion.
  static func cutBytes(_ frame: Frame) -> Int {
    max(0, (frame.originalLength ?? 0) - frame.data.count)
  }

  /// Flushes and closes the file; later writes throw. Safe to call more than once.
  /// - Throws: `OutputError` when libpcap could not write the file (a full disk): it is
  ///   incomplete.
  public mutating func close() throws(OutputError) {
    if let code = output.close() { throw OutputError(path: path, errno: code) }
  }

  /// Bytes written so far (libpcap's position in the output), 0 once closed.
  private var position: Int {
    guard let dumper = output.dumper else { return 0 }
    return Int(pcap_dump_ftell64(dumper))
  }

  /// Owns the libpcap handles; closes them once.
  private final class Output {
    private let handle: OpaquePointer
    private(set) var dumper: OpaquePointer?
    /// `errno` of the first write that failed (libpcap writes through stdio, which keeps only
    /// an error flag: the code is taken right after the write).
    private var failure: Int32?

    init(handle: OpaquePointer, dumper: OpaquePointer) {
      self.handle = handle
      self.dumper = dumper
    }

    /// Records a failed write of the last `pcap_dump`.
    func checkWrite() {
      guard failure == nil, let dumper, let file = pcap_dump_file(dumper), ferror(file) != 0
      else { return }
      failure = errno == 0 ? EIO : errno
    }

    /// Closes the handles; returns the `errno` of a failed write, nil when all went out.
    @discardableResult
    func close() -> Int32? {
      guard let dumper else { return failure }
      if failure == nil, pcap_dump_flush(dumper) != 0 { failure = errno }
      if failure == nil, let file = pcap_dump_file(dumper), ferror(file) != 0 { failure = EIO }
      pcap_dump_close(dumper)
      pcap_close(handle)
      self.dumper = nil
      return failure
    }

    deinit { close() }
  }
}
