import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the twentieth session's field-engineer hunt (Type 2 and Type 4 captures).
@Suite struct Pass23RegressionTests {
  static let ntag215: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
  static let ok: [UInt8] = [0x90, 0x00]

  /// An NTAG215 queried: CC, then page 4 with an empty NDEF TLV.
  private func queried() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    return b
  }

  /// A WRITE far up the data area, then READs of what it wrote: the READs stay in its
  /// operation. They were a second writeNDEF without a single WRITE (hunt s42). The WRITE
  /// starts past the NDEF TLV, where no NDEF write starts: the app's own (FixT2RawWriteTests).
  @Test func readsAfterAFarWriteOpenNoWriteOfTheirOwn() throws {
    var b = queried()
    b.write(0x10, [0x41, 0x41, 0x41, 0x41])
    b.read(0x10, [0x41, 0x41, 0x41, 0x41])
    b.read(0x14, [])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations.last?.lastFrame == b.frames.count - 1)
  }

  /// A READ inside a writeNDEF never starts the next call: only a WRITE steps back. (A
  /// reader checking page 6 before the final length split the write in two.)
  @Test func readAfterAWriteStaysInIt() throws {
    var b = queried()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x63, 0x6F, 0xFE])
    b.read(6, [0x2E, 0x63, 0x6F, 0xFE])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.last?.outcome == .ok)
  }

  /// A WRITE with no answer in the capture, after which the reader went on to the next page
  /// and the tag answered it: the sniffer missed the ACK. The write is not interrupted (it
  /// said "interrupted", Core NFC 100, and the message torn), its outcome is unknown, and
  /// `answer-not-captured` explains it (hunt s32).
  @Test func missedACKMidWriteIsNoInterruption() throws {
    var b = queried()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    b.write(6, [0x2E, 0x63, 0x6F, 0x6D], .none)
    let silent = b.frames.count - 1
    b.write(7, [0xFE, 0x00, 0x00, 0x00])
    b.write(4, [0x03, 0x0A, 0xD1, 0x01])
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .unknown)
    #expect(write.unansweredFrames.isEmpty)
    #expect(write.detail("answer_not_captured") == .int(silent))
    #expect(
      write.reason
        == "the tag's answer to WRITE page 6 ← 2e 63 6f 6d is not in the capture (the reader "
        + "went on to WRITE page 7 ← fe 00 00 00, which the tag answered)")
    let r = try b.diagnose()
    #expect(r.finding("write-interrupted") == nil)
    #expect(r.finding("ndef-torn") == nil)
    let f = try #require(r.finding("answer-not-captured"))
    #expect(f.severity == .info && f.frames == [silent])
  }

  /// The tag that left during a WRITE (nothing answered after it) is still interrupted.
  @Test func silenceToTheEndStaysInterrupted() throws {
    var b = queried()
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x55, 0x04, 0x61], .none)
    b.write(6, [0x2E, 0x63, 0x6F, 0x6D], .none)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.outcome == .interrupted)
    #expect(try b.diagnose().finding("write-interrupted") != nil)
  }
}

/// Type 4 findings of the same hunt.
@Suite struct Pass23Type4Tests {
  static let ok: [UInt8] = [0x90, 0x00]

