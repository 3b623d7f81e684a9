import Foundation
import NDEF
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

// Flipper Zero's NFC debug pcap (Traces/flipper/, laid out by make_debug_pcaps.py as the
// firmware's nfc_debug_pcap.c writes it): whole-second times, frames cut to bits / 8 bytes,
// CRC_A stripped by the reader chip.

private func decode(_ name: String) throws -> (frames: [DecodedFrame], warnings: [TraceWarning]) {
  let importer = try PcapImporter(input: try TraceInput(path: TestPaths.traces("flipper/" + name)))
  var pipeline = FramePipeline(importer: importer)
  var frames: [DecodedFrame] = []
  while let f = try pipeline.next() { frames.append(f) }
  return (frames, pipeline.warnings)
}

@Suite struct FlipperDebugPcapTests {
  @Test func emptyReaderFrameIsTheRequestAndEmptyAnswerToWriteTheACK() throws {
    let (frames, _) = try decode("flipper-reader-ntag215.pcap")
    #expect(frames[0].frame.data.isEmpty)
    #expect(frames[0].innermost?.name == "REQA/WUPA")
    #expect(frames[0].innermost?.summary == "REQA or WUPA (short frame, bits not captured)")
    #expect(frames[0].startsActivation)
    #expect(frames[0].response == .answeredBy(1))
    #expect(
      frames[1].innermost?.summary == "ATQA 0x0044 (UID size double, bit-frame anticollision)")
    #expect(frames[9].innermost?.name == "SAK")
    #expect(frames[16].innermost?.summary == "WRITE page 4 ← 03 00 d1 01")
    #expect(frames[17].frame.data.isEmpty)
    #expect(frames[17].innermost?.name == "ACK")
    #expect(
      frames[17].innermost?.summary == "ACK (4-bit answer not captured; a NAK would look the same)")
  }

  @Test func wholeSecondTimesAreKeptButDoNotTimeFrames() throws {
    let (frames, warnings) = try decode("flipper-reader-ntag215.pcap")
    #expect(frames[12].frame.timeNs == 1_000_000_000)
    #expect(frames[12].frame.sourceTime == SourceTime(1_700_000_001, .wholeSeconds))
    #expect(frames[0].frame.sourceTime == SourceTime(1_700_000_000, .wholeSeconds))
    #expect(frames.allSatisfy { $0.frame.sourceTime?.unit.timesFrames == false })
    #expect(
      warnings.map(\.message) == [
        "every packet time is a whole second (as in Flipper Zero's debug pcap, stamped by its "
          + "real-time clock): frames are in order, but answer times, gaps and frame waiting "
          + "times are not measured"
      ])
    #expect(warnings.first?.location?.record == 1)
  }

  @Test func readerSessionWritesTheTextRecord() throws {
    let sessions = try analyzePcap(TestPaths.traces("flipper/flipper-reader-ntag215.pcap"))
    #expect(sessions.count == 1)
    let s = try #require(sessions.first)
    #expect(s.tag.uid == [0x04, 0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])
    #expect(s.tag.product == "NTAG215")
    #expect(
      s.operations.map(\.shortText) == [
        "connect ok", "queryNDEFStatus readWrite 492 B", "writeNDEF ok",
      ])
    let end = Type2TLVArea(parsing: s.memory.type2End.knownRun(from: 16)).ndefMessage
    #expect(end.map(Hex.string) == "d101075402656e4e464321")
  }

  /// The emulating Flipper's chip answers the activation itself; the phone writes the pages
  /// past the TLV's length first, then the length: one writeNDEF call.
  @Test func emulationCaptureWithDataFirstWriteIsOneCall() throws {
    let s = try #require(
      try analyzePcap(TestPaths.traces("flipper/flipper-emulation-ntag215.pcap")).first)
    #expect(
      s.operations.map(\.shortText) == [
        "connect unknown", "queryNDEFStatus readWrite 492 B", "writeNDEF ok",
      ])
    #expect(s.operations[2].firstFrame == 6 && s.operations[2].lastFrame == 13)
    #expect(s.operations[2].detail("pages_acknowledged") == .string("5,6,7,4"))
  }
}

