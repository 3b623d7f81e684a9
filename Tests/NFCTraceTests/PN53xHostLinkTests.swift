import NFCTrace
import Testing

/// CCID message `kind` around `body` (CCID 1.1 §6.1/§6.2: dwLength little-endian).
private func ccid(_ kind: UInt8, _ body: [UInt8]) -> [UInt8] {
  [kind, UInt8(body.count), 0, 0, 0, 0, 0, 0, 0, 0] + body
}

/// PC/SC traffic of a CCID contactless reader, unwrapped by `PN53xHostLink`.
@Suite struct PN53xHostLinkTests {
  /// 63 00 "operation failed": a refusal (NAK, wrong key or silence; the reader does not
  /// say which), so the WRITE is refused rather than left unanswered.
  @Test func updateBinaryRefusedByTheReaderIsAFailureFrame() {
    var link = PN53xHostLink()
    let write = link.hostToReader(ccid(0x6F, [0xFF, 0xD6, 0x00, 0x07, 0x04, 0xFE, 0, 0, 0]))
    #expect(write.frames.map(\.data) == [[0xA2, 0x07, 0xFE, 0, 0, 0]])
    let answer = link.readerToHost(ccid(0x80, [0x63, 0x00]))
    #expect(answer.frames.map(\.flags) == [[ReaderChipFlag.readerFailure]])
    #expect(
      answer.warnings == [
        "the reader reports that the command failed: status 63 00, operation failed"
      ])
    let (decoded, _) = decodeAll(
      (write.frames + answer.frames).enumerated().map { i, f in
        Frame(
          index: i, timeNs: Int64(i), direction: f.direction, data: f.data, crc: f.crc,
          technology: .nfcA, sourceFlags: f.flags,
          location: SourceLocation(file: "t", unit: "frame", record: i, offset: 0))
      })
    #expect(decoded[1].layers.last?.name == "NAK")
  }

  /// A CCID message longer than the endpoint's packets arrives in pieces; a PN53x frame too.
  @Test func ccidMessageAndPN53xFrameInPieces() {
    var link = PN53xHostLink()
    let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    let message = ccid(0x6F, select)
    #expect(link.hostToReader(Array(message.prefix(12))).frames.isEmpty)
    #expect(link.hostToReader(Array(message.dropFirst(12))).frames.map(\.data) == [select])
    var chip = PN53xHostLink()
    let frame: [UInt8] = [0x00, 0x00, 0xFF, 0x05, 0xFB, 0xD4, 0x40, 0x01, 0x30, 0x04, 0xB7, 0x00]
    #expect(chip.hostToReader(Array(frame.prefix(6))).frames.isEmpty)
    #expect(chip.hostToReader(Array(frame.dropFirst(6))).frames.map(\.data) == [[0x30, 0x04]])
  }

  /// An InListPassiveTarget answer cut inside its target data is reported (it gave no frame
  /// and no word).
  @Test func targetDataCutShortIsWarned() {
    var link = PN53xHostLink()
    _ = link.hostToReader([0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x4A, 0x01, 0x00])
    let out = link.readerToHost([0xD5, 0x4B, 0x01, 0x01, 0x00, 0x90, 0x00])
    #expect(out.frames.isEmpty)
    #expect(
      out.warnings.contains(
        "InListPassiveTarget: target data cut short (Tg, SENS_RES, SEL_RES and NFCIDLength "
          + "expected, 2 bytes left)"))
  }

  /// A tag answer chained with MI whose next part the host never asks for is reported when
  /// the host moves on (it vanished).
  @Test func unfinishedChainedAnswerIsWarned() {
    var link = PN53xHostLink()
    _ = link.hostToReader([0xFF, 0x00, 0x00, 0x00, 0x05, 0xD4, 0x40, 0x01, 0x30, 0x04])
    let part = link.readerToHost(
      [0xD5, 0x41, 0x40] + Array(repeating: 0x11, count: 16) + [0x90, 0x00])
    #expect(part.frames.isEmpty)
    let next = link.hostToReader([0xFF, 0x00, 0x00, 0x00, 0x05, 0xD4, 0x40, 0x01, 0x30, 0x08])
    #expect(next.frames.map(\.data) == [[0x30, 0x08]])
    #expect(
      next.warnings == [
        "the tag's answer chained with MI was not finished (16 bytes) when the host sent a new "
          + "command; not shown"
      ])
  }

  /// libnfc's acr122_pcsc logs the PN53x answer bare, followed by the reader's 90 00.
  @Test func bareACR122AnswerLosesItsStatusWord() {
    var link = PN53xHostLink()
    _ = link.hostToReader([0xFF, 0x00, 0x00, 0x00, 0x05, 0xD4, 0x40, 0x01, 0x30, 0x04])
    let out = link.readerToHost(
      [0xD5, 0x41, 0x00] + Array(repeating: 0x11, count: 16) + [0x90, 0x00])
    #expect(out.frames.map(\.data.count) == [16])
  }

  @Test func cardStatusWord61xxIsTheCardsAnswer() {
    var link = PN53xHostLink()
    let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00]
    let command = link.hostToReader(ccid(0x6F, select))
    #expect(command.frames.map(\.data) == [select])
    #expect(command.frames.first?.flags == [ReaderChipFlag.isoDEPPayload])
    // 61 1C answers the card's APDU: it is the card's status word, not the reader's.
    let answer = link.readerToHost(ccid(0x80, [0x61, 0x1C]))
    #expect(answer.frames.map(\.data) == [[0x61, 0x1C]])
    #expect(answer.frames.first?.direction == .tag)
  }

  @Test func acr122GetResponseAfterItsOwn61xx() {
    var link = PN53xHostLink()
    _ = link.hostToReader(ccid(0x6F, [0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x4A, 0x01, 0x00]))
    #expect(link.readerToHost(ccid(0x80, [0x61, 0x0A])).frames.isEmpty)
    _ = link.hostToReader(ccid(0x6F, [0xFF, 0xC0, 0x00, 0x00, 0x0A]))
    let target: [UInt8] = [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, 0x04, 1, 2, 3, 4]
    let answer = link.readerToHost(ccid(0x80, target + [0x90, 0x00]))
    #expect(answer.frames.map(\.data) == [[0x04, 0x00], [0x08]])
  }

  @Test func authenticateWithoutTheKeyIsReported() {
    var link = PN53xHostLink()
    let out = link.hostToReader(
      ccid(0x6F, [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x08, 0x61, 0x01]))
    #expect(out.frames.isEmpty)
    #expect(
      out.warnings == [
        "GENERAL AUTHENTICATE of block 8: the key or the UID it uses is not in the capture, so "
          + "the AUTH is not shown"
      ])
  }

  @Test func recognisesReadersByTheirFirstBytes() {
    #expect(PN53xHostLink.recognizes(hostBytes: [0x00, 0x00, 0xFF, 0x02, 0xFE, 0xD4, 0x02, 0x2A]))
    #expect(PN53xHostLink.recognizes(hostBytes: ccid(0x62, [])))
    #expect(!PN53xHostLink.recognizes(hostBytes: [0x55, 0x53, 0x42, 0x43, 0x10, 0, 0, 0, 0, 2]))
    #expect(PN53xHostLink.recognizes(readerBytes: ccid(0x80, [0x3B, 0x80])))
    #expect(!PN53xHostLink.recognizes(readerBytes: ccid(0x80, [0x3B, 0x80]).dropLast()))
  }
}

