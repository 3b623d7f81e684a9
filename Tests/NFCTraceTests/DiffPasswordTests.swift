import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// `nfctrace diff` masks an NTAG21x PWD and PACK as `report` does: the PWD_AUTH password and
/// its PACK answer, WRITEs to the PWD/PACK pages, the memory rows and the authenticate
/// operation's details, with the frames' CRC (16 bits of a 4-byte PWD). NXP's factory default
/// PWD and the zeros a READ answers there are no secret (NTAG213/215/216 datasheet §8.5.7,
/// §8.8.1).
@Suite struct DiffPasswordTests {
  /// NTAG215 (PWD page 133, PACK page 134): PWD_AUTH with `password`, answered `pack`, then
  /// the PWD and PACK pages written with them and read back (zeros).
  private func protect(password: [UInt8], pack: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: DiffReviewTests.ntag215)
    b.reader([0x1B] + password)
    b.tag(pack)
    b.write(133, password)
    b.write(134, pack + [0, 0])
    b.read(133, Array(repeating: 0, count: 16))
    return b
  }

  @Test func passwordAndPACKAreMasked() throws {
    let a = try diffSide(protect(password: [0x31, 0x32, 0x33, 0x34], pack: [0xAB, 0xCD]))
    let b = try diffSide(protect(password: [0x35, 0x36, 0x37, 0x38], pack: [0x12, 0x34]))
    let d = TraceDiff(a: a, b: b)
    let text = DiffText.lines(d).joined(separator: "\n")
    for secret in ["31 32 33 34", "35 36 37 38", "ab cd", "12 34"] {
      #expect(!text.contains(secret))
    }
    #expect(text.contains("PWD_AUTH password •• •• •• •• → PACK •• •• (password accepted)"))
    #expect(text.contains("WRITE page 133 ← •• •• •• •• → ACK"))
    #expect(text.contains("WRITE page 134 ← •• •• 00 00 → ACK"))
    #expect(text.contains("details.password: •• •• •• ••"))
    #expect(text.contains("details.pack: •• ••"))
    // The READ answers zeros there: shown as they are.
    let read = try #require(d.a.exchanges.first { $0.commandSummary == "READ page 133" })
    #expect(read.secretResponse.isEmpty)
    #expect(read.shownAnswerSummary.hasPrefix("READ page 133 → 00 00 00 00"))
    let rows = d.memory.filter { "\($0.image)" == "end" }.map { "\($0.unit) \($0.secret.sorted())" }
    #expect(rows == ["133 [0, 1, 2, 3]", "134 [0, 1]"])

    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    let json = out.text
    #expect(!json.contains("31323334") && !json.contains("abcd"))
    // The CRC after a masked byte is masked too.
    #expect(json.contains("\"data\":\"1b••••••••••••\""))
    #expect(json.contains("\"response_data\":\"••••••••\""))
    #expect(json.contains("{\"field\":\"details.password\",\"a\":\"••••••••\",\"b\":\"••••••••\"}"))

    let shown = DiffText.lines(TraceDiff(a: a, b: b, showSecrets: true)).joined(separator: "\n")
    #expect(shown.contains("PWD_AUTH password 31 32 33 34 → PACK ab cd (password accepted)"))
  }

  /// The factory default PWD FF FF FF FF is public: shown, in the command and the details.
  @Test func factoryDefaultPasswordIsShown() throws {
    let a = try diffSide(protect(password: [0xFF, 0xFF, 0xFF, 0xFF], pack: [0, 0]))
    let b = try diffSide(protect(password: [0xFF, 0xFF, 0xFF, 0xFF], pack: [0xAB, 0xCD]))
    let d = TraceDiff(a: a, b: b)
    let text = DiffText.lines(d).joined(separator: "\n")
    #expect(text.contains("PWD_AUTH password ff ff ff ff → PACK •• •• (password accepted)"))
    #expect(!text.contains("ab cd"))
    let write = try #require(d.b.exchanges.first { $0.commandSummary.hasPrefix("WRITE page 133") })
    #expect(write.shownCommandSummary == "WRITE page 133 ← ff ff ff ff")
  }
}
