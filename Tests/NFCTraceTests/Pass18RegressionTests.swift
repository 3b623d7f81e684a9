import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the fourteenth session: each with the value the standard or the stack gives.
@Suite struct Pass18QueryTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let cc: [UInt8] =
    [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]

  /// A SELECT refused in one form (P2 0C) and accepted in another (P2 00) for the same file:
  /// the reader got past it, so the query is ok with the CC's status (ISO/IEC 7816-4 §11.1.1);
  /// the refusal stays a warning without a Core NFC error.
  @Test func selectAcceptedInAnotherFormRecoversTheQuery() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x86])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x03], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], Self.cc + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .ok)
    #expect(query.detail("status") == .string("readWrite"))
    #expect(query.detail("capacity") == .int(253))
    #expect(query.detail("sw") == nil)
    let f = try #require(try b.diagnose().finding("t4t-error-status"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.message.hasSuffix("in another form and the tag accepted it."))
  }

  /// The NDEF file's SELECT refused 6A82 and accepted in another form: NDEF detection went on,
  /// so the status is the CC's, not notSupported.
  @Test func ndefFileSelectedInAnotherFormKeepsDetectionGoing() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], Self.cc + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x6A, 0x82])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x04, 0x00], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .ok)
    #expect(query.detail("status") == .string("readWrite"))
    #expect(query.detail("ndef_detection_failed") == nil)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
  }

  /// A refused SELECT followed by the SELECT of another file is no recovery: still FAILED.
  @Test func selectOfAnotherFileDoesNotRecover() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x86])
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x05], Self.ok)
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.outcome == .failed)
    let f = try #require(try b.diagnose().finding("t4t-error-status"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagResponseError)
  }
}

@Suite struct Pass18Type2Tests {
  /// FAST_WRITE `A6 F0 FF` + 64 bytes writes NTAG I2C plus SRAM (NT3H2111/2211 datasheet §10);
  /// answered ACK. A frame whose data does not match its page range stays raw with the reason.
  @Test func fastWriteIsDecoded() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x13, 0x03])
    b.reader([0xA6, 0xF0, 0xFF] + Array(0..<64))
    b.add4Bit(0x0A)
    b.reader([0xA6, 0xF0, 0xF1, 0x00, 0x01, 0x02, 0x03])
    let frames = decodeAll(b.frames).0
    let write = try #require(frames[12].layer(.type2))
    #expect(write.name == "FAST_WRITE")
    #expect(write.summary == "FAST_WRITE pages 240–255 ← 64 bytes (SRAM)")
    #expect(write.field("start_page") == .int(0xF0))
    #expect(write.field("end_page") == .int(0xFF))
    #expect(write.field("data") == .hex(Array(0..<64)))
    #expect(frames[13].layer(.type2)?.summary == "ACK")
    #expect(frames[13].layer(.type2)?.field("command") == .string("FAST_WRITE"))
    #expect(frames[14].layer(.type2) == nil)
    #expect(
      frames[14].undecodedReason
        == "FAST_WRITE (A6 start end + 4 bytes per page) needs 11 bytes, got 7")
  }
}

@Suite struct Pass18ReportTests {
  /// A refused PWD_AUTH's reason quotes the command with its password: the report masks it
  /// there too unless secrets are asked for (README, `report --show-secrets`).
  @Test func refusedPasswordIsMaskedInTheReason() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.reader([0x1B, 0x11, 0x22, 0x33, 0x45])
    b.add4Bit(0x00)
    let s = try #require(try sessions(b).first)
    let report = TagReport(session: s)
    let text = ReportText.render(report)
    #expect(!text.contains("11 22 33 45"))
    #expect(text.contains("on PWD_AUTH password present (masked)"))
    #expect(ReportText.render(report, showSecrets: true).contains("PWD_AUTH password 11 22 33 45"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(!out.text.contains("11 22 33 45"))
    #expect(!out.text.contains("11223345"))
  }
}

