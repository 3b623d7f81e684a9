import TestSupport
import Testing

@testable import NFCTrace

/// Frames from `(direction, hex)` with CRC_B appended, of technology `technology`.
func typeB(_ steps: [(Direction, String)], technology: Technology = .nfcB) -> [Frame] {
  steps.enumerated().map { i, step in
    var frame = TestFrame.make(i, step.0, CRC.appendingCRCB(Hex.bytes(step.1) ?? []))
    frame.technology = technology
    return frame
  }
}

/// A REQB with 4 slots answered in slots 1 and 2, ATTRIB of the first tag, SELECT of the NDEF
/// application over ISO-DEP, HLTB (ISO/IEC 14443-3 §7.7–§7.12).
private let activation: [(Direction, String)] = [
  (.reader, "050002"),
  (.tag, "5011223344000000000081 71"),
  (.reader, "15"),
  (.tag, "50aabbccdd000000000051 81"),
  (.reader, "1d1122334400080100"),
  (.tag, "00"),
  (.reader, "0200a4040007d276000085010100"),
  (.tag, "029000"),
  (.reader, "5011223344"),
  (.tag, "00"),
]

@Suite struct ISO14443BLayerTests {
  @Test func activationDecodes() {
    let (out, decoder) = decodeAll(typeB(activation))
    #expect(
      out.map { $0.layers.first?.summary } == [
        "REQB AFI 00, 4 slots",
        "ATQB PUPI 11223344, FSC 256, FWT 38.7 ms, ISO 14443-4, CID",
        "Slot-MARKER slot 2",
        "ATQB PUPI aabbccdd, FSC 64, FWT 77.3 ms, ISO 14443-4, CID",
        "ATTRIB PUPI 11223344, FSDI 8 (FSD 256), CID 0, ISO 14443-4",
        "ATTRIB answer CID 0, MBLI not given",
        "I-block 0", "I-block 0",
        "HLTB PUPI 11223344", "HLTB answer",
      ])
    #expect(out.allSatisfy { $0.frame.crc == .ok && $0.findings.isEmpty })
    #expect(out.map(\.startsActivation) == [true] + Array(repeating: false, count: 9))
    #expect(out[5].completedUID == [0x11, 0x22, 0x33, 0x44])
    #expect(out[6].layers.map(\.protocolID) == [.isoDEP, .iso7816, .type4])
    #expect(out[6].innermost?.name == "SELECT NDEF application")
    #expect(out[7].innermost?.summary == "NDEF application selected")
    #expect(out.allSatisfy { $0.technology == .nfcB })
    // FSC and FWT come from the ATQB of the tag ATTRIB selected, not the last one.
    #expect(decoder.context.fsc == 256)
    #expect(decoder.context.fsd == 256)
    #expect(decoder.context.fwtNs == ISODEPTiming.waitingTimeNs(7))
    #expect(decoder.context.uid == [0x11, 0x22, 0x33, 0x44])
  }

  @Test func atqbFields() throws {
    let atqb = try #require(ATQB(parsing: Hex.bytes("50820de174203819220021851e") ?? []))
    #expect(atqb.pupi == [0x82, 0x0D, 0xE1, 0x74])
    #expect(atqb.applicationData == [0x20, 0x38, 0x19, 0x22])
    #expect(atqb.fsci == 2 && atqb.fsc == 32)
    #expect(atqb.fwi == 8 && atqb.iso14443_4 && atqb.cidSupported && !atqb.nadSupported)
    #expect(atqb.sfgi == 1)
    #expect(ATQB(parsing: [0x50, 1, 2, 3]) == nil)
    #expect(REQB(parsing: [0x05, 0x00, 0x08])?.isWUPB == true)
    #expect(REQB(parsing: [0x05, 0x00, 0x07])?.slots == nil)
    #expect(SlotMarker(parsing: [0xF5])?.slot == 16)
    #expect(SlotMarker(parsing: [0x05]) == nil)
    let attrib = try #require(ATTRIB(parsing: Hex.bytes("1d566473f200050101") ?? []))
    #expect(attrib.fsdi == 5 && attrib.fsd == 64 && attrib.cid == 1 && attrib.iso14443_4)
  }

  /// Proxmark3 traces and pcap 264 do not say the technology: a REQB-shaped frame whose CRC_B
  /// verifies makes the link type B; a REQA makes it type A again.
  @Test func unknownTechnologyIsClaimedByShapeAndCRC() {
    var frames = typeB(activation, technology: .unknown)
    frames.append(TestFrame.make(10, .reader, [0x26], bits: 7))
    frames.append(TestFrame.make(11, .tag, [0x44, 0x00]))
    let (out, _) = decodeAll(frames)
    #expect(out[0].layers.first?.name == "REQB")
    #expect(out[6].innermost?.name == "SELECT NDEF application")
    #expect(out[9].layers.first?.name == "HLTB answer")
    #expect(out[10].layers.first?.name == "REQA")
    #expect(out[11].layers.first?.name == "ATQA")
  }

  @Test func badCRCAndNonTypeBFramesStayRaw() {
    var frames = typeB([(.reader, "050000"), (.reader, "0600")])
    frames[1].data[frames[1].data.count - 1] ^= 0xFF
    let (out, _) = decodeAll(frames)
    #expect(out[1].frame.crc == .bad)
    #expect(out[1].findings.map(\.code) == ["bad-crc"])
    #expect(out[1].findings.first?.message.hasPrefix("CRC_B mismatch") == true)
    // After REQB the activation is in the trace: ST's proprietary INITIATE (06 00) is not taken
    // for an ISO-DEP block.
    #expect(out[1].layers.isEmpty)
    #expect(
      out[1].undecodedReason == "damaged frame (CRC_B does not verify): not decoded as a command")
  }

  /// NFC-Laboratory capture of a type B tag: REQB, ATQB, ATTRIB and its answer are one connect,
  /// with the PUPI as UID (it was all raw before).
  @Test func nfcLabTypeBSession() throws {
    let input = try TraceInput(
      path: TestPaths.shared("public/nfc-laboratory/test_NFC-B_106kbps_001.json"))
    let sessions = try SessionAnalysisRun(importer: try NFCLabImporter(input: input)).sessions
    let s = try #require(sessions.first)
    #expect(sessions.count == 1)
    #expect(s.tag.technology == .nfcB)
    #expect(s.tag.uid == [0x56, 0x64, 0x73, 0xF2])
    #expect(s.tag.product == "ISO-DEP tag (ISO 14443-4)")
    // Frame 4 (`15`) is a Slot-MARKER, no ISO-DEP block: part of the polling, unanswered.
    #expect(s.operations.map(\.kind) == [.connect])
    #expect(s.operations[0].outcome == .ok)
    #expect(s.operations[0].firstFrame == 0 && s.operations[0].lastFrame == 4)
    #expect(s.operations[0].unansweredFrames == [4])
  }

  /// A Type 4 tag over NFC-B, from a source that does not say the technology (pcap 264):
  /// ATTRIB activates ISO-DEP and the NDEF procedures read as over NFC-A.
  @Test func type4TagOverTypeB() throws {
    var frames = typeB(
      activation.prefix(1)
        + [
          (.tag, "500102030400000000008171"), (.reader, "1d0102030400080100"), (.tag, "00"),
          (.reader, "0200a4040007d276000085010100"), (.tag, "029000"),
          (.reader, "0300a4000c02e103"), (.tag, "039000"),
          (.reader, "0200b000000f"), (.tag, "02000f20003b00340406e10400ff00009000"),
          (.reader, "0300a4000c02e104"), (.tag, "039000"),
          (.reader, "0200b0000002"), (.tag, "0200109000"),
          (.reader, "0300b0000210"), (.tag, "03d1010c55046578616d706c652e636f6d9000"),
        ], technology: .unknown)
    for i in frames.indices { frames[i].timeNs = Int64(i) * 1_000_000 }
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    let s = try #require(sessions.first)
    #expect(sessions.count == 1)
    #expect(s.info.technology == .nfcB)
    #expect(s.tag.uid == [0x01, 0x02, 0x03, 0x04])
    #expect(s.tag.product == "Type 4 tag")
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    #expect(s.operations.allSatisfy { $0.outcome == .ok })
    #expect(s.ndefStatus?.status == .readWrite && s.ndefStatus?.capacity == 253)
    #expect(
      s.operations[2].detail("message") == .hex(Hex.bytes("d1010c55046578616d706c652e636f6d") ?? [])
    )
  }

  /// With several tags answering a REQB, the tag identity keeps the ATQB of the tag ATTRIB
  /// selected (11223344), not the last one (aabbccdd).
  @Test func reportKeepsTheSelectedTagsATQB() throws {
    var frames = typeB(activation)
    for i in frames.indices { frames[i].timeNs = Int64(i) * 1_000_000 }
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions.first)
    #expect(s.tag.uid == [0x11, 0x22, 0x33, 0x44])
    #expect(s.tag.atqb.map { Hex.string($0) } == "501122334400000000008171")
    // HLTB's answer opens no operation of its own.
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
  }

  /// ATTRIB assigns the CID and starts ISO-DEP block numbering (ISO/IEC 14443-4 §7.5.3): a
  /// block with another CID, or a first reader I-block numbered 1, is flagged.
  @Test func attribAssignsCIDAndBlockNumbering() {
    let (out, _) = decodeAll(
      typeB([
        (.reader, "050000"), (.tag, "5011223344000000000081 71"),
        (.reader, "1d1122334400080101"), (.tag, "01"),
        (.reader, "0b0200a4040007d276000085010100"),
      ]))
    #expect(out[4].findings.map(\.code).sorted() == ["unexpected-block-number", "unexpected-cid"])
    #expect(
      out[4].findings.first { $0.code == "unexpected-cid" }?.message
        == "Block carries CID 2, RATS or ATTRIB assigned CID 1")
  }

  /// ATTRIB over an open ISO-DEP link is a new selection (it is no valid PCB), and a tag
  /// whose ATQB says it does not speak ISO 14443-4 gets no ISO-DEP decoding after ATTRIB.
  @Test func attribReselectsAndProprietaryTagsStayRaw() {
    let (out, decoder) = decodeAll(
      typeB([
        (.reader, "050000"), (.tag, "5011223344000000000081 71"),
        (.reader, "1d1122334400080100"), (.tag, "00"),
        (.reader, "1d1122334400080100"), (.tag, "00"),
        (.reader, "050000"), (.tag, "50aabbccdd000000000080 71"),
        (.reader, "1daabbccdd00080100"), (.tag, "00"),
        (.reader, "0200a4040007d276000085010100"),
      ]))
    #expect(out[4].layers.first?.name == "ATTRIB")
    #expect(out[5].layers.first?.name == "ATTRIB answer")
    #expect(out[10].layers.isEmpty)
    #expect(
      out[10].undecodedReason
        == "proprietary command: the tag selected by ATTRIB does not speak ISO 14443-4")
    #expect(!decoder.context.isoDEPActive)
  }

  /// A field off powers every tag down: the next frames of a source without technology are
  /// not taken for type B for want of a CRC_B (a 1-byte ACK is type A again); likewise after
  /// a frame whose CRC_A verifies.
  @Test func fieldOffAndCRCAEndTheTypeBLink() {
    var frames = typeB([(.reader, "050000")], technology: .unknown)
    frames.append(
      Frame(
        index: 1, timeNs: 0, direction: .event, event: .fieldOff, data: [],
        location: SourceLocation(file: "test", unit: "frame", record: 2, offset: 0)))
    frames.append(
      TestFrame.make(2, .reader, CRC.appendingCRCA([0xA2, 0x04, 0x03, 0x00, 0xD1, 0x01])))
    frames.append(TestFrame.make(3, .tag, [0x0A]))
    frames.append(TestFrame.make(4, .reader, [0x05, 0x00, 0x00, 0x71, 0xFF]))
    frames.append(
      TestFrame.make(5, .reader, CRC.appendingCRCA([0xA2, 0x05, 0x55, 0x01, 0x02, 0x03])))
    frames.append(TestFrame.make(6, .tag, [0x0A]))
    let (out, _) = decodeAll(frames)
    #expect(out[2].innermost?.name == "WRITE")
    #expect(out[3].innermost?.name == "ACK")
    #expect(out[4].layers.first?.name == "REQB")
    #expect(out[5].innermost?.name == "WRITE")
    #expect(out[6].innermost?.name == "ACK")
  }

  /// The frames of the shared Xerox capture (Proxmark3 `hf 14b`), decoded.
  private func decodedXerox() throws -> [DecodedFrame] {
    let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_14b_xerox_info.trace"))
    var importer = try Proxmark3BinaryImporter(input: input)
    var decoder = FrameDecoder()
    var out: [DecodedFrame] = []
    while let f = try importer.next() { out.append(decoder.decode(f)) }
    return out
  }

  /// A type B sniff whose timestamps step back on many records warns once, then says further
  /// ones are not listed (it gave one warning per record).
  @Test func stepsBackInTimeAreWarnedOnce() throws {
    let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_14b_xerox_info.trace"))
    var importer = try Proxmark3BinaryImporter(input: input)
    while try importer.next() != nil {}
    #expect(importer.warnings.map(\.location?.record) == [39, 100])
    #expect(importer.warnings.first?.message.hasPrefix("timestamp 560 is earlier") == true)
    #expect(
      importer.warnings.last?.message
        == "further warnings of this kind (time backwards) are not listed")
  }

  /// Xerox's proprietary type B link: once ATTRIB made the link type B, its 1-byte frames are
  /// raw for want of a CRC_B instead of being read as Type 2 commands.
  @Test func shortFramesOfATypeBLinkStayRaw() throws {
    let out = try decodedXerox()
    #expect(out.count == 190)
    #expect(out[100].layers.first?.name == "ATTRIB")
    #expect(out[116].frame.data == [0xB1])
    #expect(out[116].layers.isEmpty)
    #expect(
      out[116].undecodedReason
        == "1 byte(s) without CRC_B: not an ISO 14443-3 type B command or ISO-DEP block "
        + "(every one ends with CRC_B)")
    // Outside ISO-DEP a proprietary 1-byte frame is no cut frame.
    #expect(out[116].findings.isEmpty)
  }

  /// The same capture before any activation: its first frames verify CRC_B alone (Xerox's own
  /// request), so the 1-byte frames after them are type B too, not Type 2 commands of 1 byte
  /// flagged frame-too-short (154 of them).
  @Test func shortFramesAfterACRCBFrameAreTypeB() throws {
    let out = try decodedXerox()
    #expect(out[0].frame.data == [0x0D, 0x37, 0x21, 0x92, 0xF2])
    #expect(out[2].frame.data == [0xB1])
    #expect(out[2].frame.crc == .absent)
    #expect(out[2].layers.isEmpty)
    #expect(out[2].undecodedReason?.hasPrefix("1 byte(s) without CRC_B") == true)
    #expect(out.filter { $0.findings.contains { $0.code == "frame-too-short" } }.count == 0)
    #expect(out.filter { $0.layers.contains { $0.name.hasPrefix("Type 2") } }.isEmpty)
  }

  /// A type A poll ends the CRC_B link: REQA's 7-bit frame, then a type A anticollision.
  @Test func typeAPollEndsTheCRCBLink() {
    var decoder = FrameDecoder()
    _ = decoder.decode(TestFrame.make(0, .reader, [0x0D, 0x37, 0x21, 0x92, 0xF2]))
    let b1 = decoder.decode(TestFrame.make(1, .reader, [0xB1]))
    #expect(b1.undecodedReason?.hasPrefix("1 byte(s) without CRC_B") == true)
    let reqa = decoder.decode(TestFrame.make(2, .reader, [0x26], bits: 7))
    #expect(reqa.layers.first?.name == "REQA")
    let atqa = decoder.decode(TestFrame.make(3, .tag, [0x44, 0x00]))
    #expect(atqa.layers.first?.name == "ATQA")
  }

  /// A Proxmark3 binary trace (no technology in the records): WUPB + ATQB decode.
  @Test func proxmarkTypeBTrace() throws {
    let sessions = try analyzeProxmark("public/proxmark3/hf_14b_reader.trace")
    let s = try #require(sessions.first)
    #expect(s.info.technology == .nfcB)
    #expect(s.tag.atqb.map { Hex.string($0) } == "50820de17420381922002185")
    #expect(s.operations.map(\.kind) == [.connect])
    // The PUPI is the type B tag's UID, before any ATTRIB names it.
    #expect(s.tag.uidString == "82:0D:E1:74")
  }

  /// An ATTRIB naming a PUPI no ATQB gave is flagged, and the connect it leaves unanswered
  /// says why (it was "the tag did not answer", blamed on the tag's position).
  @Test func attribWithAnotherPUPI() throws {
    let sessions = try analyzeProxmark("public/proxmark3/hf_14b_cryptorf_select.trace")
    let s = try #require(sessions.first)
    #expect(s.operations.first?.outcome == .failed)
    #expect(
      s.operations.first?.reason
        == "the tag did not answer ATTRIB (frame 3), which named a PUPI no ATQB gave: a PICC "
        + "answers only an ATTRIB carrying its own PUPI (ISO/IEC 14443-3 §7.10.2)")
    var decoder = FrameDecoder()
    let frames = [
      TestFrame.make(0, .reader, [0x05, 0x00, 0x00, 0x71, 0xFF]),
      TestFrame.make(
        1, .tag,
        [0x50, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x22, 0x00, 0x10, 0x51, 0x38, 0x7A]),
      TestFrame.make(2, .reader, [0x1D, 0, 0, 0, 0, 0, 0x08, 0x01, 0x00, 0xBB, 0x9C]),
      TestFrame.make(3, .reader, [0x1D, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x08, 0x01, 0x00]),
    ]
    let out = frames.map { decoder.decode($0) }
    #expect(out[2].findings.map(\.code) == ["attrib-unknown-pupi"])
    #expect(
      out[2].findings.first?.message.hasPrefix(
        "ATTRIB names PUPI 00000000, which no ATQB of this activation gave (ATQB PUPI ffffffff)")
        == true)
  }
}

@Suite struct ISO14443BSecondTagTests {
  /// After HLTB of the first tag, the reader selects the second tag of the same slotted round
  /// with ATTRIB of its PUPI (ISO/IEC 14443-3 §7.8–§7.10): a new activation, a session of its
  /// own with its own UID (both tags were one session under the first UID).
  @Test func attribOfAnotherPUPIStartsItsSession() throws {
    let frames = typeB(
      activation + [
        (.reader, "1daabbccdd00080100"),
        (.tag, "00"),
        (.reader, "0200a4040007d276000085010100"),
        (.tag, "026a82"),
      ])
    let (out, _) = decodeAll(frames)
    #expect(out[10].startsActivation)
    #expect(out[11].completedUID == [0xAA, 0xBB, 0xCC, 0xDD])
    let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)).sessions
    #expect(sessions.map(\.tag.uid) == [[0x11, 0x22, 0x33, 0x44], [0xAA, 0xBB, 0xCC, 0xDD]])
    #expect(sessions.map(\.info.firstFrame) == [0, 10])
    // Its ATQB came in the first session's slotted round: it still describes the second tag.
    #expect(sessions[1].tag.atqb == Hex.bytes("50aabbccdd0000000000 5181"))
  }
}
