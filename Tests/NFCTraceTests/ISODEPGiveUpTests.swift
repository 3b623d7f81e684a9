import Testing

@testable import NFCTrace

/// ISO-DEP exchanges the reader gives up on although the tag keeps answering: a wrong block
/// number (ISO/IEC 14443-4 §7.5.4.2: a reader takes only an I-block whose number matches its
/// own, nfc-facts §2.6), answers damaged every time (nfc-facts §8.2, 101), an invalid S(WTX)
/// (§7.3: WTXM 1…59, nfc-facts §2.5). None of them is a success, nor the tag leaving.
@Suite struct ISODEPGiveUpTests {
  static let ok: [UInt8] = [0x90, 0x00]
  /// A 5-byte NDEF message (an empty URI record).
  static let message: [UInt8] = [0xD1, 0x01, 0x01, 0x55, 0x00]

  /// Activation and query (NLEN 5, frames 0–17), then READ BINARY of the message in I-block 1
  /// (frame 18).
  static func readStart() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x05])
    return b
  }

  /// The tag answers the READ with I-block 0 where 1 is due, and again after each of the
  /// reader's two R(NAK)s; the reader deselects. The read failed (102), not succeeded.
  @Test func wrongBlockNumberRejectedFailsTheRead() throws {
    var b = Self.readStart()
    b.tag([0x02] + Self.message + Self.ok)  // 19: block 0, 1 due
    b.reader([0xB3])  // 20: R(NAK) 1
    b.tag([0x02] + Self.message + Self.ok)  // 21
    b.reader([0xB3])  // 22
    b.tag([0x02] + Self.message + Self.ok)  // 23
    b.reader([0xC2])  // 24: S(DESELECT), no answer
    let s = try #require(try sessions(b).first)
    let read = try #require(s.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.outcome == .failed)
    #expect(read.detail("block_number_rejected") == .string("18,19,20,21,22,23"))
    #expect(read.detail("message") == nil)
    let r = try b.diagnose()
    let f = try #require(r.finding("block-number-rejected"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagResponseError)
    #expect(f.operation == 2)
    #expect(f.frames == [18, 19, 20, 21, 22, 23])
    #expect(
      r.sessions.first?.verdicts == [
        OperationVerdict(operation: 2, kind: .readNDEF, verdict: .failed)
      ])
  }

  /// The same wrong block, then after the reader's R(NAK) the right one: the read succeeded,
  /// and the ISO-DEP layer flags only the wrong block (the reader kept its number).
  @Test func wrongBlockNumberRecoveredStaysOk() throws {
    var b = Self.readStart()
    b.tag([0x02] + Self.message + Self.ok)  // 19
    b.reader([0xB3])  // 20
    b.tag([0x03] + Self.message + Self.ok)  // 21: block 1, the right one
    b.reader([0xC2])  // 22
    b.tag([0xC2])  // 23
    let (frames, _) = decodeAll(b.frames)
    let flagged = frames.filter { $0.findings.contains { $0.code == "unexpected-block-number" } }
    #expect(flagged.map(\.frame.index) == [19])
    let read = try #require(try sessions(b).first?.operations.last)
    #expect(read.outcome == .ok)
    #expect(read.detail("message") == .hex(Self.message))
    let r = try b.diagnose()
    #expect(r.finding("block-number-rejected") == nil)
    #expect(r.sessions.first?.verdicts == [])
  }

  /// The UPDATE of the message data gets no answer; after the reader's R(NAK) the tag sends
  /// its old 9000 (block 0, 1 due) twice, which answers nothing: the write was interrupted
  /// with its data unacknowledged (100), not a write whose data was acknowledged.
  @Test func staleBlockDoesNotAnswerTheUpdate() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0x03, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00])  // 18: UPDATE NLEN 0
    b.tag([0x03] + Self.ok)  // 19
    b.reader([0x02, 0x00, 0xD6, 0x00, 0x02, 0x05] + Self.message)  // 20: no answer
    b.reader([0xB2], gapUs: 40_000)  // 21: R(NAK) 0
    b.tag([0x03] + Self.ok)  // 22: the old answer, block 1, 0 due
    b.reader([0xB2])  // 23
    b.tag([0x03] + Self.ok)  // 24
    b.reader([0xC2])  // 25: no answer
    let write = try #require(try sessions(b).first?.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .interrupted)
    #expect(write.reason?.hasPrefix("the tag answered UPDATE") == true)
    #expect(write.detail("block_number_rejected") == .string("20,21,22,23,24"))
    let r = try b.diagnose()
    let f = try #require(r.finding("block-number-rejected"))
    #expect(f.coreNFCError == .tagConnectionLost)
    #expect(f.frames == [20, 21, 22, 23, 24])
    #expect(r.sessions.first?.verdicts.map(\.verdict) == [.interrupted])
    #expect(
      r.finding("write-interrupted")?.cause
        == "the tag gave no valid answer to UPDATE NDEF data offset 2 Lc 5 during writeNDEF: "
        + "only an I-block of the wrong block number")
    // Not "all acknowledged": the data's UPDATE has no valid answer.
    #expect(r.findings.allSatisfy { !$0.message.contains("all acknowledged") })
  }

  /// The READ's answer arrives damaged (`parity` errors, or a bad CRC), and so does each copy
  /// after the reader's two R(NAK)s; the reader deselects: the read failed with 101, parity and
  /// CRC alike, the READ and the first damaged answer in the evidence.
  @Test(arguments: [true, false])
  func damagedAnswerRetriesExhaustedFailTheRead(parity: Bool) throws {
    var b = Self.readStart()
    for i in 0..<3 {
      if i > 0 { b.reader([0xB3]) }  // 20, 22
      b.tag([0x03] + Self.message + Self.ok, badCRC: !parity, parity: parity ? [2] : [])
    }
    b.reader([0xC2])  // 24
    let read = try #require(try sessions(b).first?.operations.last)
    #expect(read.kind == .readNDEF)
    #expect(read.outcome == .failed)
    #expect(read.detail("answer_damaged_retries") == .int(2))
    let r = try b.diagnose()
    let f = try #require(r.finding("command-retried"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .retryExceeded)
    #expect(f.frames == [18, 19, 20, 22, 23])
    // The damage led to the 101: it names no error of its own.
    #expect(r.finding("rf-damaged-frames")?.coreNFCError == nil)
    #expect(
      r.sessions.first?.verdicts == [
        OperationVerdict(operation: 2, kind: .readNDEF, verdict: .failed)
      ])
  }

  /// One damaged copy, then an intact one after R(NAK): the read succeeded.
  @Test func damagedAnswerRecoveredStaysOk() throws {
    var b = Self.readStart()
    b.tag([0x03] + Self.message + Self.ok, parity: [2])
    b.reader([0xB3])
    b.tag([0x03] + Self.message + Self.ok)
    b.reader([0xC2])
    b.tag([0xC2])
    let read = try #require(try sessions(b).first?.operations.last)
    #expect(read.outcome == .ok)
    #expect(try b.diagnose().sessions.first?.verdicts == [])
  }

  /// The tag answers the READ with S(WTX) WTXM 0; the reader R(NAK)s it twice and the tag
  /// stays silent: the read failed on the invalid S(WTX) (102), not on a tag taken away.
  @Test func invalidWTXMRejectedFailsTheRead() throws {
    var b = Self.readStart()
    b.tag([0xF2, 0x00])  // 19: S(WTX) WTXM 0
    b.reader([0xB3])  // 20: no answer
    b.reader([0xB3], gapUs: 40_000)  // 21: no answer
    let read = try #require(try sessions(b).first?.operations.last)
    #expect(read.outcome == .failed)
    #expect(read.reason?.contains("S(WTX) request the reader could not accept (frame 19") == true)
    #expect(read.detail("invalid_wtx_rejected") == .string("18,19,20,21"))
    let r = try b.diagnose()
    let f = try #require(r.finding("invalid-wtxm"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == .tagResponseError)
    #expect(f.frames == [18, 19, 20, 21])
    #expect(r.finding("read-interrupted") == nil)
  }

  /// S(WTX) WTXM 0 the reader answers anyway, then the answer: the read succeeded, and
  /// diagnose warns about the invalid WTXM.
  @Test func invalidWTXMAnsweredIsAWarning() throws {
    var b = Self.readStart()
    b.tag([0xF2, 0x00])  // 19
    b.reader([0xF2, 0x00])  // 20: S(WTX) answer
    b.tag([0x03] + Self.message + Self.ok)  // 21
    let read = try #require(try sessions(b).first?.operations.last)
    #expect(read.outcome == .ok)
    let f = try #require(try b.diagnose().finding("invalid-wtxm"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.frames == [19])
  }
}
