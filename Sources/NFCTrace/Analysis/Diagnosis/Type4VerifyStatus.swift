/// What a refused VERIFY means, for `Type4StatusRule`: the password (PIN) sent was wrong, or
/// its retry counter is used up (ISO/IEC 7816-4 §11.5.6; ST25TA datasheet §5.8.2).
extension Type4StatusRule {
  /// VERIFY (INS 20, ISO/IEC 7816-4 §11.5.6) refused: the password or PIN was wrong (63Cx: x
  /// tries left; 6300: no counter given), or the tries are used up (6983). ST25TA / M24SR take
  /// the 16-byte read (P2 01) or write (P2 02) password this way (ST25TA datasheet §5.8.2).
  static func verifyExplanation(_ cmd: SessionCommandLog.Command, sw: String) -> (
    code: String, cause: String, message: String, fix: String
  )? {
    let upper = sw.uppercased()
    guard upper == "6300" || upper.hasPrefix("63C") || upper == "6983" else { return nil }
    let which = verifyTarget(cmd)
    if upper == "6983" {
      return (
        "apdu-refused", "the \(which) is blocked: no tries left",
        "The tag answered 6983 (authentication method blocked) to \(cmd.summary): too many "
          + "wrong tries used up its retry counter, and it refuses every VERIFY now.",
        "Unblock it with the vendor's procedure (for ST25TA, the tag cannot be unblocked: the "
          + "protected files stay protected); stop sending passwords that are not the tag's."
      )
    }
    let tries =
      upper.count == 4 && upper.hasPrefix("63C") ? Int(String(upper.last ?? "0"), radix: 16) : nil
    let left =
      tries.map {
        $0 == 0
          ? ", no tries left: it is blocked now"
          : ", \($0) tr\($0 == 1 ? "y" : "ies") left before it blocks"
      } ?? ""
    // VERIFY with no data (Lc absent) asks whether verification is needed: 63Cx says it is.
    if cmd.data.isEmpty {
      return (
        "apdu-refused", "the \(which) is required (not yet presented)\(left)",
        "The tag answered \(sw) to \(cmd.summary): a VERIFY without a password asks whether "
          + "one is needed, and this answer says it is (not yet presented in this session)"
          + "\(left).",
        "Send VERIFY with the password (Lc 10 and the 16-byte password for ST25TA) before the "
          + "protected access."
      )
    }
    return (
      "apdu-refused", "wrong \(which)\(left)",
      "The tag answered \(sw) (verification failed) to \(cmd.summary): the password sent is "
        + "not the tag's\(left). Each wrong try counts down the tag's retry counter.",
      "Send the tag's \(which); do not retry in a loop, or the counter blocks it for good."
    )
  }

  /// "read password" (P2 01) or "write password" (P2 02) on ST25TA / M24SR; else "password".
  private static func verifyTarget(_ cmd: SessionCommandLog.Command) -> String {
    switch cmd.p2 {
    case 0x01?: return "read password"
    case 0x02?: return "write password"
    default: return "password"
    }
  }

  /// The last VERIFY of a write (or unnamed) password since the tag's last activation before
  /// `cmd`, when the tag refused it (63Cx, 6300, 6983): no VERIFY it accepted came after it, so
  /// the write access the password opens was never granted (ISO/IEC 7816-4 §11.5.6; ST25TA
  /// datasheet §5.8.2: P2 02 the write password, P2 01 the read password).
  static func refusedVerify(before cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> SessionCommandLog.Command?
  {
    let activation = c.log.activations.last { $0 < cmd.frame } ?? Int.min
    guard
      let last = c.log.verifications.last(where: {
        $0.frame > activation && $0.frame < cmd.frame && $0.p2 != 0x01
      }), case .sw(let sw) = last.answer
    else { return nil }
    let upper = sw.uppercased()
    return upper == "6300" || upper.hasPrefix("63C") || upper == "6983" ? last : nil
  }

  /// 6982 to an UPDATE BINARY after `verify`, a VERIFY the tag refused: the password sent was
  /// wrong (63Cx: x tries left) or blocked (6983), so the write stays locked. Core NFC's
  /// writeNDEF sends no VERIFY, so both APDUs were the app's own sendCommand(apdu:), which
  /// returns the status word and raises no NFCReaderError.
  static func wrongPassword(_ cmd: SessionCommandLog.Command, _ verify: SessionCommandLog.Command)
    -> (code: String, cause: String, message: String, fix: String)
  {
    guard case .sw(let sw) = verify.answer else {
      return ("t4t-write-password-wrong", "", "", "")
    }
    let upper = sw.uppercased()
    let which = verifyTarget(verify)
    let tries =
      upper.count == 4 && upper.hasPrefix("63C") ? Int(String(upper.last ?? "0"), radix: 16) : nil
    let verdict: String
    switch (upper, tries) {
    case ("6983", _): verdict = "the \(which) is blocked (no tries left)"
    case (_, 0?): verdict = "wrong \(which), no tries left: it is blocked now"
    case (_, let n?): verdict = "wrong \(which), \(n) tr\(n == 1 ? "y" : "ies") left"
    default: verdict = "wrong \(which)"
    }
    let left =
      switch (upper, tries) {
      case ("6983", _), (_, 0?):
        " The password is blocked now: no VERIFY opens the file any more (ST25TA cannot be "
          + "unblocked)."
      case (_, let n?):
        " Only \(n) tr\(n == 1 ? "y is" : "ies are") left before the tag blocks the password "
          + "for good (6983)."
      default: ""
      }
    return (
      "t4t-write-password-wrong",
      "the \(which) sent with VERIFY at #\(verify.frame) was refused (SW \(sw)): \(verdict)",
      "The tag answered 6982 (security status not satisfied) to \(cmd.summary) because the "
        + "write was never unlocked: the VERIFY at #\(verify.frame) (\(verify.summary)) was "
        + "answered \(sw) — \(verdict) (ISO/IEC 7816-4 §11.5.6) — and no VERIFY the tag "
        + "accepted came before the UPDATE. The password was sent; it is not the tag's. "
        + "Core NFC's writeNDEF sends no VERIFY (and on a tag whose CC puts writing under a "
        + "proprietary condition it reports .readOnly and does not write), so the VERIFY and "
        + "the UPDATE were the app's own sendCommand(apdu:), which returns the status word and "
        + "raises no NFCReaderError.",
      "Send VERIFY with the tag's right \(which) (ST25TA: 00 20 00 02 10 + the 16-byte "
        + "password) and go on to UPDATE BINARY only after it answers 9000; do not retry with "
        + "the same password." + left
    )
  }
}
