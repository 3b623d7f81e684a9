import Foundation
import TestSupport
import Testing

/// What a malformed input may end with.
enum Outcome: Sendable {
  /// Exit status 3 with an error naming file, unit and byte offset.
  case error
  /// Exit status 3 as above, or 0 with only `warning:` lines on standard error (the input is
  /// only partly damaged, or damaged in a way the format lets a reader skip).
  case errorOrWarnings
  /// Exit status 0, and exactly the frames of `prefix` (a harmless change such as CRLF).
  case sameFrames
}

/// One generated malformed input and what `nfctrace` must do with it.
struct MalformedCase: Sendable, CustomTestStringConvertible {
  enum Input: Sendable {
    case bytes([UInt8])
    case directory
    case missing
  }
  enum Command: Sendable {
    /// `timeline` (text and JSON) and `sessions`.
    case trace
    /// `ndef @FILE` (text and JSON); `tlv` adds `--tlv`.
    case ndef(tlv: Bool)
  }

  var name: String
  var input: Input
  /// File name, whose extension the format sniffers may use as a hint.
  var fileName: String
  var command: Command = .trace
  /// `--input-format` to pass, if any.
  var format: String?
  var outcome: Outcome
  /// The undamaged bytes before the damage: every frame `nfctrace` decodes from them alone
  /// must be shown, in order, at the start of the damaged input's timeline.
  var prefix: [UInt8]?

  var testDescription: String { name }
}

/// The deterministic generator of malformed inputs (no binary blob is stored: every case is
/// derived here from the project's own `Traces/` and from `../shared/traces`).
enum MalformedCorpus {
  /// Every case, generated once per test run.
  static let all: [MalformedCase] = generate()

  /// Generates the cases (same bytes every time).
  static func generate() -> [MalformedCase] {
    generic() + pcap() + pcapng() + proxmark3Binary() + proxmark3Text() + nfcLab() + libnfc()
      + android() + tagDumps() + ndef() + tlv() + ndefInTrace()
  }

  // MARK: - Inputs that are no trace at all

  static func generic() -> [MalformedCase] {
    var rng = SplitMix64(seed: 0x4E46_4354)
    var cases: [MalformedCase] = []
    for name in ["empty.pcap", "empty.trace", "empty.txt", "empty"] {
      cases.append(MalformedCase(name: name, input: .bytes([]), fileName: name, outcome: .error))
    }
    cases.append(
      MalformedCase(name: "directory", input: .directory, fileName: "dir.pcap", outcome: .error))
    cases.append(
      MalformedCase(name: "missing file", input: .missing, fileName: "gone.pcap", outcome: .error))
    for size in [1, 3, 7, 8, 9, 64, 1000, 5000] {
      cases.append(
        MalformedCase(
          name: "junk \(size) B", input: .bytes(rng.bytes(size)), fileName: "junk-\(size).bin",
          outcome: .errorOrWarnings))
    }
    for format in ["pcap", "pm3-trace", "pm3-text", "nfclab-json", "libnfc-log"] {
      for size in [5, 700] {
        cases.append(
          MalformedCase(
            name: "junk \(size) B as \(format)", input: .bytes(rng.bytes(size)),
            fileName: "junk-\(size)", format: format, outcome: .errorOrWarnings))
      }
    }
    cases.append(
      MalformedCase(
        name: "4 KiB of NUL", input: .bytes([UInt8](repeating: 0, count: 4096)),
        fileName: "zeros.trace", outcome: .errorOrWarnings))
    cases.append(
      MalformedCase(
        name: "100 B of FF", input: .bytes([UInt8](repeating: 0xFF, count: 100)),
        fileName: "ff.bin", outcome: .errorOrWarnings))
    cases.append(
      MalformedCase(
        name: "plain text", input: .bytes(Array("hello, world\n".utf8)), fileName: "hello.txt",
        outcome: .errorOrWarnings))
    return cases
  }

  // MARK: - pcap

  static func pcap() -> [MalformedCase] {
    ["t2t-ntag215-write-ok.pcap", "t4t-write-ok.pcap"].flatMap { name -> [MalformedCase] in
      guard let base = load(TestPaths.traces(name)) else { return [] }
      return pcapCases(base, name)
    }
  }

