import Foundation
import Testing

@testable import NFCTrace

/// Findings of the 2026-12-07 seventh session: real listings found in public repositories, and
/// a Type 5 protocol review.
@Suite struct Pass46ImportTests {
  private func frames(_ text: String) throws -> ([Frame], [TraceWarning]) {
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "hf15.txt", bytes: Data(text.utf8)))
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return (out, importer.warnings)
  }

  /// A pasted `hf 15 list`: the client's ISO 15693 reader restarts the tick counter for each
  /// exchange, so a reader row starts before 0 and is printed as a u32 (`4294958784 | 13504`).
  /// It was read as 316.7 s later, and the next tag row as a wrap-around (+316.7 s again).
  @Test func negativeStartOfARestartedCounterIsNoWrapAround() throws {
    let rule = "------------+------------+-----+------------------------------+-----+----------"
    let text = """
      [=] ISO15693 / iCLASS - all times are in carrier periods (1/13.56MHz)

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(rule)
                0 |      22016 | Rdr |26  01  00  F6  0A            |  ok | INVENTORY
       4294958784 |      13504 | Rdr |26  01  00  F6  0A            |  ok | INVENTORY
            17792 |      71040 | Tag |00  02  60  62  60  75  08  01  04  E0  C1  33 |  ok |
       4294959040 |      42432 | Rdr |22  2B  60  62  60  75  08  01  04  E0  34  02 |  ok | GET_SYSTEM_INFO
            46720 |     120448 | Tag |00  0F  60  62  60  75  08  01  04  E0  02  00  4F  03  01  93  E5 |  ok |

      """
    let (f, warnings) = try frames(text)
    #expect(f.count == 5)
    // 22016 ticks after 0 (the first INVENTORY's end), then +26304, then the next exchange
    // after the tag's end (71040 − (−8512) = 79552 ticks after the restart).
    let ticks: [Int64] = [0, 22016, 22016 + 26304, 22016 + 79552, 22016 + 79552 + 54976]
    #expect(f.map(\.timeNs) == ticks.map { Proxmark3.nanoseconds(ticks: $0) })
    // The source times stay as printed.
    #expect(f.map { $0.sourceTime?.value } == [0, 4_294_958_784, 17792, 4_294_959_040, 46720])
    #expect(!warnings.contains { $0.message.contains("wrap-around") })
    #expect(
      warnings.first?.message
        == "start 4294958784 is after end 13504: read as a negative start (-8512 ticks) of a "
        + "restarted tick counter; the frame is placed after the previous one, and the time "
        + "between them is not known")
  }
}

/// The Type 5 protocol review of the same session.
@Suite struct Pass46Type5Tests {
  typealias B = Type5ProcedureTests.Builder
  static let uid = Type5ProcedureTests.uid

  /// EXTENDED GET SYSTEM INFORMATION carries its parameter request field before the UID
  /// (ISO/IEC 15693-3:2019 §10.4.18): the UID was read one byte late, which made a second tag.
  @Test func extendedSystemInformationUIDFollowsTheRequestField() throws {
    let body: [UInt8] = [0x22, 0x3B, 0x0F] + Self.uid
    let r = try #require(try? ISO15693Request(parsing: body[...]))
    #expect(r.uid == Self.uid.reversed())
    #expect(Array(r.parameters) == [0x0F])
    var b = B()
    b.inventory()
    b.add(.reader, body)
    b.add(.tag, [0x00, 0x0F] + Self.uid + [0x00, 0x00, 0xFF, 0x07, 0x03, 0x26])
    b.read(0, Type5ProcedureTests.cc)
    let s = try b.sessions()
    #expect(s.count == 1)
    #expect(s.first?.memory.type5MemorySize == 2048 * 4)
    #expect(s.first?.tag.memoryBytes == 2048 * 4)
  }

