import Testing

@testable import NFCTrace

/// Fixes from the review of the 2026-12-06 fifth session's change.
@Suite struct ReviewPass42Tests {
  private func kinds(_ b: TraceBuilder) throws -> [String] {
    try sessions(b).flatMap(\.operations).map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
  }

  /// COMPATIBILITY_WRITE in two parts (NXP NTAG213/215/216 datasheet §10.5).
  private func compatibilityWrite(_ b: inout TraceBuilder, _ page: UInt8, _ data: [UInt8]) {
    b.reader([0xA0, page])
    b.add4Bit(0x0A)
    b.reader(data + Array(repeating: 0, count: 12))
    b.add4Bit(0x0A)
  }

  /// A writeLock sent with COMPATIBILITY_WRITE (static locks, dynamic locks, CC read-only) is
  /// one writeLock, as with WRITE: a locking part 2 does not split a writeLock under way, and
  /// the CC's part 1 joins it (it was three writeLock operations).
  @Test func compatibilityWriteLockIsOneOperation() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    compatibilityWrite(&b, 0x02, [0x44, 0x48, 0x0F, 0xFF])
    compatibilityWrite(&b, 0x28, [0xFF, 0x0F, 0x00, 0xBD])
    compatibilityWrite(&b, 0x03, [0xE1, 0x10, 0x12, 0x0F])
    #expect(try kinds(b) == ["connect ok", "queryNDEFStatus ok", "writeLock ok"])
  }

  /// A DESFire GetVersion 800 ms after the discovery SELECTs is the app's own command, not the
  /// stack's probe (it joined connect whatever the delay).
  @Test func lateGetVersionIsTheApps() throws {
    var b = TraceBuilder()
    b.activateType4()
    let select: [UInt8] = [
      0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00,
    ]
    b.apdu(select, [0x6A, 0x82])
    b.apdu(select, [0x6A, 0x82])
    b.gapUs = 800_000
    b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0x00])
    #expect(try kinds(b) == ["connect ok", "transceive ok"])
  }

  /// A whole-byte `43` after an HLTA (not after `40`) is no WUPC2 in either layer.
  @Test func wholeByte43AfterHLTAIsNotWUPC2() throws {
    var b = TraceBuilder()
    b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
    b.add(.reader, [0x40], crc: false)
    b.reader([0x50, 0x00])
    b.add(.reader, [0x43], crc: false)
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded.last?.innermost?.name != "magic WUPC2")
  }

  /// A COMPATIBILITY_WRITE whose part 1 was acknowledged and whose part 2 (the data) is not in
  /// the capture wrote nothing known: the operation is unknown, not ok.
  @Test func compatibilityWritePart1AloneIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0xA0, 0x04])
    b.add4Bit(0x0A)
    let ops = try sessions(b).flatMap(\.operations)
    #expect(
      ops.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "writeNDEF unknown",
      ])
    #expect(
      ops.last?.reason
        == "the tag acknowledged COMPATIBILITY_WRITE part 1 (frame 12), but its part 2, the 16 "
        + "data bytes, is not in the capture: what was written is not known")
  }

  /// A gen1a wake-up after an authenticated (Crypto1) session: a reader's 7-bit frame is never
  /// ciphertext, so it and what follows are plaintext again (they were all "encrypted").
  @Test func gen1aWakeUpEndsTheEncryptedSession() throws {
    var b = TraceBuilder()
    b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
    b.reader([0x60, 0x00])
    b.tag([0x01, 0x02, 0x03, 0x04], crc: false)
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.tag([0x99, 0xAA, 0xBB, 0xCC], crc: false)
    b.reader([0xDE, 0xAD, 0xBE, 0xEF], crc: false)
    b.add(.reader, [0x40], crc: false, bits: 7)
    b.add4Bit(0x0A)
    b.reader([0x30, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    #expect(
      decoded.suffix(3).map { $0.innermost?.summary ?? "-" } == [
        "magic WUPC1 (gen1a backdoor)", "ACK", "READ block 0",
      ])
  }
}
