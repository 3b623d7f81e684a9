import Foundation
import NFCTrace
import Testing

/// Overflows found while triaging the fuzzers' first crash (same pattern: differences of two
/// input-derived times), kept byte for byte.
@Suite("Robustness regressions: NFC-Laboratory times")
struct NFCLabTimeOverflowTests {
  /// timeStart −9e9 s and timeEnd +9e9 s: each fits Int64 nanoseconds (±9.2e18), their
  /// difference does not. Before the fix `durationNs = endNs - startNs` trapped.
  static let spanOverflow = Data(
    #"{"frames":[{"timeStart":-9000000000,"timeEnd":9000000000,"frameType":258,"techType":257,"frameData":"26"},{"timeStart":9000000000,"timeEnd":9000000000.000001,"frameType":259,"techType":257,"frameData":"4400"}]}"#
      .utf8)

  @Test("a duration beyond Int64 nanoseconds is dropped, a start beyond it is saturated")
  func timeSpanOverflow() throws {
    var importer = try NFCLabImporter(input: TraceInput(path: "t.json", bytes: Self.spanOverflow))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    #expect(frames.count == 2)
    #expect(frames.map(\.timeNs) == [0, Int64.max])
    // 1 µs after 9e18 ns is below Double's resolution there (2048 ns): one ULP.
    #expect(frames.map(\.durationNs) == [nil, 2_048])
    #expect(frames.map(\.data) == [[0x26], [0x44, 0x00]])
  }
}
