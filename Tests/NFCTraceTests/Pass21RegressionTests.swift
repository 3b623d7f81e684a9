import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the seventeenth session's field-failure pass on Type 4 tags.
@Suite struct Pass21Type4Tests {
  /// An UPDATE of the CC that does not touch its write access byte (an NLEN write sent while
  /// the CC was still selected) is the app's own command, not a writeLock; the tag's 6982 is
  /// explained as a write to the wrong file, with no Core NFC error (sendCommand(apdu:)).
  @Test func ccUpdateOutsideWriteAccessIsNoLock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause == "the app's UPDATE BINARY went to the CC file (SW 6982 to UPDATE CC offset 0 Lc 2)")
    #expect(f.coreNFCError == nil)
  }

  /// An UPDATE of the CC's write access byte (offset 14) stays a writeLock.
  @Test func ccWriteAccessUpdateIsWriteLock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0xFF], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeLock)
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause == "the tag refused an update of its CC file (SW 6982 to UPDATE CC offset 14 Lc 1)")
  }

  /// After a new activation nothing is selected: an UPDATE BINARY at offset 0 before any
  /// SELECT is not taken for NLEN of the NDEF file (that assumption is for captures that
  /// start mid-session), and its 6A82 is explained by the lost selection.
  @Test func updateAfterReactivationWithoutSelectNamesNoFile() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x6A, 0x82])
    let (frames, _) = decodeAll(b.frames)
    let update = try #require(frames.last { $0.frame.direction == .reader })
    #expect(update.innermost?.summary == "UPDATE file (none selected) offset 0 Lc 2")
    #expect(!update.findings.contains { $0.code == "t4t-file-assumed" })
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(
      f.cause
        == "no file was selected since the tag was activated again (SW 6A82 to UPDATE file "
        + "(none selected) offset 0 Lc 2)")
  }
}

/// Findings of the seventeenth session's differential pass against tshark on ISO 14443.
@Suite struct Pass21ISODEPTests {
  /// SAK 20 and no RATS/ATS in the capture: the reader's I-blocks are ISO-DEP (such a tag is
  /// never Type 2), with an `iso-dep-assumed` note; before, every block was a raw "unknown
  /// Type 2 command" and the query was lost.
  @Test func blocksAfterSAK20WithoutRATSAreISODEP() throws {
    var b = TraceBuilder()
    b.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x20)
    b.queryType4(nlen: 0)
    let (frames, _) = decodeAll(b.frames)
    let first = try #require(
      frames.first { $0.frame.direction == .reader && $0.layer(.isoDEP) != nil })
    #expect(first.findings.map(\.code) == ["iso-dep-assumed"])
    #expect(first.innermost?.name == "SELECT NDEF application")
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.ndefStatus?.status == .readWrite)
  }

  /// A capture that starts inside an ISO-DEP session with an R-block or S(WTX) answer (the
  /// sniffer started during a chained or slow exchange): the blocks are ISO-DEP, as a first
  /// I-block already was; before, they were "unknown Type 2 command" and the I-blocks after
  /// them stayed Type 2 too.
  @Test func captureStartingWithAnRBlockIsISODEP() throws {
    var b = TraceBuilder()
    b.reader([0xB3])  // R(NAK) 1
    b.tag([0x03, 0x90, 0x00])
    b.reader([0xF2, 0x01])  // S(WTX) answer
    b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x0F])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames[0].findings.map(\.code) == ["iso-dep-assumed"])
    #expect(frames[0].layer(.isoDEP)?.name == "R(NAK)")
    #expect(frames[1].layer(.isoDEP)?.name == "I-block")
    #expect(frames[2].layer(.isoDEP) != nil)
    #expect(frames[3].innermost?.name == "READ BINARY")
  }

  /// HLTA, then RATS with no WUPA: the halted tag ignores it; the reader is told why.
  @Test func commandAfterHLTAWithoutWUPA() throws {
    var b = TraceBuilder()
    b.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x20)
    b.reader([0x50, 0x00])
    b.reader([0xE0, 0x80])
    b.reader([0x52], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x50, 0x00])
    b.tag([0x04, 0x00], crc: false)  // a tag frame: the HLTA did not halt it
    b.reader([0xE0, 0x80])
    let (frames, _) = decodeAll(b.frames)
    let codes = frames.map { $0.findings.map(\.code) }
    #expect(codes[7] == ["command-while-halted"])
    #expect(
      frames[7].findings.first?.message.hasPrefix("sent after HLTA (frame 6) with no WUPA between")
        == true)
    #expect(codes.joined().filter { $0 == "command-while-halted" }.count == 1)
  }

  /// A MIFARE Classic command on a SAK 28 tag (Classic and ISO 14443-4) stays Classic: RESTORE
  /// `C2` + block is no S(DESELECT).
  @Test func restoreOnSAK28StaysClassic() throws {
    var b = TraceBuilder()
    b.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x28)
    b.reader([0xC2, 0x04])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames.last?.layer(.isoDEP) == nil)
  }

  /// RATS unanswered in the capture (or answered by a damaged ATS), then I-blocks the tag
  /// answers: the reader got the ATS (it sends blocks only after one), so connect is ok.
  @Test func iBlocksAfterMissedATSMeanConnectOK() throws {
    var b = TraceBuilder()
    b.activateType4(answerRATS: false)
    b.queryType4(nlen: 0)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.outcome) == [.ok, .ok])
    #expect(s.operations[0].unansweredFrames.isEmpty)

    var damaged = TraceBuilder()
    damaged.activateType4(answerRATS: false)
    damaged.tag([0x05, 0x78, 0x80, 0x70, 0x02], badCRC: true)
    damaged.queryType4(nlen: 0)
    #expect(try sessions(damaged).first?.operations.first?.outcome == .ok)
  }

  /// A command whose answer the capture missed (the reader's next I-block toggled) is not
  /// counted as unanswered (docs/json.md `answer-not-captured`).
  @Test func answerNotCapturedIsNotUnanswered() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], nil)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.last)
    #expect(query.unansweredFrames.isEmpty)
    #expect(query.outcome == .unknown)
  }
}

