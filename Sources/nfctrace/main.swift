import Foundation
import NFCTrace

/// The tool's version, printed in JSON output and by `nfctrace --version`.
enum Version {
  static let string = "0.1.0"
}

let topUsage = """
  usage: nfctrace COMMAND [OPTIONS]

  commands:
    timeline FILE     annotated timeline of a capture, layer by layer
    sessions FILE     one line per session: tag and Core NFC operations with outcomes
    report FILE       the tag's contents after a session (or from a dump): CC, locks, NDEF, memory
    diff A B          compare two sessions: operations, commands, memory, NDEF, timing
    diagnose FILE     verdicts on writes and failures, causes, Core NFC errors, fixes
    simulate SCENARIO simulate a tag, a reader and faults from a scenario; write a trace
    convert IN        convert any importable trace to pcap, pcapng or Proxmark3 formats
    ndef INPUT        decode and validate an NDEF message (hex, @FILE or -)
    formats           list the input formats
    version           print the version

  nfctrace COMMAND --help (or nfctrace help COMMAND): the command's options and an example.

  Exit status: 0 success, 1 diagnose found problems at its --fail-on level, 2 usage error,
  3 unreadable or invalid input, 4 the output could not be written (e.g. a full disk).
  """

/// Prints `s` on standard error, each line made `terminalSafe`: an error message quotes input
/// (a JSON string, a dump's line) that may hold ESC or BEL.
func printError(_ s: String) {
  let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
  StandardError.write(
    Data((lines.map { terminalSafe(String($0)) }.joined(separator: "\n") + "\n").utf8))
}

/// Prints a line on standard output through `OutputBuffer`, which records a failed write.
func printOut(_ s: String) {
  let out = OutputBuffer()
  out.write(s + "\n")
  out.flush()
}

func run(_ argv: [String]) -> Int32 {
  guard let command = argv.first else {
    printError(topUsage)
    return 2
  }
  let rest = Array(argv.dropFirst())
  let commands: [String: (usage: String, run: ([String]) throws -> Int32)] = [
    "timeline": (TimelineCommand.usage, TimelineCommand.run),
    "formats": ("nfctrace formats", FormatsCommand.run),
    "ndef": (NDEFCommandCLI.usage, NDEFCommandCLI.run),
    "sessions": (SessionsCommand.usage, SessionsCommand.run),
    "report": (ReportCommand.usage, ReportCommand.run),
    "diff": (DiffCommand.usage, DiffCommand.run),
    "diagnose": (DiagnoseCommand.usage, DiagnoseCommand.run),
    "simulate": (SimulateCommand.usage, SimulateCommand.run),
    "convert": (ConvertCommand.usage, ConvertCommand.run),
  ]
  switch command {
  case "-h", "--help", "help":
    // `nfctrace help COMMAND` is `nfctrace COMMAND --help`.
    guard let name = rest.first, !["version", "help", "-h", "--help"].contains(name) else {
      printOut(rest.first == "version" ? "usage: nfctrace version" : topUsage)
      return 0
    }
    guard let entry = commands[name] else {
      printError("nfctrace: unknown command \(name)\n\n" + topUsage)
      return 2
    }
    printOut(help(name, usage: entry.usage))
    return 0
  case "--version", "version":
    if rest.contains("--help") || rest.contains("-h") {
      printOut("usage: nfctrace version")
      return 0
    }
    // `--no-color` is accepted by every command (scripts pass it throughout).
    let rest = rest.filter { $0 != "--no-color" }
    guard rest.isEmpty else {
      printError("nfctrace version: unexpected argument \(rest[0])\nusage: nfctrace version")
      return 2
    }
    printOut("nfctrace \(Version.string)")
    return 0
  default: break
  }
  guard let entry = commands[command] else {
    printError("nfctrace: unknown command \(command)\n\n" + topUsage)
    return 2
  }
  do {
    return try entry.run(rest)
  } catch is HelpRequested {
    printOut(help(command, usage: entry.usage))
    return 0
  } catch let e as UsageError {
    printError("nfctrace \(command): \(e)\nusage: \(entry.usage)")
    if wantsJSON(rest), !OutputBuffer.wroteStandardOutput {
      printJSONError(message: "\(e)", kind: "usage")
    }
    return 2
  } catch let e as OutputError {
    printError("nfctrace: error: \(e)")
    return 4
  } catch let e as TraceError {
    printError("nfctrace: error: \(e)")
    if wantsJSON(rest), !OutputBuffer.wroteStandardOutput { printJSONError(e, command: command) }
    return 3
  } catch let e as RecognisedTraceError {
    printError("nfctrace: error: \(e)")
    if wantsJSON(rest), !OutputBuffer.wroteStandardOutput {
      printJSONError(e.error, command: command, format: e.format, path: e.sourcePath)
    }
    return 3
  } catch {
    printError("nfctrace: error: \(error)")
    if wantsJSON(rest), !OutputBuffer.wroteStandardOutput { printJSONError(message: "\(error)") }
    return 3
  }
}

