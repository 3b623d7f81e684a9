/// Rule: a write the tag acknowledged, read back later in the same session with other bytes:
/// the tag did not keep what it acknowledged (a faulty or counterfeit tag, a tag that ignores
/// writes to that area), so the write "succeeded" and the tag still holds something else.
///
/// Evidence: `TagMemory.readBackConflicts` (a byte written with ACK / SW 9000, then read with
/// another value, no write in between), for bytes written by an operation that ended `ok`.
/// NTAG21x can mirror the UID or the NFC counter into a page as ASCII hex when it is read
/// (NXP NTAG213/215/216 datasheet §8.7): when every differing byte read is an ASCII hex digit
/// on a Type 2 tag, the finding is an info naming the mirror, not an error.
///
/// Code: `read-back-differs` (error, verdict `succeeded-with-bad-content`; no Core NFC error:
/// writeNDEF reported success).
enum ReadBackRule: DiagnosisRule {
  static let codes = ["read-back-differs"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let conflicts = c.session.memory.readBackConflicts
    guard !conflicts.isEmpty else { return [] }
    return c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      let mine = conflicts.filter {
        $0.writeFrame >= op.firstFrame && $0.writeFrame <= op.lastFrame
      }
      guard op.outcome == .ok, let first = mine.first else { return nil }
      return finding(c, i, mine, first: first)
    }
  }

  private static func finding(
    _ c: DiagnosisContext, _ i: Int, _ mine: [ReadBackConflict], first: ReadBackConflict
  ) -> DiagnosisFinding {
    let type2 = first.file == nil
    let place =
      type2
      ? "page \(first.address / 4) byte \(first.address % 4)"
      : "offset \(first.address) of file \(Hex.string([UInt8(first.file! >> 8), UInt8(first.file! & 0xFF)]))"
    let values =
      "it wrote \(Hex.string([first.written])) and read back \(Hex.string([first.read]))"
    let count = mine.count >= TagMemory.conflictLimit ? "\(mine.count) or more" : "\(mine.count)"
    // The memory keeps the acknowledgement's frame; the evidence shows the WRITE/UPDATE too.
    let commands = Set(
      mine.compactMap { m in c.log.commands.first { $0.answerFrame == m.writeFrame }?.frame })
    let frames = Array(commands.union(mine.flatMap { [$0.writeFrame, $0.readFrame] })).sorted()
    let mirror = type2 && mine.allSatisfy { isASCIIHexDigit($0.read) }
    let text =
      "The tag acknowledged the write, but a later read in the same session returned other "
      + "bytes (\(count) byte(s); first at \(place): \(values), #\(first.writeFrame) then "
      + "#\(first.readFrame))."
    if mirror {
      return DiagnosisFinding(
        code: "read-back-differs", severity: .info, operation: i, frames: frames,
        cause: "bytes read back differ from the acknowledged write, as an NTAG UID/counter "
          + "mirror shows them",
        message: text + " Every byte read differs as ASCII hex digits: an NTAG21x UID or NFC "
          + "counter mirror (CFG0 MIRROR_CONF) replaces those bytes when the tag is read, so "
          + "this is expected when the app writes a mirror placeholder.",
        coreNFCError: nil,
        fix: "Nothing to fix if the mirror is intended; otherwise turn it off in CFG0 "
          + "(MIRROR_CONF 0) with sendMiFareCommand WRITE.")
    }
    var f = DiagnosisFinding(
      code: "read-back-differs", severity: .error, operation: i, frames: frames,
      cause: "the tag acknowledged the write but did not keep it: the read-back differs",
      message: text + " writeNDEF reported success, yet the tag holds other bytes: a faulty or "
        + "counterfeit tag, or one that silently ignores writes to that area.",
      coreNFCError: nil,
      fix: "After writeNDEF's completion handler, readNDEF and compare before reporting "
        + "success; replace the tag if the read-back keeps differing.")
    f.effect = .badContent
    return f
  }

  private static func isASCIIHexDigit(_ b: UInt8) -> Bool {
    (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
  }
}
