/// Type 4 Capability Container values T4T does not allow (`CapabilityContainer4.valueProblems`:
/// MLe below 000Fh, MLc 0, a reserved NDEF file id, an RFU maximum file size or access byte,
/// the NDEF File Control TLV elsewhere than at offset 7).
///
/// - `t4t-cc-invalid-value` (warning, no Core NFC error): one finding per CC, naming every bad
///   value. Android's NDEF detection (AOSP libnfc-nci `rw_t4t_validate_cc_file`) refuses the
///   tag as not NDEF on any of them; other readers take the value as given (a tiny MLe makes
///   them read in tiny chunks).
/// - `t4t-cc-lock-misplaced` (warning, no Core NFC error): an acknowledged UPDATE of the CC
///   starting at byte 0Eh — the write access byte of a mapping 2.0 CC — that sets it to 80h or
///   more (1 or 2 bytes, short of 10h), on a CC
///   whose Extended NDEF File Control TLV (mapping 3.0) puts the write access at 10h: a lock
///   written at the 2.0 offset (NFC Forum T4T 3.0 §5.1; nfc-facts §6.1). It changed the last
///   byte of the file's maximum size instead, and the tag stays writable.
enum Type4CCChecks {
  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    invalidValues(c) + misplacedLocks(c)
  }

  private static func misplacedLocks(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let cc = c.session.type4CC, cc.ndefFile.tlvType == 0x06 else { return [] }
    let at = cc.writeAccessOffset
    let legacy = at - 2
    return c.log.commands.compactMap { w -> DiagnosisFinding? in
      // A write starting at that byte (not an update of the whole size, nor a new CC).
      guard w.name == "UPDATE CC", w.accepted, w.offset == legacy, !w.data.isEmpty,
        w.data.count <= at - legacy, let o = w.offset,
        w.data[legacy - o] >= 0x80
      else { return nil }
      return DiagnosisFinding(
        code: "t4t-cc-lock-misplaced", severity: .warning, operation: c.operation(at: w.frame),
        frames: [w.frame],
        cause: "a lock was written at the mapping 2.0 offset of a mapping 3.0 CC",
        message: "\(w.summary) set CC byte \(Hex.string([UInt8(legacy)]).uppercased())h, "
          + "the write access byte of a mapping 2.0 CC, to "
          + "\(Hex.string([w.data[legacy - o]]).uppercased())h. This CC (mapping "
          + "\(cc.versionString)) has the Extended NDEF File Control TLV: that byte is the last "
          + "of the NDEF file's 4-byte maximum size, and the write access is at "
          + "\(Hex.string([UInt8(at)]).uppercased())h. The tag stays writable, and its CC now "
          + "gives the file another maximum size.",
        coreNFCError: nil,
        fix: "Read the CC's mapping version before locking: in a mapping 3.0 CC, update the "
          + "write access byte at offset \(Hex.string([UInt8(at)]).uppercased())h (NFC Forum T4T "
          + "3.0 §5.1), and write the maximum size back as it was.")
    }
  }

  private static func invalidValues(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let cc = c.session.type4CC else { return [] }
    let problems = cc.valueProblems
    guard let first = problems.first else { return [] }
    let image = c.session.memory.filesEnd[0xE103]
    let frames = Array(Set(problems.compactMap { image?.frame($0.offset) })).sorted()
    let op = image?.frame(first.offset).flatMap { c.operation(at: $0) }
    let list = problems.map(\.description).joined(separator: "; ")
    return [
      DiagnosisFinding(
        code: "t4t-cc-invalid-value", severity: .warning, operation: op, frames: frames,
        cause: "the tag's CC holds values NFC Forum T4T does not allow",
        message: "The Type 4 CC holds \(problems.count == 1 ? "a value" : "values") T4T 2.0 "
          + "§5.1.2 does not allow: \(list). Android's NDEF detection refuses such a tag as not "
          + "NDEF formatted; Core NFC and other readers may take the values as given.",
        coreNFCError: nil,
        fix: "Correct the CC file on the tag (or in the HCE service that answers for it): MLe at "
          + "least 000Fh, MLc at least 0001h, the NDEF file id E104 (not E102, E103, 3F00, "
          + "3FFF, FFFF or 0000), a maximum NDEF file size from 5 on, access bytes 00 (or FF "
          + "for no write access), the NDEF File Control TLV first, at offset 7.")
    ]
  }
}
