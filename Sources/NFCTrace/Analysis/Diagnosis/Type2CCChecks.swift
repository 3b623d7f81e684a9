/// Type 2 Capability Container values a reader takes at face value although the tag cannot
/// honour them (NFC Forum T2T 1.0 §6.1, CC page 3; nfc-facts §5.3).
///
/// - `t2t-read-access-restricted` (warning): CC3's read-access nibble is not 0h. Only 0h grants
///   read access; Android's NDEF detection accepts CC3 00h or 0Fh only (AOSP libnfc-nci
///   `rw_t2t_handle_cc_read_rsp`), nfcpy does not read the message otherwise.
/// - `t2t-cc-exceeds-memory` (warning): CC2 × 8 is larger than the identified product's user
///   memory (NXP datasheets, nfc-facts §4.3): the capacity queryNDEFStatus reports is not
///   there, and a long write runs into the lock and configuration pages (refused only past the
///   last page). The CC is one-time
///   programmable (bits can only be set), so it cannot be corrected.
enum Type2CCChecks {
  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.type4CC == nil else { return [] }
    let g = Type2Geometry(c.session)
    guard let cc = g.cc, cc.hasMagic else { return [] }
    let frame = c.session.memory.type2End.frame(12)
    let op = frame.flatMap { c.operation(at: $0) }
    // Both findings point at the READ that delivered the CC.
    func warning(_ code: String, cause: String, message: String, fix: String) -> DiagnosisFinding {
      DiagnosisFinding(
        code: code, severity: .warning, operation: op, frames: frame.map { [$0] } ?? [],
        cause: cause, message: message, coreNFCError: nil, fix: fix)
    }
    var out: [DiagnosisFinding] = []
    if cc.readAccess != 0 {
      out.append(
        warning(
          "t2t-read-access-restricted",
          cause: "the CC does not grant read access to the NDEF message",
          message: "CC3 = \(Hex.string([cc.bytes[3]])): its read-access nibble is "
            + "\(String(cc.readAccess, radix: 16, uppercase: true))h, and only 0h grants read access (NFC Forum T2T 1.0 §6.1). "
            + "Android's NDEF detection fails on it (it accepts CC3 00h or 0Fh only) and nfcpy "
            + "does not read the message; other readers may still read it.",
          fix: "Format the tag with CC3 00h (read/write) or 0Fh (read-only); the CC's bits can "
            + "only be set, so a tag whose read nibble is set cannot be restored."))
    }
    if let user = g.userBytes, cc.dataAreaSize > user,
      let product = c.session.tag.ntagProduct
    {
      // TLVs before the NDEF TLV (a Lock Control TLV on NTAG213) take user memory too.
      let tlvStart = c.session.memory.type2Area?.ndefLengthAddress.map { $0 - 1 } ?? 16
      let before = max(0, min(tlvStart - 16, user))
      out.append(
        warning(
          "t2t-cc-exceeds-memory", cause: "the CC declares more NDEF memory than the tag has",
          message: "CC2 = \(Hex.string([cc.bytes[2]])) declares a \(cc.dataAreaSize)-byte data "
            + "area, but the \(product.displayName) has \(user) bytes of user memory. "
            + "queryNDEFStatus reports a capacity the tag does not have, and a long write runs "
            + "past the user memory into the dynamic lock and configuration pages (lock bits, "
            + "AUTH0), which accept it: only pages past the tag's last page are refused (NAK).",
          fix: "Keep messages within \(Self.largestMessage(user - before)) bytes on this tag (its "
            + "user memory less "
            + (before > 0 ? "the \(before) bytes of TLVs before the NDEF TLV and " : "")
            + "the NDEF TLV's T and L bytes). The CC is one-time programmable (bits can only be "
            + "set), so it cannot be corrected; use a correctly formatted tag for larger "
            + "messages."))
    }
    return out
  }

  /// The longest message `user` bytes hold after the NDEF TLV's T and L: a 1-byte L up to 254,
  /// the 3-byte form (FF hi lo) from 255 on (NFC Forum T2T 1.0 §2.3).
  static func largestMessage(_ user: Int) -> Int {
    user - 2 <= 254 ? user - 2 : user - 4
  }
}
