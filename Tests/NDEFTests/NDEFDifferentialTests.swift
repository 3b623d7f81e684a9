import Foundation
import NDEF
import TestSupport
import Testing

/// ndeflib (nfcpy/ndeflib, `import ndef`) as an oracle. The corpus is decoded by one python3
/// process running `Tests/NDEFTests/ndeflib_oracle.py`.
enum NDEFLibOracle {
  static let script = TestPaths.root.appendingPathComponent("Tests/NDEFTests/ndeflib_oracle.py")
    .path

  /// True when `python3 -c "import ndef"` succeeds.
  static let available: Bool = {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import ndef"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
  }()

  /// One decoded JSON object per corpus entry.
  static func run(_ corpus: [[UInt8]]) throws -> [[String: Any]] {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ndef-oracle-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("corpus.hex")
    try corpus.map(hexString).joined(separator: "\n").appending("\n").write(
      to: input, atomically: true, encoding: .utf8)
    let out = dir.appendingPathComponent("out.jsonl")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    let handle = try FileHandle(forWritingTo: out)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", script, input.path]
    p.standardOutput = handle
    try p.run()
    p.waitUntilExit()
    try handle.close()
    let text = try String(contentsOf: out, encoding: .utf8)
    return try text.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
  }
}

/// Seeded corpus built with our encoder.
struct NDEFCorpus {
  var rng = SplitMix64(seed: 0x4E44_4546)
  let languages = ["en", "de", "fr-CA", "zh-Hans", "ja", "pt-BR"]
  let texts = [
    "Hello", "Grüße", "日本語のテキスト", "emoji 😀 ok", "", "line\nbreak",
    String(repeating: "long ", count: 70),
  ]

  mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
  mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
  mutating func bytes(_ n: Int) -> [UInt8] {
    (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
  }
  mutating func ascii(_ n: Int) -> [UInt8] {
    (0..<n).map { _ in UInt8.random(in: 0x61...0x7A, using: &rng) }
  }

  mutating func payloadLength() -> Int {
    chance(0.12) ? int(256...700) : int(0...40)
  }

  mutating func record(depth: Int) -> NDEFRecord {
    let id = chance(0.3) ? ascii(int(0...5)) : []
    let kind = int(0...(depth < 2 ? 9 : 8))
    var tnf: NDEFTNF
    var type: [UInt8]
    var payload: [UInt8]
    switch kind {
    case 0:
      let utf16 = chance(0.3)
      let t = NDEFRecord.text(
        texts[int(0...texts.count - 1)], language: languages[int(0...5)], utf16: utf16)
      (tnf, type, payload) = (.wellKnown, t.type, t.payload)
    case 1:
      (tnf, type) = (.wellKnown, [0x55])
      payload = [UInt8(int(0...0x23))] + ascii(int(0...30))
    case 2:
      (tnf, type, payload) = (
        .media, Array(["text/plain", "image/png", "application/x-y"][int(0...2)].utf8),
        bytes(payloadLength())
      )
    case 3:
      (tnf, type, payload) = (
        .absoluteURI, Array("https://example.com/t".utf8), bytes(payloadLength())
      )
    case 4: (tnf, type, payload) = (.external, Array("example.com:t".utf8), bytes(payloadLength()))
    case 5: (tnf, type, payload) = (.unknown, [], bytes(payloadLength()))
    case 6: return .empty
    case 7: (tnf, type, payload) = (.wellKnown, ascii(int(1...3)), bytes(payloadLength()))
    case 8:
      (tnf, type, payload) = (
        .media, Array("application/vnd.bluetooth.ep.oob".utf8),
        [0x10, 0x00] + bytes(6) + [0x07, 0x09] + ascii(6)
      )
    default:
      let inner = NDEFMessage(
        records: (0..<int(1...3)).map { _ in record(depth: depth + 1) } + [
          .uri("https://sp.example/\(int(0...99))")
        ])
      (tnf, type, payload) = (.wellKnown, Array("Sp".utf8), inner.bytes)
    }
    if tnf != .empty && payload.count >= 2 && chance(0.15) {
      var parts: [[UInt8]] = []
      var rest = payload[...]
      let n = int(2...4)
      for i in 0..<n {
        let take = i == n - 1 ? rest.count : int(0...rest.count)
        parts.append(Array(rest.prefix(take)))
        rest = rest.dropFirst(take)
      }
      return NDEFRecord(
        tnf: tnf, type: type, id: id, chunkPayloads: parts,
        shortRecords: parts.map { _ in chance(0.8) })
    }
    return NDEFRecord(
      tnf: tnf, type: type, id: id, payload: payload, shortRecord: chance(0.8),
      idLengthPresent: chance(0.05))
  }

  mutating func message() -> [UInt8] {
    NDEFMessage(records: (0..<int(1...4)).map { _ in record(depth: 0) }).bytes
  }

  /// Random damage: flag/TNF bit flip in a header, truncation, trailing bytes, byte overwrite.
  mutating func mutate(_ b: [UInt8]) -> [UInt8] {
    var out = b
    let headers = NDEFMessageParser.parse(b, mode: .ignore).message.rawRecords.map(\.offset)
    switch int(0...3) {
    case 0:
      if let h = headers.randomElement(using: &rng) {
        out[h] ^= [0x80, 0x40, 0x20, 0x10, 0x08, 0x01, 0x02, 0x04][int(0...7)]
      }
    case 1: out = Array(out.prefix(int(0...max(0, out.count - 1))))
    case 2: out += bytes(int(1...3))
    default: if !out.isEmpty { out[int(0...out.count - 1)] = UInt8(int(0...255)) }
    }
    return out
  }

  /// Hand vectors: the app mistakes, chunks, empty records, unknown TNF, malformed lengths.
  static let hand: [String] = [
    "d1 01 05 54 48 65 6c 6c 6f",  // Text "Hello" without status byte
    "d1 01 17 55 61 68 74 74 70 73 3a 2f 2f 77 77 77 2e 65 78 61 6d 70 6c 65 2e 63 6e",  // U "ahttps://www.example.cn"
    "d1 01 13 55 68 74 74 70 73 3a 2f 2f 65 78 61 6d 70 6c 65 2e 63 6f 6d",  // U "https://example.com"
    "d1 01 0a 54 42 65 6e 48 65 6c 6c 6f 21 21",  // Text with RFU bit set (0x42)
    "d1 01 07 54 82 65 6e 00 41 00 42",  // UTF-16 without BOM
    "d1 01 09 54 82 65 6e fe ff 00 48 00 69",  // UTF-16 BE with BOM
    "d1 01 09 54 82 65 6e ff fe 48 00 69 00",  // UTF-16 LE with BOM
    "d1 01 0d 55 04 68 74 74 70 73 3a 2f 2f 61 2e 69 6f",  // https:// + "https://a.io"
    "b2 03 02 74 2f 78 61 62 36 00 02 63 64 56 00 01 65",  // chunked t/x "abcde"
    "b2 03 01 74 2f 78 41 52 00 01 42",  // chunk with wrong TNF
    "b2 03 01 74 2f 78 41 5e 00 01 00 42",  // chunk with IL
    "d0 00 00", "90 00 00 10 00 00 50 00 00",  // empty records
    "d5 00 03 01 02 03",  // unknown TNF
    "d6 00 01 41", "d7 00 00", "d6 01 00 41",  // unchanged alone, TNF 7, unchanged with type
    "d1 01 09 55 00 41", "c1 01 02 55 00 41", "c1 01 02", "d1", "",  // malformed lengths, empty input
    "d1 01 01 55 00 00 00",  // trailing bytes
    "51 01 01 55 00", "91 01 01 55 00 11 01 01 55 00", "f1 01 01 55 00",  // MB/ME/CF
    "d2 02 01 c3 a9 00",  // non-ASCII type
  ]
}

@Suite("NDEF vs ndeflib")
struct NDEFDifferentialTests {
  /// Our findings that ndeflib does not check, with the clause that says we are right.
  static let stricterThanNDEFLib: [String: String] = [
    "chunk-wrong-tnf":
      "NFC Forum NDEF 1.0 §2.3.3: middle and terminating chunks MUST have TNF 0x06",
    "chunk-il-set": "NFC Forum NDEF 1.0 §2.3.3: middle and terminating chunks MUST have IL 0",
    "type-urn-prefix":
      "NFC Forum RTD 1.0 §2.1, §3.1: the TYPE field holds the name without its urn:nfc: prefix",
    "chunk-unterminated":
      "NFC Forum NDEF 1.0 §2.3.3: a chunked payload ends with a terminating chunk (CF clear)",
    "unchanged-outside-chunk":
      "NFC Forum NDEF 1.0 §3.2.6: TNF 0x06 MUST NOT be used outside chunks",
    "empty-message": "NFC Forum NDEF 1.0 §2.3.1: a message holds at least one record",
    "text-status-rfu-set": "NFC Forum RTD-Text 1.0 §3.2.1: status bit 6 is RFU and MUST be 0",
    "text-language-invalid":
      "NFC Forum RTD-Text 1.0 §3.2.1: the language code is an IANA (RFC 5646) code",
    "text-no-status-byte": "NFC Forum RTD-Text 1.0 §3.2.1: byte 0 is the status byte",
    "uri-invalid-characters": "RFC 3987 §2.2: DEL (0x7F) is not allowed in an IRI",
    "mime-type-invalid":
      "NFC Forum NDEF 1.0 §3.2.6 / RFC 2046 §5.1 / RFC 6838 §4.2: TNF 2 TYPE is type/subtype of restricted-name characters",
    "absolute-uri-invalid":
      "NFC Forum NDEF 1.0 §3.2.6 / RFC 3986 §4.3: TNF 3 TYPE is an absolute-URI",
  ]

