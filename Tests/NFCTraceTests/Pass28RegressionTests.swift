import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// ISO-DEP presence checks (an R(NAK)/R(ACK) answered with R(ACK) after an intact answer) are
/// counted by the diff, not compared: how many a reader sends follows how long the app held
/// the session (nfcpy, libnfc-nci), so they made two identical reads differ.
@Suite struct Pass28PresenceCheckDiffTests {
  private static let readNLEN: [UInt8] = [0x00, 0xB0, 0x00, 0x00, 0x02]

  /// A Type 4 query and the READ of NLEN, then `checks` presence checks.
  private func read(checks: Int) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu(Self.readNLEN, [0x00, 0x05, 0x90, 0x00])
    for _ in 0..<checks {
      b.reader([0xB2], gapUs: 100_000)
      b.tag([0xA2])
    }
    return b
  }

  @Test func presenceChecksAreCountedNotCompared() throws {
    let d = TraceDiff(a: try diffSide(read(checks: 0)), b: try diffSide(read(checks: 3)))
    #expect(d.same)
    #expect(d.exchanges.allSatisfy { $0.same })
    let last = try #require(d.timing.last)
    #expect(last.a?.presenceChecks == 0 && last.b?.presenceChecks == 3)
    #expect(last.a?.exchanges == last.b?.exchanges)
    #expect(last.a?.durationNs == last.b?.durationNs)
    let row = DiffText.timing(d).last { $0.contains("presence checks") } ?? ""
    #expect(row.hasPrefix("      presence checks (not compared): 0 "))
    #expect(row.hasSuffix("│ presence checks: 3"))
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "0", to: out)
    let json = try JSONSerialization.jsonObject(with: Data(out.text.utf8))
    let timing = try #require((json as? [String: Any])?["timing"] as? [[String: Any]])
    #expect((timing.last?["b"] as? [String: Any])?["presence_checks"] as? Int == 3)
  }

  /// A presence check the tag left unanswered (it was taken away) stays an exchange to compare.
  @Test func unansweredPresenceCheckStaysAnExchange() throws {
    var b = read(checks: 1)
    b.reader([0xB3], gapUs: 100_000)
    let d = TraceDiff(a: try diffSide(read(checks: 1)), b: try diffSide(b))
    #expect(!d.same)
    let only = d.exchanges.filter { $0.a == nil }
    #expect(only.count == 1)
    #expect(only.first.flatMap { $0.b.map { d.b.exchanges[$0].unanswered } } == true)
    #expect(d.timing.last?.b?.presenceChecks == 1)
  }

  /// The reader's R(NAK) after its I-block went unanswered, answered with R(ACK) (the tag never
  /// got the block, ISO/IEC 14443-4 §7.5.4 rule 12), is ISO-DEP's recovery, not a presence
  /// check: it stays an exchange and counts as a retry.
  @Test func nakAfterLostBlockIsNoPresenceCheck() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.reader([0x02] + Self.readNLEN)
    b.reader([0xB2], gapUs: 10_000)
    b.tag([0xA2])
    let side = try diffSide(b)
    #expect(!side.exchanges.contains { $0.presenceCheck })
    #expect(side.exchanges.last?.name == "R(NAK)")
  }
}

