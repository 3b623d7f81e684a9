import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// SELECT of the NDEF application by name, T4T 2.0 §5.4.2.
private let selectNDEFApplication: [UInt8] = [
  0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00,
]

/// NTAG216 GET_VERSION answer (nfc-facts §4.6).
private let ntag216Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]

/// A 301-byte NDEF message (0x12D): one Text record, not short (4-byte payload length).
private let longMessage: [UInt8] =
  [0xC1, 0x01, 0x00, 0x00, 0x01, 0x26, 0x54, 0x02, 0x65, 0x6E]
  + Array(repeating: 0x4C, count: 291)

/// An NTAG216 whose data area opens with a Lock Control TLV (bytes 16–20: dynamic lock bits
/// at byte 904, page 226), so the NDEF TLV
/// sits at byte 21 and a 3-byte length (bytes 22–24) spans pages 5 and 6; then writeNDEF of
/// `longMessage` by the length-last procedure up to its final two WRITEs: length 0 in 3-byte
/// form (`03 FF 00 00`), the data, the Terminator.
private func spanningLengthWrite() -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType2(version: ntag216Version)
  b.read(3, [0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xE8, 0x18, 0x66, 0x03, 0x00, 0xFE])
  // Bytes 20… as written: the TLV's last byte, 03 FF 00 00, the message, FE.
  let area: [UInt8] = [0x66, 0x03, 0xFF, 0x00, 0x00] + longMessage + [0xFE]
  for page in 5...(5 + (area.count - 1) / 4) {
    let at = (page - 5) * 4
    b.write(page, Array((area[at..<min(at + 4, area.count)] + [0, 0, 0]).prefix(4)))
  }
  return b
}

/// A 3-byte NDEF TLV length that continues on the next page takes two WRITEs: the tag left
/// between them (hunt repro `t2-216-lockctl-span-len-torn`: no finding said the tag may hold
/// a corrupt message).
@Suite struct Pass25SplitLengthTests {
  /// The high byte's page acknowledged, the low byte's unanswered: the tag holds 0x12D or
  /// `FF 01 00` = 256, which cuts the message short.
  @Test func lowBytePageUnanswered() throws {
    var b = spanningLengthWrite()
    b.write(5, [0x66, 0x03, 0xFF, 0x01])
    b.write(6, [0x2D] + longMessage.prefix(3), .none)
    let r = try b.diagnose()
    #expect(r.codes == ["write-interrupted", "ndef-length-uncertain"])
    let f = try #require(r.finding("ndef-length-uncertain"))
    #expect(f.frames == [b.frames.count - 1])
    #expect(
      f.cause
        == "one of the two WRITEs of the 3-byte NDEF TLV length (pages 5 and 6) got no answer: "
        + "the tag holds the new length or 0x100 (256), a corrupt message")
    #expect(f.message.contains("or a length of 0x100 (256), which cuts the message short"))
    #expect(f.message.contains("(bytes 22–24) continues on the next page"))
    #expect(f.fix.hasSuffix("so one WRITE switches the length."))
  }

  /// The low byte's page first (acknowledged: the tag says 0x2D meanwhile), the high byte's
  /// unanswered; the step back to page 6 stays in the one writeNDEF (it started a second).
  @Test func highBytePageUnanswered() throws {
    var b = spanningLengthWrite()
    b.write(6, [0x2D] + longMessage.prefix(3))
    b.write(5, [0x66, 0x03, 0xFF, 0x01], .none)
    let r = try b.diagnose()
    #expect(
      r.sessions[0].analysis.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(r.codes == ["write-interrupted", "ndef-length-uncertain"])
    let f = try #require(r.finding("ndef-length-uncertain"))
    #expect(f.cause.hasSuffix("the tag holds the new length or 0x2D (45), a corrupt message"))
  }

  /// Both WRITEs acknowledged: the message is whole, nothing to say about its length.
  @Test func bothPagesAcknowledged() throws {
    var b = spanningLengthWrite()
    b.write(5, [0x66, 0x03, 0xFF, 0x01])
    b.write(6, [0x2D] + longMessage.prefix(3))
    let r = try b.diagnose()
    #expect(r.codes.isEmpty)
    #expect(r.sessions[0].analysis.operations.last?.outcome == .ok)
  }

  /// The writer stopped after the high byte's page: `FF 01 00` claims 256 bytes of the
  /// 301-byte message, whose record then runs past the length.
  @Test func stoppedBetweenTheTwoWrites() throws {
    var b = spanningLengthWrite()
    b.write(5, [0x66, 0x03, 0xFF, 0x01])
    #expect(try b.diagnose().codes == ["length-past-end"])
  }
}

