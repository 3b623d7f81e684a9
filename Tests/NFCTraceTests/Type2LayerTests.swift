import NFCTrace
import Testing

private func unit(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerUnit {
  LayerUnit(direction: direction, bytes: Hex.bytes(hex) ?? [], bits: bits, frameIndex: 0, timeNs: 0)
}

/// Runs a Type 2 layer over the inner frames of a trace.
private func decodeAll(_ records: [InnerLayerFixtures.Record]) -> [LayerResult] {
  var layer = Type2Layer()
  var context = LinkContext()
  return InnerLayerFixtures.afterActivation(records).map {
    layer.decode($0.record.unit($0.index), context: &context)
  }
}

@Suite struct Type2LayerTests {
  @Test func syntheticReadWriteAckNak() throws {
    let records = try InnerLayerFixtures.pcap264(
      "derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap")
    let results = decodeAll(records)
    try #require(results.count == 12)
    #expect(
      results.map { $0.decode?.summary ?? "-" } == [
        "READ page 3", "READ page 3 → e1 10 12 00 …",
        "READ page 7", "READ page 7 → 6c 65 2e 63 …",
        "WRITE page 4 ← 03 00 fe 00", "ACK",
        "WRITE page 5 ← d1 01 0c 55", "ACK",
        "WRITE page 40 ← 00 00 00 bd", "NAK 0x0 (invalid argument or page)",
        "READ page 4", "READ page 4 → 03 00 fe 00 …",
      ])
    #expect(
      results.map { $0.decode?.name ?? "-" }.prefix(6) == [
        "READ", "READ response", "READ", "READ response", "WRITE", "ACK",
      ])
    let cc = results[1].decode
    #expect(cc?.field("page") == .int(3))
    #expect(
      cc?.field("data") == .hex(Hex.bytes("e1 10 12 00 03 10 d1 01 0c 55 01 65 78 61 6d 70") ?? []))
    #expect(results[4].decode?.field("data") == .hex([0x03, 0x00, 0xFE, 0x00]))
    let ack = results[5].decode
    #expect(ack?.field("command") == .string("WRITE"))
    #expect(ack?.field("page") == .int(4))
    #expect(ack?.field("ack") == .bool(true))
    let nak = results[9].decode
    #expect(nak?.name == "NAK")
    #expect(nak?.field("page") == .int(40))
    #expect(nak?.field("nak_code") == .int(0))
    #expect(nak?.field("meaning") == .string("invalid argument or page"))
  }

  @Test func proxmarkSimulatedNDEFReadAndBadVersionAnswer() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_14a_mfu-sim.list_14a.txt")
    let results = decodeAll(records)
    let summaries = results.map { $0.decode?.summary ?? "raw: " + ($0.reason ?? "") }
    #expect(
      summaries.prefix(9) == [
        "READ page 2", "READ page 2 → 93 48 00 00 …",
        // UL C authentication probe the simulated NTAG does not answer.
        "AUTHENTICATE part 1 (key 0)",
        "GET_VERSION",
        // Ten zero bytes with a failing CRC: kept raw with the reason.
        "raw: GET_VERSION answer has 10 byte(s), expected 8",
        "READ page 2", "READ page 2 → 93 48 00 00 …",
        "AUTHENTICATE part 1 (key 0)",
        "READ page 3",
      ])
    let firstNDEF = try #require(results.firstIndex { $0.decode?.field("page") == .int(4) })
    let answer = results[firstNDEF + 1].decode
    #expect(answer?.summary == "READ page 4 → 03 43 da 20 …")
    #expect(
      answer?.field("data")
        == .hex(Hex.bytes("03 43 da 20 1e 01 61 70 70 6c 69 63 61 74 69 6f") ?? []))
  }

  /// A reader chip's SECTOR_SELECT (libnfc on a PN533): part 1's ACK comes back as an empty
  /// answer (field engineer, t2-39); part 2 is accepted by silence (its timeout is no frame).
  @Test func sectorSelectThroughAReaderChip() throws {
    var layer = Type2Layer()
    var context = LinkContext()
    _ = layer.decode(unit(.reader, "c2 ff"), context: &context)
    var empty = unit(.tag, "")
    empty.readerChipACK = true
    #expect(layer.decode(empty, context: &context).decode?.name == "ACK")
    let part2 = layer.decode(unit(.reader, "01 00 00 00"), context: &context)
    #expect(part2.expectsResponse == false)
    #expect(layer.sector == 1)
    let read = layer.decode(unit(.reader, "30 00"), context: &context).decode
    #expect(read?.field("sector") == .int(1))
    #expect(read?.summary == "READ page 0 (sector 1)")
  }

  /// WRITE_SIG and LOCK_SIG (MF0UN(H)00, Ultralight AES; spec audit): decoded, and their
  /// ACKs answer them.
  @Test func writeAndLockSignature() throws {
    var layer = Type2Layer()
    var context = LinkContext()
    let w = layer.decode(unit(.reader, "a9 00 01 02 03 04"), context: &context).decode
    #expect(w?.summary == "WRITE_SIG block 0 ← 01 02 03 04")
    let ack = layer.decode(unit(.tag, "0a", bits: 4), context: &context).decode
    #expect(ack?.field("command") == .string("WRITE_SIG"))
    let l = layer.decode(unit(.reader, "ac 02"), context: &context).decode
    #expect(l?.summary == "LOCK_SIG 2 (lock permanently)")
  }

  @Test func passwordAuthAndPACK() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_14a_mfu.list_14a.txt")
    let results = decodeAll(records)
    try #require(results.count == 12)
    #expect(results[0].decode?.name == "PWD_AUTH")
    #expect(results[0].decode?.summary == "PWD_AUTH password da e5 57 96")
    #expect(results[0].decode?.field("password") == .hex([0xDA, 0xE5, 0x57, 0x96]))
    #expect(results[1].decode?.name == "PACK")
    #expect(results[1].decode?.summary == "PACK ab da (password accepted)")
    #expect(results[1].decode?.field("pack") == .hex([0xAB, 0xDA]))
    #expect(
      results.suffix(10).map { $0.decode?.summary ?? "-" }.enumerated().allSatisfy {
        $0.offset % 2 == 0
          ? $0.element == "READ page \(4 + $0.offset / 2)"
          : $0.element == "READ page \(4 + $0.offset / 2) → 00 00 00 00 …"
      })
  }

  @Test func ultralightCAuthentication() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_14a_mfuc.list_14a.txt")
    let results = decodeAll(records)
    #expect(results[2].decode?.summary == "AUTHENTICATE part 1 (key 0)")
    #expect(results[3].decode?.summary == "AUTHENTICATE → ek(RndB), 8 bytes")
    #expect(results[3].decode?.field("data") == .hex(Hex.bytes("1d 8c 17 73 c1 7e bc 08") ?? []))
    #expect(results[4].decode?.summary == "AUTHENTICATE part 2 (16 encrypted bytes)")
    #expect(results[4].decode?.field("part") == .int(2))
    #expect(results[5].decode?.summary == "AUTHENTICATE → authenticated, ek(RndA'), 8 bytes")
    #expect(results[5].decode?.field("authenticated") == .bool(true))
    #expect(results[6].decode?.summary == "READ page 40")
  }

  @Test func ultralightAESAuthentication() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_14a_mful_aes_defaultkey.list_14a.txt")
    let results = decodeAll(records)
    #expect(
      results.prefix(4).map { $0.decode?.summary ?? "-" } == [
        "AUTHENTICATE part 1 (key 0)", "AUTHENTICATE → ek(RndB), 16 bytes",
        "AUTHENTICATE part 2 (32 encrypted bytes)",
        "AUTHENTICATE → authenticated, ek(RndA'), 16 bytes",
      ])
  }

  @Test func getVersionProducts() throws {
    func product(_ hex: String) -> NTAGProduct? {
      GetVersionInfo(bytes: Hex.bytes(hex) ?? [])?.product
    }
    // Real NTAG216 dump (shared/traces/public/proxmark3/ntag216-empty.json) and facts §4.6.
    #expect(product("00 04 04 02 01 00 13 03") == .ntag216)
    #expect(product("00 04 04 02 01 00 11 03") == .ntag215)
    #expect(product("00 04 04 02 01 00 0f 03") == .ntag213)
    #expect(product("00 04 04 01 01 00 0b 03") == .ntag210)
    #expect(product("00 04 04 01 01 00 0e 03") == .ntag212)
    #expect(product("00 04 03 01 01 00 0b 03") == .ultralightEV1MF0UL11)
    #expect(product("00 04 03 02 01 00 0e 03") == .ultralightEV1MF0ULH21)
    #expect(product("00 04 04 05 02 02 13 03") == .ntagI2CPlus1K)
    #expect(product("00 04 04 05 02 01 15 03") == .ntagI2C2K)
    // NTAG213F/216F as Proxmark3 and as the datasheet give them (facts §10).
    #expect(product("00 04 04 04 01 00 0f 03") == .ntag213F)
    #expect(product("00 04 04 01 01 00 0f 03") == .ntag213F)
    #expect(product("00 04 04 01 01 00 12 03") == .ntag216F)
    // Silicon revisions (minor version) keep the memory map; Ultralight Nano H is subtype 02
    // (spec audit).
    #expect(product("00 04 04 02 01 01 0f 03") == .ntag213)
    #expect(product("00 04 03 02 02 00 0b 03") == .ultralightNano)
    #expect(product("00 04 04 05 02 00 13 03") == nil)
    let unknown = try #require(GetVersionInfo(bytes: Hex.bytes("00 53 04 02 01 00 13 03") ?? []))
    #expect(unknown.product == nil)
    #expect(unknown.productName == "vendor 53 type 04 subtype 02 version 01.00 size 13")
    #expect(GetVersionInfo(bytes: [0, 4, 4]) == nil)
    let ntag215 = try #require(GetVersionInfo(bytes: Hex.bytes("00 04 04 02 01 00 11 03") ?? []))
    #expect(ntag215.storageSizeRange == 256...512)
    #expect(NTAGProduct.ntag215.userMemoryBytes == 504 && NTAGProduct.ntag215.lastPage == 0x86)
    // The F and TT variants have NTAG213's and NTAG216's memory maps (they showed 128 and
    // 512 bytes, the storage size's lower bound).
    #expect(NTAGProduct.ntag216F.userMemoryBytes == 888 && NTAGProduct.ntag216F.lastPage == 0xE6)
    #expect(NTAGProduct.ntag213F.userMemoryBytes == 144 && NTAGProduct.ntag213TT.lastPage == 0x2C)
    // A product whose size is not in the table (Ultralight Nano): the storage size "between
    // 2ⁿ and 2ⁿ⁺¹" is a range, not 2ⁿ.
    var tag = TagIdentity()
    tag.version = Hex.bytes("00 04 03 01 02 00 0b 03")
    #expect(tag.memoryBytes == nil)
    #expect(tag.memoryRange == 32...64)
    // Sizes from the datasheets, not the storage byte (NTAG 224 DNA says 10h, exactly 256).
    tag.version = Hex.bytes("00 04 04 02 05 00 10 03")
    #expect(tag.memoryBytes == 208)
    #expect(NTAGProduct.ntagI2CPlus2K.userMemoryBytes == 1912)
    #expect(NTAGProduct.ultralightAES.userMemoryBytes == 144)

    var layer = Type2Layer()
    var context = LinkContext()
    _ = layer.decode(unit(.reader, "60"), context: &context)
    let answer = layer.decode(unit(.tag, "00 04 04 02 01 00 11 03"), context: &context).decode
    #expect(answer?.name == "GET_VERSION response")
    #expect(answer?.summary == "GET_VERSION → NTAG215 (00 04 04 02 01 00 11 03)")
    #expect(answer?.field("product") == .string("NTAG215"))
    #expect(answer?.field("storage_size") == .hex([0x11]))
    #expect(answer?.field("storage_bytes") == .string("between 256 and 512 bytes"))
    #expect(context.tagFamilyHint == "NTAG215")
    #expect(layer.version?.product == .ntag215)
  }

  @Test func twoPartCommands() {
    var layer = Type2Layer()
    var context = LinkContext()
    func run(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerDecode? {
      layer.decode(unit(direction, hex, bits: bits), context: &context).decode
    }
    #expect(run(.reader, "a0 04")?.summary == "COMPATIBILITY_WRITE page 4")
    #expect(run(.tag, "0a", bits: 4)?.summary == "ACK")
    let data = run(.reader, "03 1d d1 01 00 00 00 00 00 00 00 00 00 00 00 00")
    #expect(data?.name == "COMPATIBILITY_WRITE")
    #expect(
      data?.summary == "COMPATIBILITY_WRITE page 4 ← 03 1d d1 01 (16-byte frame, first 4 stored)")
    #expect(data?.field("part") == .int(2))
    #expect(run(.tag, "0a")?.field("command") == .string("COMPATIBILITY_WRITE"))
    // NTAG I2C SECTOR_SELECT: C2 FF → ACK → sector frame, acknowledged passively.
    #expect(run(.reader, "c2 ff")?.summary == "SECTOR_SELECT part 1")
    #expect(run(.tag, "0a", bits: 4)?.name == "ACK")
    #expect(run(.reader, "01 00 00 00")?.summary == "SECTOR_SELECT sector 1")
    #expect(run(.reader, "30 00")?.field("sector") == .int(1))
    // Without the ACK, a 16-byte reader frame is not COMPATIBILITY_WRITE data.
    _ = run(.reader, "a0 05")
    _ = run(.tag, "01", bits: 4)
    let stray = layer.decode(
      unit(.reader, "03 1d d1 01 00 00 00 00 00 00 00 00 00 00 00 00"), context: &context)
    #expect(stray.decode == nil && stray.reason == "unknown Type 2 command 0x03")
  }

  @Test func otherNTAGCommands() {
    var layer = Type2Layer()
    var context = LinkContext()
    func run(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerResult {
      layer.decode(unit(direction, hex, bits: bits), context: &context)
    }
    #expect(run(.reader, "3a 04 06").decode?.summary == "FAST_READ pages 4–6")
    let fast = run(.tag, "03 00 fe 00 00 00 00 00 00 00 00 00").decode
    #expect(fast?.summary == "FAST_READ pages 4–6 → 12 bytes")
    #expect(fast?.field("end_page") == .int(6))
    #expect(run(.reader, "39 02").decode?.summary == "READ_CNT counter 2")
    #expect(run(.tag, "05 01 00").decode?.summary == "READ_CNT counter 2 = 261")
    #expect(run(.reader, "a5 02 01 00 00 00").decode?.summary == "INCR_CNT counter 2 + 1")
    #expect(
      run(.tag, "04", bits: 4).decode?.summary
        == "NAK 0x4 (authentication counter overflow or not allowed)")
    #expect(run(.reader, "3c 00").decode?.name == "READ_SIG")
    let sig = run(.tag, String(repeating: "11 ", count: 32)).decode
    #expect(sig?.summary == "READ_SIG → 32-byte ECC signature")
    #expect(run(.reader, "3e 00").decode?.summary == "CHECK_TEARING_EVENT counter 0")
    #expect(run(.tag, "bd").decode?.field("tearing_flag") == .hex([0xBD]))
    // A 1-byte answer without a bit count (pcap) to VCSL is the VCTID, not a NAK.
    _ = run(.reader, "4b" + String(repeating: " 00", count: 32))
    #expect(run(.tag, "05").decode?.summary == "VCTID 05")
    #expect(run(.reader, "30").reason == "READ (30 page) needs 2 bytes, got 1")
    #expect(run(.reader, "b5 00").reason == "unknown Type 2 command 0xb5")
    #expect(run(.tag, "00 11 22").reason == "answer to a reader frame that was no Type 2 command")
    // A second tag frame answers nothing: the tag speaks only after the reader (ISO/IEC
    // 14443-3); a lone 4-bit ACK likewise (framing pass, finding 7).
    #expect(
      run(.tag, "00 11 22").reason
        == "tag answer with no command before it to answer (the capture may have begun after the command)"
    )
    #expect(
      run(.tag, "0a").reason
        == "4-bit ACK with no command before it to answer (answered already, or the capture began after the command)"
    )
    _ = run(.reader, "1b ff ff ff ff")
    #expect(run(.tag, "00").decode?.summary == "NAK 0x0 (invalid argument or page)")
    _ = run(.reader, "a2 28 00 00 00 00")
    #expect(run(.tag, "05").decode?.summary == "NAK 0x5 (EEPROM write error)")
  }
}
