import Foundation
import NFCTraceAndroid
import TestSupport
import Testing

@testable import NFCTrace

/// Importer findings of the review of pass 39: lone-CR line ends (every text importer rejected
/// them or lost rows silently), pm3-json BOM, duplicate and misplaced blocks, pm3-text times
/// past the u32 tick counter, libnfc end-of-log locations, UTF-16 conversion memory.
@Suite struct Pass39ImportTests {
  /// Every frame and warning `format` reads from `bytes`.
  private func importAll(_ format: TraceFormat, _ bytes: Data, path: String = "p39.txt") throws
    -> ([Frame], [TraceWarning])
  {
    var importer = try format.open(TraceInput(path: path, bytes: bytes))
    var frames: [Frame] = []
    while let frame = try importer.next() { frames.append(frame) }
    return (frames, importer.warnings)
  }

  /// `data` with every LF turned into a lone CR (the same length: offsets stay the same).
  private func crOnly(_ data: Data) -> Data { Data(data.map { $0 == 0x0A ? 0x0D : $0 }) }

  private func file(_ relative: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: TestPaths.traces(relative)))
  }

  /// A small `trace list` table: header, REQA, ATQA, ANTICOLL and its answer.
  private let listing = [
    "Start | End | Src | Data | CRC | Annotation",
    "0 | 1056 | Rdr |26(7) | | REQA",
    "2228 | 4596 | Tag |44 00 | |",
    "7040 | 9504 | Rdr |93 20 | | ANTICOLL",
    "10676 | 16500 | Tag |88 04 B8 31 05 | |",
  ]

  @Test func textLinesEndAtLFCRLFAndLoneCR() {
    let text = Array("a\nb\r\nc\rd".utf8)
    #expect(TextLines.line(in: text, from: 0) == (1, 2))
    #expect(TextLines.line(in: text, from: 2) == (3, 5))
    #expect(TextLines.line(in: text, from: 5) == (6, 7))
    #expect(TextLines.line(in: text, from: 7) == (8, 8))
    #expect(TextLines.count(in: text, 0..<text.count) == 3)
    // A range ending between CR and LF counts the pair once, with the LF.
    #expect(TextLines.count(in: text, 0..<4) == 1)
    #expect(TextLines.byteOrderMarkLength([0xEF, 0xBB, 0xBF, 0x7B]) == 3)
    #expect(TextLines.byteOrderMarkLength([0xEF, 0xBB]) == 0)
  }

  /// Defect 1: a CR-only Flipper file was one line: "UID unknown", no page, exit 0.
  @Test func flipperFileWithLoneCRLineEndsIsRead() throws {
    let lines = [
      "Filetype: Flipper NFC device", "Version: 4", "Device type: NTAG216",
      "UID: 04 B8 31 3A 30 73 80", "Pages total: 4", "Page 0: 04 B8 31 05",
    ]
    let text = Data((lines.joined(separator: "\r") + "\r").utf8)
    let dump = try #require(try TagDumpReader.read(TraceInput(path: "a.nfc", bytes: text)))
    #expect(dump.uid == [0x04, 0xB8, 0x31, 0x3A, 0x30, 0x73, 0x80])
    #expect(dump.pages == [[0x04, 0xB8, 0x31, 0x05], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    #expect(dump.warnings.map(\.message) == ["3 of 4 pages missing from the file"])
    // An error names the line and its byte offset counted with lone CRs.
    let bad = Data((lines + ["Page 1: zz"]).joined(separator: "\r").utf8)
    let error = #expect(throws: TraceError.self) {
      try TagDumpReader.read(TraceInput(path: "a.nfc", bytes: bad))
    }
    #expect(error?.location == SourceLocation(file: "a.nfc", unit: "line", record: 7, offset: 122))
  }

  /// Defect 2: a CR-only `trace list` was "not a recognised trace format".
  @Test func proxmarkListingWithLoneCRLineEnds() throws {
    let text = crOnly(Data(listing.joined(separator: "\n").utf8))
    let registry = FormatRegistry(BuiltinFormats.all)
    #expect(try registry.detect(TraceInput(path: "l.txt", bytes: text)).name == "pm3-text")
    let (frames, warnings) = try importAll(Proxmark3TextImporter.format, text)
    #expect(
      frames.map(\.data) == [[0x26], [0x44, 0x00], [0x93, 0x20], [0x88, 0x04, 0xB8, 0x31, 0x05]])
    #expect(frames.map { $0.location.record } == [2, 3, 4, 5])
    #expect(frames.map { $0.location.offset } == [44, 75, 104, 142])
    #expect(warnings.isEmpty)
  }

  /// Defect 3: a row ending in a stray CR swallowed the next row (the ANTICOLL) silently.
  @Test func strayCRNoLongerSwallowsTheNextRow() throws {
    let text = Data(
      (listing[0...2].joined(separator: "\n") + "\r" + listing[3...].joined(separator: "\n")).utf8)
    let (frames, warnings) = try importAll(Proxmark3TextImporter.format, text)
    #expect(
      frames.map(\.data) == [[0x26], [0x44, 0x00], [0x93, 0x20], [0x88, 0x04, 0xB8, 0x31, 0x05]])
    #expect(frames.map { $0.location.record } == [2, 3, 4, 5])
    #expect(warnings.isEmpty)
  }

  /// Defect 2: a CR-only libnfc log had "no TX:/RX: traffic lines"; it now reads as the LF one,
  /// line for line (a lone CR is one byte, as the LF: the offsets are the same too).
  @Test func libnfcLogWithLoneCRLineEnds() throws {
    let lf = try file("libnfc/pn533_t4t_ndef_read_write.log")
    let (expected, expectedWarnings) = try importAll(LibnfcLogImporter.format, lf)
    let (frames, warnings) = try importAll(LibnfcLogImporter.format, crOnly(lf))
    #expect(frames.count == 23)
    #expect(frames.map(\.data) == expected.map(\.data))
    #expect(frames.map(\.location) == expected.map(\.location))
    #expect(warnings.map(\.description) == expectedWarnings.map(\.description))
  }

  /// Defect 2: a CR-only snoop log was "snoop section is empty".
  @Test func snoopLogWithLoneCRLineEnds() throws {
    let lf = try file("android/android-dumpsys-nfc.txt")
    let format = NFCSnoopImporter.format
    let (expected, expectedWarnings) = try importAll(format, lf)
    let (frames, warnings) = try importAll(format, crOnly(lf))
    #expect(frames.count == 47)
    #expect(frames.map(\.data) == expected.map(\.data))
    #expect(warnings.map(\.description) == expectedWarnings.map(\.description))
  }

  /// A bug report's start (its snoop section comes later) is recognised with any line end.
  @Test func bugReportStartIsSniffedWithAnyLineEnd() {
    let rule = String(repeating: "=", count: 56)
    for end in ["\n", "\r\n", "\r"] {
      let head = Array((rule + end + "== dumpstate: 2024-01-01 00:00:00" + end).utf8)
      #expect(NFCSnoopImporter.format.sniff(head, "bugreport.txt") == 60)
    }
  }

  /// Defect 2: CR-only NFC-Laboratory JSON lines were taken for a document ("no frames
  /// array").
  @Test func nfcLabJSONLinesWithLoneCRLineEnds() throws {
    let lines = [
      #"{"frame_type":258,"tech_type":257,"time_start":0.001,"time_end":0.0011,"data":"52"}"#,
      #"{"frame_type":259,"tech_type":257,"time_start":0.002,"time_end":0.0021,"data":"44:00"}"#,
    ]
    let (frames, warnings) = try importAll(
      NFCLabImporter.format, Data((lines.joined(separator: "\r") + "\r").utf8), path: "l.jsonl")
    #expect(frames.map(\.data) == [[0x52], [0x44, 0x00]])
    #expect(frames.map { $0.location.record } == [1, 2])
    #expect(frames.map { $0.location.offset } == [0, 84])
    #expect(warnings.isEmpty)
  }

  private func pm3JSON() throws -> Data {
    try Data(
      contentsOf: URL(fileURLWithPath: TestPaths.shared("public/proxmark3/ntag216-empty.json")))
  }

  /// Defect 4: a pm3-json dump with a UTF-8 BOM was "not a recognised format", and "not a
  /// pm3-json dump" with --input-format pm3-json.
  @Test func proxmarkJSONDumpWithUTF8BOM() throws {
    let input = TraceInput(path: "b.json", bytes: Data([0xEF, 0xBB, 0xBF]) + (try pm3JSON()))
    let dump = try #require(try TagDumpReader.read(input))
    #expect(dump.format == "pm3-json")
    #expect(dump.uid == [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80])
    #expect(dump.pages.count == 231)
    let registry = FormatRegistry(BuiltinFormats.all)
    for name in [nil, "pm3-json"] {
      let opened = try ReportSource.open(input, formatName: name, registry: registry)
      #expect(opened.format == "pm3-json")
    }
  }

  /// `ntag216-empty.json` with `"5": "00000000",` replaced by `replacement`.
  private func editedDump(_ replacement: String) throws -> TraceInput {
    let text = String(decoding: try pm3JSON(), as: UTF8.self)
      .replacingOccurrences(of: #""5": "00000000","#, with: replacement)
    return TraceInput(path: "e.json", bytes: Data(text.utf8))
  }

  private func dumpError(_ input: TraceInput) -> TraceError? {
    #expect(throws: TraceError.self) { try TagDumpReader.read(input) }
  }

  /// Defect 5: of two keys of one page the last won silently; it is an error naming the block,
  /// as Flipper's `Page N` given twice is.
  @Test func proxmarkJSONPageGivenTwiceIsAnError() throws {
    let twice = dumpError(try editedDump(#""4": "00000000","#))
    #expect(twice?.kind == .malformed)
    #expect(
      twice?.message
        == "block \"4\": page 4 given a second time (first as \"4\"): each page once expected")
    #expect(
      twice?.location
        == SourceLocation(file: "e.json", unit: "blocks entry", record: 6, offset: 521))
    let padded = dumpError(try editedDump(#""5": "00000000", "05": "11111111","#))
    #expect(
      padded?.message
        == "block \"05\": page 5 given a second time (first as \"5\"): each page once expected")
    #expect(
      padded?.location
        == SourceLocation(file: "e.json", unit: "blocks entry", record: 7, offset: 538))
  }

  /// Defect 7: `"-1"` was "block 0" at the first `"-1"` found after `"blocks"`, `"4096"` in the
  /// same place "block 4097": both are the 6th block, at its key.
  @Test func proxmarkJSONBadKeysAreLocatedAlike() throws {
    for key in ["-1", "4096", "x"] {
      let error = dumpError(try editedDump("\"\(key)\": \"00000000\","))
      #expect(error?.message == "block \"\(key)\": block key is not a page number 0–4095")
      #expect(
        error?.location
          == SourceLocation(file: "e.json", unit: "blocks entry", record: 6, offset: 521))
    }
  }

  /// Defect 6: a Start of 4294967396 was read as 100 ticks without a word; any value past the
  /// u32 counter is now skipped with the same warning as one of 20 digits.
  @Test func proxmarkTimesPastTheTickCounterAreWarned() throws {
    let rows = [
      "Start | End | Src | Data | CRC | Annotation",
      "4294967396 | 4294968452 | Rdr |26(7) | | REQA",
      "99999999999999999999 | 99999999999999999999 | Rdr |26(7) | | REQA",
      "4294960000 | 4294967295 | Rdr |26(7) | | REQA",
    ]
    let (frames, warnings) = try importAll(
      Proxmark3TextImporter.format, Data(rows.joined(separator: "\n").utf8))
    #expect(frames.map(\.sourceTime?.value) == [4_294_960_000])
    let reason = "start/end column past the client's 32-bit tick counter (at most 4294967295 ticks)"
    #expect(
      warnings.map(\.message) == [
        "line skipped (\(reason)): `\(rows[1])`",
        "line skipped (\(reason)): `\(rows[2].prefix(60))…`",
      ])
    #expect(warnings.map { $0.location?.record } == [2, 3])
    // The -x hex dump's timestamp line, likewise.
    let dump = [
      "0.0000000100", "000000 00 fe 00 01 26", "0.4294967396", "000000 00 ff 00 02 44 00",
    ]
    let (hexFrames, hexWarnings) = try importAll(
      Proxmark3TextImporter.format, Data((dump.joined(separator: "\n") + "\n").utf8))
    #expect(hexFrames.map(\.data) == [[0x26]])
    #expect(
      hexWarnings.map(\.message) == [
        "line skipped (hex-dump timestamp past the client's 32-bit tick counter (at most "
          + "4294967295)): `0.4294967396`",
        "line skipped (hex-dump data line without the `0.%010u` timestamp line before it): "
          + "`000000 00 ff 00 02 44 00`",
      ])
  }

  /// Defect 7: the end-of-log locations of a libnfc log named a line with offset 0 or the end
  /// of the file; each names now a line at its own byte offset.
  @Test func libnfcEndOfLogLocationsAreLineOffsets() throws {
    let lines = try String(decoding: file("libnfc/pn533_scl3711_t2t_read_write.log"), as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false)
    let cut = lines.prefix(40).joined(separator: "\n") + "\n"
    let error = #expect(throws: TraceError.self) {
      try importAll(LibnfcLogImporter.format, Data(cut.utf8), path: "cut.log")
    }
    let lastLine = cut.utf8.count - lines[39].utf8.count - 1
    #expect(
      error?.location == SourceLocation(file: "cut.log", unit: "line", record: 40, offset: lastLine)
    )
    let quiet = "debug\tlibnfc.general\tlog_level is set to 2\n"
    let none = #expect(throws: TraceError.self) {
      try importAll(LibnfcLogImporter.format, Data(quiet.utf8), path: "q.log")
    }
    #expect(none?.location == SourceLocation(file: "q.log", unit: "line", record: 1, offset: 0))
    #expect(none?.message.hasPrefix("no libnfc TX:/RX: traffic lines in 1 lines:") == true)
    let txOnly =
      "debug\tlibnfc.general\tlog_level is set to 3\n"
      + "debug\tlibnfc.bus.i2c\tTX: 00 00 ff 04 fc d4 4a 01 00 e1 00\n"
    let (_, warnings) = try importAll(LibnfcLogImporter.format, Data(txOnly.utf8), path: "i.log")
    #expect(
      warnings.last?.location == SourceLocation(file: "i.log", unit: "line", record: 2, offset: 43))
  }

  /// Defect 8: UTF-16 is converted in one pass, in pieces of any size (a code unit or a
  /// surrogate pair split between pieces is joined), as whole.
  @Test func utf16ConvertsInPiecesAsWhole() {
    // A lone high surrogate before "x", and an odd last byte.
    var bytes: [UInt8] = [0xFF, 0xFE]
    for unit in Array("A🙂é\r\n".utf16) + [0xD800] + Array("x".utf16) {
      bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
    }
    bytes.append(0x41)
    let whole = UTF16Text.utf8(from: Data(bytes))
    let expected = Data("A🙂é\r\n\u{FFFD}x\u{FFFD}".utf8)
    #expect(whole?.bytes == expected)
    #expect(whole?.repaired == true)
    for split in 2...bytes.count {
      var converter = UTF16ToUTF8(littleEndian: true, expectedBytes: 0)
      bytes[2..<split].withUnsafeBytes { converter.feed($0) }
      bytes[split...].withUnsafeBytes { converter.feed($0) }
      let converted = converter.finish()
      #expect(converted.bytes == expected, "split at \(split)")
      #expect(converted.repaired)
    }
  }

  /// Defect 8: a UTF-16 file is read in 4 MiB pieces; a surrogate pair across two pieces and
  /// the text as a whole come out as from the bytes in memory.
  @Test func utf16FileReadInPieces() throws {
    let text = String(repeating: "A", count: (1 << 21) - 1) + "🙂\n"
    var utf16 = Data([0xFF, 0xFE])
    utf16.append(try #require(text.data(using: .utf16LittleEndian)))
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-p39-\(UUID().uuidString).txt").path
    try utf16.write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = try TraceInput(path: path)
    #expect(input.transcodedFrom == "UTF-16LE")
    #expect(input.transcodingRepaired == false)
    #expect(input.bytes == Data(text.utf8))
  }
}
