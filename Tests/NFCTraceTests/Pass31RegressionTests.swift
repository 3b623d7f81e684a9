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

@Suite struct Pass31ReportTests {
  /// NTAG213F had no Configuration section: its CFG0 byte 0 holds SLEEP_EN and FDP_CONF where
  /// NTAG21x has STRG_MOD_EN (NXP NTAG213F/216F datasheet §8.5.7).
  @Test func ntag213FConfigurationIsDecoded() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x04, 0x01, 0x00, 0x0F, 0x03])
    b.read(0x29, [0xCA, 0x00, 0x10, 0x04, 0x5F, 0x00, 0x00, 0x00])
    let report = TagReport(session: try #require(try sessions(b).first))
    #expect(report.tag.product == "NTAG213F")
    let c = try #require(report.end.config)
    #expect(c.cfg0Page == 0x29)
    #expect(c.mirrorConf == 3 && c.mirrorByte == 0 && c.mirrorPage == 0x10)
    #expect(c.strongModulation == nil)
    #expect(c.sleepEnabled == true && c.fieldDetectConf == 1)
    #expect(c.protectedPages == 4...0x2C && c.prot == false && c.cfgLock == true)
    #expect(c.nfcCounterEnabled == true && c.nfcCounterPasswordProtected == true)
    #expect(c.authLimit == 7)
    let text = ReportText.render(report)
    #expect(text.contains("SLEEP_EN        1 (sleep mode enabled)"))
    #expect(text.contains("FDP_CONF        1 (01b)"))
    #expect(!text.contains("strong mod."))
    #expect(text.contains("AUTH0           04: password needed to write pages 4–44"))
    // NTAG213's byte 0 bit 2 stays STRG_MOD_EN.
    var plain = Type2Configuration(
      family: .ntag21x, cfg0Page: 0x29, cfg0: [0x04, 0, 0, 0xFF], cfg1: nil)
    #expect(plain.strongModulation == true && plain.sleepEnabled == nil)
    plain.family = .ntagF
    #expect(plain.strongModulation == nil && plain.fieldDetectConf == 2)
  }
}

extension Pass31ReportTests {
  /// A MIFARE Ultralight C's AUTH0/AUTH1 (pages 2Ah–2Bh) were not decoded: the report now
  /// says which pages need 3DES authentication (MF0ICU2 §7.5.8).
  @Test func ultralightCAuthenticationSettings() throws {
    let path = TestPaths.shared("public/proxmark3/hf_14a_mfuc_defaultkey.trace")
    let source = try ReportSource.open(
      TraceInput(path: path), formatName: nil, registry: FormatRegistry(BuiltinFormats.all))
    let report = TagReport(session: try #require(TagReport.defaultSession(source.sessions)))
    let auth = try #require(report.end.ultralightCAuth)
    #expect(auth.auth0 == 0x28 && auth.auth1 == 0x00)
    #expect(auth.protectedPages == 40...47 && auth.readsProtected == true)
    let text = ReportText.render(report)
    #expect(
      text.contains("AUTH0           28: 3DES authentication needed to read and write pages 40–47"))
    #expect(text.contains("AUTH1           00: bit 0 = 0 (reads need it too)"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.report(report, to: out)
    #expect(
      out.text.contains(
        #""ulc_auth":{"auth0":40,"auth1":"00","protected_pages":[[40,47]],"reads_protected":true}"#
      ))
    #expect(UltralightCAuthentication(auth0: 0x30, auth1: 0).protectedPages == nil)
    #expect(
      UltralightCAuthentication(auth0: 0x10, auth1: 1).protectionText
        == "3DES authentication needed to write pages 16–47")
  }
}

extension Pass31ReportTests {
  private func ultralightCDump(json: Bool) throws -> TagDump {
    var pages = Array(repeating: "00000000", count: 48)
    pages[0] = "04112233"
    pages[1] = "44556677"
    pages[2] = "88480000"
    pages[3] = "E1100600"
    pages[4] = "0300FE00"
    pages[42] = "10000000"
    pages[43] = "01000000"
    let bytes: Data
    if json {
      let blocks = pages.enumerated().map { "\"\($0.offset)\": \"\($0.element)\"" }
      bytes = Data(
        (#"{"Created": "proxmark3", "FileType": "mfu", "Card": {"UID": "04112244556677", "#
          + #""Version": "0000000000000000", "Signature": ""# + String(repeating: "0", count: 64)
          + #"", "Counter0": "000000", "Counter1": "000000", "Counter2": "000000"}, "blocks": {"#
          + blocks.joined(separator: ", ") + "}}").utf8)
    } else {
      bytes = Data(pages.flatMap { Hex.bytes($0) ?? [] })
    }
    return try #require(
      try TagDumpReader.read(TraceInput(path: json ? "ulc.json" : "ulc.bin", bytes: bytes)))
  }

  /// A Proxmark3 JSON dump of a tag without GET_VERSION (zeros stored) was reported as
  /// "vendor 00 type 00 … memory 1 bytes" with three zero counters; a 48-page dump without a
  /// GET_VERSION answer is a MIFARE Ultralight C (raw images too).
  @Test func ultralightCDumpsAreRecognised() throws {
    for json in [true, false] {
      let dump = try ultralightCDump(json: json)
      #expect(dump.version == nil && dump.signature == nil && dump.counters.isEmpty)
      let report = TagReport(dump: dump)
      #expect(report.tag.product == "MIFARE Ultralight C")
      #expect(report.tag.memoryBytes == 144)
      #expect(report.end.ultralightCAuth?.protectedPages == 16...47)
      #expect(report.end.ultralightCAuth?.readsProtected == false)
      #expect(report.warnings.contains { $0.hasPrefix("product MIFARE Ultralight C inferred") })
    }
  }
}