/// Findings of the seventeenth session's field-failure pass on write outcomes.
@Suite struct Pass21WriteTests {
  /// A Type 4 write of NLEN 0 and nothing else over a tag that held a message: the write
  /// succeeded, but the tag is now empty (readNDEF gives 403): `ndef-erased`. Before, the
  /// verdict was "no problem found".
  @Test func nlenZeroAloneIsAnErase() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x1C)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    let report = try b.diagnose()
    let f = try #require(report.finding("ndef-erased"))
    #expect(f.severity == .warning)
    #expect(f.cause == "the write left the NLEN at 0: the tag holds an empty NDEF message")
    #expect(f.frames.count == 1)
  }

  /// A Type 2 write of an empty NDEF TLV (`03 00 FE`) is an erase too; a write of a real
  /// message is not.
  @Test func emptyTLVIsAnEraseAndAMessageIsNot() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54]))
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    #expect(try b.diagnose().finding("ndef-erased")?.frames.count == 1)

    var w = TraceBuilder()
    w.activateType2(version: ntag213Version)
    w.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    w.write(4, [0x03, 0x00, 0xD1, 0x01])
    w.write(5, [0x01, 0x54, 0x00, 0xFE])
    w.write(4, [0x03, 0x04, 0xD1, 0x01])
    #expect(try w.diagnose().finding("ndef-erased") == nil)
  }
}

/// Findings of the seventeenth session's field-failure pass on Type 2 passwords.
@Suite struct Pass21PasswordTests {
  /// PWD_AUTH answered NAK 4 with ACCESS never read: a wrong password or AUTHLIM reached
  /// (sources disagree on NAK 4, nfc-facts §10) — an error naming both, since the second is
  /// for good; a NAK 0 is a wrong password, a warning.
  @Test func pwdAuthNAK4WithoutACCESSNamesBothCauses() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.reader([0x1B, 0x11, 0x22, 0x33, 0x44])
    b.add4Bit(0x04)
    let f = try #require(try b.diagnose().finding("authentication-failed"))
    #expect(f.severity == .error)
    #expect(
      f.cause
        == "the tag refused PWD_AUTH with NAK 4 (auth-counter/not allowed): a wrong password, "
        + "or its authentication limit (AUTHLIM) reached")

    var wrong = TraceBuilder()
    wrong.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    wrong.reader([0x1B, 0x11, 0x22, 0x33, 0x44])
    wrong.add4Bit(0x00)
    #expect(try wrong.diagnose().finding("authentication-failed")?.severity == .warning)
  }
}

