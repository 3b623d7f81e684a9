import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the expert review of 2026-12-06 (second session).
@Suite struct Pass39RegressionTests {
  private let ntag213Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]

  /// NTAG213 with an NDEF CC, a refused WRITE of page 4, and CFG0 (page 29h) read with AUTH0
  /// `auth0` before the WRITE (`readFirst`) or after it; `writeAfter` writes AUTH0 = 4 after
  /// the refusal.
  private func refusedWrite(auth0: UInt8, readFirst: Bool, writeAfter: Bool) throws
    -> DiagnosisReport
  {
    var t = TraceBuilder()
    t.activateType2(version: ntag213Version)
    t.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    if readFirst { t.read(0x29, [0x04, 0x00, 0x00, auth0, 0x00, 0x05]) }
    t.write(4, [0x03, 0x0C, 0xD1, 0x01], .nak(0x00))
    if !readFirst { t.read(0x29, [0x04, 0x00, 0x00, auth0, 0x00, 0x05]) }
    if writeAfter { t.write(0x29, [0x04, 0x00, 0x00, 0x04]) }
    return try t.diagnose()
  }

  /// AUTH0 = FFh when the WRITE was refused, set to 4 only afterwards: the password is not the
  /// cause (it was blamed on the AUTH0 written after the NAK).
  @Test func auth0WrittenAfterTheRefusalIsNoCause() throws {
    let report = try refusedWrite(auth0: 0xFF, readFirst: true, writeAfter: true)
    #expect(report.finding("t2t-nak-password") == nil)
    let finding = try #require(report.finding("t2t-nak-unexplained"))
    #expect(finding.message.hasSuffix("(AUTH0 read in this session leaves the page free)."))
  }

  /// AUTH0 = 4 read after the refusal, with no write of it in between, was AUTH0 then too.
  @Test func auth0ReadAfterTheRefusalStillCounts() throws {
    let report = try refusedWrite(auth0: 0x04, readFirst: false, writeAfter: false)
    let finding = try #require(report.finding("t2t-nak-password"))
    #expect(finding.message.hasPrefix("CFG0 (read from the tag) sets AUTH0 = 4 (0x4)"))
    #expect(finding.frames.contains(17))  // the READ answer of CFG0
  }

  /// A Type 4 tag with a CC of 23 bytes: NDEF file E104 (write access `ndefWrite`) and a
  /// proprietary file E105 (write access 80h); the app SELECTs E105 and its UPDATE gets 6982.
  private func proprietaryFileRefused(ndefWrite: UInt8) throws -> DiagnosisReport {
    var t = TraceBuilder()
    let ok: [UInt8] = [0x90, 0x00]
    t.activateType4()
    t.selectType4CC()
    t.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x17],
      [0x00, 0x17, 0x20, 0x00, 0x80, 0x00, 0x7F, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00]
        + [ndefWrite, 0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x00, 0x80] + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05], ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x01, 0x02, 0x03, 0x04], [0x69, 0x82])
    return try t.diagnose()
  }

  /// 6982 to an UPDATE of a proprietary file is judged by that file's access in the CC, not
  /// the NDEF file's ("a write its CC allows" with NDEF access 00, "read-only … writer sent
  /// the UPDATE anyway" with FF).
  @Test func proprietaryFileRefusalNamesTheFile() throws {
    for write: UInt8 in [0x00, 0xFF] {
      let report = try proprietaryFileRefused(ndefWrite: write)
      let f = try #require(report.finding("t4t-security-not-satisfied"))
      #expect(f.cause.hasPrefix("the tag refused a write of file e105, not the NDEF file (SW 6982"))
      #expect(
        f.message.contains(
          "file e105 is not the NDEF file (the NDEF file is e104). The CC lists it as a "
            + "proprietary file with write access 80 (proprietary)"))
      #expect(f.coreNFCError == nil)
    }
  }

  /// The report lists a Type 4 CC's Proprietary File Control TLVs (they were left out).
  @Test func reportListsProprietaryFiles() throws {
    let cc = try CapabilityContainer4(
      parsing: [0x00, 0x17, 0x20, 0x00, 0x80, 0x00, 0x7F, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF]
        + [0x00, 0x00, 0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x00, 0x80])
    #expect(
      ReportText.type4CC(cc).contains(
        "\n  proprietary     file e105, max 128 bytes, read 00 (granted), write 80 (proprietary)\n")
    )
  }

  /// A type B session: WUPB, ATQB (PUPI AABBCCDD, ISO 14443-4), ATTRIB and its answer, the
  /// NDEF query, UPDATE NLEN 0, then HLTB answered `00` and the next UPDATE twice unanswered.
  private func typeBHaltedWrite() -> [Frame] {
    let pupi: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD]
    let ok: [UInt8] = [0x90, 0x00]
    let exchanges: [(Direction, [UInt8])] = [
      (.reader, [0x05, 0x00, 0x08]), (.tag, [0x50] + pupi + [0, 0, 0, 0, 0x00, 0x81, 0x81]),
      (.reader, [0x1D] + pupi + [0x00, 0x08, 0x01, 0x00]), (.tag, [0x00]),
      (
        .reader,
        [0x02, 0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
      ),
      (.tag, [0x02] + ok),
      (.reader, [0x03, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]), (.tag, [0x03] + ok),
      (.reader, [0x02, 0x00, 0xB0, 0x00, 0x00, 0x0F]),
      (
        .tag,
        [
          0x02, 0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00,
          0x00,
        ] + ok
      ),
      (.reader, [0x03, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]), (.tag, [0x03] + ok),
      (.reader, [0x02, 0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]), (.tag, [0x02] + ok),
      (.reader, [0x50] + pupi), (.tag, [0x00]),
      (.reader, [0x03, 0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00]),
      (.reader, [0x03, 0x00, 0xD6, 0x00, 0x02, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00]),
    ]
    return exchanges.enumerated().map { i, e in
      Frame(
        index: i, timeNs: Int64(i) * 2_000_000, direction: e.0, event: nil,
        data: CRC.appendingCRCB(e.1), bits: nil, parityErrors: [], technology: .nfcB,
        location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0))
    }
  }

  /// Silence after an HLTB the tag answered is the halted tag's, not the tag leaving (HLTA
  /// was recognised, HLTB was not).
  @Test func silenceAfterHLTBIsTheHalt() throws {
    let report = try DiagnosisRun(importer: MemoryImporter(frames: typeBHaltedWrite()))
      .diagnose(expected: nil)
    let f = try #require(report.finding("write-interrupted"))
    #expect(
      f.cause
        == "the reader halted the tag (HLTB at #14) and sent writeNDEF's commands without waking it"
    )
    #expect(f.frames == [14, 16, 17])
    #expect(f.fix.hasPrefix("Do not send HLTB (50 + PUPI) in the middle of a session"))
  }

  /// An HLTA after RATS is no valid ISO-DEP block: the timeline says so, and no longer calls the
  /// next command one sent to a halted tag (the diagnosis already took it as ignored).
  @Test func hltaInISODEPIsNotAHalt() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
    t.reader([0x50, 0x00])
    let hlta = t.frames.count - 1
    t.reader([0x03, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03])
    let (decoded, _) = decodeAll(t.frames)
    #expect(decoded[hlta].findings.map(\.code) == ["hlta-in-iso-dep"])
    #expect(!decoded.contains { $0.findings.contains { $0.code == "command-while-halted" } })
  }

  /// A FeliCa Lite-S writeNDEF whose acknowledged block 0 sets Ln 34 over blocks 1–2 only: the
  /// 2 bytes of block 3 nothing confirms are `message-unconfirmed` (it said SUCCEEDED; Type 2
  /// and 4 said so already).
  @Test func type3LnOverUnwrittenBlockIsUnconfirmed() throws {
    let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA]
    let aib: (UInt8, UInt8) -> [UInt8] = { writeF, ln in
      var b: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, writeF, 0x01, 0x00, 0x00, ln]
      let sum = b.reduce(0) { $0 + Int($1) }
      b += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
      return b
    }
    let update: (UInt8, [UInt8]) -> [UInt8] = { block, data in
      [0x08] + idm + [0x01, 0x09, 0x00, 0x01, 0x80, block] + data
    }
    let updated = [0x09] + idm + [0x00, 0x00]
    let data: [UInt8] = [0xD1, 0x01, 0x1E, 0x55, 0x04] + Array("example.com/abcdefghijklmno".utf8)
    let exchanges: [(Direction, [UInt8])] = [
      (.reader, [0x00, 0x12, 0xFC, 0x01, 0x00]),
      (.tag, [0x01] + idm + [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00, 0x12, 0xFC]),
      (.reader, [0x06] + idm + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00]),
      (.tag, [0x07] + idm + [0x00, 0x00, 0x01] + aib(0x00, 0x00)),
      (.reader, update(0, aib(0x0F, 0x00))), (.tag, updated),
      (.reader, update(1, Array(data[0..<16]))), (.tag, updated),
      (.reader, update(2, Array(data[16..<32]))), (.tag, updated),
      (.reader, update(0, aib(0x00, 0x22))), (.tag, updated),
    ]
    let report = try DiagnosisRun(importer: MemoryImporter(frames: felica(exchanges)))
      .diagnose(expected: nil)
    let f = try #require(report.finding("message-unconfirmed"))
    #expect(f.frames == [10, 11])
    #expect(f.message.contains("2 were neither read nor written in the trace (block 3)"))
  }

  /// NFC-F frames of `exchanges` (the payload after the length byte): the length byte and
  /// CRC-F added, 3 ms apart.
  private func felica(_ exchanges: [(Direction, [UInt8])]) -> [Frame] {
    exchanges.enumerated().map { i, e in
      let body = [UInt8(e.1.count + 1)] + e.1
      let crc = CRC.crcF(body)
      return Frame(
        index: i, timeNs: Int64(i) * 3_000_000, direction: e.0, event: nil,
        data: body + [UInt8(crc >> 8), UInt8(crc & 0xFF)], bits: nil, parityErrors: [],
        technology: .nfcF,
        location: SourceLocation(file: "built", unit: "frame", record: i + 1, offset: 0))
    }
  }

  /// A CHECK past the blocks Ln covers, after readNDEF read them all, is the app's own read:
  /// its refusal no longer fails the readNDEF.
  @Test func type3CheckPastTheMessageIsNotReadNDEF() throws {
    let idm: [UInt8] = [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA]
    var aib: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0x14]
    let sum = aib.reduce(0) { $0 + Int($1) }
    aib += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
    let check: ([UInt8]) -> [UInt8] = { blocks in
      [0x06] + idm + [0x01, 0x0B, 0x00, UInt8(blocks.count)] + blocks.flatMap { [0x80, $0] }
    }
    let message: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x04] + Array("example.com/abc".utf8)
    let exchanges: [(Direction, [UInt8])] = [
      (.reader, [0x00, 0x12, 0xFC, 0x01, 0x00]),
      (.tag, [0x01] + idm + [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00, 0x12, 0xFC]),
      (.reader, check([0])), (.tag, [0x07] + idm + [0x00, 0x00, 0x01] + aib),
      (.reader, check([1, 2])),
      (.tag, [0x07] + idm + [0x00, 0x00, 0x02] + message + Array(repeating: 0, count: 12)),
      (.reader, check([5])), (.tag, [0x07] + idm + [0x01, 0xA8]),
    ]
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: felica(exchanges)))
    let ops = try #require(run.sessions.first?.operations)
    #expect(ops.suffix(2).map(\.kind) == [.readNDEF, .transceive])
    #expect(ops.suffix(2).map(\.outcome) == [.ok, .failed])
    // A reader reading on from where the read stopped (in chunks past Ln) is still reading.
    let chunked =
      Array(exchanges.prefix(6)) + [
        (.reader, check([3, 4])),
        (.tag, [0x07] + idm + [0x00, 0x00, 0x02] + Array(repeating: 0, count: 32)),
      ]
    let again = try SessionAnalysisRun(importer: MemoryImporter(frames: felica(chunked)))
    #expect(again.sessions.first?.operations.last?.kind == .readNDEF)
    #expect(again.sessions.first?.operations.filter { $0.kind == .transceive }.isEmpty == true)
  }

  /// A lock whose static lock bits LOCK0's block-locking bits froze: the fix no longer asks
  /// for the page 2 write the lock just made and the tag cannot take.
  @Test func frozenLockBitsAreNotAskedFor() throws {
    var t = TraceBuilder()
    t.activateType2(version: ntag213Version)
    t.read(0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x00, 0x48, 0x06, 0x00])
    t.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    t.write(2, [0x00, 0x00, 0xFF, 0xFF])
    t.write(3, [0xE1, 0x10, 0x12, 0x0F])
    let report = try t.diagnose()
    let f = try #require(report.finding("t2t-lock-incomplete"))
    #expect(
      f.fix.hasPrefix(
        "The block-locking bits of LOCK0 (page 2 byte 2, bits 1–2) are set: they freeze the lock "
          + "bits of pages 4–15 for good"))
  }

  /// A nested MIFARE Classic authentication (an encrypted AUTH answered by a 4-byte encrypted
  /// nt) is named, and its {nr}{ar} left unanswered is a rejected key, as for a first
  /// authentication (it was "transceive interrupted … the tag left the field").
  @Test func nestedClassicAuthentication() throws {
    var t = TraceBuilder()
    t.activateSingle([0x56, 0xDD, 0x89, 0x78], sak: 0x08)
    t.reader([0x60, 0x04])
    t.add(.tag, [0x01, 0x02, 0x03, 0x04], crc: false)
    t.add(.reader, [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    t.add(.tag, [0x58, 0xB8, 0x14, 0x2C], crc: false)
    t.add(.reader, [0x44, 0x0D, 0x59, 0x13], crc: false)
    t.add(.tag, [0x1E, 0xD2, 0x4A, 0x6A], crc: false)
    t.add(.reader, [0x34, 0xD8, 0xD0, 0x2C, 0x58, 0x90, 0x82, 0xAD], crc: false)
    let (decoded, _) = decodeAll(t.frames)
    #expect(decoded[11].innermost?.name == "AUTH (nt)")
    #expect(decoded[11].innermost?.field("nested") == .bool(true))
    #expect(decoded[12].innermost?.name == "AUTH (nr, ar)")
    let report = try t.diagnose()
    let f = try #require(report.finding("authentication-failed"))
    #expect(f.frames == [12])
    #expect(report.finding("command-interrupted") == nil)
  }

  /// 6982 to an UPDATE of a file when no CC was read (a capture starting after detection; an
  /// ST tag whose NDEF file is 0001) is not called "not the NDEF file".
  @Test func otherFileRuleNeedsTheCC() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu(
      [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00])
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x00, 0x01], [0x90, 0x00])
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let f = try #require(try t.diagnose().finding("t4t-security-not-satisfied"))
    #expect(!f.message.contains("not the NDEF file"))
    #expect(
      f.message.hasPrefix("The tag answered 6982 (security status not satisfied): it refuses"))
  }

  /// The page-0 UID shared by the session's identity and the timeline header: both check
  /// bytes, and never all zeros (the header named UID 00:00:00:00:00:00:00 the JSON did not).
  @Test func page0UID() {
    let flipper: [UInt8] = [0x04, 0x5A, 0x6B, 0xBD, 0x7C, 0x8D, 0x9E, 0xAF, 0xC0, 0x48]
    #expect(TagIdentity.uid(fromPage0: flipper) == [0x04, 0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])
    #expect(TagIdentity.uid(fromPage0: [0, 0, 0, 0x88, 0, 0, 0, 0, 0]) == nil)
    #expect(TagIdentity.uid(fromPage0: Array(flipper.prefix(8))) == nil)
  }

  /// CR CR LF (a CR LF text written again in text mode) is one line end.
  @Test func crCrLfIsOneLineEnd() {
    let text = Array("a\r\r\nb\r\nc".utf8)
    let first = TextLines.line(in: text, from: 0)
    #expect(first.end == 1 && first.next == 4)
    #expect(TextLines.count(in: text, 0..<text.count) == 2)
  }
}