  /// A message longer than the capacity written block by block past the T5T area: one
  /// writeNDEF, and `message-too-large` without `--expect` (it was "SUCCEEDED — no problem
  /// found", the writes past the area split off as transceives).
  @Test func messageLargerThanTheAreaIsTooLarge() throws {
    var b = B()
    // CC E1 40 04 01: a 32-byte T5T area, capacity 30.
    b.detect(area: [0x03, 0x00, 0xFE], cc: [0xE1, 0x40, 0x04, 0x01])
    b.write(1, [0x03, 0x00, 0xD1, 0x01])
    for block in 2...10 { b.write(block, [0x41, 0x41, 0x41, 0x41]) }
    b.write(1, [0x03, 0x27, 0xD1, 0x01])
    let s = try #require(try b.sessions().first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    let r = try b.diagnose()
    let f = try #require(r.finding("message-too-large"))
    #expect(
      f.cause
        == "the message its NDEF TLV length announces (39 bytes) is larger than the tag's capacity (30 bytes)"
    )
    #expect(f.message.contains("NFCISO15693Tag's writeSingleBlock / writeMultipleBlocks"))
    #expect(f.frames == [b.frames.count - 2, b.frames.count - 1])
    #expect(r.sessions[0].verdicts.last?.verdict == .succeededWithBadContent)
  }

  /// A READ answer the sniffer marked truncated (its CRC not captured) says nothing of what
  /// the reader received: readNDEF unknown, not failed with 102.
  @Test func answerCutByTheCaptureLeavesTheReadUnknown() throws {
    var b = B()
    b.detect(area: Type5ProcedureTests.tlv)
    b.add(.reader, [0x22, 0x23] + Self.uid + [0x01, 0x04])
    var cut = TestFrame.make(
      b.frames.count, .tag, [0x00] + Array(Type5ProcedureTests.tlv.prefix(10)))
    cut.technology = .nfcV
    cut.crc = .notCaptured
    cut.sourceFlags = ["truncated"]
    b.frames.append(cut)
    let op = try #require(try b.sessions().first?.operations.last)
    #expect(op.kind == .readNDEF)
    #expect(op.outcome == .unknown)
    let f = try #require(try b.diagnose().finding("answer-not-captured"))
    #expect(f.cause == "the capture cut the tag's answer short")
    #expect(f.severity == .info)
  }

  /// An error response to a READ is the tag's refusal: the fix names the blocks, not the
  /// radio link.
  @Test func readRefusedWithError10hGetsABlockFix() throws {
    var b = B()
    b.inventory()
    b.read(0, Type5ProcedureTests.cc)
    b.request(0x23, [0x01, 0x1F], answer: [0x01, 0x10])
    let f = try #require(try b.diagnose().finding("read-failed"))
    #expect(
      f.message.hasSuffix(
        "This is the tag's answer (an ISO 15693 error response), not a radio problem."))
    #expect(f.fix.hasPrefix("The READ asks for blocks the tag does not have"))
  }

  /// A refusal (12h) on a tag whose CC says write never: the fix says so, and names Type 5's
  /// own write calls.
  @Test func refusalOnAReadOnlyCCNamesTheCC() throws {
    var b = B()
    b.detect(area: Type5ProcedureTests.tlv, cc: [0xE1, 0x43, 0x20, 0x01])
    b.write(1, [0x03, 0x00, 0xD1, 0x01], answer: [0x01, 0x12])
    let f = try #require(try b.diagnose().finding("t5t-write-refused"))
    #expect(f.fix.contains("the CC says write never, so the tag is read-only"))
    #expect(f.message.contains("NFCISO15693Tag's writeSingleBlock / writeMultipleBlocks"))
    #expect(f.coreNFCError == .tagNotWritable)
  }
}

/// Raw page writes of an amiibo writer (a real Proxmark3 capture of one: page 4 ← a5 00 0a 00,
/// then the CC F1 10 FF EE): the app's own commands, not writeNDEF, judged as a write that left
/// no TLV at page 4.
@Suite struct Pass46RawPageWriteTests {
  @Test func pageFourWithoutATLVIsATransceiveJudgedAsAWrite() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, page3(cc: [0xE1, 0x10, 0x3E, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0xA5, 0x00, 0x0A, 0x00])
    b.write(5, [0xA8, 0xE1, 0x08, 0xB7])
    b.write(3, [0xF1, 0x10, 0xFF, 0xEE])
    let s = try #require(try sessions(b).first)
    let kinds = s.operations.map(\.kind)
    #expect(!kinds.contains(.writeNDEF))
    let op = try #require(s.operations.firstIndex { $0.overwritesNDEFArea })
    #expect(s.operations[op].kind == .transceive)
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-no-tlv-at-page-4"))
    #expect(f.operation == op)
    #expect(
      r.sessions[0].verdicts.first { $0.operation == op }?.verdict == .succeededWithBadContent)
    #expect(r.finding("t2t-cc-magic-lost") != nil)
  }
}

