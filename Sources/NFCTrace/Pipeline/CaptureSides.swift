/// Counts the reader's and the tag's frames of a trace, to tell a capture that holds only
/// one side of the exchange: a sniffer whose antenna picks up the reader's field but not the
/// tag's load modulation records commands only; one that misses the reader's modulation
/// records answers only. Either way the frames decode alone, and the user must be told why
/// nothing pairs.
///
/// A reader polling an empty field (REQA, REQB, …) gets no answer either: commands without
/// answers say the tag's answers were missed only when the reader sent commands it sends
/// only to a tag that answered (anticollision, SELECT, READ, HLTA…).
struct CaptureSides: Sendable {
  private var reader = 0
  private var afterAnswer = 0
  private var tag = 0
  private var firstLocation: SourceLocation?
  /// True once a frame carried its CRC as sent on the air: a sniffer's capture, not a log of
  /// what a reader chip passed to its host (which strips CRCs).
  private var sniffed = false

  /// Reader frames that poll: sent whether or not a tag is there.
  private static let polls: Set<String> = ["REQB", "WUPB", "Slot-MARKER", "ECP", "MagSafe WUPA"]

  /// Source flags of a tag frame the reader reported rather than received as an answer.
  private static let reported: Set<String> = [
    ReaderChipFlag.targetInfo, ReaderChipFlag.uid, ReaderChipFlag.atr,
  ]

  /// Fewer data frames than this say nothing of the capture (a lone poll).
  static let minimumFrames = 4

  /// Takes one frame of the trace, in order.
  mutating func count(_ f: DecodedFrame) {
    switch f.frame.direction {
    case .reader:
      reader += 1
      // One such command settles it; the name lookup is skipped on the hot path after that.
      if afterAnswer == 0, !f.startsActivation, let name = f.innermost?.name,
        !Self.polls.contains(name)
      {
        afterAnswer += 1
      }
    case .tag:
      // What a reader chip reports of an activation it ran itself (a PN53x's or an NFC
      // controller's ATQA, SAK, ATS; a PC/SC reader's UID) stands for no command on this log:
      // a log of polls holds only those, with no reader frame, and nothing was missed.
      if !f.frame.sourceFlags.isEmpty, f.frame.sourceFlags.contains(where: Self.reported.contains) {
        return
      }
      tag += 1
    case .event: return
    }
    if f.frame.crc == .ok || f.frame.crc == .bad { sniffed = true }
    if firstLocation == nil { firstLocation = f.frame.location }
  }

  /// The warning for a trace with one side only, once every frame was counted; else nil.
  var warning: TraceWarning? {
    if tag == 0, reader >= Self.minimumFrames, afterAnswer > 0 {
      return TraceWarning(
        "the trace has \(reader) reader frames and no tag frame, but the reader sent commands "
          + "(anticollision, SELECT, …) that it sends only to a tag that answered: "
          + (sniffed
            ? "the capture missed the tag's answers (a sniffer antenna that picks up the "
              + "reader's field but not the tag's load modulation; move it closer to the tag)"
            : "the tag's answers are missing from this reader-side log or capture (it kept only "
              + "what the host sent)")
          + ". Commands are shown as unanswered, but whether the tag answered is unknown",
        location: firstLocation)
    }
    if reader == 0, tag >= Self.minimumFrames {
      return TraceWarning(
        "the trace has \(tag) tag frames and no reader frame: the capture missed the reader's "
          + "commands, so the tag's answers cannot be read as answers to them; capture both "
          + "directions", location: firstLocation)
    }
    return nil
  }
}