/// NTAG21x answers a READ of PWD and PACK with zeros (NTAG213/215/216 datasheet §8.5.7): a
/// read-back of the configuration pages does not erase the password the session wrote (hunt
/// t2auth I1: the report said "reads as zeros" and named the READ as the write).
@Test func readBackKeepsWrittenPasswordAndPACK() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.write(0x2B, [0x0A, 0x0B, 0x0C, 0x0D])
  let pwdACK = b.frames.count - 1
  b.write(0x2C, [0xBE, 0xEF, 0x00, 0x00])
  b.read(0x29, [0x04, 0x00, 0x00, 0x10, 0x00, 0x05, 0x00, 0x00])
  let s = try #require(try sessions(b).first)
  let report = TagReport(session: s)
  #expect(report.end.config?.pwd == [0x0A, 0x0B, 0x0C, 0x0D])
  #expect(report.end.config?.pack == [0xBE, 0xEF])
  #expect(report.end.config?.cfg1 == [0x00, 0x05, 0x00, 0x00])
  #expect(s.memory.type2End.frame(0x2B * 4) == pwdACK)
  #expect(s.memory.type2End.state(0x2B * 4) == .written)
  // Never written, PWD takes the zeros read (the report says the value is not in the trace).
  var r = TraceBuilder()
  r.activateType2(version: ntag213Version)
  r.read(0x29, [0x04, 0x00, 0x00, 0x10, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
  let read = TagReport(session: try #require(try sessions(r).first))
  #expect(read.end.config?.pwd == [0, 0, 0, 0])
}

/// A NAK to COMPATIBILITY_WRITE's first part (`A0 page`) refuses the address: the causes of a
/// refused WRITE apply (hunt t2auth S6, S2, S5: it got the generic advice).
@Test func compatibilityWriteAddressRefusalIsExplained() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.reader([0xA0, 0x2D])
  b.add4Bit(0x00)
  let f = try #require(b.diagnose().finding("t2t-nak-beyond-memory"))
  #expect(
    f.cause
      == "the page does not exist on this tag (NAK 0 on COMPATIBILITY_WRITE page 45 (0x2D))")
  #expect(f.frames == [12, 13])
}

/// MIFARE Classic authentication (hunt t2auth P1, P4).
@Suite struct Pass28ClassicAuthenticationTests {
  private static let uid: [UInt8] = [0x5E, 0x1F, 0x7A, 0x33]

  /// Activation, AUTH key A block 4 and the tag nonce nt.
  private func authStarted() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x0E, 0xAA, 0x35, 0xF1], crc: false)
    return b
  }

  /// The tag leaves the reader's {nr}{ar} unanswered: it rejected the reader's answer (a wrong
  /// key), not "left the field"; no Core NFC error (no MIFARE Classic API).
  @Test func unansweredReaderAnswerIsARejectedKey() throws {
    var b = authStarted()
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    let s = try #require(try sessions(b).first)
    let op = try #require(s.operations.last)
    #expect(op.kind == .authenticate && op.outcome == .interrupted)
    #expect(op.detail("classic_auth_unanswered") == .int(8))
    let f = try #require(b.diagnose().finding("authentication-failed"))
    #expect(f.coreNFCError == nil)
    #expect(f.fix.hasPrefix("Authenticate with the sector's right key (key A or B"))
    #expect(f.cause.hasSuffix("most likely it rejected the key"))
  }

  /// Encrypted commands answered after the silent {nr}{ar}: the authentication worked and the
  /// sniffer missed the tag's {at} (review 2026-12-04b): no wrong-key finding.
  @Test func encryptedAnswersAfterTheSilenceAreNoRejectedKey() throws {
    var b = authStarted()
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.reader([0xA1, 0xB2, 0xC3, 0xD4], crc: false)
    b.tag(Array(repeating: 0x5A, count: 18), crc: false)
    let r = try b.diagnose()
    #expect(
      r.finding("authentication-failed").map { $0.cause.contains("rejected the key") } != true)
  }

  /// A last encrypted 4-byte command left unanswered (a HALT, or a READ): the session says
  /// `unknown`, and so does the diagnosis (it said INTERRUPTED).
  @Test func unansweredLastCiphertextIsUnknownInTheDiagnosisToo() throws {
    var b = authStarted()
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.tag([0x99, 0x88, 0x77, 0x66], crc: false)
    b.reader([0xA1, 0xB2, 0xC3, 0xD4], crc: false)
    b.tag(Array(repeating: 0x5A, count: 18), crc: false)
    b.reader([0x0A, 0x0B, 0x0C, 0x0D], crc: false)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.outcome == .unknown)
    #expect(s.operations.last?.detail("encrypted_unanswered") == .int(12))
    let verdicts = try b.diagnose().sessions[0].verdicts
    #expect(verdicts.last?.verdict == .unknown)
  }
}

