import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Type 4 review fixes: NTAG 424 DNA plain WriteData / ReadData after ISOSelectFile E110 or a
/// discovery SELECT, with the file's GetFileSettings deciding the communication mode; a
/// protected proprietary file's refused read; a query's status in `diagnose`; DESFire's
/// DUPLICATE_ERROR during NDEF formatting.
@Suite struct T4ReviewFixesTests {
  private let ok: [UInt8] = [0x90, 0x00]
  private let desfireOK: [UInt8] = [0x91, 0x00]
  /// NLEN and an NDEF URI record (https://example.com/native): 25 bytes.
  private let written: [UInt8] =
    [0x00, 0x17, 0xD1, 0x01, 0x13, 0x55, 0x04] + Array("example.com/native".utf8)

  /// WriteData wrapped in CLA 90: file 02, `offset`, the data's length (3 bytes each, LSB
  /// first), the data, then `extra` bytes (a MAC), Le 00.
  private func writeData(offset: Int = 0, _ data: [UInt8], extra: [UInt8] = []) -> [UInt8] {
    let header: [UInt8] = [0x02, UInt8(offset), 0, 0, UInt8(data.count), 0, 0]
    let body = header + data + extra
    return [0x90, 0x8D, 0x00, 0x00, UInt8(body.count)] + body + [0x00]
  }

  /// ReadData of file 02: offset 0, `length` bytes.
  private func readData(_ length: Int) -> [UInt8] {
    [0x90, 0xAD, 0x00, 0x00, 0x07, 0x02, 0x00, 0x00, 0x00, UInt8(length), 0x00, 0x00, 0x00]
  }

  /// GetFileSettings of file 02 answered with FileOption `option` and AccessRights `rights`
  /// (file size 256), then `mac`.
  private func fileSettings(option: UInt8, rights: [UInt8], mac: [UInt8] = []) -> (
    [UInt8], [UInt8]
  ) {
    (
      [0x90, 0xF5, 0x00, 0x00, 0x01, 0x02, 0x00],
      [0x00, option] + rights + [0x00, 0x01, 0x00] + mac + desfireOK
    )
  }

