import CFuzzerDriver
import Foundation
import NDEF
import NFCTrace
import NFCTraceAndroid
import NFCTracePcap

/// What every fuzz target runs: the same work as the CLI's `timeline`, `sessions` and `ndef`
/// commands, with output rendered into memory and thrown away. A crash, a sanitizer report or
/// a hang in here is a bug; thrown `TraceError`s and `NDEFError`s are the expected outcome for
/// bad input.
public enum Fuzz {
  /// Every format of the CLI's registry (pcap first, as in `nfctrace formats`).
  public static let registry = FormatRegistry(
    PcapFormats.all + BuiltinFormats.all + AndroidFormats.all)

  /// A path no file has, so that importers use the bytes in memory (libpcap reads them through
  /// a copy instead of the file).
  static let path = "<fuzz-input>"

  /// A libFuzzer test function: the input's bytes and size; returns 0.
  public typealias TestFunction = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

  /// Runs libFuzzer's driver with the process's arguments (libFuzzer flags, corpus folders or
  /// crash files to replay) over `test`, and exits with its status.
  ///
  /// SwiftPM aliases `main` to each executable's top-level code, so libFuzzer's own `main`
  /// is not linked; this is the equivalent of `LLVMFuzzerTestOneInput` plus that `main`.
  public static func run(_ test: TestFunction) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
  }

  /// libFuzzer's input as `Data` (`data` may be nil when `size` is 0).
  public static func data(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Data {
    guard let data, size > 0 else { return Data() }
    return Data(bytes: data, count: size)
  }

  /// libFuzzer's input as bytes.
  public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
  }

  /// Runs `bytes` as a trace of `format` through detection (every sniffer), the importer, the
  /// frame pipeline, the session collector and both timeline renderers plus the sessions
  /// renderers, as `nfctrace timeline` / `sessions` do.
  public static func trace(_ bytes: Data, format: TraceFormat) {
    let input = TraceInput(path: path, bytes: bytes)
    _ = try? registry.detect(input)
    guard let importer = try? format.open(input) else { return }
    let textOut = OutputBuffer(fd: nil)
    let text = TimelineTextRenderer(out: textOut, color: true)
    let jsonOut = OutputBuffer(fd: nil)
    let json = TimelineJSONRenderer(
      out: jsonOut, path: path, format: format.name, version: "fuzz")
    guard let spool = try? SessionSpool() else { return }
    let sessionsOut = OutputBuffer(fd: nil)
    let run: SessionAnalysisRun
    do {
      // The same streaming run the CLI makes, with sessions handed out as they end; on one
      // thread, so that every input runs the same way (the decoding thread has its own tests,
      // also under ThreadSanitizer).
      run = try SessionAnalysisRun(
        importer: importer, keepsMemory: false, retainsSessions: false, concurrent: false
      ) { item in
        switch item {
        case .event(let e): text.render(e)
        case .frame(let f):
          text.render(f)
          json.render(f)
        case .session(let s):
          spool.add(s)
          sessionsOut.write(SessionsRender.line(s))
          SessionsRender.json(s, to: sessionsOut)
        }
      }
    } catch {
      // Importers only throw TraceError (kept in run.error); anything else is a contract break.
      fatalError("importer threw a non-TraceError: \(error)")
    }
    text.finish()
    json.finish(sessions: spool, warnings: run.warnings, error: run.error)
    _ = run.error?.description
    _ = run.warnings.map(\.description)
  }

  /// Runs `bytes` as a static tag dump (Flipper `.nfc`, Proxmark3 JSON dump, raw Type 2
  /// image), then the NDEF TLV area of its pages 4 and up through the `ndef --tlv` job.
  public static func tagDump(_ bytes: Data) {
    let input = TraceInput(path: "fuzz.nfc", bytes: bytes)
    guard let dump = try? TagDumpReader.read(input) else { return }
    _ = dump.uidFromPages
    _ = dump.warnings.map(\.description)
    let area = dump.pages.dropFirst(4).flatMap { $0 }
    if !area.isEmpty {
      _ = NDEFCommand.run(bytes: Array(area), options: NDEFCommandOptions(tlv: true))
    }
  }

  /// Runs `bytes` as a bare NDEF message: strict parse, the `ndef` job in every mode and both
  /// output formats, and the Type 4 NDEF file reading (NLEN, and ENLEN with extended length).
  public static func ndef(_ bytes: [UInt8]) {
    _ = try? NDEFMessage(parsing: bytes)
    for mode in [NDEFValidationMode.strict, .relax, .ignore] {
      for format in NDEFOutputFormat.allCases {
        _ = NDEFCommand.run(
          bytes: bytes,
          options: NDEFCommandOptions(mode: mode, format: format, showSecrets: mode == .ignore))
      }
    }
    _ = try? Type4NDEFFile(parsing: bytes)
    _ = try? Type4NDEFFile(parsing: bytes, extendedLength: true)
  }

  /// Runs `bytes` as a Type 2 TLV area (from page 4): the TLV walk and the `ndef --tlv` job.
  public static func tlv(_ bytes: [UInt8]) {
    let area = Type2TLVArea(parsing: bytes)
    _ = area.ndefMessage
    for format in NDEFOutputFormat.allCases {
      _ = NDEFCommand.run(bytes: bytes, options: NDEFCommandOptions(tlv: true, format: format))
    }
  }
}
