import NDEF
import Testing

@testable import NFCTrace

/// A Wi-Fi network key must stay masked in `report` and `diff` where the message's length
/// does not claim it: a write cut off while the NDEF TLV length was still 0 leaves the
/// record's bytes on the tag (they were printed in clear in the memory map and in the WRITE
/// commands of `diff`).
@Suite struct WiFiKeyLeftoverTests {
  /// A WSC record (SSID "MyNet", network key "SuperSecretKey123") from ndeflib.
  static let wsc = hexBytes(
    "d217426170706c69636174696f6e2f766e642e7766612e777363104a000110100e00391026000101"
      + "104500054d794e6574100300020020100f000200081027001153757065725365637265744b6579"
      + "31323310200006ffffffffffff")
  static let key = Array("SuperSecretKey123".utf8)

  /// iOS order cut before the final length: `03 00` + the record from page 4 on, no length.
  static func cutWrite() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    let bytes = [0x03, 0x00] + wsc
    for (i, start) in stride(from: 0, to: bytes.count, by: 4).enumerated() {
      b.write(4 + i, Array((bytes[start..<min(start + 4, bytes.count)] + [0, 0, 0]).prefix(4)))
    }
    return b
  }

  private static func hexBytes(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex {
      let j = s.index(i, offsetBy: 2)
      out.append(UInt8(s[i..<j], radix: 16) ?? 0)
      i = j
    }
    return out
  }

  @Test func reportMasksTheUnclaimedKey() throws {
    let session = try #require(try sessions(Self.cutWrite()).last)
    let rows = TagReport(session: session).rows(showSecrets: false)
    let shown = rows.flatMap(\.bytes)
    #expect(!shown.indices.contains { shown[$0...].starts(with: Self.key.prefix(4)) })
    #expect(rows.contains { $0.masked.contains(true) })
  }

  @Test func diffMasksTheWritesOfTheUnclaimedKey() throws {
    let side = try diffSide(Self.cutWrite())
    let secrets = TraceDiff.secretAddresses(side.analysis, NDEFComparison.side(side.analysis))
    // The key's bytes: message offset of "Supe" + the value's first address (18).
    let offset = try #require(
      Self.wsc.indices.first { Self.wsc[$0...].starts(with: Self.key.prefix(4)) })
    #expect(secrets.type2.contains(18 + offset))
  }
}