  private static func pcapCases(_ base: [UInt8], _ name: String) -> [MalformedCase] {
    var cases: [MalformedCase] = []
    func add(_ what: String, _ bytes: [UInt8], _ outcome: Outcome, prefix: [UInt8]? = nil) {
      cases.append(
        MalformedCase(
          name: "\(name): \(what)", input: .bytes(bytes), fileName: name, outcome: outcome,
          prefix: prefix))
    }
    let records = pcapRecords(base)
    for cut in [1, 4, 8, 12, 16, 20, 23] {
      add("global header cut at \(cut)", Array(base.prefix(cut)), .error)
    }
    for k in pick(records.count) {
      let r = records[k]
      let before = Array(base[..<r.start])
      for cut in [1, 15, 16, 17, 16 + r.length - 1] where cut < 16 + r.length {
        add(
          "packet \(k + 1) cut at +\(cut)", Array(base[..<(r.start + cut)]), .error, prefix: before
        )
      }
    }
    for linkType: UInt32 in [0, 1, 105, 189, 220, 245, 249, 263, 265, 0xFFFF] {
      add("link type \(linkType)", patch32(base, at: 20, linkType), .error)
    }
    for snaplen: UInt32 in [0, 1, 4, 262_145, 0x7FFF_FFFF, 0xFFFF_FFFF] {
      add("snaplen \(snaplen)", patch32(base, at: 16, snaplen), .errorOrWarnings)
    }
    for k in [0, records.count / 2] where k < records.count {
      let r = records[k]
      let before = Array(base[..<r.start])
      let left = UInt32(base.count - r.start - 16 + 1)
      for caplen: UInt32 in [0xFFFF, 0xFFFF_FFFF, left] {
        var bytes = patch32(base, at: r.start + 8, caplen)
        bytes = patch32(bytes, at: r.start + 12, caplen)
        add("packet \(k + 1) caplen \(caplen)", bytes, .error, prefix: before)
      }
    }
    if let r = records.dropFirst(2).first {
      let before = Array(base[..<r.start])
      for caplen: UInt32 in [0, 2, 3] {
        add(
          "packet 3 caplen \(caplen) (stream misaligned)", patch32(base, at: r.start + 8, caplen),
          .errorOrWarnings, prefix: before)
      }
      add(
        "packet 3 original length below caplen", patch32(base, at: r.start + 12, 1),
        .errorOrWarnings, prefix: before)
      let data = r.start + 16
      add(
        "packet 3 pseudo-header version 1", patch8(base, at: data, 1), .errorOrWarnings,
        prefix: before)
      add(
        "packet 3 unknown event 00", patch8(base, at: data + 1, 0), .errorOrWarnings, prefix: before
      )
      add(
        "packet 3 pseudo-header length FFFF",
        patch8(patch8(base, at: data + 2, 0xFF), at: data + 3, 0xFF),
        .errorOrWarnings, prefix: before)
    }
    // Every packet rejected: nothing was read, which is invalid input, not "no sessions".
    let allVersion1 = records.reduce(base) { patch8($0, at: $1.start + 16, 1) }
    add("every pseudo-header version 1", allVersion1, .error)
    var rng = SplitMix64(seed: UInt64(base.count))
    for extra in [1, 7, 15, 16, 17] {
      add("\(extra) junk bytes appended", base + rng.bytes(extra), .errorOrWarnings, prefix: base)
    }
    return cases
  }

  /// Packet record positions of a pcap file (after the 24-byte global header): offset of the
  /// 16-byte record header and the captured length (either byte order).
  static func pcapRecords(_ b: [UInt8]) -> [(start: Int, length: Int)] {
    guard b.count >= 24 else { return [] }
    let bigEndian = b[0] == 0xA1
    var out: [(Int, Int)] = []
    var offset = 24
    while offset + 16 <= b.count {
      let length = Int(read32(b, offset + 8, bigEndian: bigEndian))
      guard offset + 16 + length <= b.count else { break }
      out.append((offset, length))
      offset += 16 + length
    }
    return out
  }

  // MARK: - pcapng

