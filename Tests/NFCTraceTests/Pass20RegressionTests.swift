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
