/// Compares two sessions' tag memory unit by unit: Type 2 pages (4 bytes, NFC Forum T2T 1.0
/// §2.1), Type 4 files in 16-byte rows by offset, Type 3 blocks (16 bytes, T3T 1.0 §7.1),
/// Type 5 blocks (ISO/IEC 15693: the tag's block size, 4 bytes when no command told it).
///
/// Bytes are compared by value and by certainty, not by the frame that set them (frames differ
/// between traces by nature): `read` and `written` are both certain; `written-unacknowledged`
/// may or may not be on the tag; `unknown` was never seen. A unit differs when one of its bytes
/// differs in certainty, or is certain on both sides with different values.
public enum MemoryComparison {
  /// Bytes per Type 4 row.
  public static let type4Row = 16

  /// End-image differences, then start-image ones (when the start images differ at all).
  public static func differences(_ a: SessionAnalysis, _ b: SessionAnalysis) -> [MemoryDifference] {
    var out = compare(a.memory.type2End, b.memory.type2End, image: .end, file: nil, unit: 4)
    var files = Array(Set(a.memory.filesEnd.keys).union(b.memory.filesEnd.keys))
    files.sort()
    for id in files {
      out += compare(
        a.memory.filesEnd[id] ?? ByteImage(), b.memory.filesEnd[id] ?? ByteImage(), image: .end,
        file: id, unit: type4Row)
    }
    out += blocks(a.memory.type3End, b.memory.type3End, image: .end)
    let size5 = a.memory.type5BlockSize ?? b.memory.type5BlockSize ?? 4
    out += blocks(a.memory.type5End, b.memory.type5End, image: .end, unit: size5)
    out += compare(a.memory.type2Start, b.memory.type2Start, image: .start, file: nil, unit: 4)
    files = Array(Set(a.memory.filesStart.keys).union(b.memory.filesStart.keys))
    files.sort()
    for id in files {
      out += compare(
        a.memory.filesStart[id] ?? ByteImage(), b.memory.filesStart[id] ?? ByteImage(),
        image: .start, file: id, unit: type4Row)
    }
    out += blocks(a.memory.type3Start, b.memory.type3Start, image: .start)
    out += blocks(a.memory.type5Start, b.memory.type5Start, image: .start, unit: size5)
    return out.map { markEarlier($0, a.info.firstFrame, b.info.firstFrame) }
  }

  /// `d` with the sides whose frame is before their session's first frame `firstA` /
  /// `firstB` marked as carried from an earlier session (as `report` marks its rows).
  private static func markEarlier(_ d: MemoryDifference, _ firstA: Int, _ firstB: Int)
    -> MemoryDifference
  {
    var out = d
    out.aEarlierSession = d.aFrame.map { $0 < firstA } ?? false
    out.bEarlierSession = d.bFrame.map { $0 < firstB } ?? false
    return out
  }

  /// The Type 3 (16-byte) or Type 5 blocks where `a` and `b` differ (unit = block number).
  private static func blocks(_ a: ByteImage, _ b: ByteImage, image: MemoryImage, unit: Int = 16)
    -> [MemoryDifference]
  {
    compare(a, b, image: image, file: nil, unit: unit).map {
      var d = $0
      d.isBlock = true
      return d
    }
  }

  /// The units of `unit` bytes where `a` and `b` differ.
  public static func compare(
    _ a: ByteImage, _ b: ByteImage, image: MemoryImage, file: UInt16?, unit: Int
  ) -> [MemoryDifference] {
    let count = max(a.count, b.count)
    var out: [MemoryDifference] = []
    var offset = 0
    while offset < count {
      // A Type 2 page is 4 bytes even where the image ends inside it (a lock page's RFUI
      // byte no write sets); a Type 4 row ends with the file.
      let range = offset..<(file == nil ? offset + unit : min(offset + unit, count))
      if range.contains(where: { differs(a, b, $0) }) {
        out.append(
          MemoryDifference(
            image: image, file: file, unit: file == nil ? offset / unit : offset, offset: offset,
            a: bytes(a, range), b: bytes(b, range),
            aBytes: range.map { a.known($0, 1)?.first },
            bBytes: range.map { b.known($0, 1)?.first },
            aState: state(a, range), bState: state(b, range), aFrame: frame(a, range),
            bFrame: frame(b, range)))
      }
      offset += unit
    }
    return out
  }

  private enum Certainty { case certain, unacknowledged, unknown }

  private static func certainty(_ p: ByteProvenance) -> Certainty {
    switch p {
    case .read, .written: return .certain
    case .unacknowledged, .writtenUnknown: return .unacknowledged
    case .unknown: return .unknown
    }
  }

  private static func differs(_ a: ByteImage, _ b: ByteImage, _ i: Int) -> Bool {
    let ca = certainty(a.state(i))
    let cb = certainty(b.state(i))
    if ca != cb { return true }
    return ca != .unknown && a.values[i] != b.values[i]
  }

  private static func bytes(_ image: ByteImage, _ r: Range<Int>) -> [UInt8]? {
    image.known(r.lowerBound, r.count)
  }

  /// The provenance shared by every byte of the unit, or `mixed`.
  private static func state(_ image: ByteImage, _ r: Range<Int>) -> String {
    let first = image.state(r.lowerBound)
    return r.allSatisfy { image.state($0) == first } ? first.rawValue : "mixed"
  }

  /// The latest frame that set a byte of the unit.
  private static func frame(_ image: ByteImage, _ r: Range<Int>) -> Int? {
    r.compactMap { image.frame($0) }.max()
  }
}
