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
    switch URL(fileURLWithPath: output).pathExtension.lowercased() {
    case "pcapng": return .pcapng
    case "trace": return .pm3Trace
    case "txt": return .pm3Text
    default: return .pcap
    }
  }
}

/// Writes frames in one of the output formats, streaming where the format allows (the
/// Proxmark3 text listing is rendered at the end, from the frames kept).
struct TraceOutput {
  private var pcap: PcapWriter?
  private var pcapng: PcapngWriter?
  private var pm3 = Data()
  private var textFrames: [Frame] = []
  private let format: OutputFormat
  private let path: String

  /// Opens `path` for `format`; pcap times start at `baseEpochNs`.
  init(path: String, format: OutputFormat, baseEpochNs: Int64) throws {
    self.path = path
    self.format = format
    switch format {
    case .pcap: pcap = try PcapWriter(path: path, baseEpochNs: baseEpochNs)
    case .pcapng: pcapng = try PcapngWriter(path: path, baseEpochNs: baseEpochNs)
    case .pm3Trace, .pm3Text: break
    }
  }

  /// Writes one frame. Proxmark3 formats have no field events: those are skipped.
  mutating func write(_ frame: Frame) throws {
    switch format {
    case .pcap: try pcap?.write(frame)
    case .pcapng: try pcapng?.write(frame)
    case .pm3Trace:
      if frame.direction != .event { Proxmark3TraceWriter.append(frame, to: &pm3) }
    case .pm3Text:
      if frame.direction != .event { textFrames.append(frame) }
    }
  }

  /// Finishes the file.
  mutating func close() throws {
    pcap?.close()
    pcapng?.close()
    let here = SourceLocation(file: path, unit: "byte", record: 0, offset: 0)
    do {
      switch format {
      case .pm3Trace: try write(pm3)
      case .pm3Text: try Proxmark3TextWriter().write(textFrames, to: path)
      default: break
      }
    } catch let e as TraceError {
      throw e
    } catch {
      throw TraceError(.unreadable, at: here, "cannot write: \(error.localizedDescription)")
    }
  }

  private func write(_ data: Data) throws {
    if path == "-" {
      FileHandle.standardOutput.write(data)
    } else {
      try data.write(to: URL(fileURLWithPath: path))
    }
  }
}
