import Foundation
import NDEF
import NFCTracePcap
import TestSupport
import Testing

@testable import NFCTrace

private let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all)

/// The default report of `path` (the dump's, or the last session that touched the tag).
private func report(_ path: String) throws -> TagReport {
  let source = try ReportSource.open(TraceInput(path: path), formatName: nil, registry: registry)
  #expect(source.error == nil)
  if let dump = source.dump { return TagReport(dump: dump) }
  let session = try #require(TagReport.defaultSession(source.sessions))
  return TagReport(session: session)
}

private func decoded(_ m: TagContents.Message) throws -> NDEFReport {
  guard case .decoded(let r) = m else {
    Issue.record("message not decoded: \(m)")
    throw CancellationError()
  }
  return r
}

/// The decoded field `name` of record `index`.
private func field(_ r: NDEFReport, _ name: String, record index: Int = 0) -> NDEFValue? {
  guard r.records.indices.contains(index) else { return nil }
  return r.records[index].payload.fields().first { $0.name == name }?.value
}

private func row(_ rows: [MemoryRow], _ page: Int) -> MemoryRow? {
  rows.first { $0.address == page }
}

@Test func reportMfuSimDecodesTheBluetoothOOBRecord() throws {
  let r = try report(TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))
  #expect(r.sessionIndex == 16)  // session 17 only polled: 16 is the last that touched the tag
  #expect(r.tag.uidString == "04:66:D6:5F:00:50:9C")
  #expect(r.end.type2CC?.bytes == [0xE1, 0x10, 0x12, 0x00])
  #expect(r.ndefStatus?.status == .readWrite)
  #expect(r.ndefStatus?.capacity == 142)
  let m = try decoded(r.end.message)
  #expect(m.records.count == 1)
  #expect(m.records.first?.record.tnf == .media)
  #expect(m.records.first?.record.type == Array("application/vnd.bluetooth.ep.oob".utf8))
  #expect(m.records.first?.record.id == Array("0".utf8))
  #expect(field(m, "complete_local_name") == .text("Bose QuietComfort 35"))
  #expect(field(m, "address") == .text("00:02:0E:00:08:8F"))
  #expect(r.end.tlvArea?.tlvs.map(\.offset) == [0, 69])  // NDEF at byte 16, Terminator at 85
  let text = ReportText.render(r)
  #expect(text.contains("Media type \"application/vnd.bluetooth.ep.oob\" id \"0\""))
  #expect(text.contains("complete_local_name: \"Bose QuietComfort 35\""))
}

@Test func reportNTAG216EmptyDump() throws {
  let r = try report(TestPaths.shared("public/proxmark3/ntag216-empty.json"))
  #expect(r.isDump)
  #expect(r.operations.isEmpty)
  #expect(r.tag.product == "NTAG216")
  #expect(r.ndefStatus?.status == .readWrite)
  #expect(r.ndefStatus?.capacity == 868)
  guard case .empty = r.end.message else {
    Issue.record("expected an empty NDEF TLV, got \(r.end.message)")
    return
  }
  let tlvs = try #require(r.end.tlvArea?.tlvs)
  #expect(tlvs.map(\.tag) == [.ndef, .terminator])
  #expect(tlvs.first?.length == 0)
  #expect(r.end.locks?.lockedPages == [])
  #expect(r.end.locks?.dynamic?.page == 226)
  #expect(r.end.locks?.dynamic?.bytes == [0x00, 0x00, 0x00])
  #expect(r.end.config?.cfg0 == [0x04, 0x00, 0x00, 0xFF])
  #expect(r.end.config?.protectedPages == nil)
  #expect(r.counters.map(\.value) == [0, 0, 0])
  let rows = r.rows()
  #expect(rows.count == 231)
  #expect(rows.allSatisfy { $0.state == .read && $0.frame == nil })
  let text = ReportText.render(r)
  #expect(text.contains("static dump: contents only, no exchange"))
  #expect(text.contains("PWD             ff ff ff ff (NXP's factory default password"))
  #expect(text.contains("229  ff ff ff ff  read"))  // PWD page: the map shows bytes as stored
}

