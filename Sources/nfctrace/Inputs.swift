import Foundation
import NFCTrace
import NFCTraceAndroid
import NFCTracePcap

/// Every format this build can import.
let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all + AndroidFormats.all)

/// Opens `path` with the format named by `--input-format` or detected from its content.
/// - Throws: `UsageError` for an unknown format name, `TraceError` for unreadable input.
func openTrace(_ path: String, formatName: String?) throws -> (TraceFormat, any TraceImporter) {
  let (format, importer, _) = try openTraceInput(path, formatName: formatName)
  return (format, importer)
}

/// `openTrace`, also returning the input's size in bytes (for progress).
func openTraceInput(_ path: String, formatName: String?) throws -> (
  TraceFormat, any TraceImporter, Int
) {
  try checkFormatName(formatName)
  let input = try loadInput(path)
  let format = try traceFormat(of: input, named: formatName)
  return (format, try format.open(input), input.bytes.count)
}

/// Reads `path`, saying on standard error when UTF-16 text was converted (its byte offsets
/// then count the UTF-8 text).
func loadInput(_ path: String) throws -> TraceInput {
  let input = try TraceInput(path: path)
  if let encoding = input.transcodedFrom {
    StandardError.write(
      Data(
        "warning: \(path) is \(encoding) text; read as UTF-8 (byte offsets in messages count the converted text)\n"
          .utf8))
    if input.transcodingRepaired {
      StandardError.write(
        Data(
          "warning: \(path): invalid UTF-16 (a lone surrogate or an odd last byte) shown as U+FFFD\n"
            .utf8))
    }
  }
  return input
}

/// Checks the `--input-format` name before any file is read, so a misspelt name is a usage
/// error (exit 2) even when the file is missing too.
/// `allowDumps`: the static dump formats count too (`report` reads them).
/// - Throws: `UsageError` for an unknown name.
func checkFormatName(_ formatName: String?, allowDumps: Bool = false) throws {
  guard let formatName, registry.format(named: formatName) == nil else { return }
  if ReportSource.dumpFormats.contains(formatName) {
    if allowDumps { return }
    throw UsageError(
      "\(formatName) is a static tag dump (contents, no frames): only nfctrace report reads it")
  }
  let dumps = allowDumps ? ReportSource.dumpFormats : []
  let names = (registry.formats.map(\.name) + dumps).joined(separator: ", ")
  throw UsageError("unknown input format \(formatName) (known: \(names))")
}

/// The trace format named `formatName`, else the one `input`'s content shows.
/// - Throws: `UsageError` for an unknown name; `TraceError` `.unknownFormat` when nothing
///   matches, `.unsupported` for a static tag dump (saying that `report` reads it).
func traceFormat(of input: TraceInput, named formatName: String?) throws -> TraceFormat {
  if let formatName {
    guard let f = registry.format(named: formatName) else {
      let names = registry.formats.map(\.name).joined(separator: ", ")
      throw UsageError("unknown input format \(formatName) (known: \(names))")
    }
    return f
  }
  do {
    let format = try registry.detect(input)
    // Proxmark3 traces have no magic number: a raw Type 2 image (CC magic, UID check bytes)
    // can walk as records by chance. The dump's own checks are stricter, so it wins. (A
    // pm3-trace is binary: the text dumps cannot match, so only the image is tried.)
    if format.name == "pm3-trace", let dump = TagDumpReader.rawType2Image(input) {
      throw TraceError(
        .unsupported, at: input.location(unit: "byte", record: 0, offset: 0),
        "a static tag dump (\(dump.format)) holds memory contents, not frames; "
          + "use nfctrace report \(input.path)")
    }
    return format
  } catch let e as TraceError where e.kind == .unknownFormat {
    // An NFC-Laboratory capture archive: the frames are in its frame.json.
    if input.head(2) == [0x1F, 0x8B] {
      // Single-quoted for the shell, as the user will paste it.
      let quoted = "'" + input.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
      let how =
        input.path.lowercased().hasSuffix(".trz")
        ? "an NFC-Laboratory .trz capture is a tar.gz archive: extract its frames with "
          + "`tar xzf \(quoted) frame.json` and give frame.json to nfctrace"
        : "the file is gzip-compressed: decompress it first (`gunzip -k \(quoted)`)"
      throw TraceError(.unsupported, at: e.location, how)
    }
    // A static dump has contents but no exchange: say which command reads it.
    if let dump = try? TagDumpReader.read(input) {
      throw TraceError(
        .unsupported, at: e.location,
        "a static tag dump (\(dump.format)) holds memory contents, not frames; "
          + "use nfctrace report \(input.path)")
    }
    throw e
  }
}

/// `no session 5 in this trace (sessions: 0–2, 4)`: the usage error of a `--session` the trace
/// does not have, its sessions' indices given as ranges (a long trace has thousands).
func noSessionError(_ n: Int, among indices: [Int]) -> UsageError {
  let known = indices.isEmpty ? "none" : rangesText(indices)
  return UsageError("no session \(n) in this trace (sessions: \(known))")
}
