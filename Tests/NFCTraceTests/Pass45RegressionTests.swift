import TestSupport
import Testing

@testable import NFCTrace

/// Pass 45: fixes of the 2026-12-07 (second) session outside the Type 5 procedures.
@Suite struct Pass45RegressionTests {
  /// A WRITE retried after a silence got through, but a later WRITE of the same writeNDEF was
  /// refused: `command-retried` no longer says the operation survived.
  @Test func retriedCommandInAFailedWriteDoesNotSayItSurvived() throws {
    var b = TraceBuilder()
    b.event(.fieldOn)
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(4, [0x03, 0x00, 0xD1, 0x01])
    b.write(5, [0x05, 0x54, 0x02, 0x65], .nak(0x00))
    let report = try b.diagnose()
    let retried = try #require(report.findings.first { $0.code == "command-retried" })
    #expect(
      retried.message.hasSuffix(
        "a later attempt got through. The writeNDEF operation still ended failed (its other "
          + "findings say why), and the radio link was marginal."))
    var ok = TraceBuilder()
    ok.event(.fieldOn)
    ok.activateType2(version: ntag213Version)
    ok.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    ok.write(4, [0x03, 0x00, 0xFE, 0x00], .none)
    ok.write(4, [0x03, 0x00, 0xFE, 0x00])
    let fine = try #require(try ok.diagnose().findings.first { $0.code == "command-retried" })
    #expect(fine.message.hasSuffix("The operation survived, but the radio link was marginal."))
  }

  /// A Proxmark3 `.trace` does not say its frames' technology: an ISO 15693 INVENTORY (its
  /// CRC verifying, its length what its flags and mask length call for) opens NFC-V, so the
  /// `hf 15` reader trace decodes and its tag has a UID (it stayed raw).
  @Test func proxmark3TraceOfISO15693Decodes() throws {
    let path = TestPaths.shared("public/proxmark3/hf_15_reader.trace")
    var importer = try Proxmark3BinaryImporter(input: try TraceInput(path: path))
    var frames: [Frame] = []
    while let f = try importer.next() { frames.append(f) }
    let out = decodeAll(frames).0
    #expect(
      out.map { $0.innermost?.summary } == [
        "INVENTORY 1 slot(s), no mask",
        "INVENTORY response UID E0:07:80:98:3E:79:60:83 (Texas Instruments)",
      ])
    let s = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    #expect(s.first?.tag.technology == .nfcV)
  }

  /// What opens NFC-V: an INVENTORY's exact shape, with a CRC that verifies.
  @Test func iso15693InventoryShape() {
    func withCRC(_ b: [UInt8]) -> [UInt8] { CRC.appendingCRCB(b) }
    #expect(FrameDecoder.isISO15693Inventory(withCRC([0x26, 0x01, 0x00])))
    // AFI flag: the AFI byte before the mask length; a 12-bit mask takes 2 bytes.
    #expect(FrameDecoder.isISO15693Inventory(withCRC([0x36, 0x01, 0x00, 0x0C, 0x12, 0x34])))
    #expect(!FrameDecoder.isISO15693Inventory(withCRC([0x36, 0x01, 0x00, 0x0C, 0x12])))
    // REQB (05 00 08) and a bad CRC are not INVENTORY; the RFU flag b8 set is not either.
    #expect(!FrameDecoder.isISO15693Inventory(withCRC([0x05, 0x00, 0x08])))
    #expect(!FrameDecoder.isISO15693Inventory([0x26, 0x01, 0x00, 0xF6, 0x0B]))
    #expect(!FrameDecoder.isISO15693Inventory(withCRC([0xA6, 0x01, 0x00])))
    // REQB with AFI 01h (`05 01 00`) and an ATTRIB whose PUPI starts 01h are type B's.
    #expect(!FrameDecoder.isISO15693Inventory(withCRC([0x05, 0x01, 0x00])))
    #expect(!FrameDecoder.isISO15693Inventory(withCRC([0x1D, 0x01, 0xAA, 0x28, 0xBB, 0, 8, 1, 0])))
  }

  /// An INVENTORY no tag answered, then a type B activation, in a source that does not say
  /// the technology (a reader polling NFC-V, then NFC-B): the REQB ends the NFC-V link, so the
  /// type B frames are type B's.
  @Test func typeBAfterAnUnansweredInventoryStaysTypeB() {
    let steps: [(Direction, [UInt8])] = [
      (.reader, CRC.appendingCRCB([0x26, 0x01, 0x00])),
      (.reader, CRC.appendingCRCB([0x05, 0x00, 0x08])),
      (.tag, CRC.appendingCRCB([0x50, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, 0x80, 0x71, 0x71])),
      (.reader, CRC.appendingCRCB([0x1D, 0x11, 0x22, 0x33, 0x44, 0x00, 0x08, 0x01, 0x00])),
    ]
    let frames = steps.enumerated().map { i, s in
      TestFrame.make(i, s.0, s.1, time: Int64(i) * 1_000_000)
    }
    let out = decodeAll(frames).0
    #expect(out[0].frame.technology == .nfcV)
    #expect(out[1...].allSatisfy { $0.frame.technology != .nfcV })
    #expect(out[1].innermost?.name == "WUPB")
  }
}
