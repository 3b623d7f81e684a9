import NFCTrace
import Testing

/// CCID message `kind` around `body` (CCID 1.1 §6.1/§6.2: dwLength little-endian).
private func ccid(_ kind: UInt8, _ body: [UInt8]) -> [UInt8] {
  [kind, UInt8(body.count), 0, 0, 0, 0, 0, 0, 0, 0] + body
}

/// PC/SC traffic of a CCID contactless reader, unwrapped by `PN53xHostLink`.
@Suite struct PN53xHostLinkTests {
  @Test func updateBinaryRefusedByTheReaderGivesNoTagFrame() {
    var link = PN53xHostLink()
    let write = link.hostToReader(ccid(0x6F, [0xFF, 0xD6, 0x00, 0x07, 0x04, 0xFE, 0, 0, 0]))
    #expect(write.frames.map(\.data) == [[0xA2, 0x07, 0xFE, 0, 0, 0]])
    let answer = link.readerToHost(ccid(0x80, [0x63, 0x00]))
    #expect(answer.frames.isEmpty)
    #expect(answer.warnings == ["UPDATE BINARY failed: reader status word 63 00"])
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
