import Foundation

/// Imports NFC-Laboratory (josevcm/nfc-laboratory) frame exports: the `frame.json` document
/// found inside a `.trz` capture (`{"frames": [ {…}, … ]}`) and the JSON-lines stream that
/// `nfc-lab -j` / `nfc-rx -j` print (one frame object per line).
///
/// Mapping (field meanings from nfc-laboratory `README.md`, "TRZ" and "Live console output"):
/// - poll frames → `.reader`, listen frames → `.tag`, carrier on/off → `.event`
///   `.fieldOn`/`.fieldOff`; other frame types (ISO 7816 contact frames) are skipped with a
///   warning.
/// - `timeStart` seconds → `timeNs` relative to the first frame; `sourceTime` keeps the
///   absolute value converted to nanoseconds (unit `.nanoseconds`); `timeEnd − timeStart` → `durationNs`.
/// - short-frame flag → `bits = 7` (REQA/WUPA, ISO/IEC 14443-3 §6.2.3.1); encrypted → CRC
///   `.encrypted` and source flag `encrypted`; truncated, parity error (no byte index is
///   recorded), CRC error, sync error → source flags; the CRC stays `.unchecked` otherwise
///   (frames carry their CRC bytes).
///
/// Locations: `frame.json` records use unit `frame` (1-based index in the array) and the byte
/// offset of the frame's `{`; JSON lines use unit `line` and the line's byte offset (lines end
/// with LF, CR LF or a lone CR: `TextLines`).
///
/// Errors (`TraceError`, thrown by `init` for the document shape, by `next()` for a frame,
/// after every earlier frame was returned): `.malformed` when the top level is not an object,
/// `frames` is missing or not an array, an element is not an object, or a frame lacks
/// `frameType`, `timeStart` or (for poll/listen) hex `frameData`; `.truncated` when the input
/// ends inside the array or a line.
public struct NFCLabImporter: TraceImporter {
  /// `nfclab-json`: NFC-Laboratory `frame.json` or `-j` JSON lines.
  public static let format = TraceFormat(
    name: "nfclab-json",
    summary: "NFC-Laboratory frame export (frame.json from a .trz, or nfc-lab -j JSON lines)",
    sniff: { head, path in NFCLabImporter.sniff(head, path: path) },
    open: { try NFCLabImporter(input: $0) })

  private enum Layout {
    /// `{"frames": [...]}`; the cursor walks the array's elements.
    case document
    /// One object per line.
    case lines
  }

  private let input: TraceInput
  private let scanner: JSONByteScanner
  private let layout: Layout
  /// Byte offset of the next element or line.
  private var cursor: Int
  /// Array elements or lines consumed so far.
  private var record = 0
  private var emitted = 0
  private var firstStartNs: Int64?
  /// The latest start time so far, and whether a step back was warned (once, as the pcap and
  /// Proxmark3 importers do).
  private var latestStartNs: Int64?
  private var warnedBackwards = false
  private var finished = false
  private var skippedTypes: Set<Int> = []
  /// `techType` codes already warned as unknown (once per code).
  private var skippedTechs: Set<Int> = []
  /// Problems met so far that did not stop the import.
  public private(set) var warnings: [TraceWarning] = []

  /// Opens `input`, deciding between the document and the JSON-lines layout.
  /// - Throws: `TraceError.malformed` when the document is not an object with a `frames`
  ///   array; `.truncated` when it ends before the array opens.
  public init(input: TraceInput) throws {
    self.input = input
    let bytes = [UInt8](input.bytes)
    scanner = JSONByteScanner(bytes: bytes)
    let start = TextLines.byteOrderMarkLength(bytes)
    if Self.isJSONLines(bytes, from: start) {
      layout = .lines
      cursor = start
    } else {
      layout = .document
      cursor = try Self.openFramesArray(scanner, from: start, input: input)
    }
  }

  /// The next frame or event, nil at the end.
  /// - Throws: `TraceError` at the first damaged frame (see the type's documentation).
  public mutating func next() throws -> Frame? {
    while !finished {
      let object: [String: Any]?
      let location: SourceLocation
      switch layout {
      case .document: (object, location) = try nextElement()
      case .lines: (object, location) = try nextLine()
      }
      guard let object else { continue }
      if let frame = try frame(from: object, at: location) { return frame }
    }
    return nil
  }

