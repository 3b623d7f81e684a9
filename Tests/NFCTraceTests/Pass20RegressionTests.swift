import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// A session of an NTAG213 whose memory from page 3 on is `memory` (CC first), read whole with
/// READs of four pages.
private func readNTAG213(_ memory: [UInt8]) throws -> SessionAnalysis {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  var page = 3
  while (page - 3) * 4 < memory.count {
    b.read(page, Array(memory.dropFirst((page - 3) * 4)))
    page += 4
  }
  return try #require(try sessions(b).first)
}

/// A Wi-Fi Simple Config record (`application/vnd.wfa.wsc`, WSC 2.0 §12) with one Credential
/// per (SSID, network key).
private func wifiRecord(_ credentials: [(ssid: String, key: String)]) -> [UInt8] {
  func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
    [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
      + value
  }
  var payload = attribute(0x104A, [0x10])
  for c in credentials {
    payload += attribute(
      0x100E,
      attribute(0x1026, [0x01]) + attribute(0x1045, Array(c.ssid.utf8))
        + attribute(0x1003, [0x00, 0x20]) + attribute(0x100F, [0x00, 0x08])
        + attribute(0x1027, Array(c.key.utf8))
        + attribute(0x1020, [UInt8](repeating: 0xFF, count: 6)))
  }
  let type = Array("application/vnd.wfa.wsc".utf8)
  return [0xD2, UInt8(type.count), UInt8(payload.count)] + type + payload
}

/// An NTAG213 holding `message` in its NDEF TLV.
private func ntag213Holding(_ message: [UInt8]) throws -> SessionAnalysis {
  try readNTAG213([0xE1, 0x10, 0x12, 0x00, 0x03, UInt8(message.count)] + message + [0xFE])
}

/// Findings of the sixteenth session's `diff` and `report` pass.
@Suite struct Pass20DiffReportTests {
  /// A second Wi-Fi credential that differs is a difference, under its own name
  /// (`credential_2`, as in the JSON): before, every repeat was compared with B's first
  /// credential, and a different second network gave `=` or B's first SSID.
  @Test func repeatedCredentialsArePairedInOrder() throws {
    let a = try ntag213Holding(wifiRecord([("Home", "password1"), ("Office", "password1")]))
    let b = try ntag213Holding(wifiRecord([("Home", "password1"), ("Guest", "password2")]))
    let diff = NDEFComparison.compare(a, b)
    let record = try #require(diff.records.first)
    #expect(
      record.differences == [
        FieldDifference("credential_2.ssid", .string("Office"), .string("Guest")),
        FieldDifference(
          "credential_2.network_key", .string("present, 9 bytes (masked; differs)"),
          .string("present, 9 bytes (masked; differs)")),
      ])
    let same = NDEFComparison.compare(a, a)
    #expect(same.records.first?.differences == [])
  }

  /// Two network keys of the same length differ although their masked text is the same.
  @Test func differentNetworkKeysDiffer() throws {
    let a = try ntag213Holding(wifiRecord([("Home", "password1")]))
    let b = try ntag213Holding(wifiRecord([("Home", "password2")]))
    let record = try #require(NDEFComparison.compare(a, b).records.first)
    #expect(record.differences.map(\.field) == ["credential.network_key"])
  }

  /// An NDEF TLV announcing 256 bytes in a 144-byte data area read whole: the message is not
  /// decoded (readers reject the tag), and the note says how much the area holds.
  @Test func ndefTLVPastTheDataAreaIsNotDecoded() throws {
    let uri: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
    var memory: [UInt8] = [0xE1, 0x10, 0x12, 0x00, 0x03, 0xFF, 0x01, 0x00] + uri + [0xFE]
    memory += [UInt8](repeating: 0, count: 4 + 144 - memory.count)
    let report = TagReport(session: try readNTAG213(memory))
    guard case .pastDataArea(let length, let available) = report.end.message else {
      Issue.record("message: \(report.end.message)")
      return
    }
    #expect(length == 256)
    #expect(available == 140)
    #expect(ReportJSON.note(report.end.message) == "incomplete: 256 bytes, 140 in the data area")
  }

  /// A session that only connected, after one on the same UID that wrote page 4: the page is
  /// marked as from an earlier session, and the NDEF status says it was not queried here.
  @Test func memoryCarriedFromAnEarlierSessionIsMarked() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    b.reader([0x50, 0x00])
    b.activateType2()
    let all = try sessions(b)
    try #require(all.count == 2)
    let report = TagReport(session: all[1])
    let page4 = try #require(report.rows().first { $0.address == 4 })
    #expect(page4.earlierSession)
    #expect(page4.frame == 15)  // the ACK of the WRITE
    #expect(report.rows().allSatisfy { $0.frame == nil || $0.earlierSession })
    #expect(
      report.ndefStatus?.reason
        == "CC3 write access 0 (free); from the CC an earlier session read; this session did not "
        + "query it")
    let first = TagReport(session: all[0])
    #expect(first.rows().allSatisfy { !$0.earlierSession })
  }

  /// An NTAG I2C session-register page (sector 3, page F8h, numbered 3 × 256 + F8h) is
  /// labelled by sector and page in the text memory map, not as page 1016.
  @Test func sectorPagesAreLabelledBySector() {
    let row = MemoryRow(
      file: nil, address: 3 * 256 + 0xF8, bytes: [1, 0, 0xF8, 0x48],
      known: [true, true, true, true],
      state: .read, frame: 20)
    #expect(ReportText.label(row) == "  3:f8")
    var low = row
    low.address = 16
    #expect(ReportText.label(low) == "    16")
  }

  /// Only CFG0 missing (a READ that started at CFG1): only page 41 is named as not read.
  @Test func oneConfigurationPageNotReadIsNamedAlone() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.read(42, [0x00, 0x05, 0x00, 0x00])
    let report = TagReport(session: try #require(try sessions(b).first))
    #expect(report.end.unknowns.contains("configuration page 41 (CFG0) not read"))
    #expect(!report.end.unknowns.contains { $0.hasPrefix("configuration pages") })
  }
}