  static func ndeflibType(_ r: NDEFRawRecord) -> String {
    let t = String(decoding: r.type, as: UTF8.self)
    switch r.tnf {
    case .empty: return ""
    case .wellKnown: return "urn:nfc:wkt:" + t
    case .external: return "urn:nfc:ext:" + t
    case .unknown: return "unknown"
    case .unchanged: return "unchanged"
    default: return t
    }
  }

  static func same(_ ours: NDEFRawRecord, _ theirs: [String: Any]) -> Bool {
    theirs["tnf"] as? Int == Int(ours.tnfValue) && theirs["type"] as? String == ndeflibType(ours)
      && theirs["id"] as? String == hexString(ours.id)
      && theirs["payload"] as? String == hexString(ours.payload)
  }

  /// Why ndeflib rejects an input we accept (nil = no documented reason).
  static func ndeflibOnly(_ error: String?, _ input: [UInt8]) -> String? {
    guard let error, error.contains("can not convert the record type string") else { return nil }
    let tnf3 = NDEFMessageParser.parse(input, mode: .relax).message.rawRecords.contains {
      $0.tnf == .absoluteURI
    }
    return tnf3
      ? "RFC 3986 §4.3: an absolute-URI needs only scheme ':' hier-part (ndeflib also requires an authority and a path)"
      : nil
  }

  /// Why we call `input` malformed when ndeflib does not (nil = no documented reason).
  static func reason(for findings: [NDEFFinding]) -> String? {
    let errors = findings.filter { $0.severity == .error }
    let clauses = errors.compactMap { stricterThanNDEFLib[$0.code] }
    return !errors.isEmpty && clauses.count == errors.count ? clauses.joined(separator: "; ") : nil
  }

  @Test(
    "1,000 seeded messages + hand vectors: same records and same malformed verdicts as ndeflib",
    .enabled(
      if: NDEFLibOracle.available, "skipped: python3 with ndeflib (pip install ndeflib) not found"))
  func differential() throws {
    var gen = NDEFCorpus()
    var corpus: [[UInt8]] = []
    var roundTrips = 0
    for i in 0..<1200 {
      let m = gen.message()
      if i % 4 == 3 {
        corpus.append(gen.mutate(m))
      } else {
        corpus.append(m)
        // Symmetry: a parsed valid message serializes to the same bytes.
        #expect((try? NDEFMessage(parsing: m))?.bytes == m, "round trip fails for \(hexString(m))")
        roundTrips += 1
      }
    }
    #expect(roundTrips == 900)
    corpus += NDEFCorpus.hand.map(hx)
    let oracle = try NDEFLibOracle.run(corpus)
    try #require(oracle.count == corpus.count)
    var agreedRecords = 0
    var explained: [String: Int] = [:]
    for (i, input) in corpus.enumerated() {
      let o = oracle[i]
      let theirs = { (mode: String) in (o[mode] as? [String: Any]) ?? [:] }
      check(
        input, theirs("strict"), theirs("relax"), theirs("ignore"), theirs("typed"), &agreedRecords,
        &explained)
    }
    #expect(agreedRecords > 900)
    print(
      "ndeflib differential: \(corpus.count) inputs, \(agreedRecords) agreed record lists, explained disagreements: \(explained)"
    )
  }

