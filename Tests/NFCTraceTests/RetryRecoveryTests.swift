import Testing

@testable import NFCTrace

/// Refusals a reader's repeat of the command makes up for: the operation succeeded, the
/// refusal stays visible as a warning (field engineer pass 8: t2-14, t4-20, t4-10).
@Suite struct RetryRecoveryTests {
  /// NAK 5 (EEPROM write error) on WRITE page 5, the same WRITE again, ACK.
  @Test func nak5ThenAcknowledgedRepeatSucceeds() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x54, 0x02, 0x65], .nak(5))
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x41, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let write = try #require(try sessions(b).first?.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .ok)
    #expect(write.detail("nak_code") == nil)
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.last?.verdict == .succeeded)
    let f = try #require(r.finding("t2t-nak-eeprom-error"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.cause.hasSuffix("and the WRITE sent again was acknowledged"))
    // Without the repeat the write failed (401).
    var once = TraceBuilder()
    once.activateType2(version: ntag213Version)
    once.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    once.write(4, [0x03, 0x00, 0xD1, 0x01])
    once.write(5, [0x04, 0x54, 0x02, 0x65], .nak(5))
    // Refused twice, accepted on the third copy: the stack's retries (up to 5), still ok.
    var twice = TraceBuilder()
    twice.activateType2(version: ntag213Version)
    twice.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    twice.write(4, [0x03, 0x00, 0xD1, 0x01])
    twice.write(5, [0x04, 0x54, 0x02, 0x65], .nak(5))
    twice.write(5, [0x04, 0x54, 0x02, 0x65], .nak(5))
    twice.write(5, [0x04, 0x54, 0x02, 0x65])
    twice.write(6, [0x6E, 0x41, 0xFE, 0x00])
    twice.write(4, [0x03, 0x08, 0xD1, 0x01])
    let again = try #require(try sessions(twice).first?.operations.last)
    #expect(again.outcome == .ok)
    #expect(again.failedFrames.count == 2)
    let failed = try #require(try once.diagnose().finding("t2t-nak-eeprom-error"))
    #expect(failed.severity == .error)
    #expect(failed.coreNFCError == .tagUpdateFailure)
  }

  /// SW 6581 (memory failure) to an UPDATE BINARY, the same UPDATE again, 9000.
  @Test func memoryFailureThenAcceptedRepeatSucceeds() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    let ok: [UInt8] = [0x90, 0x00]
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    let data: [UInt8] = [0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00]
    b.apdu(data, [0x65, 0x81])
    b.apdu(data, ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x05], ok)
    let write = try #require(try sessions(b).first?.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .ok)
    #expect(write.failedFrames.count == 1)
    let f = try #require(try b.diagnose().finding("t4t-memory-failure"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
  }

  /// READ BINARY with Le 00 answered 6Cxx, sent again with Le = xx (ISO/IEC 7816-4 §5.6):
  /// one query and one readNDEF, both ok, and nothing to diagnose.
  @Test func wrongLeCorrectedIsNoFailure() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x00], [0x6C, 0x0F])
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x05] + ok)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x00], [0x6C, 0x05])
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x00] + ok)
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(ops.map(\.outcome) == [.ok, .ok, .ok])
    #expect(ops[2].detail("message") == .hex([0xD1, 0x01, 0x01, 0x54, 0x00]))
    #expect(try b.diagnose().findings.isEmpty)
  }

  /// A WRITE captured damaged (bad CRC: its bytes as captured differ from the ones sent),
  /// NAK 1, then the WRITE of the same page sent again and acknowledged: one writeNDEF, ok
  /// (field engineer pass 8 t2-15: two operations, a false ndef-torn).
  @Test func damagedWriteRepeatedIsOneOperation() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.reader([0xA2, 0x05, 0x04, 0x44, 0x02, 0x65], badCRC: true)  // 54 damaged to 44
    b.add4Bit(0x01)
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x41, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(ops.last?.outcome == .ok)
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.succeeded])
    #expect(r.finding("ndef-torn") == nil)
  }

  /// A write cut by a NAK (length left 0), a reactivation, and a second writeNDEF that
  /// finishes the message: the first is judged by what it left (no ndef-torn from the
  /// length the second wrote), and the second wrote no data over a standing old length
  /// (field engineer pass 8 t2-14b).
  @Test func laterWriteSupersedesTheFailedOne() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x09, 0xD1, 0x01, 0x05, 0x54, 0x02, 0x65]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x04, 0x54, 0x02, 0x65], .nak(0))
    b.activateType2()
    b.write(5, [0x04, 0x54, 0x02, 0x65])
    b.write(6, [0x6E, 0x41, 0xFE, 0x00])
    b.write(4, [0x03, 0x08, 0xD1, 0x01])
    let r = try b.diagnose()
    #expect(r.finding("ndef-torn") == nil)
    #expect(r.finding("unsafe-write-order") == nil)
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.failed, .succeeded])
  }
}

/// 61xx answers (ISO/IEC 7816-4 §5.6: done, xx bytes wait for GET RESPONSE): the SELECT
/// succeeded, a READ's data comes with GET RESPONSE and fills the file image (field engineer
/// pass 8 t4-11: notSupported, readNDEF failed, message lost).
@Suite struct GetResponseTests {
  /// The CC fetched with GET RESPONSE names the NDEF file (0001 here): the layer knows it,
  /// and the message read from that file is the readNDEF (attacker pass).
  @Test func capabilityContainerFetchedWithGetResponse() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], [0x61, 0x0F])
    b.apdu(
      [0x00, 0xC0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0x00, 0x01, 0x00, 0xFF, 0x00, 0x00]
        + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x00, 0x01], ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x05] + ok)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x05], [0xD1, 0x01, 0x01, 0x54, 0x00] + ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations.last?.detail("message") == .hex([0xD1, 0x01, 0x01, 0x54, 0x00]))
  }

  @Test func dataFetchedWithGetResponseIsTheReadsData() throws {
    let ok: [UInt8] = [0x90, 0x00]
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x61, 0x04])
    b.apdu([0x00, 0xC0, 0x00, 0x00, 0x04], [0x6F, 0x02, 0x84, 0x00] + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], ok)
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x05] + ok)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x00], [0x61, 0x05])
    // Fetched in two parts: 3 bytes with 61 02, then the last 2 with 9000.
    b.apdu([0x00, 0xC0, 0x00, 0x00, 0x03], [0xD1, 0x01, 0x01, 0x61, 0x02])
    b.apdu([0x00, 0xC0, 0x00, 0x00, 0x02], [0x54, 0x00] + ok)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations.map(\.outcome) == [.ok, .ok, .ok])
    #expect(s.ndefStatus?.status == .readWrite)
    #expect(s.operations[2].detail("message") == .hex([0xD1, 0x01, 0x01, 0x54, 0x00]))
    // The Type 4 layer decodes the fetched bytes as the READ's next part.
    let frames = decodeAll(b.frames).0
    #expect(frames.last?.layer(.type4)?.summary == "NDEF data at message offset 3: 2 byte(s)")
    // T4T expects 9000 with the data: each NDEF command answered 61xx is warned.
    #expect(try b.diagnose().codes == ["t4t-get-response", "t4t-get-response"])
  }
}
