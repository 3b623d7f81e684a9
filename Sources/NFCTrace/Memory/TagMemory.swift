import NDEF

/// The tag's memory as one session saw it: what the tag held when the session started (from
/// reads, on top of what earlier sessions on the same UID left) and what it holds at the end
/// (given the acknowledged writes).
///
/// Type 2: one image of bytes from page 0 (page n at byte 4n). Type 4: one image per file id
/// (the CC file E103 and the NDEF file), by offset. Type 3: one image of the NDEF service's
/// blocks from block 0 (block n at byte 16n: the Attribute Information Block, then the data).
/// Type 5: one image of the blocks from block 0 (block n at byte n × block size: the CC, then
/// the TLV area).
public struct TagMemory: Sendable, Equatable {
  /// Type 2 memory as found (start) and as left (end).
  public var type2Start = ByteImage()
  /// Type 2 memory at the end of the session.
  public var type2End = ByteImage()
  /// Type 4 files as found, by file id.
  public var filesStart: [UInt16: ByteImage] = [:]
  /// Type 4 files at the end of the session, by file id.
  public var filesEnd: [UInt16: ByteImage] = [:]
  /// Type 3 NDEF service blocks as found (block n at byte 16n).
  public var type3Start = ByteImage()
  /// Type 3 NDEF service blocks at the end of the session.
  public var type3End = ByteImage()
  /// Type 5 (ISO/IEC 15693) blocks as found (block n at byte n × block size).
  public var type5Start = ByteImage()
  /// Type 5 blocks at the end of the session.
  public var type5End = ByteImage()
  /// Bytes per Type 5 block, once a READ, WRITE or GET SYSTEM INFORMATION told it.
  public var type5BlockSize: Int?
  /// The Type 5 tag's memory in bytes (GET SYSTEM INFORMATION's blocks × block size).
  public var type5MemorySize: Int?
  /// Type 5 blocks known to be locked (a GET MULTIPLE BLOCK SECURITY STATUS answer's bit 0,
  /// or an acknowledged LOCK BLOCK), each with the frame that showed it.
  public var type5LockedBlocks: [Int: Int] = [:]
  /// Per Type 4 file, the lowest byte offset past `ByteImage.limit` a read or write of the
  /// session reached, and its frame: what the images do not keep, for the report to say so.
  public private(set) var filesBeyondLimit: [UInt16: BeyondLimit] = [:]
  /// First frame of the session: writes from frames before it are earlier sessions'.
  public var sessionFirstFrame = 0
  /// Writes this session made, the tag acknowledged, and a later read of the session returned
  /// with other bytes: the tag did not keep them. One entry per write (its first differing
  /// byte), Type 2 from page 4 on (pages 0–3 ignore or OR writes), at most `conflictLimit`.
  public var readBackConflicts: [ReadBackConflict] = []
  /// Type 2 byte addresses this session wrote (acknowledged) and then read back with the value
  /// written, each with the first such read's answer frame: the byte keeps its `written` mark,
  /// but its value is now read, not inferred — which matters for the one-time-programmable lock
  /// bytes, whose written value is OR'ed into one never read (`Type2Procedure.stored`).
  public private(set) var type2ReadBack: [Int: Int] = [:]
  /// The acknowledgement frames of the writes in `readBackConflicts`.
  private var conflictingWrites: Set<Int32> = []
  /// The most conflicts kept (a lying tag could differ on every write).
  public static let conflictLimit = 1024

  /// Empty memory.
  public init() {}

  /// Memory carried forward from an earlier session on the same UID.
  public init(carrying previous: TagMemory, firstFrame: Int) {
    type2Start = previous.type2End
    type2End = previous.type2End
    filesStart = previous.filesEnd
    filesEnd = previous.filesEnd
    type3Start = previous.type3End
    type3End = previous.type3End
    type5Start = previous.type5End
    type5End = previous.type5End
    type5BlockSize = previous.type5BlockSize
    type5MemorySize = previous.type5MemorySize
    type5LockedBlocks = previous.type5LockedBlocks
    sessionFirstFrame = firstFrame
  }

  /// True when the session touched nothing.
  public var isEmpty: Bool {
    type2End.count == 0 && filesEnd.isEmpty && type3End.count == 0 && type5End.count == 0
  }

  // MARK: Type 2

  /// The Type 2 data area at the end, as far as it is known from byte 16 (page 4) on, parsed
  /// as TLVs for its layout (NFC Forum T2T 1.0 §2.3; no findings: `report` parses its own);
  /// nil when none of it is known. Parsed on each call.
  var type2Area: Type2TLVArea? {
    let run = type2End.knownRun(from: 16)
    return run.isEmpty ? nil : Type2TLVArea(layoutOf: run, baseAddress: 16)
  }

  /// The Type 2 CC (page 3) at the end, when known and carrying the NDEF magic number E1h
  /// (NFC Forum T2T 1.0 §6.1): only then is the data area it declares trusted.
  var type2NDEFCC: Type2CapabilityContainer? {
    guard let cc = type2End.known(12, 4).flatMap(Type2CapabilityContainer.init), cc.hasMagic
    else { return nil }
    return cc
  }

