import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Ground-truth findings of the review of 2026-12-07: operations listed in the session that
/// holds them, Core NFC errors only where reference/nfc-facts.md names one.
@Suite struct SimulationTruthSessionTests {
  private static let uid: [UInt8] = [0x04, 0x22, 0x33, 0x44, 0x55, 0x66, 0x22]
  private static let message: [UInt8] = Hex.bytes("d1010c55046578616d706c652e6f7267") ?? []

  private func run(
    _ tag: TagSpec, _ actions: [ScenarioAction], faults: [ScenarioFault] = [], seed: UInt64
  ) throws -> SimulationResult {
    try Simulator.run(
      Scenario(
        name: "test", seed: seed, tag: tag, reader: .ios, actions: actions, faults: faults))
  }

  /// `session first–last: kind first–last, …` for each truth session.
  private func layout(_ t: GroundTruth) -> [String] {
    t.sessions.map { s in
      let ops = s.operations.map { o in
        "\(o.kind) " + (o.firstFrame.map { "\($0)–\(o.lastFrame ?? $0)" } ?? "-")
      }
      return "\(s.firstFrame)–\(s.lastFrame): " + ops.joined(separator: ", ")
    }
  }

  /// Every operation with frames lies inside the frame range of the session listing it.
  private func outsideTheirSession(_ t: GroundTruth) -> [String] {
    t.sessions.flatMap { s in
      s.operations.filter { o in
        guard let a = o.firstFrame, let b = o.lastFrame else { return false }
        return a < s.firstFrame || b > s.lastFrame
      }.map { "\(s.index) \($0.kind)" }
    }
  }

  /// reactivate-before-write: the HLTA ends session 0, the WUPA the tag answers starts session
  /// 1, where the writes run — writeNDEF is listed there (it was in session 0 with frames
  /// 17–29 while session 0 ended at 17), as `nfctrace sessions` splits it (0: …17, 1: 18…).
  @Test func writeAfterReactivationIsInTheSessionWhereItWrites() throws {
    var tag = TagSpec(type: .ntag215, uid: Self.uid)
    tag.auth0 = 4
    tag.pwd = HexBytes([0x12, 0x34, 0x56, 0x78])
    tag.pack = HexBytes([0xAB, 0xCD])
    let r = try run(
      tag,
      [
        .connect, .queryNDEFStatus, .authenticate(password: [0x12, 0x34, 0x56, 0x78]),
        .writeNDEF(message: Self.message),
      ],
      faults: [.reactivateBeforeWrite], seed: 11)
    #expect(
      layout(r.truth) == [
        "0–17: poll 0–4, connect 5–10, queryNDEFStatus 11–14, authenticate 15–16",
        "18–30: writeNDEF 18–29",
      ])
    #expect(r.truth.sessions[1].operations.first?.reason == "NAK 0")
    #expect(outsideTheirSession(r.truth) == [])
  }

  /// restartPolling switches the field off (the last frame of session 0) and polls in session
  /// 1: it is listed in session 1 from its field on (it was in session 0 with frames 19–24).
  @Test func restartPollingIsInTheSessionItPollsIn() throws {
    let tag = TagSpec(
      type: .ntag213, uid: [0x04, 0x22, 0x33, 0x44, 0x55, 0x66, 0x44],
      ndef: Hex.bytes("d1010c55046578616d706c652e636f6d"))
    let r = try run(
      tag,
      [
        .connect, .queryNDEFStatus, .wait(ms: 300), .readNDEF, .restartPolling, .connect, .readNDEF,
      ],
      seed: 13)
    #expect(
      layout(r.truth) == [
        "0–19: poll 0–4, connect 5–10, queryNDEFStatus 11–14, wait -, readNDEF 15–18",
        "20–39: restartPolling 20–24, connect 25–30, readNDEF 31–38",
      ])
    #expect(r.frames[19].event == .fieldOff && r.frames[20].event == .fieldOn)
  }

  /// A polling round that selects and halts two tags spans two activations: it is listed in
  /// the last one, where it ends, from that session's first frame (it was in session 0 with
  /// frames 0–26 while session 0 ended at 13).
  @Test func pollingRoundOverTwoTagsIsInItsLastSession() throws {
    let r = try run(
      TagSpec(type: .ntag215, uid: Self.uid), [.connect],
      faults: [.secondTag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], polls: 1)], seed: 3)
    // Session 0 is the second tag's, selected and halted inside the polling round.
    #expect(
      layout(r.truth) == ["0–13: ", "14–26: poll 14–26", "27–39: connect 27–38"])
    #expect(r.truth.operations.first?.reason == "2 tags")
  }

  /// writeNDEF on a tag that is not NDEF formatted: Core NFC reports notSupported and does not
  /// format (nfc-facts §8.4, "Unformatted tag"); no source names the error writeNDEF then
  /// gives, so the truth names none — as `nfctrace diagnose` (`not-ndef-formatted`, no Core
  /// NFC error). It said 401 ndefReaderSessionErrorTagUpdateFailure.
  @Test func writeToUnformattedType2TagHasNoCoreNFCError() throws {
    let r = try run(
      TagSpec(type: .type2Blank, uid: [0x04, 0x22, 0x33, 0x44, 0x55, 0x66, 0x11]),
      [.connect, .queryNDEFStatus, .writeNDEF(message: Self.message)], seed: 9)
    let write = try #require(r.truth.operations.last)
    #expect(write.kind == "writeNDEF")
    #expect(write.outcome == .failed)
    #expect(write.reason == "tag is not NDEF formatted")
    #expect(write.error == nil)
    #expect(write.firstFrame == nil)
    #expect(r.truth.expectedError == nil)
  }

  /// The same for a Type 4 tag without a readable NDEF application (read access not 00).
  @Test func writeToType4TagWithoutNDEFHasNoCoreNFCError() throws {
    var tag = TagSpec(type: .type4, uid: Self.uid)
    tag.readAccess = 0x80
    let r = try run(tag, [.connect, .queryNDEFStatus, .writeNDEF(message: Self.message)], seed: 9)
    let write = try #require(r.truth.operations.last)
    #expect(write.outcome == .failed)
    #expect(write.reason == "no NDEF application")
    #expect(write.error == nil)
    #expect(r.truth.expectedError == nil)
  }
}
