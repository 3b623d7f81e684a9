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

@Suite struct Pass30Type2Tests {
  /// NTAG I2C: a page past sector 0 is named as the tag numbers it (`16 (0x10) in sector 1`)
  /// in diagnose, as in the timeline and the report's map; it said "page 272 (0x110)".
  @Test func sectorPagesAreNamedBySector() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x05, 0x02, 0x02, 0x15, 0x03])
    b.read(3, [0xE1, 0x10, 0xEA, 0x00, 0x03, 0x00, 0xFE])
    b.reader([0xC2, 0xFF])
    b.add4Bit(0x0A)
    b.reader([0x01, 0x00, 0x00, 0x00])
    b.write(0x10, [0xD1, 0x01, 0x0C, 0x55], .nak(0))
    let f = try #require(try b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.message.contains("WRITE of page 16 (0x10) in sector 1."))
    #expect(f.message.contains("(page 226 (0xE2) in sector 1)"))
  }
}

extension Pass30Type2Tests {
  /// CFGLCK locks CFG0 and CFG1, not PWD and PACK (NTAG213/215/216 datasheet §8.8.1): a NAK
  /// on the PWD page does not name CFGLCK as an open cause; on CFG1 it does.
  @Test func cfglckIsNoCauseForThePasswordPage() throws {
    func nak(on page: Int) throws -> String {
      var b = TraceBuilder()
      b.activateType2(version: ntag213Version)
      b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
      b.write(page, [0x12, 0x34, 0x56, 0x78], .nak(0))
      return try #require(try b.diagnose().finding("t2t-nak-unexplained")).message
    }
    #expect(!(try nak(on: 0x2B)).contains("CFGLCK"))
    #expect(try nak(on: 0x2A).contains("CFGLCK (CFG1, page 42 (0x2A))"))
  }
}

extension Pass30Type2Tests {
  /// CC2 = 00h: the data area is empty, so the NDEF TLV at byte 16 is outside it and the
  /// query is notSupported, as the report's status says (it said readWrite 0 B, and the
  /// report blamed a CC change the session never made).
  @Test func ndefTLVOutsideAnEmptyDataArea() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0, 0xE1, 0x10, 0, 0])
    b.read(4, [0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
    let s = try #require(try sessions(b).first)
    #expect(s.ndefStatus?.status == .notSupported)
    #expect(
      s.ndefStatusReason
        == "the NDEF Message TLV at byte 16 lies outside the data area the CC declares "
        + "(CC2 × 8 = 0 bytes from byte 16)")
  }
}

extension Pass30Type2Tests {
  /// A WRITE refused with NAK 1, retried and refused with NAK 4: the call failed with the
  /// last refusal, not the transmission error the retry answered (it named NAK 1).
  @Test func retriedWriteFailsWithItsLastRefusal() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(5, [0, 0, 0, 0], .nak(1))
    b.write(5, [0, 0, 0, 0], .nak(4))
    let s = try #require(try sessions(b).first)
    let op = try #require(s.operations.last { $0.outcome == .failed })
    #expect(
      op.reason?.hasPrefix("NAK 0x4 (authentication counter overflow or not allowed)") == true)
    #expect(op.detail("nak_code") == .int(4))
  }
}

@Suite struct Pass30ImporterTests {
  private let head =
    "Filetype: Flipper NFC device\nVersion: 4\nDevice type: NTAG/Ultralight\n"
    + "UID: 04 A1 B2 C3 D4 E5 F6\nPages total: 45\nPage 0: 04 A1 B2 9F\n"

  private func error(_ text: String) -> TraceError? {
    do {
      _ = try TagDumpReader.read(TraceInput(path: "x.nfc", bytes: Data(text.utf8)))
      return nil
    } catch {
      return error as? TraceError
    }
  }

  /// Flipper `Page N:` lines out of range or given twice were dropped or overridden
  /// silently; like a short page line they are now errors naming line and offset.
  @Test func flipperPageLinesOutOfRangeOrTwice() throws {
    let far = try #require(error(head + "Page 99999999999999999999: 34 03 19 D1\n"))
    #expect(far.location.record == 7)
    #expect(far.message == "Page 99999999999999999999: expected a decimal index 0–4095")
    let twice = try #require(error(head + "Page 0: FF FF FF FF\n"))
    #expect(twice.location.record == 7)
    #expect(twice.message == "Page 0 given a second time: each page once expected")
    #expect(error(head + "Page 1: 11 22 33 44\n") == nil)
  }
}

extension Pass30ImporterTests {
  private func nfcLab(_ json: String) throws -> ([Frame], [TraceWarning]) {
    var importer = try NFCLabImporter(input: TraceInput(path: "t.json", bytes: Data(json.utf8)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    return (frames, importer.warnings)
  }

  /// NFC-Laboratory: a time going back is warned once, as in the other importers (it was
  /// silent); a JSON true is no time (it was read as 1 s).
  @Test func nfcLabTimesBackAndBooleans() throws {
    let back = try nfcLab(
      #"{"frames":[{"timeStart":2.0,"frameType":258,"techType":257,"frameData":"26"},"#
        + #"{"timeStart":1.5,"frameType":259,"techType":257,"frameData":"4400"}]}"#)
    #expect(back.0.map(\.timeNs) == [0, -500_000_000])
    #expect(
      back.1.map(\.message) == [
        "timeStart goes back by 500.000 ms: the export was merged or edited; times, gaps and "
          + "durations across this point are not meaningful"
      ])
    #expect(back.1.first?.location?.record == 2)
    #expect(throws: TraceError.self) {
      _ = try nfcLab(
        #"{"frames":[{"timeStart":true,"frameType":258,"techType":257,"frameData":"26"}]}"#)
    }
  }
}

extension Pass30ImporterTests {
  /// A NUL byte in the first lines of a `trace list` paste made detection refuse the whole
  /// file ("not a recognised trace format"), and one past the 4 KiB head was silent: the text
  /// before it is sniffed, and the importer warns at the byte.
  @Test func nulByteInAListingIsWarnedNotRefused() throws {
    var bytes = try [UInt8](
      Data(
        contentsOf: URL(
          fileURLWithPath: TestPaths.shared("derived/proxmark3-text/hf_14a_mfu-sim.list_14a.txt"))))
    // A blank of the first row's CRC column becomes a NUL.
    let row = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("|  ok |".utf8)) })
    bytes[row + 1] = 0
    let input = TraceInput(path: "nul.txt", bytes: Data(bytes))
    #expect(try FormatRegistry(BuiltinFormats.all).detect(input).name == "pm3-text")
    var importer = try Proxmark3TextImporter(input: input)
    var count = 0
    while try importer.next() != nil { count += 1 }
    #expect(count == 306)
    let w = try #require(importer.warnings.first { $0.message.contains("NUL byte") })
    #expect(w.location?.offset == row + 1)
  }
}
