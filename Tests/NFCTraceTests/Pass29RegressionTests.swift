import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Hunts of 2026-12-04c (Type 4 / ISO-DEP by spec, Type 2 writes): each test names the case.
@Suite struct Pass29Type4WriteTests {
  private let ok: [UInt8] = [0x90, 0x00]
  /// A 17-byte URI record (d1 01 0d 55 04 "example2.com" …).
  private let record: [UInt8] =
    [0xD1, 0x01, 0x0D, 0x55, 0x04] + Array("example2.com".utf8)

  /// NLEN 0, the record at offset 2, then NLEN `final` answered `sw`.
  private func write(final: UInt16, sw: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(record.count)] + record, ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, UInt8(final >> 8), UInt8(final & 0xFF)], sw)
    return b
  }

  /// 6581 to the final NLEN: SW1 65 says the memory changed, so the NLEN is uncertain (new
  /// or 0), as for a Type 2 NAK 5 — it said "the tag holds an empty message" (hunt t4 #1).
  @Test func memoryFailureOnTheFinalNLENLeavesItUncertain() throws {
    let b = write(final: UInt16(record.count), sw: [0x65, 0x81])
    let r = try b.diagnose()
    #expect(r.finding("ndef-emptied") == nil)
    let f = try #require(r.finding("ndef-length-uncertain"))
    #expect(
      f.cause
        == "the final write of the NLEN failed (SW 6581); the message bytes are all on the tag")
    #expect(
      f.message.contains("was answered SW 6581 (memory failure: programming started and failed)"))
    let s = try #require(try sessions(b).first)
    #expect(s.memory.filesEnd[0xE104]?.state(1) == .unacknowledged)
  }

  /// The NLEN written last claims 2 bytes more than the message written before it: a wrong
  /// length, not a writer that stopped (it said "written before the data", hunt t4 #4).
  @Test func finalNLENPastTheWrittenMessageIsAWrongLength() throws {
    let b = write(final: UInt16(record.count + 2), sw: ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeNDEF && s.operations.last?.outcome == .ok)
    let r = try b.diagnose()
    let f = try #require(r.finding("ndef-length-exceeds-message"))
    #expect(
      f.cause == "the NLEN written last (19) is 2 more than the 17-byte message written before it")
    #expect(f.severity == .error && f.coreNFCError == nil)
    #expect(r.finding("write-unfinished") == nil && r.finding("message-unconfirmed") == nil)
    #expect(r.sessions[0].verdicts.last?.verdict == .succeededWithBadContent)
  }

  /// 6986 (no current EF) to an UPDATE sent after a new activation with no SELECT: the
  /// activation forgot the file (hunt t4 #5: generic "check the APDU").
  @Test func noCurrentEFAfterReactivationIsExplained() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x86])
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(
      f.cause
        == "no file was selected since the tag was activated again (SW 6986 to UPDATE file (none "
        + "selected) offset 0 Lc 2)")
    #expect(f.message.hasPrefix("The tag answered 6986 (command not allowed: no current EF) to"))
  }

  /// T4T 3.0 odd-INS UPDATE BINARY (D7) above MLc and READ BINARY (B1) above MLe, accepted:
  /// the same warnings as the even-INS forms (hunt t4 #6).
  @Test func oddINSCommandsAreCheckedAgainstMLcAndMLe() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(mlc: 0x10)
    // Offset DO 54 03 000000, data DO 53 10 + 16 bytes: Lc 23 > MLc 16.
    b.apdu(
      [0x00, 0xD7, 0x00, 0x00, 23, 0x54, 0x03, 0x00, 0x00, 0x00, 0x53, 0x10]
        + Array(repeating: 0x61, count: 16), ok)
    // Le 0x40 > MLe 0x3B (59).
    b.apdu(
      [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x00, 0x00, 0x40],
      [0x53, 0x02, 0x00, 0x00] + ok)
    let r = try b.diagnose()
    #expect(r.finding("t4t-lc-exceeds-mlc")?.severity == .warning)
    #expect(r.finding("t4t-le-exceeds-mle")?.severity == .warning)
  }

  /// An NLEN past the capacity is an impossible length (`message-too-large`), not bytes to
  /// confirm: no `message-unconfirmed` listing bytes past the file (hunt t4 #7, t2 #6).
  @Test func lengthPastTheCapacityIsNotUnconfirmed() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(record.count)] + record, ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x01, 0x10], ok)
    let r = try b.diagnose()
    #expect(r.finding("message-too-large") != nil)
    #expect(r.finding("message-unconfirmed") == nil)
  }
}

