/// The NFC Forum Type 3 Tag NDEF procedures (T3T 1.0 §7.4) seen through a session's CHECK and
/// UPDATE commands of the NDEF service (`000B` read, `0009` read/write):
///
/// - NDEF detection (`queryNDEFStatus`): CHECK of block 0, the Attribute Information Block;
/// - read (`readNDEF`): CHECK of the data blocks from block 1 (block 0 again with them);
/// - write (`writeNDEF`): UPDATE of block 0 with WriteF ON (`0Fh`), UPDATE of the data blocks,
///   UPDATE of block 0 with WriteF OFF and the new Ln;
/// - make read-only (`writeLock`): UPDATE of block 0 with RW Flag `00h` outside a write.
///
/// CHECKs of other blocks (FeliCa Lite / Lite-S system blocks from 80h, blocks past NmaxB,
/// other cards' blocks from 80h before block 0 was read) and other services stay
/// `transceive` operations. A system block listed after NDEF blocks (FeliCa Lite-S MAC (81h)
/// read with them, MAC_A (91h) written with them: nfcpy `read_with_mac`, `write_with_mac`)
/// rides along: the command is classified, and recorded, by its NDEF blocks. Other cards' blocks from 80h are NDEF data like any other (NmaxB is a
/// 16-bit count).
struct Type3Procedure: Sendable {
  /// queryNDEFStatus's answer from the last Attribute Information Block read or written.
  private(set) var status: (status: NDEFStatus, capacity: Int?, reason: String)?
  /// Frame of the answer that gave `status`.
  private var statusDecidedAt: Int?
  /// A FeliCa Lite / Lite-S Memory Configuration read (block 88h) and its answer's frame.
  private var memoryConfiguration: (mc: FeliCaLiteMemoryConfiguration, frame: Int)?
  /// The tag's IC code (PMm byte 1) once a poll answered: a FeliCa Lite / Lite-S keeps
  /// system blocks, not NDEF data, from block 80h.
  var icCode: UInt8?
  /// Block 0 as an earlier session on the same card left it: a read that does not read it
  /// again (a reader that re-polls between calls, or talks to several cards in turn) still
  /// knows Ln and NmaxB.
  var carriedAttributeBlock: Type3AttributeBlock?

  /// Block 0 as this session knows it, else as an earlier session on the card left it.
  func attributeBlock(_ memory: TagMemory) -> Type3AttributeBlock? {
    memory.type3AttributeBlock ?? carriedAttributeBlock
  }

  /// The operation a reader's CHECK or UPDATE `d` belongs to (`memory`: what the session
  /// knows of the blocks, for the Attribute Information Block an UPDATE replaces).
  func classify(
    _ d: LayerDecode, current: OperationKind?, currentFailed: Bool, memory: TagMemory
  ) -> OperationKind {
    guard d.name == "CHECK" || d.name == "UPDATE", FeliCaMessage.addressesNDEFService(d)
    else { return .transceive }
    let blocks = ndefBlocks(d, memory: memory)
    guard !blocks.isEmpty else {
      return continuesPastNDEFArea(
        d, current: current, currentFailed: currentFailed, memory: memory)
        ? .writeNDEF : .transceive
    }
    if d.name == "CHECK" {
      if blocks == [0] { return .queryNDEFStatus }
      // A dump tool reading every block of a tag that is not NDEF formatted reads no message.
      if status?.status == .notSupported, current != .readNDEF { return .transceive }
      // readNDEF reads the ⌈Ln / 16⌉ blocks from block 1 that hold the message (T3T 1.0
      // §7.4.2): a CHECK starting past them is the app's own read, not the message's — unless
      // it goes on from the block the read just reached (a reader reading on in chunks).
      if let aib = attributeBlock(memory), aib.invalidReason == nil, !aib.writeInProgress,
        let first = blocks.first, first > (aib.ln + 15) / 16,
        current != .readNDEF || first != memory.type3End.count / 16
      {
        return .transceive
      }
      return .readNDEF
    }
    guard blocks.first == 0, case .hex(let data)? = d.field("data"),
      let aib = Type3AttributeBlock(parsing: data)
    else { return .writeNDEF }
    if aib.writeInProgress { return .writeNDEF }
    let before = memory.type3AttributeBlock
    // Outside a write, the RW Flag changed to read-only (Ln kept) is Core NFC's writeLock.
    let locks = aib.rwFlag == 0x00 && before?.rwFlag != 0x00 && aib.ln == before?.ln ?? aib.ln
    // WriteF OFF ends the current write; once it is OFF, or once the tag refused the write,
    // a lock is another call.
    if current == .writeNDEF, before?.writeInProgress ?? true, !(locks && currentFailed) {
      return .writeNDEF
    }
    return locks ? .writeLock : .writeNDEF
  }

