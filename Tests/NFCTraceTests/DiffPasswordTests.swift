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

/// Review of the masking: a new PWD is masked in a WRITE the tag refused (the memory image
/// then holds no password) and in a COMPATIBILITY_WRITE's data frame; a NAK refusing a
/// PWD_AUTH is no PACK and stays in clear.
@Suite struct DiffPasswordWriteTests {
  private func side(_ build: (inout TraceBuilder) -> Void) throws -> DiffSide {
    var b = TraceBuilder()
    b.activateType2(version: DiffReviewTests.ntag215)
    build(&b)
    return try diffSide(b)
  }

  @Test func refusedWriteOfThePasswordIsMasked() throws {
    let a = try side { $0.write(133, [0x11, 0x22, 0x33, 0x44], .nak(0)) }
    let b = try side { $0.write(133, [0x55, 0x66, 0x77, 0x88], .nak(0)) }
    let d = TraceDiff(a: a, b: b)
    let text = DiffText.lines(d).joined(separator: "\n")
    #expect(!text.contains("11 22") && !text.contains("55 66"))
    #expect(text.contains("WRITE page 133 ← •• •• •• •• → NAK 0x0"))
    // The factory default written is public.
    let c = try side { $0.write(133, [0xFF, 0xFF, 0xFF, 0xFF], .nak(0)) }
    let write = try #require(
      TraceDiff(a: c, b: b).a.exchanges.first { $0.command?.name == "WRITE" })
    #expect(write.secretRequest.isEmpty)
  }

  /// The side whose product is not identified (no GET_VERSION) has no PWD page of its own:
  /// its WRITEs of the other side's PWD and PACK pages are masked all the same, in text and
  /// JSON, whichever side it is. They were printed in clear.
  @Test func passwordWriteOnTheUnidentifiedSideIsMasked() throws {
    func protect(_ version: [UInt8]?, _ pwd: [UInt8], _ pack: [UInt8]) throws -> DiffSide {
      var b = TraceBuilder()
      b.activateType2(version: version)
      b.write(133, pwd)
      b.write(134, pack + [0, 0])
      return try diffSide(b)
    }
    let known = try protect(DiffReviewTests.ntag215, [0x11, 0x22, 0x33, 0x44], [0xAB, 0xCD])
    let unknown = try protect(nil, [0x55, 0x66, 0x77, 0x88], [0x12, 0x34])
    for d in [TraceDiff(a: known, b: unknown), TraceDiff(a: unknown, b: known)] {
      let writes = (d.a.exchanges + d.b.exchanges).filter { $0.command?.name == "WRITE" }
      #expect(
        writes.map(\.shownCommandSummary) == [
          "WRITE page 133 ← •• •• •• ••", "WRITE page 134 ← •• •• 00 00",
          "WRITE page 133 ← •• •• •• ••", "WRITE page 134 ← •• •• 00 00",
        ])
      let text = DiffText.lines(d).joined(separator: "\n")
      #expect(!text.contains("55 66") && !text.contains("12 34") && !text.contains("11 22"))
      let out = OutputBuffer(fd: nil)
      DiffJSON.render(d, version: "test", to: out)
      let json = out.text
      #expect(!json.contains("55667788") && !json.contains("1234") && !json.contains("abcd"))
      #expect(json.components(separatedBy: "\"data\":\"a285••••••••••••\"").count == 3)
      #expect(json.components(separatedBy: "\"data\":\"a286••••0000••••\"").count == 3)
    }
  }

  @Test func compatibilityWriteOfThePasswordIsMasked() throws {
    func cw(_ pwd: [UInt8]) -> (inout TraceBuilder) -> Void {
      return { b in
        b.reader([0xA0, 0x85])
        b.add4Bit(0x0A)
        b.reader(pwd + Array(repeating: 0, count: 12))
        b.add4Bit(0x0A)
      }
    }
    let d = TraceDiff(
      a: try side(cw([0x11, 0x22, 0x33, 0x44])), b: try side(cw([0x55, 0x66, 0x77, 0x88])))
    let data = try #require(d.a.exchanges.first { $0.requestPayload.count == 16 })
    #expect(data.secretRequest == [0, 1, 2, 3])
    #expect(data.shownCommandSummary.hasPrefix("COMPATIBILITY_WRITE page 133 ← •• •• •• ••"))
  }

  /// A PWD_AUTH of the wrong length stays raw; its bytes after 1B and a 2-byte answer are
  /// still masked.
  @Test func rawPasswordAuthIsMasked() throws {
    func auth(_ pwd: [UInt8]) -> (inout TraceBuilder) -> Void {
      return { b in
        b.reader([0x1B] + pwd)
        b.tag([0xAA, 0xBB])
      }
    }
    let d = TraceDiff(
      a: try side(auth([0x11, 0x22])), b: try side(auth([0x55, 0x66, 0x77, 0x88, 0x99])))
    let x = try #require(d.a.exchanges.first { $0.requestPayload.first == 0x1B })
    #expect(x.command == nil)
    #expect(x.secretRequest == [1, 2])
    #expect(x.secretResponse == [0, 1])
    let y = try #require(d.b.exchanges.first { $0.requestPayload.first == 0x1B })
    #expect(y.secretRequest == [1, 2, 3, 4, 5])
    #expect(!DiffText.lines(d).joined(separator: "\n").contains("11 22"))
  }

  @Test func refusedPasswordAuthNAKIsShown() throws {
    func auth(_ pwd: [UInt8]) -> (inout TraceBuilder) -> Void {
      return { b in
        b.reader([0x1B] + pwd)
        b.add4Bit(0x04)
      }
    }
    let d = TraceDiff(
      a: try side(auth([0x11, 0x22, 0x33, 0x44])), b: try side(auth([0x55, 0x66, 0x77, 0x88])))
    let x = try #require(d.a.exchanges.first { $0.command?.name == "PWD_AUTH" })
    #expect(x.secretRequest == [1, 2, 3, 4])
    #expect(x.secretResponse.isEmpty)
    #expect(x.shownResponseHex == "04")
  }
}
