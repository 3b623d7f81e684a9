/// Rule: a Type 4 write put a length field of the wrong size at the start of the NDEF file
/// (NFC Forum T4T 3.0 §4.2, nfc-facts §6.2).
///
/// - A 2-byte NLEN (T4T 2.0) on a file whose CC gives a 4-byte ENLEN (mapping 3.0, Extended
///   NDEF File Control TLV `06`): readers read the first 4 bytes as the length — the 2 bytes
///   written and the first 2 of the message, a length in the hundreds of thousands — and the
///   message from byte 4, not 2. Evidence: an acknowledged UPDATE BINARY at offset 0 of exactly
///   2 bytes, or of a 2-byte length and the message it counts.
/// - A 4-byte ENLEN on a file whose CC gives a 2-byte NLEN (NDEF File Control TLV `04`):
///   readers take its first 2 bytes, `00 00`, as NLEN — an empty message. Evidence: an
///   acknowledged UPDATE BINARY at offset 0 of a 4-byte length `00 00 xx xx` (not 0) alone,
///   or with the message it counts.
///
/// Code: `t4t-nlen-size-mismatch` (error; no Core NFC error: writeNDEF takes the field's size
/// from the CC, so these were the app's own sendCommand(apdu:) writes, which get the status
/// word). It explains the operation: the diagnoser drops the `message-too-large`,
/// `write-unfinished` and `ndef-emptied` the wrong field size makes the write look like.
enum Type4LengthFieldRule: DiagnosisRule {
  static let codes = ["t4t-nlen-size-mismatch"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let cc = c.session.type4CC else { return [] }
    let size = cc.ndefFile.lengthFieldSize
    return c.writeOperations.compactMap { i in
      guard c.session.operations[i].kind == .writeNDEF,
        let wrong = c.commands(in: i).last(where: {
          $0.isWrite && $0.accepted && $0.offset == 0 && wrongSize($0.data, fieldSize: size)
        })
      else { return nil }
      var f = finding(cc, wrong, i)
      f.effect = .badContent
      return f
    }
  }

  /// Whether `data`, written at offset 0, starts with a length field of the other size than
  /// the file's (`fieldSize`): 2 bytes alone or counting the rest on an ENLEN file; `00 00 xx
  /// xx` (not 0) alone or counting the rest on an NLEN file.
  static func wrongSize(_ data: [UInt8], fieldSize: Int) -> Bool {
    func length(_ n: Int) -> Int { data.prefix(n).reduce(0) { $0 << 8 | Int($1) } }
    if fieldSize == 4 {
      return data.count == 2 || (data.count > 2 && length(2) == data.count - 2)
    }
    guard data.count >= 4, data[0] == 0, data[1] == 0 else { return false }
    return data.count == 4 ? length(4) != 0 : length(4) == data.count - 4
  }

  /// The finding for write `w` of operation `i`: a length field of the other size than the
  /// CC's (2 or 4 bytes) at offset 0.
  private static func finding(
    _ cc: CapabilityContainer4, _ w: SessionCommandLog.Command, _ i: Int
  ) -> DiagnosisFinding {
    let extended = cc.ndefFile.lengthFieldSize == 4
    let (field, written) =
      extended ? ("a 4-byte ENLEN", "2-byte NLEN") : ("a 2-byte NLEN", "4-byte ENLEN")
    let (right, version) = extended ? ("ENLEN as 4 bytes", "3.0") : ("NLEN as 2 bytes", "2.0")
    let size = extended ? 4 : 2
    let readers =
      extended
      ? "as T4T 2.0 does: readers take those 2 bytes and the next 2 as ENLEN and read the "
        + "message from the wrong place, so the tag holds no valid message."
      : "as T4T 3.0 does for an extended file: readers take its first 2 bytes, 00 00, as NLEN, "
        + "so the tag holds an empty message (readNDEF: 403), and the message sits 2 bytes too "
        + "far."
    return DiagnosisFinding(
      code: "t4t-nlen-size-mismatch", severity: .error, operation: i, frames: [w.frame],
      cause: "the writer wrote a \(written)\(extended ? "" : " (T4T 3.0)") to an NDEF file whose "
        + "length field is \(field)\(extended ? " (T4T 3.0)" : "")",
      message:
        "The CC (mapping \(cc.versionString), \(extended ? "Extended " : "")NDEF File Control "
        + "TLV) gives file \(Hex.word(cc.ndefFile.fileID)) \(field), and the message starts at "
        + "byte \(size). The writer wrote a \(extended ? 2 : 4)-byte length at offset 0 "
        + "(\(w.summary)), " + readers,
      coreNFCError: nil,
      fix: "Write the message with writeNDEF(_:completionHandler:), which takes the length "
        + "field's size from the CC; with sendCommand(apdu:), write \(right) at offset 0 and "
        + "the message from offset \(size) (T4T \(version)).")
  }
}