  /// Whether UPDATE `d` of the NDEF service is the current write going on past its NDEF area:
  /// the write set WriteF ON and now writes block NmaxB + 1, the block after the area's last
  /// (nfcpy `tt3.py` writes the data blocks in order after WriteF ON). The message is longer
  /// than NmaxB × 16 bytes; the tag's refusal (Status Flag 2 `A8h`) fails that write, not an
  /// app's own command.
  private func continuesPastNDEFArea(
    _ d: LayerDecode, current: OperationKind?, currentFailed: Bool, memory: TagMemory
  ) -> Bool {
    guard d.name == "UPDATE", current == .writeNDEF, !currentFailed,
      let aib = memory.type3AttributeBlock, aib.invalidReason == nil, aib.writeInProgress,
      let first = FeliCaMessage.blocks(d).first
    else { return false }
    return first == aib.nmaxb + 1
  }

  /// The NDEF blocks of CHECK or UPDATE `d` (`isNDEFBlock`), when its block list starts
  /// with one; empty for a command of system blocks only.
  func ndefBlocks(_ d: LayerDecode, memory: TagMemory) -> [Int] {
    let blocks = FeliCaMessage.blocks(d)
    guard let first = blocks.first, isNDEFBlock(first, memory: memory) else { return [] }
    return blocks.filter { isNDEFBlock($0, memory: memory) }
  }

  /// Whether block `b` of the NDEF service can be the Attribute Information Block or NDEF
  /// data (T3T 1.0 §7.1: data blocks are 1 to NmaxB): once a valid Attribute Information
  /// Block is known, blocks up to its NmaxB (a FeliCa Lite-S's REG block 0Eh, past NmaxB 13,
  /// is not); before, blocks below 80h. From 80h never on a FeliCa Lite / Lite-S (system
  /// blocks, FeliCa Lite-S user's manual §3); on other cards not before block 0 was read (a
  /// dump tool's read, or a system block when no poll named the IC).
  func isNDEFBlock(_ b: Int, memory: TagMemory) -> Bool {
    if b >= 0x80, let icCode, FeliCaProduct.isLite(icCode: icCode) { return false }
    guard let aib = attributeBlock(memory), aib.invalidReason == nil else { return b < 0x80 }
    return b <= aib.nmaxb
  }

  /// Whether CHECK or UPDATE `d`, of the same kind as operation `current`, starts the app's
  /// next call: an UPDATE setting WriteF ON after the current write set it OFF again, or
  /// after the tag refused the current write (the app's retry); a CHECK of block 1 after the
  /// current read had it.
  func startsNewCall(
    _ kind: OperationKind, _ d: LayerDecode, current: Operation, memory: TagMemory
  ) -> Bool {
    let blocks = ndefBlocks(d, memory: memory)
    switch kind {
    case .writeNDEF:
      guard d.name == "UPDATE", blocks.first == 0, case .hex(let data)? = d.field("data"),
        Type3AttributeBlock(parsing: data)?.writeInProgress == true
      else { return false }
      if current.outcome == .failed { return true }
      guard let aib = memory.type3AttributeBlock, !aib.writeInProgress else { return false }
      return (memory.type3End.frame(0) ?? -1) >= current.firstFrame
    case .readNDEF:
      guard d.name == "CHECK", blocks.contains(1) else { return false }
      return (memory.type3End.frame(16) ?? -1) >= current.firstFrame
    default: return false
    }
  }