/// Type B labels of the expert review of 2026-12-06 (second session).
@Suite struct Pass39TypeBTests {
  /// An extended ATQB's SFGI gives its SFGT, and FWI 15 is named RFU (it showed "FWT 4.8 ms"
  /// without a word, and no SFGT).
  @Test func extendedATQBWithRFUFWI() throws {
    let (out, _) = decodeAll(
      typeB([(.reader, "050010"), (.tag, "50aabbccdd12345678f7c1f720")]))
    let atqb = try #require(out[1].layers.first)
    #expect(
      atqb.summary
        == "ATQB PUPI aabbccdd, FSC 4096, FWT 4.8 ms (FWI 15 RFU, read as 4), SFGT 1.2 ms, "
        + "ISO 14443-4, CID, NAD")
    #expect(atqb.field("sfgi") == .int(2))
    #expect(out[1].findings.map(\.code) == ["rfu-fwi"])
  }

  /// A Slot-MARKER no tag answered after a session polls an empty slot: no "connect failed".
  @Test func unansweredSlotMarkerConnectsNothing() throws {
    let frames = typeB([
      (.reader, "050000"), (.tag, "50aabbccdd0000000000818140"),
      (.reader, "1daabbccdd00080100"), (.tag, "00"),
      (.reader, "050005"), (.reader, "f5"),
    ])
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: frames))
    let kinds = run.sessions.flatMap { $0.operations.map(\.kind) }
    #expect(kinds == [.connect])
    #expect(run.sessions.flatMap(\.operations).allSatisfy { $0.outcome == .ok })
  }
}