@Test func reportFlipperDumpsShowTheirURIs() throws {
  let rick = try report(TestPaths.shared("public/UberGuidoZ-Flipper/RickRoll.nfc"))
  let google = try report(TestPaths.shared("public/UberGuidoZ-Flipper/Google.nfc"))
  #expect(field(try decoded(rick.end.message), "uri") == .text("https://youtu.be/dQw4w9WgXcQ"))
  #expect(field(try decoded(google.end.message), "uri") == .text("https://google.com/?"))
  // Lock Control TLV first, NDEF TLV at byte 21: 160 − 21 − 2 = 137 (nfc-facts §5.4).
  #expect(rick.ndefStatus?.capacity == 137)
  #expect(rick.end.tlvArea?.tlvs.map(\.tag) == [.lockControl, .ndef, .terminator])
  #expect(rick.end.config?.auth0 == 0xE2)
  #expect(rick.end.config?.protectedPages == 226...230)
  #expect(rick.end.locks?.dynamic?.lock4 == 0x7F)
  #expect(rick.warnings.count == 1)
}

@Test func reportMfuShowsPasswordAuthMasked() throws {
  let r = try report(TestPaths.shared("public/proxmark3/hf_14a_mfu.trace"))
  #expect(r.operations.map(\.kind) == [.connect, .authenticate, .transceive])
  #expect(
    r.passwordAuths == [
      TagReport.PasswordAuth(
        password: [0xDA, 0xE5, 0x57, 0x96], pack: [0xAB, 0xDA], frame: 10, outcome: .ok)
    ])
  let rows = r.rows()
  for page in 4...8 {
    #expect(row(rows, page)?.bytes == [0, 0, 0, 0])
    #expect(row(rows, page)?.state == .read)
  }
  #expect(row(rows, 4)?.frame == 13)
  #expect(row(rows, 3)?.state == .unknown)
  #expect(r.ndefStatus == nil)
  let text = ReportText.render(r)
  #expect(
    text.contains("PWD_AUTH        #10 password present (masked), PACK present (masked): accepted"))
  #expect(!text.contains("da e5 57 96"))
  #expect(text.contains("NDEF message unknown: CC (page 3) not read"))
  #expect(ReportText.render(r, showSecrets: true).contains("#10 password da e5 57 96, PACK ab da"))
}

@Test func reportWriteOkMarksWrittenPages() throws {
  let r = try report(TestPaths.traces("t2t-ntag215-write-ok.pcap"))
  let rows = r.rows()
  #expect((4...9).map { row(rows, $0)?.state } == Array(repeating: .written, count: 6))
  // Pages 4–7 were read back after the write (frame 32): still marked written.
  #expect((4...9).map { row(rows, $0)?.frame } == [32, 32, 32, 32, 28, 30])
  #expect(row(rows, 3)?.state == .read)
  #expect(row(rows, 9)?.bytes == [0x6F, 0x6B, 0xFE, 0x00])
  #expect(field(try decoded(r.end.message), "uri") == .text("https://nfctrace.dev/ok"))
  #expect(field(try decoded(r.start.message), "uri") == .text("https://nfctrace.dev/old"))
  #expect(r.changed)
  #expect(r.notes.isEmpty)
  let start = r.rows(atStart: true)
  #expect(row(start, 9)?.bytes == [0x6F, 0x6C, 0x64, 0xFE])
}

