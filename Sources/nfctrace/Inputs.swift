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
  let input = try TraceInput(path: path)
  let format: TraceFormat
  if let formatName {
    guard let f = registry.format(named: formatName) else {
      let names = registry.formats.map(\.name).joined(separator: ", ")
      throw UsageError("unknown input format \(formatName) (known: \(names))")
    }
    format = f
  } else {
    do {
      format = try registry.detect(input)
    } catch let e as TraceError where e.kind == .unknownFormat {
      // A static dump has contents but no exchange: say which command reads it.
      if let dump = try? TagDumpReader.read(input) {
        throw TraceError(
          .unsupported, at: e.location,
          "a static tag dump (\(dump.format)) holds memory contents, not frames; "
            + "use nfctrace report \(path)")
      }
      throw e
    }
  }
  return (format, try format.open(input), input.bytes.count)
}
