import Foundation
import NFCTrace

/// `nfctrace simulate SCENARIO.json -o OUT [--format pcap|pcapng|pm3-trace|pm3-text]`.
enum SimulateCommand {
  static let usage =
    "nfctrace simulate SCENARIO.json -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--truth FILE]"

  /// The capture date written into pcap files of simulated traces: fixed so outputs are
  /// reproducible (2026-01-01T00:00:00Z).
  static let epochNs: Int64 = 1_767_225_600_000_000_000

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(args, options: ["-o", "--output", "--format", "--truth"], flags: [])
    let path = try a.singleInput()
    guard let output = a.value("-o") ?? a.value("--output") else {
      throw UsageError("missing -o OUT")
    }
    let format = try OutputFormat.choose(a.value("--format"), output: output)
    let scenario: Scenario
    do {
      scenario = try Scenario.load(path: path)
    } catch let e as TraceError {
      throw e
    } catch {
      throw TraceError(
        .malformed, at: SourceLocation(file: path, unit: "byte", record: 0, offset: 0),
        "not a valid scenario: \(error)")
    }
    let result: SimulationResult
    do {
      result = try Simulator.run(scenario)
    } catch {
      throw TraceError(
        .malformed, at: SourceLocation(file: path, unit: "byte", record: 0, offset: 0),
        "scenario cannot be simulated: \(error)")
    }
    var out = try TraceOutput(path: output, format: format, baseEpochNs: epochNs)
    for f in result.frames { try out.write(f) }
    try out.close()
    if let truthPath = a.value("--truth") {
      try Data(GroundTruthJSON.render(result.truth).utf8).write(to: URL(fileURLWithPath: truthPath))
    }
    FileHandle.standardError.write(
      Data("simulated \(scenario.name): \(result.frames.count) frames → \(output) (\(format.rawValue))\n".utf8))
    return 0
  }
}

/// `nfctrace convert IN -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--input-format NAME]`.
enum ConvertCommand {
  static let usage =
    "nfctrace convert IN -o OUT [--format pcap|pcapng|pm3-trace|pm3-text] [--input-format NAME]"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["-o", "--output", "--format", "--input-format"], flags: [])
    let path = try a.singleInput()
    guard let output = a.value("-o") ?? a.value("--output") else {
      throw UsageError("missing -o OUT")
    }
    let format = try OutputFormat.choose(a.value("--format"), output: output)
    var (_, importer) = try openTrace(path, formatName: a.value("--input-format"))
    var out = try TraceOutput(path: output, format: format, baseEpochNs: 0)
    var count = 0
    var failure: Error?
    do {
      while let f = try importer.next() {
        try out.write(f)
        count += 1
      }
    } catch {
      failure = error
    }
    try out.close()
    reportWarnings(importer.warnings)
    if let failure { throw failure }
    FileHandle.standardError.write(Data("converted \(count) frames → \(output) (\(format.rawValue))\n".utf8))
    return 0
  }
}
