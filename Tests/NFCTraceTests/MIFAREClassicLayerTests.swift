import NFCTrace
import Testing

private func unit(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerUnit {
  LayerUnit(direction: direction, bytes: Hex.bytes(hex) ?? [], bits: bits, frameIndex: 0, timeNs: 0)
}

@Suite struct MIFAREClassicLayerTests {
  /// HID SIO emulation read by a reader (Proxmark3 `hf mf sim`): AUTH key A block 0, then
  /// encrypted READs of blocks 0–3 and a nested AUTH, all Crypto1.
  @Test func authenticationThenCiphertext() throws {
    let records = try InnerLayerFixtures.proxmarkListing("hf_mf_hid_sio_sim.list_14a.txt")
    var layer = MIFAREClassicLayer()
    var context = LinkContext()
    var decodes: [LayerDecode] = []
    var activations = 0
    let inner = Set(InnerLayerFixtures.afterActivation(records).map(\.index))
    for (index, record) in records.enumerated() {
      if record.bits == 7 {
        activations += 1
        // Only the third activation (the one that authenticates) is checked here.
        if activations > 3 { break }
        layer.reset()
        context.resetActivation()
      }
      guard inner.contains(index) else { continue }
      let result = layer.decode(record.unit(index), context: &context)
      if let decode = result.decode { decodes.append(decode) }
    }
    try #require(decodes.count == 30)
    #expect(
      decodes.prefix(5).map(\.name) == [
        "AUTH key A", "AUTH (nt)", "AUTH (nr, ar)", "AUTH (at)", "ciphertext",
      ])
    #expect(decodes[0].summary == "AUTH key A block 0 (sector 0)")
    #expect(decodes[0].field("block") == .int(0))
    #expect(decodes[0].field("key") == .string("A"))
    #expect(decodes[1].summary == "AUTH tag nonce nt 1ed24a6a")
    #expect(decodes[1].field("nt") == .hex([0x1E, 0xD2, 0x4A, 0x6A]))
    #expect(decodes[2].field("nr") == .hex([0x44, 0x0D, 0x59, 0x13]))
    #expect(decodes[2].field("ar") == .hex([0xC2, 0x61, 0x1A, 0x1B]))
    #expect(decodes[3].field("at") == .hex([0x58, 0xB8, 0x14, 0x2C]))
    // Everything after {at} is ciphertext, never a command — the plaintext annotator of
    // `trace list -t 14a` misreads some of these frames as `AUTH-6F(47)`, `PPS`, `MAGIC WIPEC`.
    // Two nested authentications (an encrypted AUTH answered by a 4-byte nt) are named as such.
    let nested: Set<String> = ["AUTH (nt)", "AUTH (nr, ar)", "AUTH (at)"]
    #expect(decodes.dropFirst(4).allSatisfy { $0.name == "ciphertext" || nested.contains($0.name) })
    #expect(decodes.dropFirst(4).filter { $0.field("nested") == .bool(true) }.count == 2)
    #expect(decodes[4].summary == "encrypted (Crypto1)")
    #expect(decodes[4].field("length") == .int(4))
    #expect(context.encrypted)
  }

  @Test func encryptedFlagSetWhenNonceArrives() {
    var layer = MIFAREClassicLayer()
    var context = LinkContext()
    _ = layer.decode(unit(.reader, "61 08"), context: &context)
    #expect(!context.encrypted)
    #expect(layer.decode(unit(.tag, "a5 1e c8 d8"), context: &context).decode?.name == "AUTH (nt)")
    #expect(context.encrypted)
    // A reader frame of the wrong size after nt: not a command, but {nr}{ar} cut short (the
    // reader's only frame due; encrypted commands have 4, 6 or 18 bytes).
    let cut = layer.decode(unit(.reader, "30 04"), context: &context).decode
    #expect(cut?.name == "AUTH (nr, ar)")
    #expect(cut?.field("cut") == .bool(true))
  }

  @Test func plaintextCommands() {
    var layer = MIFAREClassicLayer()
    var context = LinkContext()
    func run(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerResult {
      layer.decode(unit(direction, hex, bits: bits), context: &context)
    }
    #expect(run(.reader, "30 04").decode?.summary == "READ block 4")
    let read = run(.tag, "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f").decode
    #expect(read?.name == "READ response")
    #expect(read?.field("sector") == .int(1))
    #expect(run(.reader, "a0 05").decode?.summary == "WRITE block 5")
    #expect(run(.tag, "0a", bits: 4).decode?.field("command") == .string("WRITE"))
    let data = run(.reader, "ff ff ff ff ff ff ff 07 80 69 ff ff ff ff ff ff").decode
    #expect(data?.name == "WRITE data")
    #expect(run(.tag, "0a", bits: 4).decode?.name == "ACK")
    #expect(run(.reader, "c1 06").decode?.summary == "INCREMENT block 6")
    _ = run(.tag, "0a", bits: 4)
    let value = run(.reader, "0a 00 00 00").decode
    #expect(value?.name == "INCREMENT value" && value?.field("value") == .int(10))
    #expect(run(.reader, "c0 06").decode?.name == "DECREMENT")
    _ = run(.tag, "0a", bits: 4)
    #expect(run(.reader, "ff ff ff ff").decode?.summary == "DECREMENT block 6 by -1")
    #expect(run(.reader, "b0 06").decode?.summary == "TRANSFER to block 6")
    #expect(
      run(.tag, "04", bits: 4).decode?.summary
        == "NAK 0x4 (invalid operation, transfer buffer invalid)")
    #expect(run(.reader, "c2 80").decode?.field("sector") == .int(32))
    #expect(run(.reader, "50 00").decode?.name == "HALT")
    #expect(run(.reader, "40", bits: 7).decode?.name == "magic WUPC1")
    #expect(run(.reader, "12 34").reason == "unknown MIFARE Classic command 0x12")
    #expect(MIFAREClassicLayer.sector(ofBlock: 255) == 39)
    #expect(!context.encrypted)
  }
}
