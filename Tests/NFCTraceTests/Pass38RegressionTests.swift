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

/// Findings of the expert review of 2026-12-06 (Type 4 over ISO-DEP).
@Suite struct Pass38Type4Tests {
  private let ok: [UInt8] = [0x90, 0x00]

  /// An UPDATE left unanswered, then the reader's R(NAK)s: the operation's reason names the
  /// UPDATE (the R(NAK)s are the reader's recovery), as the diagnosis does.
  @Test func interruptedReasonNamesTheAPDUNotTheRNAK() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 5)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    t.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], nil)
    let block: UInt8 = t.frames.last.map { $0.data[0] & 0x01 } ?? 0
    t.reader([0xB2 | block], gapUs: 40_000)
    t.reader([0xB2 | block], gapUs: 40_000)
    t.event(.fieldOff, gapUs: 40_000)
    let report = try t.diagnose()
    let write = try #require(report.sessions.last?.analysis.operations.last)
    #expect(write.kind == .writeNDEF)
    #expect(write.outcome == .interrupted)
    #expect(
      write.reason
        == "no answer to UPDATE NDEF data offset 2 Lc 3: the tag left the field or stopped "
        + "answering")
  }

  /// A malformed message read: the evidence is the READ BINARY answer that carried it, not the
  /// S(DESELECT) answer closing the operation.
  @Test func malformedReadCitesTheAnswerThatCarriedIt() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 8)
    t.apdu([0x00, 0xB0, 0x00, 0x02, 0x08], [0xD1, 0x01, 0x09, 0x55, 0x00, 0x61, 0x62, 0x63] + ok)
    let answer = t.frames.count - 1
    t.reader([0xC2])
    t.tag([0xC2])
    let report = try t.diagnose()
    let f = try #require(report.finding("ndef-malformed-on-read"))
    #expect(f.frames == [answer])
  }

  /// `--expect` differing from what was written cites the UPDATE that wrote the first differing
  /// byte beside the NLEN's.
  @Test func contentDifferenceCitesTheUpdateThatWroteIt() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 0)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    t.apdu([0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x41], ok)
    let data = t.frames.count - 2
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x05], ok)
    let nlen = t.frames.count - 2
    let report = try t.diagnose(expect: [0xD1, 0x01, 0x01, 0x54, 0x42])
    let f = try #require(report.finding("content-differs-from-expected"))
    #expect(f.frames == [data, nlen])
  }

  /// 91AD (AUTHENTICATION_DELAY, DESFire EV2/EV3, NTAG 424 DNA) is named and explained; it
  /// was "DESFire status 0xad" with a fix pointing to EMV.
  @Test func desfireAuthenticationDelayIsExplained() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x90, 0xAA, 0x00, 0x00, 0x01, 0x00, 0x00], [0x91, 0xAD])
    let report = try t.diagnose()
    let f = try #require(report.finding("apdu-refused"))
    #expect(
      f.cause
        == "authentication delayed after repeated failures (SW 91AD to DESFire AUTHENTICATE AES "
        + "Lc 1 Le 256)")
    #expect(f.fix.hasPrefix("Wait before authenticating again"))
    #expect(StatusWord.desfire[0x91AD] == "DESFire: authentication delay")
  }

  /// A frame over the tag's FSC that the tag took, the write succeeding: a warning without a
  /// Core NFC error (it was an error, failing `--fail-on error` on a good write).
  @Test func fscOverrunTheTagTookIsAWarning() throws {
    var t = TraceBuilder()
    t.activateType4(fsci: 2)  // FSC 32
    t.queryType4(nlen: 0)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    let message: [UInt8] = [0xD1, 0x01, 0x15, 0x55, 0x00] + [UInt8](repeating: 0x61, count: 20)
    t.apdu([0x00, 0xD6, 0x00, 0x02, UInt8(message.count)] + message, ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, UInt8(message.count)], ok)
    let report = try t.diagnose()
    let f = try #require(report.finding("command-exceeds-fsc"))
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(
      f.message.hasSuffix(
        "This tag took it anyway (the operation succeeded); a tag that "
          + "keeps to its FSC drops such frames."))
    #expect(report.sessions.last?.analysis.operations.last?.outcome == .ok)
  }

  /// A tag frame over the reader's FSD: the fix is the tag's chaining, not the app's Le.
  @Test func fsdOverrunFixIsTheTags() throws {
    var t = TraceBuilder()
    t.activateType4(fsdi: 2)  // FSD 32
    t.queryType4(nlen: 28)
    t.apdu([0x00, 0xB0, 0x00, 0x02, 0x1C], [UInt8](repeating: 0x61, count: 28) + ok)
    let report = try t.diagnose()
    let f = try #require(report.finding("response-exceeds-fsd"))
    #expect(
      f.fix.hasPrefix(
        "The tag (or the card emulation serving it) must chain any answer "
          + "longer than the reader's FSD (ISO/IEC 14443-4 §7.5.2)"))
  }
}

