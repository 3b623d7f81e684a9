import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// NTAG216 GET_VERSION answer (NXP NTAG213/215/216 datasheet §10.1, nfc-facts §4.6).
private let ntag216Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]

/// Android's makeReadOnly on an NTAG216 an app identified with GET_VERSION first (libnfc-nci
/// rw_t2t_ndef.cc, RW_T2tSetTagReadOnly): detection reads the default dynamic lock place
/// (16 + CC2 × 8 = byte 888, page DEh; NFC Forum T2T 1.0 §4.4), then CC3 = 0Fh, a READ and a
/// WRITE per block of those lock bytes, and the static lock bytes last. The whole sequence is
/// one writeLock, warned as misplaced: page DEh is user memory on NTAG216 (lock page E2h).
@Suite struct FixT2DefaultLockTests {
  private func makeReadOnly() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag216Version)
    b.read(0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0, 0xE1, 0x10, 0x6D])
    b.read(4, [0x03, 0x00, 0xFE])
    b.read(0xDE, [])
    b.write(3, [0xE1, 0x10, 0x6D, 0x0F])
    for (page, data) in [
      (0xDE, [0xFF, 0xFF, 0xFF, 0xFF]), (0xDF, [0xFF, 0xFF, 0xFF, 0xFF]),
      (0xE0, [0xFF, 0xFF, 0xFF, 0xFF]), (0xE1, [0x7F, 0x00, 0x00, 0x00]),
    ] as [(Int, [UInt8])] {
      b.read(page, [])
      b.write(page, data)
    }
    b.write(2, [0x44, 0x48, 0xFF, 0xFF])
    return b
  }

  @Test func oneWriteLockWithTheDefaultPlaceRead() throws {
    let ops = try #require(try sessions(makeReadOnly()).first).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(ops.last?.outcome == .ok)
  }

  @Test func misplacedOnNTAG216() throws {
    let r = try makeReadOnly().diagnose()
    let verdicts = try #require(r.sessions.first).verdicts
    #expect(verdicts.map(\.kind) == [.writeLock])
    let f = try #require(r.finding("t2t-lock-misplaced"))
    #expect(f.frames == [22, 26, 30, 34])
    #expect(
      f.cause
        == "the dynamic lock bits went to pages 222–225, user memory on NTAG216; its lock page "
        + "is 226 (0xE2)")
  }
}

/// A WRITE an app sends itself (sendMiFareCommand) after a complete read, not at the NDEF TLV:
/// no writeNDEF starts there (the length's page first, NFC Forum T2T 1.0 §6.4.3; libnfc-nci
/// rw_t2t_ndef.cc; nfc-facts §5.5), so it is a transceive and its NAK is Core NFC 102, as the
/// simulator's ground truth says. Writes from page 4 (a new TLV layout) or the length's page
/// stay writeNDEF.
@Suite struct FixT2RawWriteTests {
  /// NTAG213 with a Lock Control TLV at page 4 and the NDEF TLV's T and L at bytes 21–22
  /// (page 5), the 16-byte message read whole, then a first WRITE to `page`.
  private func written(page: Int, data: [UInt8] = [0x41, 0x42, 0x43, 0x44]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x10, 0xD1, 0x01, 0x0C])
    b.read(7, [0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x63, 0x6F, 0x6D, 0xFE])
    b.write(page, data, .nak(0))
    return b
  }

  /// Page 4 ← 41 42 43 44 is no TLV layout (41h is no TLV type, T2T 1.0 §2.3): the app's own
  /// page write, as an amiibo writer's `a5 00 …` (real-trace hunt: it was writeNDEF ok).
  @Test(arguments: [
    (4, OperationKind.transceive), (5, .writeNDEF), (6, .writeNDEF), (7, .transceive),
    (0x20, .transceive),
  ])
  func firstWriteKind(page: Int, kind: OperationKind) throws {
    let ops = try #require(try sessions(written(page: page)).first).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, kind])
  }

  /// A WRITE of page 4 that starts a TLV layout (03: NDEF Message TLV) is writeNDEF.
  @Test func pageFourWithATLVIsWriteNDEF() throws {
    let ops = try #require(try sessions(written(page: 4, data: [0x03, 0x00, 0xD1, 0x01])).first)
      .operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF, .writeNDEF])
  }

  @Test func rawWriteNAKIsCoreNFC102() throws {
    let f = try #require(try written(page: 0x20).diagnose().finding("t2t-nak-unexplained"))
    #expect(f.frames == [16, 17])
    #expect(f.coreNFCError?.code == 102)
  }

  /// The simulator's sendMiFareCommand WRITE of page 32 after readNDEF, refused with NAK 0.
  @Test func simulatedRawWriteMatchesTheTruth() throws {
    let json = """
      {"name": "raw-write-after-read", "seed": 5,
       "tag": {"type": "ntag213", "uid": "04a1b2c3d4e5f6",
               "ndef": "d1010c55046578616d706c652e636f6d"},
       "reader": "ios",
       "actions": [{"op": "connect"}, {"op": "queryNDEFStatus"}, {"op": "readNDEF"},
         {"op": "sendMiFareCommand", "data": "a22041424344"}, {"op": "disconnect"}],
       "faults": [{"kind": "nak-on-page", "page": 32, "code": 0}]}
      """
    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    let (result, report) = try diagnoseSimulated(scenario)
    #expect(result.truth.expectedError?.code == 102)
    let session = try #require(report.sessions.first)
    #expect(
      session.analysis.operations.map(\.kind) == [
        .connect, .queryNDEFStatus, .readNDEF, .transceive,
      ])
    #expect(session.verdicts.map(\.verdict) == [.failed])
    #expect(report.finding("t2t-nak-unexplained")?.coreNFCError?.code == 102)
  }
}

