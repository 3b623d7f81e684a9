import Foundation
import NDEF
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// Runs pipeline + session analysis over a pcap.
func analyzePcap(_ path: String) throws -> [SessionAnalysis] {
  try SessionAnalysisRun(importer: try PcapImporter(input: try TraceInput(path: path))).sessions
}

private func kinds(_ s: SessionAnalysis) -> [String] { s.operations.map(\.shortText) }

@Suite struct SessionAnalysisTests {
  @Test func type2ReadThenWriteAcknowledged() throws {
    let s = try #require(try analyzePcap(TestPaths.traces("t2t-ntag215-write-ok.pcap")).first)
    #expect(
      kinds(s) == [
        "connect ok", "queryNDEFStatus readWrite 492 B", "readNDEF ok", "writeNDEF ok",
        // The read-back of page 4 alone stops before the message's end (hunt t2 2026-12-04c).
        "readNDEF unknown",
      ])
    #expect(s.tag.product == "NTAG215")
    #expect(s.tag.manufacturer == "NXP Semiconductors")
    #expect(s.tag.memoryBytes == 504)
    #expect(s.ndefStatus?.status == .readWrite)
    #expect(s.ndefStatus?.capacity == 492)
    let write = s.operations[3]
    #expect(write.firstFrame == 19 && write.lastFrame == 30)
    #expect(write.detail("pages_acknowledged") == .string("4,5,6,7,8,9"))
    // As found: the old URI; as left: the new one, written and acknowledged.
    let start = Type2TLVArea(parsing: s.memory.type2Start.knownRun(from: 16)).ndefMessage
    let end = Type2TLVArea(parsing: s.memory.type2End.knownRun(from: 16)).ndefMessage
    #expect(start.map { String(decoding: $0.suffix(3), as: UTF8.self) } == "old")
    #expect(end.map { String(decoding: $0.suffix(2), as: UTF8.self) } == "ok")
    #expect(s.memory.type2Start.state(16) == .read)
    // The final READ of page 4 re-reads what was written: the read-back confirms the write,
    // which keeps its mark; the frame is that read's.
    #expect(s.memory.type2End.state(16) == .written)
    #expect(s.memory.readBackConflicts.isEmpty)
    #expect(s.memory.type2End.frame(16) == 32)
    #expect(s.operations[2].detail("message").map { "\($0)" }?.hasPrefix("d1 01 11 55 04") == true)
  }

  @Test func type2WriteInterruptedWhenTheTagLeaves() throws {
    let s = try #require(try analyzePcap(TestPaths.traces("t2t-ntag215-write-torn.pcap")).first)
    #expect(
      kinds(s) == [
        "connect ok", "queryNDEFStatus readWrite 492 B", "readNDEF ok", "writeNDEF interrupted",
      ])
    let write = s.operations[3]
    #expect(write.outcome == .interrupted)
    #expect(write.unansweredFrames == [23, 24])
    #expect(write.detail("pages_acknowledged") == .string("4,5"))
    #expect(s.memory.type2End.state(4 * 4) == .written)
    #expect(s.memory.type2End.state(5 * 4) == .written)
    #expect(s.memory.type2End.state(6 * 4) == .unacknowledged)
    // Page 7 still holds what was read before the write.
    #expect(s.memory.type2End.state(7 * 4) == .read)
  }

  @Test func type2WriteRefusedWithNAK() throws {
    let s = try #require(
      try analyzePcap(TestPaths.shared("derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"))
        .first)
    let write = try #require(s.operations.first { $0.kind == .writeNDEF })
    #expect(write.outcome == .failed)
    #expect(write.detail("nak_page") == .int(40))
    #expect(write.detail("nak_code") == .int(0))
    #expect(write.failedFrames == [20])
    #expect(write.detail("pages_acknowledged") == .string("4,5"))
  }

  @Test func type4ReadAndWriteInTheNFCForumOrder() throws {
    let s = try #require(try analyzePcap(TestPaths.traces("t4t-write-ok.pcap")).first)
    #expect(
      kinds(s) == ["connect ok", "queryNDEFStatus readWrite 2046 B", "readNDEF ok", "writeNDEF ok"])
    #expect(s.tag.product == "Type 4 tag")
    #expect(s.type4CC?.mle == 59)
    #expect(s.type4CC?.mlc == 52)
    #expect(s.type4NDEFFile == 0xE104)
    let file = try #require(s.memory.filesEnd[0xE104])
    #expect(file.known(0, 2) == [0x00, 0x18])
    #expect(file.state(0) == .written)
    #expect(s.memory.filesStart[0xE104]?.known(0, 2) == [0x00, 0x14])
  }

  @Test func type4ReadOnlyAndRefusedUpdate() throws {
    let s = try #require(
      try analyzePcap(
        TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap")
      )
      .first)
    #expect(s.ndefStatus?.status == .readOnly)
    let write = try #require(s.operations.first { $0.kind == .writeNDEF })
    #expect(write.outcome == .failed)
    #expect(write.detail("sw") == .string("6982"))
    let read = try #require(s.operations.first { $0.kind == .readNDEF })
    let message = try #require(read.detail("message"))
    guard case .hex(let bytes) = message else { return }
    let decoded = try NDEFMessage(parsing: bytes)
    #expect(decoded.records.first?.type == Array("U".utf8))
  }
}
