/// Rule: the trace holds the tag's side of the session only, so nothing the app did can be
/// judged.
///
/// Evidence: no reader frame in the session (`SessionAnalysis.readerHeard` false) while the
/// tag was heard on the air (`tagOnAir`: a sniffer that picked up the tag's load modulation
/// but not the reader), or the log recorded the session's data packets without their payload
/// (`dataNotLogged`: an Android NFC snoop log not in full mode, NCI data packets with length
/// but no bytes). An activation a reader chip reported with no command after it and no
/// payload-less packet is a reader that sent nothing: not this rule.
/// Codes: `reader-not-captured`, `data-not-logged` (warnings, no Core NFC error: the app's
/// calls and their errors cannot be inferred).
enum ReaderNotHeardRule: DiagnosisRule {
  static let codes = ["reader-not-captured", "data-not-logged"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let s = c.session
    guard !s.readerHeard, s.tagHeard, s.dataNotLogged || s.tagOnAir else { return [] }
    if s.dataNotLogged {
      return [
        DiagnosisFinding(
          code: "data-not-logged", severity: .warning, operation: nil,
          frames: [s.info.firstFrame],
          cause: "the log recorded this session's data without its bytes",
          message: "The log shows the tag's activation, but the data the phone and the tag "
            + "exchanged after it was recorded without its bytes (an Android NFC snoop log "
            + "not in its full mode keeps only the length of each data packet): what was read "
            + "or written, and whether it succeeded, is not in the trace, so no operation is "
            + "judged.",
          coreNFCError: nil,
          fix: "Turn on \"NFC NCI unfiltered log\" in the phone's Developer options, reproduce "
            + "the failure, and capture the log again (adb shell dumpsys nfc, or a bug report).")
      ]
    }
    return [
      DiagnosisFinding(
        code: "reader-not-captured", severity: .warning, operation: nil,
        frames: [s.info.firstFrame],
        cause: "the capture holds no frame of the reader in this session",
        message:
          "Only the tag's frames were captured in this session (frames \(s.info.firstFrame)–\(s.info.lastFrame)): "
          + "what the reader sent — reads, writes, their order — is not in the trace, so no "
          + "operation is judged; the tag's answers alone do not say which command each "
          + "answers.",
        coreNFCError: nil,
        fix: "Capture again with the sniffer able to hear the reader (most sniffers hear the "
          + "phone's strong field easily: check the capture's direction filter and that the "
          + "reader-to-tag side was saved).")
    ]
  }
}