  func check(
    _ input: [UInt8], _ strict: [String: Any], _ relax: [String: Any], _ ignore: [String: Any],
    _ typed: [String: Any], _ agreed: inout Int, _ explained: inout [String: Int]
  ) {
    let hex = hexString(input)
    let ourStrict = NDEFMessageParser.parse(input, mode: .strict)
    var ourRelax = NDEFMessageParser.parse(input, mode: .relax)
    // ndeflib rebuilds every record from its type string, so TNF 2/3 TYPE syntax counts as
    // structure there: add our type-syntax errors for top-level records.
    let heads = Set(ourRelax.message.rawRecords.map(\.offset))
    let typeErrors = NDEFValidator.validate(input, mode: .relax).findings.filter {
      ["mime-type-invalid", "absolute-uri-invalid"].contains($0.code) && heads.contains($0.offset)
    }
    ourRelax.findings += typeErrors
    let theirOK = strict["ok"] as? Bool ?? false
    let ourOK =
      ourStrict.failure == nil && !ourStrict.findings.contains { $0.severity == .error }
      && typeErrors.isEmpty
    if theirOK != ourOK {
      let why =
        ourOK
        ? Self.ndeflibOnly(strict["error"] as? String, input) : Self.reason(for: ourRelax.findings)
      #expect(
        why != nil,
        "strict verdicts differ for \(hex): ndeflib \(strict["error"] ?? "ok"), ours \(ourStrict.failure?.description ?? "ok")"
      )
      if let why { explained[why, default: 0] += 1 }
    }
    let relaxOK = relax["ok"] as? Bool ?? false
    let ourRelaxOK = !ourRelax.findings.contains { $0.severity == .error }
    if relaxOK != ourRelaxOK {
      let why =
        ourRelaxOK
        ? Self.ndeflibOnly(relax["error"] as? String, input) : Self.reason(for: ourRelax.findings)
      #expect(why != nil, "relax verdicts differ for \(hex): ndeflib \(relax["error"] ?? "ok")")
    }
    let ours = ourRelax.message.rawRecords
    let theirIgnore = ignore["records"] as? [[String: Any]] ?? []
    #expect(
      theirIgnore.count <= ours.count && zip(ours, theirIgnore).allSatisfy { Self.same($0, $1) },
      "ndeflib ignore-mode records are not a prefix of ours for \(hex)")
    guard theirOK && ourOK else { return }
    let theirRecords = strict["records"] as? [[String: Any]] ?? []
    let equal =
      theirRecords.count == ours.count && zip(ours, theirRecords).allSatisfy { Self.same($0, $1) }
    #expect(
      equal,
      "records differ for \(hex): ours \(ours.map { "\($0.tnfValue) \(Self.ndeflibType($0)) \(hexString($0.id)) \(hexString($0.payload).prefix(20))" }) theirs \(theirRecords.map { "\($0["tnf"] ?? "-") \($0["type"] ?? "-") \($0["id"] ?? "-") \(String(describing: $0["payload"] ?? "-").prefix(20))" })"
    )
    if equal { agreed += 1 }
    checkTyped(input, typed, &explained)
  }

  /// Text and URI payloads: same verdict and same decoded values as ndeflib's TextRecord /
  /// UriRecord, except where a clause says otherwise.
  func checkTyped(_ input: [UInt8], _ typed: [String: Any], _ explained: inout [String: Int]) {
    let hex = hexString(input)
    let report = NDEFValidator.validate(input, mode: .strict)
    let textURI = report.findings.filter {
      ($0.code.hasPrefix("text-") || $0.code.hasPrefix("uri-")) && $0.severity == .error
    }
    let theirOK = typed["ok"] as? Bool ?? false
    let chunkedTU = report.records.contains {
      $0.record.isChunked && ($0.record.type == [0x54] || $0.record.type == [0x55])
        && $0.record.tnf == .wellKnown
    }
    let noBOM = report.findings.contains { $0.code == "text-utf16-no-bom" }
    if theirOK != textURI.isEmpty {
      let why =
        chunkedTU
        ? "NFC Forum NDEF 1.0 §2.3.3: the payload is the concatenation of all chunks (ndeflib decodes the initial chunk alone)"
        : noBOM
          ? "NFC Forum RTD-Text 1.0 §3.4: UTF-16 without BOM is big-endian (Python's codec uses host order)"
          : Self.reason(for: textURI)
      #expect(
        why != nil,
        "typed verdicts differ for \(hex): ndeflib \(typed["error"] ?? "ok"), ours \(textURI.map(\.code))"
      )
      if let why { explained[why, default: 0] += 1 }
      return
    }
    guard theirOK, !chunkedTU else { return }
    let theirs = typed["records"] as? [[String: Any]] ?? []
    var physical = 0
    for r in report.records {
      defer { physical += r.record.chunks.count }
      guard physical < theirs.count else { break }
      let t = theirs[physical]
      switch r.payload {
      case .text(let text) where !noBOM:
        #expect(t["text"] as? String == text.text, "text differs for \(hex)")
        #expect(t["language"] as? String == text.language, "language differs for \(hex)")
      case .uri(let uri):
        #expect(t["uri"] as? String == uri.uri, "URI differs for \(hex)")
      default: break
      }
    }
  }
}
