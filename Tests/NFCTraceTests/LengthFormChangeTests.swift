import Testing

@testable import NFCTrace

/// A writeNDEF that turns a 1-byte NDEF TLV length into a 3-byte one split over two pages
/// (`00 00 03 00` first, the data from the next page with the length's low bytes, `00 00 03
/// FF` last: NFC Forum T2T 1.0 §2.3, the length-last order of nfc-facts §5.5) is one call:
/// the final WRITE of the `FF` page finishes it (it was split into an "interrupted" write and
/// a second call).
@Suite struct LengthFormChangeTests {
  /// NTAG215 holding `00 00 03 15 …`; the writer clears the 1-byte length, writes a 279-byte
  /// message from page 5 (`01 17` its length's low bytes), then sets `FF` on page 4.
  private func trace(lowBytesLast: Bool) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(0, [4, 0x11, 0x22, 0xA7, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0, 0xE1, 0x10, 0x3E, 0])
    b.read(4, [0x00, 0x00, 0x03, 0x15, 0xD1, 0x01, 0x11, 0x55, 0x04])
    b.write(4, [0x00, 0x00, 0x03, 0x00])
    let message: [UInt8] =
      [0xC1, 0x01, 0x00, 0x00, 0x01, 0x10, 0x54, 0x02] + Array(repeating: 0x79, count: 271)
    let bytes: [UInt8] = [0x01, 0x17] + message + [0xFE]
    let pages = stride(from: 0, to: bytes.count, by: 4).map {
      Array((bytes[$0..<min($0 + 4, bytes.count)] + [0, 0, 0]).prefix(4))
    }
    for (i, page) in pages.enumerated() where !(lowBytesLast && i == 0) { b.write(5 + i, page) }
    b.write(4, [0x00, 0x00, 0x03, 0xFF])
    if lowBytesLast { b.write(5, pages[0]) }
    return b
  }

  @Test(arguments: [false, true])
  func oneWriteNDEF(lowBytesLast: Bool) throws {
    let ops = try #require(try sessions(trace(lowBytesLast: lowBytesLast)).first).operations
    #expect(
      ops.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "queryNDEFStatus ok", "writeNDEF ok",
      ])
  }

  /// The TLV moves: the tag held `03 15 …` (TLV at byte 16); the writer puts two NULL TLVs
  /// before it with a cleared 3-byte length (`00 00 03 FF`, `00 00 …` on page 5), writes the
  /// data, then the `FF` page again and the low bytes `01 17` last. The length is located in
  /// the layout the call's first WRITE leaves, not the one the tag held.
  @Test func tlvMovedByTheFirstWrite() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(0, [4, 0x11, 0x22, 0xA7, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0, 0xE1, 0x10, 0x3E, 0])
    b.read(4, [0x03, 0x15, 0xD1, 0x01, 0x11, 0x55, 0x04])
    b.write(4, [0x00, 0x00, 0x03, 0xFF])
    b.write(5, [0x00, 0x00, 0xC1, 0x01])
    for page in 6..<76 { b.write(page, [0x79, 0x79, 0x79, 0x79]) }
    b.write(4, [0x00, 0x00, 0x03, 0xFF])
    b.write(5, [0x01, 0x17, 0xC1, 0x01])
    let ops = try #require(try sessions(b).first).operations
    #expect(
      ops.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" } == [
        "connect ok", "queryNDEFStatus ok", "writeNDEF ok",
      ])
  }
}

/// Android writes the Terminator TLV after the final length (nfc-facts §5.5): when only that
/// last write gets no answer, the new message is whole on the tag and the diagnosis says so
/// (it said only that the write was interrupted, "write the whole message again").
@Test func interruptedTerminatorLeavesTheMessageWhole() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x05, 0xD1, 0x01, 0x01, 0x55, 0x00, 0xFE])
  b.write(4, [0x03, 0x00, 0xD1, 0x01])
  b.write(5, [0x05, 0x55, 0x04, 0x61])
  b.write(6, [0x2E, 0x63, 0x6F, 0x00])
  b.write(4, [0x03, 0x09, 0xD1, 0x01])
  b.write(6, [0x2E, 0x63, 0x6F, 0xFE], .none)
  let report = try b.diagnose()
  let f = try #require(report.finding("write-interrupted"))
  #expect(
    f.message.contains(
      "The new message is nevertheless whole on the tag: its NDEF TLV length 0x9 (9) (frame #20)"))
  #expect(f.coreNFCError == .tagConnectionLost)
}