/// diff of two readers, one whose smaller FSD makes the tag chain its answer (hunt
/// `diff-fsd-A`/`-B`: "response byte 0: d1 │ 13", the R(ACK)s as extra exchanges).
@Suite struct Pass25ChainedAnswerDiffTests {
  static let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x14]
  static let data: [UInt8] =
    [0xD1, 0x01, 0x10, 0x54, 0x02, 0x65, 0x6E] + Array(repeating: 0x52, count: 13)

  private func queried() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x14)
    return b
  }

  /// The answer sent whole and chained over three I-blocks: the same APDU, another framing.
  @Test func chainedAnswerComparesAsItsWholeAPDU() throws {
    var a = queried()
    a.apdu(Self.read, Self.data + [0x90, 0x00])
    var b = queried()
    b.apdu(Self.read, chainedAnswer: Self.data + [0x90, 0x00], part: 8)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(d.exchanges.filter { !$0.same }.map(\.differences) == [["framing"]])
    let x = try #require(d.exchanges.first { !$0.same })
    let rb = d.b.exchanges[x.b ?? -1]
    #expect(rb.responseBlocks == 3)
    #expect(rb.responsePayload.map(Array.init) == Self.data + [0x90, 0x00])
    #expect(rb.answerSummary == d.a.exchanges[x.a ?? -1].answerSummary)
    #expect(
      DiffText.firstDifference(d.a.exchanges[x.a ?? -1], rb).map {
        $0.trimmingCharacters(in: .whitespaces)
      } == [
        "command in 1 I-block, answer in 1 I-block" + String(repeating: " ", count: 32)
          + "│ command in 1 I-block, answer chained in 3 I-blocks"
      ])
  }

  /// A chain the tag never finished (no answer to the R(ACK)) is no framing: its exchanges
  /// stay, the unanswered R(ACK) among them.
  @Test func unfinishedChainKeepsItsExchanges() throws {
    var a = queried()
    a.apdu(Self.read, Self.data + [0x90, 0x00])
    var b = queried()
    b.reader([0x02] + Self.read)
    b.tag([0x12] + Self.data.prefix(8))
    b.reader([0xA3])
    let side = try diffSide(b)
    #expect(side.exchanges.filter(\.chainStep).isEmpty)
    #expect(side.exchanges.last?.unanswered == true)
    #expect(side.exchanges.dropLast().last?.responseBlocks == 1)
  }
}

/// The steps of a chain are no exchanges to compare, nor to count in timing (another FSD made
/// the row differ); they took time: the duration includes them.
@Test func chainStepsCountInTiming() throws {
  var a = TraceBuilder()
  a.activateType4()
  a.queryType4(nlen: 0x14)
  var b = a
  a.apdu(Pass25ChainedAnswerDiffTests.read, Pass25ChainedAnswerDiffTests.data + [0x90, 0x00])
  b.apdu(
    Pass25ChainedAnswerDiffTests.read,
    chainedAnswer: Pass25ChainedAnswerDiffTests.data + [0x90, 0x00], part: 8)
  let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
  let last = try #require(d.timing.last)
  #expect(last.a?.exchanges == 1)
  #expect(last.b?.exchanges == 1)
  #expect((last.b?.durationNs ?? 0) > (last.a?.durationNs ?? 0))
  #expect(last.same)
}

/// A WRITE refused after the tag refused the app's PWD_AUTH, AUTH0 never read (hunt
/// `t2-ev1-wrongpwd`: `t2t-nak-unexplained`, the refused password not mentioned).
@Suite struct Pass25RefusedPasswordTests {
  /// MIFARE Ultralight EV1 MF0UL21 GET_VERSION answer (nfc-facts §4.6).
  static let ev1Version: [UInt8] = [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]

