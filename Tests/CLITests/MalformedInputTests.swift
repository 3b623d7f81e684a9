import Foundation
import Testing

/// Every generated malformed input (`MalformedCorpus`) through the real `nfctrace` binary:
/// exit status 3 (or 0 with warnings where the damage is partial), an error message naming
/// file, unit and byte offset, every frame of the undamaged prefix still shown, within 5 s and
/// 200 MiB.
@Suite("Malformed input through the CLI")
struct MalformedInputTests {
  /// Wall-clock bound per run. Inputs are at most a few tens of KiB; a healthy run takes
  /// tens of milliseconds even in a debug or sanitizer build.
  static let secondsLimit = 5.0
  /// Peak RSS bound per run.
  static let rssLimitKiB = 200 * 1024

  @Test("the corpus is big enough and deterministic")
  func corpusSize() {
    #expect(MalformedCorpus.all.count >= 200)
    let names = MalformedCorpus.all.map(\.name)
    #expect(Set(names).count == names.count)
    // Same bytes on every generation.
    #expect(MalformedCorpus.generate().map(\.digest) == MalformedCorpus.all.map(\.digest))
  }

  @Test("CRC_A helper matches the trace's READ page 4 command (30 04 → 26 EE)")
  func crcHelper() {
    let crc = MalformedCorpus.crcA([0x30, 0x04])
    #expect([UInt8(crc & 0xFF), UInt8(crc >> 8)] == [0x26, 0xEE])
  }

  @Test("malformed input", arguments: MalformedCorpus.all)
  func malformed(_ c: MalformedCase) throws {
    let file = try Materialized(c)
    defer { file.remove() }
    switch c.command {
    case .trace: try checkTrace(c, file)
    case .ndef(let tlv): checkNDEF(c, file, tlv: tlv)
    }
  }

  // MARK: - Trace commands

  private func checkTrace(_ c: MalformedCase, _ file: Materialized) throws {
    let formatArgs = c.format.map { ["--input-format", $0] } ?? []
    let text = CLI.run(["timeline", file.path, "--no-color"] + formatArgs)
    checkRun(text, c, file)
    let json = CLI.run(["timeline", file.path, "--format", "json"] + formatArgs)
    checkRun(json, c, file)
    #expect(json.status == text.status, "\(c.name): text and JSON timeline disagree on status")
    let sessions = CLI.run(["sessions", file.path] + formatArgs)
    checkRun(sessions, c, file)
    #expect(sessions.status == text.status, "\(c.name): sessions and timeline disagree on status")

    let frames = try jsonFrames(json.stdout, c)
    guard let prefix = c.prefix else { return }
    let whole = try Materialized(c, bytes: prefix)
    defer { whole.remove() }
    let undamaged = CLI.run(["timeline", whole.path, "--format", "json"] + formatArgs)
    // A libnfc log's prefix may end after a command whose response line follows: the prefix
    // is then itself a cut log (exit 3 with that error), its frames still compared.
    let prefixCut = undamaged.status == 3 && undamaged.stderr.contains("no response (RX) line")
    try #require(
      undamaged.status == 0 || prefixCut, "\(c.name): the undamaged prefix itself fails")
    let expected = try jsonFrames(undamaged.stdout, c)
    if c.outcome == .sameFrames {
      #expect(frames == expected, "\(c.name): frames differ from the undamaged input")
    } else {
      #expect(
        Array(frames.prefix(expected.count)) == expected,
        Comment(
          rawValue: "\(c.name): frames before the damage are missing or changed "
            + "(\(frames.count) shown, \(expected.count) in the undamaged prefix)"))
    }
  }

  /// Status, message shape, time and memory of one run.
  private func checkRun(_ run: CLIRun, _ c: MalformedCase, _ file: Materialized) {
    #expect(!run.signaled, "\(c.name): killed by signal \(run.status - 128)\n\(run.stderr)")
    #expect(!run.timedOut, "\(c.name): still running after the kill limit")
    #expect(run.seconds <= Self.secondsLimit, "\(c.name): took \(run.seconds) s")
    #expect(run.maxRSSKiB <= Self.rssLimitKiB, "\(c.name): peak RSS \(run.maxRSSKiB) KiB")
    switch c.outcome {
    case .error:
      #expect(run.status == 3, "\(c.name): exit \(run.status), expected 3\n\(run.stderr)")
    case .errorOrWarnings:
      #expect(run.status == 3 || run.status == 0, "\(c.name): exit \(run.status)\n\(run.stderr)")
    case .sameFrames:
      #expect(run.status == 0, "\(c.name): exit \(run.status)\n\(run.stderr)")
    }
    let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    if run.status == 3 {
      let last = lines.last ?? ""
      #expect(
        ErrorLine(last, path: file.path, size: file.size) != nil,
        Comment(
          rawValue: "\(c.name): error message not of the form "
            + "'nfctrace: error: FILE: UNIT N, byte offset M: message': \(last)"))
      for line in lines.dropLast() {
        #expect(line.hasPrefix("warning: "), "\(c.name): unexpected stderr line: \(line)")
      }
    } else if run.status == 0 {
      for line in lines {
        #expect(line.hasPrefix("warning: "), "\(c.name): unexpected stderr line: \(line)")
      }
    }
  }

  /// The frames of a `timeline --format json` document as (time, direction, data, bits);
  /// empty when nothing was printed (the input was refused before any frame).
  private func jsonFrames(_ stdout: String, _ c: MalformedCase) throws -> [FrameKey] {
    guard !stdout.isEmpty else { return [] }
    let doc = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
    let frames = try #require(doc?["frames"] as? [[String: Any]], "\(c.name): no frames array")
    return frames.map {
      FrameKey(
        time: ($0["time_ns"] as? NSNumber)?.int64Value ?? -1,
        direction: $0["direction"] as? String ?? "?", data: $0["data"] as? String ?? "?",
        bits: ($0["bits"] as? NSNumber)?.intValue)
    }
  }

  // MARK: - ndef

  private func checkNDEF(_ c: MalformedCase, _ file: Materialized, tlv: Bool) {
    let extra = tlv ? ["--tlv"] : []
    let text = CLI.run(["ndef", "@" + file.path] + extra)
    let json = CLI.run(["ndef", "@" + file.path, "--format", "json"] + extra)
    for run in [text, json] {
      #expect(!run.signaled, "\(c.name): killed by signal \(run.status - 128)\n\(run.stderr)")
      #expect(run.seconds <= Self.secondsLimit, "\(c.name): took \(run.seconds) s")
      #expect(run.maxRSSKiB <= Self.rssLimitKiB, "\(c.name): peak RSS \(run.maxRSSKiB) KiB")
      #expect(run.status == 3 || run.status == 0, "\(c.name): exit \(run.status)")
    }
    #expect(text.status == json.status, "\(c.name): text and JSON disagree on status")
    if text.status == 3 {
      // A failed report names each error with its code and byte offset: `error CODE @N: …`.
      let named = text.stdout.split(separator: "\n").contains {
        $0.range(of: #"^\s*error [a-z0-9-]+ @\d+: "#, options: .regularExpression) != nil
      }
      #expect(named, "\(c.name): no 'error CODE @OFFSET:' line in\n\(text.stdout)")
    }
    let doc = try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
    #expect(doc != nil, "\(c.name): ndef --format json did not print a JSON object")
  }
}

