/// Rule: the NFC Forum Type 5 Tag procedures (ISO/IEC 15693, T5T 1.0) gone wrong.
///
/// - `t5t-write-refused` (error): the tag answered a WRITE or LOCK BLOCK of writeNDEF or
///   writeLock with an error response (flags b1 set, ISO/IEC 15693-3 §9.3, Table 7): the
///   block was not written. Core NFC reports 401. The fix depends on the error code: 12h (the
///   block is locked: LOCK BLOCK is permanent, while the CC may still say write always), 10h
///   (the block does not exist: the CC's MLEN declares more memory than the tag has), 13h/14h
///   (programming failed), others (the IC's datasheet).
/// - `t5t-blocks-locked` (warning): blocks of the T5T area are locked (GET MULTIPLE BLOCK
///   SECURITY STATUS, bit 0 of a block's status; or an acknowledged LOCK BLOCK) while the CC
///   says write always: queryNDEFStatus answers readWrite, but WRITEs of those blocks are
///   refused (error 12h). Android's NDEF detection reports such a tag read-only; how Core NFC
///   reports it is not verified. Not given once the CC says write never (a finished writeLock).
enum Type5Rule: DiagnosisRule {
  static let codes = ["t5t-write-refused", "t5t-blocks-locked"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.tag.technology == .nfcV else { return [] }
    return refusals(c) + [lockedBlocks(c)].compactMap { $0 }
  }

  /// Locked blocks inside the T5T area of a tag whose CC says write always.
  private static func lockedBlocks(_ c: DiagnosisContext) -> DiagnosisFinding? {
    let m = c.session.memory
    guard let cc = m.type5CC, cc.versionAccess & 3 == 0, let size = m.type5BlockSize, size > 0
    else { return nil }
    let end = cc.areaEnd(memorySize: m.type5MemorySize)
    let locked = m.type5LockedBlocks.keys.filter { $0 * size + size > cc.length && $0 * size < end }
      .sorted()
    guard let first = locked.first, let last = locked.last else { return nil }
    let frames = Array(Set(locked.compactMap { m.type5LockedBlocks[$0] })).sorted()
    let list =
      locked.count == last - first + 1 && locked.count > 1
      ? "blocks \(first)–\(last)"
      : locked.count == 1
        ? "block \(first)"
        : "blocks " + locked.prefix(8).map(String.init).joined(separator: ", ")
          + (locked.count > 8 ? " …" : "")
    return DiagnosisFinding(
      code: "t5t-blocks-locked", severity: .warning,
      operation: frames.first.flatMap { c.operation(at: $0) }, frames: Array(frames.prefix(3)),
      cause: "\(list) of the T5T area locked while the CC says write always",
      message:
        "The tag reports \(list) of its T5T area (where the NDEF TLV lives) locked, but its CC "
        + "still says write always, so queryNDEFStatus answers readWrite. A write of the message "
        + "over a locked block is refused with error 12h. Android's NDEF detection reports such "
        + "a tag read-only; how Core NFC reports it is not verified.",
      coreNFCError: nil,
      fix: "Before writing, read the lock state with NFCISO15693Tag's "
        + "getMultipleBlockSecurityStatus and refuse the write when a block the message needs is "
        + "locked. When locking a tag, set the CC's write access to never (11b) too, as "
        + "writeLock does, so readers see it read-only.")
  }

  private static func refusals(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.refusedWrites(statusDetail: "error_code").map { r in
      let (i, op, reason, code) = (r.index, r.operation, r.reason, r.status)
      let error = code.first.map(ISO15693Command.byteText) ?? "?"
      return DiagnosisFinding(
        code: "t5t-write-refused", severity: .error, operation: i, frames: r.frames,
        cause: "the tag refused a block write (ISO 15693 error \(error)h)",
        message:
          "The tag answered a block write with an error response: \(reason). The block was "
          + "not written; the \(op.kind.rawValue) operation failed.",
        coreNFCError: c.refusalError(i),
        fix: fix(
          code.first, block: op.detail("refused_block"), op: op, queried: queried(c, i),
          memory: c.session.memory))
    }
  }