/// Refused Type 2 reads and writes whose cause the trace shows or rules out (hunt t2auth K,
/// R4, N1, N2, I3, I4, U1, Q1, H1).
@Suite struct Pass28Type2RefusalTests {
  /// NTAG213 with CFG0 (AUTH0 `auth0`) and CFG1 (ACCESS `access`) read: pages 41–44.
  private func configured(auth0: UInt8, access: UInt8) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(41, [0x04, 0x00, 0x00, auth0, access, 0x05, 0x00, 0x00])
    return b
  }

  @Test func fastReadStartAfterEndIsAnInvalidRange() throws {
    var b = configured(auth0: 0xFF, access: 0x00)
    b.reader([0x3A, 0x08, 0x04])
    b.add4Bit(0x00)
    let f = try #require(b.diagnose().finding("command-refused"))
    #expect(f.message.contains("Its start page 8 (0x8) is after its end page 4 (0x4)"))
    #expect(f.fix.hasPrefix("Send FAST_READ with the start page first"))
  }

  /// A READ answered with 15 bytes is no refusal: `answer-not-understood` (it was
  /// `command-refused`, "a refusal is an answer", new-user trial).
  @Test func shortReadAnswerIsNotARefusal() throws {
    var b = configured(auth0: 0xFF, access: 0x00)
    b.reader([0x30, 0x10])
    b.tag(Array(repeating: 0x11, count: 15))
    let report = try b.diagnose()
    #expect(report.finding("command-refused") == nil)
    let f = try #require(report.finding("answer-not-understood"))
    #expect(f.severity == .info)
    #expect(f.cause == "the tag's answer does not have the form the command expects")
    #expect(f.coreNFCError == nil)
    #expect(f.fix.hasPrefix("Check that the tag is the product the command is meant for"))
  }

  /// An empty READ answer is a 4-bit NAK the source dropped: still a refusal (review).
  @Test func emptyReadAnswerStaysARefusal() throws {
    var b = configured(auth0: 0xFF, access: 0x00)
    b.reader([0x30, 0x10])
    b.tag([], crc: false)
    let report = try b.diagnose()
    #expect(report.finding("answer-not-understood") == nil)
    #expect(report.finding("command-refused") != nil)
  }

  /// PROT 0: reads are free, so the password cannot explain a refused READ.
  @Test func refusedReadWithProtZeroDoesNotAdvisePassword() throws {
    var b = configured(auth0: 0x10, access: 0x00)
    b.reader([0x30, 0x10])
    b.add4Bit(0x00)
    let f = try #require(b.diagnose().finding("command-refused"))
    #expect(f.message.contains("PROT is 0 (CFG1 read at #13): reads are free"))
    #expect(!f.fix.contains("PWD_AUTH"))
  }

  @Test func readCounterNeedsThePasswordWhenNFCCounterIsProtected() throws {
    var b = configured(auth0: 0xFF, access: 0x18)
    b.reader([0x39, 0x02])
    b.add4Bit(0x00)
    let f = try #require(b.diagnose().finding("command-refused"))
    #expect(f.message.contains("NFC_CNT_PWD_PROT set) and no PWD_AUTH was accepted"))
    #expect(f.fix.hasPrefix("Send PWD_AUTH (sendMiFareCommand, 1B + password) before READ_CNT"))
  }

  /// CFG0 written with CFG1 never read: CFGLCK may lock it, so the cause stays open and CFG1 is
  /// to be read (review 2026-12-04b: it blamed a clone).
  @Test func refusedCFG0WriteWithCFG1UnreadNamesCFGLCK() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.write(0x29, [0x04, 0x00, 0x00, 0xFF], .nak(0x00))
    let f = try #require(b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.message.contains("the trace does not show CFGLCK (CFG1, page 42 (0x2A))"))
    #expect(f.fix.contains("read page 42 (0x2A), CFG1 with CFGLCK,"))
  }

  /// NTAG210 has no NFC counter: no READ_CNT advice (review 2026-12-04b).
  @Test func ntag210HasNoCounterAdvice() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03])
    b.reader([0x39, 0x00])
    b.add4Bit(0x00)
    let f = try b.diagnose().finding("command-refused")
    #expect(f?.message.contains("NFC counter") != true)
  }

  @Test func ntagHasOnlyTheNFCCounter() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0x39, 0x00])
    b.add4Bit(0x00)
    let f = try #require(b.diagnose().finding("command-refused"))
    #expect(f.message.contains("An NTAG213 has one counter, the NFC counter at address 02h"))
  }

  /// AUTH0 read past the page: no PWD_AUTH advice, only the missing lock bytes to read.
  @Test func unexplainedWriteDoesNotAskForWhatWasRead() throws {
    var b = configured(auth0: 0x10, access: 0x00)
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x00))
    let f = try #require(b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.message.contains("(AUTH0 read in this session leaves the page free)"))
    #expect(!f.fix.contains("PWD_AUTH") && !f.fix.contains("CFG0"))
    #expect(f.fix.contains("read page 2, the static lock bits, to see which applies"))
  }

  /// A configuration page (PWD) is covered by no lock bit, nor by CFGLCK, which locks CFG0
  /// and CFG1 only (NTAG213/215/216 datasheet §8.8.1; 2026-12-05).
  @Test func unexplainedConfigurationPageWriteBlamesNoLockBits() throws {
    var b = configured(auth0: 0xFF, access: 0x00)
    b.write(0x2B, [0x01, 0x02, 0x03, 0x04], .nak(0x00))
    let f = try #require(b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.message.contains("(no lock bit covers a configuration page;"))
    #expect(!f.message.contains("CFGLCK"))
    var cfg1 = configured(auth0: 0xFF, access: 0x00)
    cfg1.write(0x2A, [0x00, 0x05, 0x00, 0x00], .nak(0x00))
    let g = try #require(cfg1.diagnose().finding("t2t-nak-unexplained"))
    #expect(
      g.message.contains(
        "(CFGLCK in CFG1 read in this session is clear, and no lock bit covers a configuration "
          + "page;"))
    #expect(!f.message.contains("dynamic lock"))
  }

  /// A tag without GET_VERSION whose page 2Ah (AUTH0 of an Ultralight C) covers the page.
  @Test func unexplainedWriteNamesAnUltralightCAUTH0CoveringThePage() throws {
    var b = TraceBuilder()
    b.activateType2(version: nil)
    b.reader([0x60])
    b.add4Bit(0x00)
    b.activateType2(version: nil)
    b.read(0x2A, [0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00])
    b.write(0x10, [0x00, 0x00, 0x00, 0x00], .nak(0x00))
    let f = try #require(b.diagnose().finding("t2t-nak-unexplained"))
    #expect(f.message.contains("AUTH0 (page 2Ah, read) is 16 (0x10): if this tag is a MIFARE"))
    #expect(!f.message.contains("leaves the page free"))
    #expect(f.fix.contains("AUTHENTICATE 1A 00"))
  }

  /// The length-0 write answered NAK 5 is said so, not "got no answer".
  @Test func lengthZeroWriteAnsweredNAK5() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x03, 0xD0, 0x00]))
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0x05))
    let f = try #require(b.diagnose().finding("ndef-length-uncertain"))
    #expect(
      f.cause
        == "the write of NDEF TLV length 0 (the safe first step) was answered NAK 5 (EEPROM "
        + "write error: programming started and failed)")
  }
}

