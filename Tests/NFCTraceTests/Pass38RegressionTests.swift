import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the new user's walk and the expert review of 2026-12-06.
@Suite struct Pass38RegressionTests {
  /// A fix asking for PWD_AUTH says that sendMiFareCommand needs an NFCTagReaderSession: the
  /// sample apps' NFCNDEFReaderSession cannot send it.
  @Test func passwordFixNamesTheTagReaderSession() throws {
    let s = try Scenario.load(path: TestPaths.traces("scenarios/t2-write-without-pwd-auth.json"))
    let (_, report) = try diagnoseSimulated(s)
    let fix = try #require(report.finding("t2t-nak-password")?.fix)
    #expect(
      fix.hasPrefix("Authenticate first: sendMiFareCommand(commandPacket: [0x1B] + password)"))
    #expect(fix.hasSuffix(Diagnoser.tagSessionText))
    #expect(report.findings.filter { $0.fix.contains("NFCTagReaderSession") }.count == 1)
  }

  /// An app that sent PWD_AUTH already has the tag session: it is not told again.
  @Test func noSessionNoteWhenTheAppAuthenticated() throws {
    var t = TraceBuilder()
    t.activateType2()
    t.reader([0x1B, 0x11, 0x22, 0x33, 0x44])
    t.add(.tag, [0x00], crc: false, bits: 4)
    t.write(4, [0x03, 0x00, 0xFE, 0x00], .nak(0x00))
    let report = try t.diagnose()
    #expect(report.findings.contains { $0.fix.contains("password") })
    #expect(!report.findings.contains { $0.fix.contains("NFCTagReaderSession") })
  }
}

/// Importer findings of the attack of 2026-12-06.
@Suite struct Pass38ImportTests {
  private func importLab(_ json: String) throws -> ([Frame], [TraceWarning]) {
    var importer = try NFCLabImporter(
      input: TraceInput(path: "p38.json", bytes: Data(json.utf8)))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    return (frames, importer.warnings)
  }

  /// A frameFlags that is no bit mask is warned of, naming the frame: "1", 1.5 and null were
  /// dropped and -1 set every flag (the frame became encrypted), all without a word.
  @Test func nfcLabFrameFlagsOfTheWrongTypeAreWarned() throws {
    let values = [#""1""#, "1.5", "null", "-1", "1"]
    let frames = values.enumerated().map { i, v in
      #"{"frameData":"52","frameFlags":\#(v),"frameType":258,"techType":257,"timeStart":0.00\#(i + 1)}"#
    }
    let (read, warnings) = try importLab(#"{"frames":["# + frames.joined(separator: ",") + "]}")
    #expect(read.count == 5)
    #expect(warnings.map { $0.location?.record } == [1, 2, 3, 4])
    #expect(
      warnings.first?.message
        == "frameFlags \"1\" is not a bit mask (an integer 0 or more): the frame's flags (short "
        + "frame, encrypted, CRC or parity error) are not known")
    #expect(warnings[3].message.hasPrefix("frameFlags -1 is not"))
    #expect(!read[3].sourceFlags.contains("encrypted"))
    #expect(read[4].bits == 7)
    #expect(read[0].bits == nil)
  }

  /// Hex digits a separator splits are damage ("5 2" was read as 52, "9:370" as 93 70); the
  /// error message no longer repeats the frame ("frame 1, byte offset 11: frame 1: …").
  @Test func hexGroupsOfOddLengthAreRefused() throws {
    #expect(Hex.bytes("5 2") == nil)
    #expect(Hex.bytes("9:370") == nil)
    #expect(Hex.bytes("93:70 0a-0B\t0c") == [0x93, 0x70, 0x0A, 0x0B, 0x0C])
    #expect(Hex.bytes("9370") == [0x93, 0x70])
    do {
      _ = try importLab(
        #"{"frames":[{"frameData":"5 2","frameType":258,"techType":257,"timeStart":0.001}]}"#)
      Issue.record("expected a TraceError")
    } catch let e as TraceError {
      #expect(e.message == "frameData is not hex bytes: \"5 2\"")
      #expect(e.location.record == 1)
      #expect(e.location.offset == 11)
    }
  }
}