@Test func reportTornWriteShowsTheUnacknowledgedPage() throws {
  let r = try report(TestPaths.traces("t2t-ntag215-write-torn.pcap"))
  let rows = r.rows()
  #expect(row(rows, 4)?.state == .written)
  #expect(row(rows, 5)?.state == .written)
  #expect(row(rows, 6)?.state == .unacknowledged)
  #expect(row(rows, 6)?.frame == 24)
  #expect(row(rows, 7)?.state == .read)
  // The length was written first (20), the old message was 21 bytes: what is left mixes both.
  #expect(r.end.tlvArea?.ndef?.length == 20)
  #expect(r.start.tlvArea?.ndef?.length == 21)
  #expect(field(try decoded(r.end.message), "uri") == .text("https://nfctrace.dev/ol"))
  // The bytes after the new, shorter TLV are the old message's tail, not TLVs.
  #expect(r.end.tlvFindings.map(\.code) == ["ndef-trailing-bytes"])
  #expect(r.end.tlvFindings.first?.offset == 38)
  #expect(r.notes.count == 2)
  #expect(r.notes.first?.hasPrefix("page 6 written without acknowledgement") == true)
  #expect(r.notes.last?.hasPrefix("the NDEF TLV length is now 20 (was 21)") == true)
}

@Test func reportType4WriteOk() throws {
  let r = try report(TestPaths.traces("t4t-write-ok.pcap"))
  #expect(r.layout == .type4)
  let cc = try #require(r.end.type4CC)
  #expect(cc.ccLen == 15)
  #expect(cc.versionString == "2.0")
  #expect(cc.mle == 59)
  #expect(cc.mlc == 52)
  #expect(cc.ndefFile.fileID == 0xE104)
  #expect(cc.ndefFile.maxSize == 2048)
  #expect(cc.ndefFile.readAccess == 0x00)
  #expect(cc.ndefFile.writeAccess == 0x00)
  #expect(r.ndefStatus?.status == .readWrite)
  #expect(r.ndefStatus?.capacity == 2046)
  #expect(r.end.nlen == 24)
  #expect(r.start.nlen == 20)
  #expect(field(try decoded(r.end.message), "uri") == .text("https://nfctrace.dev/t4-new"))
  #expect(field(try decoded(r.start.message), "uri") == .text("https://nfctrace.dev/t4"))
  let rows = r.rows()
  #expect(rows.map(\.file) == [0xE103, 0xE104, 0xE104])
  #expect(rows.map(\.address) == [0, 0, 16])
  #expect(rows.map(\.state) == [.read, .written, .written])
  #expect(rows.first?.bytes.count == 15)
}

@Test func reportType4ReadOnly() throws {
  let r = try report(
    TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"))
  #expect(r.ndefStatus?.status == .readOnly)
  #expect(r.ndefStatus?.capacity == 253)
  #expect(r.end.type4CC?.ndefFile.writeAccess == 0xFF)
  #expect(r.operations.last?.kind == .writeNDEF)
  #expect(r.operations.last?.outcome == .failed)
  #expect(field(try decoded(r.end.message), "uri") == .text("http://www.example.com"))
  #expect(!r.changed)
}

@Test func reportJSONShape() throws {
  let r = try report(TestPaths.traces("t2t-ntag215-write-torn.pcap"))
  let out = OutputBuffer(fd: nil)
  ReportJSON.report(r, to: out)
  let object = try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any]
  let json = try #require(object)
  #expect(json["session"] as? Int == 0)
  let memory = try #require(json["memory"] as? [[String: Any]])
  #expect(memory[6]["page"] as? Int == 6)
  #expect(memory[6]["data"] as? String == "66637472")
  #expect(memory[6]["state"] as? String == "written-unacknowledged")
  #expect(memory[6]["frame"] as? Int == 24)
  #expect(memory[0]["data"] is NSNull)
  let start = try #require(json["memory_start"] as? [[String: Any]])
  #expect(start[4]["data"] as? String == "0315d101")
  let tlvs = try #require(json["tlvs"] as? [[String: Any]])
  #expect(tlvs.first?["offset"] as? Int == 16)
  #expect(tlvs.first?["length"] as? Int == 20)
  let ndef = try #require(json["ndef"] as? [String: Any])
  let records = try #require(ndef["records"] as? [[String: Any]])
  #expect(records.first?["type"] as? String == "U")
  #expect((json["cc"] as? [String: Any])?["data_area_size"] as? Int == 496)
}