/// Findings of the new-user pass of 2026-12-04b on the shared captures.
@Suite struct Pass28FieldCaptureTests {
  private func analyze(_ relative: String) throws -> [SessionAnalysis] {
    let input = try TraceInput(path: TestPaths.shared(relative))
    let format = try FormatRegistry(BuiltinFormats.all).detect(input)
    return try SessionAnalysisRun(importer: try format.open(input)).sessions
  }

  /// An ISO 15693 INVENTORY in the reader's polling loop between FeliCa polls is no command
  /// to the FeliCa card ("transceive interrupted: the tag left the field").
  @Test func pollOfAnotherTechnologyIsNoOperation() throws {
    let s = try #require(
      try analyze("public/nfc-laboratory/test_NFC-F_212kbps_001.json").first)
    #expect(s.operations.map(\.kind) == [.connect, .connect, .connect])
    #expect(s.operations.allSatisfy { $0.outcome == .ok })
    #expect(s.tag.technology == .nfcF)
  }

  /// The headline of an interrupted operation is its silence, not an APDU refused before it.
  @Test func interruptedHeadlineIsTheSilence() throws {
    let fs = [
      DiagnosisFinding(
        code: "apdu-refused", severity: .info, operation: 0, frames: [0, 1], cause: "refused",
        message: "", coreNFCError: nil, fix: "")
    ]
    var op = Operation(kind: .transceive, frame: 0)
    op.fail("refused", frame: 1)
    #expect(DiagnosisRender.headline(fs, op)?.code == "apdu-refused")
    op.interrupt("no answer", frame: 7)
    #expect(DiagnosisRender.headline(fs, op) == nil)
  }

  /// The diff prints ATQA as the report does (`0x0304`), not as spaced bytes read as air order.
  @Test func diffPrintsATQAAsAValue() throws {
    let rows = DiffText.differenceRows([
      FieldDifference("atqa", .hex([0x00, 0x04]), .hex([0x03, 0x04]))
    ])
    #expect(rows.first?.contains("atqa: 0x0004") == true)
    #expect(rows.first?.hasSuffix("│ 0x0304") == true)
  }
}

