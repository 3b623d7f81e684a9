import Foundation
import NDEF
import Testing

@testable import NFCTrace

/// A raw Type 2 image of `pages` pages: UID 04 11 22 / 33 44 55 66 with valid BCC0/BCC1, CC
/// `cc` at page 3, `data` from byte 16, `extra` bytes set at given addresses.
private func image(pages: Int, cc: [UInt8], data: [UInt8], extra: [Int: [UInt8]] = [:])
  -> [UInt8]
{
  var b = [UInt8](repeating: 0, count: pages * 4)
  b[0] = 0x04
  b[1] = 0x11
  b[2] = 0x22
  b[3] = 0x88 ^ 0x04 ^ 0x11 ^ 0x22
  b[4...7] = [0x33, 0x44, 0x55, 0x66]
  b[8] = 0x33 ^ 0x44 ^ 0x55 ^ 0x66
  b[12..<16] = cc[0..<4]
  for (i, v) in data.enumerated() where 16 + i < b.count { b[16 + i] = v }
  for (a, v) in extra { b.replaceSubrange(a..<(a + v.count), with: v) }
  return b
}

private func dumpReport(_ bytes: [UInt8], path: String = "t.bin") throws -> TagReport {
  let dump = try #require(try TagDumpReader.read(TraceInput(path: path, bytes: Data(bytes))))
  return TagReport(dump: dump)
}

private func flipper(version: String, pages total: Int) throws -> TagReport {
  var text = "Filetype: Flipper NFC device\nVersion: 2\nDevice type: NTAG213\n"
  text += "UID: 04 11 22 33 44 55 66\nATQA: 44 00\nSAK: 00\n"
  text += "Mifare version: \(version)\nPages total: \(total)\n"
  let pages = ["04 11 22 BF", "33 44 55 66", "44 48 00 00", "E1 10 12 00", "03 00 FE 00"]
  for (i, p) in pages.enumerated() { text += "Page \(i): \(p)\n" }
  let dump = try #require(try TagDumpReader.read(TraceInput(path: "v.nfc", bytes: Data(text.utf8))))
  return TagReport(dump: dump)
}

/// A 2-record message: a URI record with a 20-byte payload (24 bytes), then a Text record
/// written without its status byte ("Benhi!": finding `text-no-status-byte` at its offset).
private let twoRecords: [UInt8] =
  [0x91, 0x01, 0x14, 0x55, 0x04] + Array("example.com/abcdefg".utf8)
  + [0x51, 0x01, 0x06, 0x54, 0x42, 0x65, 0x6E, 0x68, 0x69, 0x21]

/// The Memory Control TLV `02 03 20 04 04` (4 reserved bytes at tag byte 32), the NDEF TLV at
/// byte 21, the message from byte 23 with bytes 32–35 skipped, then the Terminator.
private func memoryControlArea() -> [UInt8] {
  var value = twoRecords
  value.insert(contentsOf: [0xEE, 0xEE, 0xEE, 0xEE], at: 9)
  return [0x02, 0x03, 0x20, 0x04, 0x04, 0x03, UInt8(twoRecords.count)] + value + [0xFE]
}

@Suite struct T2ReviewFixesTests {
  // MARK: 1. offsets through reserved bytes

  @Test func addressMapSkipsRuns() {
    let map = NDEFAddressMap(runs: [23..<32, 36..<60])
    #expect(map.address(of: 0) == 23)
    #expect(map.address(of: 8) == 31)
    #expect(map.address(of: 9) == 36)
    #expect(map.address(of: 24) == 51)
    #expect(map.address(of: 33) == 60)
    #expect(map.address(of: 35) == 62)
    #expect(NDEFAddressMap(runs: []).address(of: 7) == 7)
  }

  @Test func recordAndFindingOffsetsSkipMemoryControlBytes() throws {
    let r = try dumpReport(
      image(pages: 45, cc: [0xE1, 0x10, 0x12, 0x00], data: memoryControlArea()))
    guard case .decoded(let report) = r.end.message else {
      Issue.record("message not decoded: \(r.end.message)")
      return
    }
    #expect(report.records.map(\.record.offset) == [23, 51])
    #expect(report.records.map(\.record.payloadOffset) == [27, 55])
    let rfu = try #require(report.findings.first { $0.code == "text-no-status-byte" })
    #expect(rfu.offset == 55)
    #expect(report.input == 23..<61)
    let text = ReportText.render(r)
    #expect(text.contains("record 1 @51 [ME SR]"))
    #expect(text.contains("error text-no-status-byte @55:"))
  }