/// A PN53x normal information frame around `tfiPD`.
private func framed(_ tfiPD: [UInt8]) -> [UInt8] {
  let len = UInt8(tfiPD.count)
  return [0, 0, 0xFF, len, 0 &- len] + tfiPD + [0 &- tfiPD.reduce(0, &+), 0]
}

/// The review's and the attack's findings, one test each.
@Suite struct ReaderHostTrafficRegressionTests {
  /// InDataExchange parts chained with MI: the command (Tg b6) and the answer (status b6) are
  /// each one frame.
  @Test func miChainingJoinsTheParts() {
    var link = PN53xHostLink()
    let target: [UInt8] = [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x20, 0x04, 1, 2, 3, 4, 0x02, 0x80]
    _ = link.hostToReader(framed([0xD4, 0x4A, 0x01, 0x00]))
    #expect(link.readerToHost(framed(target)).frames.count == 3)
    #expect(link.hostToReader(framed([0xD4, 0x40, 0x41, 0x00, 0xD6, 0x00])).frames.isEmpty)
    #expect(link.readerToHost(framed([0xD5, 0x41, 0x00])).frames.isEmpty)
    let command = link.hostToReader(framed([0xD4, 0x40, 0x01, 0x00, 0x02, 0xAA, 0xBB]))
    #expect(command.frames.map(\.data) == [[0x00, 0xD6, 0x00, 0x00, 0x02, 0xAA, 0xBB]])
    #expect(command.frames.first?.flags == [ReaderChipFlag.isoDEPPayload])
    #expect(link.readerToHost(framed([0xD5, 0x41, 0x40, 0x12, 0x34])).frames.isEmpty)
    #expect(link.hostToReader(framed([0xD4, 0x40, 0x01])).frames.isEmpty)
    let answer = link.readerToHost(framed([0xD5, 0x41, 0x00, 0x90, 0x00]))
    #expect(answer.frames.map(\.data) == [[0x12, 0x34, 0x90, 0x00]])
  }

