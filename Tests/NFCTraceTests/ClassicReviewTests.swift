import Foundation
import Testing

@testable import NFCTrace

/// MIFARE Classic review (rev-mfc): value operations' unanswered operand, acknowledged WRITEs
/// as writes, refused AUTH without a Core NFC error, Classic reports without Type 2 terms, the
/// chip's TRANSFER, blocks past the product's memory.
@Suite struct ClassicReviewTests {
  private static let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]

  /// The frames decoded, in order.
  private static func frames(_ b: TraceBuilder) throws -> [DecodedFrame] {
    var out: [DecodedFrame] = []
    _ = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) {
      if case .frame(let f) = $0 { out.append(f) }
    }
    return out
  }

  /// A plaintext (gen1a-style, no AUTH) INCREMENT by 10 of block 5 and its TRANSFER.
  private static func plainIncrement() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle(uid, sak: 0x08)
    b.reader([0xC1, 0x05])
    b.add4Bit(0x0A)
    b.reader([0x0A, 0x00, 0x00, 0x00])
    b.reader([0xB0, 0x05])
    b.add4Bit(0x0A)
    return b
  }

  /// The operand is answered only on error (MF1S50yyX §12.6): no `[no answer]`, no
  /// interruption; the TRANSFER's ACK makes the operation a write of block 5.
  @Test func plaintextValueOperandIsNotAMissingAnswer() throws {
    let b = Self.plainIncrement()
    let operand = try #require(try Self.frames(b).first { $0.innermost?.name == "INCREMENT value" })
    #expect(operand.response == .noAnswerExpected)
    #expect(operand.innermost?.summary == "INCREMENT block 5 by 10")
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .ok)
    #expect(op.detail("blocks_written") == .string("5"))
    let r = try b.diagnose()
    #expect(r.codes.isEmpty)
    #expect(r.sessions.first?.verdicts.map(\.verdict) == [.succeeded])
  }

  /// The operand NAKed: refused, not silent.
  @Test func plaintextValueOperandNAKedFails() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x08)
    b.reader([0xC0, 0x05])
    b.add4Bit(0x0A)
    b.reader([0xFF, 0xFF, 0xFF, 0xFF])
    b.add4Bit(0x04)
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.outcome == .failed)
    #expect(
      op.reason
        == "DECREMENT block 5 by -1 refused: NAK 0x4 (invalid operation, transfer buffer invalid)")
  }

  /// AUTH block 4 with {nr}{ar} and {at}, as in an authenticated session.
  private static func authenticated() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle(uid, sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x01, 0x02, 0x03, 0x04], crc: false)
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.tag([0xAA, 0xBB, 0xCC, 0xDD], crc: false)
    return b
  }

  /// Encrypted: a 6-byte reader frame right after the tag's 4-bit answer to a 4-byte command
  /// is a value operation's operand by its layout; the TRANSFER after it is answered.
  @Test func encryptedValueOperandIsNotAMissingAnswer() throws {
    var b = Self.authenticated()
    b.reader([0x12, 0x34, 0x56, 0x78], crc: false)
    b.add4Bit(0x05)
    b.reader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06], crc: false)
    b.reader([0x9A, 0xBC, 0xDE, 0xF0], crc: false)
    b.add4Bit(0x0C)
    let operand = try #require(try Self.frames(b).first { $0.frame.data.count == 6 })
    #expect(operand.response == .noAnswerExpected)
    #expect(operand.innermost?.field("value_operand") == .bool(true))
    #expect(
      operand.innermost?.summary
        == "encrypted (Crypto1): by its layout a value operation's operand, answered only on error")
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .ok)
    #expect(try b.diagnose().codes.isEmpty)
  }

  /// A 6-byte encrypted frame with no 4-bit answer before it is no operand: its silence counts.
  @Test func encryptedSixBytesWithoutAnAnswerBeforeIsUnanswered() throws {
    var b = Self.authenticated()
    b.reader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06], crc: false)
    let f = try #require(try Self.frames(b).first { $0.frame.data.count == 6 })
    #expect(f.response == .unanswered)
    #expect(f.innermost?.field("value_operand") == nil)
  }

  /// A plaintext WRITE of block 4 (part 1, ACK, 16 bytes, ACK) holding NDEF TLV `03 0a …`.
  private static func plainWrite(_ data: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle(uid, sak: 0x08)
    b.reader([0xA0, 0x04])
    b.add4Bit(0x0A)
    b.reader(data)
    b.add4Bit(0x0A)
    return b
  }

  private static let message: [UInt8] = [
    0xD1, 0x01, 0x06, 0x55, 0x04, 0x62, 0x2E, 0x63, 0x6F, 0x6D,
  ]
  private static let block4: [UInt8] = [0x03, 0x0A] + message + [0xFE, 0x00, 0x00, 0x00]

  /// An acknowledged WRITE is a write with a verdict, not "no writes".
  @Test func acknowledgedWriteIsAWrite() throws {
    let b = Self.plainWrite(Self.block4)
    let r = try b.diagnose()
    let s = try #require(r.sessions.first)
    #expect(s.verdicts.map(\.verdict) == [.succeeded])
    let op = try #require(s.analysis.operations.last)
    #expect(op.classicWrites == [ClassicBlockWrite(block: 4, data: Self.block4, frame: 9)])
    #expect(
      ClassicWriteRule.acknowledgedText(op) == "the tag acknowledged MIFARE Classic WRITE block 4")
    let same = try b.diagnose(expect: Self.message)
    // The message matches, and the reader that wrote the blocks handled Classic itself: no
    // `mifare-classic-no-core-nfc` (that is for a session no reader wrote), nothing else.
    #expect(same.codes == [])
    var other = Self.message
    other[5] = 0x61
    let f = try #require(
      try b.diagnose(expect: other).finding("classic-content-differs-from-expected"))
    #expect(f.severity == .error && f.coreNFCError == nil && f.frames == [9])
    #expect(
      try b.diagnose(expect: other).sessions.first?.verdicts.first?.verdict
        == .succeededWithBadContent)
  }

  /// A sector trailer written is named; an --expect with no TLV in the blocks is not compared.
  @Test func trailerWriteIsNamedAndNotCompared() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x08)
    b.reader([0xA0, 0x07])
    b.add4Bit(0x0A)
    b.reader(
      [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7, 0x7F, 0x07, 0x88, 0x40]
        + Array(repeating: 0x11, count: 6))
    b.add4Bit(0x0A)
    let r = try b.diagnose(expect: Self.message)
    let op = try #require(r.sessions.first?.analysis.operations.last)
    #expect(
      ClassicWriteRule.acknowledgedText(op)
        == "the tag acknowledged MIFARE Classic WRITE block 7 (sector 1's trailer: keys and "
        + "access bits rewritten)")
    let f = try #require(r.finding("classic-content-not-compared"))
    #expect(f.severity == .info && f.frames == [op.lastFrame])
  }

  /// A NAKed AUTH of block 255 with SAK 08 (a 1K, or a MIFARE Plus 2K in SL1: 128 blocks at
  /// most): flagged past the memory; no Core NFC error and a
  /// Classic fix (no PWD_AUTH).
  @Test func refusedAuthHasNoCoreNFCError() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x08)
    b.reader([0x60, 0xFF])
    b.add4Bit(0x04)
    let auth = try #require(try Self.frames(b).first { $0.innermost?.name == "AUTH key A" })
    #expect(
      auth.innermost?.summary
        == "AUTH key A block 255 (past block 127, the last a tag with this SAK can have)")
    let f = try #require(try b.diagnose().finding("authentication-failed"))
    #expect(f.coreNFCError == nil)
    #expect(f.fix == OperationFallbackRule.classicAuthFix)
    #expect(!f.fix.contains("PWD_AUTH"))
  }

  /// A Classic report speaks no Type 2 terms.
  @Test func classicReportHasNoType2Terms() throws {
    var b = Self.plainWrite(Self.block4)
    b.reader([0x30, 0x04])
    b.tag(Self.block4)
    let s = try #require(try sessions(b).first)
    let report = TagReport(session: s)
    #expect(report.end.unknowns == ["MIFARE Classic blocks, MAD and NDEF sectors not decoded"])
    guard case .unknown(let why) = report.end.message else {
      Issue.record("message not unknown")
      return
    }
    #expect(why == "MIFARE Classic memory and its NDEF (found through the MAD) are not decoded")
    #expect(MIFAREClassicLayer.blockCount(sak: 0x18) == 256)
    #expect(MIFAREClassicLayer.blockCount(sak: 0x08) == 128)  // MIFARE Plus 2K in SL1 too
  }
}

