/// A reader of one trace format that yields frames one at a time.
///
/// An importer is created over a `TraceInput` and then pulled with `next()` until it returns
/// nil. It must never crash on bad input: a record it cannot read ends the import with a
/// `TraceError` naming the record and byte offset, after every frame before it was returned;
/// a record it can skip becomes a `TraceWarning`.
public protocol TraceImporter {
  /// Opens the input. Throws `TraceError` if the header is unreadable.
  init(input: TraceInput) throws
  /// The next frame, or nil at the end. Throws `TraceError` on damage that stops the import.
  mutating func next() throws -> Frame?
  /// Problems met so far that did not stop the import.
  var warnings: [TraceWarning] { get }
}

/// A format the tool can import: its name for `--input-format`, a one-line description, and a
/// content sniffer.
public struct TraceFormat: Sendable {
  /// The name used with `--input-format` and in JSON `source.format` (e.g. `pm3-trace`).
  public let name: String
  /// One line for `nfctrace formats`.
  public let summary: String
  /// Confidence 0…100 that `head` (the first bytes, up to 4 KiB) is in this format; `path` is a
  /// hint only (an extension can raise confidence, never decide alone).
  public let sniff: @Sendable (_ head: [UInt8], _ path: String) -> Int
  /// Opens an importer over the input.
  public let open: @Sendable (TraceInput) throws -> any TraceImporter
  /// True when the frames' `sourceTime` in µs, ns or whole seconds is a date: time since the
  /// Unix epoch, 1970-01-01T00:00:00Z (a pcap record's time stamp, libpcap `pcap/pcap.h`;
  /// an Android snoop record's µs). False for clocks that start with the capture (Proxmark3
  /// ticks, NFC-Laboratory seconds): `convert` gives those a date of its own.
  public let sourceTimeIsDate: Bool

  /// Declares a format; `sourceTimeIsDate` as the property says (false by default).
  public init(
    name: String, summary: String, sniff: @escaping @Sendable ([UInt8], String) -> Int,
    open: @escaping @Sendable (TraceInput) throws -> any TraceImporter,
    sourceTimeIsDate: Bool = false
  ) {
    self.name = name
    self.summary = summary
    self.sniff = sniff
    self.open = open
    self.sourceTimeIsDate = sourceTimeIsDate
  }
}

/// The set of formats known to a build, and detection by content.
public struct FormatRegistry: Sendable {
  /// Registered formats, in listing order.
  public private(set) var formats: [TraceFormat]

  /// A registry holding `formats`.
  public init(_ formats: [TraceFormat]) { self.formats = formats }

  /// Adds a format.
  public mutating func register(_ format: TraceFormat) { formats.append(format) }

  /// The format named `name`, if registered.
  public func format(named name: String) -> TraceFormat? { formats.first { $0.name == name } }

  /// The format that recognises `input` with the highest confidence.
  /// - Throws: `TraceError.unknownFormat` when none scores above zero, `.truncated` for an
  ///   empty input.
  public func detect(_ input: TraceInput) throws -> TraceFormat {
    let head = input.head()
    if head.isEmpty {
      throw TraceError(
        .truncated, at: input.location(unit: "byte", record: 0, offset: 0),
        "empty input, expected a trace")
    }
    // A text log may start with pages of other output (a Proxmark3 client session's `hw
    // version` and `hf 14a info` before `trace list`): a longer head is looked at when the
    // first 4 KiB name no format.
    // A last-resort score (10 or less: a damaged `.trace` by its name) does not stop that
    // longer look.
    var found = best(head, input.path)
    if found.map({ $0.1 <= 10 }) ?? true, input.bytes.count > head.count,
      let longer = best(input.head(1 << 16), input.path), longer.1 > (found?.1 ?? 0)
    {
      found = longer
    }
    guard let found = found?.0 else {
      let names = formats.map(\.name).joined(separator: ", ")
      throw TraceError(
        .unknownFormat, at: input.location(unit: "byte", record: 0, offset: 0),
        "not a recognised trace format (known: \(names)); use --input-format"
          + (Self.looksLikeScenario(head)
            ? ". It looks like a simulation scenario: make a trace of it first with "
              + "`nfctrace simulate \(Self.shellQuoted(input.path)) -o OUT.pcap`" : ""))
    }
    return found
  }

  /// `path` as a shell word to paste: single-quoted unless it holds only safe characters.
  static func shellQuoted(_ path: String) -> String {
    let safe = path.unicodeScalars.allSatisfy {
      ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        || "._/-+,:@%".unicodeScalars.contains($0)
    }
    return safe && !path.isEmpty
      ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// A JSON object with a scenario's keys (`"actions"`, `"reader"`, `"tag"`), not a trace.
  static func looksLikeScenario(_ head: [UInt8]) -> Bool {
    guard head.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") else { return false }
    let text = String(decoding: head, as: UTF8.self)
    return ["\"actions\"", "\"reader\"", "\"tag\""].allSatisfy(text.contains)
  }

  /// The format that scores `head` highest, if any scores above zero.
  private func best(_ head: [UInt8], _ path: String) -> (TraceFormat, Int)? {
    var best: (TraceFormat, Int)?
    for f in formats {
      let score = f.sniff(head, path)
      if score > (best?.1 ?? 0) { best = (f, score) }
    }
    return best
  }
}