/// An NTAG213 whose query read the CC and an empty NDEF TLV (`03 00 FE`).
private func emptyNTAG213() -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(
    3,
    page3(
      cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00] + Array(repeating: 0, count: 8)))
  return b
}

/// Type 2: a torn message whose length was written last (hunt t2 #5).
@Test func tornMessageWithLengthWrittenLastSaysSo() throws {
  var b = emptyNTAG213()
  b.write(4, [0x03, 0x00, 0xD1, 0x01], .ack)
  b.write(5, [0x0C, 0x55, 0x04, 0x65], .ack)
  b.write(6, [0x78, 0x61, 0x6D, 0x70], .nak(5))
  b.write(7, [0x6C, 0x65, 0x2E, 0x63], .ack)
  b.write(8, [0x6F, 0x6D, 0xFE, 0x00], .ack)
  b.write(4, [0x03, 0x10, 0xD1, 0x01], .ack)
  let f = try #require(try b.diagnose().finding("ndef-torn"))
  #expect(
    f.message.contains("The length was written last, but after data writes that did not all land"))
  #expect(!f.message.contains("written before the data"))
}

/// A 3-byte NDEF TLV length continuing on page 6: the final length's WRITE of page 5 gets no
/// answer and page 6's is never sent. If page 5 landed the length reads FF 01 00 = 256, which
/// cuts the 400-byte message short: it said "never a torn one" (hunt t2 #1).
@Test func splitLengthWrittenOnlyInPartIsATornRisk() throws {
  var b = TraceBuilder()
  b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03])  // NTAG216
  // CC, Lock Control TLV (page 4 and byte 20), NDEF TLV at byte 21: length bytes 22–24.
  b.read(
    3,
    [0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE]
      + Array(repeating: 0, count: 4))
  b.write(5, [0x44, 0x03, 0xFF, 0x00])
  // One 400-byte URI record (not SR): C1 01 00000189 55, then 393 payload bytes.
  let message: [UInt8] =
    [0xC1, 0x01, 0x00, 0x00, 0x01, 0x89, 0x55, 0x04] + Array(repeating: 0x61, count: 392)
  let bytes = [0x00] + message + [0xFE]  // from byte 24 (page 6): the length's low byte first
  for (k, page) in stride(from: 0, to: bytes.count, by: 4).enumerated() {
    let chunk = Array(bytes[page..<min(page + 4, bytes.count)])
    b.write(6 + k, chunk + Array(repeating: 0, count: 4 - chunk.count))
  }
  b.write(5, [0x44, 0x03, 0xFF, 0x01], .none)
  let f = try #require(try b.diagnose().finding("ndef-length-uncertain"))
  #expect(
    f.message.contains(
      "the length reads 0x100 (256) — which cuts the 400-byte message short: a torn message"))
  #expect(f.message.hasSuffix("or 0 (an empty message; readNDEF reports 403)."))
  #expect(!f.message.contains("never a torn one"))
}

/// A tag frame longer than the reader's FSD: the reader must drop it, so the read failed when
/// the reader's next frame shows it did (the simulator's truth: 102), is unknown when nothing
/// shows, and ok when its next I-block toggles its block number (hunt t4 #3: readNDEF ok).
@Suite struct Pass29FSDOverrunTests {
  private let ok: [UInt8] = [0x90, 0x00]