  static func pcapng() -> [MalformedCase] {
    let name = "hf_14a_mfu.text2pcap.pcapng"
    guard let base = load(TestPaths.shared("derived/pcap/" + name)) else { return [] }
    var cases: [MalformedCase] = []
    func add(_ what: String, _ bytes: [UInt8], _ outcome: Outcome, prefix: [UInt8]? = nil) {
      cases.append(
        MalformedCase(
          name: "\(name): \(what)", input: .bytes(bytes), fileName: name, outcome: outcome,
          prefix: prefix))
    }
    let blocks = pcapngBlocks(base)
    for cut in [1, 4, 8, 11, 12] { add("cut at \(cut)", Array(base.prefix(cut)), .error) }
    // Blocks 0 and 1 are the section and interface headers; the rest hold packets.
    for k in pick(blocks.count).filter({ $0 >= 1 }) {
      let b = blocks[k]
      let before = k >= 2 ? Array(base[..<b.start]) : nil
      for cut in [2, 8, b.length - 1] {
        add(
          "block \(k + 1) cut at +\(cut)", Array(base[..<(b.start + cut)]), .error, prefix: before)
      }
    }
    if let b = blocks.dropFirst(3).first {
      let before = Array(base[..<b.start])
      for length: UInt32 in [0, 3, 13, 0xFFFF_FFF0, UInt32(b.length + 4)] {
        add(
          "block 4 total length \(length)", patch32(base, at: b.start + 4, length),
          .errorOrWarnings, prefix: before)
      }
      add(
        "block 4 trailing length differs",
        patch32(base, at: b.start + b.length - 4, UInt32(b.length + 8)), .errorOrWarnings,
        prefix: before)
    }
    add("byte-order magic damaged", patch32(base, at: 8, 0x1234_5678), .errorOrWarnings)
    if let idb = blocks.dropFirst().first {
      add(
        "interface link type 1", patch8(patch8(base, at: idb.start + 8, 1), at: idb.start + 9, 0),
        .error)
    }
    return cases
  }

  /// Block positions of a little-endian pcapng file.
  static func pcapngBlocks(_ b: [UInt8]) -> [(start: Int, length: Int)] {
    var out: [(Int, Int)] = []
    var offset = 0
    while offset + 12 <= b.count {
      let length = Int(read32(b, offset + 4, bigEndian: false))
      guard length >= 12, offset + length <= b.count else { break }
      out.append((offset, length))
      offset += length
    }
    return out
  }

  // MARK: - Proxmark3 binary

  static func proxmark3Binary() -> [MalformedCase] {
    [
      TestPaths.traces("t2t-ntag215-write-ok.trace"),
      TestPaths.shared("public/proxmark3/hf_14a_mfu.trace"),
    ].flatMap { path -> [MalformedCase] in
      guard let base = load(path) else { return [] }
      return pm3Cases(base, URL(fileURLWithPath: path).lastPathComponent)
    }
  }

  private static func pm3Cases(_ base: [UInt8], _ name: String) -> [MalformedCase] {
    var cases: [MalformedCase] = []
    func add(
      _ what: String, _ bytes: [UInt8], _ outcome: Outcome, prefix: [UInt8]? = nil,
      format: String? = "pm3-trace"
    ) {
      cases.append(
        MalformedCase(
          name: "\(name): \(what)", input: .bytes(bytes), fileName: name, format: format,
          outcome: outcome, prefix: prefix))
    }
    let records = pm3Records(base)
    for k in pick(records.count) {
      let r = records[k]
      let before = Array(base[..<r.start])
      let cuts = [1, 7, 8, 8 + max(r.dataLength - 1, 0), r.size - 1]
      for cut in Set(cuts).sorted() where cut > 0 && cut < r.size {
        add(
          "record \(k + 1) cut at +\(cut)", Array(base[..<(r.start + cut)]), .error, prefix: before)
      }
      let left = base.count - r.start - 8
      for length in [0x7FFF, left + 1] {
        let field = UInt16(length & 0x7FFF) | (base[r.start + 7] & 0x80 == 0 ? 0 : 0x8000)
        add(
          "record \(k + 1) length \(length)",
          patch8(
            patch8(base, at: r.start + 6, UInt8(field & 0xFF)), at: r.start + 7, UInt8(field >> 8)),
          .error, prefix: before)
      }
    }
    var rng = SplitMix64(seed: 7)
    for extra in [1, 5, 7] {
      add("\(extra) junk bytes appended", base + rng.bytes(extra), .error, prefix: base)
    }
    if let r = records.dropFirst(3).first {
      add("cut in record 4, format detected", Array(base[..<(r.start + 3)]), .error, format: nil)
    }
    return cases
  }

