/// Rule: the capture holds the reader's side of the session only.
///
/// Evidence: no tag frame in the session (`SessionAnalysis.tagHeard` false), which the
/// session stage opened from reader commands sent only to a tag that answered (anticollision,
/// SELECT, Type 2 or ISO-DEP commands). Whether any command was answered is unknown, so no
/// other rule may judge the session: an unanswered frame here says nothing of the tag.
/// Code: `tag-not-captured` (warning, no Core NFC error: the app's error cannot be inferred).
enum TagNotHeardRule: DiagnosisRule {
  static let codes = ["tag-not-captured"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard !c.session.tagHeard else { return [] }
    let writes = c.log.commands.count
    var sent = "the reader's commands"
    if writes > 0 { sent += " (including \(writes) write(s), shown in the report's memory)" }
    return [
      DiagnosisFinding(
        code: "tag-not-captured", severity: .warning, operation: nil,
        frames: [c.session.info.firstFrame],
        cause: "the capture holds no frame of the tag in this session",
        message: "No frame of the tag was captured in this session, only \(sent). The reader "
          + "talked to a tag (it sent commands that follow an answer, such as anticollision "
          + "and SELECT), but whether each command was answered, refused or lost is unknown, "
          + "so no operation is judged.",
        coreNFCError: nil,
        fix: "Capture again with the sniffer's antenna closer to the tag than to the phone (it "
          + "must pick up the tag's load modulation), or capture on the tag's side.")
    ]
  }
}
