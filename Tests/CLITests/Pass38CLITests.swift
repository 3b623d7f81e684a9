import Foundation
import TestSupport
import Testing

/// CLI findings of the session of 2026-12-06.
@Suite struct Pass38CLITests {
  private func temp(_ name: String, _ text: String) throws -> String {
    let path = NSTemporaryDirectory() + "nfctrace-p38-\(UUID().uuidString)-\(name)"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// A scenario with a syntax error names its line and byte offset (it said "The given data was
  /// not valid JSON." with an empty key path).
  @Test func scenarioSyntaxErrorNamesLineAndOffset() throws {
    let path = try temp("bad.json", "{\"name\":\"x\",\n\"seed\":1\n\"tag\":{}}")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["simulate", path, "-o", path + ".pcap"])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): not a valid scenario: not valid JSON at line 3, byte offset "
        + "22: invalid value\n")
  }

  /// An empty scenario (/dev/null) and one on standard input: no Foundation error dump ("You
  /// don't have permission", "/cwd/- doesn't exist").
  @Test func scenarioFromDevNullAndStandardInput() throws {
    let out = NSTemporaryDirectory() + "nfctrace-p38-\(UUID().uuidString).pcap"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let empty = CLI.run(["simulate", "/dev/null", "-o", out])
    #expect(empty.status == 3)
    #expect(
      empty.stderr == "nfctrace: error: /dev/null: empty file: expected a scenario JSON object\n")
    let piped = CLI.run(
      ["simulate", "-", "-o", out], stdin: TestPaths.traces("scenarios/t4-slow-wtx.json"))
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stderr == "simulated t4-slow-wtx: 106 frames → \(out) (pcap)\n")
  }

  /// The slow-tag fault's S(WTX) count is bounded as `tag.wtx` is: 10^9 ran out of memory.
  @Test func slowTagWTXIsBounded() throws {
    let path = try temp(
      "slow.json",
      #"{"name":"x","seed":1,"tag":{"type":"type4"},"reader":"ios","actions":[{"op":"connect"}],"#
        + #""faults":[{"kind":"slow-tag","wtx":1000000000}]}"#)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["simulate", path, "-o", path + ".pcap"], killAfter: 10)
    #expect(!run.signaled)
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): not a valid scenario: faults.[0].wtx: wtx is 0…16 S(WTX) "
        + "per answer, got 1000000000\n")
  }
}

extension Pass38CLITests {
  /// A frame longer than a Proxmark3 record's 15-bit length is refused, as pcap refuses one
  /// over 65535 bytes: it was cut to 32767 bytes without a word.
  @Test func pm3TraceRefusesAFrameItCannotHold() throws {
    let frames = [("26", 0.0005), (String(repeating: "30", count: 40000), 0.001)].map {
      #"{"frameData":"\#($0.0)","frameFlags":0,"frameType":258,"techType":257,"timeStart":\#($0.1)}"#
    }
    let input = try temp("big.json", #"{"frames":["# + frames.joined(separator: ",") + "]}")
    let out = input + ".trace"
    defer {
      try? FileManager.default.removeItem(atPath: input)
      try? FileManager.default.removeItem(atPath: out)
    }
    let run = CLI.run(["convert", input, "-o", out])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(out): record 2, byte offset 10: frame 1 holds 40000 bytes, more "
        + "than the 32767 a Proxmark3 trace record can carry\n")
  }
}

