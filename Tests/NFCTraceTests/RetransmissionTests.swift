import Testing

@testable import NFCTrace

/// ISO-DEP error recovery (ISO/IEC 14443-4 §7.5.4) and stack retries, as captured on air:
/// the operations and the memory must come out as if the damage had not happened.
@Suite struct RetransmissionTests {
  private let message: [UInt8] =
    [0xD1, 0x01, 0x1A, 0x55, 0x04] + Array("example.com/retransmitted".utf8)

  /// Activation, query (NLEN = message length), then `exchange` for the READ of the message.
  private func type4Read(_ exchange: (inout TraceBuilder, [UInt8], [UInt8]) -> Void) throws
    -> SessionAnalysis
  {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: UInt16(message.count))
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, UInt8(message.count)])
    exchange(&b, Array(message.prefix(16)), Array(message.dropFirst(16)) + [0x90, 0x00])
    return try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
  }

  private func readMessage(_ s: SessionAnalysis) -> FieldValue? {
    s.operations.first { $0.kind == .readNDEF }?.detail("message")
  }

  /// The last part of a chained answer arrives damaged, the reader sends R(NAK), the tag sends
  /// that part again: the answer is the first part plus the intact copy.
  @Test func damagedLastChainPartResent() throws {
    let s = try type4Read { b, first, rest in
      b.tag([0x13] + first)
      b.reader([0xA2])
      b.tag([0x02] + rest, badCRC: true)
      b.reader([0xB2])
      b.tag([0x02] + rest)
    }
    #expect(readMessage(s) == .hex(message))
  }

  /// The first part arrives damaged and is sent again after R(NAK): it replaces its first
  /// copy in the chain instead of being appended to it.
  @Test func damagedFirstChainPartResent() throws {
    let s = try type4Read { b, first, rest in
      b.tag([0x13] + first, badCRC: true)
      b.reader([0xB3])
      b.tag([0x13] + first)
      b.reader([0xA2])
      b.tag([0x02] + rest)
    }
    #expect(readMessage(s) == .hex(message))
  }

  /// A damaged copy whose status word reads as an error does not fail the read: the intact
  /// copy after R(NAK) says 9000.
  @Test func damagedStatusWordIsNoRefusal() throws {
    let s = try type4Read { b, first, rest in
      b.tag([0x03] + first + Array(rest.dropLast(2)) + [0x6A, 0x82], badCRC: true)
      b.reader([0xB3])
      b.tag([0x03] + first + rest)
    }
    let read = try #require(s.operations.first { $0.kind == .readNDEF })
    #expect(read.outcome == .ok)
    #expect(readMessage(s) == .hex(message))
  }

  private func type2Write(_ writes: (inout TraceBuilder) -> Void) throws -> [Operation] {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE, 0x00])
    writes(&b)
    return try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations.filter { $0.kind == .writeNDEF }
  }

  /// Two different WRITEs unanswered, only one retried and acknowledged: page 5 is still
  /// unacknowledged, so the write stays interrupted.
  @Test func recoveryNeedsEverySilentCommandAnswered() throws {
    let ops = try type2Write { b in
      b.write(4, [0x03, 0x00, 0xD1, 0x01])
      b.write(5, [0x01, 0x55, 0x00, 0xFE], .none)
      b.write(6, [0x00, 0x00, 0x00, 0x00], .none)
      b.write(6, [0x00, 0x00, 0x00, 0x00])
      b.write(4, [0x03, 0x05, 0xD1, 0x01])
    }
    #expect(ops.map(\.outcome) == [.interrupted])
  }

  /// NAK 1, then silence, then ACK for the same WRITE: the retries recovered both.
  @Test func nak1ThenSilenceThenACKSucceeds() throws {
    let ops = try type2Write { b in
      b.write(4, [0x03, 0x00, 0xD1, 0x01])
      b.write(5, [0x01, 0x55, 0x00, 0xFE], .nak(1))
      b.write(5, [0x01, 0x55, 0x00, 0xFE], .none)
      b.write(5, [0x01, 0x55, 0x00, 0xFE])
      b.write(4, [0x03, 0x05, 0xD1, 0x01])
    }
    #expect(ops.map(\.outcome) == [.ok])
  }

  /// The same WRITE 1.5 s after it went unanswered is the app calling again (Core NFC had
  /// reported the failure), not the stack's retry: two operations.
  @Test func lateRepeatIsANewCall() throws {
    let ops = try type2Write { b in
      b.write(4, [0x03, 0x00, 0xD1, 0x01])
      b.write(5, [0x01, 0x55, 0x00, 0xFE])
      b.write(4, [0x03, 0x05, 0xD1, 0x01], .none)
      b.reader([0xA2, 0x04, 0x03, 0x05, 0xD1, 0x01], gapUs: 1_500_000)
      b.tag([0x0A], crc: false)
    }
    #expect(ops.map(\.outcome) == [.interrupted, .ok])
  }
}