/// The 7-bit backdoor wake-ups of a gen1a MIFARE Classic clone after HLTA are named (magic
/// WUPC1/WUPC2), their 4-bit ACKs too: no "short frame is not an ISO 14443-3 command".
@Test func gen1aBackdoorWakeUpsAreNamed() throws {
  var b = TraceBuilder()
  b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
  b.reader([0x50, 0x00])
  b.add(.reader, [0x40], crc: false, bits: 7)
  b.add4Bit(0x0A)
  b.add(.reader, [0x43], crc: false, bits: 7)
  b.add4Bit(0x0A)
  let (decoded, _) = decodeAll(b.frames)
  #expect(
    decoded.suffix(4).map { $0.innermost?.summary ?? "-" } == [
      "magic WUPC1 (gen1a backdoor)", "ACK", "magic WUPC2 (gen1a backdoor)", "ACK",
    ])
}

/// Proxmark3's firmware sends WUPC2 `43` as a whole byte (8 bits, no CRC) after the 7-bit
/// WUPC1 `40` (armsrc/mifarecmd.c, MifareCSetBlock): it is named too, and the WRITE that
/// follows is decoded as a Classic WRITE.
@Test func gen1aWholeByteWUPC2IsNamed() throws {
  var b = TraceBuilder()
  b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
  b.reader([0x50, 0x00])
  b.add(.reader, [0x40], crc: false, bits: 7)
  b.add4Bit(0x0A)
  b.add(.reader, [0x43], crc: false)
  b.add4Bit(0x0A)
  b.reader([0xA0, 0x00])
  b.add4Bit(0x0A)
  let (decoded, _) = decodeAll(b.frames)
  #expect(
    decoded.suffix(6).map { $0.innermost?.summary ?? "-" } == [
      "magic WUPC1 (gen1a backdoor)", "ACK", "magic WUPC2 (gen1a backdoor)", "ACK",
      "WRITE block 0", "ACK",
    ])
}

/// A source without bit counts (a pcap) gives WUPC1 as the plain byte `40`: a 1-byte reader
/// frame holds no CRC, so it is the wake-up still; a lone whole `43` not after it is not.
@Test func gen1aWakeUpsWithoutBitCounts() throws {
  var b = TraceBuilder()
  b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
  b.reader([0x50, 0x00])
  b.add(.reader, [0x40], crc: false)
  b.add(.tag, [0x0A], crc: false)
  b.add(.reader, [0x43], crc: false)
  b.add(.tag, [0x0A], crc: false)
  b.reader([0x50, 0x00])
  b.add(.reader, [0x43], crc: false)
  let (decoded, _) = decodeAll(b.frames)
  #expect(
    decoded.suffix(6).prefix(4).map { $0.innermost?.summary ?? "-" } == [
      "magic WUPC1 (gen1a backdoor)", "ACK", "magic WUPC2 (gen1a backdoor)", "ACK",
    ])
  #expect(decoded.last?.innermost?.name != "magic WUPC2")
}
