import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Hunts and reviews of 2026-12-05: each test names the case.
@Suite struct Pass30SimulatorTests {
  private let uri: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)

  private func run(readAccess: Int) throws -> SimulationResult {
    var tag = TagSpec(type: .type4, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], ndef: uri)
    tag.readAccess = readAccess
    return try Simulator.run(
      Scenario(
        name: "read-access", seed: 3, tag: tag, reader: .ios,
        actions: [.connect, .queryNDEFStatus, .readNDEF]))
  }

  /// Proprietary read access (80h) passes the reader's CC check as in the analyzer
  /// (libnfc-nci): the reader reads NLEN, the tag refuses it (6982), and both the truth and
  /// the analysis say notSupported — the simulated reader stopped at the CC and the analyzer
  /// said readWrite.
  @Test func proprietaryReadAccessIsRefusedAtNLEN() throws {
    let r = try run(readAccess: 0x80)
    let readNLEN: [UInt8] = [0x00, 0xB0, 0x00, 0x00, 0x02]
    #expect(r.frames.contains { $0.data.dropFirst().prefix(5).elementsEqual(readNLEN) })
    #expect(r.truth.ndefStatus == .notSupported)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: r.frames)).sessions.first)
    #expect(s.ndefStatus?.status == .notSupported)
  }

  /// No read access (FFh) stops detection at the CC: no NDEF file SELECT is sent.
  @Test func noReadAccessStopsAtTheCC() throws {
    let r = try run(readAccess: 0xFF)
    let selectNDEFFile: [UInt8] = [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]
    #expect(!r.frames.contains { $0.data.dropFirst().prefix(7).elementsEqual(selectNDEFFile) })
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: r.frames)).sessions.first)
    #expect(s.ndefStatus?.status == .notSupported)
  }
}
