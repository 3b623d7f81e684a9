import Foundation

/// Session JSON objects (or texts) written aside while frames stream, then copied after them:
/// a temporary file, so a trace with many sessions does not keep them all in memory. Where no
/// temporary file can be made (a read-only or full temporary directory) they are kept in
/// memory instead: the output is the same, only memory grows.
public final class SessionSpool {
  private let handle: FileHandle?
  private let buffer = OutputBuffer(fd: nil)
  private var count = 0
  /// Session objects kept in memory: all of them without a file, else those after a write to
  /// the file failed.
  private var kept = Data()

  /// Creates the spool file in the temporary directory, named with `suffix`, readable by its
  /// owner only. The name is removed as soon as the file is open, so that no file is left
  /// behind when the program is killed (SIGPIPE from `| head`, Ctrl-C): the open handle keeps
  /// the file until it is closed.
  public init(suffix: String = "json") {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-sessions-\(UUID().uuidString).\(suffix)")
    // Created with mode 0600 and O_EXCL in one call: never readable by others, not even for a
    // moment, and never someone else's file of the same name.
    let fd = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    if fd >= 0 { unlink(url.path) }
    handle = fd >= 0 ? FileHandle(fileDescriptor: fd, closeOnDealloc: true) : nil
  }

  deinit { try? handle?.close() }

  /// Appends one session object (comma-separated).
  public func add(_ s: SessionAnalysis) {
    write { b in
      if count > 0 { b.append(0x2C) }
      b.append(0x0A)
      SessionsRender.json(s, to: b)
    }
  }

  /// Appends what `body` writes to the buffer it is given (one session's text or JSON).
  public func write(_ body: (OutputBuffer) -> Void) {
    body(buffer)
    count += 1
    if buffer.count > 1 << 16 { spill() }
  }

  private func spill() {
    let data = Data(buffer.takeBytes())
    guard kept.isEmpty, let handle else { return kept.append(data) }
    let end = try? handle.offset()
    do {
      try handle.write(contentsOf: data)
    } catch {
      // The temporary file cannot grow (a full disk): the part written is cut off again and
      // the rest stays in memory, so nothing is lost.
      if let end { try? handle.truncate(atOffset: end) }
      kept = data
    }
  }

  /// Copies every session object written so far to `out`, in order.
  public func copy(to out: OutputBuffer) {
    chunks { Self.append($0, to: out) }
  }

  /// Hands everything written so far to `body`, in order, a chunk at a time.
  public func chunks(_ body: (Data) -> Void) {
    spill()
    try? handle?.seek(toOffset: 0)
    while let chunk = try? handle?.read(upToCount: 1 << 16), !chunk.isEmpty { body(chunk) }
    if !kept.isEmpty { body(kept) }
  }

  private static func append(_ data: Data, to out: OutputBuffer) {
    data.withUnsafeBytes { raw in out.append(raw.bindMemory(to: UInt8.self)) }
  }
}

/// Renders the timeline as the stable JSON document described in docs/json.md, streaming the
/// frames array and writing sessions and warnings at the end.
public final class TimelineJSONRenderer {
  private let out: OutputBuffer
  private var count = 0

  /// Starts the document: `{"tool":"nfctrace","version",…,"source":{…},"frames":[`.
  public init(out: OutputBuffer, path: String, format: String, version: String) {
    self.out = out
    JSON.documentHead(version: version, path: path, format: format, to: out)
    out.write(",\"frames\":[")
  }

  /// Appends one frame object.
  public func render(_ f: DecodedFrame) {
    if count > 0 { out.append(0x2C) }
    count += 1
    out.append(0x0A)
    Self.frame(f, to: out)
  }

  /// Closes the document with the sessions, warnings and a fatal error if the import stopped.
  public func finish(sessions: SessionSpool, warnings: [TraceWarning], error: TraceError?) {
    out.write("\n],\"sessions\":[")
    sessions.copy(to: out)
    out.write("\n],\"warnings\":[")
    JSON.elements(warnings, to: out) { w in
      out.write("\n")
      Self.warning(w, to: out)
    }
    out.write("\n],\"error\":")
    Self.error(error, to: out)
    out.write("}\n")
  }

  /// Writes the import error that stopped reading as
  /// `{"kind","message","file","unit","record","offset"}`, or `null`.
  public static func error(_ error: TraceError?, to out: OutputBuffer) {
    guard let error else { return out.write("null") }
    out.write("{\"kind\":")
    JSON.string(error.kind.rawValue, to: out)
    out.write(",\"message\":")
    JSON.string(error.message, to: out)
    out.write(",\"file\":")
    JSON.string(error.location.file, to: out)
    out.write(",\"unit\":")
    JSON.string(error.location.unit, to: out)
    out.write(",\"record\":\(error.location.record),\"offset\":\(error.location.offset)}")
  }