extension Pass38CLITests {
  /// An error quoting input shows its control bytes as \xNN: ESC and BEL reached the terminal
  /// (retitled or cleared it).
  @Test func errorMessagesCannotDriveTheTerminal() throws {
    let path = try temp(
      "esc.json",
      "{\"frames\":[{\"frameData\":\"\\u001b]0;pwned\\u0007\",\"frameType\":258,\"techType\":257,"
        + "\"timeStart\":0.001}]}")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): frame 1, byte offset 11: frameData is not hex bytes: "
        + "\"\\x1B]0;pwned\\x07\"\n")
  }

  /// A pcapng Simple Packet Block with no Interface Description Block: libpcap read nothing
  /// and the run ended with exit 0 and no word.
  /// A little-endian pcapng block (pcapng §3.1): type, total length, body padded, length.
  private static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
    let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
    let total = UInt32(12 + padded.count)
    return le(type) + le(total) + padded + le(total)
  }

  private static func le(_ v: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
  }

  /// A Section Header Block, little-endian, version 1.0, section length unknown.
  private static let shb = block(
    0x0A0D_0D0A, le(0x1A2B_3C4D) + [1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8))

  @Test func pcapngPacketsWithoutAnyInterfaceAreAnError() throws {
    let packet: [UInt8] = [0x00, 0xFE, 0x00, 0x01, 0x26]
    let spb = Self.block(3, Self.le(UInt32(packet.count)) + packet)
    let path = NSTemporaryDirectory() + "nfctrace-p38-\(UUID().uuidString).pcapng"
    try Data(Self.shb + spb).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): packet 1, byte offset 28: 1 packet block but no Interface "
        + "Description Block: expected one before the first packet, giving its link type "
        + "(pcapng §4.2)\n")
  }

  /// An IDB option running past the block is named at its offset (libpcap: "byte offset 0:
  /// block of type 1 in pcapng dump file is too short").
  @Test func pcapngInterfaceOptionPastTheBlockIsNamed() throws {
    // LinkType 264, reserved, SnapLen 65535; option 2 (if_name) claiming 60000 bytes.
    let idb = Self.block(
      1, [0x08, 0x01, 0, 0] + Self.le(65535) + [2, 0, 0x60, 0xEA] + Array("abc\0".utf8))
    let path = NSTemporaryDirectory() + "nfctrace-p38-\(UUID().uuidString).pcapng"
    try Data(Self.shb + idb).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["timeline", path])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): byte offset 44: Interface Description Block option 2 claims "
        + "60000 bytes, past the block's end (4 bytes left for it); expected options that end "
        + "inside the block (pcapng §3.5)\n")
  }
}

extension Pass38CLITests {
  /// A session with no write on the air says what it cannot show: a writeNDEF Core NFC refused
  /// before sending (402 over the capacity) leaves no frame ("nothing failed" misled).
  @Test func noWriteSessionSaysWhatTheRadioCannotShow() {
    let run = CLI.run(["diagnose", TestPaths.traces("generated/ios11-nfchelper.pcap")])
    #expect(run.status == 0)
    #expect(
      run.stdout.contains(
        "  no writes on the air, nothing failed. A writeNDEF Core NFC refuses before sending "
          + "leaves no frame:\n  402 for a message over the 137 bytes queryNDEFStatus reported; "
          + "--expect MESSAGE checks it\n"))
  }

  /// A scenario given where a trace is expected is named as one, with the command to run.
  @Test func scenarioGivenAsATraceSaysSimulateIt() {
    let path = TestPaths.traces("scenarios/t4-slow-wtx.json")
    let run = CLI.run(["sessions", path])
    #expect(run.status == 3)
    #expect(
      run.stderr.hasSuffix(
        "It looks like a simulation scenario: make a trace of it first with `nfctrace simulate "
          + "\(path) -o OUT.pcap`\n"))
  }

  /// `ndef FILE` (without @) says the input is read as hex and how to give the file.
  @Test func ndefGivenAFileNameSaysUseAt() {
    let path = TestPaths.traces("t4t-write-ok.pcap")
    let run = CLI.run(["ndef", path])
    #expect(run.status == 3)
    let first = path.first.map(String.init) ?? ""
    #expect(
      run.stderr
        == "nfctrace: error: invalid character '\(first)' at character 0 (the input is read as "
        + "hex; for the file \(path) give @\(path)) (expected hex digit 0-9 a-f or a separator)\n")
  }
}

