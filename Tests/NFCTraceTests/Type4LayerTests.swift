import NFCTrace
import Testing

/// Drives APDU → Type 4 the way the decoder stack does: the Type 4 layer gets the APDU
/// layer's handoff.
private struct T4Stack {
  var apdu = APDULayer()
  var type4 = Type4Layer()
  var context = LinkContext()

  mutating func run(_ unit: LayerUnit) -> LayerResult? {
    let first = apdu.decode(unit, context: &context)
    guard let (id, inner) = first.handoff, id == .type4 else { return nil }
    return type4.decode(inner, context: &context)
  }
}

private func unit(_ direction: Direction, _ hex: String, _ index: Int = 0) -> LayerUnit {
  LayerUnit(direction: direction, bytes: Hex.bytes(hex) ?? [], frameIndex: index, timeNs: 0)
}

/// The CC of the synthetic Type 4 trace: CCLEN 15, mapping 2.0, MLe 59, MLc 52, NDEF file
/// E104 of 255 bytes, read 00, write FF.
private let syntheticCC = "00 0f 20 00 3b 00 34 04 06 e1 04 00 ff 00 ff"

@Suite struct Type4LayerTests {
  @Test func syntheticNDEFReadThenDeniedUpdate() throws {
    let records = try InnerLayerFixtures.pcap264(
      "derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap")
    var stack = T4Stack()
    let decodes = records.enumerated().compactMap { index, record -> LayerDecode? in
      guard let pcb = record.payload.first, pcb & 0xE2 == 0x02 else { return nil }
      return stack.run(record.unit(index, dropFirst: 1))?.decode
    }
    try #require(decodes.count == 14)
    #expect(
      decodes.map(\.name) == [
        "SELECT NDEF application", "SELECT NDEF application response",
        "SELECT CC file", "SELECT CC file response", "READ CC", "READ CC response",
        "SELECT NDEF file", "SELECT NDEF file response", "READ NLEN", "READ NLEN response",
        "READ NDEF data", "READ NDEF data response", "UPDATE NLEN", "UPDATE NLEN response",
      ])
    #expect(
      decodes.map(\.summary) == [
        "SELECT NDEF application", "NDEF application selected",
        "SELECT CC file e103", "CC file e103 selected",
        "READ CC offset 0 Le 15",
        "CC mapping 2.0, MLe 59, MLc 52, NDEF file e104 max 255 bytes, read granted, write denied",
        "SELECT NDEF file e104", "NDEF file e104 selected",
        "READ NLEN offset 0 Le 2", "NLEN 16",
        "READ NDEF data offset 2 Le 16", "NDEF data at message offset 0: 16 byte(s)",
        "UPDATE NLEN 0", "UPDATE NLEN failed: SW 6982 security status not satisfied",
      ])
    let cc = decodes[5]
    #expect(cc.field("cclen") == .int(15))
    #expect(cc.field("mapping_version") == .string("2.0"))
    #expect(cc.field("mle") == .int(59))
    #expect(cc.field("mlc") == .int(52))
    #expect(cc.field("ndef_file_id") == .hex([0xE1, 0x04]))
    #expect(cc.field("ndef_file_max_size") == .int(255))
    #expect(cc.field("ndef_capacity") == .int(253))
    #expect(cc.field("read_access") == .hex([0x00]))
    #expect(cc.field("write_access") == .hex([0xFF]))
    #expect(cc.field("write_access_meaning") == .string("denied"))
    #expect(decodes[2].field("file") == .string("CC file"))
    #expect(decodes[9].field("nlen") == .int(16))
    #expect(decodes[11].field("message_offset") == .int(0))
    #expect(
      decodes[11].field("data")
        == .hex(Hex.bytes("d1 01 0c 55 01 65 78 61 6d 70 6c 65 2e 63 6f 6d") ?? []))
    #expect(decodes[12].field("nlen") == .int(0))
    #expect(decodes[13].field("result") == .string("failed"))
    #expect(decodes[13].field("sw") == .string("6982"))
    #expect(stack.type4.capabilityContainer?.ndefFile.fileID == 0xE104)
  }

  @Test func capabilityContainerParsing() throws {
    let v2 = try CapabilityContainer4(parsing: Hex.bytes(syntheticCC) ?? [])
    #expect(v2.ccLen == 15 && v2.mappingVersion == 0x20 && v2.versionString == "2.0")
    #expect(v2.mle == 59 && v2.mlc == 52 && !v2.isTruncated)
    #expect(
      v2.ndefFile
        == .init(tlvType: 0x04, fileID: 0xE104, maxSize: 255, readAccess: 0, writeAccess: 0xFF))
    #expect(v2.ndefFile.capacity == 253)
    // Mapping 3.0 with an Extended NDEF File Control TLV (06 08): 4-byte size, ENLEN.
    let v3 = try CapabilityContainer4(
      parsing: Hex.bytes("00 11 30 00 ff 00 ff 06 08 e1 04 00 00 80 00 00 00") ?? [])
    #expect(v3.ndefFile.tlvType == 0x06 && v3.ndefFile.maxSize == 32768)
    #expect(v3.ndefFile.lengthFieldSize == 4 && v3.ndefFile.capacity == 32764)
    // A proprietary file TLV after the NDEF one is kept.
    let withProprietary = try CapabilityContainer4(
      parsing: Hex.bytes("00 17 20 00 3b 00 34 04 06 e1 04 00 ff 00 00 05 06 e1 05 00 20 00 ff")
        ?? [])
    #expect(withProprietary.proprietaryFiles.map(\.fileID) == [0xE105])
    // 15 of 17 bytes of a 3.0 CC (Le 0F): the 06 08 TLV is cut, which is no fault of the tag
    // (field engineer pass 8 t4-05: "CC invalid … no NDEF File Control TLV").
    do {
      _ = try CapabilityContainer4(
        parsing: Hex.bytes("00 11 30 04 00 04 00 06 08 e1 04 00 00 20 00") ?? [])
      Issue.record("a partial CC parsed")
    } catch {
      #expect(error.incomplete)
      #expect(error.offset == 15)
    }
  }

  @Test func capabilityContainerErrors() {
    func error(_ hex: String) -> CapabilityContainerError? {
      do {
        _ = try CapabilityContainer4(parsing: Hex.bytes(hex) ?? [])
        return nil
      } catch {
        return error
      }
    }
    #expect(error("00 0f 20")?.offset == 3)
    #expect(error("00 07 20 00 3b 00 34")?.offset == 0)
    #expect(error("00 0f 40 00 3b 00 34 04 06 e1 04 00 ff 00 ff")?.offset == 2)
    #expect(error("00 0f 20 00 3b 00 34 04 05 e1 04 00 ff 00 ff")?.offset == 8)
    #expect(
      error("00 0f 20 00 3b 00 34 04 05 e1 04 00 ff 00 ff")?.message
        == "File Control TLV 04 must have length 6, has 5")
    #expect(error("00 0f 20 00 3b 00 34 05 06 e1 04 00 ff 00 ff")?.offset == 7)
  }

  @Test func ccReadInPiecesAndCombinedNLENRead() {
    var stack = T4Stack()
    _ = stack.run(unit(.reader, "00 a4 04 00 07 d2 76 00 00 85 01 01 00"))
    _ = stack.run(unit(.tag, "90 00"))
    _ = stack.run(unit(.reader, "00 a4 00 0c 02 e1 03"))
    _ = stack.run(unit(.tag, "90 00"))
    _ = stack.run(unit(.reader, "00 b0 00 00 02"))
    let head = stack.run(unit(.tag, "00 0f 90 00"))?.decode
    #expect(head?.summary == "2 CC byte(s) at offset 0")
    #expect(stack.run(unit(.reader, "00 b0 00 02 0d"))?.decode?.summary == "READ CC offset 2 Le 13")
    let rest = stack.run(unit(.tag, "20 00 3b 00 34 04 06 e1 04 00 ff 00 ff 90 00"))?.decode
    #expect(rest?.field("mle") == .int(59))
    _ = stack.run(unit(.reader, "00 a4 00 0c 02 e1 04"))
    _ = stack.run(unit(.tag, "90 00"))
    let both = stack.run(unit(.reader, "00 b0 00 00 08"))?.decode
    #expect(both?.name == "READ NLEN and NDEF data")
    let answer = stack.run(unit(.tag, "00 10 d1 01 0c 55 01 65 90 00"))?.decode
    #expect(answer?.summary == "NLEN 16, 6 byte(s) of NDEF data")
    // One UPDATE BINARY with NLEN and the message (nfc-facts §6.4, short case).
    let write = stack.run(unit(.reader, "00 d6 00 00 05 00 03 d0 00 00"))?.decode
    #expect(write?.name == "UPDATE NLEN and NDEF data")
    #expect(write?.summary == "UPDATE NLEN and NDEF data NLEN 3 Lc 5")
    #expect(
      stack.run(unit(.tag, "90 00"))?.decode?.summary
        == "UPDATE NLEN and NDEF data: 5 byte(s) written at offset 0")
    let data = stack.run(unit(.reader, "00 d6 00 02 03 d0 00 00"))?.decode
    #expect(data?.name == "UPDATE NDEF data" && data?.field("message_offset") == .int(0))
  }

  @Test func mappingOneAIDAndNonNDEFApplications() throws {
    // DESFire EV1 sniff: the reader tries the mapping 1.0 NDEF AID, then native commands.
    let records = try InnerLayerFixtures.proxmarkListing("hf_mfdes_sniff.list_des.txt")
    let iBlocks = records.enumerated().filter { [0x0A, 0x0B].contains($0.element.bytes.first) }
    var stack = T4Stack()
    let results = iBlocks.prefix(4).map { stack.run($0.element.unit($0.offset, dropFirst: 2)) }
    #expect(results[0]?.decode?.summary == "SELECT NDEF application (mapping 1.0 AID)")
    #expect(results[0]?.decode?.field("mapping") == .string("1.0"))
    #expect(results[1]?.decode?.summary == "NDEF application selected")
    // DESFire SELECT APPLICATION (CLA 90) is no Type 4 NDEF command: no decode, no reason.
    #expect(results[2]?.decode == nil && results[2]?.reason == nil)
    // Payment application (Apple Pay ECP trace): nothing for this layer either.
    var pay = T4Stack()
    let ppse = pay.run(unit(.reader, "00 a4 04 00 0e 32 50 41 59 2e 53 59 53 2e 44 44 46 30 31 00"))
    #expect(ppse?.decode == nil && ppse?.reason == nil)
    _ = pay.run(unit(.tag, "6f 00 90 00"))
    // …and a file select inside it is not taken for the CC file.
    #expect(pay.run(unit(.reader, "00 a4 00 0c 02 e1 03"))?.decode == nil)
  }

  @Test func missingNDEFApplication() {
    var stack = T4Stack()
    _ = stack.run(unit(.reader, "00 a4 04 00 07 d2 76 00 00 85 01 01 00"))
    let failed = stack.run(unit(.tag, "6a 82"))?.decode
    #expect(
      failed?.summary
        == "SELECT NDEF application failed: SW 6a82 file or application not found")
    #expect(failed?.field("result") == .string("failed"))
  }
}

