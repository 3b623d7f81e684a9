import Foundation
import Testing

@testable import NFCTrace

/// Findings of the twelfth session: each with the value the standard or the stack gives.
/// Pages 0–3 of an NTAG213 with UID 04 11 22 33 44 55 66 (BCC0 per the datasheet's 88h
/// rule, BCC1) and the CC `E1 10 12 00`.
let ntag213Pages0To3: [UInt8] =
  [0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x12, 0x00]

@Suite struct Pass16SessionTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let selectApp: [UInt8] =
    [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

  /// A Type 4 write finished (final NLEN answered 9000); the stack's next procedure starts
  /// with SELECT NDEF application, which the tag, taken away, leaves unanswered. writeNDEF had
  /// returned: it is ok, and the silence interrupts the next operation (a query), not the
  /// write (it was `interrupted`, Core NFC 100, on a write that succeeded).
  @Test func selectAfterAFinishedWriteStartsTheNextProcedure() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], Self.ok)
    b.apdu(Self.selectApp, nil)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF, .queryNDEFStatus])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok, .interrupted])
    let report = try b.diagnose()
    #expect(report.finding("write-interrupted") == nil)
    // The stack's next NDEF detection after the write, unanswered: a note, nothing to fix.
    #expect(report.finding("read-interrupted")?.severity == .info)
  }

  /// The same after a readNDEF that read the whole message; a write that never set its NLEN
  /// still owns the SELECT that follows (the stack gave it up: unfinished, not ok).
  @Test func selectAfterAFinishedReadOrAnUnfinishedWrite() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 3)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x03], [0xD0, 0x00, 0x00] + Self.ok)
    b.apdu(Self.selectApp, nil)
    let read = try #require(try sessions(b).first)
    #expect(
      read.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .queryNDEFStatus])
    #expect(read.operations[2].outcome == .ok)

    var w = TraceBuilder()
    w.activateType4()
    w.queryType4()
    w.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    w.apdu(Self.selectApp, nil)
    let write = try #require(try sessions(w).first)
    #expect(write.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(write.operations.last?.outcome == .interrupted)
  }
}

@Suite struct Pass16DiagnoseTests {
  /// A write of one UPDATE to a tag whose CC says read-only: the operation's first frame is its
  /// last write, cited once (it was listed twice).
  @Test func evidenceFramesAreCitedOnce() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: 0xFF)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x05, 0x00, 0x03, 0xD0, 0x00, 0x00], [0x90, 0x00])
    let f = try #require(try b.diagnose().finding("write-to-read-only-tag"))
    #expect(f.frames == [18, 19])
  }
}

@Suite struct Pass16Type2Tests {
  /// A Proxmark3 sniff of a real NTAG215 printed its ACKs as `0a(3)` (and an old client's
  /// listing, with no count, gives 3 from the duration): a 1-byte answer to WRITE that fits in
  /// 4 bits is the ACK all the same (NTAG213/215/216 datasheet §9.3). It was "raw", and the
  /// write failed with Core NFC 401.
  @Test(arguments: [3, 8, 5])
  func miscountedACKIsAnACK(_ bits: Int) throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x03, 0xD0, 0x00], .none)
    b.add4Bit(0x0A, bits: bits)
    b.write(5, [0x00, 0xFE, 0x00, 0x00], .none)
    b.add4Bit(0x0A, bits: bits)
    let (frames, _) = decodeAll(b.frames)
    #expect(frames[15].innermost?.name == "ACK")
    #expect(frames[17].innermost?.name == "ACK")
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .ok)
  }
}

@Suite struct Pass16ISODEPTests {
  /// A MIFARE Classic (SAK 08) answers a phone's RATS with a 4-bit NAK 4 (MF1S50 datasheet
  /// §9.3), as real Proxmark3 sniffs show: no ATS (it was decoded as an ATS with TL 4 and a
  /// `malformed-ats` finding), and the link stays ISO 14443-3.
  @Test func fourBitAnswerToRATSIsANAK() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x2B, 0x1E, 0xA4, 0x00]
    b.activateSingle(uid, sak: 0x08)
    b.reader([0xE0, 0x21])
    b.add4Bit(0x04)
    let (frames, decoder) = decodeAll(b.frames)
    let nak = try #require(frames[7].innermost)
    #expect(nak.name == "NAK" && nak.field("nak_code") == .int(4))
    #expect(frames[7].findings.isEmpty)
    #expect(!decoder.context.isoDEPActive)
  }
}

