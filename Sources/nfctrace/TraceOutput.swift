import Foundation
import NFCTrace
import NFCTracePcap

/// The trace formats `simulate` and `convert` write.
enum OutputFormat: String, CaseIterable {
  case pcap, pcapng
  case pm3Trace = "pm3-trace"
  case pm3Text = "pm3-text"

  /// The format named by `--format`, else by the output file's extension, else pcap.
  static func choose(_ name: String?, output: String) throws -> OutputFormat {
    if let name {
      guard let f = OutputFormat(rawValue: name) else {
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageError("--format must be one of \(known), not \(name)")
      }
      return f
    }
    // Standard output has no name to tell the format by: pcap, without a warning.
    if output == "-" { return .pcap }
    switch URL(fileURLWithPath: output).pathExtension.lowercased() {
    case "pcapng": return .pcapng
    case "trace": return .pm3Trace
    case "txt": return .pm3Text
    case "pcap", "cap": return .pcap
    default:
      StandardError.write(
        Data(
          ("warning: \(output) has no trace extension (.pcap, .pcapng, .trace, .txt) and no "
            + "--format was given: writing pcap\n").utf8))
      return .pcap
    }
  }

  /// Refuses to write `output` over one of `inputs` or over another output: the file would be
  /// emptied before it is read (a sniffed capture cannot be made again). Paths are compared by
  /// device and inode, so links and `./` spellings of the same file are caught.
  /// - Throws: `UsageError` naming the two options.
  static func refuseOverwriting(
    _ output: (option: String, path: String), _ others: [(option: String, path: String)]
  ) throws {
    guard let target = fileID(output.path, dash: 1) else { return }
    for other in others where fileID(other.path, dash: 0) == target {
      throw UsageError(
        "\(output.option) \(output.path) is the same file as \(other.option) \(other.path): "
          + "refusing to overwrite it")
    }
  }

  /// Whether two paths name one file, also when it does not exist yet (`x` and `./x`, or a
  /// symbolic link to a file still to be created).
  static func samePath(_ a: String, _ b: String) -> Bool {
    resolved(a) == resolved(b)
  }

  /// The path with `.`/`..` removed and symbolic links followed, dangling ones included.
  private static func resolved(_ path: String) -> String {
    var url = URL(fileURLWithPath: path).standardizedFileURL
    for _ in 0..<8 {
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)
      else { break }
      url =
        URL(fileURLWithPath: target, relativeTo: url.deletingLastPathComponent())
        .standardizedFileURL
    }
    return url.resolvingSymlinksInPath().path
  }

  /// Device and inode of `path`; for `-`, of file descriptor `dash` (standard output for an
  /// output: `-o - >> IN` appends to the input; standard input for an input).
  private static func fileID(_ path: String, dash: Int32) -> [UInt64]? {
    var st = stat()
    let found = path == "-" ? fstat(dash, &st) == 0 : stat(path, &st) == 0
    guard found else { return nil }
    return [UInt64(st.st_dev), UInt64(st.st_ino)]
  }
}

/// Writes frames in one of the output formats, streaming: memory stays bounded whatever the
/// trace's length. The Proxmark3 text listing starts with the trace's size, known only at the
/// end, so its rows are spooled to a temporary file and copied after that head.
struct TraceOutput {
  private var pcap: PcapWriter?
  private var pcapng: PcapngWriter?
  private var file: BufferedFile?
  private var spool: (file: BufferedFile, path: String)?
  private var rows = Proxmark3TextWriter.Rows(Proxmark3TextWriter())
  private var record = Data()
  /// Proxmark3 trace records written and their bytes (for the place of an error).
  private var records = 0
  private var position = 0
  private let format: OutputFormat
  private let path: String
  private let baseEpochNs: Int64
  /// Decodes the frames for the Proxmark3 formats, whose parity and CRC column depend on the
  /// technology (nil for pcap and pcapng, which have no field for it).
  private var technologies: TechnologyResolver?
  /// What the format could not keep of the frames' times.
  private(set) var timeLosses = TimeLosses()

  /// Opens `path` for `format`; pcap times start at `baseEpochNs`.
  /// - Throws: `TraceError.unreadable` when a file cannot be created.
  init(path: String, format: OutputFormat, baseEpochNs: Int64) throws {
    self.path = path
    self.format = format
    self.baseEpochNs = baseEpochNs
    if format == .pm3Trace || format == .pm3Text { technologies = TechnologyResolver() }
    switch format {
    case .pcap: pcap = try PcapWriter(path: path, baseEpochNs: baseEpochNs)
    case .pcapng: pcapng = try PcapngWriter(path: path, baseEpochNs: baseEpochNs)
    case .pm3Trace: file = try BufferedFile(creating: path)
    case .pm3Text:
      file = try BufferedFile(creating: path)
      let temporary = FileManager.default.temporaryDirectory
        .appendingPathComponent("nfctrace-rows-\(UUID().uuidString).txt").path
      spool = (try BufferedFile(creating: temporary, keepsOnFailure: true), temporary)
    }
  }

