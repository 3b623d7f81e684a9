import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Review of `nfctrace diff` TIMING: a tag that leaves during an S(WTX) wait, and the air time
/// of the reader's 7-bit short frames in sources without bit counts.
@Suite struct DiffTimingReviewTests {
  // MARK: S(WTX) wait never answered

  /// B's tag asks twice for more time (ISO/IEC 14443-4 §7.3) before the READ BINARY's answer,
  /// then leaves: no answer to the reader's second S(WTX) response, nor to its R(NAK) after
  /// the silence (§7.5.4). An S(WTX) request is no answer, so the command is unanswered —
  /// `answered` 0, no response time, the R(NAK) a retry (docs/json.md TIMING). It counted as
  /// answered by the first S(WTX) request, 381 121 ns after the command.
  @Test func tagLeavingDuringWTXLeavesTheCommandUnanswered() throws {
    let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    a.apdu(read, [0xD1, 0x01, 0x10, 0x55, 0x90, 0x00])
    // The query took 5 I-blocks: block number 1.
    b.reader([0x03] + read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01])
      b.reader([0xF2, 0x01])
    }
    b.reader([0xB3])
    let sideB = try diffSide(b)
    let d = TraceDiff(a: try diffSide(a), b: sideB)
    let t = try #require(d.timing.last)
    #expect(t.b?.exchanges == 2)
    #expect(t.b?.answered == 0)
    #expect(t.b?.medianResponseNs == nil)
    #expect(t.b?.maxResponseNs == nil)
    #expect(t.b?.retries == 1)
    #expect(t.b?.wtxRequests == 2)
    // The duration spans the S(WTX) waits to the last frame (it was 0: the unanswered command
    // alone).
    let readFrame = try #require(b.frames.firstIndex { $0.data.starts(with: [0x03] + read) })
    let lastFrame = try #require(b.frames.last)
    #expect(t.b?.durationNs == lastFrame.timeNs - b.frames[readFrame].timeNs)
    #expect(t.a?.answered == 1)
    #expect(t.a?.medianResponseNs == 381_121)
    #expect(t.notable.map(\.why) == ["unanswered"])
    #expect(t.notable.first?.aResponseNs == 381_121)
    #expect(t.notable.first?.bResponseNs == nil)
    let command = try #require(sideB.exchanges.first { $0.key.hasPrefix("READ") && $0.wtxRequest })
    #expect(command.unanswered)
    #expect(command.response == nil)
    #expect(command.answerSummary == "no answer")
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    #expect(
      out.text.contains(
        "\"answered\":0,\"median_response_ns\":null,\"max_response_ns\":null,\"retries\":1"))
    #expect(out.text.contains("\"a_response_ns\":381121,\"b_response_ns\":null"))
    let row = try #require(DiffText.lines(d).last { $0.hasPrefix("≠ ") && $0.contains("│ 2 ") })
    let bColumn = row.split(separator: "│").last?.split(separator: " ").joined(separator: " ")
    #expect(bColumn?.hasPrefix("2 — — 1 ") == true)
  }

  /// The same wait answered after the two S(WTX) requests stays the command's answer, its
  /// response time running over the extensions (from the command's end to the I-block).
  @Test func answeredWTXWaitKeepsTheFinalAnswer() throws {
    let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    b.reader([0x03] + read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01])
      b.reader([0xF2, 0x01])
    }
    b.tag([0x03, 0xD1, 0x01, 0x10, 0x55, 0x90, 0x00])
    let side = try diffSide(b)
    let command = try #require(side.exchanges.first { $0.key.hasPrefix("READ") && $0.wtxRequest })
    #expect(!command.unanswered)
    #expect(command.responseTimeNs == 3_340_413)
    let t = TimingComparison.timing(
      Array(side.exchanges.indices.filter { side.exchanges[$0].operation == command.operation }),
      side.exchanges)
    #expect(t.answered == 1)
    #expect(t.retries == 0)
  }

  // MARK: Short frame air time

  /// A pcap stores the reader's WUPA `52` as a whole byte (no bit count); it is a 7-bit short
  /// frame (ISO/IEC 14443-3 §6.2.3.1): 7 bits + SOF/EOF = 9 etu = 84 955 ns at
  /// 106 kbit/s, so the ATQA 400 µs after its end answers in 400 000 ns, bits given or not.
  /// It was 381 121 ns (11 etu, as a whole byte).
  @Test(arguments: [nil, 7] as [Int?])
  func wupaResponseTimeCountsSevenBits(bits: Int?) throws {
    var b = TraceBuilder()
    b.activateType2(version: DiffReviewTests.ntag215, wupaBits: bits)
    let side = try diffSide(b)
    let wupa = try #require(side.exchanges.first)
    #expect(wupa.name == "WUPA")
    #expect(wupa.requestDurationNs == 84_955)
    #expect(wupa.responseTimeNs == 400_000)
  }

  /// The reader's other 7-bit short frames the decoder recognises from the byte alone — REQA
  /// `26`, Apple's MagSafe wake-up `7A`, the gen1a backdoor `40` — last 9 etu, whole bytes 9
  /// per byte + 2 (ISO/IEC 14443-3 §6.2.3.1): a READ with CRC_A, 38 etu.
  @Test func readerShortFramesLastSevenBits() {
    for byte: UInt8 in [0x26, 0x7A, 0x40] {
      #expect(Self.airTime([byte]) == 84_955, "\(Hex.string([byte]))")
    }
    #expect(Self.airTime(CRC.appendingCRCA([0x30, 0x04])) == 358_702)
  }

  /// A tag's 4-bit ACK stored as a whole byte (pcap) lasts 4 bits + start and end of frame,
  /// 6 etu (NTAG213/215/216 datasheet §9.3), as one with its bit count does, not 11.
  @Test(arguments: [nil, 4] as [Int?])
  func wholeByteACKLastsFourBits(bits: Int?) throws {
    var b = TraceBuilder()
    b.activateType2(version: DiffReviewTests.ntag215)
    b.reader([0xA2, 0x04, 0x03, 0x00, 0xFE, 0x00])
    b.add(.tag, [0x0A], crc: false, bits: bits)
    let side = try diffSide(b)
    let write = try #require(side.exchanges.last)
    #expect(write.name == "WRITE")
    #expect(write.responseDurationNs == 56_637)
  }

  /// The air time of reader frame `data` (no bit count, as in a pcap) decoded alone.
  private static func airTime(_ data: [UInt8]) -> Int64 {
    var decoder = FrameDecoder()
    let frame = Frame(
      index: 0, timeNs: 0, direction: .reader, data: data, technology: .nfcA,
      location: SourceLocation(file: "built", unit: "frame", record: 1, offset: 0))
    return ExchangeRecord.airTimeNs(decoder.decode(frame))
  }
}
