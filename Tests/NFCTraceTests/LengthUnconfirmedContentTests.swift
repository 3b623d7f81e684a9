import Testing

@testable import NFCTrace

/// A writeNDEF whose every message byte was acknowledged and whose last write, of the NDEF
/// TLV length, got no answer: with `--expect` of that very message, the note says the tag
/// holds it if the length landed (new-user trial: it said "differs" and, in the same
/// sentence, that the bytes match).
@Test func matchingMessageWithAnUnansweredLengthIsNotADifference() throws {
  let message: [UInt8] =
    [0xD1, 0x01, 0x49, 0x55, 0x04] + Array("example.com/".utf8)
    + Array(repeating: 0x78, count: 60)
  let scenario = Scenario(
    name: "length-last-unanswered", seed: 7,
    tag: TagSpec(type: .ntag213, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]),
    reader: .ios, actions: [.connect, .queryNDEFStatus, .writeNDEF(message: message)],
    faults: [.removeAfterWrites(count: 21)])
  let run = try Simulator.run(scenario)
  let report = try DiagnosisRun(importer: MemoryImporter(frames: run.frames))
    .diagnose(expected: message)
  let f = try #require(report.findings.first { $0.code == "content-differs-from-expected" })
  #expect(f.severity == .info)
  #expect(f.cause == "the intended message is on the tag only if its length's write landed")
  #expect(
    f.message
      == "The app meant to write 77 bytes: every byte of it is on the tag, and the tag holds "
      + "exactly that message if the last write, of the NDEF TLV length (which got no answer), "
      + "reached its memory; otherwise the NDEF TLV length is still 0: an empty message "
      + "(readNDEF reports 403).")
  #expect(report.findings.contains { $0.code == "ndef-length-uncertain" })
}