/// Hunt t4 of 2026-12-05 (second session).
@Suite struct Pass31Type4Tests {
  private let ok: [UInt8] = [0x90, 0x00]

  /// A frame longer than the FSD that the reader took (its next I-block toggled, the read
  /// succeeded) was an error with Core NFC 102, and its frames joined the next operation's.
  @Test func fsdOverrunTheReaderTookIsAWarningPerOperation() throws {
    var b = TraceBuilder()
    b.activateType4(fsdi: 2)  // FSD 32
    b.queryType4(nlen: 0x40)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x40], Array(repeating: 0x61, count: 64) + ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x40] + ok)
    let d = try b.diagnose()
    let found = d.findings.filter { $0.code == "response-exceeds-fsd" }
    #expect(found.count == 1)
    let f = try #require(found.first)
    #expect(f.severity == .warning && f.coreNFCError == nil)
    #expect(f.message.contains("This reader took it anyway"))
    let s = try #require(try sessions(b).first)
    let read = try #require(f.operation)
    #expect(s.operations[read].kind == .readNDEF)
    #expect(
      f.frames.allSatisfy {
        (s.operations[read].firstFrame...s.operations[read].lastFrame).contains($0)
      })
  }

  /// 6A86 / 6B00 to READ CC offset 0 Le 15 was blamed on the offset ("keep offsets inside the
  /// NDEF file"); every CC holds 15 bytes from offset 0 (T4T 2.0 §5.1): the tag is at fault.
  @Test func refusedCCReadAtOffsetZeroBlamesTheTag() throws {
    for sw: [UInt8] in [[0x6A, 0x86], [0x6B, 0x00]] {
      var b = TraceBuilder()
      b.activateType4()
      b.selectType4CC()
      b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], sw)
      let f = try #require(try b.diagnose().finding("t4t-offset-out-of-range"))
      #expect(f.cause.hasPrefix("the tag refused a READ of its CC inside the CC's bytes (SW "))
      #expect(f.fix.hasPrefix("Fix the tag's (or HCE service's) CC file"))
    }
    var past = TraceBuilder()
    past.activateType4()
    past.selectType4CC()
    past.apdu([0x00, 0xB0, 0x00, 0x10, 0x0F], [0x6B, 0x00])
    let f = try #require(try past.diagnose().finding("t4t-offset-out-of-range"))
    #expect(
      f.cause == "the READ of the CC file goes past its end (SW 6B00 to READ CC offset 16 Le 15)")
  }
}

extension Pass31Type4Tests {
  /// A READ BINARY answer longer than its Le was taken whole, its extra bytes stored in the
  /// file image as read (an NLEN read with Le 2 answered 3 bytes put a third byte in the map).
  @Test func answerLongerThanLeIsWarnedAndCut() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x14, 0x77] + ok)
    let s = try #require(try sessions(b).first)
    let file = try #require(s.memory.filesEnd[0xE104])
    #expect(file.known(0, 2) == [0x00, 0x14])
    #expect(file.known(2, 1) == nil)
    var decoder = FrameDecoder()
    let answer = try #require(b.frames.map { decoder.decode($0) }.last)
    #expect(answer.findings.map(\.code) == ["response-longer-than-le"])
  }
}

extension Pass31Type4Tests {
  /// A CC whose NDEF File Control TLV follows a proprietary one (offset 15, not 7) was taken
  /// without a word; T4T §5.1 puts it at offset 7 and Android reads it there only.
  @Test func ndefControlTLVNotAtOffsetSevenIsACCProblem() throws {
    let cc: [UInt8] =
      [0x00, 0x17, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x00, 0xFF]
      + [0x04, 0x06, 0xE1, 0x04, 0x08, 0x00, 0x00, 0x00]
    let parsed = try CapabilityContainer4(parsing: cc)
    #expect(parsed.ndefControlOffset == 15)
    #expect(
      parsed.valueProblems.map(\.description) == [
        "CC byte offset 15: the NDEF File Control TLV is at offset 15, not 7 where T4T places it (readers "
          + "that look for it there only, such as Android's, reject this CC)"
      ])
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x17], cc + ok)
    #expect(try b.diagnose().finding("t4t-cc-invalid-value") != nil)
  }
}

extension Pass31ImporterTests {
  /// Review: a `trace list` saved as `.trace` whose first 4 KiB hold a control byte (not
  /// text) and whose table comes later was taken by the last-resort `.trace` score instead of
  /// the longer look that finds the table.
  @Test func textNamedDotTraceStillFindsItsTableLater() throws {
    let listing = try Data(
      contentsOf: URL(
        fileURLWithPath: TestPaths.shared("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt")))
    let preamble = Data(("[=] session\u{07}\n" + String(repeating: "[=] x\n", count: 900)).utf8)
    let input = TraceInput(path: "session.trace", bytes: preamble + listing)
    #expect(try FormatRegistry(BuiltinFormats.all).detect(input).name == "pm3-text")
  }
}

extension Pass31ReportTests {
  /// Review: AUTH0 below 03h is outside the datasheet's range; AUTH1 bit 0 = 1 frees reads
  /// whatever AUTH0 is.
  @Test func ultralightCAuthEdgeValues() {
    let low = UltralightCAuthentication(auth0: 0x01, auth1: 0)
    #expect(low.protectedPages == nil)
    #expect(low.protectionText?.hasSuffix("behaviour not specified") == true)
    let out = OutputBuffer(fd: nil)
    ReportJSON.ultralightCAuth(UltralightCAuthentication(auth0: nil, auth1: 1), to: out)
    #expect(out.text.hasSuffix(#""reads_protected":false}"#))
  }
}
