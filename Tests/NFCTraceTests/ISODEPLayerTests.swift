import Foundation
import NFCTrace
import TestSupport
import Testing

@Suite struct ISODEPLayerTests {
  @Test func desfireRATSAndATS() throws {
    let frames = try PM3Text.frames("hf_14a_reader_7b_rats.list_14a.txt")
    let (out, decoder) = decodeAll(frames)
    let rats = out[14].layer(.isoDEP)
    #expect(rats?.summary == "RATS FSDI 8 (FSD 256), CID 0")
    #expect(rats?.field("fsd") == .int(256))
    let ats = try #require(out[15].layer(.isoDEP))
    #expect(ats.name == "ATS")
    #expect(
      ats.summary == "ATS FSC 64, FWT 77.3 ms, SFGT 604 µs, DS 2/4/8 DR 2/4/8, CID, historical 80")
    #expect(ats.field("tl") == .int(6))
    #expect(ats.field("t0") == .hex([0x75]))
    #expect(ats.field("fsci") == .int(5))
    #expect(ats.field("fsc") == .int(64))
    #expect(ats.field("same_divisor") == .bool(false))
    #expect(ats.field("ds") == .string("2/4/8"))
    #expect(ats.field("dr") == .string("2/4/8"))
    #expect(ats.field("fwi") == .int(8))
    #expect(ats.field("fwt_us") == .int(77329))
    #expect(ats.field("sfgi") == .int(1))
    #expect(ats.field("sfgt_us") == .int(604))
    #expect(ats.field("cid_supported") == .bool(true))
    #expect(ats.field("nad_supported") == .bool(false))
    #expect(ats.field("historical") == .hex([0x80]))
    #expect(ats.field("historical_format") == .string("compact-TLV"))
    #expect(out[15].frame.crc == .ok)
    #expect(decoder.context.fsd == 256)
    #expect(decoder.context.fsc == 64)
    #expect(decoder.context.fwtNs == 77_328_614)
    #expect(decoder.context.ats == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
    #expect(decoder.context.isoDEPActive)
  }

  /// ATS with TA(1) = 80 (same divisor, 106 kbit/s only) and no TB(1): FWI defaults to 4.
  @Test func atsDefaults() throws {
    let frames = try PM3Text.frames("hf_14a_reader_4b_rats.list_14a.txt")
    let (out, _) = decodeAll(frames)
    let ats = try #require(out[7].layer(.isoDEP))
    #expect(ats.summary == "ATS FSC 256, FWT 4.8 ms, CID")
    #expect(ats.field("fwi") == .int(4))
    #expect(ats.field("fwt_us") == .int(4833))
    #expect(ats.field("same_divisor") == .bool(true))
    #expect(ats.field("ds") == .string("106 only"))
    #expect(ats.field("historical") == .hex([]))
  }

  /// hf_visa_apple_ecp: SELECT PPSE, SELECT AID whose answer the tag chains over two
  /// I-blocks (R(ACK) in between), GPO answered after an S(WTX).
  @Test func visaChainingAndWTX() throws {
    let frames = try PM3Text.frames("hf_visa_apple_ecp.list_7816.txt")
    var stack = OuterStack()
    let steps = frames.map { stack.run($0) }
    func dep(_ i: Int) -> LayerDecode? { steps[i].isoDEP?.decode }
    func handoff(_ i: Int) -> (ProtocolID, LayerUnit)? { steps[i].isoDEP?.handoff }
    #expect(dep(22)?.summary == "RATS FSDI 5 (FSD 64), CID 0")
    #expect(dep(23)?.summary == "ATS FSC 256, FWT 38.7 ms, CID")
    #expect(dep(23)?.field("fwt_us") == .int(38664))
    #expect(stack.context.fsd == 64)
    #expect(dep(24)?.summary == "I-block 0")
    #expect(handoff(24)?.0 == .iso7816)
    #expect(handoff(24)?.1.bytes.prefix(5) == [0x00, 0xA4, 0x04, 0x00, 0x0E])
    #expect(handoff(24)?.1.bytes.count == 20)
    #expect(dep(25)?.summary == "I-block 0")
    #expect(dep(26)?.summary == "I-block 1")
    // Tag chains the answer to SELECT AID.
    #expect(dep(27)?.summary == "I-block (chained, part 1)")
    #expect(dep(27)?.field("chaining") == .bool(true))
    #expect(dep(27)?.field("block_number") == .int(1))
    #expect(handoff(27) == nil)
    #expect(dep(28)?.summary == "R(ACK) 0")
    #expect(steps[28].target == .isoDEP)
    #expect(dep(29)?.summary == "I-block 0 (last of 2 chained parts, 70 bytes)")
    let apdu = try #require(handoff(29))
    #expect(apdu.0 == .iso7816)
    #expect(apdu.1.frameIndex == 29)
    #expect(apdu.1.direction == .tag)
    let expected = Hex.bytes(
      "6f4284 07a0000000031010 a5379f381b9f66049f02069f03069f1a0295055f2a029a039c019f37049f4e14"
        + "bf0c169f5a0531097501 00bf6304df200180 9f0a0400010101 9000")
    #expect(apdu.1.bytes == expected)
    #expect(dep(30)?.summary == "I-block 1")
    #expect(dep(31)?.summary == "S(WTX) request WTXM 1")
    #expect(dep(31)?.field("fwt_temp_us") == .int(38664))
    #expect(dep(32)?.summary == "S(WTX) answer WTXM 1")
    #expect(handoff(31) == nil)
    #expect(dep(33)?.summary == "I-block 1")
    #expect(handoff(33)?.1.bytes == [0x69, 0x86])
    // The whole exchange keeps the block-number rules and FSD 64 (the chained block is 64).
    let codes = steps.flatMap { $0.findings.map(\.code) }
    #expect(!codes.contains("unexpected-block-number"))
    #expect(!codes.contains("frame-exceeds-fsd"))
    #expect(steps[27].a.result.handoff?.1.bytes.count == 62)
  }

  /// nfc-laboratory capture: activation at 106 kbit/s, PPS to 424 kbit/s, DESELECT.
  @Test func ppsAndDeselect() throws {
    let frames = try NFCLabJSON.frames("test_NFC-A_106kbps_424kbps_001.json")
    var stack = OuterStack()
    let steps = frames.map { stack.run($0) }
    #expect(steps[0].aDecode?.summary == "REQA")
    #expect(
      steps[11].isoDEP?.decode?.summary
        == "ATS FSC 64, FWT 77.3 ms, SFGT 604 µs, DS 2/4/8 DR 2/4/8, CID, historical 80")
    #expect(
      steps[12].isoDEP?.decode?.summary
        == "PPS CID 0, DSI 2 (PICC→PCD 424 kbit/s), DRI 2 (PCD→PICC 424 kbit/s)")
    #expect(steps[13].isoDEP?.decode?.summary == "PPS response CID 0")
    #expect(steps[14].isoDEP?.decode?.summary == "S(DESELECT)")
    #expect(steps[15].isoDEP?.decode?.summary == "S(DESELECT) answer")
    #expect(stack.context.isoDEPActive == false)
  }

  /// nfc-laboratory capture that starts inside an ISO-DEP session with CID blocks 0A/0B.
  @Test func cidBlocksMidSession() throws {
    let frames = try NFCLabJSON.frames("test_NFC-A_424kbps_001.json")
    var stack = OuterStack()
    let steps = frames.map { stack.run($0) }
    #expect(steps[0].findings.map(\.code) == ["iso-dep-assumed"])
    #expect(steps[0].isoDEP?.decode?.summary == "I-block 0, CID 0")
    #expect(steps[0].isoDEP?.decode?.field("cid") == .int(0))
    #expect(
      steps[0].isoDEP?.handoff?.1.bytes
        == Hex.bytes("00a4040009a000000397425446 59"))
    #expect(steps[1].isoDEP?.decode?.summary == "I-block 0, CID 0")
    #expect(steps[1].isoDEP?.handoff?.1.bytes == [0x6E, 0x00])
    #expect(steps[2].isoDEP?.decode?.summary == "I-block 1, CID 0")
    #expect(steps[3].isoDEP?.decode?.summary == "I-block 1, CID 0")
    #expect(steps[4].isoDEP?.decode?.summary == "I-block 0, CID 0")
    #expect(steps.allSatisfy { $0.a.crc == .ok })
    #expect(steps.dropFirst().allSatisfy { $0.findings.isEmpty })
  }

  /// Reader→tag chaining (facts §2.6), a wrong tag block number and FSD overflow.
  @Test func readerChainingBlockNumbersAndFSD() throws {
    let activation = try PM3Text.frames("hf_14a_reader_4b_rats.list_14a.txt").prefix(6)
    var frames = Array(activation)
    frames += TestFrame.script([
      (.reader, "e0 20+crc"), (.tag, "04 58 80 02+crc"),
      (.reader, "12 00 d6 00 00 04+crc"), (.tag, "a2+crc"), (.reader, "03 01 02 03 04+crc"),
      (.tag, "03 90 00+crc"),
      (.reader, "02 00 b0 00 00 00+crc"),
      (.tag, "03" + String(repeating: "ab", count: 30) + "9000+crc"),
    ]).enumerated().map { i, f in
      var f = f
      f.index = activation.count + i
      return f
    }
    var stack = OuterStack()
    let steps = frames.map { stack.run($0) }
    let b = activation.count
    #expect(steps[b].isoDEP?.decode?.summary == "RATS FSDI 2 (FSD 32), CID 0")
    #expect(steps[b + 2].isoDEP?.decode?.summary == "I-block (chained, part 1)")
    #expect(steps[b + 3].isoDEP?.decode?.summary == "R(ACK) 0")
    #expect(steps[b + 4].isoDEP?.decode?.summary == "I-block 1 (last of 2 chained parts, 9 bytes)")
    #expect(
      steps[b + 4].isoDEP?.handoff?.1.bytes == [
        0x00, 0xD6, 0x00, 0x00, 0x04, 0x01, 0x02, 0x03, 0x04,
      ])
    #expect(steps[b + 4].isoDEP?.handoff?.1.frameIndex == b + 4)
    #expect(steps[b + 5].isoDEP?.handoff?.1.bytes == [0x90, 0x00])
    #expect(steps[b + 2...b + 5].allSatisfy { $0.findings.isEmpty })
    // Reader I(0) next; the tag answers with block number 1 and a 35-byte frame > FSD 32.
    let last = steps[b + 7].findings
    let number = last.first { $0.code == "unexpected-block-number" }
    #expect(
      number?.message
        == "I-block from the tag has block number 1, expected 0 (ISO/IEC 14443-4 block numbering rules)"
    )
    let fsd = last.first { $0.code == "frame-exceeds-fsd" }
    #expect(fsd?.message == "Tag frame of 35 bytes (with CRC) exceeds FSD 32")
    #expect(fsd?.frames == [b + 7])
  }

  @Test func timingAndSizes() {
    #expect(ISODEPTiming.frameSize(0) == 16)
    #expect(ISODEPTiming.frameSize(8) == 256)
    #expect(ISODEPTiming.frameSize(12) == 4096)
    #expect(ISODEPTiming.frameSize(13) == nil)
    #expect(ISODEPTiming.waitingTimeNs(0) == 302_065)
    #expect(ISODEPTiming.waitingTimeNs(14) == 4_949_031_268)
    #expect(ISODEPTiming.waitingTimeNs(15) == nil)
    #expect(ISODEPBlock.kind(of: 0xA2) == .rACK)
    #expect(ISODEPBlock.kind(of: 0xB3) == .rNAK)
    #expect(ISODEPBlock.kind(of: 0xCA) == .sDeselect)
    #expect(ISODEPBlock.kind(of: 0xFA) == .sWTX)
    #expect(ISODEPBlock.kind(of: 0x1B) == .iBlock)
    #expect(ISODEPBlock.kind(of: 0x30) == nil)
    let block = ISODEPBlock([0x0E, 0x01, 0x12, 0xAA])
    #expect(block?.cid == 1)
    #expect(block?.nad == 0x12)
    #expect(block?.inf == [0xAA])
    #expect(ISODEPBlock([0x0A]) == nil)
  }
}
