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
///
/// Also: the tag answered a chained I-block of the reader with an I-block before the chain's
/// last part (operation details `chain_answered`, the tag's I-block, and `chain_part`, the
/// reader's last chained block before it; ISO/IEC 14443-4 §7.5.2: a
/// PICC acknowledges each chained block with R(ACK)). Code `chain-answered-early`: warning,
/// no Core NFC error (the capture may have missed the chain's later parts and their R(ACK)s,
/// or the tag broke the rule; what the command asked is not known).
enum BlockNumberRule: DiagnosisRule {
  static let codes = ["wrong-block-number", "chain-answered-early"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    wrongNumbers(c) + chainsAnsweredEarly(c)
  }

  private static func chainsAnsweredEarly(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i in
      let op = c.session.operations[i]
      guard case .int(let answer)? = op.detail("chain_answered") else { return nil }
      var part: [Int] = []
      if case .int(let f)? = op.detail("chain_part") { part = [f] }
      return DiagnosisFinding(
        code: "chain-answered-early", severity: .warning, operation: i,
        frames: part + [answer],
        cause: "the tag answered the reader's chained command before its last part",
        message: "The reader sent its command in chained I-blocks (chaining bit set), and the "
          + "tag answered with an I-block (frame \(answer)) where ISO/IEC 14443-4 §7.5.2 asks "
          + "for R(ACK) until the last part. Either the capture missed the chain's later parts "
          + "and their R(ACK)s, or the tag broke the chaining rule; the command was never seen "
          + "whole, so what it asked, and whether the tag carried it out, is not known.",
        coreNFCError: nil,
        fix: "Capture again with the sniffer closer to the phone to see the whole chain. If the "
          + "tag does answer a chained block with an I-block, its ISO-DEP layer is broken "
          + "(an HCE or emulator app: its chaining); send APDUs that fit in one frame (within "
          + "the FSC of the ATS) to avoid chaining.")
    }
  }

  private static func wrongNumbers(_ c: DiagnosisContext) -> [DiagnosisFinding] {
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