/// Findings of the sixteenth session's pass over NXP and ST Type 4 products.
@Suite struct Pass20Type4Tests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// An ST25TA whose NDEF file needs the read password (CC read access 80): READ NLEN refused
  /// with 6982. The report gives the query's notSupported (before: readOnly from the CC, and
  /// "the session changed the CC" though nothing was written), and the diagnosis names the
  /// protection, not "not NDEF formatted".
  @Test func readProtectedNDEFFileKeepsTheQuerysStatus() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile(read: 0x80)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.ndefStatus?.status == .notSupported)
    let report = TagReport(session: s)
    #expect(report.ndefStatus?.status == .notSupported)
    #expect(report.ndefStatus?.reason?.contains("changed the CC") == false)
    // Read access 80 with write access 00: the CC alone would give readWrite.
    #expect(report.ndefStatus?.reason?.contains("; the CC alone gives readWrite") == true)
    let codes = try b.diagnose().findings.map(\.code)
    #expect(codes.contains("t4t-security-not-satisfied"))
    #expect(!codes.contains("not-ndef-formatted"))
  }

  /// After the query and readNDEF, the app selects the ST25TA system file E101 and reads it,
  /// then selects the NDEF file again, sends VERIFY, and writes: the SELECTs join what follows
  /// them. Before, each started a phantom queryNDEFStatus.
  @Test func selectsAfterTheQueryJoinWhatFollows() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 3)
    b.apdu([0x00, 0xB0, 0x00, 0x02, 0x03], [0xD0, 0x00, 0x00] + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x01], Self.ok)
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x12], [UInt8](repeating: 0, count: 18) + Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0x20, 0x00, 0x02, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(
      s.operations.map(\.kind) == [
        .connect, .queryNDEFStatus, .readNDEF, .transceive, .transceive, .writeNDEF, .transceive,
      ])
    // The SELECT of E101 opens the transceive that reads it; the last SELECT, with nothing
    // after it, is a transceive of its own.
    #expect(s.operations[3].firstFrame == 20)
    #expect(s.operations[5].firstFrame == 28)
    #expect(s.operations[5].outcome == .ok)
    #expect(s.operations[6].firstFrame == 36)
    #expect(try streamedTimeline(b).filter { $0.contains("▸") }.count == 7)
    // The system file E101 read is in the memory map (not NDEF memory).
    #expect(s.memory.filesEnd[0xE101]?.knownRun(from: 0).count == 18)
    #expect(TagReport(session: s).rows().contains { $0.file == 0xE101 })
  }
}

