/// Rule: a WRITE of the CC (page 3) took the tag's NDEF magic away.
///
/// Evidence: an acknowledged WRITE of page 3 of a Type 2 tag whose first byte sets a bit that
/// E1h (the NDEF magic, NFC Forum T2T 1.0 §6.1) does not have. The CC is one-time programmable
/// (NXP NTAG213/215/216 datasheet §8.5.6: written bits are OR'ed into it), so CC0 can never be
/// E1h again, whatever it held: NFC Forum readers find no NDEF on the tag from then on
/// (queryNDEFStatus reports .notSupported). Cloning tools write a dump's own CC there (an
/// amiibo's `F1 10 FF EE`).
/// Code: `t2t-cc-magic-lost` (warning; no Core NFC error for the write itself, which the tag
/// acknowledged; the operation's verdict becomes succeeded-with-bad-content).
enum Type2CCMagicRule: DiagnosisRule {
  static let codes = ["t2t-cc-magic-lost"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard c.session.tag.isType2, c.session.type4CC == nil, !c.session.tag.isMIFAREClassic,
      let w = c.log.commands.first(where: {
        $0.isWrite && $0.page == 3 && $0.accepted && $0.data.count >= 4
          && $0.data[0] & ~0xE1 != 0
      })
    else { return [] }
    let op = c.operation(at: w.frame)
    let cc = Hex.string(Array(w.data.prefix(4)), separator: " ")
    let magic = Hex.string([w.data[0]]).uppercased()
    var f = DiagnosisFinding(
      code: "t2t-cc-magic-lost", severity: .warning, operation: op,
      frames: [w.frame] + [w.answerFrame].compactMap { $0 },
      cause: "the write put \(magic)h in CC0, where the NDEF magic E1h belongs",
      message: "The tag acknowledged a WRITE of page 3 (the capability container) ← \(cc). Its "
        + "first byte sets bits the NDEF magic E1h does not have, and the CC's bits can only be "
        + "set, never cleared (one-time programmable): CC0 can never read E1h again. NFC Forum "
        + "readers find no NDEF on this tag from now on: queryNDEFStatus reports .notSupported "
        + "and readNDEF fails.",
      coreNFCError: nil,
      fix: "Do not write page 3 when copying a dump to a tag (a dump carries its own CC, an "
        + "amiibo's F1 10 FF EE); NDEF data starts at page 4, and writeNDEF / writeLock write "
        + "the CC themselves. This tag cannot hold NDEF any more: use another one for NDEF.")
    f.effect = .badContent
    return [f]
  }
}
