import Foundation

/// Flipper Zero `.nfc` files (`Filetype: Flipper NFC device`), versions 2–4, as documented in
/// flipperzero-firmware `documentation/file_formats/NfcFileFormats.md`: `Key: value` lines
/// (ending with LF, CR LF or CR: `TextLines`), `#` comments. Version 2 writes the ATQA LSB
/// first (`44 00`), versions 3 and 4 MSB first (`00 44`). NTAG/Ultralight data: `Signature`, `Mifare version` (all zeros when the tag has
/// no READ_SIG / GET_VERSION), `Counter N` (decimal),
/// `Tearing N`, `Pages total`, `Pages read`, `Page N: xx xx xx xx` (`??` = unknown byte).
enum FlipperNFCDump {
  private static let magic = "Filetype: Flipper NFC device"
  /// The largest file read (1 MiB).
  static let sizeLimit = 1 << 20

  /// The dump, nil if the input is not a Flipper NFC file.
  /// - Throws: `TraceError.malformed` naming the line of a bad value.
  static func read(_ input: TraceInput) throws -> TagDump? {
    let head = String(decoding: input.bytes.prefix(64), as: UTF8.self)
    guard head.hasPrefix(magic) || head.hasPrefix("\u{FEFF}" + magic) else { return nil }
    // The largest tag (NTAG I2C 2K, 0x1FF pages) makes a file of some 15 KiB: a bigger one is
    // not a dump the Flipper wrote, and is said so rather than taken for an unknown format.
    guard input.bytes.count <= sizeLimit else {
      throw TraceError(
        .malformed, at: .wholeFile(input.path),
        "a Flipper NFC file of \(input.bytes.count) bytes, more than the \(sizeLimit) bytes "
          + "(1 MiB) a tag dump can take; expected a dump as the Flipper writes it")
    }
    var parser = Parser(input: input)
    // Split on the bytes (`TextLines`: LF, CR LF or CR): as Characters, a CR LF pair is one
    // grapheme and would not split.
    let bytes = input.bytes
    var (start, number) = (bytes.startIndex, 0)
    while start < bytes.endIndex {
      let (end, next) = TextLines.line(in: bytes, from: start)
      number += 1
      let location = input.location(
        unit: "line", record: number, offset: start - bytes.startIndex)
      try parser.line(Substring(String(decoding: bytes[start..<end], as: UTF8.self)), at: location)
      start = next
    }
    return parser.finish()
  }

  private struct Parser {
    let input: TraceInput
    var version = 0
    var deviceType = ""
    var dump: TagDump
    var pages: [Int: ([UInt8], Bool)] = [:]
    var pagesTotal: Int?
    var pagesRead: Int?
    var counters: [Int: Int] = [:]
    /// `Block N` lines (MIFARE Classic sectors): counted, not read.
    var blocks = 0
    /// The ATS as current firmware stores it, byte by byte (`T0`, `TA(1)`, `TB(1)`, `TC(1)`,
    /// `T1...Tk`); assembled with its TL in `finish`.
    var atsParts: [String: [UInt8]] = [:]

    init(input: TraceInput) {
      self.input = input
      dump = TagDump(format: "flipper-nfc", path: input.path)
    }

