import Foundation
import TestSupport
import Testing

/// CLI findings of the session of 2026-12-05 (late night).
@Suite struct Pass37CLITests {
  /// A missing file is named alone: no byte of it was read, so "byte offset 0" meant nothing.
  @Test func missingFileNamesTheFileAlone() {
    let path = "/nonexistent-nfctrace-\(UUID().uuidString).pcap"
    let run = CLI.run(["timeline", path])
    #expect(run.status == 3)
    #expect(run.stderr == "nfctrace: error: \(path): no such file\n")
  }

  /// The JSON error of a missing file has the unit `file`, record and offset 0.
  @Test func missingFileJSONErrorUnitIsFile() throws {
    let path = "/nonexistent-nfctrace-\(UUID().uuidString).trace"
    let run = CLI.run(["timeline", path, "--format", "json"])
    #expect(run.status == 3)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let error = try #require(doc["error"] as? [String: Any])
    #expect(error["unit"] as? String == "file")
    #expect(error["record"] as? Int == 0)
    #expect(error["message"] as? String == "no such file")
  }

  /// `ndef @FILE` of a missing file gives the system's reason, not Foundation's generic text
  /// ("The operation could not be completed. The file doesn’t exist.").
  @Test func ndefMissingFileSaysNoSuchFile() {
    let path = "/nonexistent-nfctrace-\(UUID().uuidString).bin"
    let run = CLI.run(["ndef", "@\(path)"])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: cannot read \(path): No such file or directory (expected a readable file)\n"
    )
  }

  /// A message or a warning to a standard error that cannot be written (`2>&-`, a full disk)
  /// is dropped: FileHandle trapped (SIGILL, exit 132).
  @Test func unwritableStandardErrorDoesNotCrash() {
    let usage = CLI.run([], unwritableStderr: true)
    #expect(!usage.signaled)
    #expect(usage.status == 2)
    let missing = CLI.run(["timeline", "/nonexistent-nfctrace.pcap"], unwritableStderr: true)
    #expect(!missing.signaled)
    #expect(missing.status == 3)
    let warned = CLI.run(
      ["sessions", TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log")],
      unwritableStderr: true)
    #expect(!warned.signaled)
    #expect(warned.status == 0)
    #expect(warned.stdout.contains("transceive ok"))
  }

  /// An output that cannot be created is an output error (exit 4, "cannot write OUT: reason"),
  /// not an input error (exit 3 with "byte offset 0").
  @Test func uncreatableOutputIsExitFour() {
    for format in ["pcap", "pcapng", "pm3-trace", "pm3-text"] {
      let out = "/nonexistent-nfctrace-dir/x.out"
      let run = CLI.run(
        ["convert", TestPaths.traces("t4t-write-ok.pcap"), "-o", out, "--format", format])
      #expect(run.status == 4, "\(format)")
      #expect(run.stderr == "nfctrace: error: cannot write \(out): No such file or directory\n")
    }
  }

  /// `--truth` through a symlink writes the file it points to (it replaced the link with a
  /// new file; `--truth /dev/full` replaced the device node).
  @Test func truthFollowsASymlink() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-p37-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let target = dir.appendingPathComponent("target.json").path
    let link = dir.appendingPathComponent("link.json").path
    try Data("original".utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let run = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "-o",
      dir.appendingPathComponent("s.pcap").path, "--truth", link,
    ])
    #expect(run.status == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    let written = try String(contentsOfFile: target, encoding: .utf8)
    #expect(written.hasPrefix("{\"tag\":\"ntag215\""))
    // A --truth in a folder that does not exist fails before the trace is written.
    let out = dir.appendingPathComponent("t.pcap").path
    let missing = CLI.run([
      "simulate", TestPaths.traces("scenarios/t2-removed-mid-write.json"), "-o", out,
      "--truth", dir.appendingPathComponent("no/t.json").path,
    ])
    #expect(missing.status == 4)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// An endless stream ends the run (exit 3) instead of exhausting memory: `ndef @/dev/zero`
  /// grew to gigabytes.
  @Test func endlessNDEFInputEnds() {
    let run = CLI.run(["ndef", "@/dev/zero"])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: cannot read /dev/zero: more than 64 MiB (expected a readable file)\n")
    #expect(run.maxRSSKiB < 512 * 1024)
  }
}