  /// A 106 kbit/s type B target (BrTy 03): its ATQB is the activation shown, and the chip
  /// runs ISO-DEP for it, so InDataExchange data are APDUs (it was "target data for BrTy 03
  /// not unpacked", the APDUs raw frames; importer review).
  @Test func typeBTargetIsISODEP() {
    var link = PN53xHostLink()
    let atqb: [UInt8] = [0x50, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, 0x00, 0x81, 0x71]
    _ = link.hostToReader(framed([0xD4, 0x4A, 0x01, 0x03, 0x00]))
    let listing = link.readerToHost(framed([0xD5, 0x4B, 0x01, 0x01] + atqb + [0x01, 0x00]))
    #expect(listing.warnings.isEmpty)
    #expect(listing.frames.map(\.data) == [atqb])
    #expect(listing.frames.map(\.technology) == [.nfcB])
    #expect(listing.frames.first?.flags == [ReaderChipFlag.targetInfo])
    let select = link.hostToReader(
      framed([0xD4, 0x40, 0x01, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]))
    #expect(select.frames.map(\.data) == [[0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]])
    #expect(select.frames.first?.flags == [ReaderChipFlag.isoDEPPayload])
    let cut = link.hostToReader(framed([0xD4, 0x4A, 0x01, 0x03, 0x00]))
    #expect(cut.frames.isEmpty)
    #expect(
      link.readerToHost(framed([0xD5, 0x4B, 0x01, 0x01, 0x50, 0x11])).warnings == [
        "InListPassiveTarget: type B target data cut short at byte 1 (Tg, then the 12-byte "
          + "ATQB starting 50h, the ATTRIB answer's length and the answer expected)"
      ])
    _ = link.hostToReader(framed([0xD4, 0x4A, 0x01, 0x03, 0x00]))
    let notATQB = [0x05] + atqb.dropFirst() + [0x01, 0x00]
    #expect(
      link.readerToHost(framed([0xD5, 0x4B, 0x01, 0x01] + notATQB)).warnings == [
        "InListPassiveTarget: type B target at byte 1: its ATQB starts 0x05, not 50h (ISO/IEC "
          + "14443-3 §7.9); target data not unpacked"
      ])
  }

  /// Two targets listed, only target 1 with an ATS: exchanges with target 2 are not APDUs (and
  /// show target 2's activation first: Pass 29). With fAutomaticRATS off, bytes after an
  /// ISO-DEP SAK are the next target, not an ATS.
  @Test func isoDEPIsPerTargetAndFollowsAutomaticRATS() {
    var link = PN53xHostLink()
    let t1: [UInt8] = [0x01, 0x00, 0x44, 0x20, 0x04, 1, 2, 3, 4, 0x02, 0x80]
    let t2: [UInt8] = [0x02, 0x00, 0x44, 0x00, 0x04, 5, 6, 7, 8]
    _ = link.hostToReader(framed([0xD4, 0x4A, 0x02, 0x00]))
    // Target 1's ATQA, SAK, ATS; target 2's target data (a listed target, no activation).
    #expect(link.readerToHost(framed([0xD5, 0x4B, 0x02] + t1 + t2)).frames.count == 4)
    let toT2 = link.hostToReader(framed([0xD4, 0x40, 0x02, 0x30, 0x04]))
    #expect(toT2.frames.map(\.data) == [[0x44, 0x00], [0x00], [0x30, 0x04]])
    #expect(toT2.frames.last?.flags == [])
    var noRATS = PN53xHostLink()
    _ = noRATS.hostToReader(framed([0xD4, 0x12, 0x04]))
    _ = noRATS.hostToReader(framed([0xD4, 0x4A, 0x02, 0x00]))
    let listed = noRATS.readerToHost(
      framed([0xD5, 0x4B, 0x02] + Array(t1.prefix(9)) + t2)
    ).frames
    #expect(listed.map(\.data) == [[0x44, 0x00], [0x20], t2])
  }

  @Test func otherCCIDSlotsAndEscapeConfigurationAreNotShown() {
    var link = PN53xHostLink()
    var sam = ccid(0x6F, [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00])
    sam[5] = 1
    let out = link.hostToReader(sam)
    #expect(out.frames.isEmpty)
    #expect(out.warnings.first?.hasPrefix("CCID slot 1 (a SAM or contact slot") == true)
    #expect(link.hostToReader(ccid(0x6B, [0xE0, 0x00, 0x00, 0x18, 0x00])).frames.isEmpty)
  }

  /// IccPowerOn → ATR → IccPowerOff with no command: a tap, shown with its ATR, then the end.
  @Test func tapWithoutCommandsKeepsItsATR() {
    var link = PN53xHostLink()
    _ = link.hostToReader(ccid(0x62, []))
    #expect(link.readerToHost(ccid(0x80, [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])).frames.isEmpty)
    let off = link.hostToReader(ccid(0x63, []))
    #expect(off.frames.map(\.flags) == [[ReaderChipFlag.atr], ["ccid-icc-power-off"]])
    #expect(off.frames.last?.event == .fieldOff)
  }

  /// A CCID error other than ICC mute is reported, and the command before it does not take
  /// the next answer.
  @Test func ccidErrorAnswerClearsThePendingCommand() {
    var link = PN53xHostLink()
    _ = link.hostToReader(ccid(0x6F, [0xFF, 0xB0, 0x00, 0x04, 0x10]))
    var failed = ccid(0x80, [])
    failed[7] = 0x41
    failed[8] = 0xFB
    #expect(
      link.readerToHost(failed).warnings == [
        "CCID: the reader reports that the command failed (bError fb)"
      ])
    _ = link.hostToReader(ccid(0x6F, [0xFF, 0x82, 0x00, 0x00, 0x06, 1, 2, 3, 4, 5, 6]))
    #expect(link.readerToHost(ccid(0x80, [0x90, 0x00])).frames.isEmpty)
  }

  /// A CCID time extension (bStatus b7–b6 = 10b) is an interim message: the READ BINARY's
  /// real answer after it is the tag's (it was dropped, the READ shown unanswered).
  @Test func ccidTimeExtensionWaitsForTheAnswer() {
    var link = PN53xHostLink()
    let read = link.hostToReader(ccid(0x6F, [0xFF, 0xB0, 0x00, 0x04, 0x10]))
    #expect(read.frames.map(\.data) == [[0x30, 0x04]])
    var timeExtension = ccid(0x80, [])
    timeExtension[7] = 0x80
    timeExtension[8] = 0x01
    let interim = link.readerToHost(timeExtension)
    #expect(interim.frames.isEmpty)
    #expect(interim.warnings.isEmpty)
    let data = [UInt8](0..<16)
    let answer = link.readerToHost(ccid(0x80, data + [0x90, 0x00]))
    #expect(answer.frames.map(\.data) == [data])
    #expect(answer.frames.map(\.direction) == [.tag])
  }

  /// A PN53x extended frame announcing 65 520 bytes is skipped, not waited for: the commands
  /// after it still show.
  @Test func oversizedExtendedFrameDoesNotSwallowLaterCommands() {
    var link = PN53xHostLink()
    let stuck = link.hostToReader([0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0x11, 0xD4])
    #expect(stuck.warnings.contains { $0.hasPrefix("PN53x extended frame of 65520 bytes") })
    _ = link.hostToReader(framed([0xD4, 0x4A, 0x01, 0x00]))
    _ = link.readerToHost(framed([0xD5, 0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x04, 1, 2, 3, 4]))
    #expect(
      link.hostToReader(framed([0xD4, 0x40, 0x01, 0x30, 0x04])).frames.map(\.data) == [
        [0x30, 0x04]
      ])
  }
}