  /// Activation, ISOSelectFile of the NDEF application by its DF file id E110 (no NDEF
  /// query), GetFileSettings in plain mode with free access.
  private func selectedByFileID() -> TraceBuilder {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x10], ok)
    let (c, r) = fileSettings(option: 0x00, rights: [0xE0, 0xEE])
    t.apdu(c, r)
    return t
  }

  // MARK: Finding 1: plain WriteData / ReadData of the NDEF file

  /// After ISOSelectFile E110 and GetFileSettings (CommMode.Plain, free access), a WriteData
  /// of file 02 writes its clear bytes to E104, and a ReadData answer fills the image: the
  /// report decodes the message without the CC, and diagnose judges the write.
  @Test func plainWriteDataAfterSelectingDFE110() throws {
    var t = selectedByFileID()
    t.apdu(writeData(written), desfireOK)
    t.apdu(readData(written.count), written + desfireOK)
    let session = try #require(try sessions(t).last)
    let ops = session.operations
    #expect(ops.map(\.kind) == [.connect, .transceive, .transceive])
    #expect(ops[1].detail("ndef_file_written") == .int(13))
    let file = try #require(session.memory.filesEnd[0xE104])
    #expect(file.known(0, written.count) == written)
    #expect(file.state(2) == .written)
    let report = TagReport(session: session)
    guard case .decoded(let v) = report.end.message else {
      Issue.record("message not decoded: \(report.end.message)")
      return
    }
    #expect(v.message.records.count == 1)
    #expect(v.findings.isEmpty)
    #expect(report.end.unknowns == ["CC file E103 not read"])

    let diagnosis = try t.diagnose()
    let verdict = try #require(diagnosis.sessions.last?.verdicts.first { $0.operation == 1 })
    #expect(verdict.kind == .transceive)
    #expect(verdict.verdict == .succeeded)
  }

  /// A ReadData alone (no write) fills the NDEF file's image as a READ BINARY does.
  @Test func plainReadDataFillsTheNDEFFile() throws {
    var t = selectedByFileID()
    t.apdu(readData(written.count), written + desfireOK)
    let session = try #require(try sessions(t).last)
    let file = try #require(session.memory.filesEnd[0xE104])
    #expect(file.known(0, written.count) == written)
    #expect(file.state(0) == .read)
    let rows = MemoryRow.type4(session.memory.filesEnd).filter { $0.file == 0xE104 }
    #expect(rows.map(\.state) == [.read, .read])
  }

  /// GetFileSettings answered in MAC mode after an authentication (settings then an 8-byte
  /// MAC) saying CommMode.Plain with free write access: the WriteData after the
  /// authentication is plain, its bytes known.
  @Test func fileSettingsSayPlainAfterAuthentication() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x10], ok)
    t.authenticateEV2First()
    let (c, r) = fileSettings(
      option: 0x00, rights: [0xE0, 0xEE], mac: Array(repeating: 0x77, count: 8))
    t.apdu(c, r)
    t.apdu(writeData(written), desfireOK)
    let file = try #require(try sessions(t).last?.memory.filesEnd[0xE104])
    #expect(file.known(0, written.count) == written)
    #expect(file.state(0) == .written)
  }

  /// GetFileSettings saying CommMode.MAC and a keyed write access: a WriteData carrying a MAC
  /// stays `written-unknown`; one whose data is as long as its length field (which a MAC
  /// would make longer) is still taken as the settings say (MAC mode: value unknown).
  @Test func fileSettingsInMACModeKeepWritesUnknown() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x10], ok)
    t.authenticateEV2First()
    let (c, r) = fileSettings(
      option: 0x01, rights: [0x00, 0x00], mac: Array(repeating: 0x77, count: 8))
    t.apdu(c, r)
    t.apdu(writeData(written, extra: Array(repeating: 0x66, count: 8)), desfireOK)
    let file = try #require(try sessions(t).last?.memory.filesEnd[0xE104])
    #expect(file.state(0) == .writtenUnknown)
    #expect(file.known(0, 2) == nil)
    #expect(file.count == written.count)
  }

  /// A ChangeFileSettings the tag accepted makes the settings unknown again: after an
  /// authentication, a WriteData is then not taken as plain.
  @Test func changeFileSettingsForgetsTheMode() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x10], ok)
    t.authenticateEV2First()
    let (c, r) = fileSettings(option: 0x00, rights: [0xE0, 0xEE])
    t.apdu(c, r)
    t.apdu(
      [0x90, 0x5F, 0x00, 0x00, 0x19, 0x02] + Array(repeating: 0x44, count: 24) + [0x00],
      Array(repeating: 0x55, count: 8) + desfireOK)
    t.apdu(writeData(written), desfireOK)
    let file = try #require(try sessions(t).last?.memory.filesEnd[0xE104])
    #expect(file.state(0) == .writtenUnknown)
  }

  /// The NDEF application selected by Core NFC's discovery SELECT (P2 0C, no Le) right after
  /// its GetVersion probe: the SELECT stays in `connect`, and the plain WriteData after it
  /// writes the NDEF file (the application stays selected on the tag).
  @Test func plainWriteDataAfterTheDiscoverySelect() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05, 0x91, 0xAF])
    t.apdu([0x90, 0xAF, 0x00, 0x00, 0x00], [0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05, 0x91, 0xAF])
    t.apdu(
      [0x90, 0xAF, 0x00, 0x00, 0x00],
      [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0xCF, 0x39, 0xA2, 0xB3, 0xC4, 0x01, 0x21]
        + desfireOK)
    t.apdu([0x00, 0xA4, 0x04, 0x0C, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01], ok)
    t.apdu(writeData(written), desfireOK)
    let session = try #require(try sessions(t).last)
    #expect(session.operations.map(\.kind) == [.connect, .transceive])
    #expect(session.operations.last?.writesNDEFFile == true)
    #expect(session.memory.filesEnd[0xE104]?.known(0, written.count) == written)
  }

  /// Without an application selected (no SELECT of E110, of the AID or of EEEE10), file 02
  /// is no NDEF file: a WriteData and a ReadData change nothing known of E104.
  @Test func noApplicationSelectedNoNDEFFile() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu(writeData(written), desfireOK)
    t.apdu(readData(written.count), written + desfireOK)
    let session = try #require(try sessions(t).last)
    #expect(session.memory.filesEnd[0xE104] == nil)
    #expect(!session.operations.contains { $0.writesNDEFFile })
  }

  // MARK: Finding 2: a protected proprietary file

  /// The NTAG 424 DNA CC (23 bytes, Proprietary File Control TLV for E105: read 82, write 83).
  private let cc424: [UInt8] = [
    0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
    0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83,
  ]

  /// 6982 to a READ BINARY of E105, whose proprietary read condition (82) the CC announced:
  /// an info note `t4t-proprietary-file-protected`, no NDEF error and no Core NFC error.
  @Test func refusedReadOfAProtectedProprietaryFileIsANote() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.selectType4CC()
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x17], cc424 + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05], ok)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x10], [0x69, 0x82])
    let report = try t.diagnose()
    #expect(report.codes == ["t4t-proprietary-file-protected"])
    let f = try #require(report.findings.first)
    #expect(f.severity == .info)
    #expect(f.coreNFCError == nil)
    #expect(
      f.cause
        == "file E105 is protected, as the CC announces (SW 6982 to READ file e105 offset 0 Le 16)")
    #expect(f.message.contains("read access 82 (proprietary)"))
    let out = OutputBuffer(fd: nil)
    DiagnosisRender.text(report, frames: [:], to: out)
    #expect(out.text.contains("0 error(s), 0 warning(s), 1 note(s)"))
  }

  // MARK: Finding 3: a query's status in diagnose

  /// A query stopped by 6A82 to the NDEF file's SELECT: diagnose's header gives the status
  /// `sessions` gives (notSupported), not "outcome ok".
  @Test func diagnoseHeaderGivesTheQueryStatus() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.selectType4CC()
    t.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x6A, 0x82])
    let report = try t.diagnose()
    let query = try #require(report.sessions.last?.analysis.operations[1])
    #expect(query.outcomeText == "notSupported")
    #expect(query.shortText == "queryNDEFStatus notSupported")
    let out = OutputBuffer(fd: nil)
    DiagnosisRender.text(report, frames: [:], to: out)
    let lines = out.text.split(separator: "\n").map(String.init)
    #expect(
      lines.contains {
        $0.hasPrefix(
          "queryNDEFStatus (operation 1, frames 8–15): outcome notSupported — the tag has no NDEF "
            + "file E104")
      })
  }

  // MARK: Finding 4: DESFire DUPLICATE_ERROR while formatting

  /// Android's DESFire NDEF formatting: CREATE APPLICATION answered 91DE (already there) goes
  /// on; the WriteData refused 919D is what failed the operation, and diagnose's header names
  /// it. 91DE stays a note, worded as harmless.
  @Test func duplicateApplicationIsHarmlessAndTheBlockingRefusalLeads() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x90, 0x5A, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00], desfireOK)
    t.apdu(
      [0x90, 0xCA, 0x00, 0x00, 0x0E, 0xEE, 0xEE, 0x10, 0x0F, 0x21, 0x10, 0xE1]
        + [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x91, 0xDE])
    t.apdu([0x90, 0x5A, 0x00, 0x00, 0x03, 0xEE, 0xEE, 0x10, 0x00], desfireOK)
    t.apdu(
      [0x90, 0x3D, 0x00, 0x00, 0x09, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00],
      [0x91, 0x9D])
    let report = try t.diagnose()
    let s = try #require(report.sessions.last)
    let i = try #require(s.analysis.operations.lastIndex { $0.kind == .transceive })
    let op = s.analysis.operations[i]
    #expect(op.outcome == .failed)
    #expect(op.reason == "DESFire WRITE DATA refused: SW 919d DESFire: permission denied")
    #expect(op.detail("duplicate_error") == .int(11))
    #expect(op.failedFrames == [15])
    let fs = s.findings.filter { $0.operation == i }
    #expect(fs.map(\.code) == ["apdu-refused", "apdu-refused"])
    #expect(
      fs.first?.cause
        == "the application already exists (DUPLICATE_ERROR, harmless) (SW 91DE to DESFire "
        + "CREATE APPLICATION Lc 14 Le 256)")
    let head = try #require(DiagnosisRender.headline(fs, op))
    #expect(head.cause.hasSuffix("(SW 919D to DESFire WRITE DATA Lc 9 Le 256)"))
  }

  /// 91DE alone, the formatting going on and succeeding: the operation is ok.
  @Test func duplicateApplicationAloneFailsNothing() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu(
      [0x90, 0xCA, 0x00, 0x00, 0x05, 0xEE, 0xEE, 0x10, 0x0F, 0x21, 0x00], [0x91, 0xDE])
    t.apdu([0x90, 0x5A, 0x00, 0x00, 0x03, 0xEE, 0xEE, 0x10, 0x00], desfireOK)
    let op = try #require(try sessions(t).last?.operations.last)
    #expect(op.kind == .transceive)
    #expect(op.outcome == .ok)
    #expect(op.detail("duplicate_error") == .int(9))
  }
}
