import NDEF
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

/// Type 2: a torn message whose length was written last (hunt t2 #5).
@Test func tornMessageWithLengthWrittenLastSaysSo() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(
    3,
    page3(
      cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00] + Array(repeating: 0, count: 8)))
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