  /// The fix for error 10h (block not available, ISO/IEC 15693-3 §7.4.2) on `block`: what the
  /// CC's MLEN and GET SYSTEM INFORMATION's memory size (when read) say of that block.
  private static func blockNotAvailableFix(_ subject: String, block: FieldValue?, memory: TagMemory)
    -> String
  {
    let cc = memory.type5CC
    let areaEnd = cc.map { $0.length + $0.areaSize }
    let blockStart: Int? = {
      guard case .int(let b)? = block, let size = memory.type5BlockSize else { return nil }
      return b * size
    }()
    let total = memory.type5MemorySize
    let overstated =
      areaEnd.flatMap { end in
        total.map {
          end > $0
            ? ": the CC's MLEN declares \(end) bytes (CC included), more than the tag has" : ""
        }
      } ?? ""
    if let start = blockStart, let total, start >= total {
      return "\(subject) does not exist on this tag: GET SYSTEM INFORMATION reports \(total) bytes"
        + overstated + ", so the message was larger than the tag. Keep the message within the "
        + "tag's memory (getSystemInfo gives its block count and size) and write a CC whose MLEN "
        + "matches it."
    }
    if let areaEnd, let start = blockStart, start >= areaEnd {
      return "\(subject) lies past the T5T area the CC declares (MLEN: \(areaEnd) bytes, CC "
        + "included): the message is larger than queryNDEFStatus's capacity. Keep it within "
        + "that capacity; writeNDEF(_:completionHandler:) refuses a larger one with 402 before "
        + "writing."
    }
    if blockStart != nil, total != nil {
      // (The command's first block: a WRITE MULTIPLE BLOCKS may run past the memory from it.)
      return "\(subject) is inside the memory GET SYSTEM INFORMATION reports and the T5T area "
        + "the CC declares, yet the tag answered 10h (block not available): its memory map "
        + "differs from what it reports (a block reserved or protected by the IC), or a "
        + "command of several blocks ran past the memory from it. Check the IC's datasheet and "
        + "keep the NDEF message within the blocks the tag accepts."
    }
    return "\(subject) does not exist on this tag, or is not available to writes: the message "
      + "reached further than the tag's memory. Keep the message within the tag's memory "
      + "(getSystemInfo gives its block count and size) and write a CC whose MLEN matches it."
  }

  /// Whether a queryNDEFStatus before operation `i` answered readWrite.
  private static func queried(_ c: DiagnosisContext, _ i: Int) -> Bool {
    c.session.operations[..<i].contains {
      $0.kind == .queryNDEFStatus && $0.detail("status") == .string("readWrite")
    }
  }

  /// The fix for error code `code`, refused on `block` in operation `op`; `queried`: the
  /// session's queryNDEFStatus answered readWrite.
  private static func fix(
    _ code: UInt8?, block: FieldValue?, op: Operation, queried: Bool, memory: TagMemory
  ) -> String {
    let ccReadOnly = (memory.type5CC?.versionAccess ?? 0) & 3 == 3
    var which = "the block"
    if case .int(let b)? = block { which = "block \(b)" }
    let subject = which.prefix(1).uppercased() + which.dropFirst()
    switch code {
    case 0x11? where op.kind == .writeLock:
      return "\(subject) was locked already: LOCK BLOCK of a locked block is refused with 11h, "
        + "and the block stays locked. Read the lock state with NFCISO15693Tag's "
        + "getMultipleBlockSecurityStatus first and lock only the blocks that are not locked "
        + "yet, or treat 11h from LOCK BLOCK as done."
    case 0x12?, 0x11?:
      if ccReadOnly {
        return "\(subject) is locked: ISO 15693 LOCK BLOCK is permanent, and the CC says write "
          + "never, so the tag is read-only (queryNDEFStatus answers .readOnly). Check the "
          + "status before writing and do not write a .readOnly tag; use another tag."
      }
      return "\(subject) is locked: ISO 15693 LOCK BLOCK is permanent, and a locked block cannot "
        + "be written again, even though the CC may still say write always"
        + (queried ? " (so queryNDEFStatus answered readWrite)" : "")
        + ". Before writing, read the lock state with NFCISO15693Tag's "
        + "getMultipleBlockSecurityStatus and refuse the write when a block of the T5T area is "
        + "locked; use another tag."
    case 0x10?:
      return blockNotAvailableFix(subject, block: block, memory: memory)
    case 0x13?, 0x14?:
      return "The tag failed to program \(which) (a weak field, or memory worn out by writes): "
        + "hold the tag still against the phone and write the whole message again; if it keeps "
        + "failing on the same block, replace the tag."
    default:
      return "The error code is the tag's own answer to that write: look it up in the IC's "
        + "datasheet (A0h–DFh are custom codes), and remove what keeps the block from being "
        + "written (a password or other protection) before writing."
    }
  }
}