  /// Record positions of a Proxmark3 trace: start, data length, whole size.
  static func pm3Records(_ b: [UInt8]) -> [(start: Int, dataLength: Int, size: Int)] {
    var out: [(Int, Int, Int)] = []
    var offset = 0
    while offset + 8 <= b.count {
      let length = Int(b[offset + 6]) | Int(b[offset + 7] & 0x7F) << 8
      let size = 8 + length + (length == 0 ? 1 : (length - 1) / 8 + 1)
      guard offset + size <= b.count else { break }
      out.append((offset, length, size))
      offset += size
    }
    return out
  }

  // MARK: - Text logs (Proxmark3 `trace list`, libnfc)

  static func proxmark3Text() -> [MalformedCase] {
    ["hf_14a_mfu.list_14a.txt", "hf_14a_reader_7b_rats.list_14a.txt"].flatMap {
      name -> [MalformedCase] in
      guard let base = load(TestPaths.shared("derived/proxmark3-text/" + name)) else { return [] }
      return textCases(
        base, name, format: "pm3-text",
        isData: { line in
          let text = String(decoding: line, as: UTF8.self)
          return text.contains("| Rdr |") || text.contains("| Tag |")
        })
    }
  }

  static func libnfc() -> [MalformedCase] {
    ["acr122u_t2t_read_write.log", "pn533_scl3711_t2t_read_write.log"].flatMap {
      name -> [MalformedCase] in
      guard let base = load(TestPaths.traces("libnfc/" + name)) else { return [] }
      // Only the TX lines are junked: the chip's RX answers stay frames.
      return textCases(
        base, name, format: "libnfc-log", allJunk: .errorOrWarnings,
        isData: { line in String(decoding: line, as: UTF8.self).contains("TX:") })
    }
  }

  static func android() -> [MalformedCase] {
    let name = "android-dumpsys-nfc.txt"
    guard let base = load(TestPaths.traces("android/" + name)) else { return [] }
    // A log cut at a line is itself damaged (a cut zlib stream), so only the cases whose frames
    // must equal the whole log's keep their reference input.
    return textCases(
      base, name, format: "android-nfcsnoop",
      isData: { line in line.count >= 100 && line.first != 0x2D }
    ).map { c in
      var c = c
      if c.outcome != .sameFrames { c.prefix = nil }
      return c
    }
  }

  private static func textCases(
    _ base: [UInt8], _ name: String, format: String, allJunk: Outcome = .error,
    isData: ([UInt8]) -> Bool
  ) -> [MalformedCase] {
    var cases: [MalformedCase] = []
    func add(_ what: String, _ bytes: [UInt8], _ outcome: Outcome, prefix: [UInt8]? = nil) {
      cases.append(
        MalformedCase(
          name: "\(name): \(what)", input: .bytes(bytes), fileName: name, format: format,
          outcome: outcome, prefix: prefix))
    }
    let lines = splitLines(base)
    add("CRLF line ends", lines.flatMap { crlf($0) }, .sameFrames, prefix: base)
    if base.last == 0x0A {
      add("no newline at the end", Array(base.dropLast()), .sameFrames, prefix: base)
    }
    add(
      "tabs for spaces",
      base.map { $0 == 0x20 ? 0x09 : $0 }, .errorOrWarnings)
    add("header only", lines.prefix { !isData($0) }.flatMap { $0 }, .errorOrWarnings)
    add("blank lines only", [UInt8](repeating: 0x0A, count: 40), .errorOrWarnings)
    let dataLines = lines.indices.filter { isData(lines[$0]) }
    // Every data line replaced by junk: no frame, so invalid input (exit 3).
    var junk = lines
    for k in dataLines { junk[k] = Array("junk line\n".utf8) }
    add("every data line junk", junk.flatMap { $0 }, allJunk)
    var rng = SplitMix64(seed: UInt64(base.count))
    for k in pick(dataLines.count).map({ dataLines[$0] }) {
      let line = lines[k]
      let before = lines[..<k].flatMap { $0 }
      // Before the first data line there is no frame to keep (and no trace to compare with).
      let kept = lines[..<k].contains(where: isData) ? before : nil
      let after = lines[(k + 1)...].flatMap { $0 }
      let mid = line.count / 2
      func with(_ replaced: [UInt8]) -> [UInt8] { before + replaced + after }
      add(
        "line \(k + 1) NUL inside", with(Array(line[..<mid]) + [0] + line[mid...]),
        .errorOrWarnings, prefix: kept)
      add(
        "line \(k + 1) invalid UTF-8",
        with(Array(line[..<mid]) + [0xFF, 0xFE, 0xC3] + line[mid...]),
        .errorOrWarnings, prefix: kept)
      add(
        "line \(k + 1) binary junk", with(rng.bytes(48) + [0x0A]), .errorOrWarnings, prefix: kept)
      add(
        "line \(k + 1) missing columns", with(Array(line.prefix(max(mid / 2, 1))) + [0x0A]),
        .errorOrWarnings, prefix: kept)
      add("cut in line \(k + 1)", before + Array(line[..<mid]), .errorOrWarnings, prefix: kept)
      add("line \(k + 1) doubled", with(line + line), .errorOrWarnings, prefix: kept)
    }
    return cases
  }

