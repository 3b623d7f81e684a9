import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// ISO/IEC 15693-3 requests and responses (NFC-V) and the NFC Forum Type 5 Tag CC.
@Suite struct ISO15693LayerTests {
  /// NFC-V frames with their ISO 15693 CRC appended (`+crc`) or as given.
  private func nfcV(_ steps: [(Direction, String)]) -> [Frame] {
    steps.enumerated().map { i, step in
      let hex = step.1.replacingOccurrences(of: "+crc", with: "")
      var bytes = Hex.bytes(hex.replacingOccurrences(of: " ", with: "")) ?? []
      if step.1.hasSuffix("+crc") { bytes = CRC.appendingCRCB(bytes) }
      var f = TestFrame.make(i, step.0, bytes, time: Int64(i) * 1_000_000)
      f.technology = .nfcV
      return f
    }
  }

  private func summaries(_ steps: [(Direction, String)]) -> [String?] {
    decodeAll(nfcV(steps)).0.map { $0.innermost?.summary ?? $0.undecodedReason }
  }

  /// The real NFC-Laboratory capture of a phone reading an ICODE SLIX: INVENTORY twice, GET
  /// SYSTEM INFORMATION, the CC in block 0, the data area, the block security status.
  @Test func realCaptureOfAnICODESLIX() throws {
    let path = TestPaths.shared("public/nfc-laboratory/test_NFC-V_26kbps_001.json")
    var importer = try NFCLabImporter(input: try TraceInput(path: path))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    let out = decodeAll(frames).0
    #expect(out[0].innermost?.summary == "INVENTORY 1 slot(s), no mask")
    #expect(out[0].startsActivation)
    #expect(
      out[1].innermost?.summary
        == "INVENTORY response UID E0:04:01:14:B1:A3:DD:03 (NXP Semiconductors)")
    #expect(out[1].completedUID == [0xE0, 0x04, 0x01, 0x14, 0xB1, 0xA3, 0xDD, 0x03])
    #expect(
      out[5].innermost?.summary
        == "GET SYSTEM INFORMATION response UID E0:04:01:14:B1:A3:DD:03 (NXP Semiconductors), 28 blocks of 4 bytes"
    )
    #expect(
      out[6].innermost?.summary
        == "READ SINGLE BLOCK 0, addressed to E0:04:01:14:B1:A3:DD:03 (NXP Semiconductors)")
    #expect(
      out[7].innermost?.summary
        == "READ SINGLE BLOCK response block 0: 4 byte(s); CC: T5T 1.0, read always, write "
        + "always, T5T area 112 bytes, READ MULTIPLE BLOCKS supported")
    #expect(out[8].innermost?.field("block_count") == .int(27))
    #expect(out[9].innermost?.summary == "READ MULTIPLE BLOCKS response blocks 1–27: 108 byte(s)")
    #expect(
      out[11].innermost?.summary
        == "GET MULTIPLE BLOCK SECURITY STATUS response: 28 block(s), 0 locked")
    #expect(out.allSatisfy { $0.undecodedReason == nil && $0.findings.isEmpty })
    let s = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    #expect(s.count == 1)
    #expect(s.first?.tag.uid == [0xE0, 0x04, 0x01, 0x14, 0xB1, 0xA3, 0xDD, 0x03])
    #expect(s.first?.operations.map(\.kind) == [.connect, .connect, .queryNDEFStatus])
  }

  /// A refused WRITE SINGLE BLOCK names its error code (ISO/IEC 15693-3 Table 7); a write
  /// acknowledged with flags 00 is `ok`.
  @Test func writeAndErrorResponses() {
    #expect(
      summaries([
        (.reader, "02 21 05 03 0b d1 01+crc"), (.tag, "01 12+crc"),
        (.reader, "02 21 06 11 22 33 44+crc"), (.tag, "00+crc"),
        (.reader, "02 20 7f+crc"), (.tag, "01 10+crc"),
      ]) == [
        "WRITE SINGLE BLOCK 5 ← 03 0b d1 01",
        "WRITE SINGLE BLOCK response: error 12h (block locked: its content cannot be changed)",
        "WRITE SINGLE BLOCK 6 ← 11 22 33 44", "WRITE SINGLE BLOCK response: ok",
        "READ SINGLE BLOCK 127",
        "READ SINGLE BLOCK response: error 10h (block not available (does not exist))",
      ])
  }

  /// With the option flag each block of a READ answer starts with its security status byte
  /// (§10.3.1): the data leaves them out, `security_status` holds them.
  @Test func readWithOptionFlagSplitsSecurityStatus() {
    let out = decodeAll(
      nfcV([
        (.reader, "42 23 00 01+crc"), (.tag, "00 01 e1 40 0e 01 00 03 00 fe 00+crc"),
      ])
    ).0
    let d = out[1].innermost
    #expect(out[0].innermost?.summary == "READ MULTIPLE BLOCKS 0–1, option flag")
    #expect(d?.field("security_status") == .hex([0x01, 0x00]))
    #expect(d?.field("data") == .hex([0xE1, 0x40, 0x0E, 0x01, 0x03, 0x00, 0xFE, 0x00]))
    #expect(
      d?.summary
        == "READ MULTIPLE BLOCKS response blocks 0–1: 8 byte(s); CC: T5T 1.0, read always, "
        + "write always, T5T area 112 bytes, READ MULTIPLE BLOCKS supported")
  }

  /// The 8-byte CC (byte 2 00h: MLEN in bytes 6–7), magic E2h, read-only; an extended read
  /// with 2-byte block numbers (LSB first).
  @Test func eightByteCCAndExtendedRead() {
    #expect(
      summaries([
        (.reader, "0a 33 00 00 01 00+crc"), (.tag, "00 e2 43 00 01 00 00 03 ff+crc"),
      ]) == [
        "EXTENDED READ MULTIPLE BLOCKS 0–1",
        "EXTENDED READ MULTIPLE BLOCKS response blocks 0–1: 8 byte(s); CC: T5T 1.0, read "
          + "always, write never (read-only), T5T area 8184 bytes (8-byte CC), 2-byte block "
          + "addresses, READ MULTIPLE BLOCKS supported",
      ])
  }

  /// INVENTORY with AFI and 16 slots; STAY QUIET expects no answer; NXP and other makers'
  /// custom commands are named by their IC manufacturer code.
  @Test func inventoryStayQuietAndCustomCommands() {
    let out = decodeAll(
      nfcV([
        (.reader, "16 01 07 00+crc"),
        (.reader, "22 02 03 dd a3 b1 14 01 04 e0+crc"),
        (.reader, "02 a5 04+crc"), (.reader, "02 a0 02 00+crc"),
        (.reader, "02 b2 04+crc"), (.tag, "00 12 34+crc"),
      ])
    ).0
    #expect(out[0].innermost?.summary == "INVENTORY 16 slot(s), AFI 07h, no mask")
    #expect(out[0].startsActivation && out[0].completedUID == nil)
    #expect(
      out[1].innermost?.summary
        == "STAY QUIET, addressed to E0:04:01:14:B1:A3:DD:03 (NXP Semiconductors)")
    #expect(!out[1].expectsResponse)
    #expect(out[1].completedUID == [0xE0, 0x04, 0x01, 0x14, 0xB1, 0xA3, 0xDD, 0x03])
    #expect(out[2].innermost?.name == "EAS ALARM")
    #expect(out[3].innermost?.summary == "custom command A0h (IC manufacturer 02h)")
    #expect(out[3].innermost?.field("parameters") == .hex([0x00]))
    #expect(out[5].innermost?.summary == "GET RANDOM NUMBER response: ok, 12 34")
  }

  /// Frames too short for their fields stay raw with the byte offset where a field is
  /// missing; a frame whose source took the CRC off (a reader chip) is decoded whole.
  @Test func shortFramesAndFramesWithoutCRC() {
    var frames = nfcV([(.reader, "22 20 03 dd a3+crc"), (.reader, "02+crc"), (.tag, "01")])
    frames.append(TestFrame.make(3, .reader, [0x02, 0x20, 0x04], crc: .notCaptured))
    frames[3].technology = .nfcV
    frames.append(TestFrame.make(4, .tag, [0x00, 0xAA, 0xBB, 0xCC, 0xDD], crc: .notCaptured))
    frames[4].technology = .nfcV
    let out = decodeAll(frames).0
    #expect(
      out[0].undecodedReason
        == "ISO 15693 frame ends at byte 2 where the 8-byte UID (address flag set) should be")
    #expect(out[0].layers.isEmpty)
    #expect(
      out[1].undecodedReason
        == "ISO 15693 frame ends at byte 1 where flags and command code should be")
    #expect(out[2].frame.crc == .absent)
    #expect(out[3].innermost?.summary == "READ SINGLE BLOCK 4")
    #expect(out[4].innermost?.summary == "READ SINGLE BLOCK response block 4: aa bb cc dd")
  }

  /// A proprietary command (E0h–FFh) carries no IC manufacturer code; a block command without
  /// its block number stays raw with the offset where it ends, and its response is one to an
  /// undecoded request.
  @Test func proprietaryAndMissingParameters() {
    #expect(
      summaries([
        (.reader, "02 e0+crc"), (.reader, "02 21+crc"), (.tag, "00+crc"),
        (.reader, "0a 33 00+crc"),
      ]) == [
        "proprietary command E0h",
        "ISO 15693 frame ends at byte 2 where the block number and data should be",
        "ISO 15693 response to an undecoded request",
        "ISO 15693 frame ends at byte 3 where the first block and count should be",
      ])
  }

  /// An INVENTORY while a type A tag is being activated (its ATQA seen) opens no activation:
  /// the reader polls NFC-V between the type A steps.
  @Test func inventoryDuringTypeAActivationStartsNothing() {
    var frames = TestFrame.script([(.reader, "52"), (.tag, "4400")], bits: [0: 7])
    var inventory = TestFrame.make(2, .reader, CRC.appendingCRCB([0x26, 0x01, 0x00]))
    inventory.technology = .nfcV
    frames.append(inventory)
    let out = decodeAll(frames).0
    #expect(out[2].innermost?.name == "INVENTORY")
    #expect(!out[2].startsActivation)
  }
}
