import Testing

@testable import NFCTrace

/// Findings of the twelfth review passes (tshark oracle, report auditor): each with the value
/// the standard or datasheet gives.
@Suite struct Pass12RegressionTests {
  private func sessions(_ b: TraceBuilder) throws -> [SessionAnalysis] {
    try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions
  }

  /// WUPA, ATQA 0004, one cascade level, SAK `sak`.
  private func activateSingle(_ b: inout TraceBuilder, sak: UInt8) {
    let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]
    b.reader([0x52], crc: false)
    b.tag([0x04, 0x00], crc: false)
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([sak])
  }

  /// A MIFARE Classic AUTH answered with a 4-bit NAK was refused: `authenticate failed`, not
  /// ok (NXP MF1S50yyX datasheet: the answer to AUTH is the 4-byte nonce).
  @Test func mifareClassicAuthRefusedByNAKFails() throws {
    var b = TraceBuilder()
    activateSingle(&b, sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x04], crc: false)
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.kind) == [.connect, .authenticate])
    #expect(ops.last?.outcome == .failed)
    #expect(ops.last?.reason?.hasPrefix("AUTH key A block 4") == true)
  }

  /// On a tag whose SAK is 00 (Type 2: Ultralight, NTAG), `60 00` is a GET_VERSION with a
  /// stray byte, not a MIFARE Classic AUTH, and its NAK 0 has the NTAG meaning.
  @Test func sixtyOnATypeTwoTagIsNotAClassicAuth() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x60, 0x00])
    b.tag([0x00], crc: false)
    let (decoded, _) = decodeAll(b.frames)
    let command = try #require(decoded.dropLast().last)
    #expect(command.layers.allSatisfy { $0.protocolID != .mifareClassic })
    #expect(command.undecodedReason == "GET_VERSION (60) needs 1 byte, got 2")
    #expect(decoded.last?.innermost?.summary == "NAK 0x0 (invalid argument or page)")
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .failed)
  }

  /// A malformed command APDU (Lc past the data, CLA FF) is still answered with a status word
  /// (ISO/IEC 7816-4 §5.1): the answer is decoded as one and refuses the command.
  @Test func answerToMalformedAPDUIsAStatusWord() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x05, 0x01, 0x02, 0x03], [0x67, 0x00])
    b.apdu([0xFF, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00], [0x6E, 0x00])
    let (decoded, _) = decodeAll(b.frames)
    let answers = decoded.suffix(3).filter { $0.frame.direction == .tag }
    #expect(answers.map { $0.layer(.iso7816)?.field("sw") } == [.string("6700"), .string("6e00")])
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .transceive && op.outcome == .failed)
    #expect(op.reason == "APDU refused: SW 6700 wrong length (Lc/Le)")
  }
}
