import Foundation
import TestSupport
import Testing

/// Proxmark3 listings of other than ISO 14443-A/B/FeliCa traces (review of `convert`, finding
/// 2): the preamble names the protocol as the client does, and `.trace` → `.txt` → `.trace`
/// gives the records back (they were listed as ISO14443A: whole bytes read back as short
/// frames, LF bit counts lost, type A parity made up).
@Suite struct ListingProtocolCLITests {
  private let base = NSTemporaryDirectory() + "nfctrace-lst-\(UUID().uuidString)"

  /// Records of a `.trace` as (duration, length field, data, parity), timestamps counted from
  /// the first record (a listing's times start at 0).
  static func records(_ path: String) throws -> [[UInt64]] {
    let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var out: [[UInt64]] = []
    var o = 0
    var first: UInt64?
    while o + 8 <= b.count {
      let t = (0..<4).reduce(UInt64(0)) { $0 | UInt64(b[o + $1]) << (8 * $1) }
      let n = Int(b[o + 6]) | Int(b[o + 7] & 0x7F) << 8
      let p = n == 0 ? 1 : (n - 1) / 8 + 1
      first = first ?? t
      out.append([t &- (first ?? 0)] + b[(o + 4)..<(o + 8 + n + p)].map { UInt64($0) })
      o += 8 + n + p
    }
    return out
  }

  @Test(arguments: [
    ("hf_15_reader", "ISO15693 / iCLASS"), ("hf_iclass_sniff", "ISO15693 / iCLASS"),
    ("lf_HitagS256_dump", "Hitag1 / Hitag2 / HitagS"), ("hf_14b_xerox_info", "ISO14443B"),
  ])
  func listingRoundTrips(name: String, preamble: String) throws {
    let source = TestPaths.shared("public/proxmark3/\(name).trace")
    let (text, back, again) = (base + "-\(name).txt", base + "-\(name).trace", base + "-2.txt")
    defer { for p in [text, back, again] { try? FileManager.default.removeItem(atPath: p) } }
    let run = CLI.run(["convert", source, "-o", text])
    #expect(run.status == 0)
    #expect(!run.stderr.contains("another technology"))
    let lines = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n")
    #expect(lines[2] == "[=] \(preamble) - all times are in carrier periods (1/13.56MHz)")
    #expect(CLI.run(["convert", text, "-o", back]).status == 0)
    #expect(try Self.records(back) == Self.records(source))
    #expect(CLI.run(["convert", text, "-o", again]).status == 0)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: again))
        == Data(contentsOf: URL(fileURLWithPath: text)))
  }

  /// Rows as the client prints them: a Hitag frame's valid bits after its right-aligned first
  /// byte, no CRC column for LF; iCLASS and ISO 15693 CRCs checked by their own rules.
  @Test func rowsOfOtherProtocols() throws {
    let out = base + "-rows.txt"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let rows = { (name: String) throws -> [String] in
      #expect(
        CLI.run(["convert", TestPaths.shared("public/proxmark3/\(name).trace"), "-o", out]).status
          == 0)
      return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(
        String.init)
    }
    let hitag = try rows("lf_hitag_crypto_dump")
    try #require(hitag.count > 9)
    #expect(hitag[5].hasPrefix("          0 |        164 | Rdr |18(5)     "))
    #expect(hitag[5].hasSuffix("|     | "))
    #expect(hitag[9].hasPrefix("          0 |        304 | Rdr |01(2) 3B     "))
    let iclass = try rows("hf_iclass_sniff")
    try #require(iclass.count > 12)
    #expect(
      iclass[9].hasPrefix(
        "    1211424 |    1212832 | Tag |73  A2  05  60  FF  5F  02  1C  9C  F2  "))
    #expect(iclass[9].hasSuffix("|  ok | "))
    #expect(iclass[12].hasSuffix("|  ok | "))
    let iso15 = try rows("hf_15_reader")
    try #require(iso15.count == 7)
    #expect(iso15[5].hasSuffix("|  ok | ") && iso15[6].hasSuffix("|  ok | "))
  }
}