@Suite struct Pass18ChainingTests {
  /// A command chained after the query's last answer (ISO/IEC 14443-4 §7.5.2: one APDU across
  /// several I-blocks) belongs whole, with the R(ACK)s between its parts, to the operation its
  /// APDU starts; the query ends with its own last answer.
  @Test func chainedCommandStartsItsOwnOperation() throws {
    var (b, queryEnd) = queriedType4()
    b.chainedAPDU([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x00], part: 5, [0x91, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations[1].lastFrame == queryEnd)
    #expect(s.operations[1].outcome == .ok)
    #expect(s.operations[2].firstFrame == queryEnd + 1)
    #expect(s.operations[2].lastFrame == b.frames.count - 1)
    #expect(s.operations[2].outcome == .ok)
  }

  /// The chain's last part never sent (the tag left): the query stays ok and the cut-off
  /// command is an interrupted operation of its own.
  @Test func cutChainInterruptsItsOwnCommandOnly() throws {
    var (b, queryEnd) = queriedType4()
    b.reader([0x12, 0x90, 0x5A, 0x00, 0x00, 0x03])
    b.tag([0xA2])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations[1].outcome == .ok)
    #expect(s.operations[1].lastFrame == queryEnd)
    #expect(s.operations[2].firstFrame == queryEnd + 1)
    #expect(s.operations[2].lastFrame == queryEnd + 2)
    #expect(s.operations[2].outcome == .interrupted)
    #expect(
      s.operations[2].reason?.hasPrefix("the chained command was cut off after part 1") == true)
  }
}

@Suite struct Pass18ISODEPTests {
  /// The tag's I-block while the reader chains ends the reader's chain (ISO/IEC 14443-4 §7.5.2:
  /// every chained part is answered R(ACK)): `incomplete-chain`, and the reader's next command
  /// decodes alone instead of being glued onto the stale part.
  @Test func tagIBlockEndsTheReadersChain() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x00, 0x14, 0x00, 0x12])
    b.tag([0xA2])
    b.tag([0x03, 0x90, 0x00])
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    let frames = decodeAll(b.frames).0
    let n = frames.count
    let broken = try #require(frames[n - 2].findings.first { $0.code == "incomplete-chain" })
    #expect(broken.frames == [n - 4, n - 2])
    #expect(
      broken.message.hasPrefix(
        "The reader's chain of 1 I-block(s) never got its last block; 7 bytes dropped: the tag answered with an I-block instead of R(ACK)"
      ))
    #expect(frames[n - 1].layer(.iso7816)?.summary == "READ BINARY offset 0 Le 2")
    #expect(!frames[n - 1].findings.contains { $0.code == "malformed-apdu" })
  }

  /// A tag chain whose R(ACK) the capture missed: the tag's toggled number is what an R(ACK)
  /// makes it send (§7.5.3.2, PICC rule E), not a numbering error.
  @Test func missedReaderACKInATagChainIsNoNumberingError() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x14])
    b.tag([0x12] + Array(repeating: 0x41, count: 10))
    b.tag([0x03] + Array(repeating: 0x42, count: 10) + [0x90, 0x00])
    let frames = decodeAll(b.frames).0
    let last = try #require(frames.last)
    #expect(last.findings.map(\.code) == ["ack-not-captured"])
    #expect(last.findings.first?.severity == .info)
    #expect(last.layer(.iso7816)?.field("sw") == .string("9000"))
  }
}