    mutating func line(_ raw: Substring, at location: SourceLocation) throws {
      let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !line.isEmpty, !line.hasPrefix("#") else { return }
      guard let colon = line.firstIndex(of: ":") else { return try noColon(line, at: location) }
      let key = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      func bytes(_ count: Int?) throws -> [UInt8] {
        guard let b = Hex.bytes(value), count == nil || b.count == count else {
          let size = count.map { "\($0) hex bytes" } ?? "hex bytes"
          throw TraceError(.malformed, at: location, "\(key): expected \(size), found \"\(value)\"")
        }
        return b
      }
      func number() throws -> Int {
        guard let n = Int(value), n >= 0, n < 1 << 24 else {
          throw TraceError(.malformed, at: location, "\(key): expected a decimal number")
        }
        return n
      }
      switch key {
      case "Version": version = try number()
      case "Device type":
        deviceType = value
        if let other = Self.otherTechnology(value) {
          throw TraceError(
            .unsupported, at: location,
            "Flipper NFC file of device type \(value) (\(other)): only NFC-A tags "
              + "(NTAG/Ultralight, ISO14443-3A/-4A, Mifare Classic, Mifare DESFire) are read")
        }
      case "NTAG/Ultralight type": dump.statedProduct = value
      case "UID":
        let uid = try bytes(nil)
        guard UIDLength.isValid(uid.count) else {
          throw TraceError(
            .malformed, at: location,
            "UID: expected 4, 7 or 10 hex bytes (single, double or triple size), found "
              + "\(uid.count)")
        }
        dump.uid = uid
      case "ATQA": dump.atqa = atqa(try bytes(2))
      case "SAK": dump.sak = try bytes(1).first
      case "ATS": dump.ats = try bytes(nil)  // ISO14443-4A files of older firmware
      case "T0", "TA(1)", "TB(1)", "TC(1)", "T1...Tk": atsParts[key] = try bytes(nil)
      // Flipper writes both always: zeros when the tag has no READ_SIG / GET_VERSION (an
      // Ultralight C, an original Ultralight).
      case "Signature": dump.signature = TagDump.stored(try bytes(32))
      case "Mifare version": dump.version = TagDump.stored(try bytes(8))
      case "Pages total": pagesTotal = try number()
      case "Pages read": pagesRead = try number()
      default:
        if let index = Self.indexed(key, "Counter ") {
          counters[index] = try number()
        } else if let index = Self.indexed(key, "Page ") {
          guard pages[index] == nil else {
            throw TraceError(
              .malformed, at: location, "\(key) given a second time: each page once expected")
          }
          pages[index] = try page(value, key: key, at: location)
        } else if key.hasPrefix("Page ") || key.hasPrefix("Counter ") {
          // A number out of range or not a number: the page or counter would be lost unseen.
          throw TraceError(
            .malformed, at: location,
            "\(key): expected a decimal index 0–\(Self.maximumPages - 1)")
        } else if key.hasPrefix("Block "), Int(key.dropFirst(6)) != nil {
          blocks += 1
        }
      }
    }

    /// Version 2 stores the ATQA in air order (LSB first), later versions MSB first.
    func atqa(_ b: [UInt8]) -> UInt16 {
      version <= 2 ? UInt16(b[1]) << 8 | UInt16(b[0]) : UInt16(b[0]) << 8 | UInt16(b[1])
    }

    func page(_ value: String, key: String, at location: SourceLocation) throws -> ([UInt8], Bool) {
      let parts = value.split(separator: " ")
      var out: [UInt8] = []
      var known = true
      for part in parts {
        if part == "??" {
          out.append(0)
          known = false
        } else if part.count == 2, let b = Hex.bytes(part) {
          out.append(contentsOf: b)
        }
      }
      guard out.count == 4, parts.count == 4 else {
        throw TraceError(
          .malformed, at: location, "\(key): expected 4 hex bytes or ??, found \"\(value)\"")
      }
      return (out, known)
    }

    /// The technology of a Flipper device type that is not NFC-A (ISO 14443-B, ISO 15693 /
    /// NFC-V, FeliCa / NFC-F), whose UID is no ISO/IEC 14443-3 type A UID; nil for NFC-A ones.
    static func otherTechnology(_ deviceType: String) -> String? {
      let t = deviceType.lowercased()
      if t.hasPrefix("iso14443-3b") || t.hasPrefix("iso14443-4b") || t.hasPrefix("st25tb") {
        return "ISO 14443 type B"
      }
      if t.hasPrefix("iso15693") || t.hasPrefix("slix") { return "ISO 15693, NFC-V" }
      if t.hasPrefix("felica") { return "FeliCa, NFC-F" }
      return nil
    }

    /// Most pages read: NTAG I2C plus 2K, the largest Type 2 memory, has far fewer.
    static let maximumPages = 4096