  /// Takes a CHECK or UPDATE answer: the blocks into the memory images, block 0 into the
  /// NDEF status; a refusal (Status Flag 1 not `00h`) fails the operation.
  mutating func answer(_ x: Exchange, op: inout Operation, memory: inout TagMemory) {
    guard let c = x.command, let a = x.answer, let response = x.response,
      c.name == "CHECK" || c.name == "UPDATE", a.name == "\(c.name) response",
      FeliCaMessage.addressesNDEFService(c)
    else { return }
    // A damaged frame's bytes are not the tag's or the reader's: no block is taken from it.
    // An intact UPDATE whose answer is damaged may or may not have been carried out.
    guard x.request?.frame.crc != .bad else { return }
    guard response.frame.crc != .bad else {
      if c.name == "UPDATE", let request = x.request {
        recordUnacknowledged(c, frame: request.frame.index, op: &op, memory: &memory)
      }
      return
    }
    let frame = response.frame.index
    let blocks = FeliCaMessage.blocks(c)
    // Only the card addressed answers; reader stacks reject an answer naming another IDm.
    if case .hex(let asked)? = c.field("idm"), case .hex(let named)? = a.field("idm"),
      asked != named
    {
      op.fail(
        "the \(c.name) answer names IDm \(Hex.string(named).uppercased()), not the "
          + "\(Hex.string(asked).uppercased()) the command addressed", frame: frame)
      return
    }
    if let request = x.request {
      noteBlockLimit(
        c, blocks: blocks, frames: (request.frame.index, frame),
        refused: a.field("success") != .bool(true) && a.field("status_flags") != nil, op: &op,
        memory: memory)
    }
    if c.name == "UPDATE", case .hex(let f)? = a.field("status_flags"), f.last == 0x71,
      case .hex(let data)? = c.field("data")
    {
      // Status Flag 2 71h is a warning given after writing: the blocks hold the new bytes.
      op.set("write_count_exceeded", .int(frame))
      record(data, blocks: blocks, read: false, op: &op, memory: &memory, frame: frame)
      return
    }
    guard a.field("success") == .bool(true) else {
      if c.name == "CHECK", blocks == [0], op.kind == .queryNDEFStatus,
        a.field("status_flags") != nil, status.map({ $0.status == .notSupported }) ?? true
      {
        return noNDEFService(c, a, op: &op, frame: frame)
      }
      refuse(c, a, blocks: blocks, op: &op, frame: frame)
      return
    }
    let key = c.name == "CHECK" ? a : c
    guard case .hex(let data)? = key.field("data") else { return }
    if c.name == "CHECK", let why = Self.mismatch(a, requested: blocks.count, data: data.count) {
      // Which bytes belong to which block is then unknown: none is recorded.
      op.fail(why, frame: frame)
      return
    }
    // Block 88h is a Memory Configuration on a FeliCa Lite / Lite-S only (or an unnamed card
    // whose block 88h is no NDEF data).
    if c.name == "CHECK", blocks.first == 0x88, data.count >= 16,
      !isNDEFBlock(0x88, memory: memory), icCode.map({ FeliCaProduct.isLite(icCode: $0) }) ?? true,
      let mc = FeliCaLiteMemoryConfiguration(parsing: data)
    {
      memoryConfiguration = (mc, frame)
      explainNotFormatted()
    }
    if c.name == "UPDATE", !Self.setsWriteFlagFirst(c, blocks: blocks) {
      noteDataFirst(blocks, command: x.request?.frame.index ?? frame, op: &op, memory: memory)
    }
    record(data, blocks: blocks, read: c.name == "CHECK", op: &op, memory: &memory, frame: frame)
  }

  /// Records on a writeNDEF (detail `data_before_write_flag`, the command's frame) its first
  /// acknowledged UPDATE of data blocks over an old message (valid block 0, Ln > 0) before
  /// any UPDATE of block 0 with WriteF ON: T3T 1.0 §7.4.3 (nfcpy `tt3.py`) sets WriteF ON
  /// first, so that a write cut off in between is seen; without it the old Ln stands over
  /// partly new bytes and nothing tells readers so.
  private func noteDataFirst(
    _ blocks: [Int], command: Int, op: inout Operation, memory: TagMemory
  ) {
    guard op.kind == .writeNDEF, op.detail("write_flag_set") == nil,
      op.detail("data_before_write_flag") == nil,
      blocks.contains(where: { $0 >= 1 && isNDEFBlock($0, memory: memory) }),
      let aib = attributeBlock(memory), aib.invalidReason == nil, !aib.writeInProgress,
      aib.ln > 0
    else { return }
    op.set("data_before_write_flag", .int(command))
  }