  private func overrun() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4(fsdi: 2)  // FSD 32
    b.queryType4(nlen: 0x40)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x40], Array(repeating: 0x61, count: 64) + ok)
    return b
  }

  /// R(NAK) after it: the reader dropped the frame (ISO/IEC 14443-4 §7.5.4.2 rule 4).
  @Test func rejectedFrameFailsTheRead() throws {
    var b = overrun()
    b.reader([0xB2])  // R(NAK), block number 0: the I-block it did not take
    let s = try #require(try sessions(b).first)
    let read = try #require(s.operations.last { $0.kind == .readNDEF })
    #expect(read.outcome == .failed)
    #expect(read.reason?.hasSuffix("the reader dropped it (ISO/IEC 14443-4 §7.1.1)") == true)
    let f = try #require(try b.diagnose().finding("response-exceeds-fsd"))
    #expect(f.coreNFCError == .tagResponseError)
  }

  /// S(DESELECT) after it ends the exchange whether or not the reader took the frame (review
  /// 2026-12-04c: it was a failure).
  @Test func deselectAfterItLeavesTheOutcomeUnknown() throws {
    var b = overrun()
    b.reader([0xC2])
    b.tag([0xC2])
    let s = try #require(try sessions(b).first)
    let read = try #require(s.operations.last { $0.kind == .readNDEF })
    #expect(read.outcome == .unknown)
    #expect(read.reason?.hasSuffix("nothing after it shows whether this one did") == true)
  }

  @Test func toggledNextBlockShowsTheReaderTookIt() throws {
    var b = overrun()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x40] + ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.first { $0.kind == .readNDEF }?.outcome == .ok)
  }
}