  // MARK: - NFC-Laboratory JSON

  static func nfcLab() -> [MalformedCase] {
    let name = "test_NFC-A_106kbps_001.json"
    var cases: [MalformedCase] = []
    func add(_ what: String, _ bytes: [UInt8], _ outcome: Outcome, prefix: [UInt8]? = nil) {
      cases.append(
        MalformedCase(
          name: "nfclab: \(what)", input: .bytes(bytes), fileName: "frames.json",
          format: "nfclab-json", outcome: outcome, prefix: prefix))
    }
    let shapes: [(String, String)] = [
      ("empty array", "[]"), ("empty object", "{}"), ("null", "null"), ("number", "42"),
      ("string", "\"frames\""), ("frames is a number", "{\"frames\":5}"),
      ("frames of numbers", "{\"frames\":[1,2,3]}"),
      ("frameData is a number", "{\"frames\":[{\"frameData\":5,\"sampleStart\":1}]}"),
      ("frameData odd hex", "{\"frames\":[{\"frameData\":\"0:2\",\"frameType\":\"x\"}]}"),
      ("unterminated string", "{\"frames\":[{\"frameData\":\"26"),
      ("huge number", "{\"frames\":[{\"timeStart\":1e999999999,\"frameData\":\"26\"}]}"),
      ("JSON lines of junk", "{\"a\":1}\n[\n}\n{\"frameData\":\n"),
    ]
    for (what, text) in shapes { add(what, Array(text.utf8), .errorOrWarnings) }
    add(
      "arrays nested 100000 deep", Array(String(repeating: "[", count: 100_000).utf8),
      .errorOrWarnings)
    add(
      "objects nested 50000 deep",
      Array(
        (String(repeating: "{\"a\":", count: 50_000) + "1" + String(repeating: "}", count: 50_000))
          .utf8),
      .errorOrWarnings)
    guard let base = load(TestPaths.shared("public/nfc-laboratory/" + name)) else { return cases }
    add("CRLF line ends", splitLines(base).flatMap { crlf($0) }, .sameFrames, prefix: base)
    for fraction in [1, 3, 5, 7, 9] {
      add("cut at \(fraction)/10", Array(base.prefix(base.count * fraction / 10)), .errorOrWarnings)
    }
    for fraction in [2, 5, 8] {
      var bytes = base
      bytes[base.count * fraction / 10] = 0
      add("NUL at \(fraction)/10", bytes, .errorOrWarnings)
    }
    return cases
  }

  // MARK: - Tag dumps (not traces: the timeline must refuse them cleanly)

  static func tagDumps() -> [MalformedCase] {
    guard let base = load(TestPaths.shared("public/UberGuidoZ-Flipper/Google.nfc")) else {
      return []
    }
    return [
      ("whole", base), ("cut in half", Array(base.prefix(base.count / 2))),
      ("pages garbled", base.map { $0 == UInt8(ascii: "A") ? 0xFF : $0 }),
    ].map { what, bytes in
      MalformedCase(
        name: "Flipper .nfc: \(what)", input: .bytes(bytes), fileName: "Google.nfc",
        outcome: .errorOrWarnings)
    }
  }

  // MARK: - NDEF and Type 2 TLV areas