/// A NAK 1 whose repeat of the same WRITE the tag acknowledged is recovered even when the
/// operation later fails for another refusal (NAK 5 on a later page): the NAK 1 is a warning
/// without a Core NFC error, the NAK 5 is the error with 401 (NXP NTAG213/215/216 datasheet
/// §9.3: a NAK leaves the page unwritten, the repeat programs it).
@Suite struct FixT2RecoveredNAKTests {
  private func nak1ThenNak5(retried: Bool) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE, 0x00])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(1))
    if retried { b.write(4, [0x03, 0x00, 0xD1, 0x01]) }
    b.write(5, [0x04, 0x55, 0x04, 0x61], .nak(5))
    return b
  }

  @Test func retriedNAK1IsAWarningWhenALaterNAK5FailsTheWrite() throws {
    let r = try nak1ThenNak5(retried: true).diagnose()
    #expect(try #require(r.sessions.first).verdicts.map(\.verdict) == [.failed])
    let nak1 = try #require(r.finding("t2t-nak-transmission-error"))
    #expect(nak1.severity == .warning)
    #expect(nak1.coreNFCError == nil)
    #expect(nak1.frames == [14, 15])
    #expect(
      nak1.cause
        == "the tag received a damaged command (NAK 1 on WRITE page 4 (0x4)), and the WRITE sent "
        + "again was acknowledged")
    let nak5 = try #require(r.finding("t2t-nak-eeprom-error"))
    #expect(nak5.severity == .error)
    #expect(nak5.coreNFCError?.code == 401)
    #expect(nak5.frames == [18, 19])
  }

  /// Not re-sent: the NAK 1 stays an error with 401.
  @Test func unretriedNAK1StaysAnError() throws {
    let r = try nak1ThenNak5(retried: false).diagnose()
    let nak1 = try #require(r.finding("t2t-nak-transmission-error"))
    #expect(nak1.severity == .error)
    #expect(nak1.coreNFCError?.code == 401)
  }
}

/// An Ultralight C's 3DES key (pages 2Ch–2Fh, write-only: NXP MF0ICU2 datasheet §7.5.7) is a
/// secret as an NTAG21x PWD is: `report` shows its memory rows as `**` and `diff` its WRITEs
/// and rows as `••` without --show-secrets.
@Suite struct FixT2UltralightCKeyTests {
  /// An Ultralight C (no GET_VERSION, both AUTHENTICATE steps answered) whose key pages are
  /// written with `key` (16 bytes), then AUTH0 = 04h.
  private func keyed(_ key: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + Array(0..<8))
    b.reader([0xAF] + Array(0..<16))
    b.tag([0x00] + Array(8..<16))
    for i in 0..<4 { b.write(0x2C + i, Array(key[(4 * i)..<(4 * i + 4)])) }
    b.write(0x2A, [0x04, 0x00, 0x00, 0x00])
    return b
  }

  private let key: [UInt8] = Array(0x10..<0x20)

  @Test func reportMasksTheKeyRows() throws {
    let s = try #require(try sessions(keyed(key)).first)
    let r = TagReport(session: s)
    // AUTH0 (page 2Ah) is no secret; the unknown page 2Bh has nothing to mask.
    let rows = r.rows(showSecrets: false).filter { [0x2A, 0x2C, 0x2F].contains($0.address) }
    #expect(rows.map(\.masked) == [[], [true, true, true, true], [true, true, true, true]])
    #expect(rows.map(\.bytes) == [[0x04, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    let text = ReportText.render(r, showSecrets: false)
    #expect(text.contains("      44  ** ** ** **  written         #15\n"))
    #expect(!text.contains("10 11 12 13"))
    let shown = ReportText.render(r, showSecrets: true)
    #expect(shown.contains("      44  10 11 12 13  written         #15\n"))
  }

  @Test func diffMasksTheKeyWritesAndRows() throws {
    let a = try diffSide(keyed(key))
    let b = try diffSide(keyed(Array(0x20..<0x30)))
    let d = TraceDiff(a: a, b: b)
    let text = DiffText.lines(d).joined(separator: "\n")
    #expect(text.contains("WRITE page 44 ← •• •• •• •• → ACK"))
    #expect(!text.contains("10 11 12 13") && !text.contains("20 21 22 23"))
    let write = try #require(d.a.exchanges.first { $0.commandSummary.hasPrefix("WRITE page 44") })
    #expect(write.secretRequest == [2, 3, 4, 5])
    let rows = d.memory.filter { "\($0.image)" == "end" }.map { "\($0.unit) \($0.secret.sorted())" }
    #expect(
      rows == ["44 [0, 1, 2, 3]", "45 [0, 1, 2, 3]", "46 [0, 1, 2, 3]", "47 [0, 1, 2, 3]"])
    let shown = DiffText.lines(TraceDiff(a: a, b: b, showSecrets: true))
    #expect(shown.joined(separator: "\n").contains("WRITE page 44 ← 10 11 12 13 → ACK"))
  }
}