/// libnfc before 1.7 printed traffic as ` TX: xx  xx …` with no priority nor category (a real
/// log in libnfc issue #86), and its pn532_uart driver logged each answer twice: the receive
/// buffer with the ACK, then the frame. It was "no libnfc TX:/RX: traffic lines".
@Suite struct Pass46OldLibnfcTests {
  /// PN532 UART frame of `body` (preamble, LEN, LCS, body, DCS, postamble).
  static func frame(_ body: [UInt8]) -> [UInt8] {
    let sum = body.reduce(0) { $0 &+ $1 }
    return [0, 0, 0xFF, UInt8(body.count), 0 &- UInt8(body.count)] + body + [0 &- sum, 0]
  }

  static func text(_ exchanges: [([UInt8], [UInt8])]) -> String {
    let hex = { (b: [UInt8]) in b.map { Hex.string([$0]) }.joined(separator: "  ") + "  " }
    var out = "Connected to NFC reader: PN532 (/dev/ttyUSB0) - PN532 v1.6 (0x07)\n\n"
    for (command, response) in exchanges {
      out += " TX: \(hex(frame(command)))\n"
      out += " RX: \(hex([0, 0, 0xFF, 0, 0xFF, 0] + frame(response)))\n"
      out += " RX: \(hex(frame(response)))\n"
    }
    return out
  }

  static func run(_ text: String) throws -> (frames: [Frame], warnings: [TraceWarning]) {
    let input = TraceInput(path: "old.log", bytes: Data(text.utf8))
    #expect(LibnfcLogImporter.sniff(Array(input.bytes)) == 60)
    var importer = try LibnfcLogImporter(input: input)
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    return (frames, importer.warnings)
  }

  @Test func oldTrafficLinesAreReadAndEachAnswerOnce() throws {
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let page3: [UInt8] = [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9)
    let (frames, warnings) = try Self.run(
      Self.text([
        ([0xD4, 0x4A, 0x01, 0x00], [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + uid),
        ([0xD4, 0x40, 0x01, 0x30, 0x03], [0xD5, 0x41, 0x00] + page3),
      ]))
    #expect(frames.map(\.data) == [[0x44, 0x00], [0x00], [0x30, 0x03], page3])
    #expect(warnings.map(\.message) == [PN53xInterpreter.duplicateResponseMessage])
  }

  /// A log of polls that found nothing holds no frame, and is no damaged input: exit 0 with
  /// the notes, not "every record was rejected".
  @Test func pollsWithoutATargetAreNotRejectedRecords() throws {
    let (frames, warnings) = try Self.run(
      Self.text(Array(repeating: ([0xD4, 0x4A, 0x01, 0x00], [0xD5, 0x4B, 0x00]), count: 3)))
    #expect(frames.isEmpty)
    #expect(warnings.count == 4)
    #expect(TraceError.allRejected(warnings) == nil)
  }
}

extension Pass46ImportTests {
  /// A listing edited down to `Rdr | data | CRC | annotation` (a real one, found in a public
  /// analysis): its rows are read in order, without times (Pass47ImportTests has more). It said
  /// "row without Rdr/Tag source"; then each row was skipped, named for what is missing.
  @Test func rowWithoutTimeColumnsIsReadInOrder() throws {
    let text = "      Start |        End | Src | Data | CRC | Annotation\nRdr | 26 |     | REQA\n"
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "edited.txt", bytes: Data(text.utf8)))
    let frame = try importer.next()
    #expect(frame?.data == [0x26])
    #expect(frame?.sourceTime?.unit == .order)
    #expect(
      importer.warnings.first?.message.hasPrefix(
        "the listing has no Start and End columns (an edited listing)") == true)
  }
}

