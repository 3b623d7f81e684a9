import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Hunts and reviews of the session of 2026-12-05 (second): each test names the case.
@Suite struct Pass31ImporterTests {
  private func damaged(record: Int, name: String) throws -> TraceInput {
    var bytes = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: TestPaths.traces("t2t-ntag215-write-ok.trace"))))
    var offset = 0
    for _ in 0..<record {
      let length = Int(bytes[offset + 6]) | Int(bytes[offset + 7] & 0x7F) << 8
      offset += 8 + length + (length + 7) / 8
    }
    bytes[offset + 6] = 0xFF
    bytes[offset + 7] = 0x7F
    return TraceInput(path: name, bytes: Data(bytes))
  }

  /// A `.trace` damaged in one of its first 16 records was "not a recognised trace format";
  /// named `.trace` it is read as one, and the importer names the damaged record.
  @Test func dotTraceDamagedEarlyIsReadAsProxmark3() throws {
    let registry = FormatRegistry(BuiltinFormats.all)
    let early = try damaged(record: 5, name: "early.trace")
    #expect(try registry.detect(early).name == "pm3-trace")
    var importer = try Proxmark3BinaryImporter(input: early)
    for expected in 0..<5 { #expect(try importer.next()?.index == expected) }
    let error = try #require(throws: TraceError.self) { try importer.next() }
    #expect(
      error.location == SourceLocation(file: "early.trace", unit: "record", record: 6, offset: 65))
    let first = try damaged(record: 0, name: "first.TRACE")
    #expect(try registry.detect(first).name == "pm3-trace")
    // Without the name, a damaged head is still no format: binary junk is not claimed.
    #expect(throws: TraceError.self) { try registry.detect(try damaged(record: 5, name: "x.bin")) }
    let zeros = TraceInput(path: "wiped.trace", bytes: Data(count: 4000))
    #expect(throws: TraceError.self) { try registry.detect(zeros) }
  }
}

extension Pass31ImporterTests {
  /// A libnfc log followed by a `trace list` paste was read as the paste, its TX/RX lines
  /// skipped without a word: the importer warns once, at the first of them.
  @Test func libnfcLinesBeforeAListingAreWarned() throws {
    let log = try Data(
      contentsOf: URL(fileURLWithPath: TestPaths.traces("libnfc/acr122u_t2t_read_write.log")))
    let listing = try Data(
      contentsOf: URL(
        fileURLWithPath: TestPaths.shared("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt")))
    let input = TraceInput(path: "mix.txt", bytes: log + listing)
    #expect(try FormatRegistry(BuiltinFormats.all).detect(input).name == "pm3-text")
    var importer = try Proxmark3TextImporter(input: input)
    while try importer.next() != nil {}
    let skipped = importer.warnings.filter { $0.message.hasPrefix("libnfc TX/RX lines") }
    #expect(skipped.count == 1)
    #expect(skipped.first?.location?.record == 5)
    #expect(skipped.first?.location?.offset == 262)
    var alone = try Proxmark3TextImporter(input: TraceInput(path: "l.txt", bytes: listing))
    while try alone.next() != nil {}
    #expect(!alone.warnings.contains { $0.message.hasPrefix("libnfc") })
  }
}