@Suite struct Pass16PresenceTests {
  /// An NDEF TLV of 20 bytes (a URI record) from page 4 to page 9, then the Terminator.
  private static let tlv: [UInt8] =
    [0x03, 0x14, 0xD1, 0x01, 0x10, 0x55, 0x04] + Array("example.com/abcd".utf8) + [0xFE]

  /// Read, then the stack's presence checks (READ 0) after the tag was taken away: nfcpy
  /// sends READ 0 with two retries (tt2.py `_is_present`), three unanswered in all. The
  /// retries stay in one operation, and the silence is a note: the read had succeeded (it was
  /// split in two operations, a transceive warning and a queryNDEFStatus error, Core NFC 100).
  @Test(arguments: [1, 3])
  func presenceCheckRetriesAfterAReadAreANote(_ silent: Int) throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, Array(Self.tlv[0..<16]))
    b.read(8, Array(Self.tlv[16...]))
    b.reader([0x30, 0x00], gapUs: 100_000)
    b.tag(ntag213Pages0To3)
    for _ in 0..<silent { b.reader([0x30, 0x00], gapUs: 100_000) }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    // The READ 0s after the read are the stack's presence checks (libnfc-nci reads block 0,
    // nfcpy page 0), answered or not: one transceive, not a query each time.
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .transceive])
    #expect(s.operations.last?.unansweredFrames.count == silent)
    let report = try b.diagnose()
    #expect(report.sessions.first?.findings.map(\.code) == ["command-interrupted"])
    #expect(report.sessions.first?.findings.first?.severity == .info)
  }
}

extension Pass16Type2Tests {
  /// Android's write first reads the blocks of the new message's end and of its Terminator
  /// (libnfc-nci rw_t2t_ndef.cc, RW_T2tWriteNDef) past the empty message just detected: steps
  /// of the procedure, not two readNDEFs of an empty message (each with a Core NFC 403
  /// warning, `ndef-empty-on-read`).
  @Test func readsPastAKnownMessageAreNoReadNDEF() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE])
    b.read(9, [])
    b.read(9, [])
    b.write(4, [0x03, 0x00, 0xD0, 0x00])
    b.write(5, [0xFE, 0x00, 0x00, 0x00])
    b.write(4, [0x03, 0x03, 0xD0, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok])
    #expect(try b.diagnose().finding("ndef-empty-on-read") == nil)
  }
}

extension Pass16Type2Tests {
  /// Android's NDEF detection reads the dynamic lock bytes (NTAG213 page 40) after the TLVs
  /// (libnfc-nci rw_t2t_read_locks): part of queryNDEFStatus (it was a raw `transceive`).
  @Test func lockBytesReadDuringDetectionArePartOfTheQuery() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
    b.read(40, [0x00, 0x00, 0x00, 0xBD, 0x04, 0x00, 0x00, 0xFF])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
  }
}

@Suite struct Pass16ActivationTests {
  /// The SAK reached the sniffer damaged and the reader sent SELECT again, answered intact:
  /// the session's UID is the selected one (it was unknown: the UID completed on the damaged
  /// SAK was dropped, and the retry does not complete it again).
  @Test func uidSurvivesADamagedSAKAndTheSELECTRetry() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    b.activateSingle(uid, sak: nil)
    b.tag([0x08], badCRC: true)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x08])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.tag.uid == uid)
    #expect(s.tag.sak == 0x08)
  }
}

