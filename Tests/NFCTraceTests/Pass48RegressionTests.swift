import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the 2026-12-07 (ninth) session's hunt.
@Suite struct Pass48RegressionTests {
  /// A libnfc log: READ 7 timed out (PN53x status 01h), the stack sent it again and the chip
  /// got the answer with a bad CRC (status 02h). The tag answered, so it did not leave: the
  /// readNDEF failed on the damaged answer, not "interrupted: no answer" (it said so).
  @Test func damagedAnswerToARetryIsNoSilence() throws {
    let lines = [
      "InListPassiveTarget",
      "TX: 00 00 ff 04 fc d4 4a 01 00 e1 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 0f f1 d5 4b 01 01 00 44 00 07 04 a8 ce 6a 5d 2d 80 a5 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 03 b8 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 13 ed d5 41 00 e1 10 12 00 01 03 a0 0c 34 03 19 d1 01 15 55 04 a7 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 01 e9 00",
      "InDataExchange",
      "TX: 00 00 ff 05 fb d4 40 01 30 07 b4 00",
      "RX: 00 00 ff 00 ff 00",
      "RX: 00 00 ff 03 fd d5 41 02 e8 00",
    ]
    let log = lines.map { line in
      line.hasPrefix("TX") || line.hasPrefix("RX")
        ? "debug\tlibnfc.driver.pn53x_usb\t" + line : "debug\tlibnfc.chip.pn53x\t" + line
    }.joined(separator: "\n")
    let input = TraceInput(path: "retry.log", bytes: Data(log.utf8))
    let run = try SessionAnalysisRun(importer: try LibnfcLogImporter(input: input))
    let op = try #require(run.sessions.first?.operations.last)
    #expect(op.kind == .readNDEF)
    #expect(op.outcome == .failed)
    #expect(
      op.reason
        == "the reader received the tag's answer to READ page 7 damaged (CRC, parity or framing "
        + "error) and reported the command failed: the tag answered, but what it answered is "
        + "unknown")
    #expect(op.unansweredFrames == [4])
  }
}

/// Type 5 refusals with error 10h (block not available, ISO/IEC 15693-3 §7.4.2): the fix says
/// what the CC's MLEN and GET SYSTEM INFORMATION show of the block, and an app's own block
/// writes are named with NFCISO15693Tag's calls, not sendMiFareCommand's NAK.
@Suite struct Pass48Type5Tests {
  typealias B = Type5ProcedureTests.Builder

  static func refused(blocks: Int, cc: [UInt8], at block: Int) throws -> DiagnosisFinding {
    var b = B()
    b.inventory()
    b.systemInformation(blocks: blocks, size: 4)
    b.read(0, cc)
    b.read(
      1, count: 4, Array((Type5ProcedureTests.tlv + Array(repeating: 0, count: 16)).prefix(16)))
    let tlv = Type5ProcedureTests.tlv
    for n in 1...block {
      let data = Array(tlv[(n - 1) * 4..<n * 4])
      b.write(n, data, answer: n == block ? [0x01, 0x10] : [0x00])
    }
    return try #require(try b.diagnose().finding("t5t-write-refused"))
  }

  /// MLEN past GET SYSTEM INFORMATION's memory (28 blocks), and a block inside both (80).
  @Test(arguments: [
    (
      28,
      "Block 3 does not exist on this tag: the CC's MLEN declares 260 bytes (CC included), more "
        + "than the 112 bytes GET SYSTEM INFORMATION reports"
    ),
    (
      80,
      "Block 3 is inside the memory GET SYSTEM INFORMATION reports and the T5T area the CC "
        + "declares, yet the tag answered 10h"
    ),
  ])
  func refusedInsideTheArea(blocks: Int, fix: String) throws {
    let f = try Self.refused(blocks: blocks, cc: Type5ProcedureTests.cc, at: 3)
    #expect(f.fix.hasPrefix(fix))
  }

  @Test func blockPastTheArea() throws {
    let f = try Self.refused(blocks: 80, cc: [0xE1, 0x40, 0x02, 0x01], at: 5)
    #expect(
      f.fix.hasPrefix(
        "Block 5 lies past the T5T area the CC declares (MLEN: 20 bytes, CC included)"))
    #expect(
      f.message.hasSuffix(
        "These writes were the app's own (NFCISO15693Tag's writeSingleBlock / "
          + "writeMultipleBlocks), which fail an ISO 15693 error response with 102 "
          + "(readerTransceiveErrorTagResponseError, the error code under "
          + "NFCISO15693TagResponseErrorKey), not writeNDEF's 401."))
    #expect(f.coreNFCError == .tagResponseError)
  }
}