  /// Records on the operation (once, the first) a CHECK listing more NDEF blocks than the
  /// Attribute Information Block's Nbr, or an UPDATE more than its Nbw (T3T 1.0 §7.1): the
  /// detail `block_limit_exceeded` is the command's frame, `block_limit` says how
  /// (`UPDATE of 2 NDEF blocks, Nbw 1`), `block_limit_refused` is the answer's frame when the
  /// tag refused the command. System blocks riding along (a FeliCa Lite-S MAC_A written with
  /// a block) do not count.
  private func noteBlockLimit(
    _ c: LayerDecode, blocks: [Int], frames: (command: Int, answer: Int), refused: Bool,
    op: inout Operation, memory: TagMemory
  ) {
    guard op.detail("block_limit_exceeded") == nil, let aib = attributeBlock(memory),
      aib.invalidReason == nil
    else { return }
    let count = blocks.filter { isNDEFBlock($0, memory: memory) }.count
    let limit = c.name == "CHECK" ? aib.nbr : aib.nbw
    guard count > limit else { return }
    op.set("block_limit_exceeded", .int(frames.command))
    if refused { op.set("block_limit_refused", .int(frames.answer)) }
    op.set(
      "block_limit",
      .string("\(c.name) of \(count) NDEF blocks, \(c.name == "CHECK" ? "Nbr" : "Nbw") \(limit)"))
  }

  /// Why CHECK answer `a` does not fit its request of `requested` blocks (its block count
  /// differs, or its `data` bytes are not 16 per block), nil when it does. Reader stacks
  /// reject such an answer.
  static func mismatch(_ a: LayerDecode, requested: Int, data: Int) -> String? {
    guard case .int(let count)? = a.field("block_count") else { return nil }
    if count != requested {
      return "the CHECK of \(requested) block\(requested == 1 ? "" : "s") was answered with "
        + "\(count) block\(count == 1 ? "" : "s"): the answer does not match the request"
    }
    guard data != count * 16 else { return nil }
    return "the CHECK answer announces \(count) block\(count == 1 ? "" : "s") but carries "
      + "\(data) data bytes, not \(count * 16)"
  }

  /// NDEF detection's CHECK of block 0 refused by status flags (an NDEF service the card does
  /// not have, `A6h`; a block it does not serve, `A8h`; …): the tag answered, and has no
  /// Attribute Information Block to give, so it is not NDEF formatted — queryNDEFStatus
  /// reports notSupported, not an error (Android `rw_t3t.cc`: NDEF detection fails when the
  /// CHECK's status is not OK; as for a Type 4 tag refusing the NDEF application's SELECT).
  /// A card whose block 0 was read valid earlier is not: a later refusal fails the query.
  private mutating func noNDEFService(
    _ c: LayerDecode, _ a: LayerDecode, op: inout Operation, frame: Int
  ) {
    let flags = Self.flagsText(a)
    var meaning = ""
    if case .string(let m)? = a.field("status_meaning") { meaning = " (\(m))" }
    var service = "the NDEF service"
    if case .string(let codes)? = c.field("service_codes") { service = "service " + codes }
    status = (
      .notSupported, nil,
      "the CHECK of block 0 (the Attribute Information Block) of \(service) was refused: status "
        + "flags \(flags)\(meaning); the tag has no readable NDEF service"
    )
    statusDecidedAt = frame
    op.set("ndef_detection_failed", .int(frame))
    if case .hex(let f)? = a.field("status_flags") { op.set("status_flags", .hex(f)) }
    explainNotFormatted()
  }

  /// Status Flag 1 and 2 of answer `a` as `"01 A6"`, `"?"` when it has none.
  private static func flagsText(_ a: LayerDecode) -> String {
    guard case .hex(let f)? = a.field("status_flags") else { return "?" }
    return Hex.string(f, separator: " ").uppercased()
  }

