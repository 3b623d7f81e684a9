import NDEF

/// The NFC Forum Type 5 Tag NDEF procedures (T5T 1.0) seen through a session's ISO/IEC
/// 15693 block commands (READ/WRITE SINGLE or MULTIPLE BLOCK(S), their EXTENDED forms, LOCK
/// BLOCK):
///
/// - NDEF detection (`queryNDEFStatus`): the READ of block 0 (the CC), then READs up to the
///   NDEF TLV's length field; GET SYSTEM INFORMATION and GET MULTIPLE BLOCK SECURITY STATUS
///   on the way (Android `rw_i93` asks both);
/// - read (`readNDEF`): READs of the blocks after the CC;
/// - write (`writeNDEF`): WRITEs of the blocks of the T5T area (the T5T 1.0 NDEF write
///   procedure: the NDEF TLV's length set 0 first and the new length last, or the whole TLV in
///   order);
/// - make read-only (`writeLock`): a WRITE of block 0 with write access 11b, LOCK BLOCK.
///
/// Block n is at byte n × block size in `TagMemory.type5End`. The block size
/// (`TagMemory.type5BlockSize`, carried with the memory to the tag's next session) is GET
/// SYSTEM INFORMATION's, else a READ answer's or a WRITE's bytes per block. Other commands, and
/// blocks past the T5T area, are the app's own (`transceive`: Core NFC's NFCISO15693Tag
/// calls each send one request).
struct Type5Procedure: Sendable {
  /// queryNDEFStatus's answer from the CC and TLV area known at the last READ or WRITE.
  private(set) var status: (status: NDEFStatus, capacity: Int?, reason: String)?
  /// Frame of the answer that gave `status`.
  private var statusDecidedAt: Int?
  /// The status as the last READ found it: an app's own writes (a format) do not make a tag
  /// Core NFC's writeNDEF writes to — writeNDEF detects NDEF by reading first.
  private var readStatus: NDEFStatus?
  /// The last block of the last block write answered, until another command is answered.
  private var lastWrittenBlock: Int?

  /// The command code of ISO 15693 request `d`.
  static func command(_ d: LayerDecode) -> UInt8? {
    guard case .hex(let c)? = d.field("command") else { return nil }
    return c.first
  }

  /// The first block and block count `d` names.
  static func blocks(_ d: LayerDecode) -> (first: Int, count: Int)? {
    guard case .int(let first)? = d.field("block"), case .int(let count)? = d.field("block_count")
    else { return nil }
    return (first, count)
  }

  /// Whether `c` writes blocks (WRITE SINGLE / MULTIPLE, extended or not).
  static func writesBlocks(_ c: UInt8) -> Bool { [0x21, 0x24, 0x31, 0x34].contains(c) }

  /// The operation a reader's ISO 15693 request `d` belongs to (`current`: the operation in
  /// progress; `memory`: what the session knows of the blocks).
  func classify(_ d: LayerDecode, current: OperationKind?, memory: TagMemory) -> OperationKind {
    guard let c = Self.command(d) else { return .transceive }
    switch c {
    case 0x2B, 0x3B, 0x2C, 0x3C:
      // The stack's own questions while it connects or detects NDEF.
      if let current, current == .connect || current == .queryNDEFStatus { return current }
      return .transceive
    case 0x22, 0x32:
      return .writeLock
    case let c where ISO15693Command.readsBlocks(c):
      guard let (first, _) = Self.blocks(d) else { return .transceive }
      if first == 0 { return .queryNDEFStatus }
      if current == .queryNDEFStatus, lengthFieldEnd(memory) == nil { return .queryNDEFStatus }
      if status?.status == .notSupported || pastArea(first, memory: memory) { return .transceive }
      return .readNDEF
    case let c where Self.writesBlocks(c):
      guard let (first, _) = Self.blocks(d) else { return .transceive }
      if first == 0 {
        // Core NFC's writeNDEF never writes the CC: only writeLock does, setting the write
        // access to never (11b). Other writes of block 0 (formatting) are the app's own.
        return Self.locksCC(d, memory: memory) ? .writeLock : .transceive
      }
      if readStatus == .notSupported, current != .writeNDEF { return .transceive }
      // A write running on past the area is the same write, of a message too large for it
      // (`message-too-large` says so), not a command of its own: while the NDEF TLV's length
      // is still 0 (length first), or from the block after the last one written.
      if current == .writeNDEF,
        lastWrittenBlock.map({ first == $0 + 1 }) == true || ndefLengthIsZero(memory)
      {
        return .writeNDEF
      }
      return pastArea(first, memory: memory) ? .transceive : .writeNDEF
    default:
      return .transceive
    }
  }

