import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Review of `nfctrace diff`: ties in the operation alignment, response times over chain
/// steps, S(WTX) requests in TIMING.
@Suite struct DiffReviewTests {
  /// NTAG215 GET_VERSION answer.
  static let ntag215: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

  /// Connect and queryNDEFStatus of an NTAG215 holding a 16-byte URI message.
  private func queried() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04, 0x65])
    return b
  }

  /// readNDEF of the message found (pages 4–11).
  private func readOld(_ b: inout TraceBuilder) {
    b.read(4, [0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65])
    b.read(8, [0x2E, 0x63, 0x6F, 0x6D, 0xFE])
  }

  /// writeNDEF of `https://nfctrace.dev/o` + `last` as Core NFC writes it (length 0 first).
  private func writeURI(_ b: inout TraceBuilder, last: UInt8) {
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x10, 0x55, 0x04, 0x6E])
    b.write(6, [0x66, 0x63, 0x74, 0x72])
    b.write(7, [0x61, 0x63, 0x65, 0x2E])
    b.write(8, [0x64, 0x65, 0x76, 0x2F])
    b.write(9, [0x6F, last, 0xFE, 0x00])
    b.write(4, [0x03, 0x14, 0xD1, 0x01])
  }

  /// readNDEF of `https://nfctrace.dev/ok`.
  private func readNew(_ b: inout TraceBuilder) {
    b.read(
      4,
      [
        0x03, 0x14, 0xD1, 0x01, 0x10, 0x55, 0x04, 0x6E, 0x66, 0x63, 0x74, 0x72, 0x61, 0x63, 0x65,
        0x2E,
      ])
    b.read(8, [0x64, 0x65, 0x76, 0x2F, 0x6F, 0x6B, 0xFE, 0x00])
  }

  /// A writes `…/ok` once; B writes `…/ol`, then `…/ok`. Both writes of B score alike against
  /// A's (kind, outcome, pages): the identical one is A's partner and `…/ol` the one extra row
  /// (it paired by position: A's write against `…/ol`, `…/ok` as `+`).
  @Test func tiedOperationsPairByContent() throws {
    var a = queried()
    readOld(&a)
    writeURI(&a, last: 0x6B)
    readNew(&a)
    var b = queried()
    writeURI(&b, last: 0x6C)
    writeURI(&b, last: 0x6B)
    readNew(&b)
    readNew(&b)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(
      d.a.analysis.operations.map(\.kind.rawValue) == [
        "connect", "queryNDEFStatus", "readNDEF", "writeNDEF", "readNDEF",
      ])
    #expect(
      d.b.analysis.operations.map(\.kind.rawValue) == [
        "connect", "queryNDEFStatus", "writeNDEF", "writeNDEF", "readNDEF", "readNDEF",
      ])
    #expect(
      d.operations.map { "\($0.a.map(String.init) ?? "-")=\($0.b.map(String.init) ?? "-")" }
        == ["0=0", "1=1", "-=2", "2=-", "3=3", "4=4", "-=5"])
    #expect(d.operations[4].same)
    #expect(d.exchanges.filter { !$0.same }.isEmpty)
  }

  /// The tie-break decides among equal scores only, never against a better score.
  @Test func tiebreakOnlyAmongEqualScores() {
    func pairs(_ l: [SequenceAlignment.Pair]) -> [String] { l.map(\.description) }
    // Equal scores: the tie-break picks the second B element ("x" like A's "x").
    let tied = SequenceAlignment.align(
      ["x"], ["y", "x"], tiebreakMax: 10, tiebreak: { $0 == $1 ? 10 : 0 }
    ) { _, _ in 10 }
    #expect(pairs(tied) == ["-=0", "0=1"])
    // Without it, the first one (gaps as late as possible).
    #expect(pairs(SequenceAlignment.align(["x"], ["y", "x"]) { _, _ in 10 }) == ["0=0", "-=1"])
    // A higher score wins over any tie-break.
    let scored = SequenceAlignment.align(
      ["x"], ["y", "x"], tiebreakMax: 10, tiebreak: { $0 == $1 ? 10 : 0 }
    ) { _, b in b == "y" ? 11 : 10 }
    #expect(pairs(scored) == ["0=0", "-=1"])
  }

  // MARK: Response times over answers to commands

  static let update: [UInt8] =
    [0x00, 0xD6, 0x00, 0x00, 0x10] + [0x00, 0x0E, 0xD1, 0x01, 0x0A, 0x55, 0x04]
    + Array("a.example".utf8)

  /// The same UPDATE BINARY sent whole (A) and chained over I-blocks of 8 bytes (B, a smaller
  /// FSC): the tag's R(ACK)s to the parts are framing, not answers. Same count, same median
  /// and maximum (A's median was the R(ACK)'s 0.079 ms on the other side: `≠`).
  @Test func chainStepsAreNotResponseTimes() throws {
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0)
    var b = a
    a.apdu(Self.update, [0x90, 0x00], tagGapUs: 3000)
    // B chains the command in parts of 8 bytes, each acknowledged by the tag's R(ACK) after
    // 80 µs; the answer comes after 3 ms as in A. The query took 5 I-blocks: block number 1.
    var block: UInt8 = 1
    var rest = Self.update[...]
    while rest.count > 8 {
      b.reader([0x12 | block] + rest.prefix(8))
      b.tag([0xA2 | block], gapUs: 80)
      rest = rest.dropFirst(8)
      block ^= 1
    }
    b.reader([0x02 | block] + rest)
    b.tag([0x02 | block, 0x90, 0x00], gapUs: 3000)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    let t = try #require(d.timing.last)
    #expect(t.a?.exchanges == 1)
    #expect(t.b?.exchanges == 1)
    #expect(t.a?.answered == 1)
    #expect(t.b?.answered == 1)
    // 3 ms after the frame started, less its air time as estimated at 106 kbit/s.
    #expect(t.a?.medianResponseNs == 2_981_121)
    #expect(t.b?.medianResponseNs == 2_981_121)
    #expect(t.b?.maxResponseNs == 2_981_121)
    #expect(t.same)
    #expect(d.exchanges.filter { !$0.same }.map(\.differences) == [["framing"]])
  }

  /// The steps of a completed chain are no exchanges in TIMING either: the count is the
  /// compared commands', the duration still runs over the chain.
  @Test func chainedAnswerCountsAsOneExchange() throws {
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    a.apdu(Pass25ChainedAnswerDiffTests.read, Pass25ChainedAnswerDiffTests.data + [0x90, 0x00])
    b.apdu(
      Pass25ChainedAnswerDiffTests.read,
      chainedAnswer: Pass25ChainedAnswerDiffTests.data + [0x90, 0x00], part: 8)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    let t = try #require(d.timing.last)
    #expect(t.a?.exchanges == 1)
    #expect(t.b?.exchanges == 1)
    #expect(t.a?.medianResponseNs == 381_121)
    #expect(t.b?.medianResponseNs == 381_121)
    #expect((t.b?.durationNs ?? 0) > (t.a?.durationNs ?? 0))
  }

  // MARK: S(WTX) requests

  /// B's tag asks twice for more time (WTXM 1) before it answers the READ BINARY: counted
  /// per operation, compared (the row differs while `same` stays true: only timing), shown in
  /// text and JSON.
  @Test func wtxRequestsAreCountedAndCompared() throws {
    let read: [UInt8] = [0x00, 0xB0, 0x00, 0x02, 0x04]
    let answer: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x90, 0x00]
    var a = TraceBuilder()
    a.activateType4()
    a.queryType4(nlen: 0x14)
    var b = a
    a.apdu(read, answer)
    // The query took 5 I-blocks: block number 1.
    b.reader([0x03] + read)
    for _ in 0..<2 {
      b.tag([0xF2, 0x01])
      b.reader([0xF2, 0x01])
    }
    b.tag([0x03] + answer)
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(d.same)
    #expect(d.timing.map { $0.b?.wtxRequests } == [0, 0, 2])
    let t = try #require(d.timing.last)
    #expect(t.a?.wtxRequests == 0)
    #expect(t.a?.exchanges == 1)
    #expect(t.b?.exchanges == 1)
    #expect(!t.same)
    let text = DiffText.lines(d)
    let row = try #require(text.firstIndex { $0.hasPrefix("≠ readNDEF") })
    #expect(
      text[row + 1].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        == "S(WTX) requests (tag asked for more time): 0 │ S(WTX) requests: 2")
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    let json = out.text
    #expect(json.contains("\"presence_checks\":0,\"wtx_requests\":0}"))
    #expect(json.contains("\"presence_checks\":0,\"wtx_requests\":2}"))
  }

  // MARK: Secrets

  /// A Wi-Fi Simple Config record (NFC Forum record of type application/vnd.wfa.wsc) with one
  /// credential: SSID `home`, WPA2-Personal, AES, network key `key`.
  static func wifiMessage(key: String) -> [UInt8] {
    func attr(_ t: UInt16, _ v: [UInt8]) -> [UInt8] {
      [UInt8(t >> 8), UInt8(t & 0xFF), UInt8(v.count >> 8), UInt8(v.count & 0xFF)] + v
    }
    let inner =
      attr(0x1026, [0x01]) + attr(0x1045, Array("home".utf8)) + attr(0x1003, [0x00, 0x20])
      + attr(0x100F, [0x00, 0x08]) + attr(0x1027, Array(key.utf8))
      + attr(0x1020, [UInt8](repeating: 0xFF, count: 6))
    let payload = attr(0x104A, [0x10]) + attr(0x100E, inner)
    let type = Array("application/vnd.wfa.wsc".utf8)
    return [0xD2, UInt8(type.count), UInt8(payload.count)] + type + payload
  }

  /// An NTAG215 read by Core NFC: connect, queryNDEFStatus, readNDEF of `message` (an NDEF
  /// TLV from page 4, read 4 pages at a time).
  private func readTag(_ message: [UInt8]) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    let area = [0x03, UInt8(message.count)] + message + [0xFE]
    b.read(3, [0xE1, 0x10, 0x3E, 0x00] + area.prefix(12))
    for page in stride(from: 4, to: 4 + (area.count + 3) / 4, by: 4) {
      b.read(page, Array(area.dropFirst((page - 4) * 4).prefix(16)))
    }
    return b
  }

  /// Keys `secret123` and `secret124`: the message's payload (offsets 26–82, tag bytes
  /// 44–100) is printed `••` in every place it appeared in clear: the READ answers and their
  /// first differing byte, the memory rows, the message hex (text `details.message`, JSON
  /// `ndef.message` and the `message` difference); `--show-secrets` shows it.
  @Test func wifiKeyIsMaskedEverywhere() throws {
    let a = try diffSide(readTag(Self.wifiMessage(key: "secret123")))
    let b = try diffSide(readTag(Self.wifiMessage(key: "secret124")))
    let d = TraceDiff(a: a, b: b)
    #expect(d.ndef.a.secretOffsets == Set(26..<83))
    #expect(d.ndef.a.secretAddresses.type2 == Set(44..<101))
    #expect(
      d.memory.map { "\($0.image) \($0.unit) \($0.secret.sorted())" }
        == ["end 22 [0, 1, 2, 3]", "start 22 [0, 1, 2, 3]"])
    let text = DiffText.lines(d)
    let key = "73 65 63 72 65 74"  // "secret"
    #expect(!text.joined(separator: "\n").contains(key))
    #expect(
      text.contains {
        $0.hasPrefix("≠ page 22   •• •• •• ••  read #") && $0.contains("│ •• •• •• ••  read #")
      })
    let read = try #require(text.first { $0.contains("READ page 20 →") })
    #expect(read.contains("READ page 20 → •• •• •• •• …"))
    #expect(
      text.contains {
        $0.replacingOccurrences(of: " ", with: "") == "responsebyte10:••│••"
      })
    let message = try #require(d.ndef.differences.first { $0.field == "message" })
    #expect(message.aSecret == Set(26..<83))
    #expect(message.bSecret == Set(26..<83))
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    let json = out.text
    #expect(!json.contains("736563726574"))
    let header = Array(Self.wifiMessage(key: "secret123").prefix(26))
    let masked = Hex.string(header) + String(repeating: "••", count: 57)
    #expect(json.contains("\"ndef\":{\"state\":\"message\",\"message\":\"\(masked)\""))
    #expect(json.contains("{\"field\":\"message\",\"a\":\"\(masked)\",\"b\":\"\(masked)\"}"))
    #expect(json.contains("\"page\":22,\"a\":\"••••••••\",\"b\":\"••••••••\""))

    let shown = TraceDiff(a: a, b: b, showSecrets: true)
    #expect(shown.memory.map(\.secret) == [[], []])
    #expect(DiffText.lines(shown).contains { $0.hasPrefix("≠ page 22   31 32 33 10  read #") })
    let keys = shown.ndef.records.flatMap(\.differences).filter {
      $0.field == "credential.network_key"
    }
    #expect(
      keys.map { "\(DiffText.value($0.a)) │ \(DiffText.value($0.b))" } == ["secret123 │ secret124"])
  }

  /// A command quoting no secret byte, and a message with no secret, are printed as before.
  @Test func maskingLeavesOtherBytes() {
    #expect(
      ExchangeRecord.masking(
        "WRITE page 9 ← 6f 6b fe 00", [0xA2, 0x09, 0x6F, 0x6B, 0xFE, 0x00], [3])
        == "WRITE page 9 ← 6f •• fe 00")
    // "09" of the page number is no byte of the data run.
    #expect(
      ExchangeRecord.masking("READ page 9 → 09 6b fe …", [0x09, 0x6B, 0xFE, 0x00], [0])
        == "READ page 9 → •• 6b fe …")
    #expect(ExchangeRecord.masking("READ page 9", [0x09], [0]) == "READ page 9")
    #expect(
      NDEFComparison.secretOffsets(
        message: [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F]
      ).isEmpty)
  }

  /// A Type 4 tag (NTAG 424 DNA file numbers) whose NDEF file gets `message` by a plain
  /// WriteData (8D) of NLEN and the message, then reads it back with ReadData (AD).
  private func writeDataTag(_ message: [UInt8]) -> TraceBuilder {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(mlc: 0xFF, nlen: 0)
    let data = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    let header: [UInt8] = [0x02, 0, 0, 0, UInt8(data.count), 0, 0]
    t.apdu(
      [0x90, 0x8D, 0x00, 0x00, UInt8(header.count + data.count)] + header + data + [0x00],
      [0x91, 0x00])
    t.apdu(
      [0x90, 0xAD, 0x00, 0x00, 0x07, 0x02, 0, 0, 0, UInt8(data.count), 0, 0, 0x00],
      data + [0x91, 0x00])
    return t
  }

  /// The Wi-Fi key written by a DESFire / NTAG 424 DNA WriteData and read by ReadData is
  /// masked in their bytes too (final review: only UPDATE and READ BINARY were).
  @Test func wifiKeyInWriteDataIsMasked() throws {
    let a = try diffSide(writeDataTag(Self.wifiMessage(key: "secret123")))
    let b = try diffSide(writeDataTag(Self.wifiMessage(key: "secret124")))
    let d = TraceDiff(a: a, b: b)
    let write = try #require(d.a.exchanges.first { $0.command?.name == "DESFire WRITE DATA" })
    // Data from byte 12 (after 90 8D 00 00 Lc and the 7-byte header); NLEN at 12–13, the
    // message's secret bytes 26..<83 at 14 + 26.
    #expect(write.secretRequest == Set((14 + 26)..<(14 + 83)))
    let read = try #require(d.a.exchanges.first { $0.command?.name == "DESFire READ DATA" })
    #expect(read.secretResponse == Set((2 + 26)..<(2 + 83)))
    let text = DiffText.lines(d).joined(separator: "\n")
    #expect(!text.contains("73 65 63 72 65 74"))
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    #expect(!out.text.contains("736563726574"))
  }

  /// `report` masks the Wi-Fi key as `diff` does: in the memory map (`**`) and in the
  /// readNDEF's `message` detail; `--show-secrets` shows them (final review: the report's
  /// memory map printed the key).
  @Test func reportMasksTheWiFiKeyInMemoryRows() throws {
    let t = readTag(Self.wifiMessage(key: "secret123"))
    let session = try #require(try sessions(t).last)
    let r = TagReport(session: session)
    let text = ReportText.render(r)
    #expect(!text.contains("73 65 63 72 65 74"))
    #expect(text.contains("  22  ** ** ** **  read"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(r, to: out)
    #expect(!out.text.contains("736563726574"))
    let rows = r.rows(showSecrets: false)
    // The key's record fills message bytes 26..<83, tag bytes 44..<101: pages 11–25.
    #expect(rows.filter { $0.masked.contains(true) }.map(\.address) == Array(11...25))
    #expect(r.rows(showSecrets: true).allSatisfy { !$0.masked.contains(true) })
    #expect(!ReportText.render(r, showSecrets: true).contains("  22  ** ** ** **"))
  }

  /// With a Memory Control TLV reserving tag bytes 32–35 inside the message, the key's
  /// addresses skip them (final review: they were the message offsets plus its start).
  @Test func secretAddressesSkipReservedBytes() throws {
    let message = Self.wifiMessage(key: "secret123")
    var value = message
    value.insert(contentsOf: [0xEE, 0xEE, 0xEE, 0xEE], at: 9)
    let area = [0x02, 0x03, 0x20, 0x04, 0x04, 0x03, UInt8(message.count)] + value + [0xFE]
    var b = TraceBuilder()
    b.activateType2(version: Self.ntag215)
    b.read(3, [0xE1, 0x10, 0x3E, 0x00] + area.prefix(12))
    for page in stride(from: 4, to: 4 + (area.count + 3) / 4, by: 4) {
      b.read(page, Array(area.dropFirst((page - 4) * 4).prefix(16)))
    }
    let session = try #require(try sessions(b).last)
    let side = NDEFComparison.side(session)
    // Message offsets 26..<83 start at tag byte 23 + 26 + 4 (past the reserved bytes).
    #expect(side.secretAddresses.type2 == Set(53..<110))
  }

  /// `writeDataTag` with the write split: the WriteData carries the first 20 data bytes and
  /// is answered 91AF, an ADDITIONAL FRAME the rest (9100); without `ccRead` only the NDEF
  /// application is selected, and the file is read back with READ BINARY after the write.
  private func chainedWriteDataTag(_ message: [UInt8], ccRead: Bool) -> TraceBuilder {
    var t = TraceBuilder()
    t.activateType4()
    if ccRead {
      t.queryType4(mlc: 0xFF, nlen: 0)
    } else {
      t.apdu(
        [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00],
        [0x90, 0x00])
    }
    let data = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    let header: [UInt8] = [0x02, 0, 0, 0, UInt8(data.count), 0, 0]
    let head = Array(data.prefix(20))
    let rest = Array(data.dropFirst(20))
    t.apdu(
      [0x90, 0x8D, 0x00, 0x00, UInt8(header.count + head.count)] + header + head + [0x00],
      [0x91, 0xAF])
    t.apdu([0x90, 0xAF, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00], [0x91, 0x00])
    if !ccRead {
      // Read back with ISO commands: the NDEF file selected by its id, no CC.
      t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00])
      t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], Array(data.prefix(2)) + [0x90, 0x00])
      t.apdu([0x00, 0xB0, 0x00, 0x02, UInt8(message.count)], message + [0x90, 0x00])
    }
    return t
  }

  /// The key's bytes in an ADDITIONAL FRAME continuing a WriteData are masked (attack pass:
  /// they were printed in clear), and `report` masks them in the NDEF file without a CC read.
  @Test func wifiKeyInChainedWriteDataIsMasked() throws {
    let a = try diffSide(chainedWriteDataTag(Self.wifiMessage(key: "secret123"), ccRead: true))
    let b = try diffSide(chainedWriteDataTag(Self.wifiMessage(key: "secret124"), ccRead: true))
    let d = TraceDiff(a: a, b: b)
    let frame = try #require(d.a.exchanges.first { $0.command?.name == "DESFire ADDITIONAL FRAME" })
    // Message offsets 26..<83 are file offsets 28..<85; the frame's data (from byte 5) starts
    // at file offset 20.
    #expect(frame.secretRequest == Set((5 + 8)..<(5 + 65)))
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    #expect(!out.text.contains("736563726574"))

    let session = try #require(
      try sessions(chainedWriteDataTag(Self.wifiMessage(key: "secret123"), ccRead: false)).last)
    let report = TagReport(session: session)
    #expect(!ReportText.render(report).contains("73 65 63 72 65 74"))
    #expect(report.rows(showSecrets: false).contains { $0.masked.contains(true) })
  }
}

extension DiffReviewTests {
  /// A URI holding ESC and a newline (tag data) is printed escaped, as `ControlEscape` writes
  /// it for `diagnose` and `ndef`: the record line and its `uri` difference. They went to the
  /// terminal raw (a colour change, a line break inside a row).
  @Test func controlCharactersFromTheTagAreEscaped() throws {
    let plain: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    let hostile: [UInt8] = [0xD1, 0x01, 0x0D, 0x55, 0x04] + Array("ex\u{1B}[31mRED\nx".utf8)
    let d = TraceDiff(a: try diffSide(readTag(plain)), b: try diffSide(readTag(hostile)))
    let lines = DiffText.lines(d)
    #expect(lines.allSatisfy { !$0.contains("\u{1B}") && !$0.contains("\n") })
    let record = try #require(lines.first { $0.hasPrefix("≠ record 0 ") })
    #expect(record.hasSuffix("│ record 0 URI https://ex\\u{1B}[31mRED\\u{A}x"))
    let uri = try #require(lines.first { $0.hasPrefix("      uri: ") })
    #expect(uri.hasSuffix("│ https://ex\\u{1B}[31mRED\\u{A}x"))
  }
}