  private func selectedCC() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(write: 0xFF, nlen: 0x10)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], Self.ok)
    return b
  }

  /// An UPDATE of the CC's write access byte to 00 (granting write access) is no writeLock,
  /// and its 6982 says the tag refused to be unlocked (hunt k3, k4).
  @Test func grantingWriteAccessIsNoWriteLock() throws {
    var b = selectedCC()
    b.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0x00], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .transceive)
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause
        == "the tag refused to have its write access granted (SW 6982 to UPDATE CC offset 14 "
        + "Lc 1)")
    #expect(f.coreNFCError == nil)
    // FFh there is the read-only step; a CC overwritten from offset 2 with message bytes
    // (2Eh lands on the write access byte, an RFU value) is no lock either (hunt d3b).
    var c = selectedCC()
    c.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0xFF], Self.ok)
    #expect(try sessions(c).first?.operations.last?.kind == .writeLock)
    var d = selectedCC()
    let data: [UInt8] = [
      0xD1, 0x01, 0x0C, 0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E,
    ]
    d.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(data.count)] + data, Self.ok)
    #expect(try sessions(d).first?.operations.last?.kind == .transceive)
  }

  /// 6A86 to an UPDATE BINARY naming its file by SFI (P1 b8 = 1) refuses SFI addressing, not an
  /// offset inside the file (it blamed the tag's file size; hunt d7).
  @Test func sfiRefusalNamesTheAddressing() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x84, 0x00, 0x02, 0x00, 0x00], [0x6A, 0x86])
    let f = try #require(try b.diagnose().finding("apdu-refused"))
    #expect(
      f.cause
        == "the tag does not take a file named by short EF identifier (SW 6A86 to UPDATE BINARY "
        + "SFI 4 offset 0 Lc 2)")
    #expect(f.fix.hasPrefix("SELECT the file by its file identifier first"))
  }

  /// VERIFY answered 63Cx names a wrong password and the tries left; without data, that a
  /// password is required (hunt v1, ST25TA).
  @Test func verifyRefusalNamesThePassword() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0, count: 16), [0x63, 0xC1])
    b.apdu([0x00, 0x20, 0x00, 0x01], [0x63, 0xC2])
    let findings = try b.diagnose().findings.filter { $0.code == "apdu-refused" }
    #expect(
      findings.map(\.cause) == [
        "wrong write password, 1 try left before it blocks (SW 63C1 to VERIFY P1 00 P2 02 Lc 16)",
        "the read password is required (not yet presented), 2 tries left before it blocks "
          + "(SW 63C2 to VERIFY P1 00 P2 01)",
      ])
  }

  /// A 1-byte R(ACK) with no CRC_A in a capture that keeps CRCs was cut by the capture: it is
  /// flagged as such (it read as an intact R(ACK); hunt s03). A 4-bit ACK kept as a whole
  /// byte (0Ah, no bit count) is not.
  @Test func oneByteISODEPBlockIsFlaggedCut() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x02, 0x04])
    b.tag([0xA2], crc: false)
    let (frames, _) = decodeAll(b.frames)
    let cut = try #require(frames.last)
    #expect(cut.innermost?.name == "R(ACK)")
    #expect(
      cut.findings.map(\.message) == [
        "1-byte frame where a payload and CRC_A are expected: the capture cut it (no CRC to "
          + "check); decoded as it is"
      ])
  }

  /// A READ NLEN answered with 1 byte ends NDEF detection: notSupported, not readWrite
  /// (hunt h3).
  @Test func shortNLENAnswerIsNotNDEF() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x10] + Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(s.ndefStatus?.status == .notSupported)
    #expect(
      s.ndefStatusReason
        == "READ NLEN answered 1 of its 2 bytes: NDEF detection stops without the message length")
  }

  /// A mapping 2.0 CC with the Extended NDEF File Control TLV (06h) breaks T4T (hunt ccv).
  @Test func extendedTLVInAVersion2CCIsFlagged() throws {
    var cc = TraceBuilder.enlenCC
    cc[2] = 0x20
    let parsed = try CapabilityContainer4(parsing: cc)
    #expect(
      parsed.valueProblems.map(\.message) == [
        "the Extended NDEF File Control TLV (06h) exists from mapping version 3.0 only; a 2.0 "
          + "CC names its NDEF file with TLV 04h"
      ])
    #expect(try CapabilityContainer4(parsing: TraceBuilder.enlenCC).valueProblems.isEmpty)
  }
}

