import Foundation
import Testing

@testable import NFCTrace

/// Writes through an `OutputBuffer` on a temporary file and returns what reached the file.
private func written(flushAt: Int, _ body: (OutputBuffer) -> Void) throws -> String {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("nfctrace-out-\(UUID().uuidString)")
  #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
  defer { try? FileManager.default.removeItem(at: url) }
  let handle = try FileHandle(forWritingTo: url)
  let out = OutputBuffer(fd: handle.fileDescriptor, flushAt: flushAt)
  body(out)
  out.flush()
  try handle.close()
  return try String(contentsOf: url, encoding: .utf8)
}

@Suite struct OutputBufferTests {
  /// A flush in the middle of a line used to leave the alignment marks pointing before the
  /// buffer's start: the next pad came out as ~65 000 spaces on long timelines.
  @Test func paddingAfterAFlushInsideTheLine() throws {
    let text = try written(flushAt: 8) { out in
      out.write("ab")
      let mark = out.count
      out.write("cdefghij")  // reaches flushAt: flushed mid-line
      out.padLeftAligned(from: mark, width: 12)
      out.write("|")
      out.endLine()
    }
    #expect(text == "abcdefghij    |\n")
  }

  @Test func rightAlignmentInsideAndAcrossAFlush() throws {
    let text = try written(flushAt: 1 << 10) { out in
      let mark = out.count
      out.appendInt(-42)
      out.alignRight(from: mark, width: 6)
      out.write("|")
      out.appendInt(Int64.min)
      out.append(0x20)
      out.appendInt(0)
      out.endLine()
    }
    #expect(text == "   -42|-9223372036854775808 0\n")
    let across = try written(flushAt: 4) { out in
      let mark = out.count
      out.write("abcdef")  // flushed: the mark is gone, the text stays left and is padded
      out.alignRight(from: mark, width: 8)
      out.write("|")
    }
    #expect(across == "abcdef  |")
  }

  /// Digit counts are found by compares up to eight digits and by a loop beyond: every
  /// boundary, and the largest magnitudes.
  @Test func integersAtEveryDigitCountBoundary() {
    let out = OutputBuffer(fd: nil)
    for v: Int64 in [
      9, 10, 99, 100, 999, 1000, 9999, 10_000, 99_999, 100_000, 999_999, 1_000_000, 9_999_999,
      10_000_000, 99_999_999, 100_000_000, 123_456_789, Int64.max,
    ] {
      out.appendInt(v)
      out.append(0x2C)
    }
    out.appendInt(-10_000)
    #expect(
      out.text
        == "9,10,99,100,999,1000,9999,10000,99999,100000,999999,1000000,9999999,10000000,"
        + "99999999,100000000,123456789,9223372036854775807,-10000")
  }

  @Test func fixedWidthDigitsAndMilliseconds() {
    let out = OutputBuffer(fd: nil)
    out.appendDigits(7, count: 3)
    out.append(0x20)
    out.appendDigits(0, count: 3)
    out.append(0x20)
    out.appendDigits(999, count: 3)
    #expect(out.text == "007 000 999")
    #expect(TimelineTextRenderer.milliseconds(1_234_567) == "1.234")
    #expect(TimelineTextRenderer.milliseconds(-5_000) == "-0.005")
    #expect(TimelineTextRenderer.milliseconds(12_000_000_999) == "12000.000")
    #expect(TimelineTextRenderer.milliseconds(.min) == "-9223372036854.775")
  }

  /// Short texts move right byte by byte (the regions overlap), long ones by `memmove`; pads
  /// over 32 bytes are filled by `memset`.
  @Test func rightAlignmentOfShortAndLongTexts() {
    let out = OutputBuffer(fd: nil)
    var mark = out.count
    out.write("abc")
    out.alignRight(from: mark, width: 5)
    out.append(0x7C)
    mark = out.count
    let long = String(repeating: "0123456789", count: 2)
    out.write(long)
    out.alignRight(from: mark, width: 60)
    out.append(0x7C)
    #expect(out.text == "  abc|" + String(repeating: " ", count: 40) + long + "|")
  }

  @Test func hexOfSlicesArraysAndEveryNibble() {
    let out = OutputBuffer(fd: nil)
    let bytes: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xF0]
    out.appendHex(bytes[2..<5], separator: 0x20)
    out.append(0x7C)
    out.appendHex(bytes)
    out.append(0x7C)
    out.appendHex([UInt8](), separator: 0x20)
    out.appendHex(bytes.reversed().prefix(2), separator: 0x3A)
    #expect(out.text == "45 67 89|0123456789abcdeff0|f0:ef")
  }

  @Test func inMemoryBufferHandsOverItsBytes() {
    let out = OutputBuffer(fd: nil, flushAt: 4)
    out.appendHex([0x04, 0xA1, 0xFF], separator: 0x20)
    out.write(" ✓")
    #expect(out.text == "04 a1 ff ✓")
    #expect(out.takeBytes().count == 12)
    #expect(out.count == 0)
    out.write(String(repeating: "x", count: 10_000))
    #expect(out.count == 10_000)
  }

  @Test func jsonListsAreCommaSeparated() {
    let out = OutputBuffer(fd: nil)
    JSON.ints([], to: out)
    JSON.ints([1, -2, 30], to: out)
    out.append(0x7B)
    JSON.elements(["a", "b"], to: out) { JSON.string($0, to: out) }
    out.append(0x7D)
    #expect(out.text == "[][1,-2,30]{\"a\",\"b\"}")
  }
}
