import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// Decodes a pcap through the whole pipeline.
private func decodePcap(_ path: String) throws -> [DecodedFrame] {
  var p = FramePipeline(importer: try PcapImporter(input: try TraceInput(path: path)))
  var out: [DecodedFrame] = []
  while let f = try p.next() { out.append(f) }
  return out
}

@Suite struct PcapDecodeTests {
  @Test func type2WriteAnsweredByACKAndByNAK() throws {
    let frames = try decodePcap(
      TestPaths.shared("derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"))
    #expect(frames.count == 25)
    #expect(frames[15].innermost?.summary == "WRITE page 4 ← 03 00 fe 00")
    #expect(frames[15].response == .answeredBy(16))
    #expect(frames[16].innermost?.name == "ACK")
    #expect(frames[16].frame.crc == .absent)
    #expect(frames[19].innermost?.summary == "WRITE page 40 ← 00 00 00 bd")
    #expect(frames[20].innermost?.summary == "NAK 0x0 (invalid argument or page)")
    #expect(frames[20].innermost?.field("nak_code") == .int(0))
    // Wireshark shows WRITE as an R-block; after a Type 2 activation no layer may say so.
    #expect(frames.allSatisfy { $0.layer(.isoDEP) == nil })
    #expect(frames.last?.frame.event == .fieldOff)
  }

  @Test func type4UpdateBinaryDenied() throws {
    let frames = try decodePcap(
      TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"))
    let update = try #require(
      frames.firstIndex { $0.layer(.iso7816)?.name == "UPDATE BINARY" })
    let answer = frames[update + 1]
    #expect(answer.layer(.iso7816)?.field("sw") == .string("6982"))
    #expect(answer.layer(.iso7816)?.summary == "SW 6982 security status not satisfied")
    #expect(frames[update].response == .answeredBy(update + 1))
    let select = try #require(frames.first { $0.layer(.iso7816)?.name == "SELECT" })
    #expect(select.layer(.type4)?.summary == "SELECT NDEF application")
    #expect(frames.contains { $0.innermost?.name == "S(DESELECT)" })
    #expect(Set(frames.compactMap(\.session)) == [0])
  }

  @Test func projectDemoTracesDecodeAlikeFromPcapAndProxmark3() throws {
    for name in ["t2t-ntag215-write-ok", "t2t-ntag215-write-torn", "t4t-write-ok"] {
      let a = try decodePcap(TestPaths.traces(name + ".pcap")).filter {
        $0.frame.direction != .event
      }
      var p = FramePipeline(
        importer: try Proxmark3BinaryImporter(
          input: try TraceInput(path: TestPaths.traces(name + ".trace"))))
      var b: [DecodedFrame] = []
      while let f = try p.next() { b.append(f) }
      #expect(a.map(\.frame.data) == b.map(\.frame.data), "\(name)")
      #expect(a.map { $0.layers.map(\.summary) } == b.map { $0.layers.map(\.summary) }, "\(name)")
      // Both round ticks to the nearest ns, from different origins: at most 1 ns apart.
      let times = zip(a, b).map { ($0.frame.timeNs - a[0].frame.timeNs) - $1.frame.timeNs }
      #expect(times.allSatisfy { abs($0) <= 1 }, "\(name)")
    }
  }
}

@Suite struct Text2pcapTimeBaseTests {
  private func warnings(_ path: String) throws -> [String] {
    let importer = try PcapImporter(input: try TraceInput(path: path))
    while try importer.next() != nil {}
    return importer.warnings.map(\.message)
  }

  @Test func proxmarkTicksAsTenthsOfNanosecondsAreWarnedAbout() throws {
    let w = try warnings(TestPaths.shared("derived/pcap/hf_14a_mfu-sim.text2pcap.pcapng"))
    #expect(w.count == 1)
    #expect(w.first?.hasPrefix("6 of the first 7 gaps between frames are under 5 µs") == true)
  }

  /// Apple ECP polls space the first frames out, but the tag's answers start within a µs
  /// of the reader's frames: the same time base (new-user pass 2026-12-04b, finding 3).
  @Test func earlyAnswersBehindPollingFramesAreWarnedAbout() throws {
    let w = try warnings(TestPaths.shared("derived/pcap/hf_visa_apple_ecp.text2pcap.pcapng"))
    #expect(w.count == 1)
    #expect(
      w.first?.hasPrefix(
        "2 of the first 2 tag answers start under 20 µs after the reader's frame") == true)
  }

  @Test func realTimesGiveNoSuchWarning() throws {
    #expect(try warnings(TestPaths.traces("t2t-ntag215-write-ok.pcap")).isEmpty)
    #expect(
      try warnings(TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"))
        .isEmpty)
  }
}