/// Content and report findings of the same hunt.
@Suite struct Pass23ContentTests {
  /// An NTAG213 holding a 13-byte message whose record claims 33 bytes: `readNDEF` read it
  /// whole, and the app gets no usable message (it said "no writes, nothing failed"; hunt s13).
  @Test func malformedMessageReadIsAnError() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    let tlv: [UInt8] = [0x03, 0x0D, 0xD1, 0x01, 0x20, 0x55, 0x04] + Array("bad.test".utf8)
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + tlv.prefix(12))
    b.read(4, tlv + [0xFE])
    let f = try #require(try b.diagnose().finding("ndef-malformed-on-read"))
    #expect(f.severity == .error && f.operation == 2)
    #expect(f.cause == "the NDEF message read is malformed: length-past-end")
    #expect(f.message.hasPrefix("readNDEF read the whole 13-byte message, and it is malformed: "))
    // A well-formed message read has no such finding.
    var c = TraceBuilder()
    c.activateType2(version: ntag213Version)
    let good: [UInt8] = [0x03, 0x0C, 0xD1, 0x01, 0x08, 0x55, 0x04] + Array("cw.test".utf8)
    c.read(3, [0xE1, 0x10, 0x12, 0x00] + good.prefix(12))
    c.read(4, good + [0xFE])
    #expect(try c.diagnose().finding("ndef-malformed-on-read") == nil)
  }

  /// One WRITE inside the message (page 5, its length left alone) that breaks its record: the
  /// write's verdict is bad content, not "succeeded" (hunt s11b).
  @Test func writeInsideTheMessageThatBreaksItIsBadContent() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    let good: [UInt8] = [0x03, 0x0C, 0xD1, 0x01, 0x08, 0x55, 0x04] + Array("cw.test".utf8)
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + good.prefix(12))
    b.read(4, good + [0xFE])
    b.write(5, [0x41, 0x42, 0x43, 0x44])
    let r = try b.diagnose()
    let f = try #require(r.finding("length-past-end"))
    #expect(f.operation == 3 && f.frames == [b.frames.count - 2])
    #expect(r.sessions.first?.verdicts.last?.verdict == .succeededWithBadContent)
  }

  /// A writer that skips the bytes a Memory Control TLV reserves (page 16, never read) but
  /// writes their page with filler is no write into the reserved area: the message reads back
  /// whole around it (hunt s31). Writing the message straight through stays flagged.
  @Test func skippedReservedPageNotReadIsNoWriteIntoIt() throws {
    func trace(skip: Bool) -> TraceBuilder {
      var b = TraceBuilder()
      b.activateType2(version: ntag213Version)
      let controls: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x02, 0x03, 0x40, 0x04, 0x04]
      b.read(3, [0xE1, 0x10, 0x12, 0x00] + controls + [0x03, 0x00])
      b.read(4, controls + [0x03, 0x00, 0xFE])
      let uri = Array("memctrl.example.com/".utf8) + Array(repeating: 0x7A, count: 25)
      let message: [UInt8] = [0xD1, 0x01, UInt8(uri.count + 1), 0x55, 0x04] + uri
      var area = controls + [0x03, UInt8(message.count)]
      for byte in message + [0xFE] {
        if skip, (64..<68).contains(16 + area.count) { area += [0xEE, 0xEE, 0xEE, 0xEE] }
        area.append(byte)
      }
      area += Array(repeating: 0, count: (4 - area.count % 4) % 4)
      let pages = stride(from: 0, to: area.count, by: 4).map { Array(area[$0..<($0 + 4)]) }
      b.write(6, Array(pages[2].prefix(3)) + [0])
      for i in 3..<pages.count { b.write(4 + i, pages[i]) }
      b.write(6, pages[2])
      return b
    }
    #expect(try trace(skip: true).diagnose().finding("t2t-write-into-reserved-area") == nil)
    #expect(try trace(skip: false).diagnose().finding("t2t-write-into-reserved-area") != nil)
  }

  /// A PWD_AUTH that sent 00 00 00 00 is masked like any password, in text and JSON (it was
  /// printed: zeros were taken for a read-back PWD; hunt s37).
  @Test func zeroPasswordSentIsMasked() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.reader([0x1B, 0x00, 0x00, 0x00, 0x00])
    b.tag([0x00, 0x00])
    let report = TagReport(session: try #require(try sessions(b).first))
    let text = ReportText.render(report)
    #expect(text.contains("password present (masked), PACK present (masked): accepted"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(out.text.contains("\"password\":\"present (masked)\",\"pack\":\"present (masked)\""))
  }
}

