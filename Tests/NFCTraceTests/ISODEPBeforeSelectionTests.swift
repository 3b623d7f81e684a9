import TestSupport
import Testing

@testable import NFCTrace

private func frame(_ index: Int, _ direction: Direction, _ bytes: [UInt8]) -> Frame {
  Frame(
    index: index, timeNs: Int64(index) * 1_000_000, direction: direction, data: bytes,
    location: SourceLocation(file: "t", unit: "record", record: index + 1, offset: 0))
}

/// A reader that lost track of a DESFire card sends S(DESELECT) with CID right after WUPA and
/// ATQA (hf_mfdes_sniff, frames 35–36): an ISO-DEP block to a tag that is not selected, not an
/// unknown Type 2 command.
@Suite struct ISODEPBeforeSelectionTests {
  @Test func deselectAfterWUPAWithoutSelectIsAnISODEPBlock() throws {
    let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_mfdes_sniff.trace"))
    var pipeline = FramePipeline(importer: try Proxmark3BinaryImporter(input: input))
    var frames: [DecodedFrame] = []
    while let f = try pipeline.next() { frames.append(f) }
    let deselects = frames.filter { $0.frame.data == [0xCA, 0x00, 0x7A, 0x29] }
    try #require(deselects.map(\.frame.index) == [35, 36])
    for f in deselects {
      #expect(f.innermost?.name == "S(DESELECT)")
      #expect(f.innermost?.summary == "S(DESELECT), CID 0")
      #expect(f.findings.map(\.code) == ["iso-dep-not-selected"])
      #expect(f.undecodedReason == nil)
    }
  }

  @Test func type2CommandsAfterATQAStayType2() {
    var stack = OuterStack()
    _ = stack.run(frame(0, .reader, [0x52]))
    _ = stack.run(frame(1, .tag, [0x44, 0x00]))
    let read = stack.run(
      frame(2, .reader, CRC.appendingCRCA([0x30, 0x04])))
    #expect(read.target == .type2)
    #expect(read.findings.isEmpty)
  }
}