/// A Type 2 tag of another maker (UID0 05h, Infineon), no GET_VERSION: the lock bytes it
/// declares or T2T's default layout lock page 16; it got Ultralight C advice and "the trace
/// does not show the dynamic lock bytes" (hunt t2 #2).
@Suite struct Pass29ForeignType2LockTests {
  private func tag(cc2: UInt8, page4: [UInt8], page5: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(uid: [0x05, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    b.read(3, [0xE1, 0x10, cc2, 0x00] + page4 + page5 + [0, 0, 0, 0])
    return b
  }

  @Test func lockControlInsideTheDataAreaIsRead() throws {
    // Lock Control TLV 01 03 80 10 34: lock bytes at byte 128 (page 32), 8 bytes per bit.
    var b = tag(cc2: 0x20, page4: [0x01, 0x03, 0x80, 0x10], page5: [0x34, 0x03, 0x00, 0xFE])
    b.read(32, [0x01] + Array(repeating: 0, count: 15))
    b.write(16, [0x61, 0x61, 0x61, 0x61], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.message.hasPrefix("The dynamic lock bytes (page 32 (0x20), read from the tag)"))
  }

  @Test func defaultLayoutAfterTheDataArea() throws {
    var b = tag(cc2: 0x10, page4: [0x03, 0x00, 0xFE, 0x00], page5: [0, 0, 0, 0])
    b.read(36, [0xFF, 0xFF] + Array(repeating: 0, count: 14))
    b.write(16, [0x61, 0x61, 0x61, 0x61], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-locked-page"))
    #expect(f.message.hasPrefix("The dynamic lock bytes (page 36 (0x24), read from the tag)"))
  }

  @Test func noUltralightCAdviceForAnotherMaker() throws {
    var b = tag(cc2: 0x20, page4: [0x03, 0x00, 0xFE, 0x00], page5: [0, 0, 0, 0])
    b.write(16, [0x61, 0x61, 0x61, 0x61], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(!f.fix.contains("Ultralight C") && !f.fix.contains("PWD_AUTH"))
    #expect(f.fix.contains("a password-protected tag of another maker than NXP"))
  }
}

/// A WRITE answered with a non-standard 4-bit code (Bh: a damaged ACK or NAK) leaves its page
/// uncertain, as NAK 5 does: the report showed the old bytes for certain (hunt t2 #3).
@Test func damagedFourBitAnswerLeavesThePageUncertain() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(4, [0x03, 0x00, 0xFE, 0x00, 0x6F, 0x6F, 0x6F, 0x6F, 0x6F, 0x6F, 0x6F, 0x6F])
  b.write(6, [0x6E, 0x6E, 0x6E, 0x6E], .nak(0x0B))
  let s = try #require(try sessions(b).first)
  #expect(s.memory.type2End.state(24) == .unacknowledged)
  #expect(s.memory.type2End.known(24, 4) == [0x6E, 0x6E, 0x6E, 0x6E])
}

/// A readNDEF after the session's own write that reads only the message's first page: its
/// reads stopped before the end (`unknown`), as without the write; the image knew the rest
/// from the write, and it said `ok` (hunt t2 #4).
@Test func partialReadAfterAWriteIsNotOK() throws {
  var b = emptyNTAG213()
  let message: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
  let bytes = [0x03, 0x00] + message + [0xFE]
  for (k, at) in stride(from: 0, to: bytes.count, by: 4).enumerated() {
    let chunk = Array(bytes[at..<min(at + 4, bytes.count)])
    b.write(4 + k, chunk + Array(repeating: 0, count: 4 - chunk.count))
  }
  b.write(4, [0x03, UInt8(message.count), 0xD1, 0x01])
  // The read-back returns pages 4–7 as written; pages 8–9 are not read again.
  b.read(4, Array(([0x03, UInt8(message.count)] + message).prefix(16)))
  let s = try #require(try sessions(b).first)
  let read = try #require(s.operations.last)
  #expect(read.kind == .readNDEF)
  #expect(read.outcome == .unknown)
  #expect(read.reason == "reads stopped before the end of the 16-byte message")
}

/// A read-back before the readNDEF counts as read: the query's READ 3 returns pages 3–6 as
/// written, the readNDEF's READ 7 the rest, as Core NFC reads after a write. It said
/// "reads stopped before the end" (the confirmed bytes keep `written`, under the READ's frame).
@Test func readBackInTheQueryCountsForTheReadNDEF() throws {
  var b = emptyNTAG213()
  let message: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
  let bytes = [0x03, UInt8(message.count)] + message + [0xFE]
  for (k, at) in stride(from: 0, to: bytes.count, by: 4).enumerated() {
    let chunk = Array(bytes[at..<min(at + 4, bytes.count)])
    b.write(4 + k, chunk + Array(repeating: 0, count: 4 - chunk.count))
  }
  let padded = bytes + Array(repeating: 0, count: 32)
  b.read(3, [0xE1, 0x10, 0x12, 0x00] + Array(padded[0..<12]))
  b.read(7, Array(padded[12..<28]))
  let s = try #require(try sessions(b).first)
  #expect(s.operations.suffix(2).map(\.kind) == [.queryNDEFStatus, .readNDEF])
  let read = try #require(s.operations.last)
  #expect(read.outcome == .ok)
  #expect(read.detail("message") == .hex(message))
}

/// A Proxmark3 client session log whose `trace list` table starts after 4 KiB of other output
/// (`hw version`, `hf 14a info`) is detected by content (hunt importers #6: unknown format).
@Test func formatDetectionLooksPastALongPreamble() throws {
  let list = try Data(
    contentsOf: URL(
      fileURLWithPath: TestPaths.shared("derived/proxmark3-text/hf_14a_mfu.list_14a.txt")))
  let preamble = String(
    repeating: "[=]  firmware ........ Iceman/master/v4.19552 2024-11-22\n", count: 90)
  let input = TraceInput(path: "session.log", bytes: Data(preamble.utf8) + list)
  #expect(preamble.utf8.count > 4096)
  #expect(try FormatRegistry(BuiltinFormats.all).detect(input).name == "pm3-text")
}

/// An ST25TA app reads the system file E101 after the NDEF application's SELECT and before
/// the CC: the app's own access, not a query that never read the CC (hunt t4 #8: a phantom
/// "queryNDEFStatus unknown").
@Test func systemFileBeforeTheCCIsNoQuery() throws {
  let ok: [UInt8] = [0x90, 0x00]
  var b = TraceBuilder()
  b.activateType4()
  b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok)
  b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x01], ok)
  b.apdu([0x00, 0xB0, 0x00, 0x00, 0x12], Array(repeating: 0x00, count: 18) + ok)
  b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], ok)
  b.apdu(
    [0x00, 0xB0, 0x00, 0x00, 0x0F],
    [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
      + ok)
  b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
  b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + ok)
  let s = try #require(try sessions(b).first)
  #expect(
    s.operations.map(\.shortText) == [
      "connect ok", "transceive ok", "queryNDEFStatus readWrite 253 B",
    ])
}