extension Pass38CLITests {
  /// An option given an empty value is a usage error (`-o ''` was exit 4, "cannot write :").
  @Test func emptyOptionValueIsAUsageError() {
    let run = CLI.run(["convert", TestPaths.traces("t4t-write-ok.pcap"), "-o", ""])
    #expect(run.status == 2)
    #expect(run.stderr.hasPrefix("nfctrace convert: option -o needs a value, got an empty one\n"))
  }

  /// `ndef --tlv` of an NDEF TLV whose value the input does not hold says so (it said "empty
  /// (length 0)" beside "L=65535").
  @Test func ndefTLVWithMissingValueIsNotCalledEmpty() {
    let run = CLI.run(["ndef", "--tlv", "03ffffff"])
    #expect(run.status == 3)
    #expect(
      run.stdout.contains(
        "└─ @0 NDEF Message L=65535 (3-byte form)\nNDEF TLV claims 65535 bytes, the area holds "
          + "none of them: no message\n"))
  }
}

extension Pass38CLITests {
  private static let flipperHead =
    "Filetype: Flipper NFC device\nVersion: 2\nDevice type: NTAG215\n"

  /// A Flipper file over the size limit is named as one (it was "not a recognised trace or tag
  /// dump format", even with --input-format flipper-nfc).
  @Test func oversizedFlipperFileIsNamed() throws {
    let body =
      Self.flipperHead + "UID: 04 01 02 03 04 05 06\n# " + String(repeating: "x", count: 1 << 20)
    let path = try temp("big.nfc", body + "\n")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["report", path])
    #expect(run.status == 3)
    let size = body.utf8.count + 1
    #expect(
      run.stderr
        == "nfctrace: error: \(path): a Flipper NFC file of \(size) bytes, more than the 1048576 "
        + "bytes (1 MiB) a tag dump can take; expected a dump as the Flipper writes it\n")
  }

  /// A UID of another length than 4, 7 or 10 bytes is an error naming its line (100 000 bytes
  /// were printed in full); more pages than `Pages total` are warned of.
  @Test func flipperUIDLengthAndPageCountAreChecked() throws {
    let bad = try temp("uid.nfc", Self.flipperHead + "UID: 04 01 02 03 04 05 06 07\n")
    defer { try? FileManager.default.removeItem(atPath: bad) }
    let run = CLI.run(["report", bad])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(bad): line 4, byte offset 61: UID: expected 4, 7 or 10 hex bytes "
        + "(single, double or triple size), found 8\n")
    let pages = (0..<10).map { "Page \($0): 00 00 00 00\n" }.joined()
    let more = try temp(
      "pages.nfc", Self.flipperHead + "UID: 04 01 02 03 04 05 06\nPages total: 4\n" + pages)
    defer { try? FileManager.default.removeItem(atPath: more) }
    let report = CLI.run(["report", more])
    #expect(report.status == 0)
    // A static dump's report lists its warnings at its end, on standard output.
    #expect(
      report.stdout.contains(
        "warning: Pages total: 4, but the file gives pages up to Page 9: all 10 are read\n"))
  }
}

extension Pass38CLITests {
  /// Card fields of the wrong type in a Proxmark3 JSON dump are warned of ("Version":"zz" was
  /// taken for a missing GET_VERSION answer without a word).
  @Test func pm3JSONFieldsOfTheWrongTypeAreWarned() throws {
    let source = TestPaths.shared("public/proxmark3/ntag216-empty.json")
    let text = try String(contentsOfFile: source, encoding: .utf8)
      .replacingOccurrences(of: #""Version": "0004040201001303""#, with: #""Version": "zz""#)
      .replacingOccurrences(of: #""UID": "045869D29C3980""#, with: #""UID": 4"#)
    let path = NSTemporaryDirectory() + "nfctrace-p38-\(UUID().uuidString).json"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["report", path])
    #expect(run.status == 0)
    #expect(
      run.stdout.contains("warning: Card.UID: expected a string of hex bytes, found 4; left out\n"))
    #expect(
      run.stdout.contains(
        "warning: Card.Version: expected a string of hex bytes, found \"zz\"; left out\n"))
  }
}