  /// Writes one frame object (see docs/json.md).
  public static func frame(_ f: DecodedFrame, to out: OutputBuffer) {
    let fr = f.frame
    out.write(
      "{\"index\":\(fr.index),\"time_ns\":\(fr.timeNs),\"direction\":\"\(fr.direction.rawValue)\"")
    out.write(",\"event\":")
    JSON.optionalString(fr.event?.rawValue, to: out)
    out.write(",\"data\":\"")
    out.appendHex(fr.data)
    out.write("\",\"bits\":")
    JSON.int(fr.bits, to: out)
    out.write(
      ",\"crc\":\"\(fr.crc == .unchecked ? "absent" : fr.crc.rawValue)\",\"parity_errors\":")
    JSON.ints(fr.parityErrors, to: out)
    out.write(",\"session\":")
    JSON.int(f.session, to: out)
    out.write(",\"layers\":[")
    JSON.elements(f.layers, to: out) { l in
      layer(l, to: out)
    }
    out.write("],\"summary\":")
    // A capture event is named as the text timeline names it (`field-on`), not "raw".
    let summary =
      f.innermost?.summary ?? f.frame.event?.rawValue
      ?? "raw" + (f.undecodedReason.map { ": \($0)" } ?? "")
    JSON.string(summary, to: out)
    extras(f, to: out)
    out.write("}")
  }

  private static func extras(_ f: DecodedFrame, to out: OutputBuffer) {
    out.write(",\"duration_ns\":")
    JSON.int(f.frame.durationNs.map { Int($0) }, to: out)
    out.write(",\"source_time\":")
    if let t = f.frame.sourceTime {
      out.write("{\"value\":\(t.value),\"unit\":\"\(t.unit.rawValue)\"}")
    } else {
      out.write("null")
    }
    out.write(",\"technology\":\"\(f.frame.technology.rawValue)\",\"source_flags\":[")
    JSON.elements(f.frame.sourceFlags, to: out) { s in
      JSON.string(s, to: out)
    }
    out.write("],\"answers\":")
    if case .answers(let i) = f.response { out.write(String(i)) } else { out.write("null") }
    out.write(",\"answered_by\":")
    if case .answeredBy(let i) = f.response { out.write(String(i)) } else { out.write("null") }
    out.write(",\"unanswered\":\(f.response == .unanswered)")
    out.write(",\"undecoded_reason\":")
    JSON.optionalString(f.undecodedReason, to: out)
    out.write(",\"findings\":[")
    JSON.elements(f.findings, to: out) { finding in
      Self.finding(finding, to: out)
    }
    out.write(
      "],\"location\":{\"record\":\(f.frame.location.record),\"offset\":\(f.frame.location.offset)}"
    )
  }

  /// Writes `{"protocol","name","summary","fields":{…}}`.
  public static func layer(_ l: LayerDecode, to out: OutputBuffer) {
    out.write("{\"protocol\":\"\(l.protocolID.rawValue)\",\"name\":")
    JSON.string(l.name, to: out)
    out.write(",\"summary\":")
    JSON.string(l.summary, to: out)
    out.write(",\"fields\":{")
    JSON.elements(l.fields, to: out) { field in
      JSON.key(field.key, to: out)
      JSON.value(field.value, to: out)
    }
    out.write("}}")
  }

  /// Writes `{"code","severity","message","frames","offset"}`.
  public static func finding(_ f: Finding, to out: OutputBuffer) {
    out.write("{\"code\":")
    JSON.string(f.code, to: out)
    out.write(",\"severity\":\"\(f.severity.rawValue)\",\"message\":")
    JSON.string(f.message, to: out)
    out.write(",\"frames\":")
    JSON.ints(f.frames, to: out)
    out.write(",\"offset\":")
    JSON.int(f.offset, to: out)
    out.write("}")
  }

  /// Writes `{"message","frame","offset"}` (plus `record`).
  public static func warning(_ w: TraceWarning, to out: OutputBuffer) {
    out.write("{\"message\":")
    JSON.string(w.message, to: out)
    out.write(",\"file\":")
    if let file = w.location?.file { JSON.string(file, to: out) } else { out.write("null") }
    out.write(",\"frame\":")
    JSON.int(w.frame, to: out)
    out.write(",\"offset\":")
    JSON.int(w.location?.offset, to: out)
    out.write(",\"record\":")
    JSON.int(w.location?.record, to: out)
    out.write("}")
  }

}
