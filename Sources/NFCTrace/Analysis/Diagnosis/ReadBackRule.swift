import NDEF

/// Rule: a write the tag acknowledged, read back later in the same session with other bytes:
/// the tag did not keep what it acknowledged (a faulty or counterfeit tag, a tag that ignores
/// writes to that area), so the write "succeeded" and the tag still holds something else.
///
/// Evidence: `TagMemory.readBackConflicts` (a byte written with ACK / SW 9000, then read with
/// another value, no write in between) inside the NDEF data — Type 2: the CC's data area from
/// page 4, less the areas Lock/Memory Control TLVs reserve (the lock, CC and OTP bytes are
/// OR-written or ignore writes, NTAG213/215/216 datasheet §8.5.2–§8.5.6); Type 4: the NDEF
/// file — for bytes a writeNDEF that ended `ok` wrote. A tag may replace a placeholder the app
/// wrote (ASCII `0`s) with upper-case ASCII hex when it is read: the NTAG21x UID/NFC counter
/// mirror (datasheet §8.7, when CFG0 does not show it off) and NTAG 424 DNA Secure Dynamic
/// Messaging (SUN); then the finding is an info, not an error.
///
/// Code: `read-back-differs` (error, verdict `succeeded-with-bad-content`; no Core NFC error:
/// writeNDEF reported success).
enum ReadBackRule: DiagnosisRule {
  static let codes = ["read-back-differs"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard !c.session.memory.readBackConflicts.isEmpty else { return [] }
    let data = NDEFData(c)
    let conflicts = c.session.memory.readBackConflicts.filter { data.contains($0) }
    guard !conflicts.isEmpty else { return [] }
    return c.writeOperations.compactMap { i in
      let op = c.session.operations[i]
      let mine = conflicts.filter {
        $0.writeFrame >= op.firstFrame && $0.writeFrame <= op.lastFrame
      }
      guard op.kind == .writeNDEF, op.outcome == .ok, let first = mine.first else { return nil }
      return finding(c, i, mine, first: first)
    }
  }

  /// The NDEF data, where a write is kept as written: the Type 4 NDEF file, or the Type 2
  /// data area from page 4 to the CC's end less the reserved areas (worked out once).
  private struct NDEFData {
    let file: UInt16
    let end: Int
    let reserved: [Type2ReservedArea]

    init(_ c: DiagnosisContext) {
      file = c.session.type4NDEFFile ?? 0xE104
      let image = c.session.memory.type2End
      end =
        image.known(12, 4).flatMap(Type2CapabilityContainer.init).map { 16 + $0.dataAreaSize }
        ?? Int.max
      reserved = c.session.memory.type2Area?.reservedAreas ?? []
    }

    func contains(_ x: ReadBackConflict) -> Bool {
      if let f = x.file { return f == file }
      guard x.address >= 16, x.address < end else { return false }
      return !reserved.contains { $0.contains(x.address) }
    }
  }

  /// The app wrote ASCII `0` placeholders and the tag reads them back as upper-case hex
  /// digits, as a mirror does — unless CFG0 was read and shows the NTAG21x mirror off.
  private static func mirrored(_ mine: [ReadBackConflict], _ c: DiagnosisContext) -> Bool {
    let shape = mine.allSatisfy { x in
      x.written == 0x30 && ((0x30...0x39).contains(x.read) || (0x41...0x46).contains(x.read))
    }
    guard shape else { return false }
    guard mine.first?.file == nil, let product = c.session.tag.ntagProduct,
      var config = Type2Configuration(product: product), config.isNTAG
    else { return true }
    config.cfg0 = c.session.memory.type2End.known(config.cfg0Page * 4, 4)
    return config.mirrorConf.map { $0 != 0 } ?? true
  }

  private static func finding(
    _ c: DiagnosisContext, _ i: Int, _ mine: [ReadBackConflict], first: ReadBackConflict
  ) -> DiagnosisFinding {
    let place: String
    if let file = first.file {
      place =
        "offset \(first.address) of file \(Hex.string([UInt8(file >> 8), UInt8(file & 0xFF)]))"
    } else {
      place = "page \(first.address / 4) byte \(first.address % 4)"
    }
    let values =
      "it wrote \(Hex.string([first.written])) and read back \(Hex.string([first.read]))"
    let count = mine.count >= TagMemory.conflictLimit ? "\(mine.count) or more" : "\(mine.count)"
    // The memory keeps the acknowledgement's frame; the evidence shows the WRITE/UPDATE too.
    let commands = Set(
      mine.compactMap { m in c.log.commands.first { $0.answerFrame == m.writeFrame }?.frame })
    let frames = Array(commands.union(mine.flatMap { [$0.writeFrame, $0.readFrame] })).sorted()
    let text =
      "The tag acknowledged the write, but a later read in the same session returned other "
      + "bytes (\(count) write(s); first at \(place): \(values), #\(first.writeFrame) then "
      + "#\(first.readFrame))."
    if mirrored(mine, c) {
      return DiagnosisFinding(
        code: "read-back-differs", severity: .info, operation: i, frames: frames,
        cause: "the tag reads back the app's placeholder as a mirror (UID, counter or SUN)",
        message: text + " The app wrote ASCII '0' placeholders and the tag returns upper-case "
          + "ASCII hex there: an NTAG21x UID/NFC counter mirror (CFG0 MIRROR_CONF) or NTAG 424 "
          + "DNA Secure Dynamic Messaging fills them in when the tag is read, as intended.",
        coreNFCError: nil,
        fix: "Nothing to fix if the mirror or SUN message is intended; otherwise turn it off in "
          + "the tag's configuration (NTAG21x CFG0 MIRROR_CONF 0; NTAG 424 DNA file settings).")
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
}
