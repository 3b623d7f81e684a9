/// Rule: what acknowledged MIFARE Classic WRITEs put on the tag, compared with `--expect`.
///
/// Core NFC has no MIFARE Classic API (nfc-facts §8.3), so these writes are an Android app's
/// or a reader's; `diagnose` gives each operation that holds them a verdict
/// (`Operation.writesClassicBlocks`). With `--expect`, the NDEF Message TLV is looked for in
/// the data blocks written from block 4 (sector 1, the first NDEF sector of the NFC Forum
/// MIFARE Classic mapping; sector 0 holds the MAD, NXP AN10787) on, in block order, skipping
/// sector trailers and stopping at the first block not written: a TLV found whole there is
/// compared, `classic-content-differs-from-expected` (error) when it differs; otherwise
/// `classic-content-not-compared` (info) says the writes were seen but the message is not
/// in them as this simple reading finds it (MAD and other sectors are not decoded).
enum ClassicWriteRule: DiagnosisRule {
  static let codes = ["classic-content-differs-from-expected", "classic-content-not-compared"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    let ops = c.session.operations
    guard let expected = c.expected, !expected.isEmpty,
      let last = ops.lastIndex(where: \.writesClassicBlocks)
    else { return [] }
    var blocks: [Int: ClassicBlockWrite] = [:]
    for op in ops { for w in op.classicWrites where w.data.count == 16 { blocks[w.block] = w } }
    let run = dataRun(blocks)
    let frames = run.frames.isEmpty ? [ops[last].lastFrame] : run.frames
    guard let message = ndefMessage(run.bytes) else {
      return [notCompared(op: last, frames: frames, expected: expected.count)]
    }
    guard message != expected else { return [] }
    // The operation that wrote block 4, where the TLV starts.
    let op = ops.firstIndex { $0.classicWrites.contains { $0.frame == frames.first } } ?? last
    var f = DiagnosisFinding(
      code: "classic-content-differs-from-expected", severity: .error, operation: op,
      frames: frames,
      cause: "the MIFARE Classic blocks written hold another NDEF message than --expect",
      message: "The NDEF Message TLV the acknowledged WRITEs put in the blocks from block 4 on "
        + "holds \(message.count) byte(s) (\(Hex.string(message))), not the \(expected.count) "
        + "byte(s) expected (\(Hex.string(expected))).",
      coreNFCError: nil,
      fix: "Check the message the app (Android: MifareClassic.writeBlock / Ndef.writeNdefMessage) "
        + "or reader wrote; Core NFC cannot write a MIFARE Classic tag.")
    f.effect = .badContent
    return [f]
  }

  /// The cause line of a write verdict with no finding: which blocks the tag acknowledged,
  /// sector trailers named (their keys and access bits were rewritten). Nil when none.
  static func acknowledgedText(_ op: Operation) -> String? {
    guard op.writesClassicBlocks else { return nil }
    let items = op.classicWrites.map { w in
      (w.data.isEmpty ? "TRANSFER to block \(w.block)" : "WRITE block \(w.block)")
        + (w.isSectorTrailer
          ? " (sector \(MIFAREClassicLayer.sector(ofBlock: w.block))'s trailer: keys and access "
            + "bits rewritten)" : "")
    }
    return "the tag acknowledged MIFARE Classic " + items.joined(separator: ", ")
  }

  /// The bytes of the data blocks written from block 4 on, trailers skipped, up to the first
  /// block not written, and the frames that acknowledged them.
  private static func dataRun(_ blocks: [Int: ClassicBlockWrite]) -> (
    bytes: [UInt8], frames: [Int]
  ) {
    var bytes: [UInt8] = []
    var frames: [Int] = []
    var block = 4
    while block < 256 {
      let w = ClassicBlockWrite(block: block, data: [], frame: 0)
      if !w.isSectorTrailer {
        guard let written = blocks[block] else { break }
        bytes += written.data
        frames.append(written.frame)
      }
      block += 1
    }
    return (bytes, frames)
  }

  /// The value of the first NDEF Message TLV (`03`, after NULL TLVs `00`) in `bytes`, when
  /// whole there (NFC Forum Type 2 / MIFARE Classic mapping TLV format: 1-byte length, or
  /// `FF` + 2 bytes).
  static func ndefMessage(_ bytes: [UInt8]) -> [UInt8]? {
    var i = 0
    while i < bytes.count, bytes[i] == 0x00 { i += 1 }
    guard i + 1 < bytes.count, bytes[i] == 0x03 else { return nil }
    var length = Int(bytes[i + 1])
    var start = i + 2
    if length == 0xFF {
      guard i + 3 < bytes.count else { return nil }
      length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      start = i + 4
    }
    guard start + length <= bytes.count else { return nil }
    return Array(bytes[start..<(start + length)])
  }

  private static func notCompared(op: Int, frames: [Int], expected: Int) -> DiagnosisFinding {
    DiagnosisFinding(
      code: "classic-content-not-compared", severity: .info, operation: op, frames: frames,
      cause: "MIFARE Classic writes seen; the --expect message is not compared",
      message: "The tag acknowledged MIFARE Classic WRITEs, but the blocks written from block 4 "
        + "on do not hold a whole NDEF Message TLV to compare with the \(expected) byte(s) "
        + "expected (MIFARE Classic memory, the MAD and other NDEF sectors are not decoded).",
      coreNFCError: nil,
      fix: "Read the tag back (Android: MifareClassic.readBlock, or a reader) to check what it "
        + "holds.")
  }
}