  /// The first page past the data area `type2NDEFCC` declares (the area starts at page 4 and
  /// its size is a multiple of 8 bytes); nil without such a CC.
  var type2DataAreaEndPage: Int? { type2NDEFCC.map { 4 + $0.dataAreaSize / 4 } }

  /// Records a READ/FAST_READ answer: `data` from byte address `address`. Bytes in
  /// `writeOnly` (the PWD and PACK pages of NTAG21x / Ultralight EV1, which a READ answers with
  /// zeros: NXP NTAG213/215/216 datasheet §8.5.7, nfc-facts §4.3) say nothing of the value: a
  /// known one (written, or from an earlier read or dump) is kept, only an unknown one takes
  /// the zeros.
  mutating func type2Read(
    _ data: [UInt8], at address: Int, frame: Int, writeOnly: Range<Int> = 0..<0
  ) {
    let confirmed = Self.read(
      data, at: address, frame: frame, file: nil, start: &type2Start, end: &type2End,
      sessionFirstFrame: sessionFirstFrame, conflicts: &readBackConflicts,
      seen: &conflictingWrites, writeOnly: writeOnly)
    for a in confirmed where type2ReadBack[a] == nil { type2ReadBack[a] = frame }
  }

  /// Records a WRITE of `data` at byte address `address`.
  mutating func type2Write(_ data: [UInt8], at address: Int, acknowledged: Bool, frame: Int) {
    type2End.record(
      data, at: address, state: acknowledged ? .written : .unacknowledged, frame: frame)
  }

  // MARK: Type 4

  /// Records a READ BINARY answer of file `file` at `offset`.
  mutating func type4Read(_ data: [UInt8], file: UInt16, at offset: Int, frame: Int) {
    noteBeyondLimit(file, offset, offset + data.count, frame: frame)
    // In place in the dictionaries: a copy out and back would copy the image every APDU.
    Self.read(
      data, at: offset, frame: frame, file: file, start: &filesStart[file, default: ByteImage()],
      end: &filesEnd[file, default: ByteImage()], sessionFirstFrame: sessionFirstFrame,
      conflicts: &readBackConflicts, seen: &conflictingWrites, writeOnly: 0..<0)
  }

  /// Records an UPDATE BINARY of file `file` at `offset`.
  mutating func type4Write(
    _ data: [UInt8], file: UInt16, at offset: Int, acknowledged: Bool, frame: Int
  ) {
    noteBeyondLimit(file, offset, offset + data.count, frame: frame)
    filesEnd[file, default: ByteImage()].record(
      data, at: offset, state: acknowledged ? .written : .unacknowledged, frame: frame)
  }

  /// Notes that bytes `offset..<end` of file `file` reach past `ByteImage.limit`.
  private mutating func noteBeyondLimit(_ file: UInt16, _ offset: Int, _ end: Int, frame: Int) {
    guard end > ByteImage.limit else { return }
    let first = max(offset, ByteImage.limit)
    // The lowest offset reached: the memory table stops before it.
    if let known = filesBeyondLimit[file], known.offset <= first { return }
    filesBeyondLimit[file] = BeyondLimit(offset: first, frame: frame)
  }

  /// Records a write the tag acknowledged to bytes `range` of file `file` whose data the
  /// command carried MACed or encrypted (DESFire / NTAG 424 DNA WriteData in MAC or Full
  /// mode): the bytes are `written-unknown`.
  mutating func type4WriteUnknown(file: UInt16, range: Range<Int>, frame: Int) {
    noteBeyondLimit(file, range.lowerBound, range.upperBound, frame: frame)
    filesEnd[file, default: ByteImage()].recordWrittenUnknown(range, frame: frame)
  }

  // MARK: Type 3

  /// Records a CHECK answer: `data` from byte address `address` (block × 16) of the NDEF
  /// service.
  mutating func type3Read(_ data: [UInt8], at address: Int, frame: Int) {
    Self.read(
      data, at: address, frame: frame, file: nil, start: &type3Start, end: &type3End,
      sessionFirstFrame: sessionFirstFrame, conflicts: &readBackConflicts,
      seen: &conflictingWrites, writeOnly: 0..<0)
  }

  /// Records an UPDATE of `data` at byte address `address` (block × 16).
  mutating func type3Write(_ data: [UInt8], at address: Int, acknowledged: Bool, frame: Int) {
    type3End.record(
      data, at: address, state: acknowledged ? .written : .unacknowledged, frame: frame)
  }

  /// The Attribute Information Block (block 0) at the end, when known.
  var type3AttributeBlock: Type3AttributeBlock? {
    type3End.known(0, 16).flatMap { Type3AttributeBlock(parsing: $0) }
  }

  // MARK: Type 5

