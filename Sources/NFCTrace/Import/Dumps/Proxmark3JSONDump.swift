import Foundation

/// Proxmark3 JSON dumps of MIFARE Ultralight / NTAG (`hf mfu dump`, client `fileutils.c`):
/// `{"Created": …, "FileType": "mfu", "Card": {"UID", "Version", "TBO_0", "TBO_1",
/// "Signature", "Counter0".., "Tearing0"..}, "blocks": {"0": "045869BD", …}}` with 8 hex
/// digits per page. Counters are stored as the 3 bytes READ_CNT returns, LSB first
/// (NTAG213/215/216 datasheet §10.6).
enum Proxmark3JSONDump {
  /// The dump, nil if the input is not a Proxmark3 JSON dump.
  /// - Throws: `TraceError.unsupported` for another `FileType`, `.malformed` for a bad block.
  static func read(_ input: TraceInput) throws -> TagDump? {
    let head = input.head(512)
    guard let first = head.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
      first == 0x7B, String(decoding: head, as: UTF8.self).contains("\"FileType\""),
      input.bytes.count < 1 << 22,
      let root = (try? JSONSerialization.jsonObject(with: input.bytes)) as? [String: Any],
      let fileType = root["FileType"] as? String
    else { return nil }
    guard fileType == "mfu" else {
      throw TraceError(
        .unsupported, at: input.location(unit: "byte", record: 0, offset: 0),
        "Proxmark3 JSON dump of FileType \"\(fileType)\": only \"mfu\" (Ultralight/NTAG) dumps"
          + " are read")
    }
    var dump = TagDump(format: "pm3-json", path: input.path)
    let card = root["Card"] as? [String: Any] ?? [:]
    func hex(_ key: String, _ count: Int?) -> [UInt8]? {
      guard let value = card[key] else { return nil }
      // Present but not hex text: said, so that "no GET_VERSION answer" is not claimed for a
      // field that was only unreadable.
      guard let text = value as? String, let b = Hex.bytes(text) else {
        let shown = value is String ? "\"\(String(describing: value).prefix(40))\"" : "\(value)"
        dump.warnings.append(
          TraceWarning(
            "Card.\(key): expected a string of hex bytes, found \(shown.prefix(42)); left out"))
        return nil
      }
      if let count, b.count != count {
        dump.warnings.append(TraceWarning("Card.\(key): expected \(count) bytes, found \(b.count)"))
        return nil
      }
      return b
    }
    dump.uid = hex("UID", nil)
    if let uid = dump.uid, !UIDLength.isValid(uid.count) {
      dump.warnings.append(
        TraceWarning("Card.UID: expected 4, 7 or 10 bytes, found \(uid.count); left out"))
      dump.uid = nil
    }
    // The client stores zeros for answers the tag did not give (no GET_VERSION, READ_SIG or
    // READ_CNT on a MIFARE Ultralight or Ultralight C).
    dump.version = hex("Version", 8).flatMap(TagDump.stored)
    dump.signature = hex("Signature", 32).flatMap(TagDump.stored)
    for n in 0..<3 where dump.version != nil {
      guard let b = hex("Counter\(n)", 3) else { continue }
      dump.counters.append(Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16)
    }
    try readBlocks(root["blocks"], into: &dump, input: input)
    if let warning = Type2Header.uidCheck(dump) { dump.warnings.append(warning) }
    return dump
  }

  private static func readBlocks(_ value: Any?, into dump: inout TagDump, input: TraceInput)
    throws
  {
    guard let blocks = value as? [String: Any] else {
      dump.warnings.append(TraceWarning("no \"blocks\" object: no pages in the dump"))
      return
    }
    var pages: [Int: [UInt8]] = [:]
    // Sorted so that the first damaged block in page order is the one reported.
    for (key, value) in blocks.sorted(by: { (Int($0.key) ?? -1) < (Int($1.key) ?? -1) }) {
      guard let index = Int(key), index >= 0, index < 4096 else {
        throw blockError(key, "block key is not a page number", input)
      }
      guard let text = value as? String, let b = Hex.bytes(text), b.count == 4 else {
        throw blockError(key, "expected 8 hex digits (one 4-byte page)", input)
      }
      pages[index] = b
    }
    let count = (pages.keys.max() ?? -1) + 1
    for index in 0..<count {
      dump.pages.append(pages[index] ?? [0, 0, 0, 0])
      dump.pageKnown.append(pages[index] != nil)
    }
    if pages.count < count {
      dump.warnings.append(TraceWarning("\(count - pages.count) pages missing from \"blocks\""))
    }
  }

  /// An error at the block's key, located by searching the bytes after `"blocks"`.
  private static func blockError(_ key: String, _ message: String, _ input: TraceInput)
    -> TraceError
  {
    let bytes = [UInt8](input.bytes)
    let from = firstIndex(of: Array("\"blocks\"".utf8), in: bytes, from: 0) ?? 0
    let offset = firstIndex(of: Array("\"\(key)\"".utf8), in: bytes, from: from) ?? 0
    return TraceError(
      .malformed, at: input.location(unit: "block", record: (Int(key) ?? -1) + 1, offset: offset),
      "block \"\(key)\": \(message)")
  }

  private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
    guard needle.count <= bytes.count else { return nil }
    var i = from
    while i + needle.count <= bytes.count {
      if bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }
}
