import Testing

@testable import NFCTrace

/// A WRITE of page 3 whose CC0 sets bits E1h lacks: the tag can never be NDEF again
/// (protocol review: an amiibo clone writer's `F1 10 FF EE` was "SUCCEEDED — no problem").
@Suite struct Type2CCMagicTests {
  static func ccWrite(_ cc: [UInt8]) throws -> DiagnosisReport {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(
        cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9)))
    b.write(3, cc)
    return try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(expected: nil)
  }

  @Test func amiiboCCTakesTheMagicAway() throws {
    let report = try Self.ccWrite([0xF1, 0x10, 0xFF, 0xEE])
    let f = try #require(report.findings.first { $0.code == "t2t-cc-magic-lost" })
    #expect(f.severity == .warning)
    #expect(f.cause == "the write put F1h in CC0, where the NDEF magic E1h belongs")
    #expect(f.frames.count == 2)
    #expect(f.effect == .badContent)
    #expect(f.coreNFCError == nil)
  }

  /// The read-only step (CC3 0Fh) and a rewrite of E1h leave the magic: no finding.
  @Test(arguments: [[0xE1, 0x10, 0x12, 0x0F], [0x00, 0x00, 0x00, 0x0F]] as [[UInt8]])
  func writesKeepingTheMagicAreFine(_ cc: [UInt8]) throws {
    #expect(try !Self.ccWrite(cc).findings.contains { $0.code == "t2t-cc-magic-lost" })
  }
}
