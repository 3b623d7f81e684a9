/// Type 4 Capability Container values T4T does not allow (`CapabilityContainer4.valueProblems`:
/// MLe below 000Fh, MLc 0, a reserved NDEF file id, an RFU maximum file size or access byte,
/// the NDEF File Control TLV elsewhere than at offset 7).
///
/// - `t4t-cc-invalid-value` (warning, no Core NFC error): one finding per CC, naming every bad
///   value. Android's NDEF detection (AOSP libnfc-nci `rw_t4t_validate_cc_file`) refuses the
///   tag as not NDEF on any of them; other readers take the value as given (a tiny MLe makes
///   them read in tiny chunks).
enum Type4CCChecks {
  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
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
