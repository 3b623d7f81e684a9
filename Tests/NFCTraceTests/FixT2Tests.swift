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