/// What identifies a frame in the comparison with the undamaged prefix.
struct FrameKey: Equatable, CustomStringConvertible {
  var time: Int64
  var direction: String
  var data: String
  var bits: Int?
  var description: String { "\(time) \(direction) \(data)\(bits.map { "(\($0))" } ?? "")" }
}

/// `nfctrace: error: FILE: UNIT N, byte offset M: message`, with FILE the path given, UNIT
/// one of the importers' units and M inside the file; `FILE: message` for a file that could not
/// be read at all.
struct ErrorLine {
  var unit: String
  var record: Int
  var offset: Int

  init?(_ line: String, path: String, size: Int) {
    let head = "nfctrace: error: \(path): "
    guard line.hasPrefix(head) else { return nil }
    let rest = line.dropFirst(head.count)
    // The file as a whole (missing, a directory, unreadable): no offset to name.
    if rest.range(of: #"^(no such file|is a directory|cannot read)"#, options: .regularExpression)
      != nil
    {
      (unit, record, self.offset) = ("file", 0, 0)
      return
    }
    // A place that is no record (the file's start, a pcapng block): `byte offset N: …`.
    if let range = rest.range(of: #"^byte offset (\d+): \S"#, options: .regularExpression) {
      let digits = rest[range].dropFirst("byte offset ".count).prefix { $0.isNumber }
      guard let offset = Int(digits), offset >= 0, offset <= size else { return nil }
      (unit, record, self.offset) = ("byte", 0, offset)
      return
    }
    let pattern = #"^(byte|packet|record|line|frame|block) (\d+), byte offset (\d+): \S"#
    guard let range = rest.range(of: pattern, options: .regularExpression) else { return nil }
    let parts = rest[range].split(separator: " ")
    guard parts.count >= 5, let record = Int(parts[1].dropLast()),
      let offset = Int(parts[4].dropLast())
    else { return nil }
    guard offset >= 0, offset <= size, record >= 0 else { return nil }
    unit = String(parts[0])
    self.record = record
    self.offset = offset
  }
}

/// A case's input on disk: a temporary file, a temporary directory, or a path that does not
/// exist.
struct Materialized {
  let path: String
  let size: Int
  private let folder: URL

  init(_ c: MalformedCase, bytes: [UInt8]? = nil) throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-malformed-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(c.fileName)
    path = url.path
    switch (bytes, c.input) {
    case (let bytes?, _), (nil, .bytes(let bytes)):
      try Data(bytes).write(to: url)
      size = bytes.count
    case (nil, .directory):
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      size = 0
    case (nil, .missing):
      size = 0
    }
  }

  func remove() { try? FileManager.default.removeItem(at: folder) }
}

extension MalformedCase {
  /// A short fingerprint of the input, to check the generator is deterministic.
  var digest: Int {
    switch input {
    case .bytes(let b): return b.reduce(b.count) { ($0 &* 31) &+ Int($1) }
    case .directory: return -1
    case .missing: return -2
    }
  }
}
