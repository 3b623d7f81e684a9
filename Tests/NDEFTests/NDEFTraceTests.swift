import NDEF
import Testing

@Suite("NDEF from real tags")
struct NDEFTraceTests {
  /// Data area (pages 4–23) as read by the reader in hf_14a_mfu-sim.
  static func mfuSimArea() throws -> [UInt8] {
    let pages = try TraceBytes.pm3ReadPages("derived/proxmark3-text/hf_14a_mfu-sim.list_14a.txt")
    var area: [UInt8] = []
    for p in stride(from: 4, through: 20, by: 4) { area += pages[p] ?? [] }
    return area
  }

  @Test("hf_14a_mfu-sim: NDEF TLV 03 43 holds a Bluetooth BR/EDR OOB record for a Bose headset")
  func proxmarkBluetoothTag() throws {
    let area = try Self.mfuSimArea()
    #expect(area.count == 80)
    let tlv = Type2TLVArea(parsing: area)
    let ndef = try #require(tlv.ndef)
    #expect(ndef.offset == 0)
    #expect(ndef.length == 0x43)
    #expect(ndef.valueOffset == 2)
    #expect(tlv.tlvs.map(\.tag) == [.ndef, .terminator])
    #expect(tlv.tlvs.last?.offset == 69)
    let report = NDEFValidator.validate(ndef.value, mode: .strict, base: ndef.valueOffset)
    #expect(report.findings == [])
    let rec = try #require(report.records.first)
    #expect(rec.record.chunks[0].header == 0xDA)
    #expect(rec.record.typeText == "application/vnd.bluetooth.ep.oob")
    #expect(rec.record.idText == "0")
    #expect(rec.record.payload.count == 30)
    guard case .bluetoothOOB(let bt) = rec.payload else {
      Issue.record("expected Bluetooth OOB, got \(rec.payload.kindName)")
      return
    }
    #expect(bt.kind == .bredr)
    #expect(bt.oobLength == 30)
    #expect(bt.addressString == "00:02:0E:00:08:8F")
    #expect(bt.localName == "Bose QuietComfort 35")
    #expect(bt.fields.map(\.type) == [0x09])
    #expect(bt.fields.first?.offset == 2 + 4 + 32 + 1 + 8)
  }

  @Test("Flipper RickRoll.nfc: Lock Control TLV, then URI https://youtu.be/dQw4w9WgXcQ")
  func flipperRickRoll() throws {
    let pages = try TraceBytes.flipperPages("public/UberGuidoZ-Flipper/RickRoll.nfc")
    let tlv = Type2TLVArea(parsing: Array(pages[16...]))
    #expect(tlv.tlvs.map(\.tag) == [.lockControl, .ndef, .terminator])
    #expect(tlv.tlvs.map(\.offset) == [0, 5, 32])
    let lock = try #require(tlv.reservedAreas.first)
    #expect(lock.isLock)
    #expect(lock.address == 160)
    #expect(lock.size == 2)
    #expect(lock.lockBits == 12)
    #expect(lock.bytesLockedPerBit == 8)
    let report = NDEFValidator.validate(try #require(tlv.ndefMessage), mode: .strict, base: 7)
    #expect(report.findings == [])
    guard case .uri(let uri) = report.records.first?.payload else {
      Issue.record("expected URI")
      return
    }
    #expect(uri.code == 0x04)
    #expect(uri.uri == "https://youtu.be/dQw4w9WgXcQ")
  }

  @Test("Flipper Google.nfc: URI with identifier code 0 and the full scheme")
  func flipperGoogle() throws {
    let pages = try TraceBytes.flipperPages("public/UberGuidoZ-Flipper/Google.nfc")
    let tlv = Type2TLVArea(parsing: Array(pages[16...]))
    let report = NDEFValidator.validate(try #require(tlv.ndefMessage), mode: .strict)
    #expect(report.findings == [])
    guard case .uri(let uri) = report.records.first?.payload else {
      Issue.record("expected URI")
      return
    }
    #expect(uri.code == 0)
    #expect(uri.uri == "https://google.com/?")
  }

  @Test("ntag216-empty.json: empty NDEF TLV 03 00 then Terminator")
  func emptyNTAG216() throws {
    let pages = try TraceBytes.pm3JSONPages("public/proxmark3/ntag216-empty.json")
    #expect(Array(pages[12..<16]) == [0xE1, 0x10, 0x6D, 0x00])
    let tlv = Type2TLVArea(parsing: pages, baseAddress: 0)
    #expect(tlv.tlvs.first?.tag == .ndef)
    #expect(tlv.tlvs.first?.offset == 16)
    #expect(tlv.ndef?.length == 0)
    #expect(tlv.ndefMessage == [])
    #expect(tlv.tlvs.count == 2)
    #expect(tlv.tlvs[1].tag == .terminator)
    #expect(tlv.findings == [])
    let result = NDEFCommand.run(bytes: Array(pages[16...]), options: NDEFCommandOptions(tlv: true))
    #expect(result.failed == false)
    #expect(result.output.contains("NDEF TLV is empty (length 0): no message"))
  }
}