/// Findings of the sixteenth session's pass over MIFARE DESFire, NTAG 424 DNA and ST25TA
/// commands.
@Suite struct Pass20DESFireTests {
  /// The native DESFire protocol (libfreefare, Core NFC's `sendMiFareCommand`): each command
  /// a code and its parameters, each answer a status byte and data. Before, `5A 01 00 00`
  /// (SelectApplication) was read as a case 1 APDU, the 1-byte OK answer got a false
  /// `malformed-apdu`, and the refusal A0 at the end left the operation `ok`.
  @Test func nativeCommandsAreDecodedAndTheirStatusJudged() throws {
    var b = TraceBuilder()
    b.activateType4(uid: [0x08, 0x5E, 0x3A, 0x22])
    b.apdu([0x60], [0xAF, 0x04, 0x01, 0x01, 0x01, 0x00, 0x1A, 0x05])
    b.apdu([0xAF], [0xAF, 0x04, 0x01, 0x01, 0x01, 0x04, 0x1A, 0x05])
    b.apdu([0xAF], [0x00] + [UInt8](repeating: 0x11, count: 14))
    b.apdu([0x5A, 0x01, 0x00, 0x00], [0x00])
    b.apdu([0x5A, 0x02, 0x00, 0x00], [0xA0])
    let (frames, _) = decodeAll(b.frames)
    let select = try #require(frames.first { $0.frame.data.count > 3 && $0.frame.data[1] == 0x5A })
    #expect(select.layer(.iso7816)?.name == "DESFire SELECT APPLICATION")
    #expect(select.layer(.iso7816)?.field("native") == .bool(true))
    let ok = frames[select.frame.index + 1]
    #expect(ok.layer(.iso7816)?.summary == "DESFire status 0x00 OK")
    #expect(ok.findings.isEmpty)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .transceive])
    #expect(s.operations[1].outcome == .failed)
    #expect(
      s.operations[1].reason
        == "DESFire SELECT APPLICATION refused: DESFire status 0xA0 application not found")
    #expect(s.tag.product == "MIFARE DESFire EV1 8K")
  }

  /// AuthenticateAES refused at its second step (91AE): an `authenticate` operation, and the
  /// diagnosis names a wrong key, not the ADDITIONAL FRAME and a Type 4 fix.
  @Test func failedAuthenticationIsNamed() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(
      [0x90, 0xAA, 0x00, 0x00, 0x01, 0x00, 0x00],
      [UInt8](repeating: 0x22, count: 16) + [0x91, 0xAF])
    b.apdu(
      [0x90, 0xAF, 0x00, 0x00, 0x20] + [UInt8](repeating: 0x34, count: 32) + [0x00], [0x91, 0xAE])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .authenticate])
    #expect(s.operations[1].outcome == .failed)
    let finding = try #require(try b.diagnose().findings.first { $0.code == "apdu-refused" })
    #expect(finding.cause.hasPrefix("authentication failed: the key did not match (SW 91AE"))
    #expect(finding.message.contains("to the second step of DESFire AUTHENTICATE AES (#8)"))
    #expect(finding.coreNFCError == nil)
  }

  /// 910C to CommitTransaction is NO_CHANGES: nothing to commit, a success.
  @Test func commitWithNoChangesSucceeds() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x90, 0xC7, 0x00, 0x00, 0x00], [0x91, 0x0C])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.outcome == .ok)
    #expect(try b.diagnose().findings.isEmpty)
  }

  /// EV2 / NTAG 424 DNA ReadData and ST25TA's permanent state are named under their own CLA;
  /// `00 28` stays ISO's.
  @Test func proprietaryInstructionsAreNamedByClass() {
    #expect(APDUInstruction.name(cla: 0x90, ins: 0xAD) == "DESFire READ DATA")
    #expect(APDUInstruction.name(cla: 0x90, ins: 0x8D) == "DESFire WRITE DATA")
    #expect(APDUInstruction.name(cla: 0xA2, ins: 0x28) == "ST ENABLE PERMANENT STATE")
    #expect(APDUInstruction.name(cla: 0xA2, ins: 0xB0) == "ST EXTENDED READ BINARY")
    #expect(APDUInstruction.name(cla: 0x00, ins: 0x28) == "ENABLE VERIFICATION REQUIREMENT")
  }
}

