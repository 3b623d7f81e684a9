import Foundation
import TestSupport
import Testing

/// CLI findings of the 2026-12-07 (ninth) session's hunt.
@Suite struct Pass48CLITests {
  /// A new empty directory under the temporary directory (the caller removes it).
  static func scratch() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pass48-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// Scenario values out of range: a negative NAK code was "not valid JSON", a negative or
  /// 3-byte page and negative polls were accepted and ignored, a second tag's short UID was
  /// blamed on `tag.uid`, and MLe below 0Fh simulated a tag whose truth contradicted itself.
  @Test func outOfRangeFaultValuesNameTheirKey() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = #"{"name":"x","seed":1,"reader":"ios","tag":{"type":"ntag215"},"actions":[],"#
    let cases: [(String, String)] = [
      (
        #""faults":[{"kind":"nak-on-page","page":4,"code":-1}]}"#,
        "faults.[0].code: a 4-bit NAK code is 0…15, got -1"
      ),
      (
        #""faults":[{"kind":"nak-on-page","page":-1}]}"#,
        "faults.[0].page: page is 0 or more, got -1"
      ),
      (
        #""faults":[{"kind":"nak-on-page","page":100000}]}"#,
        "faults.[0].page: a Type 2 page is 0…255, got 100000"
      ),
      (
        #""faults":[{"kind":"second-tag","uid":"04112233445566","polls":-1}]}"#,
        "faults.[0].polls: polls is 0 or more, got -1"
      ),
      (
        #""faults":[{"kind":"second-tag","uid":"0411"}]}"#,
        "faults.[0].uid: the second tag is an NTAG213, whose UID has 7 bytes, got 2"
      ),
    ]
    let type4 =
      #"{"name":"x","seed":1,"reader":"ios","tag":{"type":"type4","mle":14},"actions":[]}"#
    let all = cases.map { (base + $0.0, $0.1) } + [(type4, "tag.mle: expected 15...65535, got 14")]
    for (i, (json, message)) in all.enumerated() {
      let path = dir.appendingPathComponent("s\(i).json").path
      try json.write(toFile: path, atomically: true, encoding: .utf8)
      let r = CLI.run(["simulate", path, "-o", dir.appendingPathComponent("o.pcap").path])
      #expect(r.status == 3)
      #expect(!r.signaled)
      #expect(r.stderr.contains(message), "\(r.stderr)")
    }
  }

  /// A scenario name is echoed with its control characters escaped (an ESC sequence in it
  /// reached the terminal).
  @Test func scenarioNameIsEscaped() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("n.json").path
    try #"{"name":"a\u001b[31mb","seed":1,"reader":"ios","tag":{"type":"ntag215"},"actions":[]}"#
      .write(toFile: path, atomically: true, encoding: .utf8)
    let r = CLI.run(["simulate", path, "-o", dir.appendingPathComponent("o.pcap").path])
    #expect(r.status == 0)
    #expect(r.stderr.hasPrefix("simulated a\\u{1B}[31mb: "))
  }
}

extension Pass48CLITests {
  /// A FeliCa capture with one stray ISO 15693 poll was listed as ISO14443A, so all seven
  /// frames read back as type A with bad CRCs: the listing names the protocol most frames fit.
  @Test func mixedListingTakesTheMajorityProtocol() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out.txt")
    let source = TestPaths.shared("public/nfc-laboratory/test_NFC-F_212kbps_001.json")
    let r = CLI.run(["convert", source, "-o", out.path])
    #expect(r.status == 0)
    #expect(
      r.stderr.contains(
        "a frame of another technology than the listing's ISO18092 / FeliCa (1 frame in all)"))
    let listing = try String(contentsOf: out, encoding: .utf8)
    #expect(listing.contains("[=] ISO18092 / FeliCa - all times are in carrier periods"))
    let back = CLI.run(["sessions", out.path])
    #expect(
      back.stdout.hasPrefix(
        "0  0.000–0.070 s  FeliCa Lite-S (RC-S966) 01:2E:4C:D8:A3:16:52:BA  connect ok ×3"))
  }
}

extension Pass48CLITests {
  /// LF frames written to link type 264 read back as ISO 14443 frames with CRC_A failures:
  /// `convert` says so (it warned only of their bit counts).
  @Test func lowFrequencyFramesToPcapAreWarned() throws {
    let dir = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out.pcapng")
    let r = CLI.run([
      "convert", TestPaths.shared("public/proxmark3/lf_hitag_crypto_dump.trace"), "-o", out.path,
    ])
    #expect(r.status == 0)
    #expect(
      r.stderr.contains(
        "warning: 20 frames of a low-frequency tag (125/134 kHz: Hitag, EM4x) are written to "
          + "link type 264, which is ISO 14443's"))
  }
}
