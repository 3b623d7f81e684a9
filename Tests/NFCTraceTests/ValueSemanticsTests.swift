import Testing

@testable import NFCTrace

/// The storage changes made for speed (docs/performance.md) keep the values' meaning: an
/// `Operation` copy is independent of the original (copy-on-write), and a `ByteImage` or
/// `TagMemory` records a whole range at once exactly as byte by byte.
struct ValueSemanticsTests {
  @Test func operationCopyChangedLeavesOriginal() {
    var a = Operation(kind: .writeNDEF, frame: 7)
    a.unansweredFrames.append(9)
    var b = a
    #expect(a == b)
    b.fail("NAK 0x0 on WRITE page 4", frame: 12)
    b.set("pages", .int(3))
    b.unansweredFrames.append(13)
    b.lastFrame = 14
    #expect(a.outcome == .ok)
    #expect(a.reason == nil)
    #expect(a.reasonFrame == nil)
    #expect(a.details.isEmpty)
    #expect(a.unansweredFrames == [9])
    #expect(a.lastFrame == 7)
    #expect(b.outcome == .failed)
    #expect(b.reason == "NAK 0x0 on WRITE page 4")
    #expect(b.reasonFrame == 12)
    #expect(b.failedFrames == [12])
    #expect(b.detail("pages") == .int(3))
    #expect(b.unansweredFrames == [9, 13])
    #expect(a != b)
  }

  @Test func operationsEqualByValueNotStorage() {
    var a = Operation(kind: .readNDEF, frame: 3)
    var b = Operation(kind: .readNDEF, frame: 3)
    a.classicReads.append(4)
    #expect(a != b)
    b.classicReads.append(4)
    #expect(a == b)
    b.kind = .transceive
    #expect(a != b)
  }

  @Test func byteImageRecordsRangeAtOnce() {
    var image = ByteImage()
    image.record([0x03, 0x10, 0xD1, 0x01], at: 4, state: .read, frame: 21)
    #expect(image.count == 8)
    #expect(image.values == [0, 0, 0, 0, 0x03, 0x10, 0xD1, 0x01])
    #expect(
      image.provenance == [.unknown, .unknown, .unknown, .unknown, .read, .read, .read, .read])
    #expect(image.frames == [-1, -1, -1, -1, 21, 21, 21, 21])
    // A later record over part of it replaces only those bytes.
    image.record([0xAA, 0xBB], at: 6, state: .written, frame: 30)
    #expect(image.values == [0, 0, 0, 0, 0x03, 0x10, 0xAA, 0xBB])
    #expect(image.frames == [-1, -1, -1, -1, 21, 21, 30, 30])
    // Nothing at a negative offset; no bytes still cover the offset (an UPDATE BINARY
    // without data), as unknown bytes; nothing past the limit.
    image.record([0x01], at: -1, state: .read, frame: 1)
    #expect(image.count == 8)
    image.record([], at: 20, state: .read, frame: 1)
    #expect(image.count == 20)
    #expect(image.provenance[8...19].allSatisfy { $0 == .unknown })
    var edge = ByteImage()
    edge.record([1, 2, 3], at: ByteImage.limit - 2, state: .read, frame: 5)
    #expect(edge.count == ByteImage.limit)
    #expect(edge.values.suffix(2) == [1, 2])
  }

  /// An UPDATE BINARY without data (`00 D6 00 10`, the tag gone) still covers its offset in
  /// the file's image, so `report` lists the file's unread row (review of the speed pass).
  @Test func emptyType4WriteCoversItsOffset() {
    var memory = TagMemory()
    memory.type4Write([], file: 0xE104, at: 16, acknowledged: false, frame: 5)
    #expect(memory.filesEnd[0xE104]?.count == 16)
    #expect(memory.filesEnd[0xE104]?.state(15) == .unknown)
  }

  /// The later session's known bytes over the earlier image; nothing on top leaves the earlier
  /// image as it is (the fast path of a session without an image of that kind).
  @Test func byteImageOverlaidKeepsEarlierBytesUnderUnknownOnes() {
    var earlier = ByteImage()
    earlier.record([1, 2, 3, 4], at: 0, state: .read, frame: 3)
    #expect(earlier.overlaid(with: ByteImage()) == earlier)
    var later = ByteImage()
    later.record([9], at: 1, state: .written, frame: 40)
    later.record([7, 7], at: 5, state: .read, frame: 41)
    let out = earlier.overlaid(with: later)
    #expect(out.values == [1, 9, 3, 4, 0, 7, 7])
    #expect(out.provenance == [.read, .written, .read, .read, .unknown, .read, .read])
    #expect(out.frames == [3, 40, 3, 3, -1, 41, 41])
    #expect(ByteImage().overlaid(with: later).values == [0, 9, 0, 0, 0, 7, 7])
  }

  /// The outer checks' findings come first; none leaves the result's own as they are.
  @Test func prependedFindingsComeFirst() {
    var result = LayerResult(findings: [Finding("inner", .info, "i", frames: [2])])
    result.prependFindings([])
    #expect(result.findings.map(\.code) == ["inner"])
    result.prependFindings([
      Finding("bad-crc", .error, "c"), Finding("parity-error", .warning, "p"),
    ])
    #expect(result.findings.map(\.code) == ["bad-crc", "parity-error", "inner"])
  }

  @Test func byteImageAnyWrittenSinceFrame() {
    var image = ByteImage()
    image.record([1, 2, 3, 4], at: 0, state: .read, frame: 2)
    image.record([9], at: 2, state: .written, frame: 10)
    #expect(image.anyWritten(in: 0..<4, since: 5))
    #expect(!image.anyWritten(in: 0..<4, since: 11))
    #expect(!image.anyWritten(in: 0..<2, since: 0))
    #expect(!image.anyWritten(in: 3..<40, since: 0))
  }

  @Test func type2ReadOfUntouchedAndWrittenBytes() {
    var memory = TagMemory()
    // A plain read: start and end both hold the bytes as read.
    memory.type2Read([0xE1, 0x10, 0x3E, 0x00], at: 12, frame: 4)
    #expect(memory.type2Start.values.suffix(4) == [0xE1, 0x10, 0x3E, 0x00])
    #expect(memory.type2End.provenance.suffix(4) == [.read, .read, .read, .read])
    // Page 4 written and acknowledged, then read back with its second byte different: the
    // byte-by-byte path keeps the write where it matches and notes the conflict.
    memory.type2Write([0x03, 0x00, 0xD1, 0x01], at: 16, acknowledged: true, frame: 8)
    memory.type2Read([0x03, 0x05, 0xD1, 0x01, 0x55, 0x66, 0x77, 0x88], at: 16, frame: 10)
    #expect(
      memory.type2End.provenance[16...23] == [
        .written, .read, .written, .written, .read, .read, .read, .read,
      ])
    #expect(memory.type2Start.state(17) == .unknown)
    #expect(memory.type2Start.values[20...23] == [0x55, 0x66, 0x77, 0x88])
    #expect(memory.readBackConflicts.count == 1)
    #expect(memory.readBackConflicts.first?.address == 17)
    #expect(memory.readBackConflicts.first?.written == 0x00)
    #expect(memory.readBackConflicts.first?.read == 0x05)
  }
}