  /// Records a READ answer: `data` from byte address `address` (block × block size).
  mutating func type5Read(_ data: [UInt8], at address: Int, frame: Int) {
    Self.read(
      data, at: address, frame: frame, file: nil, start: &type5Start, end: &type5End,
      sessionFirstFrame: sessionFirstFrame, conflicts: &readBackConflicts,
      seen: &conflictingWrites, writeOnly: 0..<0)
  }

  /// Records a WRITE of `data` at byte address `address` (block × block size).
  mutating func type5Write(_ data: [UInt8], at address: Int, acknowledged: Bool, frame: Int) {
    type5End.record(
      data, at: address, state: acknowledged ? .written : .unacknowledged, frame: frame)
  }

  /// The Type 5 CC (block 0) at the end, when known.
  var type5CC: Type5CapabilityContainer? {
    // Block 0's 4 bytes, or 8 for the 8-byte CC (byte 2 00h): not the whole known run, which
    // every Type 5 command would copy.
    guard let head = type5End.known(0, 4) else { return nil }
    return Type5CapabilityContainer((head[2] == 0 ? type5End.known(0, 8) ?? head : head)[...])
  }

  /// A read updates the end image, and the start image for bytes this session has not written.
  /// A byte the session wrote and the tag acknowledged keeps its `written` mark when the read
  /// returns the written value (the read-back confirms it); another value is a conflict.
  /// Returns the addresses of such confirmed bytes.
  @discardableResult
  private static func read(
    _ data: [UInt8], at address: Int, frame: Int, file: UInt16?, start: inout ByteImage,
    end: inout ByteImage, sessionFirstFrame: Int, conflicts: inout [ReadBackConflict],
    seen: inout Set<Int32>, writeOnly: Range<Int>
  ) -> [Int] {
    end.cover(upTo: address + data.count)
    let range = address..<(address + data.count)
    // Most reads touch nothing this session wrote: every byte is then a plain read, recorded
    // at once instead of byte by byte.
    if address >= 0, !writeOnly.overlaps(range),
      !end.anyWritten(in: range, since: sessionFirstFrame)
    {
      start.record(data, at: address, state: .read, frame: frame)
      end.record(data, at: address, state: .read, frame: frame)
      return []
    }
    var confirmedAddresses: [Int] = []
    for (i, b) in data.enumerated() {
      let a = address + i
      let state = end.state(a)
      if state != .unknown, writeOnly.contains(a) { continue }
      guard end.written(a, since: sessionFirstFrame) else {
        start.record(byte: b, at: a, state: .read, frame: frame)
        end.record(byte: b, at: a, state: .read, frame: frame)
        continue
      }
      let confirmed = state == .written && end.values[a] == b
      if state == .written, !confirmed, file != nil || a >= 16, conflicts.count < conflictLimit,
        seen.insert(end.frames[a]).inserted
      {
        conflicts.append(
          ReadBackConflict(
            file: file, address: a, written: end.values[a], read: b,
            writeFrame: end.frame(a) ?? -1, readFrame: frame))
      }
      if confirmed { confirmedAddresses.append(a) }
      end.record(byte: b, at: a, state: confirmed ? .written : .read, frame: frame)
    }
    return confirmedAddresses
  }
}

/// A byte written and acknowledged, then read back with another value in the same session.
public struct ReadBackConflict: Sendable, Equatable {
  /// The Type 4 file id; nil for Type 2 memory.
  public var file: UInt16?
  /// Byte address (Type 2, from page 0) or file offset (Type 4).
  public var address: Int
  /// The value the acknowledged write put there.
  public var written: UInt8
  /// The value the later read returned.
  public var read: UInt8
  /// The write's frame.
  public var writeFrame: Int
  /// The read answer's frame.
  public var readFrame: Int
}

extension TagMemory {
  /// This session's memory on top of what an earlier session on the same UID left: bytes this
  /// session did not touch keep the earlier value and provenance.
  public func carried(from previous: TagMemory) -> TagMemory {
    var out = self
    out.type2Start = previous.type2End.overlaid(with: type2Start)
    out.type2End = previous.type2End.overlaid(with: type2End)
    out.type3Start = previous.type3End.overlaid(with: type3Start)
    out.type3End = previous.type3End.overlaid(with: type3End)
    out.type5Start = previous.type5End.overlaid(with: type5Start)
    out.type5End = previous.type5End.overlaid(with: type5End)
    if out.type5BlockSize == nil { out.type5BlockSize = previous.type5BlockSize }
    if out.type5MemorySize == nil { out.type5MemorySize = previous.type5MemorySize }
    out.type5LockedBlocks.merge(previous.type5LockedBlocks) { mine, _ in mine }
    for (id, file) in previous.filesEnd {
      out.filesStart[id] = file.overlaid(with: filesStart[id] ?? ByteImage())
      out.filesEnd[id] = file.overlaid(with: filesEnd[id] ?? ByteImage())
    }
    return out
  }
}

/// A byte offset past `ByteImage.limit` a read or write reached, and its frame.
public struct BeyondLimit: Sendable, Equatable {
  /// The byte offset.
  public var offset: Int
  /// The frame.
  public var frame: Int
}