/// A PC/SC writer whose UPDATE BINARY of pages 6 and 7 the reader both reports failed: the
/// writeNDEF is refused, not interrupted, and its reason names the first refusal (page 6).
@Test func firstRefusalGivesTheWriteItsReason() throws {
  var link = PN53xHostLink()
  var frames: [ReaderChipFrame] = []
  func exchange(_ apdu: [UInt8], _ answer: [UInt8]) {
    frames += link.hostToReader(ccid(0x6F, apdu)).frames
    frames += link.readerToHost(ccid(0x80, answer)).frames
  }
  _ = link.hostToReader(ccid(0x62, []))
  _ = link.readerToHost(
    ccid(
      0x80, [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0, 0, 3, 6, 3, 0, 3, 0, 0, 0, 0, 0x68])
  )
  exchange([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 1, 2, 3, 4, 5, 6, 0x90, 0x00])
  exchange(
    [0xFF, 0xB0, 0x00, 0x03, 0x10],
    [0xE1, 0x10, 0x12, 0x00] + [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9) + [0x90, 0x00])
  exchange([0xFF, 0xD6, 0x00, 0x04, 0x04, 0x03, 0x00, 0xD1, 0x01], [0x90, 0x00])
  exchange([0xFF, 0xD6, 0x00, 0x05, 0x04, 0x06, 0x55, 0x04, 0x61], [0x90, 0x00])
  exchange([0xFF, 0xD6, 0x00, 0x06, 0x04, 0x2E, 0x63, 0x6F, 0x6D], [0x63, 0x00])
  exchange([0xFF, 0xD6, 0x00, 0x07, 0x04, 0xFE, 0x00, 0x00, 0x00], [0x63, 0x00])
  let input = frames.enumerated().map { i, f in
    Frame(
      index: i, timeNs: Int64(i) * 1_000_000, direction: f.direction, data: f.data, crc: f.crc,
      technology: f.technology, sourceFlags: f.flags,
      location: SourceLocation(file: "t", unit: "packet", record: i + 1, offset: 0))
  }
  let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: input)).sessions
  let write = try #require(sessions.first?.operations.last)
  #expect(write.shortText == "writeNDEF failed")
  #expect(write.reason?.contains("WRITE page 6") == true)
  #expect(write.detail("nak_page") == .int(6))
}