  /// Whether WRITE `d` of block 0 sets a CC's write access to never (11b) where the CC known
  /// before allowed writing. Bytes 0–1 decide (magic, access), so the first block of an
  /// 8-byte CC does too.
  static func locksCC(_ d: LayerDecode, memory: TagMemory) -> Bool {
    guard case .hex(let data)? = d.field("data"), data.count >= 2,
      data[0] == 0xE1 || data[0] == 0xE2,
      data[1] & 3 == 3
    else { return false }
    guard let before = memory.type5End.known(0, 2) else { return true }
    return before[1] & 3 != 3 || (before[0] != 0xE1 && before[0] != 0xE2)
  }

  /// Whether block `first` starts past the T5T area the known CC declares.
  private func pastArea(_ first: Int, memory: TagMemory) -> Bool {
    guard let cc = memory.type5CC, let size = memory.type5BlockSize else { return false }
    return first * size >= cc.areaEnd(memorySize: memory.type5MemorySize)
  }

  /// The TLV area at the end, from the byte after the CC, as far as it is known.
  func area(_ memory: TagMemory) -> (cc: Type5CapabilityContainer, area: Type2TLVArea)? {
    guard let cc = memory.type5CC else { return nil }
    return (cc, cc.tlvArea(memory.type5End, memorySize: memory.type5MemorySize).area)
  }

  /// Whether the NDEF TLV's length is 0 in the memory as known: a length-first write under
  /// way (or an empty message).
  private func ndefLengthIsZero(_ memory: TagMemory) -> Bool {
    area(memory)?.area.ndef?.length == 0
  }

  /// The byte just past the NDEF TLV's length field, when it is known.
  func lengthFieldEnd(_ memory: TagMemory) -> Int? {
    guard let (_, area) = area(memory), let tlv = area.ndef else { return nil }
    return area.baseAddress + tlv.valueOffset
  }

  /// Whether READ `d`, of the same kind as `current`, starts the app's next call: a readNDEF
  /// whose first block the current read already read; a writeNDEF that sets the NDEF TLV's
  /// length to 0 again after the current write wrote other blocks.
  func startsNewCall(
    _ kind: OperationKind, _ d: LayerDecode, current: Operation, memory: TagMemory
  ) -> Bool {
    guard let (first, _) = Self.blocks(d), let size = memory.type5BlockSize else { return false }
    switch kind {
    case .readNDEF:
      return (memory.type5End.frame(first * size) ?? -1) >= current.firstFrame
    case .writeNDEF:
      guard let (_, area) = area(memory), let tlv = area.ndef,
        case .hex(let data)? = d.field("data")
      else { return false }
      let lengthAt = area.baseAddress + tlv.offset + 1
      let start = first * size
      guard lengthAt >= start, lengthAt < start + data.count, data[lengthAt - start] == 0 else {
        return false
      }
      return (memory.type5End.frame(lengthAt + 1) ?? -1) >= current.firstFrame
        || (memory.type5End.frame(start + data.count) ?? -1) >= current.firstFrame
    default:
      return false
    }
  }

  /// An answer the capture cut short (the source's `truncated` flag, its CRC not captured):
  /// what the reader received is not known, so it neither fails the operation nor fills the
  /// images; a WRITE stays unacknowledged. The outcome is unknown.
  private func cutByCapture(
    _ c: LayerDecode, frame: Int, op: inout Operation, memory: inout TagMemory
  ) {
    if let code = Self.command(c), Self.writesBlocks(code) {
      recordWrite(c, acknowledged: false, memory: &memory, frame: frame)
    }
    if op.outcome == .ok {
      op.outcome = .unknown
      op.reason =
        "the answer to \(c.summary) was cut by the capture: what the reader received is not known"
    }
    op.set("answer_not_captured", .int(frame))
    op.set("answer_cut", .bool(true))
  }