  // MARK: - Layouts

  /// True when the first line is a complete JSON object that is a frame (has a frame type).
  /// A frame line is short: a first line past 64 KiB is a one-line `frame.json` document, not
  /// parsed whole here (that would hold the whole file as objects at once).
  private static func isJSONLines(_ bytes: [UInt8], from start: Int) -> Bool {
    let end = TextLines.line(in: bytes[start..<min(bytes.count, start + 65_537)], from: start).end
    guard end > start, end - start <= 65_536,
      let first = try? JSONSerialization.jsonObject(with: Data(bytes[start..<end])),
      let object = first as? [String: Any]
    else { return false }
    return object["frame_type"] != nil || object["frameType"] != nil || object["type"] != nil
  }

  /// Finds the `frames` array of the top-level object; returns the offset after its `[`.
  private static func openFramesArray(
    _ scanner: JSONByteScanner, from start: Int, input: TraceInput
  ) throws -> Int {
    func fail(_ kind: TraceError.Kind, _ offset: Int, _ message: String) -> TraceError {
      TraceError(kind, at: input.location(unit: "byte", record: 0, offset: offset), message)
    }
    var i = scanner.skipSpace(from: start)
    guard i < scanner.bytes.count, scanner.bytes[i] == 0x7B else {
      throw fail(.malformed, i, "expected a JSON object with a \"frames\" array at the top level")
    }
    i += 1
    do {
      while true {
        i = scanner.skipSpace(from: i)
        guard i < scanner.bytes.count else { throw JSONByteScanner.Failure.endOfInput }
        if scanner.bytes[i] == 0x7D { break }
        guard scanner.bytes[i] == 0x22 else { throw JSONByteScanner.Failure.unexpected(i) }
        let keyEnd = try scanner.endOfString(at: i)
        let isFrames = scanner.string(from: i, to: keyEnd, equals: Array("frames".utf8))
        i = scanner.skipSpace(from: keyEnd)
        guard i < scanner.bytes.count, scanner.bytes[i] == 0x3A else {
          throw JSONByteScanner.Failure.unexpected(i)
        }
        i = scanner.skipSpace(from: i + 1)
        if isFrames {
          guard i < scanner.bytes.count, scanner.bytes[i] == 0x5B else {
            throw fail(.malformed, i, "\"frames\" is not an array, expected [ {frame}, … ]")
          }
          return i + 1
        }
        i = scanner.skipSpace(from: try scanner.endOfValue(at: i))
        if i < scanner.bytes.count, scanner.bytes[i] == 0x2C { i += 1 }
      }
    } catch JSONByteScanner.Failure.endOfInput {
      throw fail(.truncated, scanner.bytes.count, "input ends before the \"frames\" array")
    } catch JSONByteScanner.Failure.unexpected(let at) {
      throw fail(.malformed, at, "not JSON here, expected a key of the top-level object")
    }
    throw fail(.malformed, i, "the top-level object has no \"frames\" array")
  }

  /// The next array element as an object (nil after the array ends) and its location.
  private mutating func nextElement() throws -> ([String: Any]?, SourceLocation) {
    let bytes = scanner.bytes
    var i = scanner.skipSpace(from: cursor)
    if i < bytes.count, bytes[i] == 0x2C, record > 0 { i = scanner.skipSpace(from: i + 1) }
    let location = input.location(unit: "frame", record: record + 1, offset: i)
    guard i < bytes.count else {
      finished = true
      throw TraceError(
        .truncated, at: location,
        "input ends inside the \"frames\" array after \(record) frames, expected , or ]")
    }
    if bytes[i] == 0x5D {
      finished = true
      noteAfterFrames(from: i + 1)
      return (nil, location)
    }
    guard bytes[i] == 0x7B else {
      finished = true
      throw TraceError(
        .malformed, at: location, "expected a JSON object {…}")
    }
    let end: Int
    do { end = try scanner.endOfValue(at: i) } catch {
      finished = true
      throw TraceError(.truncated, at: location, "input ends inside frame \(record + 1)")
    }
    cursor = end
    record += 1
    return (try parseObject(bytes[i..<end], at: location), location)
  }