extension Pass46Type5Tests {
  /// A capture that starts after the INVENTORY (an `hf 15` sniff, or a source that does not
  /// name the technology): an addressed request with a UID ending E0h and a good CRC starts
  /// the ISO 15693 link. Every frame stayed "raw (CRC_B verifies … not decoded yet)".
  @Test func addressedRequestWithoutInventoryIsISO15693() throws {
    let request = CRC.appendingCRCB([0x22, 0x20] + Self.uid + [0x00])
    #expect(FrameDecoder.isAddressedISO15693Request(request))
    // A type B ATTRIB (1D …) and a request whose UID does not end E0h are not.
    #expect(
      !FrameDecoder.isAddressedISO15693Request(
        CRC.appendingCRCB([0x1D] + Array(repeating: 0x11, count: 10))))
    #expect(
      !FrameDecoder.isAddressedISO15693Request(
        CRC.appendingCRCB([0x22, 0x20] + Array(repeating: 0x11, count: 8) + [0x00])))
    let frames = [
      TestFrame.make(0, .reader, request),
      TestFrame.make(1, .tag, CRC.appendingCRCB([0x00] + Type5ProcedureTests.cc)),
    ]
    let out = decodeAll(frames).0
    #expect(
      out[0].innermost?.summary.hasPrefix(
        "READ SINGLE BLOCK 0, addressed to E0:04:01:08:12:34:56:78") == true)
    #expect(out[1].innermost?.name == "READ SINGLE BLOCK response")
  }
}

extension Pass46ImportTests {
  /// Two reader rows in a row that both start before 0 (EAS ALARM unanswered, then READ
  /// SIGNATURE, both `4294959104 | 46592`): the second is placed after the first's end, not
  /// at the same time (review: they overlapped).
  @Test func consecutiveRestartsFollowEachOther() throws {
    let text = """
      [=] ISO15693 / iCLASS - all times are in carrier periods (1/13.56MHz)
            Start |        End | Src | Data | CRC | Annotation
                0 |      22016 | Rdr |26  01  00  F6  0A |  ok | INVENTORY
       4294959104 |      46592 | Rdr |22  A5  04  60  62  60  75  08  01  04  E0  22  20 |  ok | EAS_ALARM
       4294959104 |      46592 | Rdr |22  BD  04  60  62  60  75  08  01  04  E0  59  9B |  ok | READ_SIGNATURE

      """
    let (f, _) = try frames(text)
    #expect(f.map(\.timeNs) == [0, 22016, 22016 + 54784].map { Proxmark3.nanoseconds(ticks: $0) })
  }

  /// Outside ISO 15693 listings a row across the counter's wrap after a long idle stays a
  /// wrap-around: later, however far (review: it was read as a restart, 242 s lost).
  @Test func wrapAfterIdleInA14aListingStaysAWrap() throws {
    let text = """
            Start |        End | Src | Data | CRC | Annotation
       1000000000 | 1000001056 | Rdr |26(7) |     | REQA
       1000002244 | 1000004612 | Tag |44  00 |     |
       4294966000 |       1056 | Rdr |26(7) |     | REQA

      """
    let (f, warnings) = try frames(text)
    #expect(f.last?.timeNs == Proxmark3.nanoseconds(ticks: 4_294_966_000 - 1_000_000_000))
    #expect(!warnings.contains { $0.message.contains("restarted tick counter") })
  }

  /// An `hf 15` sniff listing that starts after the INVENTORY, its requests not addressed
  /// (`02 20 0A`, READ SINGLE BLOCK 10): NFC-V, by the preamble. It was a type B I-block.
  @Test func hf15ListingWithoutInventoryDecodesAsNFCV() throws {
    let text = """
      [=] ISO15693 / iCLASS - all times are in carrier periods (1/13.56MHz)
            Start |        End | Src | Data | CRC | Annotation
           685888 |     707904 | Rdr |02  20  0A  1D  FF |  ok | READBLOCK(10)
           712352 |     745120 | Tag |00  00  00  00  00  77  CF |  ok |

      """
    let (f, _) = try frames(text)
    #expect(f.map(\.technology) == [.nfcV, .nfcV])
    let out = decodeAll(f).0
    #expect(out[0].innermost?.summary == "READ SINGLE BLOCK 10")
    #expect(out[1].innermost?.name == "READ SINGLE BLOCK response")
  }

  /// A capture that joined a MIFARE Classic session after its authentication: the first reader
  /// frame fails parity in several bytes and its CRC_A, so it and the frames after it are
  /// Crypto1 ciphertext, not damaged Type 2 commands answered NAK 7 (a real `trace list -u`).
  @Test func captureStartingInCiphertextIsEncrypted() throws {
    let text = """
            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      ------------+------------+-----+-------------------------------+-----+-----------
         235857.2 |   236204.1 | Rdr |37  1d! 07! 77                | !crc|
         236296.5 |   236343.7 | Tag |07(4)                         |     |

      """
    let (f, _) = try frames(text)
    let out = decodeAll(f).0
    #expect(out[0].findings.map(\.code).contains("crypto1-assumed"))
    #expect(out[0].frame.crc == .encrypted)
    #expect(out[1].frame.crc == .encrypted)
    #expect(out[1].innermost?.name != "NAK")
  }
}