  static func ndef() -> [MalformedCase] {
    let messages: [(String, [UInt8])] = [
      ("SR payload length past end", hex("d101ff5501")),
      ("type length past end", hex("d1ff0155")),
      ("ID length past end", hex("d9010155ff01")),
      ("long record length FFFFFFFF", hex("c101ffffffff5501")),
      ("long record length 7FFFFFFF", hex("c1017fffffff5501")),
      ("header only", hex("d1")),
      ("single zero byte", hex("00")),
      ("chunk never ends", hex("b50105546f6e65")),
      ("ME missing", hex("910101550161")),
      ("MB missing", hex("510101550161")),
      ("TNF 7", hex("d7000000")),
      ("text language length past end", hex("d101035402ff65")),
      ("URI empty payload", hex("d1010055")),
      (
        "Wi-Fi attribute length past end",
        Array(hex("d2170a") + "application/vnd.wfa.wsc".utf8) + hex("100e00ff1026")
      ),
      ("handover select lying length", hex("d102054873120000ff")),
      ("Smart Poster lying inner length", hex("d10206537091015501")),
      ("Smart Poster nested 6 deep", nestedSmartPoster(6)),
      ("Smart Poster nested 3000 deep", nestedSmartPoster(3000)),
      (
        "8000 empty records",
        hex("950000")
          + [UInt8](repeating: 0, count: 7998 * 3).indices.map { i in
            [0x15, 0x00, 0x00][i % 3]
          } + hex("550000")
      ),
    ]
    return messages.map { what, bytes in
      MalformedCase(
        name: "ndef: \(what)", input: .bytes(bytes), fileName: "message.ndef",
        command: .ndef(tlv: false), outcome: .errorOrWarnings)
    }
  }

  static func tlv() -> [MalformedCase] {
    let areas: [(String, [UInt8])] = [
      ("3-byte length FFFF", hex("03ffffffd1")),
      ("length past end", hex("0310d101")),
      ("no terminator", hex("0303d00000")),
      ("3-byte form below FF", hex("03ff0005d00000fe")),
      ("Lock Control length 0", hex("0100fe")),
      ("Memory Control length FF", hex("02ff00")),
      ("unknown TLV 05", hex("0503010203fe")),
      ("NDEF length 0", hex("0300fe")),
      ("only NULL TLVs", [UInt8](repeating: 0, count: 64)),
      ("terminator first", hex("fe0303d00000")),
      ("proprietary TLV past end", hex("fdff")),
      ("tag byte only", hex("03")),
    ]
    return areas.map { what, bytes in
      MalformedCase(
        name: "tlv: \(what)", input: .bytes(bytes), fileName: "area.bin",
        command: .ndef(tlv: true), outcome: .errorOrWarnings)
    }
  }

  /// NDEF TLV areas with lying lengths placed in the READ answers (pages 4–11) of a real
  /// Type 2 trace, so `timeline` and `sessions` meet them through the session analysis.
  static func ndefInTrace() -> [MalformedCase] {
    let name = "t2t-ntag215-write-ok.pcap"
    guard let base = load(TestPaths.traces(name)) else { return [] }
    let areas: [(String, [UInt8])] = [
      ("TLV length FE", hex("03fed101ff5501")),
      ("TLV 3-byte length FFFF", hex("03ffffffd1")),
      ("record length past TLV", hex("0306d101ff550161fe")),
      ("long record length FFFFFFFF", hex("030ac101ffffffff55016162fe")),
      ("chunk never ends", hex("0307b50103546f6e65fe")),
      ("Smart Poster nested 5 deep", [0x03, 0x1E] + nestedSmartPoster(5) + [0xFE]),
      ("no NDEF TLV, junk", [UInt8](repeating: 0xAA, count: 32)),
      ("Lock Control lying", hex("01ff0303d00000fe")),
    ]
    return areas.compactMap { what, area in
      guard let bytes = replaceType2Reads(base, area: area) else { return nil }
      return MalformedCase(
        name: "\(name) with NDEF area: \(what)", input: .bytes(bytes), fileName: name,
        outcome: .sameFrames, prefix: nil)
    }
  }

