import NFCTrace
import Testing

private func bytes(_ hex: String) -> [UInt8] { Hex.bytes(hex) ?? [] }

private func parseError(_ hex: String) -> APDUParseError? {
  do {
    _ = try CommandAPDU(parsing: bytes(hex))
    return nil
  } catch {
    return error
  }
}

@Suite struct APDULayerTests {
  @Test func shortCases() throws {
    let case1 = try CommandAPDU(parsing: bytes("00 84 00 00"))
    #expect(case1.apduCase == 1 && case1.le == nil && case1.lc == nil)
    let case2 = try CommandAPDU(parsing: bytes("00 b0 00 00 0f"))
    #expect(case2.apduCase == 2 && case2.le == 15 && !case2.isExtended)
    let le256 = try CommandAPDU(parsing: bytes("00 c0 00 00 00"))
    #expect(le256.le == 256)
    // UPDATE BINARY NLEN = 0 from the synthetic Type 4 trace.
    let case3 = try CommandAPDU(parsing: bytes("00 d6 00 00 02 00 00"))
    #expect(case3.apduCase == 3 && case3.lc == 2 && case3.data == [0, 0] && case3.le == nil)
    // SELECT NDEF application with Le 00 (nfc-facts §6.3 step 1).
    let case4 = try CommandAPDU(parsing: bytes("00 a4 04 00 07 d2 76 00 00 85 01 01 00"))
    #expect(case4.apduCase == 4 && case4.lc == 7 && case4.le == 256)
    #expect(case4.data == KnownAID.ndefV2)
    #expect(case4.bytes == bytes("00 a4 04 00 07 d2 76 00 00 85 01 01 00"))
  }

  @Test func extendedCases() throws {
    let case2E = try CommandAPDU(parsing: bytes("00 b0 00 00 00 01 00"))
    #expect(case2E.isExtended && case2E.apduCase == 2 && case2E.le == 256)
    let le65536 = try CommandAPDU(parsing: bytes("00 b0 00 00 00 00 00"))
    #expect(le65536.le == 65536)
    let data300 = [UInt8](repeating: 0xAB, count: 300)
    let case3E = try CommandAPDU(parsing: bytes("00 d6 00 02 00 01 2c") + data300)
    #expect(case3E.isExtended && case3E.apduCase == 3 && case3E.lc == 300 && case3E.le == nil)
    let case4E = try CommandAPDU(parsing: bytes("00 d6 00 02 00 01 2c") + data300 + [0x02, 0x00])
    #expect(case4E.apduCase == 4 && case4E.lc == 300 && case4E.le == 512)
    #expect(case4E.leFieldLength == 2)
    #expect(case4E.bytes.count == 7 + 300 + 2)
    // Proxmark3's 3-byte Le after extended data (nfc-facts §10): accepted, flagged.
    let pm3Form = try CommandAPDU(parsing: bytes("00 d6 00 00 00 00 02 aa bb 00 00 10"))
    #expect(pm3Form.le == 16 && pm3Form.leFieldLength == 3 && pm3Form.data == [0xAA, 0xBB])
  }

