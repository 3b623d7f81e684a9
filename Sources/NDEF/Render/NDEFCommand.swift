import Foundation

/// Output format of `nfctrace ndef`.
public enum NDEFOutputFormat: String, Sendable, CaseIterable {
  case text, json
}

/// Options of `nfctrace ndef INPUT [--tlv] [--mode strict|relax|ignore]
/// [--format text|json] [--show-secrets]`.
public struct NDEFCommandOptions: Sendable {
  /// Input is a Type 2 TLV area (starting at page 4) rather than a bare NDEF message.
  public var tlv: Bool
  /// Validation mode (default relax).
  public var mode: NDEFValidationMode
  /// Output format.
  public var format: NDEFOutputFormat
  /// Show Wi-Fi network keys instead of "present, N bytes".
  public var showSecrets: Bool
  /// Nesting limit for Smart Poster / Handover.
  public var maxDepth: Int

  /// Creates options; defaults: bare message, relax, text, secrets hidden, depth 4.
  public init(
    tlv: Bool = false, mode: NDEFValidationMode = .relax, format: NDEFOutputFormat = .text,
    showSecrets: Bool = false, maxDepth: Int = NDEFValidator.defaultMaxDepth
  ) {
    self.tlv = tlv
    self.mode = mode
    self.format = format
    self.showSecrets = showSecrets
    self.maxDepth = maxDepth
  }
}

/// What `nfctrace ndef` prints and whether it should exit non-zero.
public struct NDEFCommandResult: Sendable, Equatable {
  /// Text to print on stdout (ends with a newline).
  public let output: String
  /// True when the input could not be read, or the report failed (see `NDEFReport.failed`).
  public let failed: Bool
}

/// The `nfctrace ndef` job, independent of argument parsing.
public enum NDEFCommand {
  /// Runs the whole job for the INPUT argument: hex text (spaces, colons, dashes, newlines
  /// allowed), `@FILE` (binary), or `-` (stdin: hex text when it is only hex digits and
  /// separators after an optional `0x`, else binary). `readFile`/`readStdin` are injectable
  /// for tests.
  public static func run(
    input: String, options: NDEFCommandOptions,
    readFile: (String) throws -> [UInt8] = readFile,
    readStdin: () throws -> [UInt8] = {
      [UInt8](try BoundedRead.readToEnd(FileHandle.standardInput, limit: inputLimit))
    }
  ) -> NDEFCommandResult {
    do {
      let bytes = try parseInput(input, readFile: readFile, readStdin: readStdin)
      return run(bytes: bytes, options: options)
    } catch {
      return inputError(error, options)
    }
  }

  /// Runs the job on bytes already read.
  public static func run(bytes: [UInt8], options: NDEFCommandOptions) -> NDEFCommandResult {
    var area: Type2TLVArea?
    var message = bytes
    var map: NDEFAddressMap?
    if options.tlv {
      // A whole memory dump holds pages 0–3 first: the TLVs start at byte 16 and end with the
      // data area the CC declares (CC2 × 8 bytes, NFC Forum T2T 1.0 §6.1): the lock and
      // configuration pages after it are no TLVs.
      let dump = isType2Dump(bytes)
      let declared = dump ? Array(bytes.prefix(16 + Int(bytes[14]) * 8)) : bytes
      let parsed = Type2TLVArea(parsing: declared, baseAddress: dump ? 0 : 16)
      area = parsed
      guard let ndef = parsed.ndef, !ndef.value.isEmpty else {
        return tlvWithoutMessage(parsed, options)
      }
      message = ndef.value
      // Offsets count in the input: the value runs around lock and reserved bytes (NFC Forum
      // T2T 1.0 §2.3.1, §2.3.2), whose addresses are tag byte addresses.
      map = parsed.ndefAddressMap.map {
        NDEFAddressMap(
          runs: $0.runs.map {
            ($0.lowerBound - parsed.baseAddress)..<($0.upperBound - parsed.baseAddress)
          })
      }
    }
    let report =
      map.map {
        NDEFValidator.validate(message, mode: options.mode, maxDepth: options.maxDepth, at: $0)
      } ?? NDEFValidator.validate(message, mode: options.mode, maxDepth: options.maxDepth)
    let output: String
    switch options.format {
    case .text:
      output = NDEFTextRenderer.render(report, tlvArea: area, showSecrets: options.showSecrets)
    case .json:
      output =
        NDEFJSONRenderer.render(report, tlvArea: area, showSecrets: options.showSecrets) + "\n"
    }
    let tlvFailed =
      options.mode != .ignore && (area?.findings.contains { $0.severity == .error } ?? false)
    return NDEFCommandResult(output: output, failed: report.failed || tlvFailed)
  }