/// A command's help: its usage, then what `CommandHelp` says of it.
func help(_ command: String, usage: String) -> String {
  "usage: \(usage)" + (CommandHelp.text(command).map { "\n\n" + $0 } ?? "")
}

/// Any other error of a run asked for JSON (e.g. a `diff` side with no session) still gives a
/// JSON document: `{"tool","version","error":{"kind":"invalid-input","message"}}`; a usage
/// error (exit 2: an unknown option, a `--session` the trace does not have) the same with kind
/// `usage`.
func printJSONError(message: String, kind: String = "invalid-input") {
  let out = OutputBuffer()
  out.write("{\"tool\":\"nfctrace\",\"version\":")
  JSON.string(Version.string, to: out)
  out.write(",\"error\":{\"kind\":")
  JSON.string(kind, to: out)
  out.write(",\"message\":")
  JSON.string(message, to: out)
  out.write("}}\n")
  out.flush()
}

/// Whether the arguments ask for JSON output (`--format json`).
func wantsJSON(_ args: [String]) -> Bool {
  args.contains("--format=json")
    || zip(args, args.dropFirst()).contains { $0 == "--format" && $1 == "json" }
}

/// An input that could not be opened at all still gives one JSON document (docs/json.md):
/// `{"tool","version","source":{"path","format":null},…,"warnings":[],"error":{…}}`, with the
/// command's own lists empty (`frames` and `sessions`, `sessions` or `reports`). `format` is
/// the recognised format's name when the input was recognised but broke off before anything
/// could be output (a `diff` side truncated before its session).
func printJSONError(
  _ e: TraceError, command: String, format: String? = nil, path: String? = nil
) {
  let out = OutputBuffer()
  JSON.documentHead(
    version: Version.string, path: path ?? e.location.file, format: format, to: out)
  switch command {
  case "timeline": out.write(",\"frames\":[],\"sessions\":[]")
  case "sessions", "diagnose": out.write(",\"sessions\":[]")
  case "report": out.write(",\"reports\":[]")
  default: break
  }
  out.write(",\"warnings\":[],\"error\":")
  TimelineJSONRenderer.error(e, to: out)
  out.write("}\n")
  out.flush()
}

/// Runs the command, then makes sure what it printed reached standard output: a write that
/// failed (a full disk, `> /dev/full`) is reported with exit status 4 instead of a success
/// with the output lost.
func runAndCheckOutput(_ argv: [String]) -> Int32 {
  let status = run(argv)
  guard let code = OutputBuffer.writeFailure else { return status }
  // The lost output is said in every case; a usage error or a bad input keeps its status,
  // which says more than the failed write of what was printed before it or of its error
  // document.
  printError("nfctrace: error: \(OutputError(path: "-", errno: code))")
  return status == 2 || status == 3 ? status : 4
}

/// Holds a standard stream closed at start (`>&-`) with a directory (`/`): a file the program
/// opens later (a spool, the input) would otherwise take the stream's number and silently
/// receive its output. Writes to a directory descriptor fail (EBADF: exit status 4, "cannot
/// write standard output"), reads fail (EISDIR), and `/dev/stdout`, which reopens the
/// descriptor's file, cannot be opened for writing either (a /dev/null would take the output).
func reopenClosedStandardStreams() {
  for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 {
    let opened = open("/", O_RDONLY | O_DIRECTORY)
    // `open` takes the lowest free number, `fd` itself: the lower streams are open by now.
    if opened >= 0, opened != fd { close(opened) }
  }
}

reopenClosedStandardStreams()
MappedFileFault.install()
exit(runAndCheckOutput(Array(CommandLine.arguments.dropFirst())))