  /// After the `frames` array: the rest of the top-level object, then nothing. A second
  /// `frames` array or bytes after the object (two exports joined) are not read: said in a
  /// warning with their offset rather than dropped silently.
  private mutating func noteAfterFrames(from start: Int) {
    let bytes = scanner.bytes
    func warn(_ offset: Int, _ message: String) {
      warnings.append(
        TraceWarning(message, location: input.location(unit: "byte", record: 0, offset: offset)))
    }
    var i = scanner.skipSpace(from: start)
    while i < bytes.count, bytes[i] == 0x2C {  // , "key": value
      let key = scanner.skipSpace(from: i + 1)
      guard let keyEnd = try? scanner.endOfValue(at: key) else { return }
      let colon = scanner.skipSpace(from: keyEnd)
      guard colon < bytes.count, bytes[colon] == 0x3A else { return }
      let value = scanner.skipSpace(from: colon + 1)
      guard let valueEnd = try? scanner.endOfValue(at: value) else { return }
      if bytes[key..<keyEnd].elementsEqual(Array("\"frames\"".utf8)) {
        warn(key, "a second \"frames\" array in the export is not read")
      }
      i = scanner.skipSpace(from: valueEnd)
    }
    guard i < bytes.count, bytes[i] == 0x7D else { return }
    let rest = scanner.skipSpace(from: i + 1)
    if rest < bytes.count {
      warn(rest, "bytes after the export's top-level object are not read (two exports joined?)")
    }
  }

  /// The next non-blank line as an object (nil for a skipped line) and its location.
  private mutating func nextLine() throws -> ([String: Any]?, SourceLocation) {
    let bytes = scanner.bytes
    let start = cursor
    let location = input.location(unit: "line", record: record + 1, offset: start)
    guard start < bytes.count else {
      finished = true
      return (nil, location)
    }
    let end: Int
    (end, cursor) = TextLines.line(in: bytes, from: start)
    record += 1
    let first = scanner.skipSpace(from: start)
    if first >= end { return (nil, location) }  // blank line
    guard bytes[first] == 0x7B else {
      // nfc-rx prints status lines such as "Finish capture, time limit reached!" on stdout.
      warnings.append(TraceWarning("not a JSON frame line, skipped", location: location))
      return (nil, location)
    }
    if cursor == end, (try? scanner.endOfValue(at: first)) == nil {
      finished = true
      throw TraceError(.truncated, at: location, "input ends inside the last JSON line")
    }
    return (try parseObject(bytes[first..<end], at: location), location)
  }

  /// The object in `slice`; the error names `location` (which says the frame or line) and,
  /// when Foundation says why, its reason cut to 80 characters (a number of 5000 digits is
  /// quoted whole in it).
  private func parseObject(_ slice: ArraySlice<UInt8>, at location: SourceLocation) throws
    -> [String: Any]
  {
    let parsed: Any
    do {
      parsed = try JSONSerialization.jsonObject(with: Data(slice))
    } catch {
      let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      let shown = reason.map { $0.count > 80 ? ": " + $0.prefix(80) + "…" : ": " + $0 } ?? ""
      throw TraceError(.malformed, at: location, "not a valid JSON object\(shown)")
    }
    guard let object = parsed as? [String: Any] else {
      throw TraceError(.malformed, at: location, "not a JSON object")
    }
    return object
  }

  // MARK: - Frames

