import Foundation
import TestSupport
import Testing

@testable import NFCTrace

// A sniffer that misses one side of the exchange: the trace says so, and a tag's CRC-carrying
// 1-byte frame (a SAK) is never taken for a 4-bit Type 2 ACK/NAK.

private func run(_ frames: [Frame]) throws -> (frames: [DecodedFrame], warnings: [TraceWarning]) {
  var pipeline = FramePipeline(importer: MemoryImporter(frames: frames))
  var out: [DecodedFrame] = []
  while let f = try pipeline.next() { out.append(f) }
  return (out, pipeline.warnings)
}

private func readWriteTrace() -> [Frame] {
  var b = TraceBuilder()
  b.activateType2()
  b.read(3, [0xE1, 0x10, 0x12, 0x00] + [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9))
  b.write(4, [0x03, 0x00, 0xFE, 0x00])
  b.write(5, [0x00, 0x00, 0x00, 0x00])
  return b.frames
}

@Suite struct OneSidedCaptureTests {
  @Test func readerOnlyTraceIsWarned() throws {
    let frames = readWriteTrace().filter { $0.direction != .tag }
    let (decoded, warnings) = try run(frames)
    #expect(decoded.allSatisfy { $0.response == .unanswered || $0.response == .noAnswerExpected })
    #expect(
      warnings.map(\.message) == [
        "the trace has \(frames.count) reader frames and no tag frame, but the reader sent "
          + "commands (anticollision, SELECT, …) that it sends only to a tag that answered: the "
          + "capture missed the tag's answers (a sniffer antenna that picks up the reader's field "
          + "but not the tag's load modulation; move it closer to the tag). Commands are shown "
          + "as unanswered, but whether the tag answered is unknown"
      ])
    #expect(warnings.first?.location == frames.first?.location)
  }

  @Test func tagOnlyTraceIsWarnedAndItsSAKIsNoNAK() throws {
    let frames = readWriteTrace().filter { $0.direction != .reader }
    let (decoded, warnings) = try run(frames)
    #expect(warnings.count == 1)
    #expect(
      warnings.first?.message.hasPrefix(
        "the trace has \(frames.count) tag frames and no reader frame: the capture missed the "
          + "reader's commands") == true)
    // The SAK 00 + CRC_A of the second cascade level: a CRC ok, so not a 4-bit NAK 0.
    let sak = try #require(decoded.first { $0.frame.data == CRC.appendingCRCA([0x00]) })
    #expect(sak.frame.crc == .ok)
    #expect(sak.innermost?.name != "NAK")
    #expect(decoded.allSatisfy { $0.innermost?.name != "NAK" })
  }

  /// A reader polling an empty field (real NFC-Laboratory captures of REQA, REQB and FeliCa
  /// polls) missed nothing: no warning.
  @Test(arguments: ["test_POLL_AB_001.json", "test_POLL_ABF_001.json"])
  func pollingAloneIsNoMissedAnswer(_ name: String) throws {
    let input = try TraceInput(path: TestPaths.shared("public/nfc-laboratory/" + name))
    var pipeline = FramePipeline(importer: try NFCLabImporter(input: input))
    var count = 0
    while try pipeline.next() != nil { count += 1 }
    #expect(count >= 4)
    #expect(pipeline.warnings.isEmpty)
  }

  /// A reader-side log (CRCs stripped by the reader chip) gets no sniffer-antenna advice.
  @Test func readerSideLogWithoutAnswersIsNotBlamedOnAnAntenna() throws {
    let frames = readWriteTrace().filter { $0.direction != .tag }.map { f -> Frame in
      var f = f
      if f.data.count >= 3, CRC.hasValidCRCA(f.data) {
        f.data.removeLast(2)
        f.crc = .notCaptured
      }
      return f
    }
    let warning = try #require(try run(frames).warnings.first?.message)
    #expect(warning.contains("the tag's answers are missing from this reader-side log or capture"))
    #expect(!warning.contains("antenna"))
  }

  /// Review: an iPhone's MagSafe WUPA polls (7A–7D) answered by nobody are polls too.
  @Test func magSafePollingIsNoMissedAnswer() throws {
    var b = TraceBuilder()
    for byte: UInt8 in [0x7A, 0x7B, 0x7C, 0x7D, 0x7A, 0x7B] { b.reader([byte], crc: false) }
    #expect(try run(b.frames).warnings.isEmpty)
  }

  @Test func bothSidesOrTooFewFramesGiveNoWarning() throws {
    #expect(try run(readWriteTrace()).warnings.isEmpty)
    #expect(
      try run(Array(readWriteTrace().filter { $0.direction == .reader }.prefix(3))).warnings.isEmpty
    )
  }

  /// A reader-only capture still has its session: the reader's SELECTs give the UID, its
  /// commands the operations, each of unknown outcome, and the diagnosis judges nothing but
  /// says the tag was not captured (new-user pass: "no sessions" before).
  @Test func readerOnlyTraceKeepsItsSessionWithUnknownOutcomes() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9))
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    b.reader([0x50, 0x00])
    b.activateType2(uid: [0x04, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44])
    b.read(3, [0xE1, 0x10, 0x12, 0x00])
    let frames = b.frames.filter { $0.direction != .tag }
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    #expect(sessions.map(\.tag.uidString) == ["04:11:22:33:44:55:66", "04:99:88:77:66:55:44"])
    #expect(sessions[0].info.firstFrame == 2)
    #expect(
      sessions[0].operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect unknown", "queryNDEFStatus unknown", "writeNDEF unknown",
      ])
    #expect(sessions.allSatisfy { !$0.tagHeard })
    let report = try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    #expect(
      report.sessions.map { $0.findings.map(\.code) } == [
        ["tag-not-captured"], ["tag-not-captured"],
      ])
    #expect(report.sessions.allSatisfy { $0.verdicts.isEmpty })
    #expect(report.sessions[0].findings[0].message.contains("including 1 write(s)"))
  }

  /// A SAK lost in a capture that has the tag's other frames: the reader's next command shows
  /// the UID was complete (ISO/IEC 14443-3 §6.5.3.4), so the UID is still known.
  @Test func missedSAKStillCompletesTheUID() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00])
    var frames = b.frames
    frames.remove(at: 9)  // SAK 00 of CL2
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    #expect(sessions.map(\.tag.uidString) == ["04:11:22:33:44:55:66"])
    #expect(sessions.first?.tagHeard == true)
  }

  /// The reader polling after the tag left (ECP + WUPA nobody answers, within the session's
  /// silence limit) makes no connect operation (field engineer pass, t2-36: four "connect ok").
  @Test func unansweredPollsMakeNoConnect() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00])
    for _ in 0..<3 {
      b.reader([0x6A, 0x02, 0xC8, 0x01, 0x00, 0x03, 0x00, 0x02, 0x79, 0x00, 0x00, 0x00, 0x00])
      b.reader([0x52], crc: false, gapUs: 1_000)
    }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
  }

  /// Review: in a two-sided capture, a SELECT nobody answered followed by HLTA is a failed
  /// connect, not a UID completed from the reader's SELECTs.
  @Test func unansweredSelectThenHaltIsNoMissedSAK() throws {
    var b = TraceBuilder()
    b.activateType2()
    var frames = b.frames
    frames.removeLast()  // SAK 00 of CL2
    var h = TraceBuilder()
    h.timeNs = (frames.last?.timeNs ?? 0) + 1_000_000
    h.reader([0x50, 0x00])
    frames += h.frames.map {
      var f = $0
      f.index += frames.count
      return f
    }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.tag.uid.isEmpty)
    #expect(s.operations.first?.outcome != .ok)
  }

  /// Review: a capture that starts on unanswered commands, then a tag's activation: the
  /// leading commands are a session of their own (tag not captured), the activation opens the
  /// next, and the two do not disagree between sessions and diagnose.
  @Test func leadingUnansweredCommandsAreTheirOwnSession() throws {
    var b = TraceBuilder()
    b.write(4, [0x03, 0x0A, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x0A, 0xD1, 0x01], .none)
    b.gapUs = 20_000
    b.activateType2()
    b.gapUs = 400
    b.read(3, [0xE1, 0x10, 0x3E, 0x00])
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
    #expect(sessions.count == 2)
    #expect(sessions.map(\.tagHeard) == [false, true])
    let r = try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(expected: nil)
    #expect(r.sessions[0].findings.map(\.code) == ["tag-not-captured"])
    #expect(r.sessions[1].findings.isEmpty)
  }
}