/// A READ BINARY past the NDEF file's end answered with its bytes and SW 6282 (end of file
/// before Le bytes, ISO/IEC 7816-4): the bytes are the file's, not a refusal (field-engineer
/// pass, s20a: the query failed and the report said the file was not read).
@Test func readPastTheFileEndWith6282KeepsTheData() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 0x0005)
  let message: [UInt8] = [0xD1, 0x01, 0x01, 0x54, 0x00]
  b.apdu([0x00, 0xB0, 0x00, 0x02, 0x3B], message + [0x62, 0x82])
  let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames))
  let s = try #require(run.sessions.first)
  #expect(s.operations.allSatisfy { $0.outcome == .ok })
  #expect(s.memory.filesEnd[0xE104]?.known(2, 5) == message)
  var pipeline = FramePipeline(importer: MemoryImporter(frames: b.frames))
  var last: DecodedFrame?
  while let f = try pipeline.next() { last = f }
  #expect(
    last?.layer(.type4)?.summary.hasSuffix("(SW 6282: the file ended before Le bytes)") == true)
}

/// Parsed CCs are remembered by their bytes (`Type4Layer.parsedCCs`): a CC read again in a
/// later activation decodes the same, a different one by its own bytes, and a CC with a bad
/// value still gets its finding in every activation.
@Test func rememberedCCsFollowTheirBytes() throws {
  var stack = T4Stack()
  func readCC(_ cc: String) -> LayerResult? {
    stack.type4.reset()
    _ = stack.run(unit(.reader, "00 a4 04 00 07 d2 76 00 00 85 01 01 00"))
    _ = stack.run(unit(.tag, "90 00"))
    _ = stack.run(unit(.reader, "00 a4 00 0c 02 e1 03"))
    _ = stack.run(unit(.tag, "90 00"))
    _ = stack.run(unit(.reader, "00 b0 00 00 0f"))
    return stack.run(unit(.tag, cc + " 90 00", 7))
  }
  let writable = "00 0f 20 00 3b 00 34 04 06 e1 04 00 ff 00 00"
  let badMLe = "00 0f 20 00 01 00 34 04 06 e1 04 00 ff 00 ff"
  let first = try #require(readCC(syntheticCC)?.decode)
  let other = try #require(readCC(writable)?.decode)
  #expect(stack.type4.capabilityContainer?.ndefFile.writeAccess == 0x00)
  let again = try #require(readCC(syntheticCC)?.decode)
  #expect(stack.type4.capabilityContainer?.ndefFile.writeAccess == 0xFF)
  #expect(first == again)
  #expect(
    first.summary
      == "CC mapping 2.0, MLe 59, MLc 52, NDEF file e104 max 255 bytes, read granted, "
      + "write denied")
  #expect(other.field("write_access") == .hex([0x00]))
  #expect(other.summary.hasSuffix("write granted"))
  for _ in 0..<2 {
    let bad = readCC(badMLe)
    #expect(bad?.findings.map(\.code) == ["invalid-cc"])
    #expect(bad?.findings.first?.frames == [7])
  }
}