// MARK: - Decoders

@Test func staticLockBitsGiveLockedPages() {
  let l = Type2Locks(lock0: 0xF8, lock1: 0x01)
  #expect(l.staticLockedPages == [3, 4, 5, 6, 7, 8])
  #expect(l.blockLocks == [])
  let frozen = Type2Locks(lock0: 0x07, lock1: 0x00)
  #expect(frozen.staticLockedPages == [])
  #expect(frozen.blockLocks == [.ccLockBit, .pages4to9, .pages10to15])
  #expect(Type2Locks(lock0: 0x00, lock1: 0xFF).staticLockedPages == Array(8...15))
}

@Test func dynamicLockBitsPerProduct() {
  let ntag213 = Type2Locks(lock0: 0, lock1: 0, dynamicBytes: [0x01, 0x08, 0x00], product: .ntag213)
  #expect(ntag213.dynamic?.page == 0x28)
  #expect(ntag213.dynamic?.pagesPerBit == 2)
  #expect(ntag213.dynamic?.lockedRanges == [16...17, 38...39])
  let ntag215 = Type2Locks(lock0: 0, lock1: 0, dynamicBytes: [0x81, 0x00, 0x00], product: .ntag215)
  #expect(ntag215.dynamic?.page == 0x82)
  #expect(ntag215.dynamic?.lockedRanges == [16...31, 128...129])
  let ntag216 = Type2Locks(
    lock0: 0x10, lock1: 0, dynamicBytes: [0x00, 0x60, 0x00], product: .ntag216)
  #expect(ntag216.dynamic?.page == 0xE2)
  #expect(ntag216.dynamic?.lockedRanges == [224...225])  // bit 14 would start past page 225
  #expect(ntag216.lockedPages == [4, 224, 225])
  let ul21 = Type2Locks(
    lock0: 0, lock1: 0, dynamicBytes: [0x00, 0x02, 0x00], product: .ultralightEV1MF0UL21)
  #expect(ul21.dynamic?.page == 0x24)
  #expect(ul21.dynamic?.lockedRanges == [34...35])
  #expect(
    Type2Locks(lock0: 0, lock1: 0, dynamicBytes: [0xFF, 0xFF, 0xFF], product: .ntag210).dynamic
      == nil)
}

@Test func configurationDecodesDeliveryValues() throws {
  let c = Type2Configuration(
    family: .ntag21x, cfg0Page: 0xE3, cfg0: [0x04, 0x00, 0x00, 0xFF],
    cfg1: [0x00, 0x05, 0x00, 0x00])
  #expect(c.auth0 == 0xFF)
  #expect(c.protectedPages == nil)
  #expect(c.protectionText == "no password protection (past the last page 230)")
  #expect(c.mirrorConf == 0)
  #expect(c.mirrorByte == 0)
  #expect(c.mirrorPage == 0)
  #expect(c.strongModulation == true)
  #expect(c.prot == false)
  #expect(c.cfgLock == false)
  #expect(c.nfcCounterEnabled == false)
  #expect(c.nfcCounterPasswordProtected == false)
  #expect(c.authLimit == 0)
  #expect(c.vctid == nil)
  let ev1 = Type2Configuration(
    family: .ultralightEV1, cfg0Page: 0x10, cfg0: [0x00, 0x00, 0x00, 0xFF],
    cfg1: [0x00, 0x05, 0x00, 0x00])
  #expect(ev1.vctid == 0x05)
  #expect(ev1.nfcCounterEnabled == nil)
  #expect(ev1.mirrorConf == nil)
}

