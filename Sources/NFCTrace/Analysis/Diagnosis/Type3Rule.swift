/// Rule: the NFC Forum Type 3 Tag procedures (FeliCa, T3T 1.0 §7) gone wrong.
///
/// - `t3t-update-refused` (error): the tag answered an UPDATE of the NDEF service with Status
///   Flag 1 other than `00h` (JIS X 6319-4): the write did not happen. Core NFC reports 401
///   for writeNDEF/writeLock.
/// - `t3t-write-flag-on` (warning): a writeNDEF that did not finish left the Attribute
///   Information Block with WriteF ON (`0Fh`): the tag says a write is in progress, its Ln
///   is still the old one while data blocks already hold new bytes (T3T 1.0 §7.4.3: WriteF
///   is set ON before the data blocks and OFF, with the new Ln, after them).
/// - `t3t-ln-exceeds-capacity` (warning): the Attribute Information Block as found announces
///   an Ln larger than NmaxB × 16 (T3T 1.0 §7.1): readers reject the message. (A block that
///   makes the tag not NDEF formatted — wrong checksum, mapping version other than 1.x — is
///   `not-ndef-formatted`'s.)
enum Type3Rule: DiagnosisRule {
  static let codes = ["t3t-update-refused", "t3t-write-flag-on", "t3t-ln-exceeds-capacity"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.tag.technology == .nfcF else { return [] }
    return refusals(c) + writeFlagOn(c) + lnPastCapacity(c)
  }

  private static func refusals(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      guard op.outcome == .failed, case .string(let flags)? = op.detail("status_flags"),
        let frame = op.failedFrames.first, let reason = op.reason
      else { return nil }
      let sf2 = flags.split(separator: " ").last.flatMap { UInt8($0, radix: 16) }
      return DiagnosisFinding(
        code: "t3t-update-refused", severity: .error, operation: i,
        frames: [frame - 1, frame].filter { $0 >= op.firstFrame },
        cause: "the tag refused the UPDATE (status flags \(flags.uppercased()))",
        message:
          "The tag refused an UPDATE (Write Without Encryption) of the NDEF service: \(reason). "
          + "The block was not written; the \(op.kind.rawValue) operation failed.",
        coreNFCError: c.refusalError(i), fix: fix(sf2))
    }
  }

  /// The fix for Status Flag 2 `sf2`.
  private static func fix(_ sf2: UInt8?) -> String {
    switch sf2 {
    case 0xA8?, 0xA2?:
      return "Keep the message within NmaxB × 16 bytes (queryNDEFStatus's capacity) and each "
        + "UPDATE within Nbw blocks; the tag's NDEF service ends before the block written."
    case 0x70?, 0x71?:
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

  private static func writeFlagOn(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let m = c.session.memory
    guard let aib = m.type3AttributeBlock, aib.writeInProgress, let set = m.type3End.frame(0),
      let i = c.operation(at: set), c.session.operations[i].kind == .writeNDEF
    else { return [] }
    let op = c.session.operations[i]
    guard op.outcome != .ok || op.detail("unfinished") != nil else { return [] }
    let written = MemoryRow.type3(m.type3End).filter {
      $0.address > 0 && ($0.state == .written || $0.state == .unacknowledged)
        && ($0.frame ?? -1) >= op.firstFrame
    }.map(\.address)
    let blocks =
      written.isEmpty
      ? "no data block was written"
      : "data block\(written.count == 1 ? "" : "s") \(written.map(String.init).joined(separator: ", ")) "
        + "already hold new bytes"
    return [
      DiagnosisFinding(
        code: "t3t-write-flag-on", severity: .warning, operation: i,
        frames: [set - 1, set].filter { $0 >= op.firstFrame } + op.unansweredFrames.suffix(1),
        cause: "the write left WriteF ON in the Attribute Information Block",
        message:
          "The writeNDEF set WriteF ON in the Attribute Information Block (frame \(set)) and "
          + "stopped before its last step, which sets it OFF with the new Ln. The tag now says "
          + "a write is in progress: Ln is still \(aib.ln) while \(blocks), so the message "
          + "readers find is the old length over new bytes, and some readers refuse a tag "
          + "whose WriteF is ON (NFC Forum T3T 1.0 §7.4.3).",
        coreNFCError: nil,
        fix: "Write the whole message again with writeNDEF(_:completionHandler:) while the tag "
          + "is held still: a complete write sets WriteF OFF again.")
    ]
  }

  private static func lnPastCapacity(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let ops = c.session.operations
    guard let i = ops.firstIndex(where: { $0.kind == .queryNDEFStatus }),
      let aib = c.session.memory.type3Start.known(0, 16).flatMap({
        Type3AttributeBlock(parsing: $0)
      }),
      let frame = c.session.memory.type3Start.frame(0), aib.invalidReason == nil,
      aib.ln > aib.capacity
    else { return [] }
    return [
      DiagnosisFinding(
        code: "t3t-ln-exceeds-capacity", severity: .warning, operation: i, frames: [frame],
        cause: "the Attribute Information Block's Ln is larger than the NDEF area",
        message:
          "The tag's Attribute Information Block (block 0) announces an NDEF message of "
          + "\(aib.ln) bytes (Ln), but its NDEF area holds only NmaxB × 16 = \(aib.capacity) "
          + "bytes (NFC Forum T3T 1.0 §7.1): readers reject the message, and readNDEF fails.",
        coreNFCError: nil,
        fix: "Write the message again with writeNDEF(_:completionHandler:), which sets Ln to "
          + "the message's length, or format the tag with a FeliCa tool.")
    ]
  }
}