/// Findings of the sixteenth session's pass over MIFARE Classic.
@Suite struct Pass20ClassicTests {
  /// After authentication, an encrypted read and the reader's last 4-byte encrypted frame with
  /// no answer (its HALT, or a READ): how the operation ended is unknown, not "the tag left".
  /// An answered frame after the silence keeps it an interruption.
  @Test func lastEncryptedShortFrameUnansweredIsUnknown() throws {
    var b = TraceBuilder()
    b.activateSingle([0x5E, 0x1F, 0x7A, 0x33], sak: 0x08)
    b.reader([0x60, 0x04])
    b.tag([0x01, 0x02, 0x03, 0x04], crc: false)
    b.add(.reader, [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88], crc: false)
    b.add(.tag, [0x99, 0xAA, 0xBB, 0xCC], crc: false)
    b.add(.reader, [0xF7, 0x2D, 0xB0, 0x22], crc: false)
    b.add(.tag, [UInt8](repeating: 0x5A, count: 18), crc: false)
    var answered = b
    b.add(.reader, [0xA3, 0x5A, 0xBA, 0x5E], crc: false)
    let last = try #require(try sessions(b).first?.operations.last)
    #expect(last.outcome == .unknown)
    #expect(last.reason?.hasPrefix("no answer to the last encrypted command (4 bytes") == true)
    answered.add(.reader, [0xA3, 0x5A, 0xBA, 0x5E], crc: false)
    answered.add(.reader, [0xF7, 0x2D, 0xB0, 0x22], crc: false)
    answered.add(.tag, [UInt8](repeating: 0x5A, count: 18), crc: false)
    #expect(try sessions(answered).first?.operations.last?.outcome == .interrupted)
  }
}

/// Findings of the sixteenth session's importer pass.
@Suite struct Pass20ImportTests {
  private func frames(_ input: TraceInput) throws -> ([Frame], [TraceWarning]) {
    var importer = try Proxmark3TextImporter(input: input)
    var out: [Frame] = []
    while let f = try importer.next() { out.append(f) }
    return (out, importer.warnings)
  }

  /// A `trace list` copied from a terminal narrower than the table, every line broken at 80
  /// (or 60) columns, header included: the rows are joined and give the same frames. Before,
  /// the bytes after the break were lost and the frames' CRC blamed the radio link.
  @Test(arguments: [60, 80, 100])
  func rowsWrappedByATerminalAreJoined(width: Int) throws {
    let path = TestPaths.shared("derived/proxmark3-text/hf_14a_mfu.list_14a.txt")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var wrapped = ""
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var rest = Substring(line)
      while rest.count > width {
        wrapped += rest.prefix(width) + "\n"
        rest = rest.dropFirst(width)
      }
      wrapped += rest + "\n"
    }
    let (a, _) = try frames(try TraceInput(path: path))
    let (b, warnings) = try frames(TraceInput(path: "wrapped.txt", bytes: Data(wrapped.utf8)))
    #expect(a.count == 22)
    #expect(b.map(\.data) == a.map(\.data))
    #expect(b.map(\.timeNs) == a.map(\.timeNs))
    // The header's line: the lines above it may have wrapped too (line 8 at 60 columns).
    let header = width == 60 ? 8 : 6
    #expect(
      warnings.first?.message
        == "line \(header) continues on the next line (the listing was wrapped by a terminal): "
        + "joined; later such rows are joined too")
  }
}

