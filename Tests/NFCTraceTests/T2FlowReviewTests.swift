import Foundation
import Testing

@testable import NFCTrace

/// NTAG215 GET_VERSION answer (nfc-facts §4.6).
private let ntag215Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

/// Pages 0–3 of the built UID 04 11 22 33 44 55 66 (BCC0, BCC1), lock bytes 00 00, then CC `cc`.
private func headPages(cc: [UInt8]) -> [UInt8] {
  [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22, 0x33, 0x44, 0x55, 0x66]
    + [0x33 ^ 0x44 ^ 0x55 ^ 0x66, 0x48, 0x00, 0x00] + cc
}

/// An NTAG215 activated and queried (READ 0, READ 4: an empty NDEF TLV).
private func queriedNTAG215() -> TraceBuilder {
  var b = TraceBuilder()
  b.event(.fieldOn)
  b.activateType2(version: ntag215Version)
  b.read(0, headPages(cc: [0xE1, 0x10, 0x3E, 0x00]))
  b.read(4, [0x03, 0x00, 0xFE])
  return b
}

/// COMPATIBILITY_WRITE of `data` to `page`: part 1 and part 2 (16 bytes, the first 4 stored),
/// both acknowledged (nfc-facts §4.1).
private func compatibilityWrite(_ b: inout TraceBuilder, _ page: Int, _ data: [UInt8]) {
  b.reader([0xA0, UInt8(page)])
  b.add4Bit(0x0A)
  b.reader(data + Array(repeating: 0, count: 12))
  b.add4Bit(0x0A)
}

/// Each operation as `kind outcome`.
private func operations(_ b: TraceBuilder) throws -> [String] {
  let s = try #require(try sessions(b).first)
  return s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
}

@Suite struct T2FlowReviewTests {
  // MARK: A. a write to a lock page that sets no lock bit is no writeLock

  /// NTAG215 dynamic lock page 130 ← 00 00 00 BD sets no lock bit (OR-programmed, nfc-facts
  /// §4.4): an app's own write, not writeLock.
  @Test func zeroDynamicLockWriteIsNoWriteLock() throws {
    var b = queriedNTAG215()
    b.write(130, [0x00, 0x00, 0x00, 0xBD])
    #expect(try operations(b) == ["connect ok", "queryNDEFStatus ok", "transceive ok"])
  }

  /// Page 2 ← 77 48 00 00: LOCK0 and LOCK1 zero, nothing locked.
  @Test func zeroStaticLockWriteIsNoWriteLock() throws {
    var b = queriedNTAG215()
    b.write(2, [0x77, 0x48, 0x00, 0x00])
    #expect(try operations(b) == ["connect ok", "queryNDEFStatus ok", "transceive ok"])
  }

  /// One dynamic lock bit set is a writeLock, as before.
  @Test func dynamicLockBitSetIsWriteLock() throws {
    var b = queriedNTAG215()
    b.write(130, [0x01, 0x00, 0x00, 0xBD])
    #expect(try operations(b) == ["connect ok", "queryNDEFStatus ok", "writeLock ok"])
  }

  /// A zero-lock WRITE inside a writeNDEF (a whole-memory restore) stays in the write.
  @Test func zeroLockWriteInsideAWriteContinuesIt() throws {
    var b = queriedNTAG215()
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    b.write(130, [0x00, 0x00, 0x00, 0xBD])
    #expect(try operations(b) == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok"])
  }

  /// COMPATIBILITY_WRITE carries its data in part 2: a restore writing the lock page with zero
  /// bits stays in the write; the same write setting a bit is a writeLock of its own, from
  /// part 1 on.
  @Test func compatibilityWriteOfLockPageIsDecidedByItsData() throws {
    var zero = queriedNTAG215()
    compatibilityWrite(&zero, 4, [0x03, 0x00, 0xFE, 0x00])
    compatibilityWrite(&zero, 130, [0x00, 0x00, 0x00, 0xBD])
    #expect(try operations(zero) == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok"])

    var lock = queriedNTAG215()
    compatibilityWrite(&lock, 4, [0x03, 0x00, 0xFE, 0x00])
    compatibilityWrite(&lock, 130, [0xFF, 0x00, 0x00, 0xBD])
    let s = try #require(try sessions(lock).first)
    #expect(
      s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
        == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok", "writeLock ok"])
    // The writeLock starts at part 1: field on 0, activation 1–12, reads 13–16, page 4's
    // COMPATIBILITY_WRITE 17–20, page 130's 21–24.
    #expect(s.operations.last?.firstFrame == 21)
    #expect(s.operations[2].lastFrame == 20)

    var alone = queriedNTAG215()
    compatibilityWrite(&alone, 130, [0x00, 0x00, 0x00, 0xBD])
    #expect(try operations(alone) == ["connect ok", "queryNDEFStatus ok", "transceive ok"])
  }

