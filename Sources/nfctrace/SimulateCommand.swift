import Foundation
import NDEF
import NFCTrace

/// `nfctrace simulate SCENARIO.json -o OUT [--format pcap|pcapng|pm3-trace|pm3-text]`.
enum SimulateCommand {
  static let usage =
    "nfctrace simulate SCENARIO.json… -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--truth FILE]"
    + " [--frames N]\n  several scenarios and --frames N: run them in turn (seed + run number) until the"
    + " output holds N frames (for benchmarks)"

  /// The capture date written into pcap files of simulated traces: fixed so outputs are
  /// reproducible (2026-01-01T00:00:00Z).
  static let epochNs: Int64 = 1_767_225_600_000_000_000

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["-o", "--output", "--format", "--truth", "--frames"], flags: [])
    guard let output = a.value("-o") ?? a.value("--output") else {
      throw UsageError("missing -o OUT")
    }
    let truth = a.value("--truth")
    let inputs = a.positionals.map { (option: "the scenario", path: $0) }
    try OutputFormat.refuseOverwriting(("-o", output), inputs + [("--truth", truth ?? "")])
    if let truth { try OutputFormat.refuseOverwriting(("--truth", truth), inputs) }
    if let truth, OutputFormat.samePath(truth, output) {
      throw UsageError("-o and --truth name the same file")
    }
    let format = try OutputFormat.choose(a.value("--format"), output: output)
    if let n = a.value("--frames") {
      // Repeated runs write no ground truth: asking for one would silently get nothing.
      if truth != nil { throw UsageError("--truth cannot be used with --frames") }
      guard let count = Int(n), count > 0 else {
        let digits = !n.isEmpty && n.allSatisfy { ("0"..."9").contains($0) }
        throw UsageError(
          digits && n.contains(where: { $0 != "0" })
            ? "--frames \(n) is too large (at most \(Int.max))"
            : "--frames needs a positive number")
      }
      return try repeated(a.positionals, frames: count, output: output, format: format)
    }
    if a.positionals.count > 1 {
      throw UsageError("several scenarios are run in turn only with --frames N")
    }
    let path = try a.singleInput()
    let scenario = try load(path)
    var result = try simulate(scenario, path: path)
    // The truth's frame indices name frames of the file written: without events there.
    if format == .pm3Trace || format == .pm3Text { result = result.droppingEvents() }
    // A --truth that cannot be written fails the run before any output is made; the truth
    // file itself is written only once the trace is complete.
    if let truth, truth != "-" { try checkWritable(truth) }
    var out = try TraceOutput(path: output, format: format, baseEpochNs: epochNs)
    for f in result.frames { try out.write(f) }
    try out.close()
    if let truth {
      let file = try BufferedFile(creating: truth)
      file.write(Data(GroundTruthJSON.render(result.truth).utf8))
      try file.close()
    }
    StandardError.write(
      Data(
        "simulated \(ControlEscape.escaped(scenario.name)): \(result.frames.count) frames → \(output) (\(format.rawValue))\n"
          .utf8))
    return 0
  }

  /// Runs `paths` in turn, seed + run number, each run 50 ms after the previous one, until
  /// `frames` frames were written (streaming: memory stays that of one run).
  private static func repeated(
    _ paths: [String], frames: Int, output: String, format: OutputFormat
  ) throws -> Int32 {
    guard !paths.isEmpty else { throw UsageError("missing scenario file") }
    let scenarios = try paths.map(load)
    var out = try TraceOutput(path: output, format: format, baseEpochNs: epochNs)
    var written = 0
    var offsetNs: Int64 = 0
    var run = 0
    while written < frames {
      var scenario = scenarios[run % scenarios.count]
      scenario.seed &+= UInt64(run)
      let result = try simulate(scenario, path: paths[run % paths.count])
      // A Proxmark3 output holds no field events: they are not counted as frames written.
      let pm3 = format == .pm3Trace || format == .pm3Text
      for var f in result.frames where written < frames {
        if pm3, f.direction == .event { continue }
        f.index = written
        f.timeNs += offsetNs
        f.sourceTime = nil
        try out.write(f)
        written += 1
      }
      offsetNs += (result.frames.last?.timeNs ?? 0) + 50_000_000
      run += 1
    }
    try out.close()
    StandardError.write(
      Data("simulated \(run) runs: \(written) frames → \(output) (\(format.rawValue))\n".utf8))
    return 0
  }

  /// Throws the `OutputError` that creating `path` would: a directory, a missing parent
  /// folder, an existing file that cannot be opened for writing. Nothing is created or
  /// truncated.
  private static func checkWritable(_ path: String) throws {
    var directory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &directory) {
      if directory.boolValue { throw OutputError(path: path, errno: EISDIR) }
      let fd = open(path, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
      close(fd)
      return
    }
    let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard FileManager.default.fileExists(atPath: parent, isDirectory: &directory) else {
      throw OutputError(path: path, errno: ENOENT)
    }
    if !directory.boolValue { throw OutputError(path: path, errno: ENOTDIR) }
  }

  private static func load(_ path: String) throws -> Scenario {
    // An unreadable path is said as for traces, not as a Foundation error dump.
    // Read once through TraceInput: standard input (`-`), devices and the stream limit work
    // as for traces.
    let input = try TraceInput(path: path)
    guard !input.bytes.isEmpty else {
      throw TraceError(
        .malformed, at: .wholeFile(path), "empty file: expected a scenario JSON object")
    }
    do {
      return try Scenario.decode(input.bytes)
    } catch SimulationError.invalidScenario(let message) {
      throw TraceError(.malformed, at: .wholeFile(path), "not a valid scenario: " + message)
    } catch {
      throw TraceError(
        .malformed, at: .wholeFile(path),
        "not a valid scenario: \(error)")
    }
  }

  private static func simulate(_ scenario: Scenario, path: String) throws -> SimulationResult {
    do {
      return try Simulator.run(scenario)
    } catch {
      throw TraceError(
        .malformed, at: .wholeFile(path),
        "scenario cannot be simulated: \(error)")
    }
  }
}