  /// Takes an answer: blocks into the memory images, the CC and TLV area into the NDEF
  /// status; an error response (flags b1) fails the operation.
  mutating func answer(_ x: Exchange, op: inout Operation, memory: inout TagMemory) {
    guard let c = x.command, let a = x.answer, let response = x.response, let request = x.request,
      c.protocolID == .iso15693, a.name == "\(c.name) response", let code = Self.command(c),
      request.frame.crc != .bad
    else { return }
    let frame = response.frame.index
    guard response.frame.crc != .bad else {
      if Self.writesBlocks(code) {
        recordWrite(c, acknowledged: false, memory: &memory, frame: frame)
      }
      return
    }
    if response.frame.crc == .notCaptured, response.frame.sourceFlags.contains("truncated") {
      return cutByCapture(c, frame: frame, op: &op, memory: &memory)
    }
    lastWrittenBlock = nil
    if case .hex(let error)? = a.field("error_code") {
      return refuse(c, a, error: error, op: &op, frame: frame)
    }
    if Self.writesBlocks(code), let (first, count) = Self.blocks(c) {
      lastWrittenBlock = first + count - 1
    }
    switch code {
    case 0x2B, 0x3B:
      if case .int(let size)? = a.field("block_size") {
        memory.type5BlockSize = size
        if case .int(let count)? = a.field("blocks") { memory.type5MemorySize = count * size }
      }
    case let code where ISO15693Command.readsBlocks(code):
      guard let (first, count) = Self.blocks(c), count > 0, case .hex(let data)? = a.field("data")
      else { return }
      if let size = memory.type5BlockSize, data.count != count * size {
        // Which bytes belong to which block is then unknown: none is recorded, as reader
        // stacks reject such an answer.
        op.fail(
          "the \(c.name) of \(count) block\(count == 1 ? "" : "s") was answered with "
            + "\(data.count) data bytes, not \(count) × \(size) (the block size "
            + "\(memory.type5MemorySize == nil ? "earlier commands gave" : "GET SYSTEM INFORMATION gave"))",
          frame: frame)
        return
      }
      // ISO/IEC 15693-3 blocks hold at most 32 bytes (GET SYSTEM INFORMATION's 5-bit size).
      guard data.count % count == 0, data.count > 0, data.count / count <= 32 else { return }
      let size = data.count / count
      if memory.type5BlockSize == nil { memory.type5BlockSize = size }
      memory.type5Read(data, at: first * size, frame: frame)
      decideStatus(memory, frame: frame, op: &op)
      readStatus = status?.status
    case let code where Self.writesBlocks(code):
      recordWrite(c, acknowledged: true, memory: &memory, frame: frame)
      decideStatus(memory, frame: frame, op: &op)
    case 0x2C, 0x3C:
      // Bit 0 of each block's security status: the block is locked (ISO/IEC 15693-3 §10.4.12).
      if let (first, _) = Self.blocks(c), case .hex(let status)? = a.field("security_status") {
        for (i, s) in status.enumerated() where s & 1 != 0 {
          memory.type5LockedBlocks[first + i] = frame
        }
      }
    case 0x22, 0x32:
      // Every block the call locked, in order: `0, 1, 2`.
      if let (first, _) = Self.blocks(c) {
        memory.type5LockedBlocks[first] = frame
        var list = ""
        if case .string(let before)? = op.detail("locked_blocks") { list = before + ", " }
        op.set("locked_blocks", .string(list + String(first)))
      }
    default:
      break
    }
  }

  /// A WRITE the tag left unanswered: its blocks may or may not hold the new bytes.
  func unanswered(_ f: DecodedFrame, memory: inout TagMemory) {
    guard let c = f.innermost, c.protocolID == .iso15693, let code = Self.command(c),
      Self.writesBlocks(code), f.frame.crc != .bad
    else { return }
    recordWrite(c, acknowledged: false, memory: &memory, frame: f.frame.index)
  }

  /// WRITE `c`'s data at its blocks.
  private func recordWrite(
    _ c: LayerDecode, acknowledged: Bool, memory: inout TagMemory, frame: Int
  ) {
    guard let (first, count) = Self.blocks(c), case .hex(let data)? = c.field("data"), count > 0,
      data.count % count == 0, data.count > 0, data.count / count <= 32
    else { return }
    let size = data.count / count
    // A WRITE whose blocks are not the block size the session knows cannot be placed.
    if let known = memory.type5BlockSize, known != size { return }
    memory.type5BlockSize = size
    memory.type5Write(data, at: first * size, acknowledged: acknowledged, frame: frame)
  }

