/// One row of a memory map: a Type 2 page (4 bytes), 16 bytes of a Type 4 file or a Type 3
/// block (16 bytes), with the row's provenance mark and the frame its latest byte came from.
public struct MemoryRow: Sendable, Equatable {
  /// The Type 4 file id; nil for Type 2 pages and Type 3 blocks.
  public var file: UInt16?
  /// True for a block (Type 3 NDEF service, Type 5).
  public var isBlock = false
  /// The page number (Type 2), the byte offset in the file (Type 4) or the block number
  /// (Type 3).
  public var address: Int
  /// The row's bytes (0 where unknown).
  public var bytes: [UInt8]
  /// Per byte: true when known.
  public var known: [Bool]
  /// The row's mark: `unknown` when no byte is known, else the strongest provenance of its
  /// bytes (written-unknown > written-unacknowledged > written > read): one unacknowledged
  /// byte makes the row doubtful, one written with a value not known makes it unknown-written.
  public var state: ByteProvenance
  /// The latest frame any of the row's bytes came from (nil for dumps and unknown rows).
  public var frame: Int?
  /// True when that frame is before the session's first: the row was carried from an earlier
  /// session on the same UID (its `state` is what that session did).
  public var earlierSession = false
  /// Per byte: true when the byte is a secret (PWD, PACK) masked in the output (its value in
  /// `bytes` is 0); empty when nothing is masked (`TagReport.rows(atStart:showSecrets:)`).
  public var masked: [Bool] = []

  /// Whether byte `i` of the row is masked.
  public func isMasked(_ i: Int) -> Bool { masked.indices.contains(i) && masked[i] }

  /// Type 2 rows, one per 4-byte page, from page 0 to the last page the image covers. Pages in
  /// `written` (acknowledged writes of the session) are marked `written` even when a later
  /// read-back is the byte's last source, so a map after writeNDEF shows what was written.
  public static func type2(_ image: ByteImage, written: Set<Int> = []) -> [MemoryRow] {
    rows(image, width: 4, file: nil).map { row in
      var row = row
      if row.state == .read && written.contains(row.address) { row.state = .written }
      return row
    }
  }

  /// Type 3 rows, one per 16-byte block of the NDEF service, from block 0.
  public static func type3(_ image: ByteImage) -> [MemoryRow] {
    rows(image, width: 16, file: nil, block: true)
  }

  /// Type 5 rows, one per block of `blockSize` bytes (ISO/IEC 15693: 4 on most tags), from
  /// block 0.
  public static func type5(_ image: ByteImage, blockSize: Int) -> [MemoryRow] {
    rows(image, width: max(1, min(blockSize, 32)), file: nil, block: true)
  }

  /// Type 4 rows, 16 bytes each, for every file (ascending file id).
  public static func type4(_ files: [UInt16: ByteImage]) -> [MemoryRow] {
    files.keys.sorted().flatMap { id in files[id].map { rows($0, width: 16, file: id) } ?? [] }
  }

  private static func rows(_ image: ByteImage, width: Int, file: UInt16?, block: Bool = false)
    -> [MemoryRow]
  {
    stride(from: 0, to: image.count, by: width).map { start in
      // A Type 2 page is always 4 bytes: a page the image covers in part (a dynamic lock page
      // whose RFUI byte no write sets) ends in unknown bytes, not early. A Type 4 file ends
      // where its image does.
      let end = file == nil ? start + width : min(start + width, image.count)
      var row = MemoryRow(
        file: file, address: file == nil ? start / width : start, bytes: [], known: [],
        state: .unknown, frame: nil)
      row.isBlock = block
      for i in start..<end {
        let state = i < image.count ? image.state(i) : .unknown
        row.bytes.append(state.hasValue ? image.values[i] : 0)
        row.known.append(state.hasValue)
        if rank(state) > rank(row.state) { row.state = state }
        if let f = image.frame(i) { row.frame = max(row.frame ?? f, f) }
      }
      return row
    }
  }

  private static func rank(_ s: ByteProvenance) -> Int {
    switch s {
    case .unknown: return 0
    case .read: return 1
    case .written: return 2
    case .unacknowledged: return 3
    case .writtenUnknown: return 4
    }
  }

  /// True when both rows hold the same known bytes.
  public func sameContents(as other: MemoryRow) -> Bool {
    known == other.known
      && zip(bytes, known).map { $1 ? $0 : 0 } == zip(other.bytes, other.known).map { $1 ? $0 : 0 }
  }
}
