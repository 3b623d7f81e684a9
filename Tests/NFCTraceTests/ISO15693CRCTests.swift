import Testing

@testable import NFCTrace

/// ISO/IEC 15693-3 CRCs of NFC-V frames.
@Suite struct ISO15693CRCTests {
  /// ISO/IEC 15693-3 CRC (CRC-16/ISO-IEC-13239: preset FFFFh, reflected 8408h, complemented,
  /// low byte first) on NFC-V frames of a source that says the technology (NFC-Laboratory).
  @Test func nfcVFramesGetACRCVerdict() {
    #expect(CRC.crcB(Array("123456789".utf8)) == 0x906E)
    let reply = CRC.appendingCRCB(Hex.bytes("000003dda3b1140104e0") ?? [])
    #expect(reply.suffix(2) == [0xB5, 0x81])
    var damaged = reply
    damaged[damaged.count - 1] ^= 0xFF
    let frames = [
      TestFrame.make(0, .reader, CRC.appendingCRCB([0x26, 0x01, 0x00])),
      TestFrame.make(1, .tag, damaged),
      TestFrame.make(2, .tag, reply),
      TestFrame.make(3, .tag, []),
    ].map { f -> Frame in
      var f = f
      f.technology = .nfcV
      return f
    }
    let (out, _) = decodeAll(frames)
    #expect(out.map(\.frame.crc) == [.ok, .bad, .ok, .absent])
    #expect(out[1].findings.map(\.code) == ["bad-crc"])
    #expect(out[1].findings.first?.message == "ISO 15693 CRC mismatch: expected b5 81, got b5 7e")
    #expect(out[1].findings.first?.offset == 10)
    #expect(out[0].findings.isEmpty && out[2].findings.isEmpty)
    // A damaged response is named by its request, its flags and data not taken.
    #expect(out[1].undecodedReason == nil)
    #expect(
      out[1].innermost?.summary
        == "INVENTORY response damaged (CRC mismatch): flags and data not trusted")
  }
}