  private func written(pwdAuth: UInt8?) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ev1Version)
    b.read(3, [0xE1, 0x10, 0x10, 0x00, 0x03, 0x00, 0xFE])
    if let pwdAuth {
      b.reader([0x1B, 0xDE, 0xAD, 0xBE, 0xEF])
      b.add4Bit(pwdAuth)
      b.activateType2()
    }
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0))
    return b
  }

  @Test func writeAfterRefusedPasswordNamesIt() throws {
    let b = written(pwdAuth: 0x00)
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-nak-password"))
    #expect(
      f.cause
        == "the page is most likely password protected: the tag refused the app's password "
        + "(NAK 0 on WRITE page 4 (0x4))")
    #expect(f.frames.prefix(2) == [14, 15])
    #expect(f.message.contains("The trace does not show AUTH0 (page 37 (0x25), CFG0)"))
    #expect(f.coreNFCError?.code == 401)
    #expect(r.finding("t2t-nak-unexplained") == nil)
  }

  /// NAK 4 to PWD_AUTH, ACCESS not read: a wrong password or the authentication limit
  /// reached, both named; the fix rules out the first before giving up the tag.
  @Test func nak4WithoutACCESSIsWrongPasswordOrAuthLimit() throws {
    let f = try #require(try written(pwdAuth: 0x04).diagnose().finding("t2t-nak-password"))
    #expect(
      f.cause
        == "the page is most likely password protected: the tag refused the app's password "
        + "(NAK 4 (auth-counter/not allowed): wrong, or AUTHLIM reached) (NAK 0 on WRITE page 4 "
        + "(0x4))")
    #expect(
      f.message.contains(
        "The trace does not show ACCESS (CFG1, page 38 (0x26)), so two causes remain: the "
          + "password sent is wrong, or — if AUTHLIM is set — the count of wrong passwords "
          + "reached it"))
    #expect(f.fix.hasPrefix("First rule out a wrong password: reconnect"))
    #expect(f.fix.contains("If the right password is refused too, AUTHLIM is reached"))
  }

  /// NAK 1 to PWD_AUTH is a damaged frame, not a wrong password (review of 321be95).
  @Test func pwdAuthTransmissionErrorBlamesNoPassword() throws {
    #expect(try written(pwdAuth: 0x01).diagnose().finding("t2t-nak-password") == nil)
  }

  /// A tag that refused GET_VERSION has no PWD_AUTH: its NAK to one blames no password.
  @Test func tagWithoutGetVersionBlamesNoPassword() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x60])
    b.add4Bit(0x00)
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x06, 0x00, 0x03, 0x00, 0xFE])
    b.reader([0x1B, 0xDE, 0xAD, 0xBE, 0xEF])
    b.add4Bit(0x00)
    b.activateType2()
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(0))
    let r = try b.diagnose()
    #expect(r.finding("t2t-nak-password") == nil)
    #expect(r.codes.contains("t2t-nak-unexplained"))
  }

  /// No PWD_AUTH at all: the cause stays open.
  @Test func noPasswordSentStaysUnexplained() throws {
    let r = try written(pwdAuth: nil).diagnose()
    #expect(r.codes == ["t2t-nak-unexplained"])
  }
}

/// Commands after the reader's own HLTA, with no WUPA since: the halted tag ignores them
/// (ISO/IEC 14443-3 §6.3); the silence was diagnosed as the tag leaving the field, and the
/// ignored write of length 0 as possibly landed.
@Suite struct Pass25HaltedTagTests {
  private func halted(wakeUp: Bool) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.reader([0x50, 0x00])
    if wakeUp { b.activateType2() }
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    return b
  }

  @Test func writeAfterHaltIsTheReadersDoing() throws {
    let r = try halted(wakeUp: false).diagnose()
    #expect(r.codes == ["write-interrupted"])
    let f = try #require(r.finding("write-interrupted"))
    #expect(f.frames == [14, 15, 16])
    #expect(
      f.cause
        == "the reader halted the tag (HLTA at #14) and sent writeNDEF's commands without "
        + "waking it")
    #expect(f.message.contains("the halted tag ignored it, so it did not reach the tag's memory"))
  }

  /// Woken by WUPA after the HLTA: a silence then is the field's, as before.
  @Test func writeAfterWakeUpIsNotHalted() throws {
    let r = try halted(wakeUp: true).diagnose()
    let f = try #require(r.finding("write-interrupted"))
    #expect(f.cause.hasPrefix("the tag left the field during writeNDEF"))
    #expect(r.codes.contains("ndef-length-uncertain"))
  }
}

extension Pass25SplitLengthTests {
  /// `FF` the last byte of page 5 (a NULL TLV after the Lock Control TLV), the two length
  /// bytes on page 6: the writer rewrites page 5 then page 6, the second unanswered. One
  /// writeNDEF (the step back to page 5 started a second), and one WRITE holds the whole
  /// value: the tag holds the new length or the cleared 0.
  @Test func lengthValueWhollyOnTheNextPage() throws {
    var b = Self.ffAtPageEnd()
    b.write(5, [0x66, 0x00, 0x03, 0xFF])
    b.write(6, [0x01, 0x2D] + longMessage.prefix(2), .none)
    let r = try b.diagnose()
    #expect(
      r.sessions[0].analysis.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    let f = try #require(r.finding("ndef-length-uncertain"))
    #expect(f.message.contains("or an empty message (length 0; readNDEF reports 403)"))
  }