/// ISO/IEC 15693-3 §10.3.2: STAY QUIET (02h) is always addressed and never answered. In a
/// Proxmark3 `hf 15` listing it was left raw (CRC_B, "not decoded yet") and its silence read
/// as the tag leaving the field.
@Suite struct Pass48StayQuietTests {
  @Test func stayQuietInAnISO15693ListingIsDecoded() throws {
    let rows = [
      ("0", "20480", "Rdr", "26  01  00  F6  0A"),
      ("36752", "85905", "Tag", "00  00  03  DD  A3  B1  14  01  04  E0  B5  81"),
      ("140145", "193394", "Rdr", "22  20  03  DD  A3  B1  14  01  04  E0  00  C2  F7"),
      ("209666", "238338", "Tag", "00  E1  40  0E  01  A9  EA"),
      ("292578", "341731", "Rdr", "22  02  03  DD  A3  B1  14  01  04  E0  B4  EE"),
      ("412243", "465492", "Rdr", "22  20  03  DD  A3  B1  14  01  04  E0  01  4B  E6"),
      ("481764", "510436", "Tag", "00  03  10  D1  01  45  38"),
    ]
    let listing =
      [
        "[=] ISO15693 / iCLASS - all times are in carrier periods (1/13.56MHz)", "",
        "      Start |        End | Src | Data (! denotes parity error)  | CRC | Annotation",
        "------------+------------+-----+--------------------------------+-----+-----------",
      ]
      + rows.map { "\($0.0) | \($0.1) | \($0.2) |\($0.3) |  ok | " }
    let input = TraceInput(
      path: "stay-quiet.txt", bytes: Data(listing.joined(separator: "\n").utf8))
    let run = try SessionAnalysisRun(importer: try Proxmark3TextImporter(input: input))
    let s = try #require(run.sessions.first)
    let quiet = try #require(s.operations.first { $0.firstFrame == 4 })
    #expect(quiet.kind == .transceive)
    #expect(quiet.outcome == .ok)
    #expect(FrameDecoder.isISO15693Request(hx15("22 02 03 DD A3 B1 14 01 04 E0 B4 EE")))
    #expect(FrameDecoder.isAddressedISO15693Request(hx15("22 02 03 DD A3 B1 14 01 04 E0 B4 EE")))
  }

  private func hx15(_ s: String) -> [UInt8] {
    s.split(separator: " ").compactMap { UInt8($0, radix: 16) }
  }
}

/// `diff` compared frame indices inside an operation's reason and frame-valued details, so two
/// sessions that differ only in where they sit in their traces "differed" (docs/json.md: frame
/// indices are never compared).
@Suite struct Pass48DiffTests {
  @Test func frameNumbersInReasonsAndDetailsAreNotCompared() {
    var a = Operation(kind: .transceive, frame: 10)
    var b = Operation(kind: .transceive, frame: 16)
    a.interrupt("no answer to frame 16: the tag left the field", frame: 16)
    b.interrupt("no answer to frame 22: the tag left the field", frame: 22)
    a.set("answer_not_captured", .int(633))
    b.set("answer_not_captured", .int(650))
    #expect(TraceDiff.operationDifferences(a, b).isEmpty)
    b.set("nak_code", .int(0))
    #expect(TraceDiff.operationDifferences(a, b).map(\.field) == ["details.nak_code"])
    var c = Operation(kind: .transceive, frame: 16)
    c.interrupt("no answer to frame 22: the tag stopped answering", frame: 22)
    #expect(
      TraceDiff.operationDifferences(a, c).map(\.field) == [
        "reason", "details.answer_not_captured",
      ])
  }

  @Test func withoutFrameNumbers() {
    #expect(
      TraceDiff.withoutFrameNumbers("frames 4–6 of frame 12 (frame 3), a 16-byte frame")
        == "frames N of frame N (frame N), a 16-byte frame")
  }
}

/// An app's READ of a page past a message its readNDEF already read whole (READ 4, READ 8 read
/// the message and its Terminator; then READ 16) is its own `transceive`, as README says; it
/// was folded into the readNDEF.
@Suite struct Pass48ReadPastMessageTests {
  @Test func jumpPastAWholeMessageIsTransceive() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    let message: [UInt8] = [0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    let pages = message + [0xFE] + Array(repeating: 0, count: 64)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00] + Array(pages[0..<12]))
    b.read(4, Array(pages[0..<16]))
    b.read(8, Array(pages[16..<32]))
    b.read(16, Array(repeating: 0, count: 16))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .transceive])
  }
}