/// Findings of the sixteenth session's pass over Android's makeReadOnly and configuration
/// writes.
@Suite struct Pass20AndroidTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// An NTAG213 without GET_VERSION and without Lock Control TLV, queried (144-byte data area:
  /// default dynamic lock bytes at page 40).
  private func queried() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    return b
  }

  /// libnfc-nci's makeReadOnly (RW_T2tSetTagReadOnly): the CC's write access, a READ of the
  /// dynamic lock block, its write, the static lock bytes. One writeLock; before, the READ
  /// split it into writeLock · transceive · writeLock, and a tag leaving after the first
  /// half left that half "ok".
  @Test func makeReadOnlyIsOneWriteLock() throws {
    var b = queried()
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    var cut = b
    b.read(40, [0x00, 0x00, 0x00, 0xBD])
    b.write(40, [0xFF, 0x0F, 0x00, 0xBD])
    b.write(2, [0xD0, 0x48, 0xFF, 0xFF])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(s.operations.last?.outcome == .ok)
    cut.reader([0x30, 40])
    let c = try #require(try sessions(cut).first)
    #expect(c.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(c.operations.last?.outcome == .interrupted)
  }

  /// An app setting a password on an NTAG213 the trace does not identify (no GET_VERSION):
  /// the configuration pages lie past the CC's data area, so the writes are the app's own
  /// (transceive), not writeNDEF.
  @Test func configurationWritesPastTheDataAreaAreNoNDEFWrite() throws {
    var b = queried()
    b.write(0x2B, [0x12, 0x34, 0x56, 0x78])
    b.write(0x2C, [0xAB, 0xCD, 0x00, 0x00])
    b.write(0x29, [0x04, 0x00, 0x00, 0x04])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(s.operations.last?.outcome == .ok)
  }

  /// libnfc-nci's Type 4 makeReadOnly: SELECT the CC file, UPDATE its write access byte
  /// (offset 0Eh) to FF, SELECT the NDEF file again. One writeLock; before, the CC's SELECT
  /// was a phantom queryNDEFStatus.
  @Test func type4MakeReadOnlyIsOneWriteLock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], Self.ok)
    b.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0xFF], Self.ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeLock])
    #expect(s.operations.last?.firstFrame == 18)
    #expect(s.operations.last?.outcome == .ok)
  }
}

/// Findings of the sixteenth session's review of its own change.
@Suite struct Pass20ReviewTests {
  private static let ok: [UInt8] = [0x90, 0x00]

  /// A native SelectApplication as the first command (`5A 01 00 00` also parses as a case 1
  /// APDU) answered by the 1-byte status: native, judged (A0 fails the operation), no
  /// `malformed-apdu`.
  @Test func nativeSelectApplicationFirstIsNative() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x5A, 0x01, 0x00, 0x00], [0x00])
    b.apdu([0x5A, 0x02, 0x00, 0x00], [0xA0])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames.allSatisfy { f in !f.findings.contains { $0.code == "malformed-apdu" } })
    #expect(frames[9].layer(.iso7816)?.summary == "DESFire status 0x00 OK")
    #expect(frames[10].layer(.iso7816)?.name == "DESFire SELECT APPLICATION")
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.outcome == .failed)
  }

  /// Once the link is native, a command that is also an APDU (`0C B0 …`: CREDIT, or READ
  /// BINARY with secure messaging) answered by a status word is the APDU: 6988 refuses it.
  @Test func apduAnswerOnANativeLinkIsTheAPDUs() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu([0x60], [0xAF, 0x04, 0x01, 0x01, 0x01, 0x00, 0x1A, 0x05])
    b.apdu([0x0C, 0xB0, 0x00, 0x00, 0x0F], [0x69, 0x88])
    let (frames, _) = decodeAll(b.frames)
    #expect(frames[11].layer(.iso7816)?.field("sw") == .string("6988"))
    #expect(try sessions(b).first?.operations.last?.outcome == .failed)
  }

  /// Two DESFire authentications in a row, the first refused (91AE), the second accepted:
  /// two operations; before, one `authenticate failed`.
  @Test func eachAuthenticationIsItsOwnOperation() throws {
    var b = TraceBuilder()
    b.activateType4()
    let challenge = [UInt8](repeating: 0x22, count: 16) + [0x91, 0xAF]
    let proof = [0x90, 0xAF, 0x00, 0x00, 0x20] + [UInt8](repeating: 0x34, count: 32) + [0x00]
    b.apdu([0x90, 0xAA, 0x00, 0x00, 0x01, 0x00, 0x00], challenge)
    b.apdu(proof, [0x91, 0xAE])
    b.apdu([0x90, 0xAA, 0x00, 0x00, 0x01, 0x01, 0x00], challenge)
    b.apdu(proof, [UInt8](repeating: 0x55, count: 16) + [0x91, 0x00])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .authenticate, .authenticate])
    #expect(s.operations.map(\.outcome) == [.ok, .failed, .ok])
  }

  /// A SELECT after the query held, then an UPDATE chained over two I-blocks (FSC 16): one
  /// writeNDEF from the SELECT; before, the SELECT was a transceive of its own.
  @Test func heldSelectJoinsAChainedUpdate() throws {
    var b = TraceBuilder()
    b.activateType4(fsci: 0)
    b.queryType4(nlen: 0)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], Self.ok)
    let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F]
    b.chainedAPDU([0x00, 0xD6, 0x00, 0x00, 0x0B, 0x00, 0x09] + message, part: 8, Self.ok)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    #expect(s.operations.last?.firstFrame == 18)
    #expect(s.operations.last?.outcome == .ok)
    #expect(try streamedTimeline(b).filter { $0.contains("▸") }.count == 3)
  }

  /// An identified NTAG215: WRITEs to user pages past the CC's data area (80h, 81h, where the
  /// default dynamic lock bytes would be on an unidentified tag) stay writeNDEF, as before.
  /// (The write starts at page 4: a first WRITE far past the NDEF TLV is the app's own.)
  @Test func identifiedProductsUserPagesPastTheCCAreaStayWriteNDEF() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(0x80, [0x11, 0x22, 0x33, 0x44])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
  }
}