extension Pass46Type5Tests {
  /// A write of a block past the T5T area after a writeNDEF finished (its length written
  /// last) is the app's own transceive, not part of the writeNDEF (review).
  @Test func writePastTheAreaAfterAFinishedWriteIsATransceive() throws {
    var b = B()
    b.detect(area: [0x03, 0x00, 0xFE], cc: [0xE1, 0x40, 0x04, 0x01])
    b.writeLengthFirst()
    b.write(20, [0x41, 0x41, 0x41, 0x41], answer: [0x01, 0x12])
    let ops = try #require(try b.sessions().first).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .transceive])
    #expect(ops[2].outcome == .ok)
  }

  /// A Type 5 read-only tag: the permanence sentence speaks of block 0, not of a Type 2 tag.
  @Test func readOnlyType5TagFixSpeaksOfBlockZero() throws {
    var b = B()
    b.detect(area: Type5ProcedureTests.tlv, cc: [0xE1, 0x43, 0x20, 0x01])
    let f = try #require(try b.diagnose().finding("tag-read-only"))
    #expect(
      f.fix.hasSuffix(
        "On a Type 5 tag the CC's write access is a byte of block 0: a "
          + "writer of its own can set it back unless block 0 is locked (LOCK BLOCK, permanent), "
          + "as writeLock leaves it."))
  }

  /// Every READ answer damaged and nothing after the last: whether the reader gave up is not
  /// known (a warning, no 101); a damaged final answer followed by another command keeps the
  /// error (review: the warning said "nothing after" there too).
  @Test func retriedCommandWithTheLastAnswerDamaged() throws {
    var b = B()
    b.detect(area: Type5ProcedureTests.tlv)
    for _ in 0..<3 {
      b.add(.reader, [0x22, 0x23] + Self.uid + [0x01, 0x04])
      var damaged = CRC.appendingCRCB([0x00] + Array(repeating: 0x11, count: 20))
      damaged[damaged.count - 1] ^= 0xFF
      var f = TestFrame.make(b.frames.count, .tag, damaged)
      f.technology = .nfcV
      b.frames.append(f)
    }
    let f = try #require(try b.diagnose().finding("command-retried"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    b.read(7, [0, 0, 0, 0])
    let g = try #require(try b.diagnose().finding("command-retried"))
    #expect(g.severity == .error)
    #expect(g.coreNFCError == .retryExceeded)
  }
}

extension Pass46Type5Tests {
  /// EAS ALARM (custom A5h, NXP) unanswered, then a request the tag answered: the tag stayed,
  /// silent on a command whose condition is not met (EAS off) — the operation failed, it was
  /// not "the tag left the field" (a real `hf 15 list`).
  @Test func customCommandLeftSilentIsNoInterruption() throws {
    var b = B()
    b.inventory()
    b.add(.reader, [0x22, 0xA5, 0x04] + Self.uid)
    b.read(0, Type5ProcedureTests.cc)
    let ops = try #require(try b.sessions().first).operations
    let silent = try #require(ops.first { $0.kind == .transceive })
    #expect(silent.outcome == .failed)
    #expect(
      silent.reason?.hasSuffix(
        "it stayed in the field, silent on a command it does not support or whose condition is not met"
      ) == true)
  }

  /// A block READ unanswered, then another the tag answered: the sniffer missed the answer
  /// (a tag answers every READ, with data or an error): outcome unknown.
  @Test func blockReadLeftSilentIsAMissedAnswer() throws {
    var b = B()
    b.inventory()
    b.read(0, Type5ProcedureTests.cc)
    b.add(.reader, [0x22, 0x23] + Self.uid + [0x01, 0x03])
    b.read(5, [0, 0, 0, 0])
    let ops = try #require(try b.sessions().first).operations
    let missed = try #require(ops.first { $0.detail("answer_not_captured") != nil })
    #expect(missed.outcome == .unknown)
  }
}
