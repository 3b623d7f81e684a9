/// Rule: the NFC Forum Type 5 Tag procedures (ISO/IEC 15693, T5T 1.0) gone wrong.
///
/// - `t5t-write-refused` (error): the tag answered a WRITE or LOCK BLOCK of writeNDEF or
///   writeLock with an error response (flags b1 set, ISO/IEC 15693-3 §9.3, Table 7): the
///   block was not written. Core NFC reports 401. The fix depends on the error code: 12h (the
///   block is locked: LOCK BLOCK is permanent, while the CC may still say write always), 10h
///   (the block does not exist: the CC's MLEN declares more memory than the tag has), 13h/14h
///   (programming failed), others (the IC's datasheet).
enum Type5Rule: DiagnosisRule {
  static let codes = ["t5t-write-refused"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.tag.technology == .nfcV else { return [] }
    return c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      guard op.outcome == .failed, case .hex(let code)? = op.detail("error_code"),
        let frame = op.failedFrames.first, let reason = op.reason
      else { return nil }
      let error = code.first.map(ISO15693Command.byteText) ?? "?"
      return DiagnosisFinding(
        code: "t5t-write-refused", severity: .error, operation: i,
        frames: [frame - 1, frame].filter { $0 >= op.firstFrame },
        cause: "the tag refused a block write (ISO 15693 error \(error)h)",
        message:
          "The tag answered a block write with an error response: \(reason). The block was "
          + "not written; the \(op.kind.rawValue) operation failed.",
        coreNFCError: c.refusalError(i),
        fix: fix(code.first, block: op.detail("refused_block"), op: op, queried: queried(c, i)))
    }
  }

  /// Whether a queryNDEFStatus before operation `i` answered readWrite.
  private static func queried(_ c: DiagnosisContext, _ i: Int) -> Bool {
    c.session.operations[..<i].contains {
      $0.kind == .queryNDEFStatus && $0.detail("status") == .string("readWrite")
    }
  }

  /// The fix for error code `code`, refused on `block` in operation `op`; `queried`: the
  /// session's queryNDEFStatus answered readWrite.
  private static func fix(_ code: UInt8?, block: FieldValue?, op: Operation, queried: Bool)
    -> String
  {
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
      return "\(subject) is locked: ISO 15693 LOCK BLOCK is permanent, and a locked block cannot "
        + "be written again, even though the CC may still say write always"
        + (queried ? " (so queryNDEFStatus answered readWrite)" : "")
        + ". Before writing, read the lock state with NFCISO15693Tag's "
        + "getMultipleBlockSecurityStatus and refuse the write when a block of the T5T area is "
        + "locked; use another tag."
    case 0x10?:
      return "\(subject) does not exist on this tag: the CC's MLEN declares more memory than the "
        + "tag has, so the message was larger than the tag. Keep the message within the tag's "
        + "memory (getSystemInfo gives its block count and size) and write a CC whose MLEN "
        + "matches it."
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