@Suite struct Pass18PPSAndCIDTests {
  /// PPS0 01 announces no PPS1 (ISO/IEC 14443-4 §5.3): a third byte is not read as PPS1; a
  /// bit rate the ATS's TA(1) does not offer, RFU bits and a CID other than RATS's are flagged.
  @Test func ppsIsCheckedAgainstPPS0AndTheATS() throws {
    #expect(PPSRequest([0xD0, 0x01, 0x0A])?.pps1 == nil)
    #expect(
      PPSRequest([0xD0, 0x01, 0x0A])?.problems(ta: 0x00, atsSeen: true)
        == ["PPS0 announces no PPS1, yet a third byte follows"])
    #expect(
      PPSRequest([0xD0, 0x11])?.problems(ta: nil, atsSeen: true)
        == ["PPS0 announces PPS1, which is missing"])
    #expect(
      PPSRequest([0xD0, 0x05])?.problems(ta: nil, atsSeen: true)
        == ["PPS0 05 is neither 11 (PPS1 follows) nor 01 (no PPS1)"])
    #expect(
      PPSRequest([0xD0, 0x11, 0x3A])?.problems(ta: 0x77, atsSeen: true)
        == ["PPS1 3a has RFU bits b8–b5 set"])
    // TA(1) 00: 106 kbit/s only; 424 kbit/s both ways is not offered.
    #expect(
      PPSRequest([0xD0, 0x11, 0x0A])?.problems(ta: 0x00, atsSeen: true)
        == [
          "DSI 2 (424 kbit/s PICC→PCD) is not offered by TA(1)",
          "DRI 2 (424 kbit/s PCD→PICC) is not offered by TA(1)",
        ])
    // TA(1) 33: DS and DR 2 and 4 (212/424 kbit/s).
    #expect(PPSRequest([0xD0, 0x11, 0x0A])?.problems(ta: 0x33, atsSeen: true) == [])
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0xD1, 0x11, 0x00])
    let frames = decodeAll(b.frames).0
    let f = try #require(frames.last?.findings.first { $0.code == "invalid-pps" })
    #expect(f.message == "PPSS carries CID 1, RATS assigned CID 0 (ISO/IEC 14443-4 §5.3)")
  }

  /// A block without CID after RATS assigned CID 3: a tag given a CID other than 0 answers only
  /// blocks carrying it (ISO/IEC 14443-4 §7.1.1.2).
  @Test func missingCIDAfterRATSAssignedOneIsFlagged() throws {
    var b = TraceBuilder()
    b.add(.reader, [0x26], crc: false, bits: 7)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag([0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56], crc: false)
    b.reader([0x93, 0x70, 0x08, 0x12, 0x34, 0x56, 0x08 ^ 0x12 ^ 0x34 ^ 0x56])
    b.tag([0x20])
    b.reader([0xE0, 0x83])
    b.tag([0x05, 0x78, 0x80, 0x70, 0x02])
    b.reader([0x0A, 0x03, 0x00, 0xA4, 0x04, 0x00])
    b.tag([0x0A, 0x03, 0x90, 0x00])
    b.reader([0x03, 0x00, 0xA4, 0x04, 0x00])
    let frames = decodeAll(b.frames).0
    let n = frames.count
    #expect(!frames[n - 3].findings.contains { $0.code == "unexpected-cid" })
    let f = try #require(frames[n - 1].findings.first { $0.code == "unexpected-cid" })
    #expect(f.message.hasPrefix("Block carries no CID, RATS or ATTRIB assigned CID 3"))
  }
}

@Suite struct Pass18MemoryRowTests {
  /// A dynamic lock page written `ff ff ff 00`: its RFUI byte is not set by a write, so the
  /// image knows 3 bytes of the page. The row is still a 4-byte page, ending `??`
  /// (docs/json.md), and the diff gives null for a page not known whole.
  @Test func partlyKnownLastPageIsAFullPage() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(40, [0xFF, 0xFF, 0xFF, 0x00])
    let s = try #require(try sessions(b).first)
    let report = TagReport(session: s)
    let row = try #require(report.rows().first { $0.address == 40 })
    #expect(row.bytes.count == 4)
    #expect(row.known == [true, true, true, false])
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(out.text.contains("{\"page\":40,\"data\":\"ffffff??\""))
    var a = TraceBuilder()
    a.activateType2(version: ntag213Version)
    a.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    let other = try #require(try sessions(a).first)
    let d = try #require(
      MemoryComparison.differences(other, s).first { $0.image == .end && $0.unit == 40 })
    #expect(d.b == nil)
    #expect(d.bState == "mixed")
  }
}

