/// Rule: more than one tag in the field.
///
/// Evidence: a UID that changes inside a session, a bit-oriented ANTICOLLISION (the reader
/// resolving a collision, `TagIdentity.resolvedCollisionFrame`), the tag's anticollision
/// answers with a bad BCC (two tags answering at once corrupt the UID; ISO/IEC 14443-3
/// §6.5.3, nfc-facts §1.2), or a session on another UID starting within 100 ms of the end of
/// the previous one (the reader alternates between tags; not random UIDs, which change at
/// every activation of one device), or a reader chip listing several targets (PN533 user
/// manual §8.4.5, InListPassiveTarget NbTg).
/// Code: `several-tags` (warning; no error: Core NFC's NFCNDEFReaderSession delivers several
/// tags to readerSession(_:didDetect:) and the app must restartPolling()).
enum SeveralTagsRule: DiagnosisRule {
  static let codes = ["several-tags"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var reasons: [String] = []
    var frames: [Int] = []
    if c.rf.uids.count > 1 {
      reasons.append(
        "the UID changed during the session (\(c.rf.uids.map { Hex.uid($0.uid) }.joined(separator: ", ")))"
      )
      frames += c.rf.uids.map(\.frame)
    }
    if let frame = c.session.tag.resolvedCollisionFrame {
      reasons.append(
        "the reader resolved a collision bit by bit (an ANTICOLLISION with known UID bits, sent "
          + "only after two answers collided)")
      frames.append(frame)
    }
    if !c.rf.listedTargets.isEmpty {
      reasons.append(
        "the reader chip listed another target beside this tag (PN53x InListPassiveTarget / "
          + "InAutoPoll with 2 targets)")
      frames += c.rf.listedTargets.prefix(3)
    }
    if !c.rf.badBCC.isEmpty {
      reasons.append("\(c.rf.badBCC.count) anticollision answer(s) with a bad BCC")
      frames += c.rf.badBCC.prefix(3)
    }
    // Random UIDs (4 bytes from 08h, ISO/IEC 14443-3 §6.5.4: a phone emulating a card) change
    // at every activation: one device, not two tags.
    if let p = c.previous, !p.tag.uid.isEmpty, !c.session.tag.uid.isEmpty,
      p.tag.uid != c.session.tag.uid,
      !(Self.isRandom(p.tag.uid) && Self.isRandom(c.session.tag.uid)),
      c.session.info.startNs.saturatingMinus(p.info.endNs) <= 100_000_000
    {
      reasons.append(
        "session \(p.info.index) on \(p.tag.uidString ?? "") ended just before this one on "
          + "\(c.session.tag.uidString ?? "")")
      frames += [p.info.lastFrame, c.session.info.firstFrame]
    }
    guard !reasons.isEmpty else { return [] }
    frames.sort()
    return [
      DiagnosisFinding(
        code: "several-tags", severity: .warning,
        operation: frames.first.flatMap { c.operation(at: $0) },
        frames: frames, cause: "more than one tag seems to be in the field",
        message: "Signs of several tags: " + reasons.joined(separator: "; ")
          + ". With two tags in the field the phone may talk to the wrong one or lose both.",
        coreNFCError: nil,
        fix: "In readerSession(_:didDetect:), when tags.count > 1, set session.alertMessage "
          + "(\"More than one tag detected\") and call session.restartPolling(); ask the user "
          + "to present a single tag.")
    ]
  }

  private static func isRandom(_ uid: [UInt8]) -> Bool { uid.count == 4 && uid[0] == 0x08 }
}
