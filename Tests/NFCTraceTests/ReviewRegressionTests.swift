import Testing

@testable import NFCTrace

/// Regressions for the code review of the session analysis.
@Suite struct ReviewRegressionTests {
  @Test func timesFarApartDoNotTrapTheSegmenter() throws {
    var frames = TraceBuilder()
    frames.activateType2()
    var all = frames.frames
    // A REQA at an input-derived time near Int64.min: t − lastAnswered overflows.
    all.append(
      Frame(
        index: all.count, timeNs: .min, direction: .reader, data: [0x26], bits: 7,
        technology: .nfcA, location: SourceLocation(file: "t", unit: "frame", record: 1, offset: 0))
    )
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: all))
    #expect(run.sessions.count == 1)
    #expect(Int64.max.saturatingMinus(-1) == .max)
    #expect(Int64.min.saturatingMinus(1) == .min)
  }

  @Test func lockAndCCWritesAreOredIn() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(2, [0x77, 0x48, 0x08, 0x00, 0xE1, 0x10, 0x12, 0x00])
    b.write(2, [0x00, 0x00, 0xF0, 0x00])
    b.write(3, [0x00, 0x00, 0x00, 0x0F])
    let s = try #require(try sessions(b).first)
    #expect(s.memory.type2End.known(8, 4) == [0x77, 0x48, 0xF8, 0x00])
    #expect(s.memory.type2End.known(12, 4) == [0xE1, 0x10, 0x12, 0x0F])
    #expect(s.operations.last?.kind == .writeLock)
  }

  @Test func cfg0OfAnNTAG210IsNotALockPage() throws {
    var b = TraceBuilder()
    // NTAG210: no dynamic lock page; page 0x10 is CFG0 (nfc-facts §4.3).
    b.activateType2(version: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03])
    b.write(0x10, [0x04, 0x00, 0x00, 0x04])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .transceive)
  }

  @Test func eepromWriteErrorLeavesThePageUncertain() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE, 0x00])
    b.write(5, [0xAA, 0xBB, 0xCC, 0xDD], .nak(0x05))
    let s = try #require(try sessions(b).first)
    #expect(s.memory.type2End.state(20) == .unacknowledged)
    #expect(s.operations.last?.outcome == .failed)
  }

  @Test func readsOfOtherType4FilesStayOutOfTheNDEFFile() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x0014)
    // SELECT E105 and READ it: not the NDEF file.
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05], [0x90, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x41, 0x41, 0x90, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.memory.filesEnd[0xE104]?.known(0, 2) == [0x00, 0x14])
  }
}