extension Pass38Type4Tests {
  /// A tag that served the NDEF application in one session is a Type 4 tag in the next one on
  /// the same UID, which does not select it again (it became "ISO-DEP tag" there).
  @Test func type4IdentityCarriesToTheNextSession() throws {
    var t = TraceBuilder()
    t.activateType4(uid: [0x04, 0x12, 0x34, 0x56])
    t.queryType4(nlen: 0)
    t.event(.fieldOff, gapUs: 20_000)
    t.event(.fieldOn, gapUs: 20_000)
    t.activateType4(uid: [0x04, 0x12, 0x34, 0x56])
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x86])
    let report = try t.diagnose()
    #expect(report.sessions.count == 2)
    #expect(report.sessions.map { $0.analysis.tag.product } == ["Type 4 tag", "Type 4 tag"])
  }
}

extension Pass38Type4Tests {
  /// A write after the malformed read sets the message's bytes again: its frames are not the
  /// read's evidence (the operation's own frames are).
  @Test func malformedReadEvidenceStaysInTheRead() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: 8)
    let read = t.frames.count
    t.apdu([0x00, 0xB0, 0x00, 0x02, 0x08], [0xD1, 0x01, 0x09, 0x55, 0x00, 0x61, 0x62, 0x63] + ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], ok)
    t.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], ok)
    let report = try t.diagnose()
    let f = try #require(report.finding("ndef-malformed-on-read"))
    let index = try #require(f.operation)
    let op = try #require(report.sessions.last?.analysis.operations[index])
    #expect(op.kind == .readNDEF)
    #expect(f.frames.allSatisfy { $0 >= op.firstFrame && $0 <= op.lastFrame })
    #expect(f.frames.contains(read + 1))
  }

  /// The first command left unanswered names the interruption: in the DESFire sniff, READ
  /// DATA (#27), not the R(NAK) after it nor the damaged frame (#31) no tag answers.
  @Test func firstSilentCommandKeepsTheReason() throws {
    let report = try diagnoseFile(TestPaths.shared("public/proxmark3/hf_mfdes_sniff.trace"))
    let ops = try #require(report.sessions.first?.analysis.operations)
    let cut = try #require(ops.first { $0.outcome == .interrupted })
    #expect(
      cut.reason
        == "no answer to DESFire READ DATA Lc 7 Le 256: the tag left the field or stopped "
        + "answering")
  }
}

/// diff TIMING from the end of frames (expert review of 2026-12-06).
@Suite struct Pass38TimingTests {
  private func record(_ frame: Int, at ns: Int64, answerAt answer: Int64, duration: Int64)
    -> ExchangeRecord
  {
    var r = ExchangeRecord(
      requestFrame: frame, request: [0x30, 0x04, 0x26, 0xEE], requestNs: ns, requestCRC: .ok,
      command: nil, requestRawReason: nil, responseFrame: frame + 1, response: [0x0A],
      responseNs: answer, answer: nil, responseCRC: .absent, unanswered: false, operation: 0)
    r.requestDurationNs = duration
    r.responseDurationNs = 100_000
    return r
  }

  /// The response time runs from the request's end; an estimated duration that overshoots
  /// the answer's start gives 0, not a negative time. Gaps run from the previous end.
  @Test func responseAndGapRunFromFrameEnds() {
    let a = record(0, at: 1_000_000, answerAt: 1_500_000, duration: 358_000)
    #expect(a.responseTimeNs == 142_000)
    #expect(a.endNs == 1_600_000)
    let b = record(2, at: 1_550_000, answerAt: 1_600_000, duration: 358_000)
    #expect(b.responseTimeNs == 0)
    #expect(TimingComparison.gaps([a, b]) == [nil, 0])
    let c = record(4, at: 2_000_000, answerAt: 2_500_000, duration: 0)
    #expect(TimingComparison.gaps([a, c]) == [nil, 400_000])
  }
}

/// The simulate hint's path is a shell word to paste (new review of 2026-12-06).
@Test func simulateHintQuotesPathsWithSpaces() {
  #expect(FormatRegistry.shellQuoted("Traces/scenarios/a.json") == "Traces/scenarios/a.json")
  #expect(FormatRegistry.shellQuoted("my scans/a b.json") == "'my scans/a b.json'")
  #expect(FormatRegistry.shellQuoted("it's.json") == #"'it'\''s.json'"#)
}