extension Pass18ReportTests {
  /// Zeros in PWD/PACK: a trace's READ answer is the read-back (NTAG21x datasheet §8.5.7);
  /// in a dump they may be the read-back (a reader's dump) or the value (an emulator image),
  /// said as such; a PWD_AUTH's zeros are what was sent.
  @Test func zerosAreSaidForWhatTheyAre() throws {
    // Sent on the air (PWD_AUTH), zeros are the password itself: masked (hunt s37, s08).
    #expect(ReportText.secret([0, 0], false) == "present (masked)")
    #expect(ReportText.secret([0, 0], true) == "00 00")
    #expect(ReportText.secret([0, 0], false, source: .trace).hasPrefix("reads as zeros"))
    let source = try ReportSource.open(
      TraceInput(path: TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin")),
      formatName: nil, registry: FormatRegistry(BuiltinFormats.all))
    let dump = TagReport(dump: try #require(source.dump))
    let text = ReportText.render(dump)
    #expect(
      text.contains(
        "  PACK            00 00 (zeros: a dump read from a tag holds zeros here, not the real "
          + "value; an emulator image holds the value it uses)\n"))
    #expect(
      text.contains(
        "  PWD             ff ff ff ff (NXP's factory default password, not a secret)\n"))
  }
}

@Suite struct Pass18SegmentationTests {
  /// NLEN read again right after the query read it: readNDEF's first step (T4T 2.0 §5.4.6),
  /// not more of the query, so a tag lost during it interrupts readNDEF.
  @Test func secondNLENReadStartsReadNDEF() throws {
    var (b, queryEnd) = queriedType4()
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x00, 0x02])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations[1].lastFrame == queryEnd)
    #expect(s.operations[1].outcome == .ok)
    #expect(s.operations[1].detail("status") == .string("readWrite"))
    #expect(s.operations[2].outcome == .interrupted)
  }

  /// PWD_AUTH refused NAK 1 (transmission error) and accepted when sent again: the password
  /// was accepted, the operation is ok (as for READ and WRITE).
  @Test func passwordRetriedAfterNAK1IsAccepted() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.reader([0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
    b.add4Bit(0x01)
    b.reader([0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
    b.tag([0x00, 0x00])
    let s = try #require(try sessions(b).first)
    let auth = try #require(s.operations.first { $0.kind == .authenticate })
    #expect(auth.outcome == .ok)
    #expect(auth.detail("nak_code") == nil)
    let f = try #require(try b.diagnose().finding("command-retried"))
    #expect(f.severity == .warning)
  }

  /// After the length-last write's final length, a WRITE past the message (an app's
  /// sendMiFareCommand) is a transceive of its own: its NAK does not fail the finished write.
  /// The Terminator page written after the length (libnfc-nci) stays in the write.
  @Test func writePastTheMessageAfterTheFinalLengthIsTheAppsOwn() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD0, 0x00])
    b.write(5, [0x00, 0x00, 0x00, 0x00])
    b.write(4, [0x03, 0x03, 0xD0, 0x00])
    b.write(5, [0x00, 0xFE, 0x00, 0x00])
    let writeEnd = b.frames.count - 1
    b.write(16, [0x11, 0x22, 0x33, 0x44], .nak(0x0))
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind).suffix(2) == [.writeNDEF, .transceive])
    let write = try #require(s.operations.first { $0.kind == .writeNDEF })
    #expect(write.outcome == .ok)
    #expect(write.lastFrame == writeEnd)
    #expect(s.operations.last?.outcome == .failed)
  }
}

extension Pass18ChainingTests {
  /// The streamed timeline holds a chain's frames until their operation is known: the query's
  /// end line comes before the chain's first part, the transceive's start line too.
  @Test func timelinePlacesTheChainUnderItsOperation() throws {
    var (b, _) = queriedType4()
    let first = b.frames.count
    b.chainedAPDU([0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x00], part: 5, [0x91, 0x00])
    let lines = try streamedTimeline(b)
    let queryEnd = try #require(lines.firstIndex { $0.hasPrefix("  ◂ queryNDEFStatus") })
    let start = try #require(lines.firstIndex { $0 == "  ▸ transceive" })
    let chainPart = try #require(lines.firstIndex { $0.hasPrefix("#\(first) ") })
    #expect(queryEnd < start)
    #expect(start == chainPart - 1)
    #expect(lines.filter { $0.hasPrefix("  ◂ queryNDEFStatus") }.count == 1)
  }