    static func indexed(_ key: String, _ prefix: String) -> Int? {
      guard key.hasPrefix(prefix), let n = Int(key.dropFirst(prefix.count)), n >= 0,
        n < maximumPages
      else { return nil }
      return n
    }

    /// Keys whose value the report reads: such a line without its colon is cut or damaged
    /// (a file that ends in `Page 147`), which would leave the value out in silence.
    private static let valueKeys = [
      "Page ", "Counter ", "UID", "ATQA", "SAK", "ATS", "Signature", "Mifare version",
      "Pages total", "Pages read", "Version", "Device type", "NTAG/Ultralight type",
    ]

    /// A line that is no `Key: value` line (the Flipper writes nothing else): an error when it
    /// starts with a key whose value is read, else a warning that it is left out.
    private mutating func noColon(_ line: String, at location: SourceLocation) throws {
      let shown = line.count > 40 ? String(line.prefix(40)) + "…" : line
      if Self.valueKeys.contains(where: { line.hasPrefix($0) }) {
        throw TraceError(
          .malformed, at: location,
          "expected a \"Key: value\" line, found \"\(shown)\" without its colon and value "
            + "(the file is cut or damaged here)")
      }
      // A warning about reading the input (it has a place): `report` prints it on standard
      // error, as it does a trace's, not among the dump's notes.
      dump.warnings.append(
        TraceWarning(
          "not a \"Key: value\" line (\"\(shown)\"): left out", location: location))
    }

    mutating func finish() -> TagDump {
      if version < 2 || version > 4 {
        dump.warnings.append(
          TraceWarning("Flipper NFC file version \(version): versions 2–4 are known"))
      }
      // `Page N` indices stop at 4095 (`indexed`); a larger `Pages total` (no Type 2 tag has
      // that many pages) would only allocate unknown pages.
      if let total = pagesTotal, total > Self.maximumPages {
        dump.warnings.append(
          TraceWarning(
            "Pages total: \(total) is more pages than any Type 2 tag has; reading at most "
              + "\(Self.maximumPages)"))
      }
      let given = (pages.keys.max() ?? -1) + 1
      if let total = pagesTotal, total < given {
        dump.warnings.append(
          TraceWarning(
            "Pages total: \(total), but the file gives pages up to Page \(given - 1): all "
              + "\(given) are read"))
      }
      let count = max(min(pagesTotal ?? 0, Self.maximumPages), given)
      for index in 0..<count {
        let (bytes, known) = pages[index] ?? ([0, 0, 0, 0], false)
        dump.pages.append(bytes)
        dump.pageKnown.append(known && index < (pagesRead ?? count))
      }
      if count > 0, pages.count < count {
        dump.warnings.append(
          TraceWarning("\(count - pages.count) of \(count) pages missing from the file"))
      }
      dump.counters = counters.keys.sorted().compactMap { counters[$0] }
      if dump.ats == nil, let t0 = atsParts["T0"], !t0.isEmpty {
        // TL counts itself (ISO/IEC 14443-4 §5.2.1).
        let body =
          t0 + ["TA(1)", "TB(1)", "TC(1)", "T1...Tk"].flatMap { atsParts[$0] ?? [] }
        dump.ats = [UInt8(truncatingIfNeeded: body.count + 1)] + body
      }
      // Versions 2–3 name the product in `Device type` (`Mifare Ultralight C`, `NTAG215`);
      // version 4 says `NTAG/Ultralight` there and names it in `NTAG/Ultralight type`.
      if dump.statedProduct == nil, !deviceType.isEmpty, deviceType != "NTAG/Ultralight" {
        dump.statedProduct = deviceType
      }
      if let warning = Type2Header.uidCheck(dump) { dump.warnings.append(warning) }
      if blocks > 0 {
        dump.warnings.append(
          TraceWarning(
            "\(blocks) MIFARE Classic block(s) not read: only Type 2 pages are (Core NFC has no "
              + "MIFARE Classic access)"))
      } else if count == 0, !deviceType.isEmpty {
        dump.warnings.append(TraceWarning("device type \(deviceType): no Type 2 pages stored"))
      }
      return dump
    }
  }
}