  @Test func recordOffsetsSkipLockControlBytes() throws {
    // Lock Control `01 03 20 10 44`: 16 lock bits (2 bytes) at tag byte 32.
    var value = twoRecords
    value.insert(contentsOf: [0x00, 0x00], at: 9)
    let area = [0x01, 0x03, 0x20, 0x10, 0x44, 0x03, UInt8(twoRecords.count)] + value + [0xFE]
    let r = try dumpReport(image(pages: 45, cc: [0xE1, 0x10, 0x12, 0x00], data: area))
    guard case .decoded(let report) = r.end.message else {
      Issue.record("message not decoded")
      return
    }
    #expect(report.records.map(\.record.offset) == [23, 49])
  }

  @Test func ndefTLVCommandMapsOffsets() {
    let full = image(pages: 45, cc: [0xE1, 0x10, 0x12, 0x00], data: memoryControlArea())
    let whole = NDEFCommand.run(bytes: full, options: NDEFCommandOptions(tlv: true))
    #expect(whole.output.contains("└─ record 1 @51 [ME SR]"))
    #expect(whole.output.contains("error text-no-status-byte @55:"))
    // A data area alone counts from its first byte (page 4): tag byte 51 is input byte 35.
    let area = NDEFCommand.run(bytes: memoryControlArea(), options: NDEFCommandOptions(tlv: true))
    #expect(area.output.contains("└─ record 1 @35 [ME SR]"))
    #expect(area.output.contains("error text-no-status-byte @39:"))
  }

  // MARK: 2. CC data area larger than the product