  /// A chain cut off at the end of the trace: its start line, its frames, then its end.
  @Test func timelinePlacesACutChainUnderItsOperation() throws {
    var (b, _) = queriedType4()
    let first = b.frames.count
    b.reader([0x12, 0x90, 0x5A, 0x00, 0x00, 0x03])
    b.tag([0xA2])
    let lines = try streamedTimeline(b)
    let start = try #require(lines.firstIndex { $0 == "  ▸ transceive" })
    let end = try #require(lines.firstIndex { $0.hasPrefix("  ◂ transceive interrupted") })
    #expect(lines[start + 1].hasPrefix("#\(first) "))
    #expect(lines[end - 1].hasPrefix("#\(first + 1) "))
  }
}

extension Pass18ISODEPTests {
  /// A chained UPDATE answered by the tag's I-block before its last part: whether the write
  /// happened is unknown (not "ok"): the UPDATE was never seen whole.
  @Test func writeWhoseChainTheTagAnsweredIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x05)
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x00, 0x20, 0x00, 0x01])
    b.tag([0x02, 0x90, 0x00])
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .unknown)
    #expect(write.reason == SessionAnalyzer.incompleteChain)
  }
}

extension Pass18SegmentationTests {
  /// A re-activation whose anticollision stops short (its ANTICOLL unanswered) connects
  /// nothing: the session's UID and SAK are the first activation's, not this connect's.
  @Test func reactivationThatSelectsNothingIsNoConnect() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.add(.reader, [0x52], crc: false, bits: 7)
    b.tag([0x44, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    let s = try #require(try sessions(b).first)
    let connects = s.operations.filter { $0.kind == .connect }
    #expect(connects.count == 2)
    #expect(connects[0].outcome == .ok)
    #expect(connects[0].detail("uid") == .string("04:11:22:33:44:55:66"))
    #expect(connects[1].outcome == .failed)
    #expect(connects[1].detail("uid") == nil)
    #expect(connects[1].reason == "the tag did not answer the activation")
  }
}

extension Pass18SegmentationTests {
  /// Android's Type 2 presence check is READ 0 repeated (libnfc-nci RW_T2tPresenceCheck): the
  /// checks after a readNDEF are one transceive, not a transceive and then a query.
  @Test func repeatedReadZeroAfterTheCallsIsOnePresenceCheck() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE, 0x00])
    b.read(4, [0x03, 0x00, 0xFE, 0x00])
    for _ in 0..<4 { b.read(0, ntag213Pages0To3) }
    let s = try #require(try sessions(b).first)
    #expect(
      s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .transceive])
  }

  /// A READ 0 after another kind of read starts a detection (libnfc-nci reads block 0 first
  /// when it has no header, rw_t2t_ndef.cc): the query again, not a presence check.
  @Test func readZeroAfterARawCommandStartsADetection() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE, 0x00])
    b.reader([0x60])
    b.tag(ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE, 0x00])
    b.read(4, [0x03, 0x00, 0xFE, 0x00])
    let s = try #require(try sessions(b).first)
    // READ 0 and the READ of the TLVs are the detection, as the first time; then the read.
    #expect(s.operations.map(\.kind).suffix(3) == [.transceive, .queryNDEFStatus, .readNDEF])
  }
}