/// `nfctrace convert IN -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--input-format NAME]`.
enum ConvertCommand {
  /// Source flags of frames that are a reader's report, not air frames.
  static func isReaderReported(_ flag: String) -> Bool {
    [
      ReaderChipFlag.targetInfo, ReaderChipFlag.isoDEPPayload, ReaderChipFlag.atr,
      ReaderChipFlag.uid, ReaderChipFlag.readerFailure, ReaderChipFlag.readBinary,
      ReaderChipFlag.damagedAnswer,
    ].contains(flag)
  }

  /// The pcap/pcapng time of `timeNs == 0`, in ns since the Unix epoch:
  /// - a source whose times are dates (`TraceFormat.sourceTimeIsDate`: pcap, Android snoop):
  ///   the first frame's date less its `timeNs`, so every frame keeps its own date (pcap →
  ///   pcap keeps the times, steps back included);
  /// - a source timed from its own start (Proxmark3, NFC-Laboratory): its earliest frame
  ///   (`earliestNs`, ≤ 0) at 1970-01-01T00:00:01Z, so that frames before the first (joined
  ///   runs, a merged capture) keep their times too, and first packets sharing one instant do
  ///   not read back as untimed (all 0, which the pcap importer takes for no times);
  /// - an untimed one (unit `order`: a libnfc log): 0, which stays untimed.
  static func baseEpoch(_ first: Frame?, dated: Bool, earliestNs: () -> Int64) -> Int64 {
    guard let time = first?.sourceTime, time.unit != .order, let first else { return 0 }
    if dated, let ns = dateNs(time) { return ns.saturatingMinus(first.timeNs) }
    return Int64(1_000_000_000).saturatingMinus(earliestNs())
  }

  /// A source time that is a date, in ns since the Unix epoch (saturated); nil for units that
  /// are not clock times (Proxmark3 ticks, order).
  private static func dateNs(_ time: SourceTime) -> Int64? {
    let scale: Int64
    switch time.unit {
    case .nanoseconds: scale = 1
    case .microseconds: scale = 1_000
    case .wholeSeconds: scale = 1_000_000_000
    case .proxmarkTicks, .order: return nil
    }
    let (ns, overflow) = time.value.multipliedReportingOverflow(by: scale)
    return overflow ? (time.value < 0 ? .min : .max) : ns
  }

  /// The earliest `timeNs` of the input's frames, at most 0, read in a first pass over the
  /// input (frames after damage that stops the import are not seen, nor converted).
  static func earliestTimeNs(_ format: TraceFormat, _ input: TraceInput) -> Int64 {
    guard var scan = try? format.open(input) else { return 0 }
    var earliest: Int64 = 0
    while let frame = try? scan.next() { earliest = min(earliest, frame.timeNs) }
    return earliest
  }

  static let usage =
    "nfctrace convert IN -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--input-format NAME]"