/// Findings of the sixteenth session's pass over ISO/IEC 14443-B.
@Suite struct Pass20TypeBTests {
  /// Type B has no ATS: the FWT is the ATQB's (FWI 0: 302 µs) for the tag ATTRIB selects. An
  /// answer 10 ms late is `late-response`, worded with the ATQB; before, no finding.
  @Test func lateAnswerUsesTheATQBsFWT() throws {
    let steps: [(Direction, String, Int64)] = [
      (.reader, "050008", 0),
      (.tag, "5011223344000000000021 01", 1_000_000),
      (.reader, "1d1122334400080100", 2_000_000),
      (.tag, "00", 3_000_000),
      (.reader, "0200a4040007d276000085010100", 4_000_000),
      (.tag, "029000", 15_000_000),
    ]
    let frames = steps.enumerated().map { i, s in
      var f = TestFrame.make(
        i, s.0, CRC.appendingCRCB(Hex.bytes(s.1) ?? []), time: s.2)
      f.technology = .nfcB
      return f
    }
    let report = try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    let late = try #require(report.findings.first { $0.code == "late-response" })
    #expect(late.frames == [4, 5])
    #expect(late.message.hasPrefix("The tag promised in its ATQB to answer within 0.30 ms"))
  }

  /// ATTRIB assigns CID 3 to a tag whose ATQB supports no CID (FO 00): the tag ignores it and
  /// its blocks carry none. One finding on ATTRIB's answer; before, `unexpected-cid` on every
  /// block.
  @Test func cidAssignedToATagWithoutCIDSupport() {
    let frames = [
      (Direction.reader, "050008"), (.tag, "5011223344000000000021 00"),
      (.reader, "1d1122334400080103"), (.tag, "00"),
      (.reader, "0200a4040007d276000085010100"), (.tag, "029000"),
      (.reader, "0300a4000c02e103"), (.tag, "039000"),
    ].enumerated().map { i, s in
      var f = TestFrame.make(i, s.0, CRC.appendingCRCB(Hex.bytes(s.1) ?? []))
      f.technology = .nfcB
      return f
    }
    let (out, _) = decodeAll(frames)
    let codes = out.flatMap { $0.findings.map(\.code) }
    #expect(codes == ["cid-not-supported"])
    #expect(out[3].findings.first?.message.hasPrefix("ATTRIB assigned CID 3") == true)
  }

  /// Two tags answering one REQB in its slots (ATQBs of two PUPIs), the reader selecting the
  /// first: the session says several tags were in the field; before, `several_tags` was false.
  @Test func twoATQBsAreSeveralTags() throws {
    let frames = [
      (Direction.reader, "050002"), (.tag, "5011223344000000000081 71"),
      (.reader, "15"), (.tag, "50aabbccdd000000000051 81"),
      (.reader, "1d1122334400080100"), (.tag, "00"),
      (.reader, "0200a4040007d276000085010100"), (.tag, "029000"),
    ].enumerated().map { i, s in
      var f = TestFrame.make(
        i, s.0, CRC.appendingCRCB(Hex.bytes(s.1) ?? []), time: Int64(i) * 1_000_000)
      f.technology = .nfcB
      return f
    }
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: frames))
    let s = try #require(run.sessions.first { $0.tag.uid == [0x11, 0x22, 0x33, 0x44] })
    #expect(s.tag.collision)
  }
}