  /// An error response fails the operation, naming the code (ISO/IEC 15693-3 §9.3, Table 7):
  /// 12h (block locked) to a WRITE is the tag's refusal to change a locked block. Detail
  /// `error_code`, and `refused_block` for a block command.
  private func refuse(
    _ c: LayerDecode, _ a: LayerDecode, error: [UInt8], op: inout Operation, frame: Int
  ) {
    let code = error.first.map(ISO15693Command.byteText) ?? "?"
    var meaning = ""
    if case .string(let m)? = a.field("error") { meaning = " (\(m))" }
    var what = c.name
    let firstRefusal = op.outcome != .failed
    if let (first, count) = Self.blocks(c) {
      what += count == 1 ? " of block \(first)" : " of blocks \(first)–\(first + count - 1)"
      if firstRefusal { op.set("refused_block", .int(first)) }
    }
    op.fail("\(what) refused: error \(code)h\(meaning)", frame: frame)
    if firstRefusal { op.set("error_code", .hex(error)) }
  }

  /// Decides `status` from the CC and the TLV area known now
  /// (`Type5CapabilityContainer.ndefStatus`); block 0 without the CC's magic E1h/E2h is
  /// notSupported.
  private mutating func decideStatus(_ memory: TagMemory, frame: Int, op: inout Operation) {
    guard let block0 = memory.type5End.known(0, 4) else { return }
    // An 8-byte CC (byte 2 00h) whose second half is not known yet decides nothing.
    if block0[0] == 0xE1 || block0[0] == 0xE2, block0[2] == 0, memory.type5End.known(4, 4) == nil {
      return
    }
    statusDecidedAt = frame
    guard let cc = memory.type5CC else {
      status = (
        .notSupported, nil,
        "block 0 holds no Type 5 CC: it starts \(Hex.string(block0, separator: " ").uppercased())"
          + ", not the magic number E1h or E2h (NFC Forum T5T 1.0 §4.3.1)"
      )
      return
    }
    if op.kind == .queryNDEFStatus { op.set("cc", .string(String(cc.summary.dropFirst(4)))) }
    let (area, known) = cc.tlvArea(memory.type5End, memorySize: memory.type5MemorySize)
    status = cc.ndefStatus(area: area, known: known, memorySize: memory.type5MemorySize)
  }

  /// Sets the query's `status`, `capacity` and `rule` when its own READ decided.
  func settleQuery(_ op: inout Operation) {
    op.settleQuery(status, decidedAt: statusDecidedAt)
  }

  /// Sets the read's `ndef_length` and `message` (the NDEF TLV's value) when known; a read
  /// that stopped before them is `unknown`.
  func settleRead(_ op: inout Operation, memory: TagMemory) {
    guard op.outcome == .ok else { return }
    guard let (_, area) = area(memory) else {
      op.outcome = .unknown
      op.reason =
        "block 0 (the CC) was not read: where the TLV area starts, and so the message, is unknown"
      return
    }
    guard let tlv = area.ndef else {
      if status?.status == .notSupported {
        op.outcome = .failed
        op.reason = status?.reason
      } else {
        op.outcome = .unknown
        op.reason = "reads stopped before the NDEF Message TLV"
      }
      return
    }
    op.set("ndef_length", .int(tlv.length))
    if tlv.length == 0 { return op.failEmptyRead(lengthField: "the NDEF TLV's L") }
    if tlv.isComplete {
      op.set("message", .hex(Array(tlv.value.prefix(tlv.length))))
    } else {
      op.outcome = .unknown
      op.reason = "reads stopped before the end of the \(tlv.length)-byte message"
    }
  }

  /// A write the tag acknowledged throughout is still interrupted when it left the NDEF TLV's
  /// length 0 after writing blocks past it: the last step, the new length, never came (the T5T
  /// 1.0 NDEF write procedure).
  func settleWrite(_ op: inout Operation, memory: TagMemory) {
    guard op.kind == .writeNDEF, op.outcome == .ok, let (_, area) = area(memory),
      let tlv = area.ndef, tlv.length == 0
    else { return }
    // The length written this call, and a block after the length's own written too.
    let lengthAt = area.baseAddress + tlv.offset + 1
    guard let size = memory.type5BlockSize, (memory.type5End.frame(lengthAt) ?? -1) >= op.firstFrame
    else {
      return
    }
    let after = (lengthAt / size + 1) * size
    guard after < memory.type5End.count,
      (after..<memory.type5End.count).contains(where: {
        (memory.type5End.frame($0) ?? -1) >= op.firstFrame
      })
    else { return }
    op.outcome = .interrupted
    op.reason =
      "the write left the NDEF TLV's length 0: its last step, writing the new length, never "
      + "came (NFC Forum T5T 1.0 NDEF write procedure)"
    op.set("unfinished", .string("length"))
  }
}
