/// What a PWD_AUTH refused with NAK 4 says, given what the trace shows of AUTHLIM.
///
/// Sources disagree on NAK 4 (nfc-facts §4.2, §10: "auth-counter/not allowed"): NTAG21x
/// references read it as the authentication counter overflowing (the count of wrong passwords
/// reached AUTHLIM, after which every PWD_AUTH is refused), while ChameleonMini's NTAG21x
/// emulation answers any wrong password with it. AUTHLIM is CFG1's ACCESS bits 2–0, 0 =
/// unlimited (NTAG213/215/216 datasheet §8.5.7; MF0ULx1 §8.5.7; nfc-facts §4.5), and an
/// accepted PWD_AUTH resets the count (NTAG213/215/216 datasheet §8.8, limiting negative
/// verification attempts). So NAK 4 is the limit only when AUTHLIM is set and the count could
/// have reached it; AUTHLIM n allows at least n wrong passwords.
enum Type2AuthLimit {
  /// AUTHLIM 0 read: no limit, the password sent is wrong (`frame` showed ACCESS).
  case unlimited(frame: Int?)
  /// AUTHLIM `limit` read, but a PWD_AUTH accepted at `accepted` reset the count and only
  /// `wrongSince` wrong passwords followed before this one: at least `limit` are allowed, so
  /// the limit is not reached.
  case notReached(limit: Int, frame: Int?, accepted: Int, wrongSince: Int)
  /// AUTHLIM `limit` (non-zero) read and nothing shows the count below it.
  case mayBeReached(limit: Int, frame: Int?)
  /// ACCESS not read: CFG1 is page `cfg1Page` when the product is identified.
  case unknown(cfg1Page: Int?)

  /// NAK 4's label where sources disagree (nfc-facts §10).
  static let label = "NAK 4 (auth-counter/not allowed)"

  /// The evidence for the PWD_AUTH `refused`, from ACCESS as it stood then.
  static func at(
    _ refused: SessionCommandLog.Command, _ c: DiagnosisContext, _ g: Type2Geometry
  ) -> Type2AuthLimit {
    guard let cfg0 = g.cfg0Page else { return .unknown(cfg1Page: nil) }
    guard let (access, from) = g.byte((cfg0 + 1) * 4, at: refused.frame, writes: c.log.commands)
    else { return .unknown(cfg1Page: cfg0 + 1) }
    let limit = Int(access & 0x07)
    if limit == 0 { return .unlimited(frame: from) }
    if let accepted = c.log.packFrames.last(where: { $0 < refused.frame }) {
      let wrong = c.log.commands.filter {
        $0.name == "PWD_AUTH" && $0.refused && $0.frame > accepted && $0.frame < refused.frame
      }.count
      if wrong < limit {
        return .notReached(limit: limit, frame: from, accepted: accepted, wrongSince: wrong)
      }
    }
    return .mayBeReached(limit: limit, frame: from)
  }

  /// Whether the trace shows the refusal is a wrong password, not the limit.
  var wrongPassword: Bool {
    switch self {
    case .unlimited, .notReached: return true
    case .mayBeReached, .unknown: return false
    }
  }

  /// The frames that showed ACCESS.
  var frames: [Int] {
    switch self {
    case .unlimited(let f), .notReached(_, let f, _, _), .mayBeReached(_, let f):
      return [f].compactMap { $0 }
    case .unknown: return []
    }
  }

  private static func cfg1(_ frame: Int?) -> String {
    "ACCESS (CFG1" + (frame.map { ", read at #\($0)" } ?? "") + ")"
  }

  private static func cfg1Page(_ page: Int?) -> String {
    page.map { "CFG1, page \(Type2Geometry.page($0))" } ?? "CFG1"
  }

  /// The sources' disagreement, in one sentence.
  static let disputed =
    "Sources disagree on NAK 4: NTAG21x references read it as the authentication counter "
    + "reaching AUTHLIM, while ChameleonMini's NTAG21x emulation answers any wrong password "
    + "with it."

  /// What the refusal most likely is, in a finding's cause: "a wrong password", "most likely
  /// its authentication limit (AUTHLIM n) is reached", or both possibilities.
  var likelyCause: String {
    switch self {
    case .unlimited, .notReached: return "a wrong password"
    case .mayBeReached(let n, _):
      return "most likely its authentication limit (AUTHLIM \(n)) is reached"
    case .unknown: return "a wrong password, or its authentication limit (AUTHLIM) reached"
    }
  }

  /// What the evidence says of the refusal.
  var reason: String {
    switch self {
    case .unlimited(let f):
      return Self.cfg1(f) + " has AUTHLIM 0 (unlimited): no limit of wrong passwords applies, "
        + "so none was reached and the password sent is not the tag's."
    case .notReached(let limit, let f, let accepted, let wrong):
      return Self.cfg1(f) + " sets AUTHLIM \(limit), but the tag accepted PWD_AUTH at "
        + "#\(accepted) (which resets the count of wrong passwords) and only \(wrong) "
        + "refused PWD_AUTH followed before this one: the limit is not reached, so the "
        + "password sent is not the tag's."
    case .mayBeReached(let limit, let f):
      return Self.cfg1(f) + " sets AUTHLIM \(limit): once its count of wrong passwords "
        + "(kept across sessions, reset only by an accepted PWD_AUTH) reaches the limit, the "
        + "tag refuses every PWD_AUTH, the right password too. That is the likely cause here, "
        + "not a proven one: a tag that answers a plain wrong password with NAK 4 looks the same."
    case .unknown(let page):
      return "The trace does not show ACCESS (\(Self.cfg1Page(page))), so two causes remain: "
        + "the password sent is wrong, or — if AUTHLIM is set — the count of wrong passwords "
        + "reached it and the tag refuses every PWD_AUTH, the right password too."
    }
  }

  /// The fix in Core NFC terms; `then` names what follows the accepted PWD_AUTH.
  func fix(then: String) -> String {
    let retry =
      "reconnect (restartPolling() or connect(to:): a tag that refused PWD_AUTH ignores "
      + "commands until it is activated again), send the tag's right password with "
      + "sendMiFareCommand(commandPacket: [0x1B] + password), check the 2-byte PACK, then "
      + then + "."
    switch self {
    case .unlimited, .notReached:
      return "Send the right password: " + retry
    case .mayBeReached:
      return "First rule out a wrong password: " + retry + " If the right password is refused "
        + "too, the tag's password protection is locked for good: pages behind AUTH0 cannot be "
        + "written (or, with PROT set, read) any more; use another tag. Keep apps from "
        + "retrying a wrong password when AUTHLIM is set."
    case .unknown(let page):
      return "First rule out a wrong password: " + retry + " If the right password is refused "
        + "too, AUTHLIM is reached and the protected pages cannot be written (or, with PROT "
        + "set, read) any more; use another tag. Reading \(Self.cfg1Page(page)) (ACCESS: "
        + "AUTHLIM 0 = unlimited) tells the two apart; keep apps from retrying a wrong "
        + "password when AUTHLIM is set."
    }
  }
}
