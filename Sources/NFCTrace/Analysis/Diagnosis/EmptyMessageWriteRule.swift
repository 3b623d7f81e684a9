/// Rule: a writeNDEF that completed with the NDEF length set to 0 — the tag now holds an
/// empty NDEF message, and did not before (or the session did not see what it held).
///
/// Evidence: the operation succeeded (every write acknowledged, none left unfinished) and the
/// NDEF length field it wrote last says 0 (`NDEFWriteState`: Type 2 NDEF Message TLV `03 00`,
/// NFC Forum T2T 1.0 §2.3; Type 4 NLEN/ENLEN 0, T4T 2.0 §5.4). An erase or a format does
/// this on purpose; a writer that stopped after the length-last procedure's first step
/// (length 0, then data, then the length) does it by mistake. Either way, readNDEF on the
/// tag now fails with 403 (nfc-facts §5.1, §8.3).
/// Code: `ndef-erased` (warning; no Core NFC error for the write itself).
enum EmptyMessageWriteRule: DiagnosisRule {
  static let codes = ["ndef-erased"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      guard op.kind == .writeNDEF, op.outcome == .ok,
        let st = NDEFWriteState.after(op, in: c.session, log: c.log),
        st.shape == .empty, st.lengthWrittenHere, let frame = st.lengthFrame,
        // A tag found empty loses nothing: the write kept it as it was.
        !InterruptedWriteRule.startedEmpty(
          c, st, type2: c.session.type4CC == nil && !c.session.tag.isISODEP)
      else { return nil }
      let wroteData = c.commands(in: i).contains { $0.isWrite && $0.accepted && $0.frame != frame }
      return DiagnosisFinding(
        code: "ndef-erased", severity: .warning, operation: i, frames: [frame],
        cause: "the write left the \(st.lengthName) at 0: the tag holds an empty NDEF message",
        message:
          "The writeNDEF operation completed with the \(st.lengthName) set to 0"
          + (wroteData ? "" : ", and no message data was written")
          + ": the tag now holds an empty NDEF message, and readNDEF on it fails with error "
          + "403 (ndefReaderSessionErrorZeroLengthMessage). That is what an erase or a format "
          + "does; a write that was meant to store a message stopped after the first step of "
          + "the length-last procedure (length 0, then the data, then the real length).",
        coreNFCError: nil,
        fix: "If the tag should hold a message, write it again with "
          + "NFCNDEFTag.writeNDEF(_:completionHandler:) and a non-empty NFCNDEFMessage; an app "
          + "writing pages/APDUs itself must finish with the real length.")
    }
  }
}