extension Pass16Type2Tests {
  /// Two WRITEs of one writeNDEF each refused with NAK 1 (transmission error) and each
  /// retried and acknowledged: the write succeeded (the second refusal was not tracked as a
  /// retriable one, because the first stayed in `failedFrames`, and the write failed).
  @Test func secondRetriedNAKInOneWriteIsMadeUpForToo() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(1))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x01, 0x54, 0x00, 0xFE], .nak(1))
    b.write(5, [0x01, 0x54, 0x00, 0xFE])
    b.write(4, [0x03, 0x04, 0xD1, 0x01])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last?.kind == .writeNDEF)
    #expect(s.operations.last?.outcome == .ok)
    #expect(s.operations.last?.failedFrames == [17, 21])
  }
}

extension Pass16ActivationTests {
  /// A phone's polling loop sends SENSF_REQ (`06 00 FF FF 01 00` + CRC-F `3A 10`, ISO/IEC
  /// 18092) between REQA and REQB; in a pcap 264 it carries no technology. It is an NFC-F
  /// frame with a valid CRC, not a type A/B frame with a bad one (300 `bad-crc` warnings for
  /// one idle loop).
  @Test func feliCaPollIsNoDamagedTypeAFrame() throws {
    #expect(CRC.crcF(Array("123456789".utf8)) == 0x31C3)
    var b = TraceBuilder()
    b.reader([0x26], crc: false)
    b.reader([0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00, 0x3A, 0x10], crc: false)
    b.reader([0x05, 0x00, 0x08, 0x39, 0x73], crc: false)
    b.reader([0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00, 0x3A, 0x10], crc: false)
    let (frames, _) = decodeAll(
      b.frames.map { f in
        var f = f
        f.technology = .unknown
        return f
      })
    for f in [frames[1], frames[3]] {
      #expect(f.findings.isEmpty)
      #expect(f.frame.crc == .ok)
      #expect(f.innermost?.summary == "SENSF_REQ any system, system code request, 1 time slot(s)")
    }
  }
}

extension Pass16ActivationTests {
  /// A bit-oriented ANTICOLLISION (NVB 34h: 2 bytes and 4 bits of UID known) is sent only
  /// after a collision (ISO/IEC 14443-3 §6.5.3): several tags, in JSON's `several_tags` and in
  /// diagnose (both missed it).
  @Test func bitOrientedAnticollisionShowsSeveralTags() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    b.reader([0x26], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false, parity: [1])
    b.reader([0x93, 0x34, 0x5E, 0x0F], crc: false)
    b.tag([0x1F, 0x7A, 0x33, TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x08])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.tag.collision && s.tag.resolvedCollisionFrame == 4)
    #expect(try b.diagnose().finding("several-tags")?.frames == [4])
  }

  /// A reader's SELECT with a bad BCC is the reader's mistake, not a second tag's answer; tags
  /// with random UIDs (08h…, ISO/IEC 14443-3 §6.5.4) one after the other are one phone.
  @Test func readerBCCAndRandomUIDsAreNoSecondTag() throws {
    var bcc = TraceBuilder()
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    bcc.reader([0x26], crc: false)
    bcc.tag([0x04, 0x00], crc: false)
    bcc.reader([0x93, 0x70] + uid + [0x18])
    #expect(try bcc.diagnose().finding("several-tags") == nil)
    var random = TraceBuilder()
    random.activateSingle([0x08, 0x01, 0x02, 0x03], sak: 0x20)
    random.activateSingle([0x08, 0xA0, 0xB0, 0xC0], sak: 0x20, gapUs: 20_000)
    #expect(try random.diagnose().finding("several-tags") == nil)
    var two = TraceBuilder()
    two.activateSingle([0x5E, 0x01, 0x02, 0x03], sak: 0x20)
    two.activateSingle([0x5E, 0xA0, 0xB0, 0xC0], sak: 0x20, gapUs: 20_000)
    #expect(try two.diagnose().finding("several-tags") != nil)
  }
}