extension Pass21Type4Tests {
  /// A message larger than the NDEF file, written in MLc chunks: the tag refuses the chunk
  /// past the file's end with 6A86. The cause is the size (`t4t-write-past-file`, no Core
  /// NFC error: writeNDEF would have stopped at 402), not a wrong offset.
  @Test func offsetRefusedPastTheFileIsAWritePastTheFile() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(maxSize: 0x0040)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00, 0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x34] + Array(repeating: 0x71, count: 0x34), [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x36, 0x20] + Array(repeating: 0x71, count: 0x20), [0x6A, 0x86])
    let report = try b.diagnose()
    let f = try #require(report.finding("t4t-write-past-file"))
    #expect(f.coreNFCError == nil)
    #expect(report.finding("t4t-offset-out-of-range") == nil)
  }
}

extension Pass21Type4Tests {
  /// Write access 80 (proprietary) in the CC and the UPDATE refused with 6982: the fix is the
  /// vendor's access condition, not "use another tag".
  @Test func proprietaryWriteAccessGetsTheVendorFix() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: 0x80, nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause
        == "the tag refused a write its CC puts under a proprietary condition (SW 6982 to "
        + "UPDATE NLEN 0)")
    #expect(f.fix.hasPrefix("The NDEF file is writable only after the vendor's access condition"))
  }
}

extension Pass21WriteTests {
  /// The write's last answer seen only damaged (CRC failed), twice, and nothing after: the
  /// operation is `unknown` and so is its verdict (it was `interrupted`, which says the tag
  /// left; the tag carried the command out).
  @Test func lastAnswerDamagedIsAnUnknownVerdict() throws {
    var b = updateAnsweredDamaged()
    b.tag([0x03, 0x90, 0x00], badCRC: true)
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.outcome == .unknown)
    #expect(write.detail("last_answer_damaged") == .int(b.frames.count - 1))
    let verdict = try #require(try b.diagnose().sessions.first?.verdicts.last)
    #expect(verdict.verdict == .unknown)
  }
}

extension Pass21WriteTests {
  /// The tag asks for more time (S(WTX)) during an UPDATE, then goes silent: the UPDATE it was
  /// working on is in the evidence, not only the reader's WTX answer left unanswered.
  @Test func wtxThenSilenceKeepsTheCommandInTheEvidence() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.reader([0x02, 0x00, 0xD6, 0x00, 0x02, 0x04, 0xD1, 0x01, 0x00, 0x10])
    let update = b.frames.count - 1
    b.tag([0xF2, 0x01])
    b.reader([0xF2, 0x01])
    let f = try #require(try b.diagnose().finding("write-interrupted"))
    #expect(f.frames.contains(update))
    #expect(f.frames.last == b.frames.count - 1)
    #expect(f.frames == f.frames.sorted())
  }
}

extension Pass21ISODEPTests {
  /// An I-block after S(DESELECT) on a SAK 20 tag is still ISO-DEP (it was an "unknown Type 2
  /// command"), with the note that no link is up.
  @Test func iBlockAfterDeselectIsISODEP() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0xC2])
    b.tag([0xC2])
    b.reader([0x03, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03])
    let (frames, _) = decodeAll(b.frames)
    let last = try #require(frames.last)
    #expect(last.innermost?.name == "SELECT CC file")
    #expect(last.findings.first?.message.contains("since S(DESELECT)") == true)
  }

  /// An empty I-block answering a command APDU lacks the mandatory SW1 SW2; an empty one
  /// answering an empty one (a presence check) is fine.
  @Test func emptyAnswerToAnAPDUIsMalformed() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.reader([0x02, 0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
    b.tag([0x02])
    b.reader([0x03])
    b.tag([0x03])
    let (frames, _) = decodeAll(b.frames)
    let n = frames.count
    #expect(frames[n - 3].findings.map(\.code) == ["malformed-apdu"])
    #expect(frames[n - 1].findings.isEmpty)
  }

  /// A tag with SAK 00 (not ISO 14443-4) answering RATS gets a note.
  @Test func atsAfterSAK00IsNoted() throws {
    var b = TraceBuilder()
    b.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x00)
    b.reader([0xE0, 0x80])
    b.tag([0x05, 0x78, 0x80, 0x70, 0x02])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames.last?.findings.map(\.code) == ["ats-without-iso14443-4"])
  }
}