/// A link-type-264 pcap of `records` (seconds, microseconds, event, data) in a temporary file.
private func pcapFile(_ records: [(UInt32, UInt32, UInt8, [UInt8])]) throws -> String {
  func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  var bytes = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(256) + le32(264)
  for (sec, usec, event, data) in records {
    let body = [0, event, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
    bytes += le32(sec) + le32(usec) + le32(UInt32(body.count)) + le32(UInt32(body.count)) + body
  }
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("nfctrace-times-\(UUID().uuidString).pcap").path
  try Data(bytes).write(to: URL(fileURLWithPath: path))
  return path
}

@Suite struct PcapTimeOddityTests {
  /// Whole seconds for the frames read ahead, then a fraction: frames are timed again from
  /// there (the whole-second reading covered the rest of the trace).
  @Test func subSecondTimeAfterWholeSecondsIsTimedAgain() throws {
    var records: [(UInt32, UInt32, UInt8, [UInt8])] = []
    for i in 0..<10 { records.append((1_700_000_000, 0, i % 2 == 0 ? 0xFE : 0xFF, [0x30, 0x04])) }
    records.append((1_700_000_001, 250, 0xFE, [0x30, 0x08]))
    let path = try pcapFile(records)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames[0].sourceTime?.unit == .wholeSeconds)
    #expect(result.frames[10].sourceTime == SourceTime(1_700_000_001_000_250, .microseconds))
    #expect(result.warnings.count == 2)
    #expect(
      result.warnings.last?.message
        == "this packet's time has a fraction of a second, after whole seconds only: frames are "
        + "timed again from here")
    #expect(result.warnings.last?.location?.record == 11)
  }

  /// A time going back is kept, with one warning at the packet where it happens.
  @Test func timeGoingBackIsWarnedOnce() throws {
    let path = try pcapFile([
      (100, 500_000, 0xFE, [0x26]), (97, 500_000, 0xFF, [0x44, 0x00]),
      (96, 0, 0xFE, [0x93, 0x20]),
    ])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try importPcap(TraceInput(path: path))
    #expect(result.frames.map(\.timeNs) == [0, -3_000_000_000, -4_500_000_000])
    #expect(
      result.warnings.map(\.message) == [
        "packet time goes back by 3000.000 ms: the capture was merged or its clock reset; "
          + "times, gaps and durations across this point are not meaningful"
      ])
    #expect(result.warnings.first?.location?.record == 2)
  }
}

/// Review: whole-second times do not measure silence, so a re-activation of the same tag two
/// clock ticks later stays in the session; with real times the 2 s of silence split it.
@Test func wholeSecondsDoNotSplitSessionsBySilence() throws {
  // Flipper's empty frame stands for the REQA only in its whole-second captures; the timed
  // copy holds the REQA byte as other pcaps do.
  func activation(_ sec: UInt32, _ usec: UInt32) -> [(UInt32, UInt32, UInt8, [UInt8])] {
    [
      (sec, usec, 0xFE, usec == 0 ? [] : [0x26]), (sec, usec, 0xFF, [0x44, 0x00]),
      (sec, usec, 0xFE, [0x93, 0x20]),
      (sec, usec, 0xFF, [0x88, 0x04, 0x5A, 0x6B, 0xBD]),
      (sec, usec, 0xFA, [0x93, 0x70, 0x88, 0x04, 0x5A, 0x6B, 0xBD]), (sec, usec, 0xFB, [0x04]),
      (sec, usec, 0xFE, [0x95, 0x20]), (sec, usec, 0xFF, [0x7C, 0x8D, 0x9E, 0xAF, 0xC0]),
      (sec, usec, 0xFA, [0x95, 0x70, 0x7C, 0x8D, 0x9E, 0xAF, 0xC0]), (sec, usec, 0xFB, [0x00]),
      (sec, usec, 0xFA, [0x30, 0x04]), (sec, usec, 0xFB, Array(repeating: 0, count: 16)),
    ]
  }
  let whole = try pcapFile(activation(1_700_000_000, 0) + activation(1_700_000_002, 0))
  let timed = try pcapFile(activation(1_700_000_000, 1) + activation(1_700_000_002, 1))
  defer {
    try? FileManager.default.removeItem(atPath: whole)
    try? FileManager.default.removeItem(atPath: timed)
  }
  #expect(try analyzePcap(whole).count == 1)
  #expect(try analyzePcap(timed).count == 2)
}