  /// A refused CHECK or UPDATE (Status Flag 1 not `00h`) fails the operation. FeliCa writes
  /// a block whole or not at all: a refused UPDATE changed nothing.
  private func refuse(
    _ c: LayerDecode, _ a: LayerDecode, blocks: [Int], op: inout Operation, frame: Int
  ) {
    let flags = Self.flagsText(a)
    var meaning = ""
    if case .string(let m)? = a.field("status_meaning") { meaning = " (\(m))" }
    op.fail(
      "\(c.name) of block\(blocks.count == 1 ? "" : "s") "
        + "\(blocks.map(String.init).joined(separator: ", ")) refused: status flags "
        + "\(flags)\(meaning)", frame: frame)
    if case .hex(let f)? = a.field("status_flags") { op.set("status_flags", .hex(f)) }
    if let first = blocks.first { op.set("refused_block", .int(first)) }
  }

  /// Records the 16-byte blocks of `data` (a CHECK answer's when `read`, an acknowledged
  /// UPDATE's otherwise) in the memory images, block 0 into the NDEF status.
  private mutating func record(
    _ data: [UInt8], blocks: [Int], read: Bool, op: inout Operation, memory: inout TagMemory,
    frame: Int
  ) {
    // Block by block: block 0 of the same command already tells NmaxB for the blocks after it.
    for (i, block) in blocks.enumerated()
    where data.count >= (i + 1) * 16 && isNDEFBlock(block, memory: memory) {
      let bytes = Array(data[(i * 16)..<((i + 1) * 16)])
      if read {
        memory.type3Read(bytes, at: block * 16, frame: frame)
      } else {
        memory.type3Write(bytes, at: block * 16, acknowledged: true, frame: frame)
        if block == 0 { Self.noteWriteFlag(bytes, op: &op, frame: frame) }
      }
      if block == 0, let aib = Type3AttributeBlock(parsing: bytes) {
        status = aib.ndefStatus
        statusDecidedAt = frame
        explainNotFormatted()
        if read, op.kind == .queryNDEFStatus || op.kind == .readNDEF {
          op.set("attribute_information", .string(aib.summary))
        }
      }
    }
  }

  /// A tag not NDEF formatted whose Memory Configuration was read with NDEF disabled: that is
  /// why (a FeliCa Lite-S with MC_SYS_OP 00h does not answer a poll for system code 12FC, so
  /// an NDEF reader session never finds it).
  private mutating func explainNotFormatted() {
    guard let s = status, s.status == .notSupported, let (mc, frame) = memoryConfiguration,
      !mc.ndefEnabled, !s.reason.contains("MC_SYS_OP")
    else { return }
    status?.reason =
      s.reason + "; the Memory Configuration (block 88h, frame \(frame)) has MC_SYS_OP "
      + "\(Hex.string([mc.systemOption]).uppercased()): NDEF is disabled on this FeliCa Lite / Lite-S, "
      + "which then does not answer a poll for the NDEF system code 12FC"
  }

  /// An UPDATE the tag left unanswered: its blocks may or may not hold the new bytes.
  func unanswered(_ f: DecodedFrame, op: inout Operation, memory: inout TagMemory) {
    guard let c = f.innermost, c.name == "UPDATE", FeliCaMessage.addressesNDEFService(c),
      f.frame.crc != .bad
    else { return }
    recordUnacknowledged(c, frame: f.frame.index, op: &op, memory: &memory)
  }

  /// UPDATE `c`'s blocks as written without acknowledgement, from frame `frame`.
  private func recordUnacknowledged(
    _ c: LayerDecode, frame: Int, op: inout Operation, memory: inout TagMemory
  ) {
    guard case .hex(let data)? = c.field("data") else { return }
    let blocks = FeliCaMessage.blocks(c)
    let ndef = blocks.map { isNDEFBlock($0, memory: memory) }
    for (i, block) in blocks.enumerated() where ndef[i] && data.count >= (i + 1) * 16 {
      let bytes = Array(data[(i * 16)..<((i + 1) * 16)])
      memory.type3Write(bytes, at: block * 16, acknowledged: false, frame: frame)
      if block == 0 { Self.noteWriteFlag(bytes, op: &op, frame: frame) }
    }
  }

  /// Whether UPDATE `c` lists block 0 first and sets WriteF ON there: one UPDATE of several
  /// blocks (Nbw ≥ 2) that opens the write procedure before its data blocks, which the card
  /// writes in the order listed (T3T 1.0 §7.4.3).
  private static func setsWriteFlagFirst(_ c: LayerDecode, blocks: [Int]) -> Bool {
    guard blocks.first == 0, case .hex(let data)? = c.field("data"), data.count >= 16 else {
      return false
    }
    return Type3AttributeBlock(parsing: Array(data[0..<16]))?.writeInProgress == true
  }