extension Pass21ISODEPTests {
  /// SELECT CL2 with no CL1 in the activation (the capture missed it): the UID is not whole,
  /// which a finding says (ISO/IEC 14443-3 §6.5.3: anticollision starts at cascade level 1).
  @Test func cl2WithoutCL1IsFlagged() throws {
    var b = TraceBuilder()
    b.add(.reader, [0x52], crc: false, bits: 7)
    b.tag([0x44, 0x00], crc: false)
    let cl2: [UInt8] = [0x33, 0x44, 0x55, 0x66]
    b.reader([0x95, 0x70] + cl2 + [TraceBuilder.bcc(cl2)])
    b.tag([0x00])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames.last?.findings.map(\.code).contains("cascade-level-missing") == true)
    var whole = TraceBuilder()
    whole.activateType2()
    let (ok, _) = decodeAll(whole.frames)
    #expect(!ok.contains { $0.findings.contains { $0.code == "cascade-level-missing" } })
  }
}

/// Findings of the seventeenth session's JSON audit on technologies.
@Suite struct Pass21TechnologyTests {
  /// The public Proxmark3 iCLASS sniff (a `.trace` does not say its technology): its frames
  /// are iCLASS from the ACTALL on, kept raw without CRC_A findings or Type 2 decodes.
  @Test func proxmarkIClassSniffIsIClass() throws {
    let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_iclass_sniff.trace"))
    var importer = try Proxmark3BinaryImporter(input: input)
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    let (decoded, _) = decodeAll(frames)
    let data = decoded.filter { $0.frame.direction != .event }
    #expect(data.allSatisfy { $0.technology == .iClass })
    #expect(!data.contains { $0.findings.contains { $0.code == "bad-crc" } })
    #expect(data.first?.undecodedReason == "HID iCLASS not decoded yet")
  }

  /// A type B capture that starts inside the ISO-DEP session, in a source that does not say
  /// the technology (here NFC-Lab's frames written as a Proxmark3 `.trace`): the reader's
  /// I-block carrying an APDU with a valid CRC_B opens an ISO-DEP link over type B, as the
  /// NFC-Lab JSON of the same frames does; before, every frame was "CRC_B verifies … not
  /// decoded yet" (or, with the type A parity `convert` wrote, bad CRC_A and Type 2 commands).
  @Test func typeBCaptureStartingMidSessionInAProxmarkTrace() throws {
    let frames = try NFCLabJSON.frames("test_NFC-B_106kbps_002.json").map {
      var f = $0
      f.technology = .nfcB
      return f
    }
    let trace = Proxmark3TraceWriter.encode(frames)
    // Type B has no parity bits: the writer zero-fills them, as the Proxmark3 client does.
    #expect(trace[(8 + 9)..<(8 + 9 + 2)].allSatisfy { $0 == 0 })
    var importer = try Proxmark3BinaryImporter(input: TraceInput(path: "b.trace", bytes: trace))
    var imported: [Frame] = []
    while let f = try importer.next() { imported.append(f) }
    let (decoded, _) = decodeAll(imported)
    #expect(decoded[0].findings.map(\.code) == ["iso-dep-assumed"])
    #expect(decoded[0].innermost?.name == "GET DATA")
    #expect(decoded[1].innermost?.name == "GET DATA response")
    #expect(decoded.allSatisfy { $0.frame.crc == .ok })
  }

  /// An ISO 15693 request with flags `02` (an I-block's PCB) and CRC_B's polynomial is not
  /// taken for a type B I-block: READ SINGLE BLOCK `02 20 05` carries no APDU.
  @Test func iso15693RequestIsNoTypeBBlock() {
    var b = TraceBuilder()
    b.reader([0x02, 0x20, 0x05], crc: false)
    var frames = b.frames
    frames[0].data = CRC.appendingCRCB([0x02, 0x20, 0x05])
    frames[0].technology = .unknown
    let (decoded, _) = decodeAll(frames)
    #expect(decoded[0].layer(.isoDEP) == nil)
  }