/// A writeLock's acknowledged WRITE of the never-read dynamic lock page sets LOCK2/LOCK3 bits
/// for good (lock bits are OR-programmed): the report names the pages they lock, and LOCK4 as
/// unknown — it said "dynamic lock bits not known" (hunt t2 #7).
@Test func acknowledgedDynamicLockWriteIsDecoded() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.write(40, [0xFF, 0x07, 0x00, 0x00])
  let s = try #require(try sessions(b).first)
  let end = TagReport(session: s).end
  #expect(end.locks?.dynamic?.lockedRanges.flatMap { Array($0) } == Array(16...37))
  #expect(end.unknowns.contains("dynamic lock page 40 byte 2 (LOCK4) not known"))
}

/// Another maker's Type 2 tag (UID0 05h): a READ_SIG it refuses in the connect is a probe,
/// as a refused GET_VERSION (it said "connect failed"), and it is no "MIFARE Ultralight /
/// NTAG" (hunt t2, minor).
@Test func foreignType2TagRefusingReadSigConnects() throws {
  var b = TraceBuilder()
  b.activateSingle([0x88, 0x05, 0xAA, 0xBB], sak: 0x04)
  b.reader([0x95, 0x20], crc: false)
  b.tag([0xCC, 0xDD, 0xEE, 0xFF, 0xCC ^ 0xDD ^ 0xEE ^ 0xFF], crc: false)
  b.reader([0x95, 0x70, 0xCC, 0xDD, 0xEE, 0xFF, 0xCC ^ 0xDD ^ 0xEE ^ 0xFF])
  b.tag([0x00])
  b.reader([0x3C, 0x00])
  b.add4Bit(0x00)
  let s = try #require(try sessions(b).first)
  #expect(s.operations.first?.outcome == .ok)
  #expect(s.tag.product == "Type 2 tag")
}

/// A Type 4 CC whose NDEF file read access is FFh: NDEF detection fails, queryNDEFStatus is
/// notSupported — as the simulator's truth says — not readWrite (diff-sim A1).
@Test func restrictedReadAccessIsNotNDEF() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.selectType4NDEFFile(read: 0xFF)
  let s = try #require(try sessions(b).first)
  #expect(s.ndefStatus?.status == .notSupported)
  #expect(try b.diagnose().finding("t4t-read-access-restricted")?.severity == .warning)
}

/// An NTAG213 (UID 04 11 22 … 66) with AUTH0 4 and PROT, activated, whose READ of page 3
/// answers the CC and then pages 0–2: the READ rolls over to page 0 at AUTH0 (NTAG213/215/216
/// datasheet §10.2).
func readProtectedNTAG213() -> TraceBuilder {
  let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
  var b = TraceBuilder()
  b.activateType2(uid: uid, version: ntag213Version)
  let page0 = Array(uid[0..<3]) + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]]
  let page1 = Array(uid[3..<7])
  let page2: [UInt8] = [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0x00, 0x00]
  b.read(3, [0xE1, 0x10, 0x12, 0x00] + page0 + page1 + page2)
  return b
}

