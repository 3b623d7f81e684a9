import Foundation

/// Proxmark3 JSON dumps of MIFARE Ultralight / NTAG (`hf mfu dump`, client `fileutils.c`):
/// `{"Created": …, "FileType": "mfu", "Card": {"UID", "Version", "TBO_0", "TBO_1",
/// "Signature", "Counter0".., "Tearing0"..}, "blocks": {"0": "045869BD", …}}` with 8 hex
/// digits per page. Counters are stored as the 3 bytes READ_CNT returns, LSB first
/// (NTAG213/215/216 datasheet §10.6). A UTF-8 byte order mark before the JSON is skipped.
///
/// A bad block is an error with unit `block`: the entry's 1-based position in `blocks` and
/// the byte offset of its key; the message quotes the key.
enum Proxmark3JSONDump {
  /// The dump, nil if the input is not a Proxmark3 JSON dump.
  /// - Throws: `TraceError.unsupported` for another `FileType`, `.malformed` for a bad block
  ///   (a key that is no page number 0–4095, a value that is no 4-byte page, a page given
  ///   twice, as `"4"` twice or as `"5"` and `"05"`).
  static func read(_ input: TraceInput) throws -> TagDump? {
    guard let root = try document(input), let fileType = root["FileType"] as? String else {
      return nil
    }
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

  /// The top-level object of a Proxmark3 JSON dump, nil if `input` is none: `{` first (after
  /// a UTF-8 byte order mark and white space), a `"FileType"` key in the first 512 bytes, less
  /// than 4 MiB in all.
  /// - Throws: `TraceError.malformed` at the line and byte offset where the JSON breaks (a
  ///   dump cut short: its last line and its size) when it starts as such a dump.
  private static func document(_ input: TraceInput) throws -> [String: Any]? {
    let head = input.head(512)
    let bom = TextLines.byteOrderMarkLength(head)
    let first = JSONByteScanner(bytes: head).skipSpace(from: bom)
    guard first < head.count, head[first] == 0x7B,
      String(decoding: head, as: UTF8.self).contains("\"FileType\""),
      input.bytes.count < 1 << 22
    else { return nil }
    let json = Data(input.bytes.dropFirst(bom))
    do {
      return try JSONSerialization.jsonObject(with: json) as? [String: Any]
    } catch {
      let (place, what) = JSONSyntax.locate(error as NSError, json)
      throw TraceError(
        .malformed,
        at: input.location(
          unit: "line", record: place?.line ?? 1, offset: bom + (place?.offset ?? 0)),
        "a Proxmark3 JSON dump (\"FileType\" in its head) that is not valid JSON"
          + (what.isEmpty ? "" : ": " + what))
    }
  }

  private static func readBlocks(_ value: Any?, into dump: inout TagDump, input: TraceInput)
    throws
  {
    guard let blocks = value as? [String: Any] else {
      dump.warnings.append(TraceWarning("no \"blocks\" object: no pages in the dump"))
      return
    }
    var pages: [Int: [UInt8]] = [:]
    var keyOfPage: [Int: String] = [:]
    // In file order, with each key as written: the first damaged block in the file is the one
    // reported, and a page given twice is seen (the parsed object keeps one of two equal keys).
    let keys = blockKeys(input) ?? blocks.keys.sorted().map { ($0, 0) }
    for (n, (key, offset)) in keys.enumerated() {
      // The entry's place in `blocks` (1-based), not the block number: the message names the
      // key, which may be no number at all.
      let location = input.location(unit: "blocks entry", record: n + 1, offset: offset)
      guard let index = Int(key), index >= 0, index < 4096 else {
        throw blockError(key, "block key is not a page number 0–4095", location)
      }
      if let first = keyOfPage[index] {
        throw blockError(
          key, "page \(index) given a second time (first as \"\(first)\"): each page once expected",
          location)
      }
      guard let text = blocks[key] as? String, let b = Hex.bytes(text), b.count == 4 else {
        throw blockError(key, "expected 8 hex digits (one 4-byte page)", location)
      }
      pages[index] = b
      keyOfPage[index] = key
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

  private static func blockError(_ key: String, _ message: String, _ at: SourceLocation)
    -> TraceError
  {
    TraceError(.malformed, at: at, "block \"\(key)\": \(message)")
  }

  /// The keys of the top-level `"blocks"` object as written, in file order, each with the
  /// byte offset of its opening quote; nil when the bytes cannot be walked so (the JSON
  /// parser read them, so this is not expected).
  private static func blockKeys(_ input: TraceInput) -> [(key: String, offset: Int)]? {
    let scanner = JSONByteScanner(bytes: [UInt8](input.bytes))
    var keys: [(String, Int)]?
    do {
      _ = try scanner.members(
        of: scanner.skipSpace(from: TextLines.byteOrderMarkLength(scanner.bytes))
      ) { key, _, value in
        guard
          scanner.string(from: key.lowerBound, to: key.upperBound, equals: Array("blocks".utf8))
        else { return }
        keys = try? scanner.members(of: value) { key, text, _ in (text, key.lowerBound) }
      }
    } catch {
      return nil
    }
    return keys
  }
}