  /// The same, both WRITEs acknowledged: one writeNDEF that finished.
  @Test func lengthValueWhollyOnTheNextPageWritten() throws {
    var b = Self.ffAtPageEnd()
    b.write(5, [0x66, 0x00, 0x03, 0xFF])
    b.write(6, [0x01, 0x2D] + longMessage.prefix(2))
    let r = try b.diagnose()
    #expect(r.codes.isEmpty)
    #expect(r.sessions[0].analysis.operations.map(\.outcome) == [.ok, .ok, .ok])
  }

  /// NTAG216, NULL TLV after the Lock Control TLV: the NDEF TLV at byte 22, its `FF` at 23
  /// (page 5's last byte); writeNDEF of `longMessage` up to its final length.
  private static func ffAtPageEnd() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag216Version)
    b.read(3, [0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xE8, 0x18, 0x66, 0x00, 0x03, 0x00, 0xFE])
    let area: [UInt8] = [0x66, 0x00, 0x03, 0xFF, 0x00, 0x00] + longMessage + [0xFE]
    for page in 5...(5 + (area.count - 1) / 4) {
      let at = (page - 5) * 4
      b.write(page, Array((area[at..<min(at + 4, area.count)] + [0, 0, 0]).prefix(4)))
    }
    return b
  }
}

/// 6A82 to READ/UPDATE BINARY judged from the SELECTs the tag accepted (hunt-t4 d10, d1b):
/// the accepted SELECTs were not in the command log, so "no SELECT since the activation" was
/// said right after one, and an UPDATE after the application's re-SELECT blamed the tag.
@Suite struct Pass25CurrentFileTests {
  static let ok: [UInt8] = [0x90, 0x00]
  static let notFound: [UInt8] = [0x6A, 0x82]

  @Test func fileSelectedButNotServed() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], Self.notFound)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.cause.hasPrefix("the tag selected file E104 but cannot find it for READ NLEN"))
    #expect(f.message.hasPrefix("The tag accepted the SELECT of file E104 (#"))
  }

  @Test func updateAfterTheApplicationsSelectAlone() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu(selectNDEFApplication, Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.notFound)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.cause.hasPrefix("no file was selected after the application's SELECT"))
    #expect(f.fix.hasPrefix("SELECT the file (the NDEF file's id from the CC"))
  }

  /// Re-activated, nothing selected since: as before.
  @Test func nothingSelectedSinceTheActivation() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.notFound)
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(f.cause.hasPrefix("no file was selected since the tag was activated again"))
  }
}

extension Pass25ChainedAnswerDiffTests {
  /// The tag's chained answer with a part sent again (the reader's R(ACK) repeated) and an
  /// S(WTX) inside the chain (review of 0ca6ea1: the resent part counted as a block of its
  /// own; the reader's S(WTX) answer ended the chain, part 1 alone was compared).
  @Test func resentPartAndWTXInsideTheChain() throws {
    let whole = Self.data + [0x90, 0x00]
    var a = queried()
    a.apdu(Self.read, whole)
    var b = queried()
    b.reader([0x02] + Self.read)
    b.tag([0x12] + whole.prefix(8))
    b.reader([0xA3])
    b.reader([0xA3], gapUs: 6000)  // no part came: R(ACK) again
    b.tag([0x13] + whole.dropFirst(8).prefix(8))
    b.reader([0xA2])
    b.tag([0xF2, 0x01])  // S(WTX) request
    b.reader([0xF2, 0x01])
    b.tag([0x02] + whole.dropFirst(16))
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(d.exchanges.filter { !$0.same }.map(\.differences) == [["framing"]])
    let x = try #require(d.exchanges.first { !$0.same })
    let rb = d.b.exchanges[x.b ?? -1]
    #expect(rb.responseBlocks == 3)
    #expect(rb.responsePayload.map(Array.init) == whole)
  }
}

