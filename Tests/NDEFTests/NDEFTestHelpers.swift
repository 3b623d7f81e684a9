import Foundation
import NDEF
import TestSupport

/// Hex text → bytes for test vectors (spaces allowed); traps only on a bad literal in a test.
func hx(_ s: String) -> [UInt8] {
  (try? NDEFCommand.parseHex(s)) ?? []
}

/// Lower-case hex without separators.
func hexString(_ b: [UInt8]) -> String {
  b.map { String(format: "%02x", $0) }.joined()
}

/// Deterministic SplitMix64, so the differential corpus is the same on every run.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Tag memory reconstructed from real captures and dumps in ../shared/traces.
enum TraceBytes {
  /// Data area (from page 4) read by the reader in a `trace list -t 14a` text: the READ
  /// (`30 pp`) answers, 16 bytes each without CRC, keyed by start page.
  static func pm3ReadPages(_ relative: String) throws -> [Int: [UInt8]] {
    let text = try String(contentsOfFile: TestPaths.shared(relative), encoding: .utf8)
    var pages: [Int: [UInt8]] = [:]
    var pending: Int?
    for line in text.split(separator: "\n") {
      let cols = line.split(separator: "|", omittingEmptySubsequences: false)
      guard cols.count >= 4 else { continue }
      let src = cols[2].trimmingCharacters(in: .whitespaces)
      let data = cols[3].split(separator: " ").map { String($0.prefix(2)) }
      let bytes = data.compactMap { UInt8($0, radix: 16) }
      if src == "Rdr" {
        pending = bytes.count == 4 && bytes[0] == 0x30 ? Int(bytes[1]) : nil
      } else if src == "Tag", let page = pending, bytes.count == 18 {
        pages[page] = Array(bytes.prefix(16))
        pending = nil
      }
    }
    return pages
  }

  /// Pages of a Flipper `.nfc` file ("Page N: xx xx xx xx"), concatenated from page 0.
  static func flipperPages(_ relative: String) throws -> [UInt8] {
    let text = try String(contentsOfFile: TestPaths.shared(relative), encoding: .utf8)
    var out: [UInt8] = []
    for line in text.split(separator: "\n") where line.hasPrefix("Page ") {
      guard let colon = line.firstIndex(of: ":") else { continue }
      out += line[line.index(after: colon)...].split(separator: " ").compactMap {
        UInt8($0, radix: 16)
      }
    }
    return out
  }

  /// Blocks of a Proxmark3 `mfu` JSON dump, concatenated from block 0.
  static func pm3JSONPages(_ relative: String) throws -> [UInt8] {
    let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.shared(relative)))
    let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let blocks = json?["blocks"] as? [String: String] ?? [:]
    var out: [UInt8] = []
    for i in 0..<blocks.count {
      out += hx(blocks[String(i)] ?? "")
    }
    return out
  }
}
