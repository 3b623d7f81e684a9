import NDEF

/// The NFC Forum Type 5 Tag NDEF procedures (T5T 1.0 §7) seen through a session's ISO/IEC
/// 15693 block commands (READ/WRITE SINGLE or MULTIPLE BLOCK(S), their EXTENDED forms, LOCK
/// BLOCK):
///
/// - NDEF detection (`queryNDEFStatus`): the READ of block 0 (the CC), then READs up to the
///   NDEF TLV's length field; GET SYSTEM INFORMATION and GET MULTIPLE BLOCK SECURITY STATUS
///   on the way (Android `rw_i93` asks both);
/// - read (`readNDEF`): READs of the blocks after the CC;
/// - write (`writeNDEF`): WRITEs of the blocks of the T5T area (T5T 1.0 §7.5: the NDEF TLV's
///   length set 0 first and the new length last, or the whole TLV in order);
/// - make read-only (`writeLock`): a WRITE of block 0 with write access 11b, LOCK BLOCK.
///
/// Block n is at byte n × block size in `TagMemory.type5End`. The block size is GET SYSTEM
/// INFORMATION's, else a READ answer's or a WRITE's bytes per block. Other commands, and
/// blocks past the T5T area, are the app's own (`transceive`: Core NFC's NFCISO15693Tag
/// calls each send one request).
struct Type5Procedure: Sendable {
  /// queryNDEFStatus's answer from the CC and TLV area known at the last READ or WRITE.
  private(set) var status: (status: NDEFStatus, capacity: Int?, reason: String)?
  /// Frame of the answer that gave `status`.
  private var statusDecidedAt: Int?
  /// Bytes per block, once known.
  private(set) var blockSize: Int?
  /// The tag's block count (GET SYSTEM INFORMATION).
  private(set) var blockCount: Int?

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
        guard case .hex(let data)? = d.field("data"), let new = Type5CapabilityContainer(data[...])
        else { return .writeNDEF }
        let before = memory.type5CC
        let locks = new.versionAccess & 3 == 3 && before.map { $0.versionAccess & 3 != 3 } ?? true
        return locks && current != .writeNDEF ? .writeLock : .writeNDEF
      }
      if status?.status == .notSupported, current != .writeNDEF { return .transceive }
      return pastArea(first, memory: memory) ? .transceive : .writeNDEF
    default:
      return .transceive
    }
  }

  /// Whether block `first` starts past the T5T area the known CC declares.
  private func pastArea(_ first: Int, memory: TagMemory) -> Bool {
    guard let cc = memory.type5CC, let size = blockSize else { return false }
    return first * size >= areaEnd(cc)
  }

  /// Where the T5T area ends, counted from block 0: MLEN × 8 (NXP ICODE SLIX: MLEN 0Eh on
  /// 28 blocks of 4 bytes; STMicroelectronics ST25DV04K: MLEN 40h on 512 bytes: the CC counts
  /// in it), capped by the tag's memory when GET SYSTEM INFORMATION gave it.
  func areaEnd(_ cc: Type5CapabilityContainer) -> Int {
    let memorySize = blockCount.flatMap { n in blockSize.map { n * $0 } } ?? Int.max
    return min(cc.areaSize, memorySize)
  }

  /// The TLV area at the end, from the byte after the CC, as far as it is known.
  func area(_ memory: TagMemory) -> (cc: Type5CapabilityContainer, area: Type2TLVArea)? {
    guard let cc = memory.type5CC else { return nil }
    let start = cc.length
    let run = memory.type5End.knownRun(from: start)
    return (
      cc, Type2TLVArea(tlvArea: Array(run), baseAddress: start, areaStart: start, findings: false)
    )
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
    guard let (first, _) = Self.blocks(d), let size = blockSize else { return false }
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
    if case .hex(let error)? = a.field("error_code") {
      return refuse(c, a, error: error, op: &op, frame: frame)
    }
    switch code {
    case 0x2B, 0x3B:
      if case .int(let size)? = a.field("block_size") {
        blockSize = size
        memory.type5BlockSize = size
      }
      if case .int(let count)? = a.field("blocks") { blockCount = count }
    case let code where ISO15693Command.readsBlocks(code):
      guard let (first, count) = Self.blocks(c), case .hex(let data)? = a.field("data"),
        let size = blockSize ?? (count > 0 && data.count % count == 0 ? data.count / count : nil),
        size > 0
      else { return }
      if blockSize == nil { blockSize = size }
      memory.type5BlockSize = blockSize
      memory.type5Read(data, at: first * size, frame: frame)
      decideStatus(memory, frame: frame, op: &op)
    case let code where Self.writesBlocks(code):
      recordWrite(c, acknowledged: true, memory: &memory, frame: frame)
      decideStatus(memory, frame: frame, op: &op)
    case 0x22, 0x32:
      // Every block the call locked, in order: `0, 1, 2`.
      if let (first, _) = Self.blocks(c) {
        var list = ""
        if case .string(let before)? = op.detail("locked_blocks") { list = before + ", " }
        op.set("locked_blocks", .string(list + String(first)))
      }
    default:
      break
    }
  }

  /// A WRITE the tag left unanswered: its blocks may or may not hold the new bytes.
  mutating func unanswered(_ f: DecodedFrame, memory: inout TagMemory) {
    guard let c = f.innermost, c.protocolID == .iso15693, let code = Self.command(c),
      Self.writesBlocks(code), f.frame.crc != .bad
    else { return }
    recordWrite(c, acknowledged: false, memory: &memory, frame: f.frame.index)
  }

  /// WRITE `c`'s data at its blocks.
  private mutating func recordWrite(
    _ c: LayerDecode, acknowledged: Bool, memory: inout TagMemory, frame: Int
  ) {
    guard let (first, count) = Self.blocks(c), case .hex(let data)? = c.field("data"), count > 0,
      data.count % count == 0, data.count > 0
    else { return }
    let size = data.count / count
    if blockSize == nil { blockSize = size }
    memory.type5BlockSize = blockSize
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
    if let (first, count) = Self.blocks(c) {
      what += count == 1 ? " of block \(first)" : " of blocks \(first)–\(first + count - 1)"
      op.set("refused_block", .int(first))
    }
    op.fail("\(what) refused: error \(code)h\(meaning)", frame: frame)
    op.set("error_code", .hex(error))
  }

  /// Decides `status` from the CC and the TLV area known now (NFC Forum T5T 1.0 §4.3, §7.3):
  /// no CC (magic E1h/E2h) → notSupported; a major version above 1 or read access other than
  /// 00b → notSupported; a TLV area walked without an NDEF TLV → notSupported; else write
  /// access 00b → readWrite, other → readOnly. Capacity: from the NDEF TLV's T (the byte after
  /// the CC when it is not known yet) to the area's end, minus its T and L (2 bytes, 4 when
  /// more than 256 remain).
  private mutating func decideStatus(_ memory: TagMemory, frame: Int, op: inout Operation) {
    guard let block0 = memory.type5End.known(0, 4) else { return }
    // An 8-byte CC (byte 2 00h) whose second half is not known yet decides nothing.
    if block0[0] == 0xE1 || block0[0] == 0xE2, block0[2] == 0, memory.type5End.known(4, 4) == nil {
      return
    }
    defer { statusDecidedAt = frame }
    guard let (cc, area) = area(memory) else {
      status = (
        .notSupported, nil,
        "block 0 holds no Type 5 CC: it starts \(Hex.string(block0, separator: " ").uppercased())"
          + ", not the magic number E1h or E2h (NFC Forum T5T 1.0 §4.3.1)"
      )
      return
    }
    if op.kind == .queryNDEFStatus {
      op.set("cc", .string(String(cc.summary.dropFirst(4))))
    }
    if cc.versionAccess >> 6 > 1 {
      status = (
        .notSupported, nil,
        "the CC's mapping version \(cc.version) has a major version above 1, which T5T 1.x "
          + "readers reject (NFC Forum T5T 1.0 §4.3.1.2)"
      )
      return
    }
    if (cc.versionAccess >> 2) & 3 != 0 {
      status = (.notSupported, nil, "the CC gives \(cc.readAccess): the NDEF data cannot be read")
      return
    }
    let end = areaEnd(cc)
    let known = memory.type5End.knownRun(from: cc.length).count
    if area.ndef == nil, area.endsAtTerminator || cc.length + known >= end {
      status = (
        .notSupported, nil,
        "no NDEF Message TLV in the T5T area (the CC alone does not make the tag NDEF)"
      )
      return
    }
    let tStart = area.ndef.map { area.baseAddress + $0.offset } ?? cc.length
    var capacity = end - tStart
    capacity -= capacity > 256 ? 4 : 2
    let ccText =
      "CC \(Hex.string(cc.bytes, separator: " ").uppercased()): \(cc.summary.dropFirst(4))"
    let assumed =
      area.ndef == nil
      ? "; capacity counted from the byte after the CC: the NDEF TLV was not read" : ""
    let access: NDEFStatus = cc.versionAccess & 3 == 0 ? .readWrite : .readOnly
    status = (access, max(0, capacity), ccText + assumed)
  }

  /// Sets the query's `status`, `capacity` and `rule` when its own READ decided.
  func settleQuery(_ op: inout Operation) {
    guard let status, op.outcome != .interrupted, let decided = statusDecidedAt,
      decided >= op.firstFrame, decided <= op.lastFrame
    else { return }
    op.set("status", .string(status.status.rawValue))
    if let c = status.capacity { op.set("capacity", .int(c)) }
    op.set("rule", .string(status.reason))
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
  /// length 0 after writing blocks past it: the last step, the new length, never came (T5T
  /// 1.0 §7.5).
  func settleWrite(_ op: inout Operation, memory: TagMemory) {
    guard op.kind == .writeNDEF, op.outcome == .ok, let (_, area) = area(memory),
      let tlv = area.ndef, tlv.length == 0
    else { return }
    // The length written this call, and a block after the length's own written too.
    let lengthAt = area.baseAddress + tlv.offset + 1
    guard let size = blockSize, (memory.type5End.frame(lengthAt) ?? -1) >= op.firstFrame else {
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
      + "came (NFC Forum T5T 1.0 §7.5)"
    op.set("unfinished", .string("length"))
  }
}