  @Test func ccLargerThanProductIsCappedAndFlagged() throws {
    // An 890-byte NDEF TLV value (never decoded: it runs past the user memory).
    let data: [UInt8] = [0x03, 0xFF, 0x03, 0x7A] + Array(repeating: 0x41, count: 890)
    let r = try dumpReport(image(pages: 231, cc: [0xE1, 0x10, 0x7F, 0x00], data: data))
    #expect(r.tag.product == "NTAG216")
    #expect(r.end.status?.capacity == 884)
    #expect(
      r.end.status?.reason
        == "CC3 write access 0 (free); counted up to the product's 888 bytes of user memory, "
        + "not the CC's 1016")
    #expect(
      r.end.tlvFindings.map(\.code).prefix(3) == [
        "t2t-cc-exceeds-memory", "ndef-past-user-memory", "tlv-length-past-end",
      ])
    #expect(r.end.tlvFindings.first?.offset == 14)
    #expect(r.end.tlvFindings.first?.severity == .warning)
    guard case .pastDataArea(let length, let available) = r.end.message else {
      Issue.record("expected pastDataArea, got \(r.end.message)")
      return
    }
    #expect(length == 890 && available == 884)
    #expect(Type2Capacity.bytes(cc: try #require(r.end.type2CC), area: nil, userBytes: 888) == 884)
  }

  // MARK: 3. GET_VERSION against the page count

  @Test func versionContradictingPageCountPrefersTheSize() throws {
    let r = try flipper(version: "00 04 04 02 01 00 0F 03", pages: 135)
    #expect(r.tag.versionContradictsSize)
    #expect(r.tag.product == "NTAG215")
    #expect(r.tag.memoryBytes == 504)
    #expect(r.end.config?.cfg0Page == 131)
    #expect(
      r.warnings.contains(
        "the dump holds 135 pages, but its GET_VERSION answer names the NTAG213, which has 45: "
          + "the dump's size is the NTAG215's, whose memory map is used"))
    #expect(
      ReportText.render(r).contains(
        "product         NTAG215 (GET_VERSION 00 04 04 02 01 00 0f 03, which names the NTAG213: "
          + "not this dump's size)"))
  }

  @Test func versionContradictingAnUnknownSizeDecodesNoConfig() throws {
    let r = try flipper(version: "00 04 04 02 01 00 0F 03", pages: 100)
    #expect(r.tag.ntagProduct == nil)
    #expect(r.end.config == nil)
    #expect(r.tag.memoryBytes == nil)
    #expect(r.tag.product == "unknown")
    #expect(
      r.warnings.contains(
        "the dump holds 100 pages, but its GET_VERSION answer names the NTAG213, which has 45: "
          + "no product has that size, so lock and configuration pages are not decoded"))
    let agreeing = try flipper(version: "00 04 04 02 01 00 0F 03", pages: 45)
    #expect(!agreeing.tag.versionContradictsSize && agreeing.end.config?.cfg0Page == 41)
  }

  /// A dump smaller than its GET_VERSION's product and of no product's size is partial
  /// (Proxmark3 saves the pages it could read): the product stands (final review).
  @Test func partialDumpKeepsItsProduct() throws {
    let r = try flipper(version: "00 04 04 02 01 00 11 03", pages: 16)
    #expect(r.tag.product == "NTAG215")
    #expect(!r.tag.versionContradictsSize)
    #expect(r.warnings.contains("a partial dump: it holds 16 of the NTAG215's 135 pages"))
  }

  // MARK: 4. CC read access

  @Test func ccAccessNibbles() throws {
    let rF = try #require(Type2CapabilityContainer([0xE1, 0x10, 0x12, 0xF0]))
    #expect(rF.status == .notSupported)
    #expect(
      rF.statusReason
        == "CC3 read access Fh (RFU): only 0h grants read access to the NDEF message "
        + "(NFC Forum T2T 1.0 §6.1)")
    #expect(Type2CapabilityContainer([0xE1, 0x10, 0x12, 0x80])?.status == .notSupported)
    #expect(Type2CapabilityContainer([0xE1, 0x10, 0x12, 0x0F])?.status == .readOnly)
    #expect(
      Type2CapabilityContainer([0xE1, 0x10, 0x12, 0x03])?.statusReason
        == "CC3 write access 3 (RFU)")
    #expect(
      Type2CapabilityContainer([0xE1, 0x10, 0x12, 0x0A])?.statusReason
        == "CC3 write access A (proprietary)")
    #expect(
      (0...15).map { Type2CapabilityContainer.accessMeaning($0, write: true) } == [
        "free", "RFU", "RFU", "RFU", "RFU", "RFU", "RFU", "RFU", "proprietary", "proprietary",
        "proprietary", "proprietary", "proprietary", "proprietary", "proprietary",
        "no write access",
      ])
    #expect(Type2CapabilityContainer.accessMeaning(0xF, write: false) == "RFU")
    #expect(Type2CapabilityContainer.accessMeaning(0x8, write: false) == "proprietary")
    #expect(ReportText.access(3, write: true) == "3 (RFU)")
  }

  @Test func readAccessRestrictedReportIsNotSupported() throws {
    let data: [UInt8] = [0x03, 0x08, 0xD1, 0x01, 0x04, 0x55, 0x04, 0x61, 0x2E, 0x62, 0xFE]
    let r = try dumpReport(image(pages: 45, cc: [0xE1, 0x10, 0x12, 0xF0], data: data))
    #expect(r.ndefStatus?.status == .notSupported)
    #expect(r.ndefStatus?.capacity == nil)
    #expect(
      r.end.unreadableReason
        == "CC3 read access Fh (RFU): only 0h grants read access to the NDEF message "
        + "(NFC Forum T2T 1.0 §6.1)")
    #expect(r.end.tlvFindings.first?.code == "t2t-read-access-restricted")
    #expect(r.end.tlvFindings.first?.offset == 15)
    let text = ReportText.render(r)
    #expect(
      text.contains(
        "\ndata area as raw data, not the tag's readable NDEF (CC3 read access Fh (RFU): "
          + "only 0h grants read access to the NDEF message (NFC Forum T2T 1.0 §6.1)): NDEF message"
      ))
  }

  @Test func readAccessRestrictedQueryIsNotSupported() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    b.read(3, [0xE1, 0x10, 0x12, 0x80, 0x03, 0x00, 0xFE, 0x00])
    let s = try #require(try sessions(b).first)
    let query = try #require(s.operations.first { $0.kind == .queryNDEFStatus })
    #expect(query.detail("status") == .string("notSupported"))
    #expect(
      query.detail("rule")
        == .string(
          "CC3 read access 8h (proprietary): only 0h grants read access to the NDEF message "
            + "(NFC Forum T2T 1.0 §6.1)"))
  }

  // MARK: 5. PWD and PACK in the memory map

  @Test func pwdAndPackAreMaskedInMemoryRows() throws {
    let bytes = image(
      pages: 231, cc: [0xE1, 0x10, 0x6D, 0x00], data: [0x03, 0x00, 0xFE],
      extra: [229 * 4: [0x12, 0x34, 0x56, 0x78], 230 * 4: [0xAB, 0xCD, 0x00, 0x00]])
    let r = try dumpReport(bytes)
    let masked = r.rows(showSecrets: false)
    #expect(masked[229].masked == [true, true, true, true])
    #expect(masked[229].bytes == [0, 0, 0, 0])
    #expect(masked[230].masked == [true, true, false, false])
    #expect(masked[228].masked == [])
    #expect(r.rows(showSecrets: true)[229].bytes == [0x12, 0x34, 0x56, 0x78])
    let text = ReportText.render(r)
    #expect(text.contains("     229  ** ** ** **  read\n"))
    #expect(text.contains("     230  ** ** 00 00  read\n"))
    #expect(!text.contains("12 34 56 78") && !text.contains("ab cd"))
    #expect(ReportText.render(r, showSecrets: true).contains("     229  12 34 56 78  read\n"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(r, to: out)
    #expect(out.text.contains("{\"page\":229,\"data\":\"********\""))
    #expect(out.text.contains("{\"page\":230,\"data\":\"****0000\""))
    #expect(!out.text.contains("12345678"))
    // The factory default PWD and zeros are no secret: shown.
    let plain = try dumpReport(
      image(
        pages: 231, cc: [0xE1, 0x10, 0x6D, 0x00], data: [0x03, 0x00, 0xFE],
        extra: [229 * 4: [0xFF, 0xFF, 0xFF, 0xFF]]))
    #expect(ReportText.render(plain).contains("     229  ff ff ff ff  read\n"))
    #expect(ReportText.render(plain).contains("     230  00 00 00 00  read\n"))
  }

  // MARK: 6. dump errors say what was expected

  private func rawType2Error(_ bytes: [UInt8], path: String) throws -> TraceError {
    try #require(throws: TraceError.self) {
      try ReportSource.open(
        TraceInput(path: path, bytes: Data(bytes)), formatName: "raw-type2",
        registry: FormatRegistry(BuiltinFormats.all))
    }
  }

  @Test func rawType2RejectionNamesTheCheck() throws {
    let odd = try rawType2Error(Array(repeating: 0x5A, count: 539), path: "odd.bin")
    #expect(
      odd.message
        == "not a raw-type2 dump: 539 bytes is not a whole number of 4-byte pages (134 pages and "
        + "3 bytes left over): a raw Type 2 image is whole 4-byte pages from page 0")
    var classic = [UInt8](repeating: 0, count: 1024)
    classic[0...4] = [0xDE, 0xAD, 0xBE, 0xEF, 0xDE ^ 0xAD ^ 0xBE ^ 0xEF]
    classic[5] = 0x08
    let mfc = try rawType2Error(classic, path: "mfc1k.bin")
    #expect(
      mfc.message
        == "not a raw-type2 dump: 1024 bytes with a 4-byte UID and its BCC in block 0: a MIFARE "
        + "Classic 1K image (16-byte blocks, sector trailers), not a Type 2 tag's pages; MIFARE "
        + "Classic dumps are not decoded")
    let junk = try rawType2Error(Array(repeating: 0x01, count: 64), path: "junk.bin")
    #expect(
      junk.message
        == "not a raw-type2 dump: 64 bytes (16 pages): byte 12 (CC0) is 01, not the CC magic "
        + "number e1; BCC0 (byte 3) is 01, not 88 ⊕ UID0 ⊕ UID1 ⊕ UID2 = 89; BCC1 (byte 8) is "
        + "01, not UID3 ⊕ UID4 ⊕ UID5 ⊕ UID6 = 00: the CC magic or both UID check bytes are "
        + "expected")
    // Valid pages, but past the largest image without a Proxmark3 header (final review:
    // the message ended "(2049 pages): : …").
    var big: [UInt8] = [0x04, 0x11, 0x22, 0x88 ^ 0x04 ^ 0x11 ^ 0x22, 0x33, 0x44, 0x55, 0x66]
    big += [0x33 ^ 0x44 ^ 0x55 ^ 0x66, 0, 0, 0, 0xE1, 0x10, 0x12, 0x00]
    big += Array(repeating: 0, count: 8196 - big.count)
    let large = try rawType2Error(big, path: "big.img")
    #expect(
      large.message
        == "not a raw-type2 dump: 8196 bytes: a raw Type 2 image is whole 4-byte pages from page "
        + "0, at most 8192 bytes (NTAG I2C plus 2K is 2 KiB) without a Proxmark3 dump header")
    let short = try rawType2Error([0x04, 0x11], path: "s.bin")
    #expect(
      short.message
        == "not a raw-type2 dump: 2 bytes: a raw Type 2 image is whole 4-byte pages from page 0, "
        + "at least pages 0–3 (16 bytes)")
  }

  @Test func proxmark3BadBlockNamesItsEntry() throws {
    var json = "{\"Created\":\"proxmark3\",\"FileType\":\"mfu\",\"blocks\":{"
    json += (0..<12).map { "\"\($0)\":\"\($0 == 9 ? "ZZ000000" : "00000000")\"" }.joined(
      separator: ",")
    json += "}}"
    let error = try #require(throws: TraceError.self) {
      try TagDumpReader.read(TraceInput(path: "b.json", bytes: Data(json.utf8)))
    }
    #expect(error.location.unit == "blocks entry")
    #expect(error.location.record == 10)
    #expect(error.message == "block \"9\": expected 8 hex digits (one 4-byte page)")
    #expect(error.description.hasPrefix("b.json: blocks entry 10, byte offset "))
  }
}