/// A CCID message whose dwLength announces more than ever comes (a corrupt capture) is taken
/// as it is when the other side speaks: it used to wait for the bytes, swallowing every later
/// message of its direction. One that carries bytes past its dwLength is warned.
@Test func ccidMessageWithALyingLengthDoesNotSwallowTheRest() {
  var link = PN53xHostLink()
  let listTarget: [UInt8] = [
    0x6F, 0x60, 0xEA, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
    0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x4A, 0x01, 0x00,
  ]
  #expect(link.hostToReader(listTarget).frames.isEmpty)  // waits for 60 000 bytes
  let answer: [UInt8] =
    [
      0x80, 0x11, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0xD5, 0x4B, 0x01, 0x01, 0x00,
      0x44,
    ]
    + [0x00, 0x07, 0x04, 0xA8, 0xCE, 0x6A, 0x5D, 0x2D, 0x80, 0x90, 0x00]
  let out = link.readerToHost(answer)
  #expect(
    out.warnings == [
      "CCID command announces 60000 bytes (dwLength) but only 9 came before the reader's "
        + "answer: taken as it is"
    ])
  // The target's ATQA (air order) and SAK, as from an intact capture.
  #expect(out.frames.map(\.data).prefix(2) == [[0x44, 0x00], [0x00]])

  var padded = PN53xHostLink()
  let extra = padded.hostToReader([
    0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xAA,
  ])
  #expect(extra.warnings == ["CCID message carries 1 byte(s) past its dwLength 0; ignored"])
}