  private mutating func frame(from object: [String: Any], at location: SourceLocation) throws
    -> Frame?
  {
    let fields: NFCLabRecord.Fields
    switch NFCLabRecord.fields(object) {
    case .success(let f): fields = f
    case .failure(let failure):
      finished = true
      throw TraceError(
        .malformed, at: location, failure.message)
    }
    let direction: Direction
    var event: FrameEvent?
    switch NFCLabRecord.FrameType(rawValue: fields.frameType) {
    case .poll: direction = .reader
    case .listen: direction = .tag
    case .carrierOn: (direction, event) = (.event, .fieldOn)
    case .carrierOff: (direction, event) = (.event, .fieldOff)
    case nil:
      if skippedTypes.insert(fields.frameType).inserted {
        warnings.append(
          TraceWarning(
            "frame type \(Self.hex(fields.frameType)) is not an NFC poll/listen/carrier frame; "
              + "frames of this type are skipped", location: location))
      }
      return nil
    }
    if let problem = fields.flagsProblem {
      warnings.appendCapped(TraceWarning(problem, location: location))
    }
    if let code = fields.unknownTechCode, event == nil, skippedTechs.insert(code).inserted {
      warnings.append(
        TraceWarning(
          "techType \(Self.hex(code)) is not NFC-A, NFC-B, NFC-F or NFC-V (0x0101…0x0104, or "
            + "1/2 in 1.x exports); the technology of its frames is inferred from their bytes",
          location: location))
    }
    let first = firstStartNs ?? fields.startNs
    firstStartNs = first
    if let latest = latestStartNs, fields.startNs < latest, !warnedBackwards {
      warnedBackwards = true
      warnings.append(
        TraceWarning(
          "timeStart goes back by "
            + String(format: "%.3f", Double(latest &- fields.startNs) / 1_000_000)
            + " ms: the export was merged or edited; times, gaps and durations across this "
            + "point are not meaningful", location: location))
    }
    latestStartNs = max(latestStartNs ?? fields.startNs, fields.startNs)
    let encrypted = fields.flags.contains("encrypted")
    defer { emitted += 1 }
    // Start times lie within ±9.2e18 ns each; their difference is saturated to fit Int64.
    let (sinceFirst, overflow) = fields.startNs.subtractingReportingOverflow(first)
    return Frame(
      index: emitted, timeNs: overflow ? (fields.startNs < first ? .min : .max) : sinceFirst,
      durationNs: fields.durationNs,
      sourceTime: SourceTime(fields.startNs, .nanoseconds), direction: direction, event: event,
      data: fields.data, bits: shortFrameBits(fields, direction),
      // A frame NFC-Laboratory flags truncated lost its end (the CRC with it): nothing to check.
      crc: encrypted ? .encrypted : fields.flags.contains("truncated") ? .notCaptured : .unchecked,
      technology: fields.tech,
      sourceFlags: fields.flags, location: location)
  }

  /// A record's code as NFC-Laboratory writes it: hex, or decimal when negative.
  private static func hex(_ code: Int) -> String {
    code < 0 ? String(code) : "0x" + String(code, radix: 16)
  }

  /// Valid bits of a one-byte frame flagged short: 7 from the reader (REQA, WUPA), 4 from the
  /// tag (ACK/NAK; nfc-laboratory `NfcA.cpp` flags a listen frame of 4 bits as short).
  private func shortFrameBits(_ fields: NFCLabRecord.Fields, _ direction: Direction) -> Int? {
    guard fields.shortFrame, fields.data.count == 1 else { return nil }
    return direction == .tag ? 4 : 7
  }

  // MARK: - Detection

  /// Confidence that `head` is an NFC-Laboratory export.
  static func sniff(_ head: [UInt8], path: String) -> Int {
    // Decoding repairs a UTF-8 sequence cut at the end of the head.
    let text = String(decoding: head, as: UTF8.self)
    let trimmed = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
    guard trimmed.first == "{" else { return 0 }
    if text.contains("\"frames\""),
      text.contains("\"frameType\"") || text.contains("\"frameData\"")
    {
      return 95
    }
    if text.contains("\"frame_type\""), text.contains("\"tech_type\"") { return 90 }
    // The `nfc-lab -j` stream as NFC-Laboratory's own reader (py_nfclab) documents it:
    // `tech`, `type`, `data`, with `timestamp` / `time_start`.
    if text.contains("\"tech\""), text.contains("\"type\""), text.contains("\"data\""),
      text.contains("\"time_start\"") || text.contains("\"timestamp\"")
    {
      return 85
    }
    if text.contains("\"frames\""), path.lowercased().hasSuffix(".json") { return 30 }
    return 0
  }
}