/// NTAG213 with AUTH0 4 and PROT: the READ of page 3 rolls over to page 0 after the CC, so
/// the TLV walk sees no data area and queryNDEFStatus is notSupported — as the simulator's
/// truth says — not readWrite 142 from the CC alone (diff-sim A2).
@Test func readProtectedDataAreaIsNotNDEF() throws {
  let s = try #require(try sessions(readProtectedNTAG213()).first)
  #expect(s.ndefStatus?.status == .notSupported)
  #expect(s.operations.last?.detail("read_protected_from") == .int(4))
}

/// The app's SELECT of the CC file before the NDEF application (6A82: no application), then
/// the query that selects the application and the CC: the query succeeded (diff-sim A3: it
/// was "queryNDEFStatus failed").
@Test func refusedFileSelectBeforeTheApplicationIsMadeUpFor() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x6A, 0x82])
  b.queryType4()
  let s = try #require(try sessions(b).first)
  let query = try #require(s.operations.last)
  #expect(query.kind == .queryNDEFStatus && query.outcome == .ok)
  #expect(s.ndefStatus?.status == .readWrite)
}

/// The write's last answer is in the capture only with a parity error and the reader sent
/// R(NAK), unanswered: not a success (diff-sim A4: writeNDEF ok; a bad CRC was handled).
@Test func parityDamagedLastAnswerIsNoSuccess() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4()
  b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x05], [0x90, 0x00])
  b.parityError(at: 1)
  b.reader([0xB3])
  let s = try #require(try sessions(b).first)
  let write = try #require(s.operations.last)
  #expect(write.kind == .writeNDEF)
  #expect(write.outcome != .ok)
}

/// No GET_VERSION (Android): the factory Lock Control TLV names page 40 as the lock page, so
/// a WRITE of `FF FF FF 00` there leaves its RFUI byte 3 as it was, not "written 00" (it reads
/// BDh on a real NTAG216; diff-sim A5).
@Test func lockPageRFUIByteIsNotWrittenWithoutGetVersion() throws {
  var b = TraceBuilder()
  b.activateType2()
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE, 0, 0, 0, 0])
  b.write(40, [0xFF, 0xFF, 0xFF, 0x00])
  let s = try #require(try sessions(b).first)
  #expect(s.memory.type2End.known(160, 3) == [0xFF, 0xFF, 0xFF])
  #expect(s.memory.type2End.state(163) == .unknown)
}

/// Simulator: a write refused after it cleared the length leaves an empty message, and the
/// next readNDEF gets 403 — it read on to the old length and returned the old message
/// (diff-sim S1).
@Test func simulatedReadAfterATornWriteFindsTheEmptyMessage() throws {
  let old: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
  let new: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x04] + Array("example-long.com".utf8)
  let scenario = Scenario(
    name: "stale", seed: 1,
    tag: TagSpec(type: .ntag215, uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], ndef: old),
    reader: .ios, actions: [.connect, .readNDEF, .writeNDEF(message: new), .readNDEF],
    faults: [.nakOnPage(page: 5, code: 0)])
  let run = try Simulator.run(scenario)
  let last = try #require(run.truth.operations.last)
  #expect(last.kind == "readNDEF")
  #expect(last.error?.code == 403)
}

/// Proprietary read access (80h–FEh) passes libnfc-nci's CC check: only FFh and RFU values
/// make the tag not NDEF (review 2026-12-04d).
@Test func proprietaryReadAccessStaysNDEF() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.selectType4NDEFFile(read: 0x80)
  let s = try #require(try sessions(b).first)
  #expect(s.ndefStatus?.status != .notSupported)
}

/// Another maker's tag: the Lock Control TLV's page gets no NXP RFUI byte, so a WRITE's
/// byte 3 is recorded (review 2026-12-04d).
@Test func foreignLockPageWriteKeepsItsLastByte() throws {
  var b = TraceBuilder()
  b.activateType2(uid: [0x05, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE, 0, 0, 0, 0])
  b.write(40, [0xFF, 0xFF, 0xFF, 0x00])
  let s = try #require(try sessions(b).first)
  #expect(s.memory.type2End.state(163) == .written)
}
