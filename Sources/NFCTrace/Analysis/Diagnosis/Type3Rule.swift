/// Rule: the NFC Forum Type 3 Tag procedures (FeliCa, T3T 1.0 §7) gone wrong.
///
/// - `t3t-update-refused` (error): the tag answered an UPDATE of the NDEF service with Status
///   Flag 1 other than `00h` (JIS X 6319-4): the write did not happen. Core NFC reports 401
///   for writeNDEF/writeLock — except for a block past NmaxB: writeNDEF refuses a message
///   larger than NmaxB × 16 with 402 before writing, so such UPDATEs were the app's own
///   (NFCFeliCaTag's writeWithoutEncryption, which gets the status flags, no error).
/// - `t3t-write-flag-on` (warning): a writeNDEF that did not finish left the Attribute
///   Information Block with WriteF ON (`0Fh`): the tag says a write is in progress, its Ln
///   is still the old one while data blocks may already hold new bytes (T3T 1.0 §7.4.3:
///   WriteF is set ON before the data blocks and OFF, with the new Ln, after them); or the
///   tag was found with WriteF ON, left so by an earlier write that did not finish (an error
///   when the operation that read it is a readNDEF that failed on it: nfcpy `tt3.py` reads
///   only with WriteF `00h`).
/// - `t3t-write-count-exceeded` (warning): an UPDATE answered with Status Flag 2 `71h`: the
///   block was written, but the tag's memory has reached its rewrite limit.
/// - `t3t-block-count-exceeded` (warning): a CHECK listed more NDEF blocks than the Attribute
///   Information Block's Nbr, or an UPDATE more than its Nbw (T3T 1.0 §7.1: the most blocks
///   one command may read or write). Tags may refuse such a command (Status Flag 2 `A2h`).
/// - `t3t-ln-exceeds-capacity` (warning): the Attribute Information Block, as found or as a
///   write left it, announces an Ln larger than NmaxB × 16 (T3T 1.0 §7.1): readers reject
///   the message. (A block that makes the tag not NDEF formatted — wrong checksum, mapping
///   version newer than 1.x, a block of zeros — is `not-ndef-formatted`'s.)
enum Type3Rule: DiagnosisRule {
  static let codes = [
    "t3t-update-refused", "t3t-write-flag-on", "t3t-write-count-exceeded",
    "t3t-block-count-exceeded", "t3t-ln-exceeds-capacity",
  ]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.tag.technology == .nfcF else { return [] }
    return refusals(c) + writeFlagOn(c) + writeCount(c) + blockLimit(c) + lnPastCapacity(c)
  }

  private static func refusals(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.refusedWrites(statusDetail: "status_flags").map { r in
      let (i, op, reason) = (r.index, r.operation, r.reason)
      let flags = Hex.string(r.status, separator: " ").uppercased()
      let sf2 = r.status.last
      let tooMany = sf2 == 0xA2 ? overNbw(op) : nil
      let own = tooMany ?? pastArea(c, op)
      return DiagnosisFinding(
        code: "t3t-update-refused", severity: .error, operation: i, frames: r.frames,
        cause: "the tag refused the UPDATE (status flags \(flags.uppercased()))"
          + (tooMany.map { _ in ": it carried more blocks than Nbw" }
            ?? pastArea(c, op).map { _ in ": the message is larger than the NDEF area" } ?? ""),
        message:
          "The tag refused an UPDATE (Write Without Encryption) of the NDEF service: \(reason). "
          + (own.map { "The block was not written; the write failed." + $0 }
            ?? "The block was not written; the \(op.kind.rawValue) operation failed."),
        // Past the area the UPDATEs were the app's own (writeNDEF refuses a message past it
        // with 402 first): writeWithoutEncryption gives the status flags to its completion
        // handler. More blocks than Nbw likely were too, but that is not verified: the error
        // writeNDEF would give stays.
        coreNFCError: pastArea(c, op) == nil ? c.refusalError(i) : nil,
        fix: tooMany != nil ? nbwFix : fix(sf2, block: op.detail("refused_block")))
    }
  }

  /// What an UPDATE refused with Status Flag 2 A2h (illegal number of blocks) that listed more
  /// blocks than Nbw (`block_limit_exceeded`, T3T 1.0 §7.1) says of the write; nil when the
  /// UPDATE kept to Nbw.
  private static func overNbw(_ op: Operation) -> String? {
    guard op.detail("block_limit_refused") != nil,
      case .string(let how)? = op.detail("block_limit"),
      how.hasPrefix("UPDATE")
    else { return nil }
    return " The \(how) lists more blocks than the Attribute Information Block allows one UPDATE "
      + "(Nbw, NFC Forum T3T 1.0 §7.1), and the tag refused the count, not the blocks. A writer "
      + "following T3T keeps to Nbw, so this write procedure (shown as writeNDEF: it follows "
      + "the NDEF write steps) is most likely the app's own, with NFCFeliCaTag's "
      + "writeWithoutEncryption, whose completion handler gets the status flags rather than "
      + "an NFCReaderError; how Core NFC's writeNDEF splits its UPDATEs is not verified."
  }

  static let nbwFix =
    "Send at most Nbw blocks (block 0's byte 2) per UPDATE (writeWithoutEncryption), or leave "
    + "writing to writeNDEF(_:completionHandler:)."

  /// What a write refused on a block past NmaxB says of its message (T3T 1.0 §7.1: the data
  /// blocks are 1 to NmaxB): it needs more than NmaxB × 16 bytes, queryNDEFStatus's capacity.
  /// Nil when the refused block is inside the NDEF area (or block 0 is not known).
  private static func pastArea(_ c: DiagnosisContext, _ op: Operation) -> String? {
    guard case .int(let block)? = op.detail("refused_block"),
      let aib = c.session.memory.type3AttributeBlock, aib.invalidReason == nil,
      block > aib.nmaxb
    else { return nil }
    return " Block \(block) is past the NDEF area (NmaxB \(aib.nmaxb): blocks 1 to "
      + "\(aib.nmaxb), \(aib.capacity) bytes, queryNDEFStatus's capacity): the message being "
      + "written needs more than \(aib.capacity) bytes and does not fit this tag. Core NFC's "
      + "writeNDEF(_:completionHandler:) refuses such a message with 402 before writing, so "
      + "this write procedure (shown as writeNDEF: it follows the NDEF write steps) was the "
      + "app's own, with NFCFeliCaTag's writeWithoutEncryption, whose completion handler gets "
      + "the status flags, not an NFCReaderError."
  }

  /// The fix for Status Flag 2 `sf2`, refused on `block` (the first of the command's list).
  private static func fix(_ sf2: UInt8?, block: FieldValue?) -> String {
    switch sf2 {
    case 0xA8? where block == .int(0):
      // Block 0 is the Attribute Information Block, in every NDEF service (T3T 1.0 §6.1): no
      // message size reaches it, the service itself is missing or not the one addressed.
      return "Block 0 is the Attribute Information Block, inside every NDEF service: a tag "
        + "that refuses it has no writable NDEF service 0009h (not NDEF-formatted, or the "
        + "block list element names another service or access mode). Check queryNDEFStatus "
        + "(notSupported) before writing, and format the tag for NDEF with its maker's tool."
    case 0xA8?:
      return "Keep the message within NmaxB × 16 bytes (queryNDEFStatus's capacity): the tag's "
        + "NDEF service ends before the block written."
    case 0xA2?:
      // Illegal number of blocks: the count, not the block (JIS X 6319-4 status flags).
      return "Keep each UPDATE within Nbw blocks and each CHECK within Nbr (block 0), and the "
        + "message within NmaxB × 16 bytes (queryNDEFStatus's capacity): the tag refused the "
        + "number of blocks the command listed."
    case 0x70?:
      return "The tag's memory is failing or worn out (too many writes): replace the tag."
    case 0xA4?, 0xA5?, 0xA6?:
      return "The tag's NDEF service is not writable without encryption (a FeliCa Lite-S whose "
        + "blocks are write-protected, or a card whose 0009 service needs authentication): "
        + "check queryNDEFStatus and do not offer writing when it is readOnly."
    default:
      return "Check queryNDEFStatus before writing; if the tag keeps refusing, read its status "
        + "flags against the FeliCa user's manual and replace the tag."
    }
  }

  private static func writeCount(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      guard case .int(let frame)? = op.detail("write_count_exceeded") else { return nil }
      return DiagnosisFinding(
        code: "t3t-write-count-exceeded", severity: .warning, operation: i,
        frames: DiagnosisContext.exchange(answeredBy: frame, in: op),
        cause: "the tag's memory has reached its rewrite limit (Status Flag 2 71h)",
        message:
          "The tag wrote the block but answered the UPDATE with Status Flag 2 71h: its memory "
          + "has been rewritten as often as it is rated for (FeliCa user's manual, \"Status "
          + "Flag\"). Later writes may fail. How Core NFC reports this answer is not verified.",
        coreNFCError: nil,
        fix: "Replace the tag before it fails, and write to it less often (write only when the "
          + "message changed).")
    }
  }

  private static func blockLimit(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in
      let op = c.session.operations[i]
      guard case .int(let frame)? = op.detail("block_limit_exceeded"),
        case .string(let how)? = op.detail("block_limit")
      else { return nil }
      var refusal: Int?
      if case .int(let f)? = op.detail("block_limit_refused") { refusal = f }
      let outcome =
        refusal.map { "The tag refused the command (frame \($0))." }
        ?? "This tag took it; others of the same mapping may refuse it (Status Flag 2 A2h)."
      return DiagnosisFinding(
        code: "t3t-block-count-exceeded", severity: .warning, operation: i,
        frames: [frame] + (refusal.map { [$0] } ?? []),
        cause: "the reader's \(how): more blocks per command than block 0 allows",
        message:
          "The reader sent \(how.hasPrefix("UPDATE") ? "an" : "a") \(how) (frame \(frame)): "
          + "the Attribute Information Block gives the most blocks one CHECK (Nbr) or UPDATE "
          + "(Nbw) may carry (NFC Forum T3T 1.0 §7.1). " + outcome,
        coreNFCError: nil,
        fix: "Send at most Nbr blocks per readWithoutEncryption and at most Nbw per "
          + "writeWithoutEncryption, or leave NDEF to readNDEF/writeNDEF.")
    }
  }

  /// The fix for WriteF left ON, by this session's write or an earlier one.
  private static let rewriteFix =
    "Write the whole message again with writeNDEF(_:completionHandler:) while the tag is held "
    + "still: a complete write sets WriteF OFF again."

  private static func writeFlagOn(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let m = c.session.memory
    guard let aib = m.type3AttributeBlock, aib.writeInProgress, let set = m.type3End.frame(0)
    else { return [] }
    let ops = c.session.operations
    // The session's last write that set WriteF ON and did not finish, read back after or not
    // (a write refused at its first step set nothing).
    guard
      let i = ops.lastIndex(where: {
        $0.kind == .writeNDEF && $0.firstFrame <= set && $0.detail("write_flag_set") != nil
          && ($0.outcome != .ok || $0.detail("unfinished") != nil)
      })
    else {
      guard let i = c.operation(at: set), ops[i].kind != .writeNDEF else { return [] }
      return foundOn(c, aib, set, i)
    }
    let op = ops[i]
    let wasOn =
      m.type3Start.known(0, 16).flatMap { Type3AttributeBlock(parsing: $0) }?
      .writeInProgress == true
    let blocks = dataBlocks(m, since: op.firstFrame, foundOn: wasOn)
    return [
      DiagnosisFinding(
        code: "t3t-write-flag-on", severity: .warning, operation: i,
        frames: [set - 1, set].filter { $0 >= op.firstFrame } + op.unansweredFrames.suffix(1),
        cause: "the write left WriteF ON in the Attribute Information Block",
        message:
          "The writeNDEF set WriteF ON in the Attribute Information Block (frame \(set)) and "
          + "stopped before its last step, which sets it OFF with the new Ln. The tag now says "
          + "a write is in progress: Ln is still \(aib.ln) \(blocks), and readers may refuse "
          + "a tag whose WriteF is ON (NFC Forum T3T 1.0 §7.4.3).",
        coreNFCError: nil,
        fix: rewriteFix)
    ]
  }

  /// What the write's data blocks hold: `while data blocks 1, 2 already hold new bytes`.
  private static func dataBlocks(_ m: TagMemory, since first: Int, foundOn: Bool) -> String {
    let rows = MemoryRow.type3(m.type3End).filter {
      $0.address > 0 && ($0.frame ?? -1) >= first
    }
    let written = rows.filter { $0.state == .written }.map { String($0.address) }
    let unsure = rows.filter { $0.state == .unacknowledged }.map { String($0.address) }
    var parts: [String] = []
    if !written.isEmpty {
      parts.append(
        (written.count == 1
          ? "data block \(written[0]) already holds"
          : "data blocks "
            + "\(written.joined(separator: ", ")) already hold") + " new bytes")
    }
    if !unsure.isEmpty {
      parts.append(
        "data block\(unsure.count == 1 ? "" : "s") \(unsure.joined(separator: ", ")) may "
          + "hold new bytes (the tag did not acknowledge their UPDATE)")
    }
    guard !parts.isEmpty else {
      // Found with WriteF ON, the tag was already mid-write: its data blocks are not known good.
      return foundOn
        ? "and no data block was written"
        : "and no data block was written yet: the old message "
          + "is still intact"
    }
    return "while " + parts.joined(separator: " and ")
      + ", so the message readers find is the old length over new bytes"
  }

  /// The tag as found: block 0 read with WriteF ON, set by no write of this session.
  private static func foundOn(
    _ c: DiagnosisContext, _ aib: Type3AttributeBlock, _ frame: Int, _ i: Int
  ) -> [DiagnosisFinding] {
    [
      DiagnosisFinding(
        code: "t3t-write-flag-on",
        // A read that failed on it lost the message: an error there.
        severity: c.session.operations[i].detail("ndef_unreadable") == .string("write-flag-on")
          ? .error : .warning,
        operation: i, frames: [frame],
        cause: "the tag was found with WriteF ON in its Attribute Information Block",
        message:
          "The Attribute Information Block read at frame \(frame) has WriteF ON (0Fh): an "
          + "earlier write set it and never finished, so Ln (\(aib.ln)) may not match the data "
          + "blocks, and readers may take the message as corrupted (NFC Forum T3T 1.0 §7.4.3).",
        coreNFCError: nil,
        fix: rewriteFix)
    ]
  }

  private static func lnPastCapacity(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let m = c.session.memory
    if let (aib, frame) = lnPast(m.type3Start), let i = c.operation(at: frame) {
      return [lnFinding(aib, frame: frame, operation: i)]
    }
    // Not as found: as the session's last write left it (and a read-back may have seen it).
    guard let (aib, frame) = lnPast(m.type3End),
      let i = c.writeOperations.last(where: { c.session.operations[$0].firstFrame <= frame })
        ?? c.operation(at: frame)
    else { return [] }
    return [lnFinding(aib, frame: frame, operation: i)]
  }

  /// Block 0 of `image` and its frame when it is valid but its Ln is past NmaxB × 16.
  private static func lnPast(_ image: ByteImage) -> (Type3AttributeBlock, Int)? {
    guard let aib = image.known(0, 16).flatMap({ Type3AttributeBlock(parsing: $0) }),
      let frame = image.frame(0), aib.invalidReason == nil, aib.ln > aib.capacity
    else { return nil }
    return (aib, frame)
  }

  private static func lnFinding(_ aib: Type3AttributeBlock, frame: Int, operation i: Int)
    -> DiagnosisFinding
  {
    DiagnosisFinding(
      code: "t3t-ln-exceeds-capacity", severity: .warning, operation: i, frames: [frame],
      cause: "the Attribute Information Block's Ln is larger than the NDEF area",
      message:
        "The tag's Attribute Information Block (block 0, frame \(frame)) announces an NDEF message of "
        + "\(aib.ln) bytes (Ln), but its NDEF area holds only NmaxB × 16 = \(aib.capacity) "
        + "bytes (NFC Forum T3T 1.0 §7.1): readers reject the message, and readNDEF fails.",
      coreNFCError: nil,
      fix: "Write the message again with writeNDEF(_:completionHandler:), which sets Ln to "
        + "the message's length, or format the tag with a FeliCa tool.")
  }
}
