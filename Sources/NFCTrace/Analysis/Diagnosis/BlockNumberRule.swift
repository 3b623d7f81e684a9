/// Rule: the tag answered an ISO-DEP command with an I-block of the wrong block number.
///
/// Evidence: the operation's details `wrong_block_number` (the tag's I-block) and
/// `wrong_block_command` (the reader's command it answers), set by the session analyzer once
/// the reader's next blocks show what it did (ISO/IEC 14443-4 §7.5.3.2: a tag answers with the
/// number of the reader's I-block; §7.5.4.2: a reader takes only an I-block of its own number).
/// Code `wrong-block-number`: error, Core NFC 102 readerTransceiveErrorTagResponseError,
/// when the reader refused it with R(NAK) and ended the exchange (the operation failed);
/// warning without an error when the reader took it anyway (it went on with a toggled I-block
/// or an R(ACK)): another reader may not.
enum BlockNumberRule: DiagnosisRule {
  static let codes = ["wrong-block-number"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in
      let op = c.session.operations[i]
      guard case .int(let frame)? = op.detail("wrong_block_number") else { return nil }
      let failed = op.outcome == .failed
      var command: Int?
      if case .int(let f)? = op.detail("wrong_block_command") { command = f }
      let answered = command.map { "the reader's command (frame \($0))" } ?? "a command"
      return DiagnosisFinding(
        code: "wrong-block-number", severity: failed ? .error : .warning, operation: i,
        frames: (command.map { [$0] } ?? []) + [frame],
        cause: "the tag answered with the wrong ISO-DEP block number"
          + (failed ? "" : ", which this reader tolerated"),
        message: "The tag answered \(answered) with an I-block whose block number is not the "
          + "one of the reader's I-block (ISO/IEC 14443-4 §7.5.3.2). A reader must not take "
          + "such a block as the answer"
          + (failed
            ? ": this one refused it (R(NAK)) and ended the exchange, so the app got an error, "
              + "not the answer."
            : ". This reader took it anyway (it went on without R(NAK)); a reader that keeps to "
              + "the rules, such as another phone, fails here with a tag response error."),
        coreNFCError: failed ? .tagResponseError : nil,
        fix: "The tag (or the card emulation serving it) breaks ISO-DEP block numbering: it "
          + "must answer every I-block with that block's number. Update its firmware (an HCE "
          + "or emulator app: its ISO-DEP layer), or use another tag; the app cannot work "
          + "around it.")
    }
  }
}