  /// Warns of the times `format` could not keep: Proxmark3 timestamps are u32 ticks from the
  /// first frame (a frame before it is written at its time; a gap longer than 2³² ticks
  /// wraps), a pcap time stamp u32 seconds since 1970, a pcapng one u64 nanoseconds.
  static func warnTimes(_ losses: TimeLosses, format: OutputFormat, output: String) {
    var lines: [String] = []
    if let (place, ns) = losses.firstBeforeFirst {
      lines.append(
        "\(place): frame \(span(ns)) earlier than the first frame (\(frames(losses.beforeFirst)) "
          + "in all): a Proxmark3 time counts from the first frame and cannot be earlier "
          + "(it would wrap to ≈ 316.7 s later), so \(output) puts them at the first frame's "
          + "time; convert to pcap or pcapng to keep the times")
    }
    if let (place, ticks) = losses.firstLongDuration {
      lines.append(
        "\(place): frame lasts \(span(AirTiming.nanoseconds(ticks: ticks))), longer than a "
          + "Proxmark3 record's 16-bit duration holds (65535 ticks, 4.833 ms; "
          + "\(frames(losses.longDurations)) in all): written as 65535 ticks, so \(output) shows "
          + "them ending earlier; convert to pm3-text, pcap or pcapng to keep their end")
    }
    if losses.longGaps > 0 {
      lines.append(
        "\(losses.longGaps) gaps between frames are longer than a Proxmark3 timestamp spans "
          + "(2³² ticks of 1/13.56 MHz, ≈ 316.7 s): the counter wraps, so \(output) shows "
          + "them shorter; convert to pcap or pcapng to keep the times")
    }
    if let (place, ns) = losses.firstOutOfRange {
      let limit =
        ns < 0
        ? "before 1970-01-01 00:00:00 UTC, the earliest time a \(format.rawValue) record holds"
        : "after 2106-02-07 06:28:15 UTC, the latest time a pcap record's 32-bit seconds hold"
      lines.append(
        "\(place): frame at \(utcDate(ns)), \(limit) (\(frames(losses.outOfRange)) in all): "
          + "\(output) has them at that limit, in their order"
          + (ns < 0 ? "" : "; convert to pcapng to keep the times"))
    }
    for line in lines { StandardError.write(Data(("warning: " + line + "\n").utf8)) }
  }

  /// A time span for a message: `1.500 s`, `5.450 ms`, `20.7 µs` (`%.3f s` showed 20 µs as
  /// `0.000 s`).
  static func span(_ ns: Int64) -> String {
    if ns >= 1_000_000_000 { return String(format: "%.3f s", Double(ns) / 1e9) }
    if ns >= 1_000_000 { return String(format: "%.3f ms", Double(ns) / 1e6) }
    return String(format: "%.1f µs", Double(ns) / 1e3)
  }

  /// `2106-02-07 06:28:16 UTC` for `ns` since the Unix epoch (whole seconds, rounded down).
  static func utcDate(_ ns: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    let seconds = ns >= 0 ? ns / 1_000_000_000 : (ns + 1) / 1_000_000_000 - 1
    return formatter.string(from: Date(timeIntervalSince1970: Double(seconds))) + " UTC"
  }

  /// Warns of frames a listing's one protocol does not fit: read back by its rules they change.
  static func warnListing(
    _ odd: (listing: String, location: SourceLocation, count: Int), output: String
  ) {
    StandardError.write(
      Data(
        ("warning: \(odd.location): a frame of another technology than the listing's "
          + "\(odd.listing) (\(frames(odd.count)) in all): a listing names one protocol and its "
          + "rows are read back by that protocol's rules (bit counts, parity, CRC), so \(output) "
          + "may give these frames back altered; convert to pm3-trace to keep them\n").utf8))
  }

