import NDEF
import TestSupport
import Testing

@testable import NFCTrace

// A message of 256 bytes or more needs the 3-byte TLV length `FF hh ll` (NFC Forum T2T 1.0
// §2.3). After a 5-byte Lock Control TLV the NDEF TLV's length starts at page 5 byte 2 and
// ends on page 6: the stack's final length write touches two pages, the first a step back.

/// 299 bytes: one URI record with a 4-byte payload length (SR clear) of 292.
private let longMessage: [UInt8] =
  [0xC1, 0x01, 0x00, 0x00, 0x01, 0x24, 0x55, 0x04] + Array(repeating: 0x61, count: 291)

/// An NTAG216 (CC size 0x6D) holding a Lock Control TLV and a short message, read, then
/// written with `longMessage` length-last (`FF 00 00` first), `calls` times.
private func trace(calls: Int, lengthFirst: Bool = false) -> TraceBuilder {
  var b = TraceBuilder()
  b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03])
  b.read(
    3,
    [
      0xE1, 0x10, 0x6D, 0x00, 0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE,
      0x00,
    ])
  // TLV bytes from byte 21 (page 5 byte 1): 03 FF 01 2B, the message, FE.
  let tlv: [UInt8] = [0x03, 0xFF, 0x01, 0x2B] + longMessage + [0xFE]
  let pages = stride(from: 0, to: tlv.count + 1, by: 4).map { i -> [UInt8] in
    // Page 5 starts with the Lock Control TLV's last byte (66), then the TLV from byte 21.
    let bytes = [0x66] + tlv
    return Array((Array(bytes[min(i, bytes.count)...]) + [0, 0, 0, 0]).prefix(4))
  }
  for _ in 0..<calls {
    if lengthFirst {
      for (n, page) in pages.enumerated() { b.write(5 + n, page) }
      continue
    }
    b.write(5, [0x66, 0x03, 0xFF, 0x00])
    b.write(6, [0x00] + Array(pages[1].dropFirst()))
    for (n, page) in pages.enumerated().dropFirst(2) { b.write(5 + n, page) }
    b.write(5, pages[0])
    b.write(6, pages[1])
  }
  return b
}

@Suite struct Type2LongLengthTests {
  @Test func lengthPartOfASplitThreeByteField() {
    #expect(Type2TLV.lengthPart(in: [0x66, 0x03, 0xFF, 0x01], at: 2) == 1)
    #expect(Type2TLV.lengthPart(in: [0x66, 0x03, 0xFF, 0x00], at: 2) == 0)
    #expect(Type2TLV.lengthPart(in: [0x03, 0xFF, 0x01, 0x2B], at: 1) == 0x012B)
    #expect(Type2TLV.lengthPart(in: [0x03, 0x0B, 0xD1, 0x01], at: 1) == 0x0B)
    #expect(Type2TLV.lengthPart(in: [0x03, 0x0B, 0xD1, 0x01], at: 4) == nil)
    // FF as the page's last byte: no value byte here (it read as 0, the cleared form).
    #expect(Type2TLV.lengthPart(in: [0x01, 0x03, 0x03, 0xFF], at: 3) == nil)
  }

  @Test func finalLengthOverTwoPagesEndsTheSameCall() throws {
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: trace(calls: 2).frames)).sessions
        .first)
    let writes = s.operations.filter { $0.kind == .writeNDEF }
    #expect(writes.count == 2)
    #expect(writes.allSatisfy { $0.outcome == .ok })
    // 77 pages (byte 20 to 327), each call 79 WRITEs (pages 5 and 6 twice) of 2 frames.
    #expect(writes.map { $0.lastFrame - $0.firstFrame + 1 } == [158, 158])
    let end = Type2TLVArea(parsing: s.memory.type2End.knownRun(from: 16)).ndefMessage
    #expect(end == longMessage)
  }

  @Test func lengthWrittenFirstOverTwoPagesIsWarned() throws {
    let report = try trace(calls: 1, lengthFirst: true).diagnose()
    #expect(report.codes.contains("unsafe-write-order"))
  }
}

/// An app that writes a 255-byte message with the 1-byte length `FF` (field engineer pass 2,
/// t2-09): said as such, with a bad-content verdict, not as a 53505-byte message.
@Suite struct OneByteFFLengthTests {
  @Test func oneByteFFLengthIsBadContent() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, page3(cc: [0xE1, 0x10, 0x3E, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    b.write(4, [0x03, 0xFF, 0xD1, 0x01])
    b.write(5, [0xFB, 0x54, 0x02, 0x65])
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-length-ff-one-byte"))
    #expect(f.severity == .error)
    #expect(r.finding("message-too-large") == nil)
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.succeededWithBadContent])
  }
}