extension Pass16SessionTests {
  /// A payment card's SELECT of the master file 3F00 (ISO/IEC 7816-4 §7.1.1), no NDEF
  /// application selected: the card's own application, a transceive, not a queryNDEFStatus
  /// (and its label was doubled, "SELECT file 3f00 ‹ SELECT file 3f00"). A proprietary file
  /// of the NDEF application stays a Type 4 SELECT, with a label of its own.
  @Test func selectOfTheMasterFileIsNoNDEFQuery() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xA4, 0x00, 0x00, 0x02, 0x3F, 0x00], Self.ok)
    let (frames, _) = decodeAll(b.frames)
    #expect(frames[8].layers.map(\.protocolID) == [.isoDEP, .iso7816])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .transceive])
    var n = TraceBuilder()
    n.activateType4()
    n.apdu(Self.selectApp, Self.ok)
    n.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x01], Self.ok)
    let (inApp, _) = decodeAll(n.frames)
    #expect(inApp[10].innermost?.summary == "SELECT file e101 of the NDEF application")
  }
}

extension Pass16ActivationTests {
  /// An Android phone authenticated to a MIFARE Classic, got the nonce nt, then sent a
  /// plaintext HLTA (valid CRC_A) instead of {nr, ar}: it gave up, the link stays plaintext
  /// (the HLTA and all that followed were "encrypted (Crypto1)").
  @Test func plaintextHLTAAfterTheNonceAbortsTheAuthentication() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x2B, 0x1E, 0xA4, 0x00]
    b.activateSingle(uid, sak: 0x08)
    b.reader([0x60, 0x00])
    b.tag([0x54, 0xD2, 0x19, 0xF8], crc: false)
    b.reader([0x50, 0x00])
    let (frames, decoder) = decodeAll(b.frames)
    #expect(frames[8].innermost?.name == "HLTA")
    #expect(frames[8].frame.crc == .ok)
    #expect(!decoder.context.encrypted)
  }

  /// A sniff that missed the reader's REQA and ANTICOLLISION (weak modulation): the tag's
  /// `44 00` is the ATQA and `5E 1F 7A 33 08` (BCC valid) a UID part, not frames with a
  /// missing or bad CRC_A.
  @Test func unsolicitedATQAAndUIDPartAreNoCRCFrames() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    b.tag([0x04, 0x00], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x08])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames[0].innermost?.name == "ATQA")
    #expect(frames[1].innermost?.summary == "UID CL1 5e 1f 7a 33 (BCC ok)")
    // The ATQA's poll is not in the capture: an info finding says so, nothing about a CRC.
    #expect(frames[0].findings.map(\.code) == ["poll-not-captured"])
    #expect(frames[1].findings.isEmpty)
  }
}

@Suite struct Pass16ReviewTests {
  /// A READ past the message after a write that set its length is the next call: its silence
  /// does not interrupt the finished write.
  @Test func readPastTheMessageAfterAFinishedWriteIsTheNextCall() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, ntag213Pages0To3)
    b.read(4, [0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD0, 0x00])
    b.write(5, [0x00, 0xFE, 0x00, 0x00])
    b.write(4, [0x03, 0x03, 0xD0, 0x00])
    b.reader([0x30, 0x08], gapUs: 50_000)
    let s = try #require(try sessions(b).first)
    // Past the message just written: no readNDEF (it starts at the message), the app's own.
    #expect(s.operations.map(\.kind).suffix(2) == [.writeNDEF, .transceive])
    #expect(s.operations.map(\.outcome).suffix(2) == [.ok, .interrupted])
  }

  /// A damaged SAK whose cascade bit reads 0 completes no UID: the intact SAK of the SELECT
  /// retry says another level follows, and the UID is the 7 bytes of both levels (it was the
  /// 4 bytes of CL1, cascade tag included).
  @Test func damagedCascadeSAKCompletesNoUID() throws {
    var b = TraceBuilder()
    let cl1: [UInt8] = [0x88, 0x04, 0x11, 0x22]
    let cl2: [UInt8] = [0x33, 0x44, 0x55, 0x66]
    b.reader([0x52], crc: false)
    b.tag([0x44, 0x00], crc: false)
    b.reader([0x93, 0x70] + cl1 + [TraceBuilder.bcc(cl1)])
    b.tag([0x00], badCRC: true)
    b.reader([0x93, 0x70] + cl1 + [TraceBuilder.bcc(cl1)])
    b.tag([0x04])
    b.reader([0x95, 0x70] + cl2 + [TraceBuilder.bcc(cl2)])
    b.tag([0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.tag.uid == [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    #expect(!s.tag.collision)
  }

  /// ANTICOLLISION with an invalid NVB (28h) or a length its NVB does not count is the
  /// reader's error, no sign of a collision.
  @Test func invalidNVBIsNoCollision() throws {
    var b = TraceBuilder()
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    b.reader([0x26], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x28], crc: false)
    b.reader([0x93, 0x21], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x08])
    let s = try #require(try sessions(b).first)
    #expect(!s.tag.collision && s.tag.resolvedCollisionFrame == nil)
  }

  /// A phone polling FeliCa after the session (SENSF_REQ unanswered) opens no operation; the
  /// frames are NFC-F.
  @Test func unansweredFeliCaPollsOpenNoOperation() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00])
    for _ in 0..<3 {
      b.reader([0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00, 0x3A, 0x10], crc: false, gapUs: 5_000)
    }
    let frames = b.frames.map { f in
      var f = f
      f.technology = .unknown
      return f
    }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations.map(\.outcome) == [.ok, .ok])
    let (decoded, _) = decodeAll(frames)
    #expect(decoded.last?.frame.technology == .nfcF && decoded.last?.startsActivation == true)
  }
}