  /// Type B blocks that carry a CID or NAD the tag's ATQB says it does not support are
  /// flagged once per link, as type A checks them against the ATS (they were not flagged).
  @Test func typeBBlocksCheckedAgainstTheATQB() {
    let (out, _) = decodeAll(
      typeB([
        (.reader, "050008"), (.tag, "5011223344000000000081 70"),
        (.reader, "1d1122334400080100"), (.tag, "00"),
        (.reader, "0a000200a4040007d276000085010100"), (.tag, "0a009000"),
        (.reader, "0b0000a4000c02e103"), (.tag, "0b009000"),
        (.reader, "060200b0000002"), (.tag, "0290009000"),
      ]))
    let codes = out.map { $0.findings.map(\.code) }
    #expect(codes[4] == ["cid-not-supported"])
    #expect(!codes[6].contains("cid-not-supported"))
    #expect(codes[8].contains("nad-not-supported"))
    #expect(codes.joined().filter { $0 == "cid-not-supported" }.count == 1)
  }

  /// An ATTRIB answer whose CID is not the one ATTRIB assigned (ISO/IEC 14443-3 §7.11).
  @Test func attribAnswerWithAnotherCID() {
    func codes(_ answer: String, atqb: String) -> [String] {
      let frames = typeB([
        (.reader, "050008"), (.tag, atqb), (.reader, "1d1122334400080102"), (.tag, answer),
      ])
      return decodeAll(frames).0[3].findings.map(\.code)
    }
    let withCID = "5011223344000000000081 71"
    #expect(codes("03", atqb: withCID) == ["attrib-answer-cid"])
    #expect(codes("02", atqb: withCID) == [])
    #expect(codes("00", atqb: "5011223344000000000081 70") == ["cid-not-supported"])
  }

  /// A type A poll after iCLASS frames is type A again.
  @Test func reqaEndsIClass() throws {
    var b = TraceBuilder()
    b.add(.reader, [0x0A], crc: false)
    b.activateType2()
    var frames = b.frames
    for i in frames.indices { frames[i].technology = .unknown }
    let (decoded, _) = decodeAll(frames)
    #expect(decoded[0].technology == .iClass)
    #expect(decoded.last?.technology == .nfcA)
    #expect(decoded.last?.innermost?.name == "SAK")
  }
}

/// Findings of the nineteenth session.
@Suite struct Pass22RegressionTests {
  /// A Type 2 capture that starts mid-session (no ATQA, no SAK): after a COMPATIBILITY_WRITE
  /// or SECTOR_SELECT, the second part starting `03` (an NDEF TLV, sector 3) is Type 2 data,
  /// not an ISO-DEP I-block; before, the link switched to ISO-DEP for good.
  @Test func type2DataMidSessionIsNoISODEPBlock() throws {
    var b = TraceBuilder()
    b.reader([0xA0, 0x04])
    b.add4Bit(0x0A)
    b.reader([
      0x03, 0x0B, 0xD1, 0x01, 0x07, 0x54, 0x02, 0x65, 0x6E, 0x61, 0x62, 0x63, 0x64, 0xFE, 0, 0,
    ])
    b.add4Bit(0x0A)
    b.reader([0xC2, 0xFF])
    b.add4Bit(0x0A)
    b.reader([0x03, 0x00, 0x00, 0x00])
    b.reader([0x30, 0x04])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames.allSatisfy { $0.layer(.isoDEP) == nil })
    #expect(!frames.contains { $0.findings.contains { $0.code == "iso-dep-assumed" } })
    #expect(frames[2].innermost?.name == "COMPATIBILITY_WRITE")
    #expect(frames[6].innermost?.summary.hasPrefix("SECTOR_SELECT") == true)
    // Without a Type 2 command first, the same I-block shape is still taken as ISO-DEP.
    var iso = TraceBuilder()
    iso.reader([0x03, 0x00, 0xB0, 0x00, 0x00, 0x0F])
    #expect(decodeAll(iso.frames).0[0].findings.map(\.code) == ["iso-dep-assumed"])
  }
}

extension Pass22RegressionTests {
  /// CC3 F0h: its read-access nibble is Fh; the message said "15h" (the value in decimal).
  @Test func readAccessNibbleIsHex() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(3, [0xE1, 0x10, 0x12, 0xF0, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 9))
    let f = try #require(try b.diagnose().finding("t2t-read-access-restricted"))
    #expect(f.message.hasPrefix("CC3 = f0: its read-access nibble is Fh, and only 0h grants"))
  }
}
