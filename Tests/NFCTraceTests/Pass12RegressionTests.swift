import Testing

@testable import NFCTrace

/// Findings of the twelfth review passes (tshark oracle, report auditor): each with the value
/// the standard or datasheet gives.
@Suite struct Pass12RegressionTests {
  /// WUPA, ATQA 0004, one cascade level for the 4-byte `uid`, SAK `sak`.
  private func activateSingle(
    _ b: inout TraceBuilder, sak: UInt8, uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
  ) {
    b.reader([0x52], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([sak])
  }

  /// A MIFARE Classic AUTH answered with a 4-bit NAK was refused: `authenticate failed`, not
  /// ok (NXP MF1S50yyX datasheet: the answer to AUTH is the 4-byte nonce).
  @Test func mifareClassicAuthRefusedByNAKFails() throws {
    var b = TraceBuilder()
    activateSingle(&b, sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x04], crc: false)
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.kind) == [.connect, .authenticate])
    #expect(ops.last?.outcome == .failed)
    #expect(ops.last?.reason?.hasPrefix("AUTH key A block 4") == true)
  }

  /// NAK 5h (transmission error) to an AUTH that the reader sends again and the tag then
  /// answers with its nonce: the authentication went on, nothing failed; without the answer
  /// after it, the NAK fails the operation (NXP MF1S50yyX datasheet §9.3).
  @Test func mifareClassicTransmissionNAKRecoveredByRetry() throws {
    var b = TraceBuilder()
    activateSingle(&b, sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x05], crc: false)
    var once = b
    b.reader([0x60, 0x04])
    b.tag([0x01, 0x02, 0x03, 0x04], crc: false)
    // Only the tag's {at} completes an authentication (MF1S50yyX §10.3): nt alone is unknown.
    #expect(try sessions(b).first?.operations.last?.outcome == .unknown)
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.tag([0xAA, 0xBB, 0xCC, 0xDD], crc: false)
    #expect(try sessions(b).first?.operations.last?.outcome == .ok)
    #expect(try sessions(once).first?.operations.last?.outcome == .failed)
    // An answer to another command (AUTH B block 8) does not make up for the NAKed one.
    once.reader([0x61, 0x08])
    once.tag([0x01, 0x02, 0x03, 0x04], crc: false)
    #expect(try sessions(once).first?.operations.last?.outcome == .failed)
  }

  /// On a tag whose SAK is 00 (Type 2: Ultralight, NTAG), `60 00` is a GET_VERSION with a
  /// stray byte, not a MIFARE Classic AUTH, and its NAK 0 has the NTAG meaning.
  @Test func sixtyOnATypeTwoTagIsNotAClassicAuth() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x60, 0x00])
    b.tag([0x00], crc: false)
    let (decoded, _) = decodeAll(b.frames)
    let command = try #require(decoded.dropLast().last)
    #expect(command.layers.allSatisfy { $0.protocolID != .mifareClassic })
    #expect(command.undecodedReason == "GET_VERSION (60) needs 1 byte, got 2")
    #expect(decoded.last?.innermost?.summary == "NAK 0x0 (invalid argument or page)")
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .failed)
  }

  /// A malformed command APDU (Lc past the data, CLA FF) is still answered with a status word
  /// (ISO/IEC 7816-4 §5.1): the answer is decoded as one and refuses the command.
  @Test func answerToMalformedAPDUIsAStatusWord() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x05, 0x01, 0x02, 0x03], [0x67, 0x00])
    b.apdu([0xFF, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00], [0x6E, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    let answers = decoded.suffix(3).filter { $0.frame.direction == .tag }
    #expect(answers.map { $0.layer(.iso7816)?.field("sw") } == [.string("6700"), .string("6e00")])
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .failed)
    #expect(op.reason == "APDU refused: SW 6700 wrong length (Lc/Le)")
  }

  /// S(PARAMETERS) (PCB F0, F8 with CID; ISO/IEC 14443-4:2016) is an S-block, not a raw byte.
  @Test func sParametersIsAnSBlock() {
    #expect(ISODEPBlock.kind(of: 0xF0) == .sParameters)
    #expect(ISODEPBlock.kind(of: 0xF8) == .sParameters)
    #expect(ISODEPBlock.kind(of: 0xF2) == .sWTX)
    let block = ISODEPBlock([0xF8, 0x01, 0xA0, 0x00])
    #expect(block?.cid == 1 && block?.inf == [0xA0, 0x00])
    #expect(ISODEPBlock([0xF8]) == nil)
    #expect(
      DESFireVersion(hardware: [0x04, 0x01, 0x01, 0x01, 0x00, 0x02, 0x05])?.productName
        == "MIFARE DESFire EV1")
  }

  /// READ_SIG answers 32 bytes (NTAG21x, UL EV1) or 48 (AES/DNA products); 31 is damaged.
  @Test func readSignatureLengthChecked() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x3C, 0x00])
    b.tag([UInt8](repeating: 0x11, count: 31))
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded.last?.undecodedReason == "READ_SIG answer has 31 byte(s), expected 32")
  }

  /// Ultralight C AUTHENTICATE answered with ek(RndB) and never continued: the command was
  /// answered, but the tag is not authenticated (outcome unknown since the protocol review of
  /// 2026-12-07: `ok` read as an authentication that succeeded).
  @Test func ultralightCFirstStepOnlyIsNotAuthenticated() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + [UInt8](repeating: 0, count: 12))
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + [UInt8](repeating: 0x42, count: 8))
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .authenticate && op.outcome == .unknown)
    #expect(
      op.detail("authentication")
        == .string(
          "first step only: the tag answered with ek(RndB), the reader never sent the second "
            + "step, so the tag is not authenticated"))
  }

  /// SEL 93 with NVB 68 (7 bytes with 8 bits: impossible) is a broken anticollision, not a
  /// Type 2 command; a SELECT with a byte after its BCC is flagged (ISO/IEC 14443-3 §6.5.3).
  @Test func invalidNVBAndLongSelect() throws {
    var b = TraceBuilder()
    b.reader([0x26], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x68], crc: false)
    b.reader([0x93, 0x70, 0x01, 0x02, 0x03, 0x04, 0x04, 0x05])
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[2].innermost?.summary == "ANTICOLL CL1 with invalid NVB 68")
    #expect(decoded[2].findings.map(\.code) == ["invalid-nvb"])
    #expect(decoded[3].innermost?.name == "SELECT")
    #expect(decoded[3].findings.map(\.code) == ["select-length"])
    // A SELECT cut short and an NVB that does not match the frame's length (ISO/IEC 14443-3
    // §6.5.3): still anticollision, named so.
    var c = TraceBuilder()
    c.reader([0x26], crc: false)
    c.tag([0x04, 0x00], crc: false)
    c.reader([0x93, 0x70, 0x88, 0x04, 0x5A], crc: false)
    c.reader([0x93, 0x35, 0x88, 0x04, 0x5A], crc: false)
    let (more, _) = decodeAll(c.frames)
    #expect(
      more[2].undecodedReason
        == "SELECT CL1 is shorter than SEL, NVB 70, 4 UID bytes, BCC and CRC_A (5 bytes)")
    #expect(more[3].innermost?.name == "ANTICOLLISION")
    #expect(more[3].findings.first?.message.hasPrefix("NVB 35 announces 4 bytes") == true)
  }

  /// A CC that declares more memory than the product has (CC2 FEh on an NTAG213) and a CC whose
  /// read-access nibble is not 0 are warned (NFC Forum T2T 1.0 §6.1; NXP NTAG213 144 bytes).
  @Test func type2CCValuesTheTagCannotHonour() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(3, [0xE1, 0x10, 0xFE, 0x80, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 9))
    let r = try b.diagnose()
    let exceeds = try #require(r.finding("t2t-cc-exceeds-memory"))
    #expect(exceeds.severity == .warning)
    #expect(
      exceeds.message.hasPrefix(
        "CC2 = fe declares a 2032-byte data area, but the NTAG213 has 144 bytes"))
    #expect(r.finding("t2t-read-access-restricted")?.severity == .warning)
  }

  /// INS 6X/9X are invalid with an interindustry CLA (ISO/IEC 7816-4 §5.1); DESFire's
  /// proprietary CLA 90 uses them (GetVersion 90 60) and is not flagged.
  @Test func invalidInstructionOnlyInTheInterindustryClass() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0x61, 0x00, 0x00], [0x6D, 0x00])
    b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF])
    let (decoded, _) = decodeAll(b.frames)
    let commands = decoded.filter { $0.frame.direction == .reader }.suffix(2)
    #expect(commands.map { $0.findings.map(\.code) } == [["apdu-invalid-ins"], []])
  }

  /// DESFire GetVersion (90 60) names the product: NTAG 424 DNA (type 04, major 30, 416
  /// bytes), MIFARE DESFire EV1 4K (type 01, major 01, storage 18h = 4096 bytes).
  @Test func desfireGetVersionNamesTheProduct() throws {
    for (hardware, name, memory) in [
      ([UInt8]([0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05]), "NTAG 424 DNA", 416),
      ([0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05], "MIFARE DESFire EV1 4K", 4096),
      ([0x04, 0x01, 0x01, 0x33, 0x00, 0x1A, 0x05], "MIFARE DESFire EV3 8K", 8192),
    ] {
      var b = TraceBuilder()
      b.activateType4()
      b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], hardware + [0x91, 0xAF])
      let tag = try #require(try sessions(b).first?.tag)
      #expect(tag.product == name)
      #expect(tag.memoryBytes == memory)
    }
  }

  /// Read protection with AUTH0 = 4: READ 3 answers page 3 then rolls over to pages 0–2 (NXP
  /// NTAG213 datasheet §10.2); those bytes are the UID pages, not pages 4–6.
  @Test func readRollingOverAtAUTH0IsPlacedAtPageZero() throws {
    let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    let page0: [UInt8] = [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22]
    let page2: [UInt8] = [0x33 ^ 0x44 ^ 0x55 ^ 0x66, 0x48, 0x00, 0x00]
    let answer: [UInt8] = [0xE1, 0x10, 0x12, 0x00] + page0 + [0x33, 0x44, 0x55, 0x66] + page2
    #expect(Type2Procedure.wrapAtProtection(answer, uid: uid) == 1)
    #expect(Type2Procedure.wrapAtProtection([UInt8](repeating: 0, count: 16), uid: uid) == nil)
    var b = TraceBuilder()
    b.activateType2(uid: uid, version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(3, answer)
    let memory = try #require(try sessions(b).first?.memory.type2End)
    #expect(memory.known(0, 4) == page0)
    #expect(memory.known(8, 4) == page2)
    #expect(memory.known(16, 4) == nil)
  }

  /// Write access 01h–7Fh is RFU (T4T: 00 granted, 80–FE proprietary, FF none), in the status
  /// reason as in the CC section.
  @Test func type4RFUWriteAccessNamedRFU() {
    let file = CapabilityContainer4.FileControl(
      tlvType: 0x04, fileID: 0xE104, maxSize: 1024, readAccess: 0x00, writeAccess: 0x01)
    let status = TagContents.type4Status(file)
    #expect(status.0 == .readOnly)
    #expect(status.2 == "CC NDEF file write access 01 (RFU)")
    let vendor = CapabilityContainer4.FileControl(
      tlvType: 0x04, fileID: 0xE104, maxSize: 1024, readAccess: 0x00, writeAccess: 0x83)
    #expect(TagContents.type4Status(vendor).2 == "CC NDEF file write access 83 (proprietary)")
  }

  /// NAD and CID against the ATS (ISO/IEC 14443-4 §5.2.6, §7.1.1.3): TC(1) 00 allows neither;
  /// a NAD on the second block of a chain is flagged; ATS RFU bits in TA(1)/TC(1) too.
  @Test func nadAndCIDCheckedAgainstTheATS() throws {
    var b = TraceBuilder()
    b.reader([0x26], crc: false)
    b.tag([0x04, 0x00], crc: false)
    let uid: [UInt8] = [0x08, 0x12, 0x34, 0x56]
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x20])
    b.reader([0xE0, 0x80])
    b.tag([0x05, 0x72, 0x80, 0x40, 0x00])  // TA 80, TB 40, TC 00: no CID, no NAD
    b.reader([0x06, 0x12, 0x00, 0xB0, 0x00, 0x00, 0x02])  // I-block with NAD
    b.reader([0x0A, 0x00, 0x00, 0xB0, 0x00, 0x00, 0x02])  // I-block with CID
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[decoded.count - 2].findings.map(\.code).contains("nad-not-supported"))
    #expect(decoded[decoded.count - 1].findings.map(\.code).contains("cid-not-supported"))
    #expect(ATS([0x05, 0x78, 0x88, 0x40, 0x04]).problems.count == 2)
  }

  /// A native DESFire answer after a command the APDU layer cannot parse is not a status word:
  /// only a 2-byte 6X/9X answer refuses a malformed APDU.
  @Test func nativeAnswerAfterNonAPDUIsNotAStatusWord() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0xAF, 0xA4] + [UInt8](repeating: 0x11, count: 15), [0x00, 0xAA, 0xBB, 0xCC, 0x00, 0x11])
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.outcome == .ok)
  }

  /// DESFire storage below 1 KiB is named in bytes; type 02 is MIFARE Plus.
  @Test func desfireSmallStorageAndMIFAREPlus() {
    #expect(
      DESFireVersion(hardware: [0x04, 0x01, 0x01, 0x01, 0x00, 0x10, 0x05])?.productName
        == "MIFARE DESFire EV1 256B")
    #expect(
      DESFireVersion(hardware: [0x04, 0x02, 0x01, 0x11, 0x00, 0x18, 0x05])?.productName
        == "MIFARE Plus EV1")
    #expect(Type2CCChecks.largestMessage(144) == 142)
    #expect(Type2CCChecks.largestMessage(504) == 500)
  }

  /// An empty reader frame (a listing's blank data cell) is no REQA outside Flipper's
  /// whole-second captures and opens no operation: the activation around it stays one connect.
  @Test func emptyReaderFrameIsNoCommand() throws {
    var b = TraceBuilder()
    b.activateType2()
    var frames = b.frames
    let empty = Frame(
      index: 2, timeNs: frames[1].timeNs + 1000, direction: .reader, data: [], technology: .nfcA,
      location: SourceLocation(file: "built", unit: "frame", record: 3, offset: 0))
    frames.insert(empty, at: 2)
    for i in frames.indices { frames[i].index = i }
    let (decoded, _) = decodeAll(frames)
    #expect(decoded[2].undecodedReason == "empty frame (no data bytes)")
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: frames))
    #expect(run.sessions.first?.operations.map(\.kind) == [.connect])
    #expect(run.sessions.first?.operations.first?.outcome == .ok)
  }

  /// fuzz-pcap crash 03957758 (CI fuzz smoke): a WRITE without answer and the same WRITE
  /// ~1.8e19 ns later trapped on overflow computing the retry gap (CallBoundary.isRetry). The
  /// repeat is no retry: the write is interrupted, and nothing traps.
  @Test func retryGapOverflowDoesNotTrap() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 9))
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    var frames = b.frames
    let n = frames.count
    for i in frames.indices { frames[i].timeNs = i < n - 1 ? Int64.min + Int64(i) : Int64.max }
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first?.operations)
    #expect(ops.last?.kind == .writeNDEF)
    #expect(ops.last?.outcome == .interrupted)
    // diagnose adds each reader frame's duration to its time: saturated at Int64.max.
    let report = try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    #expect(report.sessions.first?.verdicts.last?.verdict == .interrupted)
    #expect(Int64.max.saturatingPlus(1) == .max && Int64.min.saturatingPlus(-1) == .min)
  }

  /// A single-size UID whose first byte is 88 (the cascade tag) completed by SAK 08 is flagged:
  /// 88 only announces another level (ISO/IEC 14443-3 §6.5.4).
  @Test func cascadeTagInTheFinalPartIsFlagged() {
    var b = TraceBuilder()
    activateSingle(&b, sak: 0x08, uid: [0x88, 0x1F, 0x7A, 0x33])
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded.last?.findings.map(\.code) == ["cascade-tag-in-final-part"])
    var normal = TraceBuilder()
    activateSingle(&normal, sak: 0x08)
    #expect(decodeAll(normal.frames).0.last?.findings.isEmpty == true)
  }

  /// The second packet of COMPATIBILITY_WRITE with 4 bytes instead of 16 is named as such,
  /// not as an unknown command 0x00.
  @Test func compatibilityWritePartTwoOfTheWrongLength() {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0xA0, 0x05])
    b.tag([0x0A], crc: false)
    b.reader([0x00, 0x01, 0x02, 0x03])
    let (decoded, _) = decodeAll(b.frames)
    #expect(
      decoded.last?.undecodedReason == "COMPATIBILITY_WRITE part 2 has 4 byte(s), expected 16")
  }
}