@Test func configurationDecodesProtection() throws {
  let product = try #require(Type2Configuration(product: .ntag213))
  #expect(product.cfg0Page == 0x29)
  #expect(product.packPage == 0x2C)
  let c = Type2Configuration(
    family: .ntag21x, cfg0Page: 0x29, cfg0: [0xD4, 0x00, 0x10, 0x04],
    cfg1: [0xDB, 0x00, 0x00, 0x00])
  #expect(c.mirrorConf == 3)
  #expect(c.mirrorByte == 1)
  #expect(c.mirrorPage == 16)
  #expect(c.auth0 == 4)
  #expect(c.protectedPages == 4...44)
  #expect(c.prot == true)
  #expect(c.cfgLock == true)
  #expect(c.nfcCounterEnabled == true)
  #expect(c.nfcCounterPasswordProtected == true)
  #expect(c.authLimit == 3)
  #expect(c.protectionText == "password needed to read and write pages 4–44")
}

/// After a writeLock (CC3 → 0F) the report's NDEF status is the tag's as left, not the query's
/// readWrite printed above a read-only CC (field-engineer pass, s13a).
@Test func reportStatusFollowsTheCCTheSessionWrote() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
  b.write(3, [0xE1, 0x10, 0x12, 0x0F])
  let s = try #require(
    try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
  #expect(s.ndefStatus?.status == .readWrite)
  let report = TagReport(session: s)
  #expect(report.ndefStatus?.status == .readOnly)
  #expect(report.ndefStatus?.capacity == 142)
  #expect(
    report.ndefStatus?.reason?.hasSuffix(
      "queryNDEFStatus said readWrite before the session changed the CC") == true)
}

/// Length 0 first, the data acknowledged, the final length unanswered: the tag holds the new
/// length or 0, never the start's (field-engineer pass, s14: "is now 8 (was 5)").
@Test func unansweredFinalLengthNoteNamesBothPossibleLengths() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(
    3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00, 0xFE]))
  b.write(4, [0x03, 0x00, 0xD1, 0x01])
  b.write(5, [0x04, 0x54, 0x02, 0x65])
  b.write(6, [0x6E, 0x4F, 0xFE, 0x00])
  b.write(4, [0x03, 0x08, 0xD1, 0x01], .none)
  let s = try #require(
    try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
  let note = try #require(TagReport(session: s).notes.last)
  #expect(
    note
      == "the NDEF TLV length may now be 8: the write that set it was not acknowledged (no "
      + "answer, a damaged 4-bit answer, or a failed programming: NAK 5, SW 65xx), so the tag "
      + "holds that length or the one before that write (0 when the writer cleared it first; 5 "
      + "at the start); nfctrace diagnose tells which bytes were written")
}

/// The dynamic lock bytes read without page 2: their locks are shown, the static ones are
/// "not read" (the Lock bits section vanished with page 2; field-engineer pass, s9d).
@Test func dynamicLocksShowWithoutPage2() throws {
  var b = TraceBuilder()
  b.activateType2(version: ntag213Version)
  b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
  b.read(40, [0x01, 0x00, 0x00, 0xBD, 0x04, 0x00, 0x00, 0xFF])
  let s = try #require(
    try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
  let report = TagReport(session: s)
  let locks = try #require(report.end.locks)
  #expect(locks.lock0 == nil && locks.lock1 == nil)
  #expect(locks.dynamic?.lockedRanges == [16...17])
  #expect(locks.lockedPages == [16, 17])
  #expect(report.end.unknowns.contains("lock bytes (page 2) not read"))
  let text = ReportText.locks(report.end)
  #expect(text.contains("static          not read (page 2)"))
  #expect(text.contains("read-only pages 16–17 (static lock bits not known)"))
  // Page 2 read but not the dynamic lock page: "none" would claim too much.
  let pageTwoOnly = Type2Locks(lock0: 0, lock1: 0, dynamicBytes: nil, product: .ntag213)
  #expect(pageTwoOnly.dynamicUnknown)
  #expect(!Type2Locks(lock0: 0, lock1: 0, product: .ntag210).dynamicUnknown)
}