extension Pass25SplitLengthTests {
  /// A 255-byte message in the 3-byte form: the `FF` page's high byte is 0, as in the cleared
  /// `FF 00 00` (review of c8c2e1f: its step back started a second writeNDEF). One operation;
  /// the low byte's WRITE unanswered leaves 255 or the cleared 0.
  @Test func message255BytesLong() throws {
    let message: [UInt8] =
      [0xC1, 0x01, 0x00, 0x00, 0x00, 0xF8, 0x54, 0x02, 0x65, 0x6E]
      + Array(repeating: 0x4C, count: 245)
    var b = TraceBuilder()
    b.activateType2(version: ntag216Version)
    b.read(3, [0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xE8, 0x18, 0x66, 0x03, 0x00, 0xFE])
    let area: [UInt8] = [0x66, 0x03, 0xFF, 0x00, 0x00] + message + [0xFE]
    for page in 5...(5 + (area.count - 1) / 4) {
      let at = (page - 5) * 4
      b.write(page, Array((area[at..<min(at + 4, area.count)] + [0, 0, 0]).prefix(4)))
    }
    b.write(5, [0x66, 0x03, 0xFF, 0x00])
    b.write(6, [0xFF] + message.prefix(3), .none)
    let r = try b.diagnose()
    let kinds = r.sessions[0].analysis.operations.map(\.kind)
    #expect(kinds == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(r.codes == ["write-interrupted", "ndef-length-uncertain"])
    let message0 = r.finding("ndef-length-uncertain")?.message ?? ""
    #expect(message0.contains("the complete new message or an empty message (length 0"))
  }
}

/// The length a field holds if its unanswered write did not land, from what it held before
/// the operation (review of c8c2e1f: only the operation's own writes were asked).
@Suite struct Pass25PriorLengthTests {
  /// The old 1-byte length read (`03 05`, byte 24 = 01), the clearing step `66 03 FF 00` on
  /// page 5 acknowledged and its `00` on page 6 unanswered: empty, or `FF 00 01` = 1.
  @Test func clearingAThreeByteLengthOverAOneByteOne() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag216Version)
    b.read(
      3,
      [0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xE8, 0x18, 0x66, 0x03, 0x05, 0xD1]
        + [0x01, 0x01, 0x54, 0x00])
    b.write(5, [0x66, 0x03, 0xFF, 0x00])
    b.write(6, [0x00, 0xC1, 0x01, 0x00], .none)
    let f = try #require(try b.diagnose().finding("ndef-length-uncertain"))
    #expect(f.message.contains("or a length of 0x1 (1) — the acknowledged bytes of the 3-byte"))
    #expect(f.fix.hasSuffix("so one WRITE switches the length."))
  }

  /// Type 4, data first, then NLEN unanswered: the tag holds the new NLEN or the one it read
  /// (5), which cuts the 12-byte message short.
  @Test func dataFirstNLENUnanswered() throws {
    let message: [UInt8] = [0xD1, 0x01, 0x08, 0x54, 0x02, 0x65, 0x6E, 0x68, 0x69, 0x21, 0x21, 0x21]
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x0C] + message, [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x0C], nil)
    let f = try #require(try b.diagnose().finding("ndef-length-uncertain"))
    #expect(f.message.contains("or a length of 0x5 (5), which cuts the message short"))
  }
}

/// A tag that served the NDEF application and then refused its SELECT (hunt-t4 c1, c2b):
/// it was called "not NDEF formatted", its status notSupported.
@Test func ndefApplicationDroppedAfterServingIt() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 0)
  b.apdu(
    selectNDEFApplication, [0x6A, 0x82])
  let r = try b.diagnose()
  #expect(r.sessions[0].analysis.ndefStatus?.status == .readWrite)
  #expect(r.codes == ["t4t-application-not-found"])
  let f = try #require(r.finding("t4t-application-not-found"))
  #expect(f.cause == "the tag refused the NDEF application it had served (SW 6A82)")
  #expect(f.coreNFCError?.code == 102)
}

/// NLEN 64, the READ of the message answered 21 bytes and 6282 (hunt-t4 d8: "reads stopped
/// before the end", no finding): the file ends short of what NLEN announces.
@Test func nlenPastTheFilesEnd() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 64)
  b.apdu([0x00, 0xB0, 0x00, 0x02, 0x40], Array(repeating: 0x41, count: 21) + [0x62, 0x82])
  let r = try b.diagnose()
  let op = try #require(r.sessions[0].analysis.operations.last)
  #expect(op.kind == .readNDEF && op.outcome == .failed)
  let f = try #require(r.finding("t4t-nlen-exceeds-file"))
  #expect(f.cause == "the NDEF file ends before the 64 bytes its NLEN announces")
  #expect(f.message.contains("the file ends at byte 23, 43 bytes short"))
}

