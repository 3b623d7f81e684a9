import CPcap
import Foundation
import NFCTrace

/// One packet as libpcap returned it; `bytes` is valid until the next `PcapSource.next()`.
struct PcapPacket {
  /// Time stamp in nanoseconds since the Unix epoch (libpcap scales µs files to ns).
  var timeNs: Int64
  /// Bytes captured.
  var bytes: UnsafeBufferPointer<UInt8>
  /// Length of the packet on the wire (≥ captured length when the capture was snapped).
  var originalLength: Int
  /// True when the time stamp lies past what `timeNs` holds (after 2262-04-11, or a pcapng
  /// count beyond the seconds libpcap returns): `timeNs` is then `Int64.max`.
  var timeClamped = false
}

/// A libpcap offline handle opened with nanosecond time stamps, over a file or over bytes
/// held in memory (`fmemopen`). Closes the handle (and its `FILE`) when released.
final class PcapSource {
  /// Outcome of one `next()`.
  enum Read {
    case packet(PcapPacket)
    case end
    /// libpcap's message for a damaged record.
    case error(String)
  }

  private let handle: OpaquePointer
  private let memory: UnsafeMutableRawBufferPointer?
  /// Bytes of each record header on disk when the file uses a fixed one (16 for standard pcap,
  /// pcap-savefile(5)); then `position` is counted instead of asking `ftell` (a system call
  /// per packet in glibc). nil: ask `ftell`.
  var recordHeaderBytes: Int?
  private var counted: Int?

  /// Opens the file at `path` through `pcap_open_offline_with_tstamp_precision`.
  /// - Throws: the libpcap message as `String` wrapped in `PcapOpenFailure`.
  init(path: String) throws(PcapOpenFailure) {
    var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    let opened = pcap_open_offline_with_tstamp_precision(
      path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
    guard let opened else { throw PcapOpenFailure(message: Self.text(errbuf)) }
    handle = opened
    memory = nil
  }

  /// Copies `bytes` into memory owned by the source and opens them through `fmemopen` and
  /// `pcap_fopen_offline_with_tstamp_precision` (standard input, rewritten pcapng).
  init<C: Collection>(bytes: C) throws(PcapOpenFailure) where C.Element == UInt8 {
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(bytes.count, 1), alignment: 8)
    _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
    guard let base = buffer.baseAddress, let file = fmemopen(base, bytes.count, "r") else {
      buffer.deallocate()
      throw PcapOpenFailure(message: "cannot open the input bytes as a stream")
    }
    var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    let opened = pcap_fopen_offline_with_tstamp_precision(
      file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
    guard let opened else {
      // libpcap leaves the FILE open when it refuses it.
      fclose(file)
      buffer.deallocate()
      throw PcapOpenFailure(message: Self.text(errbuf))
    }
    handle = opened
    memory = buffer
  }

  deinit {
    pcap_close(handle)
    memory?.deallocate()
  }

  /// The link type of the packets (`pcap_datalink`).
  var linkType: Int { Int(pcap_datalink(handle)) }

  /// Position of the next record in the stream libpcap reads (`ftell`), or nil if unknown.
  var position: Int? {
    if let counted { return counted }
    guard let file = pcap_file(handle) else { return nil }
    let at = ftell(file)
    guard at >= 0 else { return nil }
    if recordHeaderBytes != nil { counted = at }
    return at
  }

  /// The next packet, the end, or libpcap's error message.
  func next() -> Read {
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    let status = pcap_next_ex(handle, &header, &data)
    if status == PCAP_ERROR_BREAK { return .end }
    guard status == 1, let header, let data else {
      return .error(String(cString: pcap_geterr(handle)))
    }
    let head = header.pointee
    // With nanosecond precision requested, tv_usec holds nanoseconds. Wrapping arithmetic:
    // a nonsense time stamp must not trap.
    // libpcap sign-extends a pcap record's 32-bit seconds: a capture made after January 2038
    // (seconds ≥ 2³¹) would read as before 1970. The field is unsigned in the format (as
    // Wireshark reads it), and no capture predates the epoch.
    var seconds = Int64(head.ts.tv_sec)
    if seconds < 0, seconds >= -(1 << 31) { seconds += 1 << 32 }
    // A pcapng time stamp is unsigned 64-bit: seconds still negative overflowed libpcap's
    // conversion. Such times, and those past Int64 nanoseconds (2262), are held at the end
    // of the range (in order, never wrapped) and flagged.
    let (scaled, over) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    let (sum, carry) = scaled.addingReportingOverflow(Int64(head.ts.tv_usec))
    let clamped = seconds < 0 || over || carry
    let ns = clamped ? Int64.max : sum
    let bytes = UnsafeBufferPointer(start: data, count: Int(head.caplen))
    if let counted, let recordHeaderBytes {
      // A record longer than the snap length is cut to it and the rest skipped: libpcap then
      // returns caplen = snap length, not what it moved past, so ask `ftell` next time.
      let snapped = Int(head.caplen) >= Int(pcap_snapshot(handle))
      self.counted = snapped ? nil : counted + recordHeaderBytes + Int(head.caplen)
    }
    return .packet(
      PcapPacket(
        timeNs: ns, bytes: bytes, originalLength: Int(head.len), timeClamped: clamped))
  }

  private static func text(_ errbuf: [CChar]) -> String {
    let bytes = errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// libpcap refused to open an input; `message` is libpcap's.
struct PcapOpenFailure: Error {
  var message: String
}