/// ISO-DEP recovery after a silence, and a chained command cut off (field engineer pass).
@Suite struct ISODEPRecoveryTests {
  private func query() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)  // 5 I-blocks: the reader's next block number is 1
    return b
  }

  /// READ unanswered within FWT, R(NAK), then the tag's I-block (ISO/IEC 14443-4 §7.5.4
  /// rule 11): the answer is the READ's and the readNDEF succeeds.
  @Test func answerAfterRNAKAnswersTheSilentCommand() throws {
    var b = query()
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x05])
    b.reader([0xB3], gapUs: 10_000)
    b.tag([0x03, 0xD1, 0x01, 0x01, 0x54, 0x00, 0x90, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.last.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == "readNDEF ok")
    #expect(try b.diagnose().finding("read-interrupted") == nil)
  }

  /// The tag never got I(0): it answers R(NAK)(0) with R(ACK)(1), its own current number
  /// (§7.5.4.2 rule 12), and the reader sends I(0) again: no block-number finding.
  @Test func tagACKOfANAKCarriesItsOwnNumber() throws {
    var b = query()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])  // I(1)
    b.reader([0x02, 0x00, 0xD6, 0x00, 0x02, 0x01, 0xAA])
    b.reader([0xB2], gapUs: 10_000)
    b.tag([0xA3])
    b.reader([0x02, 0x00, 0xD6, 0x00, 0x02, 0x01, 0xAA])
    b.tag([0x02, 0x90, 0x00])
    let frames = decodeAll(b.frames).0
    #expect(frames.flatMap(\.findings).filter { $0.code == "unexpected-block-number" }.isEmpty)
    // Review: in a reader chain the tag's damaged R(ACK)(1), NAKed with R(NAK)(1), comes again
    // with the NAK's own number (rule 11): valid too.
    var chain = query()
    chain.reader([0x13, 0x00, 0xD6, 0x00, 0x02, 0x10] + Array(repeating: 0x61, count: 8))
    chain.tag([0xA3], badCRC: true)
    chain.reader([0xB3], gapUs: 10_000)
    chain.tag([0xA3])
    let resent = decodeAll(chain.frames).0
    #expect(resent.flatMap(\.findings).filter { $0.code == "unexpected-block-number" }.isEmpty)
  }

  /// A chained block the tag did not get: R(NAK), the tag's R(ACK), the same block again
  /// (ISO/IEC 14443-4 §7.5.4). It replaces its first copy, the APDU is whole, and the write
  /// answered 9000 succeeded (attacker pass: "part 3", malformed APDU, write-interrupted).
  @Test func chainedBlockSentAgainIsOnePart() throws {
    var b = query()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])  // I(1)
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x02, 0x08, 0xD1, 0x01])  // I(0) chained, part 1
    b.tag([0xA2])
    let part2: [UInt8] = [0x13, 0x04, 0x54, 0x02, 0x65]  // I(1) chained, part 2: lost
    b.reader(part2)
    b.reader([0xB3], gapUs: 10_000)  // R(NAK) 1
    b.tag([0xA2])  // R(ACK) 0: the tag did not get it
    b.reader(part2)  // sent again
    b.tag([0xA3])
    b.reader([0x02, 0x6E, 0x41])  // I(0), last part
    b.tag([0x02, 0x90, 0x00])
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x08])  // I(1): the final NLEN
    b.tag([0x03, 0x90, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .ok)
    let frames = decodeAll(b.frames).0
    let readerFrames = frames.filter { $0.frame.direction == .reader }
    #expect(readerFrames.dropLast().last?.innermost?.name == "UPDATE NDEF data")
  }

  /// Review: a chained UPDATE BINARY of another file than the NDEF file is no writeNDEF.
  @Test func chainedUpdateOfAnotherFileIsNoWrite() throws {
    var b = query()
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05], [0x90, 0x00])  // I(1)
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x00, 0x10] + Array(repeating: 0x61, count: 8))
    b.tag([0xA2])
    b.reader([0x03] + Array(repeating: 0x61, count: 8))
    b.tag([0x03, 0x90, 0x00])
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(!s.operations.contains { $0.kind == .writeNDEF })
  }

  /// NLEN 0 acknowledged, then only the first part of the chained UPDATE before the field
  /// went off: the write is interrupted and the tag left empty, not "SUCCEEDED".
  @Test func chainCutOffInterruptsTheWrite() throws {
    var b = query()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])  // I(1)
    b.reader([0x12, 0x00, 0xD6, 0x00, 0x02, 0x30] + Array(repeating: 0x61, count: 20))
    b.tag([0xA2])
    b.event(.fieldOff)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    let write = try #require(s.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .interrupted)
    #expect(write.reason?.hasPrefix("the chained command was cut off after part 1") == true)
    let r = try b.diagnose()
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.interrupted])
    #expect(r.finding("ndef-emptied") != nil)
  }
}

/// ATS parameters that are RFU are warned (spec audit: SFGI 15 passed silently).
@Suite struct ATSRFUTests {
  @Test func sfgi15IsWarned() {
    let ats = ATS([0x05, 0x78, 0x80, 0x4F, 0x02])
    #expect(ats.sfgi == 15)
    #expect(ats.sfgtNs == nil)
    #expect(ats.findings(frameIndex: 3).map(\.code) == ["rfu-sfgi"])
    #expect(ATS([0x05, 0x78, 0x80, 0x40, 0x02]).findings(frameIndex: 3).isEmpty)
  }
}
