import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the twenty-first session (a Xerox type B capture, new-user reading of
/// `diagnose`).
@Suite struct Pass24RegressionTests {
  /// An ISO-DEP answer the sniffer missed in an operation that radio damage later
  /// interrupted: the finding no longer says the outcome is unknown (the verdict said
  /// INTERRUPTED), it says what settled it.
  @Test func missedAnswerInAnInterruptedOperationSaysWhatSettledIt() throws {
    let r = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_visa_apple_normal.trace"))
    let f = try #require(r.finding("answer-not-captured"))
    #expect(f.frames == [633])
    #expect(r.sessions[1].analysis.operations[f.operation ?? -1].outcome == .interrupted)
    #expect(
      f.message.hasSuffix("The operation's outcome (interrupted) rests on the frames after it."))
  }

  /// A Type 2 WRITE whose ACK the sniffer missed, the reader going on: the outcome is unknown,
  /// and the finding says so.
  @Test func missedType2AnswerLeavesTheOutcomeUnknown() throws {
    var b = queriedNTAG213()
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(5, [0x04, 0x55, 0x04, 0x61])
    let f = try #require(try b.diagnose().finding("answer-not-captured"))
    #expect(f.message.hasSuffix("So the operation's outcome is unknown."))
  }
}

/// An NTAG213 queried: CC (write access 0h), then an empty NDEF TLV.
private func queriedNTAG213() -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
  return b
}

/// writeLock on Type 2 that stopped after the CC: the tag is half-locked.
@Suite struct Pass24HalfLockTests {
  /// CC write access Fh acknowledged, then the static lock bytes refused: the NAK gives 401,
  /// and t2t-lock-incomplete says the CC already reads read-only while pages 4–15 stay
  /// writable (it fired only for a writeLock that ended ok).
  @Test func lockBitsRefusedAfterTheCC() throws {
    var b = queriedNTAG213()
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    let cc = b.frames.count - 2
    b.write(2, [0x00, 0x00, 0xFF, 0xFF], .nak(0))
    let lock = b.frames.count - 2
    let r = try b.diagnose()
    #expect(r.codes.sorted() == ["t2t-lock-incomplete", "t2t-nak-unexplained"])
    let f = try #require(r.finding("t2t-lock-incomplete"))
    #expect(f.frames == [cc, lock])
    #expect(f.coreNFCError == nil)
    #expect(
      f.cause
        == "the lock stopped after the CC: its WRITE of the lock bits on page 2 (0x2) was "
        + "refused, pages 4–15 stay writable")
  }

  /// The tag left the field at the dynamic lock bytes (NTAG213 page 40) after the CC and the
  /// static lock: pages 16–39 stay writable.
  @Test func dynamicLockUnansweredAfterTheCC() throws {
    var b = queriedNTAG213()
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    b.write(2, [0x00, 0x00, 0xFF, 0xFF])
    b.write(40, [0xFF, 0xFF, 0xFF, 0x00], .none)
    let f = try #require(try b.diagnose().finding("t2t-lock-incomplete"))
    #expect(f.cause.hasSuffix("on page 40 (0x28) got no answer, pages 16–39 stay writable"))
  }

  /// A lock refused at the CC itself leaves nothing half-locked: no such finding.
  @Test func lockRefusedAtTheCCIsNotHalfLocked() throws {
    var b = queriedNTAG213()
    b.write(3, [0xE1, 0x10, 0x12, 0x0F], .nak(0))
    #expect(try b.diagnose().finding("t2t-lock-incomplete") == nil)
  }
}

/// The text timeline's columns.
@Suite struct Pass24TimelineColumnTests {
  /// A Type 2 READ answer (16 bytes and CRC_A) fits the bytes column: its CRC mark lines up
  /// with the READ's (it pushed the mark and meaning 2 characters right).
  @Test func readAnswerKeepsTheCRCColumn() throws {
    let b = queriedNTAG213()
    let lines = try streamedTimeline(b)
    let request = try #require(lines.first { $0.contains("READ page 3") && $0.contains("R→T") })
    let answer = try #require(lines.first { $0.contains("READ page 3 →") })
    let column = try #require(request.range(of: " ok   READ page 3")).lowerBound
    let answerColumn = try #require(answer.range(of: " ok   READ page 3 →")).lowerBound
    #expect(request.distance(from: request.startIndex, to: column) == 89)
    #expect(answer.distance(from: answer.startIndex, to: answerColumn) == 89)
  }
}

/// The lock-page NAK names the memory the lock page follows.
@Suite struct Pass24LockPageTests {
  /// NTAG216: the dynamic lock bytes follow the 888-byte user memory (page 226), not the
  /// CC's 872-byte data area (which ends at page 221).
  @Test func ntag216LockPageFollowsTheUserMemory() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03])
    b.read(3, [0xE1, 0x10, 0x6D, 0x00, 0x03, 0x00, 0xFE])
    b.write(0xE2, [0xFF, 0xFF, 0xFF, 0x00], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-lock-page"))
    #expect(
      f.message.hasPrefix(
        "Page 226 (0xE2) is not NDEF data: it is the first page after the 888-byte user memory,"))
  }
}