  /// Writes one frame. Proxmark3 formats have no field events: those are skipped; their frames
  /// get the technology the decoder reads them as (`TechnologyResolver`).
  mutating func write(_ frame: Frame) throws {
    let frame = technologies?.resolve(frame) ?? frame
    switch format {
    case .pcap: try pcap?.write(frame)
    case .pcapng: try pcapng?.write(frame)
    case .pm3Trace:
      // The record's 15-bit length field (the top bit is the direction): longer data would be
      // cut without a word.
      guard frame.data.count <= 0x7FFF else {
        throw TraceError(
          .unsupported,
          at: SourceLocation(file: path, unit: "record", record: records + 1, offset: position),
          "frame \(frame.index) holds \(frame.data.count) bytes, more than the 32767 a "
            + "Proxmark3 trace record can carry")
      }
      record.removeAll(keepingCapacity: true)
      Proxmark3TraceWriter.append(frame, to: &record)
      file?.write(record)
      if !record.isEmpty {
        records += 1
        position += record.count
      }
    case .pm3Text:
      spool?.file.write(Data(rows.rows(frame).utf8))
    }
    // Noted once written: a frame the format refuses (too long) ends the run with that error.
    timeLosses.note(frame, format: format, baseEpochNs: baseEpochNs)
  }

  /// For a listing: its protocol's name and the first of the frames that protocol does not
  /// fit, with their count (`Proxmark3TextWriter.Rows.misfits`); nil otherwise.
  var listingMisfits: (listing: String, location: SourceLocation, count: Int)? {
    guard format == .pm3Text, let odd = rows.misfits else { return nil }
    return (rows.listingProtocol.preambleName, odd.location, odd.count)
  }

  /// Finishes the file.
  /// - Throws: `OutputError` when the output (or the spool) could not be written;
  ///   `TraceError.unreadable` when the spooled rows cannot be read back.
  mutating func close() throws {
    try pcap?.close()
    try pcapng?.close()
    guard let spool, let out = file else {
      try file?.close()
      return
    }
    defer { try? FileManager.default.removeItem(atPath: spool.path) }
    try spool.file.close()
    out.write(
      Data(
        Proxmark3TextWriter().head(traceBytes: rows.traceBytes, listing: rows.listingProtocol).utf8)
    )
    guard let input = FileHandle(forReadingAtPath: spool.path) else {
      throw TraceError(
        .unreadable, at: .wholeFile(spool.path),
        "cannot read back the spooled rows")
    }
    while case let chunk = input.readData(ofLength: 1 << 20), !chunk.isEmpty { out.write(chunk) }
    input.closeFile()
    // Rows a full temporary disk left in memory come after the ones in the file.
    out.write(spool.file.overflow)
    try out.close()
  }
}

/// What an output format could not keep of the frames' times, for `convert`'s warnings.
struct TimeLosses {
  /// Frames before the first one: a Proxmark3 time counts from it as a u32, so they are
  /// written at its time (`Proxmark3TraceWriter`, `Proxmark3TextWriter`).
  private(set) var beforeFirst = 0
  /// The first of them and how much earlier than the first frame it is.
  private(set) var firstBeforeFirst: (location: SourceLocation, earlierNs: Int64)?
  /// Gaps longer than a Proxmark3 timestamp spans (2³² ticks, ≈ 316.7 s): they wrap.
  private(set) var longGaps = 0
  /// Frames whose time a pcap (u32 seconds since 1970) or pcapng (u64 ns) record cannot hold:
  /// written at the nearer end of its range (`PcapWriter.recordTime(ns:)`).
  private(set) var outOfRange = 0
  /// The first of them and its time in ns since the Unix epoch.
  private(set) var firstOutOfRange: (location: SourceLocation, ns: Int64)?
  /// Frames longer than a `.trace` record's u16 duration holds (65535 ticks, ≈ 4.833 ms):
  /// written as 65535 ticks. The first of them and its duration in ticks.
  private(set) var longDurations = 0
  private(set) var firstLongDuration: (location: SourceLocation, ticks: Int64)?
  private var firstTicks: Int64?
  private var previousTicks: Int64?

  /// Takes the next frame written in `format`.
  mutating func note(_ frame: Frame, format: OutputFormat, baseEpochNs: Int64) {
    switch format {
    case .pcap, .pcapng:
      let ns = baseEpochNs.saturatingPlus(frame.timeNs)
      let holds = format == .pcap ? PcapWriter.holds(ns: ns) : PcapngWriter.holds(ns: ns)
      if !holds {
        outOfRange += 1
        if firstOutOfRange == nil { firstOutOfRange = (frame.location, ns) }
      }
    case .pm3Trace, .pm3Text:
      guard frame.direction != .event else { return }
      noteTicks(frame, fromFirst: format == .pm3Text)
      let duration = Proxmark3TraceWriter.durationTicks(frame)
      if format == .pm3Trace, duration > 0xFFFF {
        longDurations += 1
        if firstLongDuration == nil { firstLongDuration = (frame.location, duration) }
      }
    }
  }

  /// A `.trace` record holds the source's ticks or the time from the first frame (0); a
  /// listing's rows count from the first row: what lies below that origin is clamped.
  private mutating func noteTicks(_ frame: Frame, fromFirst: Bool) {
    let ticks = Proxmark3TraceWriter.timestampTicks(frame)
    let origin = fromFirst ? (firstTicks ?? ticks) : 0
    if firstTicks == nil { firstTicks = ticks }
    if ticks < origin {
      beforeFirst += 1
      if firstBeforeFirst == nil {
        firstBeforeFirst = (frame.location, AirTiming.nanoseconds(ticks: origin - ticks))
      }
    }
    let written = max(ticks, origin)
    if let p = previousTicks, written - p > Int64(UInt32.max) { longGaps += 1 }
    previousTicks = written
  }
}