  // MARK: B. a failed raw read after a query that read the whole message

  /// FAST_READ 00–2C answered (the whole NTAG213: CC and message), then FAST_READ 00–2D → NAK 0:
  /// the second read starts over and reads the message again, the next call (readNDEF), as a
  /// READ back at the first page after the message was read; the query keeps its success.
  @Test func fastReadRestartAfterWholeQueryIsANewCall() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x62, 0x63, 0x64]
    var memory = headPages(cc: [0xE1, 0x10, 0x12, 0x00]) + [0x03, 0x09] + message + [0xFE]
    memory += Array(repeating: 0, count: 45 * 4 - memory.count)
    b.reader([0x3A, 0x00, 0x2C])
    b.tag(memory)
    b.reader([0x3A, 0x00, 0x2D])
    b.add4Bit(0x00)
    #expect(
      try operations(b) == ["connect ok", "queryNDEFStatus ok", "readNDEF failed"])
  }

  // MARK: C. an unsupported command's silence on an original Ultralight

  /// An original Ultralight (GET_VERSION unanswered, 48-byte CC) gets READ_SIG, stays silent
  /// and answers the WUPA after it: the command is unsupported (the tag went idle), not the
  /// tag leaving the field.
  @Test func silentReadSigOnUltralightIsUnsupported() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2()
    b.reader([0x60])
    b.gapUs = 5000
    b.activateType2()
    b.gapUs = 400
    b.read(0, headPages(cc: [0xE1, 0x10, 0x06, 0x00]))
    b.read(4, [0x03, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00, 0xFE])
    b.reader([0x3C, 0x00])
    b.gapUs = 5000
    b.activateType2()
    b.gapUs = 400
    b.read(4, [0x03, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00, 0xFE])
    let s = try #require(try sessions(b).first)
    #expect(
      s.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
        == [
          "connect ok", "connect ok", "queryNDEFStatus ok", "transceive failed", "connect ok",
          "readNDEF ok",
        ])
    #expect(
      s.operations[3].reason
        == "READ_SIG not answered: the tag has no READ_SIG (it did not answer GET_VERSION: a "
        + "MIFARE Ultralight, Ultralight C or NTAG203, which lack the NTAG21x / Ultralight EV1 "
        + "commands); a Type 2 tag goes idle on a command it does not know")
    let r = try b.diagnose()
    #expect(r.codes == ["command-unsupported"])
    let f = try #require(r.finding("command-unsupported"))
    #expect(f.severity == .info)
    #expect(f.coreNFCError == .tagResponseError)
    #expect(f.operation == 3)
  }

  /// The same READ_SIG answered by a tag that answered GET_VERSION (an NTAG) and then silent
  /// is still the tag leaving (error 100).
  @Test func silentReadSigOnNTAGIsStillInterrupted() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    b.read(0, headPages(cc: [0xE1, 0x10, 0x12, 0x00]))
    b.read(4, [0x03, 0x00, 0xFE])
    b.reader([0x3C, 0x00])
    #expect(
      try operations(b) == ["connect ok", "queryNDEFStatus ok", "transceive interrupted"])
  }

  // MARK: D. the held message's size is its announced length

  /// `--expect` on a query-only session: the tag's message is announced as 21 bytes (L=15h),
  /// of which 9 were read.
  @Test func noWriteSentNamesTheAnnouncedLength() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    b.read(0, headPages(cc: [0xE1, 0x10, 0x12, 0x00]))
    b.read(
      4,
      [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x15, 0xD1, 0x01, 0x11, 0x55, 0x04]
        + [0x6E, 0x66, 0x63, 0x74])
    let expected = [0xD1, 0x01, 0x85, 0x55, 0x04] + [UInt8](repeating: 0x61, count: 132)
    let f = try #require(try b.diagnose(expect: expected).finding("no-write-sent"))
    #expect(
      f.message
        == "The app meant to write 137 bytes, and queryNDEFStatus reported the tag readWrite, "
        + "but the session has no writeNDEF: no write command reached the tag. The tag holds "
        + "another message (21 bytes, only 9 known).")
  }
}
