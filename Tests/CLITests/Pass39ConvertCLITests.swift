import Foundation
import TestSupport
import Testing

/// `nfctrace convert` findings of the session of 2026-12-06 (second): Proxmark3 outputs by the
/// decoded technology, times before the first frame and past what pcap holds, short frames.
@Suite struct Pass39ConvertCLITests {
  private let base = NSTemporaryDirectory() + "nfctrace-p39cv-\(UUID().uuidString)"

  private func temp(_ name: String, _ text: String) throws -> String {
    let path = base + "-" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  private func remove(_ paths: String...) {
    for p in paths { try? FileManager.default.removeItem(atPath: p) }
  }

  /// A FeliCa capture through pcap to a `.trace` reads back as the two FeliCa Lite-S sessions
  /// it holds (it read back as one `nfc-a transceive`).
  @Test func feliCaThroughPcapToTrace() throws {
    let (pcap, trace) = (base + "-f.pcap", base + "-f.trace")
    defer { remove(pcap, trace) }
    #expect(
      CLI.run(["convert", TestPaths.traces("felica/t3t-write-ok.json"), "-o", pcap]).status == 0)
    let run = CLI.run(["convert", pcap, "-o", trace])
    #expect(run.stderr == "converted 20 frames → \(trace) (pm3-trace)\n")
    let sessions = CLI.run(["sessions", trace]).stdout.split(separator: "\n")
    #expect(sessions.count == 2)
    #expect(
      sessions == [
        "0  0.000–0.045 s  FeliCa Lite-S (RC-S966) 01:2E:4C:D8:A3:16:52:BA  connect ok · "
          + "queryNDEFStatus readWrite 208 B · readNDEF ok · writeNDEF ok",
        "1  0.250–0.267 s  FeliCa Lite-S (RC-S966) 01:2E:4C:D8:A3:16:52:BA  connect ok · "
          + "queryNDEFStatus readWrite 208 B · readNDEF ok",
      ])
  }

  /// A type B `.trace` converted to `.trace` keeps its three type B sessions (one frame with a
  /// bad CRC_B made the whole file type A: one nfc-a session).
  @Test func typeBTraceStaysTypeB() throws {
    let source = TestPaths.shared("public/proxmark3/hf_14b_cryptorf_select.trace")
    let out = base + "-b.trace"
    defer { remove(out) }
    #expect(CLI.run(["convert", source, "-o", out]).status == 0)
    let sessions = CLI.run(["sessions", out]).stdout
    #expect(sessions == CLI.run(["sessions", source]).stdout)
    #expect(sessions.hasPrefix("0  0.000–1.706 s  nfc-b FF:FF:FF:FF  connect failed\n"))
  }

  /// A type B `.trace` listed: preamble ISO14443B, CRC_B checked (ISO14443A and `!!`).
  @Test func typeBListing() throws {
    let out = base + "-b.txt"
    defer { remove(out) }
    let source = TestPaths.shared("public/proxmark3/hf_14b_reader.trace")
    #expect(CLI.run(["convert", source, "-o", out]).status == 0)
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(lines[2] == "[=] ISO14443B - all times are in carrier periods (1/13.56MHz)")
    #expect(lines.filter { $0.contains("|  !! |") }.count == 0)
    #expect(lines.filter { $0.contains("|  ok |") }.count == 2)
  }

  /// A frame earlier than the first is written at the first frame's time, with one warning
  /// naming it (it was written 316.7 s later, silently).
  @Test func frameBeforeTheFirstIsClampedAndWarned() throws {
    let json = try temp(
      "x.json",
      "{\"frames\":[{\"frameType\":258,\"techType\":257,\"timeStart\":1.0,\"frameData\":\"26\","
        + "\"frameFlags\":1},{\"frameType\":259,\"techType\":257,\"timeStart\":0.5,"
        + "\"frameData\":\"44:00\"}]}")
    let (trace, text) = (base + "-c.trace", base + "-c.txt")
    defer { remove(json, trace, text) }
    for out in [trace, text] {
      let run = CLI.run(["convert", json, "-o", out])
      #expect(run.status == 0)
      #expect(
        run.stderr.contains(
          "warning: \(json): frame 2, byte offset 92: frame 500.000 ms earlier than the first frame "
            + "(1 frame in all): a Proxmark3 time counts from the first frame and cannot be "
            + "earlier (it would wrap to ≈ 316.7 s later), so \(out) puts them at the first "
            + "frame's time; convert to pcap or pcapng to keep the times\n"))
      let timeline = CLI.run(["timeline", out, "--no-color"]).stdout
      #expect(timeline.contains("\n#1         0.000 ms    +0.000  T→R  44 00  "))
    }
  }

  /// A 7-bit REQA of a listing (`26(7)`, measured over 1300 ticks) reads back from the `.trace`
  /// as 7 bits (it came back as the whole byte `26`).
  @Test func shortFrameOfAListingToTrace() throws {
    let out = base + "-w.trace"
    defer { remove(out) }
    let source = TestPaths.traces("pm3/t2-wifi-p2p-record.txt")
    #expect(CLI.run(["convert", source, "-o", out]).status == 0)
    let timeline = CLI.run(["timeline", out, "--no-color"]).stdout
    #expect(timeline.contains("\n#0         0.000 ms            R→T  26(7)  "))
  }

  /// `.trace` → `.txt` keeps the `!` of a short frame with a parity error (`00!(1)`).
  @Test func shortFrameParityErrorListed() throws {
    let out = base + "-v.txt"
    defer { remove(out) }
    let source = TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace")
    #expect(CLI.run(["convert", source, "-o", out]).status == 0)
    let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
      .filter { $0.contains("(1)") }
    #expect(
      rows.map { $0.prefix(41) } == [
        "  130405968 |  130406256 | Rdr |00!(1)   ", "  130509264 |  130509552 | Rdr |00!(1)   ",
      ])
  }
}