  @Test func malformedLengthsCarryTheOffset() {
    #expect(
      parseError("00 a4 04")
        == APDUParseError(
          offset: 3, "expected the 4-byte header CLA INS P1 P2, got 3 byte(s)"))
    #expect(parseError("00 a4 04 00 07 d2 76")?.offset == 4)
    #expect(
      parseError("00 a4 04 00 07 d2 76")?.message
        == "Lc = 7 announces 7 data byte(s) but only 2 follow")
    // Lc 2 + data + Le + one byte too many: the stray byte is at offset 8.
    #expect(parseError("00 d6 00 00 02 00 00 00 ff")?.offset == 8)
    // `00` then only one more byte: an extended field cut short.
    #expect(parseError("00 b0 00 00 00 01")?.offset == 6)
    #expect(parseError("00 d6 00 00 00 00 00 01")?.offset == 5)
    #expect(
      parseError("00 d6 00 00 00 00 05 01 02")?.message
        == "extended Lc = 5 announces 5 data byte(s) but only 2 follow")
    #expect(parseError("00 d6 00 00 00 00 01 aa 01")?.offset == 8)
  }

  @Test func statusWords() {
    #expect(StatusWord(0x69, 0x82).description == "SW 6982 security status not satisfied")
    #expect(StatusWord(0x90, 0x00).isSuccess)
    #expect(StatusWord(0x61, 0x10).meaning == "success, 16 more byte(s) available (GET RESPONSE)")
    #expect(StatusWord(0x63, 0xC2).meaning == "verification failed, 2 retries left (counter)")
    #expect(StatusWord(0x63, 0xC2).kind == .warning)
    #expect(StatusWord(0x6C, 0x0F).meaning == "wrong Le, exact length is 15")
    #expect(StatusWord(0x6A, 0x82).meaning == "file or application not found")
    #expect(StatusWord(0x91, 0xAE).meaning == "DESFire: authentication error")
    #expect(StatusWord(0x91, 0xAE).kind == .error)
    #expect(StatusWord(0x91, 0xAF).kind == .success)
    #expect(StatusWord(0x65, 0x81).meaning == "memory failure (write problem)")
    // ISO/IEC 7816-4 Table 6: 6A89 and 6A8A are no P1-P2 errors.
    #expect(StatusWord(0x6A, 0x89).meaning == "file already exists")
    #expect(StatusWord(0x6A, 0x8A).meaning == "DF name already exists")
    #expect(StatusWord(0x6A, 0x86).meaning == "incorrect P1/P2")
  }

  /// The I-block payloads (PCB and CRC removed) of the synthetic Type 4 pcap.
  private static func t4tPayloads() throws -> [LayerUnit] {
    let records = try InnerLayerFixtures.pcap264(
      "derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap")
    return records.enumerated().compactMap { index, record in
      guard let pcb = record.payload.first, pcb & 0xE2 == 0x02, record.payload.count > 1 else {
        return nil
      }
      return record.unit(index, dropFirst: 1)
    }
  }

  @Test func syntheticType4Exchange() throws {
    var layer = APDULayer()
    var context = LinkContext()
    let units = try Self.t4tPayloads()
    try #require(units.count == 14)
    let results = units.map { layer.decode($0, context: &context) }
    #expect(
      results.map { $0.decode?.summary ?? "-" } == [
        "SELECT AID d2760000850101 (NDEF Tag Application)", "SW 9000 success",
        "SELECT file e103", "SW 9000 success",
        "READ BINARY offset 0 Le 15", "SW 9000 success (15 data bytes)",
        "SELECT file e104", "SW 9000 success",
        "READ BINARY offset 0 Le 2", "SW 9000 success (2 data bytes)",
        "READ BINARY offset 2 Le 16", "SW 9000 success (16 data bytes)",
        "UPDATE BINARY offset 0 Lc 2", "SW 6982 security status not satisfied",
      ])
    #expect(
      results.map { $0.decode?.name ?? "-" }.suffix(2) == [
        "UPDATE BINARY", "UPDATE BINARY response",
      ])
    let select = results[0].decode
    #expect(select?.field("aid") == .hex(KnownAID.ndefV2))
    #expect(select?.field("select_by") == .string("AID"))
    #expect(select?.field("le") == .int(256))
    #expect(results[2].decode?.field("file_id") == .hex([0xE1, 0x03]))
    #expect(results[2].decode?.field("response_data") == .string("none"))
    #expect(results[12].decode?.field("data") == .hex([0, 0]))
    let denied = results[13].decode
    #expect(denied?.field("sw") == .string("6982"))
    #expect(denied?.field("sw_kind") == .string("error"))
    #expect(denied?.field("command") == .string("UPDATE BINARY"))
    // Every APDU goes on to the Type 4 layer with the same bytes.
    for (unit, result) in zip(units, results) {
      #expect(result.handoff?.0 == .type4)
      #expect(result.handoff?.1.bytes == unit.bytes)
      #expect(result.findings.isEmpty)
    }
  }

  @Test func appleWalletPPSEAndGPO() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_visa_apple_ecp.list_7816.txt")
    // Unchained I-blocks (PCB 02/03) carry whole APDUs.
    let iBlocks = records.enumerated().filter { [0x02, 0x03].contains($0.element.bytes.first) }
    var layer = APDULayer()
    var context = LinkContext()
    let decodes = iBlocks.map {
      layer.decode($0.element.unit($0.offset, dropFirst: 1), context: &context).decode
    }
    try #require(decodes.count == 6)
    #expect(
      decodes[0]?.summary
        == "SELECT AID 325041592e5359532e4444463031 (PPSE (2PAY.SYS.DDF01))")
    #expect(decodes[1]?.summary == "SW 9000 success (44 data bytes)")
    #expect(decodes[1]?.name == "SELECT response")
    #expect(decodes[2]?.summary == "SELECT AID a0000000031010 (Visa credit/debit)")
    // decodes[3] is the tail of a chained response (not reassembled here).
    #expect(decodes[4]?.name == "GET PROCESSING OPTIONS")
    #expect(decodes[4]?.summary == "GET PROCESSING OPTIONS P1 00 P2 00 Lc 55 Le 256")
    #expect(decodes[4]?.field("cla") == .hex([0x80]))
    #expect(decodes[5]?.summary == "SW 6986 command not allowed, no current EF")
    #expect(decodes[5]?.name == "GET PROCESSING OPTIONS response")
  }

  @Test func desfireWrappedAndNative() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_mfdes_sniff.list_des.txt")
    // ISO-DEP I-blocks with CID: PCB 0A/0B + CID byte.
    let iBlocks = records.enumerated().filter { [0x0A, 0x0B].contains($0.element.bytes.first) }
    var layer = APDULayer()
    var context = LinkContext()
    let decodes = iBlocks.prefix(8).map {
      layer.decode($0.element.unit($0.offset, dropFirst: 2), context: &context).decode
    }
    #expect(
      decodes[0]?.summary
        == "SELECT AID d2760000850100 (NDEF Tag Application, mapping 1.0)")
    #expect(decodes[2]?.name == "DESFire SELECT APPLICATION")
    #expect(decodes[2]?.summary == "DESFire SELECT APPLICATION Lc 3 Le 256")
    #expect(decodes[3]?.summary == "SW 9100 DESFire: OK")
    #expect(decodes[4]?.name == "DESFire AUTHENTICATE ISO")
    #expect(decodes[5]?.field("sw") == .string("91af"))
    #expect(decodes[5]?.summary == "SW 91af DESFire: additional frame expected (8 data bytes)")
    #expect(decodes[6]?.name == "DESFire ADDITIONAL FRAME")
  }

  @Test func notAnAPDU() {
    var layer = APDULayer()
    var context = LinkContext()
    // A 1-byte payload of no known native protocol (DESFire's `60` is decoded, see
    // Pass20DESFireTests) and its answer: not APDUs, no finding.
    let native = layer.decode(
      LayerUnit(direction: .reader, bytes: [0x01], frameIndex: 0, timeNs: 0), context: &context)
    #expect(native.decode?.name == "not an APDU")
    #expect(native.reason == "expected the 4-byte header CLA INS P1 P2, got 1 byte(s)")
    #expect(native.findings.isEmpty && native.handoff == nil)
    let answer = layer.decode(
      LayerUnit(direction: .tag, bytes: bytes("af 04 01 01 01 00 18 05"), frameIndex: 1, timeNs: 1),
      context: &context)
    #expect(answer.decode?.name == "not an APDU")
    #expect(answer.reason == "answer to a command that was not an APDU")
    // READ BINARY whose Lc promises 5 bytes but carries 1: an attempted APDU.
    let broken = layer.decode(
      LayerUnit(direction: .reader, bytes: bytes("00 b0 00 00 05 01"), frameIndex: 2, timeNs: 2),
      context: &context)
    #expect(broken.decode?.name == "not an APDU")
    #expect(
      broken.findings == [
        Finding(
          "malformed-apdu", .warning,
          "malformed APDU at byte offset 4: Lc = 5 announces 5 data byte(s) but only 1 follow",
          frames: [2], offset: 4)
      ])
  }
}
