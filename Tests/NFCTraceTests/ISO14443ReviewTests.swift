import NFCTrace
import TestSupport
import Testing

/// Findings of a review of the ISO/IEC 14443-3/-4 decoding (captures in scratch-14443).
@Suite struct ISO14443ReviewTests {
  static let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04]
  static let part = uid + [TraceBuilder.bcc(uid)]

  /// Pairs the decoded frames as the pipeline does.
  static func paired(_ frames: [DecodedFrame]) -> [DecodedFrame] {
    var pairer = TransactionPairer()
    return frames.flatMap { pairer.push($0) } + pairer.flush()
  }

  /// The tag's ATQA, then anticollision and SELECT of `uid` answered by SAK `sak`, the
  /// REQA/WUPA before the ATQA not captured.
  static func activationWithoutPoll(_ b: inout TraceBuilder, sak: UInt8, gapUs: Int64? = nil) {
    b.tag([0x44, 0x00], crc: false, gapUs: gapUs)
    b.reader([0x93, 0x20], crc: false)
    b.tag(part, crc: false)
    b.reader([0x93, 0x70] + part)
    b.tag([sak])
  }

  /// d4: a 2-byte tag frame 3 ms after HLTA answers a WUPA the sniffer missed (a halted tag
  /// answers only WUPA, ISO/IEC 14443-3 §6.2): the ATQA of a new activation, not a Type 2
  /// answer to the HLTA cut short; the HLTA stays unanswered and a new session starts.
  @Test func atqaAfterHLTAStartsAnActivationWhosePollWasMissed() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x00)
    b.reader([0x50, 0x00])
    Self.activationWithoutPoll(&b, sak: 0x00, gapUs: 3000)
    let frames = Self.paired(decodeAll(b.frames).0)
    let atqa = frames[7]
    #expect(atqa.layers.map(\.name) == ["ATQA"])
    #expect(atqa.innermost?.summary == "ATQA 0x0044 (UID size double, bit-frame anticollision)")
    #expect(atqa.frame.crc == .absent)
    #expect(atqa.startsActivation)
    #expect(atqa.findings.map(\.code) == ["poll-not-captured"])
    #expect(atqa.findings.first?.severity == .info)
    #expect(atqa.findings.first?.frames == [7])
    #expect(
      atqa.findings.first?.message
        == "2-byte tag frame without CRC_A and no REQA/WUPA before it: the ATQA of a new "
        + "activation; the tag halted by the HLTA of frame 6 answers only WUPA (ISO/IEC 14443-3 "
        + "§6.3, HALT state), so the reader sent a WUPA the capture does not have (sniffers "
        + "often miss 7-bit short frames)")
    #expect(frames[6].response == .noAnswerExpected)
    #expect(atqa.response == nil)
    #expect(frames[8].innermost?.summary == "ANTICOLL CL1")
    #expect(frames[9].innermost?.summary == "UID CL1 01 02 03 04 (BCC ok)")
    #expect(frames[11].completedUID == Self.uid)
    #expect(frames.allSatisfy { f in !f.findings.contains { $0.code == "frame-too-short" } })
    let s = try sessions(b)
    #expect(s.map(\.info.firstFrame) == [0, 7])
    #expect(s.map(\.info.lastFrame) == [6, 11])
    #expect(s.map(\.info.uid) == [Self.uid, Self.uid])
    #expect(s[1].operations.map(\.kind) == [.connect])
    #expect(s[1].tag.sak == 0x00)
  }

  /// After an answered S(DESELECT) the tag is halted too (ISO/IEC 14443-4 §8): its ATQA is a
  /// new activation whose WUPA was missed. Within 2 ms of HLTA a 2-byte answer is the tag not
  /// acknowledging it (§6.4.3), as before.
  @Test func atqaAfterDeselectStartsAnActivationWhosePollWasMissed() throws {
    var b = TraceBuilder()
    b.activateType4(uid: Self.uid)
    b.reader([0xC2])
    b.tag([0xC2])
    Self.activationWithoutPoll(&b, sak: 0x20, gapUs: 3000)
    let frames = Self.paired(decodeAll(b.frames).0)
    #expect(frames[10].layers.map(\.name) == ["ATQA"])
    #expect(frames[10].startsActivation)
    #expect(frames[10].findings.map(\.code) == ["poll-not-captured"])
    #expect(
      frames[10].findings.first?.message.contains(
        "the tag halted by the S(DESELECT) of frame 8 answers only WUPA") == true)
    #expect(frames[10].response == nil)
    #expect(frames[14].completedUID == Self.uid)
    #expect(try sessions(b).map(\.info.firstFrame) == [0, 10])

    var quick = TraceBuilder()
    quick.activateSingle(Self.uid, sak: 0x00)
    quick.reader([0x50, 0x00])
    quick.tag([0x44, 0x00], crc: false, gapUs: 100)
    let answer = decodeAll(quick.frames).0[7]
    #expect(answer.undecodedReason?.hasPrefix("answer to HLTA") == true)
    #expect(!answer.startsActivation)
  }

  /// A capture that starts with the tag's ATQA: its poll was not captured (the existing
  /// recognition of an ATQA before any SAK now says so); after a poll and an Apple ECP frame
  /// the ATQA answers that poll and nothing is said.
  @Test func atqaWithNoCommandBeforeIt() throws {
    var b = TraceBuilder()
    Self.activationWithoutPoll(&b, sak: 0x00)
    let frames = decodeAll(b.frames).0
    #expect(frames[0].layers.map(\.name) == ["ATQA"])
    #expect(frames[0].startsActivation)
    #expect(frames[0].findings.map(\.code) == ["poll-not-captured"])
    #expect(
      frames[0].findings.first?.message
        == "2-byte tag frame without CRC_A and no REQA/WUPA before it: the ATQA of a new "
        + "activation; a tag sends its ATQA only to answer REQA or WUPA (ISO/IEC 14443-3 "
        + "§6.4.2), so the reader sent one the capture does not have (sniffers often miss 7-bit "
        + "short frames)")
    #expect(frames[4].completedUID == Self.uid)

    let withECP = decodeAll([
      TestFrame.make(0, .reader, [0x52], bits: 7),
      TestFrame.make(
        1, .reader,
        [0x6A, 0x02, 0xC8, 0x01, 0x00, 0x03, 0x00, 0x02, 0x79, 0x00, 0x00, 0x00, 0x00, 0xC2, 0xD8]),
      TestFrame.make(2, .tag, [0x04, 0x00]),
    ]).0
    #expect(withECP[2].layers.map(\.name) == ["ATQA"])
    #expect(withECP[2].findings.isEmpty)
    #expect(!withECP[2].startsActivation)
  }

  /// d3: RATS after an answered S(DESELECT) with no WUPA between reaches a halted tag (ISO/IEC
  /// 14443-4 §8; it answers only WUPA, ISO/IEC 14443-3 §6.2), as a command after HLTA does.
  @Test func ratsAfterDeselectIsSentWhileHalted() throws {
    var b = TraceBuilder()
    b.activateType4(uid: Self.uid)
    b.reader([0xC2])
    b.tag([0xC2])
    b.reader([0xE0, 0x80])
    b.tag([0x05, 0x78, 0x80, 0x70, 0x02])
    let frames = decodeAll(b.frames).0
    #expect(frames[10].innermost?.name == "RATS")
    #expect(frames[10].findings.map(\.code) == ["command-while-halted"])
    #expect(frames[10].findings.first?.frames == [10])
    #expect(
      frames[10].findings.first?.message
        == "sent after S(DESELECT) (frame 8, answered) with no WUPA between: a tag that "
        + "answered the S(DESELECT) is halted (ISO/IEC 14443-4 §8) and ignores everything but "
        + "WUPA (ISO/IEC 14443-3 §6.3, HALT state), so an answer means it did not take it; wake "
        + "and select the tag again before commands")
    // A WUPA between wakes the tag: nothing to say.
    var woken = TraceBuilder()
    woken.activateType4(uid: Self.uid)
    woken.reader([0xC2])
    woken.tag([0xC2])
    woken.activateType4(uid: Self.uid)
    #expect(decodeAll(woken.frames).0.allSatisfy { $0.findings.isEmpty })
    // An S(DESELECT) the tag did not answer halts nothing.
    var unanswered = TraceBuilder()
    unanswered.activateType4(uid: Self.uid)
    unanswered.reader([0xC2])
    unanswered.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
    #expect(decodeAll(unanswered.frames).0[9].findings.isEmpty)
  }

  /// d2: an ATS longer than the FSD of its RATS (TL shall not exceed FSD − 2, ISO/IEC 14443-4
  /// §5.2.1) gets `ats-exceeds-fsd` (not `frame-exceeds-fsd`: an ATS cannot be chained, so the
  /// chaining fix of `response-exceeds-fsd` does not apply); one that fits does not.
  @Test func atsLongerThanFSD() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x20)
    b.reader([0xE0, 0x00])
    b.tag([0x14, 0x78, 0x80, 0x70, 0x02] + Array(repeating: 0x80, count: 15))
    let ats = decodeAll(b.frames).0[7]
    #expect(ats.innermost?.name == "ATS")
    #expect(ats.findings.map(\.code) == ["ats-exceeds-fsd"])
    #expect(ats.findings.first?.severity == .error)
    #expect(ats.findings.first?.frames == [7])
    #expect(
      ats.findings.first?.message
        == "ATS of 22 bytes (with CRC) exceeds FSD 16 of the RATS: TL shall not exceed FSD − 2 "
        + "(ISO/IEC 14443-4 §5.2.1)")
    // TL 14 = FSD 16 − 2: the largest ATS FSD 16 allows.
    var fits = TraceBuilder()
    fits.activateSingle(Self.uid, sak: 0x20)
    fits.reader([0xE0, 0x00])
    fits.tag([0x0E, 0x78, 0x80, 0x70, 0x02] + Array(repeating: 0x80, count: 9))
    #expect(decodeAll(fits.frames).0[7].findings.isEmpty)
  }

  /// d6: S-block PCBs with the RFU b6–b5 `01` (`D2`) or `10` (`E2`) are invalid blocks a PICC
  /// ignores (ISO/IEC 14443-4 §7.1.1.1, §7.5.4): `rfu-pcb`; S(DESELECT) and S(WTX) are not.
  @Test func rfuSBlockPCBs() throws {
    var b = TraceBuilder()
    b.activateType4(uid: Self.uid)
    b.reader([0xD2])
    b.reader([0xE2])
    b.reader([0xEA, 0x00])
    b.reader([0xF2, 0x01])
    let frames = decodeAll(b.frames).0
    #expect(frames[8].innermost?.summary == "S-block 0xd2")
    #expect(frames[8].findings.map(\.code) == ["rfu-pcb"])
    #expect(frames[8].findings.first?.severity == .warning)
    #expect(
      frames[8].findings.first?.message
        == "S-block PCB d2 has b6–b5 = 01, which is RFU (00 is DESELECT, 11 WTX or PARAMETERS; "
        + "ISO/IEC 14443-4 §7.1.1.1): an invalid block, which a PICC ignores without answering "
        + "(§7.5.4)")
    #expect(frames[9].findings.map(\.code) == ["rfu-pcb"])
    #expect(frames[9].findings.first?.message.hasPrefix("S-block PCB e2 has b6–b5 = 10") == true)
    #expect(frames[10].innermost?.summary == "S-block 0xea, CID 0")
    #expect(frames[10].findings.map(\.code) == ["rfu-pcb"])
    #expect(frames[11].innermost?.name == "S(WTX)")
    #expect(frames[11].findings.isEmpty)
  }

  /// d3: PPS is allowed only as the reader's first request after the ATS (ISO/IEC 14443-4
  /// §5.6): one after an I-block, or after a PPS answered, is `pps-not-first`; the first one
  /// (sent again while unanswered) is not.
  @Test func ppsAfterTheFirstRequestSinceTheATS() throws {
    let ats: [UInt8] = [0x05, 0x78, 0x77, 0x70, 0x02]  // TA(1) 77: DS/DR 2, 4, 8
    let pps: [UInt8] = [0xD0, 0x11, 0x0A]
    var late = TraceBuilder()
    late.activateSingle(Self.uid, sak: 0x20)
    late.reader([0xE0, 0x80])
    late.tag(ats)
    late.apdu([0x00, 0xA4, 0x04, 0x00, 0x02, 0xE1, 0x03], [0x90, 0x00])
    late.reader(pps)
    late.tag([0xD0])
    let frames = decodeAll(late.frames).0
    #expect(frames[10].innermost?.name == "PPS")
    #expect(frames[10].findings.map(\.code) == ["pps-not-first"])
    #expect(frames[10].findings.first?.frames == [10])
    #expect(
      frames[10].findings.first?.message
        == "PPS request after other requests since the ATS (or after a PPS answered): PPS is "
        + "allowed only as the reader's first request after the ATS (ISO/IEC 14443-4 §5.6); a tag "
        + "past it takes the PPS as an invalid block and does not answer")
    #expect(frames[11].findings.isEmpty)

    var first = TraceBuilder()
    first.activateSingle(Self.uid, sak: 0x20)
    first.reader([0xE0, 0x80])
    first.tag(ats)
    first.reader(pps)
    first.reader(pps)
    first.tag([0xD0])
    first.reader(pps)
    let out = decodeAll(first.frames).0
    #expect(out[8].findings.isEmpty && out[9].findings.isEmpty && out[10].findings.isEmpty)
    #expect(out[11].findings.map(\.code) == ["pps-not-first"])
  }

  /// d5: a SAK with the cascade bit at CL3 announces a level that does not exist (a UID has at
  /// most 10 bytes, ISO/IEC 14443-3 §6.5.4): `cascade-bit-at-cl3`, and the UID is taken as
  /// the three parts selected (the CL3 part's 88 then is `cascade-tag-in-final-part`), so the
  /// report shows the SAK and UID seen.
  @Test func cascadeBitAtCL3() throws {
    var b = TraceBuilder()
    b.add(.reader, [0x52], crc: false, bits: 7)
    b.tag([0x84, 0x00], crc: false)
    let levels: [(UInt8, [UInt8])] = [
      (0x93, [0x88, 0xAA, 0xBB, 0xCC]), (0x95, [0x88, 0xDD, 0xEE, 0xFF]),
      (0x97, [0x88, 0x02, 0x03, 0x04]),
    ]
    for (sel, part) in levels {
      b.reader([sel, 0x20], crc: false)
      b.tag(part + [TraceBuilder.bcc(part)], crc: false)
      b.reader([sel, 0x70] + part + [TraceBuilder.bcc(part)])
      b.tag([0x04])
    }
    let frames = decodeAll(b.frames).0
    let sak = frames[13]
    #expect(sak.findings.map(\.code) == ["cascade-bit-at-cl3", "cascade-tag-in-final-part"])
    #expect(
      sak.findings.first?.message
        == "SAK 0x04 at CL3 has the cascade bit (b3) set, but CL3 is the last cascade level: a "
        + "UID has at most 10 bytes (ISO/IEC 14443-3 §6.5.4); the UID is taken as the 10 bytes "
        + "selected")
    #expect(
      sak.innermost?.summary
        == "SAK 0x04 (cascade bit set at CL3, the last level: UID taken as complete)")
    #expect(sak.innermost?.field("uid_complete") == .bool(true))
    let uid: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x88, 0x02, 0x03, 0x04]
    #expect(sak.completedUID == uid)
    // The SAKs of CL1 and CL2 still announce the next level.
    #expect(frames[5].findings.isEmpty && frames[9].findings.isEmpty)
    #expect(frames[5].completedUID == nil && frames[9].completedUID == nil)
    let s = try sessions(b)
    #expect(s.map(\.info.uid) == [uid])
    #expect(s.first?.tag.sak == 0x04)
    #expect(s.first?.tag.uid == uid)
  }
}
