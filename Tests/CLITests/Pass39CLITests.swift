import Foundation
import TestSupport
import Testing

/// CLI findings of the session of 2026-12-06 (second).
@Suite struct Pass39CLITests {
  private func temp(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = NSTemporaryDirectory() + "nfctrace-p39-\(UUID().uuidString)-\(name)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// A pcap of only its file header (link type 264): little-endian magic, version 2.4,
  /// snaplen 65535.
  private let emptyPcap: [UInt8] = [
    0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    0xFF, 0xFF, 0x00, 0x00, 0x08, 0x01, 0x00, 0x00,
  ]

  /// An empty capture is valid (exit 0) but says that it holds nothing (the timeline printed
  /// nothing at all).
  @Test func emptyCaptureIsWarnedOf() throws {
    let path = try temp("empty.pcap", emptyPcap)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path])
    #expect(run.status == 0)
    #expect(run.stdout == "")
    #expect(run.stderr == "warning: \(path): the trace holds no frames: nothing to decode\n")
    let json = CLI.run(["timeline", path, "--format", "json"])
    #expect(
      json.stdout.contains(
        "{\"message\":\"the trace holds no frames: nothing to decode\",\"file\":null,"))
  }

  /// `diff` names the file of a warning that has no place in it (it printed the bare message).
  @Test func diffWarningNamesItsFile() throws {
    let a = try temp("a.pcap", emptyPcap)
    let b = try temp("b.pcap", emptyPcap)
    defer {
      try? FileManager.default.removeItem(atPath: a)
      try? FileManager.default.removeItem(atPath: b)
    }
    let run = CLI.run(["diff", a, b])
    #expect(run.status == 3)
    #expect(
      run.stderr.hasPrefix("warning: \(a): the trace holds no frames: nothing to decode\n"))
  }

  /// An NFC-Laboratory frame JSON cannot hold (a number of 5000 digits) says why, cut, and
  /// names the frame once (it said "frame 1, byte offset 11: frame 1: not a valid JSON object").
  @Test func nfcLabUnrepresentableNumber() throws {
    let text =
      "{\"frames\":[{\"frameData\":\"26\",\"timeStart\":"
      + String(repeating: "9", count: 5000) + "}]}"
    let path = try temp("big.json", Array(text.utf8))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): frame 1, byte offset 11: not a valid JSON object: Number "
        + String(repeating: "9", count: 73) + "…\n")
  }

  /// The ground truth of a Proxmark3 output counts that file's frames (it counted the field
  /// events the file does not hold: frame 5 was the SAK, not the connect's first command).
  @Test func truthOfAProxmark3OutputCountsItsFrames() throws {
    let base = NSTemporaryDirectory() + "nfctrace-p39-\(UUID().uuidString)"
    defer {
      try? FileManager.default.removeItem(atPath: base + ".trace")
      try? FileManager.default.removeItem(atPath: base + ".json")
    }
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/ios11-nfchelper.json"), "-o", base + ".trace",
      "--truth", base + ".json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr == "simulated ios11-nfchelper: 19 frames → \(base).trace (pm3-trace)\n")
    let data = try Data(contentsOf: URL(fileURLWithPath: base + ".json"))
    let truth = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let sessions = try #require(truth["sessions"] as? [[String: Any]])
    #expect(sessions.count == 1)
    #expect(sessions.first?["first_frame"] as? Int == 0)
    #expect(sessions.first?["last_frame"] as? Int == 18)
    let ops = try #require(sessions.first?["operations"] as? [[String: Any]])
    let ranges = ops.map {
      "\($0["kind"] ?? "")\($0["first_frame"] ?? "")-\($0["last_frame"] ?? "")"
    }
    #expect(
      ranges == [
        "poll0-3", "connect4-9", "queryNDEFStatus10-13", "readNDEF14-17", "disconnect18-18",
      ])
  }

  /// The timeline's session header names a type B tag by its PUPI (the ATQB's), as the JSON
  /// and `sessions` do (the header had no identity).
  @Test func typeBHeaderNamesThePUPI() {
    let run = CLI.run([
      "timeline", TestPaths.shared("public/proxmark3/hf_14b_reader.trace"), "--no-color",
    ])
    #expect(run.status == 0)
    #expect(
      run.stdout.hasPrefix(
        "── session 0 · NFC-B · PUPI 82:0D:E1:74 ────────────────────────────────\n"))
  }

  /// A bad input whose JSON error document cannot be written says both (the lost document
  /// was not mentioned); the status stays 3.
  @Test func lostErrorDocumentIsSaid() {
    let run = CLI.run(["ndef", "", "--format", "json"], unwritableStdout: true)
    #expect(run.status == 3)
    #expect(run.stderr.hasPrefix("nfctrace: error: cannot write standard output: "))
  }

  /// A mapped input truncated by another program raises SIGBUS at the next access of a lost
  /// page: the run ends with an error naming the file and status 3, not "Bus error" (135).
  /// The signal is sent directly, as the kernel would send it, while the file is read.
  @Test func busErrorOnAMappedInputNamesTheFile() throws {
    let frame =
      #"{"frameData":"30:04:1F:62","frameType":258,"techType":257,"timeStart":0.5},"#
      + #"{"frameData":"03:0B:D1:01:07:54:02:65:6E:68:69:FE:00:00:00:00:AA:BB","frameType":259,"#
      + #""techType":257,"timeStart":0.6}"#
    let text =
      #"{"frames":["# + Array(repeating: frame, count: 200_000).joined(separator: ",")
      + "]}"
    let path = try temp("busy.json", Array(text.utf8))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = ["timeline", path]
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    Thread.sleep(forTimeInterval: 0.3)
    guard process.isRunning else {
      Issue.record("nfctrace finished before the signal could be sent")
      return
    }
    kill(process.processIdentifier, SIGBUS)
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 3)
    #expect(
      message
        == "nfctrace: error: \(path): the file shrank while it was read (another program "
        + "truncated or rewrote it); read a copy that nothing writes to\n")
  }

  /// `simulate --frames N` to a Proxmark3 format writes N frames (field events, which the
  /// format cannot hold, were counted: 100 asked, 91 written).
  @Test func repeatedSimulationToProxmark3CountsFramesWritten() throws {
    let out = NSTemporaryDirectory() + "nfctrace-p39-\(UUID().uuidString).trace"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "--frames", "100",
      "-o", out,
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.hasSuffix(": 100 frames → \(out) (pm3-trace)\n"))
    let sessions = CLI.run(["timeline", out, "--format", "json"])
    let count = sessions.stdout.components(separatedBy: "\"time_ns\":").count - 1
    #expect(count == 100)
  }
}