/// Pass 29: MIFARE Classic {at} missed by the sniffer.
@Suite struct Pass29ClassicAuthenticationTests {
  /// {nr}{ar} unanswered, then ciphertext the tag answers: the authentication succeeded (only
  /// an authenticated tag answers encrypted commands); the sniffer missed {at}. It was left
  /// interrupted and diagnosed with the generic PWD_AUTH text (closing note 2026-12-04).
  @Test func answeredCiphertextAfterSilentReaderAnswerIsASuccess() throws {
    var b = TraceBuilder()
    b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x0E, 0xAA, 0x35, 0xF1], crc: false)
    b.reader([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.reader([0xA1, 0xB2, 0xC3, 0xD4], crc: false)
    b.tag(Array(repeating: 0x5A, count: 18), crc: false)
    let s = try #require(try sessions(b).first)
    let auth = try #require(s.operations.first { $0.kind == .authenticate })
    #expect(auth.outcome == .ok)
    #expect(auth.unansweredFrames.isEmpty)
    #expect(auth.detail("answer_not_captured") == .int(8))
    let r = try b.diagnose()
    #expect(r.finding("authentication-failed") == nil)
  }
}

/// The emulator's GET_VERSION answers of zeros (CRC zero too) in hf_14a_mfu-sim were reported
/// as isolated RF damage ("hold the phone flat"): they are `answer-all-zeros`.
@Test func allZeroAnswersAreNoRadioDamage() throws {
  let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))
  let importer = try FormatRegistry(BuiltinFormats.all).detect(input).open(input)
  let report = try DiagnosisRun(importer: importer).diagnose()
  let zeros = report.findings.filter { $0.code == "answer-all-zeros" }
  #expect(zeros.map { $0.frames } == [[24], [125], [223]])
  #expect(zeros.allSatisfy { $0.severity == .info && $0.coreNFCError == nil })
  #expect(!report.findings.contains { $0.code == "rf-damaged-frames" })
}
