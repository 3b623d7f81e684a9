/// Commands an original MIFARE Ultralight (MF0ICU1), an Ultralight C (MF0ICU2) or an NTAG203
/// does not have. Those tags answer no GET_VERSION (nfc-facts §4.6); GET_VERSION, READ_SIG,
/// FAST_READ, PWD_AUTH, the counters (READ_CNT, INCR_CNT, CHECK_TEARING_EVENT), VCSL and the
/// signature writes are NTAG21x / Ultralight EV1 commands (nfc-facts §4.1, §4.5: no CFG or
/// PWD pages on MF0ICU1). A Type 2 tag that does not know a command goes silent and back to
/// IDLE (NXP MF0ICU1 datasheet, ACTIVE state: any unexpected command sends the tag back to IDLE;
/// as `Type2Tag` simulates it), so its silence is the command's, not the tag leaving the field.
extension Type2Procedure {
  static let ev1Commands: Set<String> = [
    "READ_SIG", "FAST_READ", "PWD_AUTH", "READ_CNT", "INCR_CNT", "CHECK_TEARING_EVENT", "VCSL",
    "WRITE_SIG", "LOCK_SIG",
  ]

  /// Why the tag did not answer `d`, when it is a command the tag is known not to have (it did
  /// not answer GET_VERSION, or it is an Ultralight C); nil otherwise.
  func unsupported(_ d: LayerDecode, tag: TagIdentity) -> String? {
    guard d.protocolID == .type2, Self.ev1Commands.contains(d.name), tag.ntagProduct == nil
    else { return nil }
    let known: String
    if tag.isUltralightC {
      known = "a MIFARE Ultralight C, which lacks"
    } else if getVersionRefused {
      known =
        "it did not answer GET_VERSION: a MIFARE Ultralight, Ultralight C or NTAG203, "
        + "which lack"
    } else {
      return nil
    }
    return "\(d.name) not answered: the tag has no \(d.name) (\(known) the NTAG21x / "
      + "Ultralight EV1 commands); a Type 2 tag goes idle on a command it does not know"
  }
}
