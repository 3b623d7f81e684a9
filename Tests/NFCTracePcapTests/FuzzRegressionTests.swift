import Foundation
import NFCTrace
import NFCTracePcap
import Testing

/// Inputs found by the libFuzzer targets of Fuzz/ (docs/robustness.md), kept byte for byte.
@Suite("Fuzz regressions: pcap")
struct PcapFuzzRegressionTests {
  /// fuzz-pcap crash 6df2d7a2 (minimised to 404 bytes): a pcapng whose interface has
  /// if_tsresol 9 (ns) and packets with 64-bit time stamps ~9.2e18 ns apart. The text
  /// timeline trapped on integer overflow computing the gap between the two frames
  /// (TimelineText.swift, `frame.timeNs - last`), i.e. `nfctrace timeline` crashed.
  static let tsGapOverflow = hexBytes(
    "0a0d0d0adc0000004d3c2b1a01000000ffffffffffffffff0100320047656e6572617465642066726f6d2069"
      + "6e7075742066696c65202f746d000068665f3134615f6d66752d73696d2e6865782e010002001600414d4420"
      + "4550594320287769746820535345342e32290000030015004c696e757820362e31382e34342d66632d763636"
      + "3900000004004700020000000000000070200100003865736861726b2920342e302e31372028476974207634"
      + "2e302e3137207061636b6167656420617320342e302e31372d302b64656231327533290000000000dc000000"
      + "010000003800000008010000000004000200120046616b652049462c556e7361666542756170000009000100"
      + "0900000000000000380000000600000028000000000000000c0000300000485d08000000043000abb1002c00"
      + "00000000280000000600000028000000000000000cd6ec18d49a325d080000000800000000ff000244000000"
      + "280000000600000030000000000000000cd6ec985660405d0d0000000d00000000fe00099370880466d63c95"
      + "5800000030000000")

  @Test("pcapng with time stamps 9.2e18 ns apart renders a saturated gap instead of trapping")
  func timeGapOverflow() throws {
    var importer = try PcapFormats.pcap.open(
      TraceInput(path: "fuzz.pcapng", bytes: Data(Self.tsGapOverflow)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    // The second packet's time lies past 2262 (Int64 ns): held at Int64.max (it wrapped).
    #expect(frames.map(\.timeNs) == [-1_662_718_866_919_613_740, 5_764_607_469_929_627_647])
    #expect(
      frames.map(\.data) == [
        [0x44, 0x00, 0x00, 0x00], [0x93, 0x70, 0x88, 0x04, 0x66, 0xD6, 0x3C, 0x95, 0x58],
      ])

    var pipeline = FramePipeline(
      importer: try PcapFormats.pcap.open(
        TraceInput(path: "fuzz.pcapng", bytes: Data(Self.tsGapOverflow))))
    let out = OutputBuffer(fd: nil)
    let renderer = TimelineTextRenderer(out: out, color: false)
    while let f = try pipeline.next() { renderer.render(f) }
    renderer.finish()
    // The gap between the first frame and the held one: no trap.
    #expect(out.text.contains("+7427326336849.241"))
  }

  @Test("milliseconds of the extreme Int64 times")
  func millisecondsExtremes() {
    #expect(TimelineTextRenderer.milliseconds(.min) == "-9223372036854.775")
    #expect(TimelineTextRenderer.milliseconds(.max) == "9223372036854.775")
    #expect(TimelineTextRenderer.milliseconds(-1_500) == "-0.001")
  }
}

/// Bytes of a hex string (test data only: the string is well-formed).
private func hexBytes(_ s: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in s.utf8 {
    guard let v = UInt8(String(UnicodeScalar(c)), radix: 16) else { continue }
    if let h = high {
      out.append(h << 4 | v)
      high = nil
    } else {
      high = v
    }
  }
  return out
}