extension Pass16SessionTests {
  /// An iPhone-style read of a mapping 3.0 tag: 15 bytes of its 17-byte CC (Extended NDEF
  /// File Control TLV 06: a 4-byte ENLEN), then ENLEN, then the message. The 15 bytes give
  /// the ENLEN size and the file: the message is 20 bytes and read whole (it was "NLEN 0",
  /// an empty message with a Core NFC 403 warning, and "the CC was not read").
  @Test func fifteenBytesOfAMapping3CCGiveTheENLENSize() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x11, 0x30, 0x00, 0xFF, 0x00, 0xFF, 0x06, 0x08, 0xE1, 0x04, 0x00, 0x00, 0x80, 0x00]
        + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x05] + Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x04, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x02] + Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(
      s.operations[1].reason?.hasPrefix(
        "the capability container was read only in part (15 of its 17 bytes") == true)
    #expect(s.operations[2].detail("ndef_length") == .int(5))
    #expect(try b.diagnose().finding("ndef-empty-on-read") == nil)
    let report = TagReport(session: s)
    #expect(report.end.type4CCIncomplete)
    guard case .decoded(let m) = report.end.message else {
      Issue.record("message not decoded: \(report.end.message)")
      return
    }
    #expect(m.records.count == 1 && m.consumed == 5)
  }
}

@Suite struct Pass16RenderTests {
  /// 300 polls of a tag the reader never selects made a line of thousands of characters.
  @Test func repeatedOperationsAreCounted() {
    #expect(
      SessionsRender.runs(["connect ok", "connect ok", "readNDEF ok", "a", "a", "a", "b"]) == [
        "connect ok · connect ok", "readNDEF ok", "a ×3", "b",
      ])
    #expect(SessionsRender.runs([]) == [])
  }
}

extension Pass16ActivationTests {
  /// A tag that answers HLTA within 1 ms did not acknowledge it (ISO/IEC 14443-3 §6.4.3): the
  /// answer is said to be one (it was an orphan "4-bit NAK with no command"); a frame long
  /// after HLTA answers a poll the sniffer missed, not the HLTA.
  @Test func answerToHLTAIsANotAcknowledge() throws {
    var b = TraceBuilder()
    b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x00)
    b.reader([0x50, 0x00])
    b.add4Bit(0x00)
    b.reader([0x50, 0x00])
    b.tag([0x04, 0x00], crc: false, gapUs: 50_000)
    let (frames, _) = decodeAll(b.frames)
    #expect(
      frames[7].undecodedReason?.hasPrefix("answer to HLTA: the tag did not acknowledge") == true)
    #expect(frames[9].undecodedReason?.hasPrefix("answer to HLTA") != true)
  }
}
