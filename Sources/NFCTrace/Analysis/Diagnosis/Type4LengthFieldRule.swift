/// Rule: a Type 4 write put a 2-byte NLEN (T4T 2.0) at the start of an NDEF file whose CC
/// gives a 4-byte ENLEN (mapping 3.0, Extended NDEF File Control TLV `06`; NFC Forum T4T 3.0
/// §4.2, nfc-facts §6.2). Readers read the first 4 bytes as the length: the 2 bytes written
/// and the first 2 of the message, a length in the hundreds of thousands, and the message
/// from byte 4, not 2.
///
/// Evidence: an acknowledged UPDATE BINARY of exactly 2 bytes at offset 0 in a writeNDEF, on
/// a session whose CC names an extended NDEF file. Code: `t4t-nlen-size-mismatch` (error; no
/// Core NFC error: writeNDEF takes the field's size from the CC, so these were the app's own
/// sendCommand(apdu:) writes, which get the status word).
enum Type4LengthFieldRule: DiagnosisRule {
  static let codes = ["t4t-nlen-size-mismatch"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let cc = c.session.type4CC, cc.ndefFile.lengthFieldSize == 4 else { return [] }
    return c.writeOperations.compactMap { i in
      guard c.session.operations[i].kind == .writeNDEF,
        let short = c.commands(in: i).last(where: {
          $0.isWrite && $0.accepted && $0.offset == 0 && $0.data.count == 2
        })
      else { return nil }
      var f = DiagnosisFinding(
        code: "t4t-nlen-size-mismatch", severity: .error, operation: i, frames: [short.frame],
        cause: "the writer wrote a 2-byte NLEN to an NDEF file whose length field is a 4-byte "
          + "ENLEN (T4T 3.0)",
        message:
          "The CC (mapping \(cc.versionString), Extended NDEF File Control TLV) gives file "
          + "\(Hex.word(cc.ndefFile.fileID)) a 4-byte ENLEN, and the message starts at byte 4. "
          + "The writer wrote 2 length bytes at offset 0 (\(short.summary)), as T4T 2.0 does: "
          + "readers take those 2 bytes and the next 2 as ENLEN and read the message from the "
          + "wrong place, so the tag holds no valid message.",
        coreNFCError: nil,
        fix: "Write the message with writeNDEF(_:completionHandler:), which takes the length "
          + "field's size from the CC; with sendCommand(apdu:), write ENLEN as 4 bytes at "
          + "offset 0 and the message from offset 4 (T4T 3.0).")
      f.effect = .badContent
      return f
    }
  }
}