/// The NDEF application's SELECT refused twice, then nothing but S(DESELECT) (hunt-t4 c6):
/// taken for Core NFC's discovery, the refusal left no status; the tag has no NDEF.
@Test func repeatedRefusedSelectIsTheQuery() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.apdu(selectNDEFApplication, [0x6A, 0x82])
  b.apdu(selectNDEFApplication, [0x6A, 0x82])
  b.reader([0xC2])
  b.tag([0xC2])
  let s = try #require(try sessions(b).first)
  #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
  #expect(s.ndefStatus?.status == .notSupported)
}

/// 6D00 to the NDEF procedure's UPDATE BINARY (hunt-t4 a7): "check the APDU" for a correct
/// command; the tag lacks the instruction.
@Test func updateBinaryNotImplemented() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 0)
  b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x6D, 0x00])
  let f = try #require(try b.diagnose().finding("t4t-ins-not-supported"))
  #expect(f.cause == "the tag does not implement UPDATE BINARY (D6) (SW 6D00 to UPDATE NLEN 0)")
  #expect(f.coreNFCError?.code == 401)
  #expect(f.fix.hasPrefix("Treat the tag as read-only"))
}

/// The reader asks for the tag's chained part again with R(ACK) of that part's number (it did
/// not take it) and the tag resends it (ISO/IEC 14443-4 §7.5.4.2): no block-number finding
/// (it was `unexpected-block-number`, review of 0ca6ea1's c-C trace).
@Test func repeatedACKOfAChainedPartIsNoBlockNumberError() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.reader([0x02, 0x00, 0xB0, 0x00, 0x02, 0x10])
  b.tag([0x12] + Array(repeating: 0x52, count: 8))
  b.reader([0xA3])
  b.tag([0x13] + Array(repeating: 0x52, count: 8))
  b.reader([0xA3])  // part 2 not taken: asked again
  b.tag([0x13] + Array(repeating: 0x52, count: 8))
  b.reader([0xA2])
  b.tag([0x02, 0x90, 0x00])
  let (decoded, _) = decodeAll(b.frames)
  #expect(!decoded.flatMap { $0.findings.map(\.code) }.contains("unexpected-block-number"))
}

/// Review of the Type 4 / HLTA changes (helper-108).
@Suite struct Pass25SecondReviewTests {
  /// After HLTA the final length write is ignored; the length was cleared before (acked):
  /// the tag holds an empty message (h6). Length-first writes all ignored: no `ndef-torn`,
  /// the old message stands (h7).
  @Test func writesIgnoredAfterHalt() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x01, 0x54, 0x00, 0xFE])
    b.reader([0x50, 0x00])
    b.write(4, [0x03, 0x05, 0xD1, 0x01], .none)
    #expect(try b.diagnose().codes == ["write-interrupted", "ndef-emptied"])
    var c = TraceBuilder()
    c.activateType2(version: ntag213Version)
    c.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE])
    c.reader([0x50, 0x00])
    c.write(4, [0x03, 0x09, 0xD1, 0x01], .none)
    #expect(!(try c.diagnose().codes.contains("ndef-torn")))
  }

  /// The T4T 1.0 AID probed and refused after the 2.0 application served: nothing lost.
  @Test func versionOneProbeAfterTheServedApplication() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00], [0x6A, 0x82])
    let r = try b.diagnose()
    #expect(r.codes.isEmpty)
    #expect(r.sessions[0].analysis.ndefStatus?.status == .readWrite)
  }

  /// 6D00 to UPDATE BINARY after the tag accepted one: it has the instruction.
  @Test func insNotSupportedOnlyWhenNeverAccepted() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x02, 0xD1, 0x01], [0x6D, 0x00])
    #expect(try b.diagnose().finding("t4t-ins-not-supported") == nil)
  }

  /// The application's SELECT refused, then accepted: no notSupported left from the refusal.
  @Test func refusedThenAcceptedSelectLeavesNoNotSupported() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(selectNDEFApplication, [0x6A, 0x82])
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00, 0x90, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.ndefStatus?.status == .readWrite)
  }
}

extension Pass25HaltedTagTests {
  /// An HLTA that reached the capture damaged may not have halted the tag: the silence stays
  /// the field's (review: the tool was sure the write never landed).
  @Test func damagedHaltHaltsNothing() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.reader([0x50, 0x00], badCRC: true)
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    let f = try #require(try b.diagnose().finding("write-interrupted"))
    #expect(f.cause.hasPrefix("the tag left the field during writeNDEF"))
  }
}
