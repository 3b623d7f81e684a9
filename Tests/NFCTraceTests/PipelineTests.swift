import Testing

@testable import NFCTrace

/// A decoded frame built by hand, for the pairing and session stages.
private func decoded(
  _ index: Int, _ direction: Direction, ms: Int64, activation: Bool = false, uid: [UInt8]? = nil,
  name: String? = nil, event: FrameEvent? = nil
) -> DecodedFrame {
  let frame = Frame(
    index: index, timeNs: ms * 1_000_000, direction: direction, event: event,
    data: direction == .event ? [] : [0x26],
    location: SourceLocation(file: "t", unit: "record", record: index + 1, offset: 0))
  let f = DecodedFrame(frame: frame)
  f.startsActivation = activation
  f.completedUID = uid
  if let name { f.layers = [LayerDecode(.iso14443A, name, name)] }
  if direction == .event { f.expectsResponse = false }
  return f
}

private func run(_ frames: [DecodedFrame]) -> ([DecodedFrame], [SessionInfo]) {
  var pairer = TransactionPairer()
  var seg = SessionSegmenter()
  var out: [DecodedFrame] = []
  for f in frames {
    for p in pairer.push(f) { out += seg.push(p) }
  }
  for p in pairer.flush() { out += seg.push(p) }
  out += seg.finish()
  return (out, seg.sessions)
}

@Test func pairerLinksRequestsAndMarksUnanswered() {
  var pairer = TransactionPairer()
  #expect(pairer.push(decoded(0, .reader, ms: 0)).isEmpty)
  let pair = pairer.push(decoded(1, .tag, ms: 1))
  #expect(pair.map(\.frame.index) == [0, 1])
  #expect(pair[0].response == .answeredBy(1))
  #expect(pair[1].response == .answers(0))
  #expect(pairer.push(decoded(2, .reader, ms: 2)).isEmpty)
  let next = pairer.push(decoded(3, .reader, ms: 3))
  #expect(next.map(\.frame.index) == [2])
  #expect(next[0].response == .unanswered)
  let halt = decoded(4, .reader, ms: 4)
  halt.expectsResponse = false
  _ = pairer.push(halt)
  let end = pairer.flush()
  #expect(end.map(\.frame.index) == [4])
  #expect(end[0].response == .noAnswerExpected)
}

@Test func unansweredPollsHaveNoSessionAndActivationsOpenOne() {
  let frames = [
    decoded(0, .reader, ms: 0, activation: true, name: "REQA"),
    decoded(1, .reader, ms: 5, activation: true, name: "REQA"),
    decoded(2, .tag, ms: 6, name: "ATQA"),
    decoded(3, .reader, ms: 7),
    decoded(4, .tag, ms: 8, uid: [1, 2, 3, 4]),
    decoded(5, .reader, ms: 9),
    decoded(6, .tag, ms: 10),
  ]
  let (out, sessions) = run(frames)
  #expect(out.map(\.frame.index) == [0, 1, 2, 3, 4, 5, 6])
  #expect(out.map(\.session) == [nil, 0, 0, 0, 0, 0, 0])
  #expect(sessions.count == 1)
  #expect(sessions.first?.uid == [1, 2, 3, 4])
  #expect(sessions.first?.firstFrame == 1)
  #expect(sessions.first?.lastFrame == 6)
}

@Test func sessionsSplitAtFieldOffHaltSilenceAndNewUID() {
  let frames = [
    decoded(0, .reader, ms: 0, activation: true), decoded(1, .tag, ms: 1, uid: [1]),
    decoded(2, .reader, ms: 2, name: "HLTA"),
    // After HLTA: new session.
    decoded(3, .reader, ms: 3, activation: true), decoded(4, .tag, ms: 4, uid: [1]),
    // Re-activation without HLTA or silence: same UID stays in the session.
    decoded(5, .reader, ms: 5, activation: true), decoded(6, .tag, ms: 6, uid: [1]),
    // Re-activation finding another UID: new session from the activation frame on.
    decoded(7, .reader, ms: 7, activation: true), decoded(8, .tag, ms: 8),
    decoded(9, .reader, ms: 9), decoded(10, .tag, ms: 10, uid: [2]),
    decoded(11, .event, ms: 11, event: .fieldOff),
    // After silence: new session.
    decoded(12, .reader, ms: 500, activation: true), decoded(13, .tag, ms: 501, uid: [2]),
  ]
  let (out, sessions) = run(frames)
  #expect(out.map(\.frame.index) == Array(0...13))
  #expect(out.map(\.session) == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, nil, 3, 3])
  #expect(sessions.map(\.uid) == [[1], [1], [2], [2]])
  #expect(sessions.map(\.firstFrame) == [0, 3, 7, 12])
}

@Test func millisecondsKeepMicroseconds() {
  #expect(TimelineTextRenderer.milliseconds(1_234_567) == "1.234")
  #expect(TimelineTextRenderer.milliseconds(5_000) == "0.005")
  #expect(TimelineTextRenderer.milliseconds(-91_000) == "-0.091")
}

@Test func crcAMatchesReferenceVectors() {
  // nfc-facts §1.5: "123456789" → 0xBF05; 50 00 → 57 CD; 30 04 → 26 EE.
  #expect(CRC.crcA(Array("123456789".utf8)) == 0xBF05)
  #expect(CRC.appendingCRCA([0x50, 0x00]) == [0x50, 0x00, 0x57, 0xCD])
  #expect(CRC.hasValidCRCA([0x30, 0x04, 0x26, 0xEE]))
  #expect(!CRC.hasValidCRCA([0x30, 0x04, 0x26, 0xEF]))
  #expect(CRC.crcB([0x00, 0x00, 0x00]) == 0xC6CC)
}
