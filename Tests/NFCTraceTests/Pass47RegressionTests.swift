import Foundation
import Testing

@testable import NFCTrace

/// Findings of the 2026-12-07 eighth session.
@Suite struct Pass47Type5Tests {
  typealias B = Type5ProcedureTests.Builder

  /// A 3-byte NDEF TLV length (`FF hi lo`) split over two blocks: the evidence is the WRITE
  /// that completed the length (block 2, written last), not the one that wrote its `FF`.
  @Test func tooLargeNamesTheWriteThatCompletedASplitLength() throws {
    var b = B()
    // CC E1 40 40 01: a 512-byte T5T area.
    b.detect(area: [0x03, 0x00, 0xFE], cc: [0xE1, 0x40, 0x40, 0x01])
    b.write(1, [0x00, 0x00, 0x03, 0xFF])
    b.write(2, [0x02, 0x10, 0xD1, 0x01])
    let block2 = b.frames.count
    for block in 3...6 { b.write(block, [0x41, 0x41, 0x41, 0x41]) }
    let r = try b.diagnose()
    let f = try #require(r.finding("message-too-large"))
    #expect(f.cause.hasPrefix("the message its NDEF TLV length announces (528 bytes)"))
    #expect(f.frames == [block2 - 2, block2 - 1])
  }
}

@Suite struct Pass47ImportTests {
  private func frames(_ text: String) throws -> [Frame] {
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "14a.txt", bytes: Data(text.utf8)))
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return out
  }

  private static let rule =
    "------------+------------+-----+------------------------------+-----+----------"

  /// The preamble names ISO14443A: the frames are NFC-A, as the binary trace's importer says
  /// of a trace whose parity verifies (they were `unknown`, JSON `"technology":"unknown"`).
  @Test func preambleNamingISO14443AMakesTheFramesNFCA() throws {
    let text = """
      [=] ISO14443A - all times are in carrier periods (1/13.56MHz)

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(Self.rule)
                0 |       1056 | Rdr |26                            |     | REQA
             2228 |       4596 | Tag |44  00                        |     |

      """
    #expect(try frames(text).map(\.technology) == [.nfcA, .nfcA])
  }

  /// The 2015 client printed `iso14443a` and `iClass` over every listing: no protocol named,
  /// the frames settle it.
  @Test func preambleNamingTwoProtocolsLeavesTheTechnologyOpen() throws {
    let text = """
      iso14443a - All times are in carrier periods (1/13.56Mhz)
      iClass    - Timings are not as accurate

            Start |        End | Src | Data (! denotes parity error) | CRC | Annotation
      \(Self.rule)
                0 |       1056 | Rdr |26                            |     | REQA

      """
    #expect(try frames(text).map(\.technology) == [.unknown])
  }
}

@Suite struct Pass47Type2Tests {
  /// An NTAG215 (two NULL TLVs, the NDEF TLV at byte 18) written length-last with a 303-byte
  /// message: `03 00` on page 4, the data from byte 22 (`00 00` where the 3-byte length's
  /// bytes go), then the final length's first page `00 00 03 FF`, and nothing more. The field
  /// reads `FF 00 00`: length 0, the procedure's last step left out. It was INTERRUPTED with no
  /// finding (the last length write holds `FF` alone, which gives no length).
  @Test func finalThreeByteLengthHalfWrittenIsUnfinished() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x00, 0x00, 0x03, 0x00, 0xFE])
    let message: [UInt8] =
      [0xC1, 0x01, 0x00, 0x00, 0x01, 0x28, 0x55, 0x04] + Array(repeating: 0x7A, count: 295)
    let data: [UInt8] = [0x00, 0x00] + message + [0xFE]
    b.write(4, [0x00, 0x00, 0x03, 0x00])
    for (n, start) in stride(from: 0, to: data.count, by: 4).enumerated() {
      b.write(5 + n, Array((Array(data[start...]) + [0, 0, 0]).prefix(4)))
    }
    b.write(4, [0x00, 0x00, 0x03, 0xFF])
    let last = b.frames.count - 2
    let r = try b.diagnose()
    let f = try #require(r.finding("write-unfinished"))
    #expect(f.severity == .error)
    #expect(f.frames.last == last)
    #expect(
      f.message.hasSuffix(
        "The last write (page 4) began the 3-byte length (FF), but the page holding its two "
          + "length bytes was not written after it: they are still the 00 00 written before, "
          + "so the field reads FF 00 00, length 0."))
    #expect(r.sessions[0].verdicts.last?.verdict == .interrupted)
  }
}