/// A damaged message's header gives the size given, not the bytes used before the damage
/// (8 bytes read as "3 bytes").
@Test func ndefDamagedMessageSaysTheSizeGiven() {
  let run = CLI.run(["ndef", "d1 01 05 55 04 61 2e 63"])
  #expect(run.status == 3)
  #expect(
    run.stdout.hasPrefix(
      "NDEF message (relax): 0 records before the damage at byte 3 (8 bytes given)\n"))
}

/// `ndef --tlv` lists a run of NULL TLVs on one line, as `report` does (a blank NTAG215 dump
/// listed 496 lines).
@Test func ndefTLVRunOfNullsIsOneLine() {
  let run = CLI.run(["ndef", "--tlv", "00 00 03 03 d0 00 00 00 fe 00"])
  #expect(
    run.stdout.hasPrefix(
      "Type 2 TLV area (input byte 0 = tag byte 16): 5 TLVs\n├─ @0 NULL ×2 (to byte 1)\n"
        + "├─ @2 NDEF Message L=3\n├─ @7 NULL\n└─ @8 Terminator\n"))
  let blank = CLI.run([
    "ndef", "--tlv", "@" + TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin"),
  ])
  #expect(
    blank.stdout.hasPrefix(
      "Type 2 TLV area (input byte 0 = tag byte 0): 496 TLVs\n└─ @16 NULL ×496 (to byte 511)\n"))
}

/// `--input-format pcap` on a file that is not one names its first bytes and the magic numbers
/// expected (libpcap's bare "unknown file format" before).
@Test func forcedPcapOnAnotherFormatSaysWhy() {
  let run = CLI.run([
    "timeline", TestPaths.traces("t4t-write-ok.trace"), "--input-format", "pcap",
  ])
  #expect(run.status == 3)
  #expect(
    run.stderr.contains(
      "t4t-write-ok.trace: byte offset 0: not a pcap or pcapng file: it starts with 88 13 00 00, "
        + "expected a pcap magic number"))
}

/// `diagnose` and `report` name a missing `--session` alike, with the trace's sessions as
/// ranges (diagnose said "no session 40 in FILE" without the list).
@Test func missingSessionIsSaidAlike() {
  let trace = TestPaths.traces("t2t-ntag215-write-ok.pcap")
  for command in ["diagnose", "report"] {
    let run = CLI.run([command, trace, "--session", "40"])
    #expect(run.status == 2)
    #expect(
      run.stderr.hasPrefix("nfctrace \(command): no session 40 in this trace (sessions: 0)\n"),
      "\(command): \(run.stderr)")
  }
}

/// A gap longer than a Proxmark3 timestamp spans (2³² ticks) is warned of on conversion to a
/// Proxmark3 format: the counter wraps and the gap reads back shorter (it was silent).
@Test func convertWarnsOfGapsPastTheTickCounter() throws {
  func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  var file = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(264)
  for (seconds, packet) in [
    (UInt32(1), [UInt8]([0, 0xFE, 0, 1, 0x26])), (1001, [0, 0xFF, 0, 2, 0x44, 0]),
  ] {
    file += le32(seconds) + le32(0) + le32(UInt32(packet.count)) + le32(UInt32(packet.count))
    file += packet
  }
  let dir = FileManager.default.temporaryDirectory
    .appendingPathComponent("nfctrace-p37-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: dir) }
  let input = dir.appendingPathComponent("gap.pcap").path
  try Data(file).write(to: URL(fileURLWithPath: input))
  for format in ["pm3-trace", "pm3-text"] {
    let run = CLI.run([
      "convert", input, "-o", dir.appendingPathComponent("out").path, "--format", format,
    ])
    #expect(run.status == 0)
    #expect(
      run.stderr.hasPrefix(
        "warning: 1 gaps between frames are longer than a Proxmark3 timestamp spans"), "\(format)")
  }
  let pcap = CLI.run(["convert", input, "-o", dir.appendingPathComponent("out.pcapng").path])
  #expect(!pcap.stderr.contains("gaps between frames"))
}
