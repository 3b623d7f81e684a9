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
}