@Suite struct Pass18ImportTests {
  /// A reader chip strips the CRC of what it receives, but ATQA (and REQA, anticollision,
  /// ACK/NAK) has none on air (ISO/IEC 14443-3 §6.4.2): its CRC is absent, not "not captured";
  /// the SAK, which has one, stays not captured.
  @Test func readerChipATQAHasNoCRCToMiss() throws {
    let input = try TraceInput(path: TestPaths.traces("libnfc/pn533_scl3711_t2t_read_write.log"))
    let format = try FormatRegistry(BuiltinFormats.all).detect(input)
    var frames: [DecodedFrame] = []
    _ = try SessionAnalysisRun(importer: try format.open(input)) { item in
      if case .frame(let f) = item { frames.append(f) }
    }
    #expect(frames[2].innermost?.name == "ATQA")
    #expect(frames[2].frame.crc == .absent)
    #expect(frames[3].innermost?.name == "SAK")
    #expect(frames[3].frame.crc == .notCaptured)
  }
}

extension Pass18Type2Tests {
  /// A raw command NAKed, then the next one unanswered with no reactivation between: an NXP
  /// tag goes idle after a NAK (nfc-facts §4.2), so the silence is the NAK's doing, not the
  /// phone moving away (as for reads).
  @Test func silenceAfterANAKedRawCommandIsTheIdleState() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03])
    b.reader([0xA6, 0xF0, 0xFF] + Array(repeating: 0, count: 64))
    b.add4Bit(0x00)
    b.reader([0xA6, 0xF0, 0xFF] + Array(repeating: 0, count: 64))
    let f = try #require(try b.diagnose().finding("command-interrupted"))
    #expect(f.cause.hasPrefix("the tag went idle after it refused FAST_WRITE pages 240–255"))
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.severity == .warning)
  }
}

extension Pass18ChainingTests {
  /// A chain begun after the query that the tag answers with an I-block before its last part:
  /// a transceive of unknown outcome of its own; the query keeps its end and its outcome.
  @Test func chainAnsweredBeforeItsLastPartIsItsOwnUnknownCommand() throws {
    var (b, queryEnd) = queriedType4()
    b.reader([0x13, 0x00, 0xA4, 0x04, 0x00, 0x10])
    b.tag([0x03, 0x67, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations[1].outcome == .ok)
    #expect(s.operations[1].lastFrame == queryEnd)
    #expect(s.operations[2].outcome == .unknown)
    #expect(s.operations[2].reason == SessionAnalyzer.incompleteChain)
    #expect(s.operations[2].lastFrame == queryEnd + 2)
  }

  /// A chain abandoned for a RATS: the chain is a cut-off command of its own, the RATS starts
  /// the connect (not the chain's first part).
  @Test func chainAbandonedForRATSIsCutOff() throws {
    var (b, queryEnd) = queriedType4()
    b.reader([0x13, 0x00, 0xA4, 0x04, 0x00, 0x10])
    b.tag([0xA3])
    b.reader([0xE0, 0x80])
    b.tag([0x05, 0x78, 0x80, 0x70, 0x02])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive, .connect])
    #expect(s.operations[1].outcome == .ok)
    #expect(s.operations[2].outcome == .interrupted)
    #expect(s.operations[3].firstFrame == queryEnd + 3)
  }

  /// A chain longer than the hold limit goes out as it comes, and the operation lines still
  /// come once each.
  @Test func chainPastTheHoldLimitKeepsOneLinePerEvent() throws {
    var (b, _) = queriedType4()
    let apdu: [UInt8] =
      [0x90, 0x5A, 0x00, 0x00, 0xFF] + Array(repeating: 0x11, count: 255) + [0x00]
    b.chainedAPDU(
      Array((0..<10).flatMap { _ in apdu }.prefix(SessionAnalysisRun.holdLimit + 300)), part: 1,
      [0x91, 0x00])
    let lines = try streamedTimeline(b)
    #expect(lines.filter { $0.hasPrefix("  ◂ queryNDEFStatus") }.count == 1)
    #expect(lines.filter { $0 == "  ▸ transceive" }.count == 1)
  }
}

/// A Type 4 tag activated and queried (NLEN 16), and the query's last frame.
private func queriedType4() -> (TraceBuilder, Int) {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 0x10)
  return (b, b.frames.count - 1)
}