/// Diff findings of the same hunt.
@Suite struct Pass23DiffTests {
  private func side(_ b: TraceBuilder) throws -> DiffSide { try diffSide(b) }

  /// The same UPDATE sent whole and chained over three I-blocks differs only in framing: the
  /// chained one is compared as the APDU its parts make, not as its last part (hunt
  /// s14a/s14b), and its parts are no exchanges of their own.
  @Test func chainedCommandComparesAsItsWholeAPDU() throws {
    let update: [UInt8] = [0x00, 0xD6, 0x00, 0x02, 0x0C] + Array(repeating: 0x62, count: 12)
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0)
    a.apdu(update, [0x90, 0x00])
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.chainedAPDU(update, part: 8, [0x90, 0x00])
    let d = TraceDiff(a: try side(a), b: try side(b))
    // B's two first parts (8 + 8 of the 17 bytes), each answered R(ACK), are its framing.
    #expect(d.exchanges.filter { !$0.same }.map(\.differences) == [["framing"]])
    let x = try #require(d.exchanges.first { !$0.same })
    #expect(d.b.exchanges[x.b ?? -1].requestBlocks == 3)
  }

  /// A page known in part on one side shows its known bytes and `??` for the others, not a
  /// row of `??` (hunt diff rows).
  @Test func pageKnownInPartShowsItsKnownBytes() {
    var a = ByteImage()
    a.record([0x03, 0x0C], at: 16, state: .read, frame: 5)
    var b = ByteImage()
    b.record([0x03, 0x0D, 0xD1, 0x01], at: 16, state: .read, frame: 7)
    let m = MemoryComparison.compare(a, b, image: .end, file: nil, unit: 4)
    #expect(m.map(\.unit) == [4])
    #expect(m.first?.aBytes == [0x03, 0x0C, nil, nil])
    #expect(m.first?.a == nil)
  }
}

/// Review of the hunt's fixes.
@Suite struct Pass23ReviewTests {
  /// A WRITE sent again and again with no answer, then another command the tag answered: the
  /// reader had no answer (it retried), so the write stays interrupted, not "answer not
  /// captured".
  @Test func retriedSilenceIsNoMissedAnswer() throws {
    var b = TraceBuilder()
    b.activateType2(version: Pass23RegressionTests.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    for _ in 0..<3 { b.write(5, [0x04, 0x55, 0x04, 0x61], .none) }
    b.read(4, [0x03, 0x00, 0xD1, 0x01])
    let s = try #require(try sessions(b).first)
    let write = try #require(s.operations.first { $0.kind == .writeNDEF })
    #expect(write.outcome == .interrupted)
    #expect(write.detail("answer_not_captured") == nil)
  }

  /// NLEN read in parts (Le 1, then Le 1) is no short answer: the status stays readWrite.
  @Test func nlenReadInPartsIsNoShortAnswer() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x01], [0x00, 0x90, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x01, 0x01], [0x05, 0x90, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.ndefStatus?.status == .readWrite)
  }

  /// On a writable tag, 6982 to an UPDATE of the CC that keeps its write access at 00 is no
  /// refused unlock (the tag was not locked).
  @Test func ccRewriteOnAWritableTagIsNoUnlock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0x00], [0x69, 0x82])
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(f.cause.hasPrefix("the app's UPDATE BINARY went to the CC file"))
  }

  /// VERIFY answered 63C0: no tries left, the password is blocked now.
  @Test func verifyWithNoTriesLeftSaysBlocked() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0, count: 16), [0x63, 0xC0])
    let f = try #require(try b.diagnose().finding("apdu-refused"))
    #expect(
      f.cause
        == "wrong write password, no tries left: it is blocked now (SW 63C0 to VERIFY P1 00 P2 02 "
        + "Lc 16)")
  }
}