  /// `base` (a pcap of a Type 2 exchange) with the answers to READ page 4 and READ page 8
  /// replaced by the first 32 bytes of `area` (zero-padded), CRC_A recomputed.
  static func replaceType2Reads(_ base: [UInt8], area: [UInt8]) -> [UInt8]? {
    let padded = Array((area + [UInt8](repeating: 0, count: 32)).prefix(32))
    var out = base
    var lastRead: UInt8?
    var replaced = 0
    for r in pcapRecords(base) {
      let data = r.start + 16 + 4
      let payload = Array(base[data..<(r.start + 16 + r.length)])
      let event = base[r.start + 16 + 1]
      if event == 0xFE, payload.count == 4, payload[0] == 0x30 {
        lastRead = payload[1]
        continue
      }
      if event == 0xFF, payload.count == 18, let page = lastRead, page == 4 || page == 8 {
        let chunk = Array(padded[(Int(page) - 4) * 4..<(Int(page) - 4) * 4 + 16])
        let crc = crcA(chunk)
        out.replaceSubrange(data..<(data + 18), with: chunk + [UInt8(crc & 0xFF), UInt8(crc >> 8)])
        replaced += 1
      }
      lastRead = nil
    }
    return replaced == 2 ? out : nil
  }

  /// A Smart Poster holding a Smart Poster … `depth` levels deep, with a URI record inside.
  static func nestedSmartPoster(_ depth: Int) -> [UInt8] {
    var inner: [UInt8] = hex("d10102550161")
    for _ in 0..<depth {
      let length = inner.count
      if length < 256 {
        inner = [0xD1, 0x02, UInt8(length), 0x53, 0x70] + inner
      } else {
        inner =
          [
            0xC1, 0x02, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
            UInt8(length & 0xFF), 0x53, 0x70,
          ] + inner
      }
    }
    return inner
  }

  // MARK: - Helpers

  /// Up to four record indices spread over `count`: first, second, middle, last.
  static func pick(_ count: Int) -> [Int] {
    guard count > 0 else { return [] }
    return Array(Set([0, min(1, count - 1), count / 2, count - 1])).sorted()
  }

  static func load(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  static func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = s.utf8.makeIterator()
    while let h = chars.next(), let l = chars.next() {
      out.append(UInt8(nibble(h) << 4 | nibble(l)))
    }
    return out
  }

  private static func nibble(_ c: UInt8) -> UInt8 {
    switch c {
    case 0x30...0x39: return c - 0x30
    case 0x61...0x66: return c - 0x61 + 10
    default: return c - 0x41 + 10
    }
  }

  static func read32(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
    let v = (0..<4).map { UInt32(b[at + $0]) }
    return bigEndian
      ? v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3] : v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0]
  }

  /// `b` with the 32-bit field at `at` set to `value`, in the file's byte order (pcap magic
  /// A1… = big-endian; pcapng and the project's traces are little-endian).
  static func patch32(_ b: [UInt8], at: Int, _ value: UInt32) -> [UInt8] {
    var out = b
    let bigEndian = b.first == 0xA1
    for i in 0..<4 {
      let shift = UInt32(bigEndian ? 24 - 8 * i : 8 * i)
      out[at + i] = UInt8(value >> shift & 0xFF)
    }
    return out
  }

  static func patch8(_ b: [UInt8], at: Int, _ value: UInt8) -> [UInt8] {
    var out = b
    out[at] = value
    return out
  }

  /// Lines with their `\n`.
  static func splitLines(_ b: [UInt8]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    var start = 0
    for (i, c) in b.enumerated() where c == 0x0A {
      lines.append(Array(b[start...i]))
      start = i + 1
    }
    if start < b.count { lines.append(Array(b[start...])) }
    return lines
  }

  static func crlf(_ line: [UInt8]) -> [UInt8] {
    line.last == 0x0A && line.dropLast().last != 0x0D ? line.dropLast() + [0x0D, 0x0A] : line
  }

  /// CRC_A (ISO/IEC 14443-3 Annex B: initial 0x6363, reflected polynomial 0x8408), sent LSB
  /// first.
  static func crcA(_ bytes: [UInt8]) -> UInt16 {
    var crc: UInt16 = 0x6363
    for b in bytes {
      var ch = b ^ UInt8(crc & 0xFF)
      ch ^= ch << 4
      crc = (crc >> 8) ^ (UInt16(ch) << 8) ^ (UInt16(ch) << 3) ^ (UInt16(ch) >> 4)
    }
    return crc
  }
}

/// SplitMix64: a small deterministic generator, so the corpus is the same on every run.
struct SplitMix64 {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func bytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
  }
}
