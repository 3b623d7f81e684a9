extension CapabilityContainer4 {
  /// NDEF file identifiers a CC may not name: `E102` and `E103` (the CC file itself), `3F00`
  /// (the MF), `3FFF` and `FFFF` (reserved by ISO/IEC 7816-4), and `0000` from mapping 2.0
  /// on. The list Android's libnfc-nci `rw_t4t_validate_cc_file` refuses (T4T 2.0 §5.1.2.1).
  static func isReservedFileID(_ id: UInt16, mappingVersion: UInt8) -> Bool {
    switch id {
    case 0xE102, 0xE103, 0x3F00, 0x3FFF, 0xFFFF: return true
    case 0x0000: return mappingVersion >> 4 >= 2
    default: return false
    }
  }

  /// Values a well-formed CC carries that T4T does not allow, each with its CC byte offset;
  /// empty for a valid CC. The CC still parses: these are the values a reader following T4T
  /// refuses (Android's libnfc-nci ends NDEF detection on any of them, so the tag is not
  /// NDEF there) while others use them as given.
  ///
  /// Checked (T4T 2.0 §5.1.2; libnfc-nci `rw_t4t_validate_cc_file`): MLe at least `000F`,
  /// MLc at least `0001`, the NDEF file id not reserved, the maximum NDEF file size at least
  /// 5 and not all ones, and the access bytes not `01`–`7F` (RFU); the Extended NDEF File
  /// Control TLV (`06`) only in a mapping 3.0 CC (T4T 3.0 §5.1.2); the NDEF File Control TLV
  /// at offset 7 (T4T §5.1; libnfc-nci reads it there only).
  public var valueProblems: [CapabilityContainerError] {
    var problems: [CapabilityContainerError] = []
    if mle < 0x0F {
      problems.append(
        CapabilityContainerError(
          offset: 3, "MLe \(mle) is below 15 (000Fh), the least a Type 4 tag may declare"))
    }
    if mlc == 0 {
      problems.append(CapabilityContainerError(offset: 5, "MLc 0 is RFU: the least is 1"))
    }
    if ndefFile.tlvType == 0x06, mappingVersion >> 4 < 3 {
      problems.append(
        CapabilityContainerError(
          offset: ndefControlOffset,
          "the Extended NDEF File Control TLV (06h) exists from mapping version 3.0 only; a "
            + "\(mappingVersion >> 4).\(mappingVersion & 0x0F) CC names its NDEF file with TLV 04h"
        ))
    }
    if ndefControlOffset != 7 {
      // T4T 2.0/3.0 §5.1 place the NDEF File Control TLV at offset 0007h, other TLVs after it;
      // libnfc-nci (rw_t4t.cc, T4T_FC_TLV_OFFSET_IN_CC) reads it there only.
      problems.append(
        CapabilityContainerError(
          offset: ndefControlOffset,
          "the NDEF File Control TLV is at offset \(ndefControlOffset), not 7 where T4T places "
            + "it (readers that look for it there only, such as Android's, reject this CC)"))
    }
    problems += fileControlProblems(ndefFile, at: ndefControlOffset)
    return problems
  }

  private func fileControlProblems(_ f: FileControl, at tlv: Int) -> [CapabilityContainerError] {
    var problems: [CapabilityContainerError] = []
    if Self.isReservedFileID(f.fileID, mappingVersion: mappingVersion) {
      let id = Hex.string([UInt8(f.fileID >> 8), UInt8(f.fileID & 0xFF)]).uppercased()
      problems.append(
        CapabilityContainerError(
          offset: tlv + 2, "NDEF file id \(id) is reserved (E102, E103, 3F00, 3FFF, FFFF, 0000)"
        ))
    }
    let allOnes = f.lengthFieldSize == 4 ? 0xFFFF_FFFF : 0xFFFF
    if f.maxSize < 5 || f.maxSize == allOnes {
      problems.append(
        CapabilityContainerError(
          offset: tlv + 4,
          "maximum NDEF file size \(f.maxSize) is RFU (valid: 5 to \(allOnes - 1))"))
    }
    let accessAt = tlv + 2 + (f.lengthFieldSize == 4 ? 6 : 4)
    for (name, value, at) in [
      ("read", f.readAccess, accessAt), ("write", f.writeAccess, accessAt + 1),
    ] where (0x01...0x7F).contains(value) {
      problems.append(
        CapabilityContainerError(
          offset: at, "\(name) access \(Hex.string([value])) is RFU (00, 80–FE or FF)"))
    }
    return problems
  }
}