extension Pass23ReviewTests {
  /// A capture that starts mid-session on a data-first write (pages 5–9, then the length at
  /// page 4) whose Terminator WRITE on the next page got no answer: one writeNDEF, interrupted
  /// at the Terminator, with no torn message and no unsafe order (it was a transceive of the
  /// data, a one-page writeNDEF, ndef-torn and unsafe-write-order; hunt s17f).
  @Test func midSessionDataFirstWriteIsOneWrite() throws {
    var b = TraceBuilder()
    let uri = Array("mid.session/xyz".utf8)
    let message: [UInt8] = [0xD1, 0x01, UInt8(uri.count + 1), 0x55, 0x04] + uri
    var tlv: [UInt8] = [0x03, UInt8(message.count)] + message
    tlv += Array(repeating: 0, count: (4 - tlv.count % 4) % 4)
    let pages = stride(from: 0, to: tlv.count, by: 4).map { Array(tlv[$0..<($0 + 4)]) }
    for i in 1..<pages.count { b.write(4 + i, pages[i]) }
    b.write(4, pages[0])
    b.write(4 + pages.count, [0xFE, 0x00, 0x00, 0x00], .none)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.writeNDEF])
    #expect(s.operations.first?.outcome == .interrupted)
    let r = try b.diagnose()
    #expect(r.codes == ["write-interrupted"])
  }
}

/// Findings of the second hunt of the session (diagnose, re-taps).
@Suite struct Pass23RetapTests {
  /// A write interrupted at page 9 (no answer), then, on a re-tap of the same tag, a write of
  /// the final length only: the length covers a page never acknowledged and pages never
  /// written. The second write is no plain success (it said "SUCCEEDED — no problem found").
  @Test func lengthOnlyResumeIsUnconfirmed() throws {
    var b = TraceBuilder()
    b.activateType2(version: Pass23RegressionTests.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    for page in 5...8 { b.write(page, [UInt8(page), 0x61, 0x62, 0x63]) }
    b.write(9, [0x39, 0x61, 0x62, 0x63], .none)
    b.event(.fieldOff, gapUs: 300_000)
    b.activateType2(version: Pass23RegressionTests.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xD1, 0x01])
    b.write(4, [0x03, 0x22, 0xD1, 0x01])
    let r = try b.diagnose()
    let f = try #require(r.finding("message-unconfirmed"))
    #expect(f.severity == .warning && f.frames == [b.frames.count - 2])
    #expect(
      f.message
        == "The write set the NDEF TLV length to 34 (bytes 18–51), but of those bytes, 4 were "
        + "written earlier without an acknowledgement (bytes 36–39, page 9), and 12 were "
        + "neither read nor written in the trace (bytes 40–51, pages 10–12). Unless they already "
        + "hold the message, the tag holds a torn one; readNDEF would tell.")
  }
}

extension Pass23RetapTests {
  /// A FAST_READ of pages 04h–35h refused by an NTAG215 (last page 86h): the pages are the
  /// tag's own, so the fix names protection, not the tag's size (it said "Read only the tag's
  /// own pages").
  @Test func fastReadRefusedInsideMemoryNamesProtection() throws {
    var b = TraceBuilder()
    b.activateType2(version: Pass23RegressionTests.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0xC5, 0xD1, 0x01, 0xC1, 0x55, 0x04, 0x65])
    b.reader([0x3A, 0x04, 0x35])
    b.add4Bit(0x00)
    let fixes = try b.diagnose().findings.map(\.fix)
    #expect(fixes.contains { $0.hasPrefix("The pages are the tag's own: send PWD_AUTH") })
    #expect(!fixes.contains { $0.hasPrefix("Read only the tag's own pages") })
  }
}

extension Pass23RetapTests {
  /// A writeLock that sets the static lock bytes (page 2) first, then gets NAK 0 on the CC:
  /// its own lock bits locked page 3, and the fix is the order (it blamed an earlier raw
  /// lock read from the tag).
  @Test func lockWrittenBeforeTheCCIsTheWritersOrder() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(2, [0x00, 0x00, 0xFF, 0xFF])
    let ack = b.frames.count - 1
    b.write(3, [0xE1, 0x10, 0x12, 0x0F], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.cause.hasPrefix("the page was locked by this session's own lock bits"))
    #expect(f.frames.contains(ack))
    #expect(f.fix.hasPrefix("The lock was written in the wrong order"))
  }
}