  /// Records on the operation that its UPDATE of block 0 (acknowledged or not) set WriteF ON:
  /// a refused one did not, and leaves WriteF ON as the tag was found.
  private static func noteWriteFlag(_ block0: [UInt8], op: inout Operation, frame: Int) {
    if Type3AttributeBlock(parsing: block0)?.writeInProgress == true {
      op.set("write_flag_set", .int(frame))
    }
  }

  /// Sets the query's `status`, `capacity` and `rule` when its own CHECK of block 0 decided.
  func settleQuery(_ op: inout Operation) {
    op.settleQuery(status, decidedAt: statusDecidedAt)
  }

  /// Sets the read's `ndef_length` and `message` (Ln bytes from block 1) when known; a read
  /// that stopped before them is `unknown`.
  func settleRead(_ op: inout Operation, memory: TagMemory) {
    guard let aib = attributeBlock(memory) else {
      // Without block 0 the message's length (Ln) is unknown, so is the message.
      if op.outcome == .ok {
        op.outcome = .unknown
        op.reason =
          "block 0 (the Attribute Information Block) was not read: the message's "
          + "length, and so the message, is unknown"
      }
      return
    }
    if let why = aib.invalidReason {
      // Block 0 read with the data blocks: no message on a tag that is not NDEF formatted.
      op.set("ndef_unreadable", .string("not-formatted"))
      if op.outcome == .ok {
        op.outcome = .failed
        op.reason =
          "block 0 is no valid Attribute Information Block (\(why)): the tag is not "
          + "NDEF formatted, so there is no message to read (T3T 1.0 §7.4.1)"
      }
      return
    }
    op.set("ndef_length", .int(aib.ln))
    if aib.writeInProgress {
      // nfcpy `tt3.py` reads only with WriteF OFF; its test TT3_READ_BV_004 takes WriteF 0Fh
      // as corrupted data: Ln and the data blocks may be from two messages.
      op.set("write_flag_on", .bool(true))
      op.set("ndef_unreadable", .string("write-flag-on"))
      if op.outcome == .ok {
        op.outcome = .failed
        op.reason =
          "the Attribute Information Block has WriteF ON (0Fh): a write began and never "
          + "ended, so Ln \(aib.ln) and the data blocks may belong to two messages; readers "
          + "take the data as corrupted and read no message (T3T 1.0 §7.4.3)"
      }
      return
    }
    if aib.ln == 0 { return op.failEmptyRead(lengthField: "Ln") }
    if aib.ln > aib.capacity {
      op.set("ndef_unreadable", .string("ln-exceeds-capacity"))
      if op.outcome == .ok {
        op.outcome = .failed
        op.reason =
          "the Attribute Information Block's Ln \(aib.ln) is larger than its NDEF "
          + "area, NmaxB × 16 = \(aib.capacity) bytes: readers reject the message (T3T 1.0 §7.1)"
      }
      return
    }
    if let message = memory.type3End.known(16, aib.ln) {
      op.set("message", .hex(message))
    } else if op.outcome == .ok {
      op.outcome = .unknown
      op.reason = "reads stopped before the end of the \(aib.ln)-byte message"
    }
  }

  /// A write the tag acknowledged throughout is still interrupted when it left WriteF ON:
  /// the final UPDATE of block 0 (WriteF OFF, the new Ln) never came (T3T 1.0 §7.4.3).
  func settleWrite(_ op: inout Operation, memory: TagMemory) {
    guard op.kind == .writeNDEF, op.outcome == .ok, let aib = memory.type3AttributeBlock,
      aib.writeInProgress, (memory.type3End.frame(0) ?? -1) >= op.firstFrame
    else { return }
    op.outcome = .interrupted
    op.reason =
      "the write left WriteF ON in the Attribute Information Block: its last step (block 0 "
      + "with WriteF OFF and the new Ln) never came, so readers take the message as being "
      + "written (NFC Forum T3T 1.0 §7.4.3)"
    op.set("unfinished", .string("write-flag-off"))
  }
}