  /// `1 frame`, `2 frames`.
  private static func frames(_ n: Int) -> String { n == 1 ? "1 frame" : "\(n) frames" }

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["-o", "--output", "--format", "--input-format"], flags: [])
    let path = try a.singleInput()
    guard let output = a.value("-o") ?? a.value("--output") else {
      throw UsageError("missing -o OUT")
    }
    try OutputFormat.refuseOverwriting(("-o", output), [("the input", path)])
    let format = try OutputFormat.choose(a.value("--format"), output: output)
    try checkFormatName(a.value("--input-format"))
    let input = try loadInput(path)
    let source = try traceFormat(of: input, named: a.value("--input-format"))
    var importer = try source.open(input)
    var pending: Frame?
    var failure: Error?
    do { pending = try importer.next() } catch { failure = error }
    let pcap = format == .pcap || format == .pcapng
    let base = baseEpoch(pending, dated: source.sourceTimeIsDate) {
      pcap ? earliestTimeNs(source, input) : 0
    }
    var out = try TraceOutput(path: output, format: format, baseEpochNs: base)
    var count = 0
    var readerReported = 0
    var withoutCRC = 0
    var cut = 0
    var bitsLost = 0
    var firstBitsLost: SourceLocation?
    var events = 0
    var lowFrequency = 0
    do {
      while failure == nil, let f = try pending ?? importer.next() {
        pending = nil
        try out.write(f)
        count += 1
        // Flag `truncated`: the capture cut the frame (a pcap snap length, NFC-Laboratory).
        if f.sourceFlags.contains("truncated") {
          cut += 1
        } else if f.crc == .notCaptured, f.direction != .event {
          withoutCRC += 1
        }
        if pcap, !TechnologyResolver.pcapKeepsBits(f) {
          bitsLost += 1
          if firstBitsLost == nil { firstBitsLost = f.location }
        }
        if f.direction == .event { events += 1 }
        if pcap, f.technology == .lowFrequency { lowFrequency += 1 }
        if !f.sourceFlags.isEmpty, f.sourceFlags.contains(where: ConvertCommand.isReaderReported) {
          readerReported += 1
        }
      }
    } catch {
      failure = error
    }
    try out.close()
    reportWarnings(importer.warnings)
    if failure == nil, count == 0 { failure = TraceError.allRejected(importer.warnings) }
    if readerReported > 0 {
      StandardError.write(
        Data(
          ("warning: \(readerReported) frames are what a reader reported rather than air frames "
            + "(activation data, APDUs whose ISO-DEP blocks the reader built, reader failures); "
            + "\(format.rawValue) has no field for that, so \(output) will not decode as \(path) "
            + "does: analyse \(path) itself\n").utf8))
    }
    // A Proxmark3 trace has no CRC-not-captured event and no record for a field event.
    let pm3 = format == .pm3Trace || format == .pm3Text
    if withoutCRC > 0, pm3 {
      StandardError.write(
        Data(
          ("warning: \(withoutCRC) frames were captured without their CRC (the reader chip "
            + "checked and removed it); a Proxmark3 trace holds frames as sent on the air, so "
            + "\(output) will show them as CRC failures: convert to pcap or pcapng, which keep "
            + "the CRC-not-captured events\n").utf8))
    }
    if cut > 0, pm3 {
      StandardError.write(
        Data(
          ("warning: \(frames(cut)) \(cut == 1 ? "was" : "were") cut by the capture's snap length (the end, CRC "
            + "included, was not captured); a Proxmark3 trace has no field for a frame's "
            + "original length, so \(output) will show them as damaged frames: convert to pcap "
            + "or pcapng, which keep the original length\n").utf8))
    }
    if let place = firstBitsLost {
      StandardError.write(
        Data(
          ("warning: \(place): a frame of fewer than 8 valid bits in its last byte "
            + "(\(frames(bitsLost)) in all, short frames other than REQA/WUPA and the 4-bit "
            + "ACK/NAK): \(format.rawValue) has no field for bit counts, so \(output) holds them "
            + "as whole bytes; convert to pm3-trace or pm3-text to keep them\n").utf8))
    }
    // Field events are lost there: say so, and count only what was written.
    if events > 0, pm3 {
      StandardError.write(
        Data(
          ("warning: \(events) capture events (field on/off and the like) are left out: a "
            + "Proxmark3 trace has no record for them, so taps of one tag that only a field "
            + "reset separates read as one session in \(output); convert to pcap or pcapng to "
            + "keep them\n").utf8))
    }
    if lowFrequency > 0 {
      StandardError.write(
        Data(
          ("warning: \(frames(lowFrequency)) of a low-frequency tag (125/134 kHz: Hitag, EM4x) "
            + "\(lowFrequency == 1 ? "is" : "are") written to link type 264, which is ISO 14443's, "
            + "so \(output) gives them back as ISO 14443 frames (failing CRC_A); convert to "
            + "pm3-trace or pm3-text to keep them\n").utf8))
    }
    warnTimes(out.timeLosses, format: format, output: output)
    if let odd = out.listingMisfits { warnListing(odd, output: output) }
    if let failure { throw failure }
    let written = pm3 ? count - events : count
    StandardError.write(
      Data("converted \(written) frames → \(output) (\(format.rawValue))\n".utf8))
    return 0
  }
}