  /// The bytes of file `path`; a pipe (`<(…)`, a FIFO, /dev/stdin), which `Data(contentsOf:)`
  /// refuses, is read as a stream.
  /// - Throws: the file system's error when the path cannot be opened at all.
  public static func readFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    return [UInt8](try BoundedRead.readToEnd(handle, limit: inputLimit))
  }

  /// The most bytes INPUT may hold (64 MiB): an NDEF message of a tag is at most 16 MiB
  /// (ENLEN's 3 bytes, NFC Forum T4T 3.0), so more is not a message, and an endless stream
  /// (`@/dev/zero`, `yes |`) must end.
  public static let inputLimit = 64 << 20

  /// Whether `bytes` is a Type 2 memory dump from page 0 rather than a data area from page 4:
  /// the CC's magic number E1h at byte 12 and the UID's check byte BCC0 = 88h ⊕ UID0 ⊕ UID1
  /// ⊕ UID2 at byte 3, BCC1 = UID3 ⊕ UID4 ⊕ UID5 ⊕ UID6 at byte 8 (NFC Forum T2T 1.0
  /// §2.1–2.2; NXP NTAG213/215/216 datasheet §8.5.1). Both check bytes must hold: a data area
  /// matches one by chance once in 256.
  static func isType2Dump(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 16 && bytes[12] == 0xE1 && bytes[3] == 0x88 ^ bytes[0] ^ bytes[1] ^ bytes[2]
      && bytes[8] == bytes[4] ^ bytes[5] ^ bytes[6] ^ bytes[7]
  }

  /// Reads INPUT (see `run(input:options:readFile:readStdin:)`).
  ///
  /// - Throws: `NDEFError` `.invalidInput`: bad hex (offset = character position, 0-based),
  ///   unreadable file. No bytes at all (`""`, an empty file or standard input) is not an input
  ///   error: it decodes as the empty message, finding `empty-message`, whatever form it came in.
  public static func parseInput(
    _ input: String, readFile: (String) throws -> [UInt8], readStdin: () throws -> [UInt8]
  ) throws(NDEFError) -> [UInt8] {
    if input == "-" {
      // Standard input may be a directory or closed (`< /tmp`, `<&-`): an input error.
      let raw: [UInt8]
      do {
        raw = try readStdin()
      } catch {
        throw NDEFError(
          kind: .invalidInput, code: "input-unreadable", offset: 0,
          expected: "readable standard input",
          message: "cannot read standard input: \(ReadErrorText.describe(error))")
      }
      let text = String(decoding: raw, as: UTF8.self)
      // Hex text may start with `0x`, as an argument may (a binary message starting with the
      // bytes 30h 78h would have a chunk flag on its first record).
      let body = raw.drop { Hexer.isSeparator($0) }
      let digits =
        body.starts(with: [0x30, 0x78]) || body.starts(with: [0x30, 0x58])
        ? body.dropFirst(2) : body
      let hexOnly = digits.allSatisfy { Hexer.isSeparator($0) || Hexer.nibble($0) != nil }
      return hexOnly ? try parseHex(text) : raw
    }
    if input.hasPrefix("@") {
      let path = String(input.dropFirst())
      do {
        return try readFile(path)
      } catch {
        throw NDEFError(
          kind: .invalidInput, code: "input-unreadable", offset: 0, expected: "a readable file",
          message: "cannot read \(path): \(ReadErrorText.describe(error))")
      }
    }
    return try parseHex(input)
  }

  /// Parses hex text; spaces, tabs, newlines, `:` and `-` separate bytes; an optional `0x`
  /// prefix is accepted at the start.
  ///
  /// - Throws: `NDEFError` `.invalidInput` with `offset` = 0-based character position of the
  ///   first bad character, or of the lone last digit for an odd digit count.
  /// For hex input that names an existing file: how to give a file instead.
  static func fileHint(_ text: String) -> String {
    guard !text.isEmpty, text.count < 4096, FileManager.default.fileExists(atPath: text) else {
      return ""
    }
    return " (the input is read as hex; for the file \(text) give @\(text))"
  }

  public static func parseHex(_ text: String) throws(NDEFError) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count / 2)
    var high: UInt8?
    var highPos = 0
    let chars = Array(text.unicodeScalars)
    var start = 0
    if chars.count >= 2, chars[0] == "0", chars[1] == "x" || chars[1] == "X" { start = 2 }
    for i in start..<chars.count {
      let c = chars[i]
      let v = c.value < 0x80 ? UInt8(c.value) : 0xFF
      if Hexer.isSeparator(v) {
        if high != nil {
          throw NDEFError(
            kind: .invalidInput, code: "input-hex-odd", offset: highPos,
            expected: "two hex digits per byte",
            message:
              "hex digit '\(Character(chars[highPos]))' at character \(highPos) has no partner")
        }
        continue
      }
      guard let n = Hexer.nibble(v) else {
        throw NDEFError(
          kind: .invalidInput, code: "input-hex-invalid", offset: i,
          expected: "hex digit 0-9 a-f or a separator",
          message: "invalid character '\(Character(c))' at character \(i)" + fileHint(text))
      }
      if let h = high {
        out.append(h << 4 | n)
        high = nil
      } else {
        high = n
        highPos = i
      }
    }
    if high != nil {
      throw NDEFError(
        kind: .invalidInput, code: "input-hex-odd", offset: highPos,
        expected: "two hex digits per byte",
        message: "odd number of hex digits: the digit at character \(highPos) has no partner")
    }
    return out
  }

  private static func inputError(_ error: NDEFError, _ options: NDEFCommandOptions)
    -> NDEFCommandResult
  {
    switch options.format {
    case .text:
      return NDEFCommandResult(
        output: "error: \(error.message) (expected \(error.expected))\n", failed: true)
    case .json:
      var w = JSONWriter()
      w.open("{")
      w.key("error")
      w.open("{")
      w.key("code")
      w.string(error.code)
      w.key("offset")
      w.int(error.offset)
      w.key("message")
      w.string(error.message)
      w.key("expected")
      w.string(error.expected)
      w.close("}")
      w.close("}")
      return NDEFCommandResult(output: w.out + "\n", failed: true)
    }
  }

  private static func tlvWithoutMessage(_ area: Type2TLVArea, _ options: NDEFCommandOptions)
    -> NDEFCommandResult
  {
    let empty = NDEFReport(
      mode: options.mode, message: NDEFMessage(records: []), records: [], findings: [],
      failure: nil, consumed: 0, input: 0..<0)
    let failed = options.mode != .ignore && area.findings.contains { $0.severity == .error }
    switch options.format {
    case .json:
      return NDEFCommandResult(
        output: NDEFJSONRenderer.render(empty, tlvArea: area) + "\n", failed: failed)
    case .text:
      var out = NDEFTextRenderer.renderTLVs(area)
      if let tlv = area.ndef, tlv.length > 0 {
        // The value is missing, not empty: the area ends before the bytes its length claims.
        out += "NDEF TLV claims \(tlv.length) bytes, the area holds none of them: no message\n"
      } else {
        out +=
          area.ndef == nil ? "no NDEF Message TLV\n" : "NDEF TLV is empty (length 0): no message\n"
      }
      out += NDEFTextRenderer.renderFindings(area.findings)
      return NDEFCommandResult(output: out, failed: failed)
    }
  }
}

/// Hex digit helpers for input parsing.
enum Hexer {
  static func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: return c - 0x30
    case 0x41...0x46: return c - 0x41 + 10
    case 0x61...0x66: return c - 0x61 + 10
    default: return nil
    }
  }

  static func isSeparator(_ c: UInt8) -> Bool {
    c == 0x20 || c == 0x3A || c == 0x2D || c == 0x09 || c == 0x0A || c == 0x0D
  }
}
