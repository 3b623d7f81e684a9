import Foundation
import NFCTrace
import TestSupport
import Testing

// MARK: - Test input helpers (shared with ISODEPLayerTests)

/// Frames read from a Proxmark3 `trace list` text in ../shared/traces/derived/proxmark3-text
/// (tokens `26(7)` give bit counts, `03!` parity errors; continuation lines are joined).
/// The CRC is left `.unchecked`, as an importer would.
enum PM3Text {
  static func frames(_ name: String) throws -> [Frame] {
    let path = TestPaths.shared("derived/proxmark3-text/" + name)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var frames: [Frame] = []
    for line in text.split(separator: "\n") {
      let cols = line.split(separator: "|", omittingEmptySubsequences: false)
      guard cols.count >= 5 else { continue }
      let start = cols[0].trimmingCharacters(in: .whitespaces)
      let src = cols[2].trimmingCharacters(in: .whitespaces)
      if src == "Rdr" || src == "Tag" {
        frames.append(
          TestFrame.make(
            frames.count, src == "Rdr" ? .reader : .tag, [], time: Int64(start) ?? 0))
      } else if !(src.isEmpty && start.isEmpty && !frames.isEmpty) {
        continue
      }
      for token in cols[3].split(separator: " ") {
        var t = Substring(token)
        if t.hasSuffix("!") {
          frames[frames.count - 1].parityErrors.append(frames[frames.count - 1].data.count)
          t = t.dropLast()
        }
        if let paren = t.firstIndex(of: "(") {
          frames[frames.count - 1].bits = Int(t[t.index(after: paren)...].dropLast())
          t = t[..<paren]
        }
        if let b = UInt8(t, radix: 16) { frames[frames.count - 1].data.append(b) }
      }
    }
    return frames
  }
}

/// Frames of an NFC-Laboratory JSON capture (frameType 258 = reader, 259 = tag), technology
/// NFC-A, no bit counts.
enum NFCLabJSON {
  static func frames(_ name: String) throws -> [Frame] {
    let url = URL(fileURLWithPath: TestPaths.shared("public/nfc-laboratory/" + name))
    let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
    let list = root?["frames"] as? [[String: Any]] ?? []
    return list.enumerated().map { i, f in
      let hex = (f["frameData"] as? String) ?? ""
      let dir: Direction = (f["frameType"] as? Int) == 258 ? .reader : .tag
      var frame = TestFrame.make(i, dir, Hex.bytes(hex) ?? [])
      frame.technology = .nfcA
      return frame
    }
  }
}

enum TestFrame {
  static func make(
    _ index: Int, _ direction: Direction, _ data: [UInt8], bits: Int? = nil, time: Int64 = 0,
    crc: CRCStatus = .unchecked
  ) -> Frame {
    Frame(
      index: index, timeNs: time, direction: direction, data: data, bits: bits, crc: crc,
      location: SourceLocation(file: "test", unit: "frame", record: index + 1, offset: 0))
  }

  /// Frames from `(direction, hex, bits)`; `+crc` at the end of the hex appends CRC_A.
  static func script(_ steps: [(Direction, String)], bits: [Int: Int] = [:]) -> [Frame] {
    steps.enumerated().map { i, step in
      var hex = step.1
      let addCRC = hex.hasSuffix("+crc")
      if addCRC { hex = String(hex.dropLast(4)) }
      var bytes = Hex.bytes(hex) ?? []
      if addCRC { bytes = CRC.appendingCRCA(bytes) }
      return make(i, step.0, bytes, bits: bits[i])
    }
  }
}

/// The ISO 14443-3A and ISO-DEP layers wired like FrameDecoder, exposing the handoffs.
struct OuterStack {
  struct Step {
    var a: FrameLayerResult
    var isoDEP: LayerResult?
    var target: ProtocolID? { a.result.handoff?.0 }
    var aDecode: LayerDecode? { a.result.decode }
    var findings: [Finding] { a.result.findings + (isoDEP?.findings ?? []) }
  }
  var typeA = ISO14443ALayer()
  var isoDEP = ISODEPLayer()
  var context = LinkContext()

  mutating func run(_ frame: Frame) -> Step {
    let a = typeA.decode(frame: frame, context: &context)
    if a.newActivation { isoDEP.reset() }
    var dep: LayerResult?
    if let (id, unit) = a.result.handoff, id == .isoDEP {
      dep = isoDEP.decode(unit, context: &context)
    }
    return Step(a: a, isoDEP: dep)
  }

  static func run(_ frames: [Frame]) -> ([Step], LinkContext) {
    var stack = OuterStack()
    let steps = frames.map { stack.run($0) }
    return (steps, stack.context)
  }
}

func decodeAll(_ frames: [Frame]) -> ([DecodedFrame], FrameDecoder) {
  var decoder = FrameDecoder()
  let out = frames.map { decoder.decode($0) }
  return (out, decoder)
}

// MARK: - ISO 14443-3A tests

@Suite struct ISO14443ALayerTests {
  @Test func mfuSimTwoLevelAnticollision() throws {
    let frames = try PM3Text.frames("hf_14a_mfu-sim.list_14a.txt")
    let (out, _) = decodeAll(frames)
    func a(_ i: Int) -> String? { out[i].layer(.iso14443A)?.summary }
    #expect(frames[0].bits == 7)
    #expect(a(0) == "REQA")
    #expect(out[0].frame.crc == .absent)
    #expect(a(1) == "ATQA 0x0044 (UID size double, bit-frame anticollision)")
    #expect(out[1].frame.crc == .absent)
    #expect(out[2].layer(.appleECP)?.summary == "ECP1")
    #expect(out[2].frame.crc == .ok)
    #expect(out[2].expectsResponse == false)
    #expect(a(5) == "ANTICOLL CL1")
    #expect(out[5].frame.crc == .absent)
    #expect(a(6) == "UID CL1 88 04 66 d6 (BCC ok)")
    #expect(out[6].frame.crc == .absent)
    #expect(a(7) == "SELECT CL1 88 04 66 d6")
    #expect(out[7].frame.crc == .ok)
    #expect(a(8) == "SAK 0x04 (UID not complete)")
    #expect(out[8].frame.crc == .ok)
    #expect(a(9) == "ANTICOLL CL2")
    #expect(a(10) == "UID CL2 5f 00 50 9c (BCC ok)")
    #expect(a(11) == "SELECT CL2 5f 00 50 9c")
    #expect(a(12) == "SAK 0x00 (UID complete, not ISO 14443-4: Type 2 / MIFARE Ultralight)")
    #expect(out[12].layer(.iso14443A)?.field("level") == .string("CL2"))
    // READ 2 and its answer: not 14443-3, CRC checked and stripped before the handoff.
    #expect(out[13].layer(.iso14443A) == nil)
    #expect(out[13].frame.crc == .ok)
    #expect(out[14].frame.crc == .ok)
    // HLTA gets no answer by protocol.
    #expect(a(16) == "HLTA")
    #expect(out[16].expectsResponse == false)
    #expect(a(17) == "WUPA")
    // The GET_VERSION answer of ten 00 bytes has a wrong CRC_A.
    #expect(out[24].frame.crc == .bad)
    let bad = out[24].findings.first { $0.code == "bad-crc" }
    #expect(bad?.message == "CRC_A mismatch: expected 3a 55, got 00 00")
    #expect(bad?.severity == .warning)
    #expect(bad?.frames == [24])
    #expect(bad?.offset == 8)
    #expect(out.allSatisfy { $0.frame.crc != .unchecked })
  }

  @Test func mfuSimContextAndHandoffs() throws {
    let frames = try PM3Text.frames("hf_14a_mfu-sim.list_14a.txt")
    var stack = OuterStack()
    let steps = frames.prefix(25).map { stack.run($0) }
    #expect(stack.context.uid == [0x04, 0x66, 0xD6, 0x5F, 0x00, 0x50, 0x9C])
    #expect(stack.context.uidComplete)
    #expect(stack.context.sak == 0x00)
    #expect(stack.context.atqa == 0x0044)
    #expect(steps[13].target == .type2)
    #expect(steps[13].a.result.handoff?.1.bytes == [0x30, 0x02])
    #expect(steps[14].target == .type2)
    #expect(steps[14].a.result.handoff?.1.bytes.count == 16)
    #expect(steps[15].target == .type2)  // Ultralight C AUTH step 1 (1A 00)
    #expect(steps[23].target == .type2)  // GET_VERSION 60
    #expect(steps[24].a.result.handoff?.1.bytes == [UInt8](repeating: 0, count: 8))
    #expect(steps[17].a.newActivation)
  }

  @Test func partialUIDWhileSelecting() throws {
    let frames = try PM3Text.frames("hf_14a_mfu-sim.list_14a.txt")
    var stack = OuterStack()
    for f in frames.prefix(9) { _ = stack.run(f) }
    // After the CL1 SAK (cascade bit) the UID has its first three bytes, not complete.
    #expect(stack.context.uid == [0x04, 0x66, 0xD6])
    #expect(stack.context.uidComplete == false)
    #expect(stack.context.sak == nil)
  }

  @Test func desfireSevenByteUIDAndRATSHandoff() throws {
    let frames = try PM3Text.frames("hf_14a_reader_7b_rats.list_14a.txt")
    let (steps, context) = OuterStack.run(frames)
    #expect(steps[0].aDecode?.summary == "WUPA")
    #expect(steps[4].a.newActivation)
    #expect(
      steps[5].aDecode?.summary
        == "ATQA 0x0344 (UID size double, bit-frame anticollision, proprietary 0x03)")
    #expect(steps[5].aDecode?.field("proprietary") == .int(3))
    #expect(steps[7].aDecode?.summary == "UID CL1 88 04 8d 24 (BCC ok)")
    // With the cascade bit set b6 is not coded (ISO/IEC 14443-3 §6.5.3.4; spec audit).
    #expect(steps[9].aDecode?.summary == "SAK 0x24 (UID not complete)")
    #expect(steps[9].aDecode?.field("iso14443_4") == nil)
    #expect(steps[11].aDecode?.summary == "UID CL2 32 27 3b 80 (BCC ok)")
    #expect(
      steps[13].aDecode?.summary
        == "SAK 0x20 (UID complete, ISO 14443-4: ISO-DEP / Type 4)"
    )
    #expect(steps[14].target == .isoDEP)
    #expect(steps[14].a.crc == .ok)
    #expect(steps[14].a.result.handoff?.1.bytes == [0xE0, 0x80])
    #expect(steps[15].target == .isoDEP)
    #expect(steps[15].a.result.handoff?.1.bytes == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
    #expect(context.uid == [0x04, 0x8D, 0x24, 0x32, 0x27, 0x3B, 0x80])
    #expect(context.sak == 0x20)
    #expect(context.isoDEPActive)
  }

  @Test func parityErrorAndSingleSizeUID() throws {
    let frames = try PM3Text.frames("hf_14a_reader_4b_rats.list_14a.txt")
    #expect(frames[1].parityErrors == [1])
    let (steps, context) = OuterStack.run(frames)
    let parity = steps[1].findings.first { $0.code == "parity-error" }
    #expect(parity?.offset == 1)
    #expect(parity?.frames == [1])
    #expect(
      steps[1].aDecode?.summary
        == "ATQA 0x0304 (UID size single, bit-frame anticollision, proprietary 0x03)")
    #expect(steps[3].aDecode?.summary == "UID CL1 a1 a2 a3 a4 (BCC ok)")
    #expect(context.uid == [0xA1, 0xA2, 0xA3, 0xA4])
    #expect(context.uidComplete)
  }

  /// Sources without bit counts (the Proxmark3 `-t 7816` list, like pcap) give `52` and `26`
  /// as plain bytes; ECP2 frames and an HLTA in the middle of polling.
  @Test func appleECPAndRequestsWithoutBitCounts() throws {
    let frames = try PM3Text.frames("hf_visa_apple_ecp.list_7816.txt")
    #expect(frames[1].bits == nil)
    let (steps, _) = OuterStack.run(frames)
    #expect(steps[0].aDecode?.summary == "ECP2 (Transit)")
    #expect(steps[0].aDecode?.protocolID == .appleECP)
    #expect(steps[0].aDecode?.field("terminal_type") == .hex([0x01]))
    #expect(steps[0].a.crc == .ok)
    #expect(steps[1].aDecode?.summary == "WUPA")
    #expect(steps[1].a.crc == .absent)
    #expect(steps[4].aDecode?.summary == "ATQA 0x0004 (UID size single, bit-frame anticollision)")
    #expect(steps[6].aDecode?.summary == "UID CL1 08 df bf f2 (BCC ok)")
    #expect(steps[7].aDecode?.summary == "REQA")
    #expect(steps[12].aDecode?.summary == "SELECT CL1 08 df bf f2")
    #expect(steps[13].aDecode?.field("sak") == .hex([0x20]))
    #expect(steps[14].aDecode?.summary == "HLTA")
    #expect(steps[14].a.expectsResponse == false)
  }

  @Test func badBCCAndBitFrameAnticollision() {
    let frames = TestFrame.script(
      [
        (.reader, "26"), (.tag, "4400"),
        (.reader, "9325 08"), (.tag, "80 04 66 d6 3c"),
        (.reader, "9320"), (.tag, "88 04 66 d6 00"),
      ], bits: [0: 7, 2: 5])
    let (steps, _) = OuterStack.run(frames)
    #expect(steps[2].aDecode?.summary == "ANTICOLL CL1 (5 bits known)")
    #expect(steps[2].aDecode?.field("nvb_bits") == .int(5))
    #expect(steps[3].aDecode?.summary == "UID CL1 88 04 66 d6 (BCC ok)")
    #expect(steps[5].aDecode?.summary == "UID CL1 88 04 66 d6 (BCC bad: expected 3c)")
    let bcc = steps[5].findings.first { $0.code == "bad-bcc" }
    #expect(bcc?.severity == .error)
    #expect(bcc?.message == "BCC mismatch: expected 3c, got 00 (XOR of 88 04 66 d6)")
    #expect(steps[5].a.crc == .absent)
  }

  /// `A2` is a Type 2 WRITE after a Type 2 activation and an R(ACK) after an ATS.
  @Test func a2DependsOnState() throws {
    let t2t = try PM3Text.frames("hf_14a_mfu-sim.list_14a.txt")
    var frames = Array(t2t[17...22])  // WUPA … SAK 00
    frames += TestFrame.script([
      (.reader, "a2 04 03 0d d1 01+crc"), (.tag, "0a"), (.reader, "a2 05 09 55 01 6e+crc"),
      (.tag, "0a"),
    ])
    frames[frames.count - 3].bits = 4  // Proxmark-style 4-bit ACK; the last one has no bit count
    var (steps, _) = OuterStack.run(frames)
    #expect(steps[6].target == .type2)
    #expect(steps[6].a.result.handoff?.1.bytes == [0xA2, 0x04, 0x03, 0x0D, 0xD1, 0x01])
    #expect(steps[7].target == .type2)
    #expect(steps[7].a.crc == .absent)
    #expect(steps[7].a.result.handoff?.1.bits == 4)
    #expect(steps[9].target == .type2)
    #expect(steps[9].a.crc == .absent)
    #expect(steps[9].findings.isEmpty)

    let desfire = try PM3Text.frames("hf_14a_reader_7b_rats.list_14a.txt")
    frames = desfire + TestFrame.script([(.reader, "02 90 60 00 00 00+crc"), (.tag, "a2+crc")])
    (steps, _) = OuterStack.run(frames)
    let n = desfire.count
    #expect(steps[n + 1].target == .isoDEP)
    #expect(steps[n + 1].isoDEP?.decode?.summary == "R(ACK) 0")
    #expect(steps[n + 1].a.crc == .ok)
  }

  @Test func mifareClassicRouting() {
    let frames = TestFrame.script([
      (.reader, "52"), (.tag, "0400"), (.reader, "9370 a1a2a3a4 04+crc"), (.tag, "08+crc"),
      (.reader, "6004+crc"), (.tag, "0102 0304"), (.reader, "3004+crc"),
    ])
    let (steps, context) = OuterStack.run(frames)
    #expect(
      steps[3].aDecode?.summary == "SAK 0x08 (UID complete, not ISO 14443-4: MIFARE Classic 1K)")
    #expect(context.sak == 0x08)
    #expect(steps[4].target == .mifareClassic)
    #expect(steps[4].a.result.handoff?.1.bytes == [0x60, 0x04])
    // The tag nonce NT carries no CRC.
    #expect(steps[5].target == .mifareClassic)
    #expect(steps[5].a.crc == .absent)
    #expect(steps[6].target == .mifareClassic)
  }

  /// hf_mf_hid_sio_sim: AUTH 60 00, plain nonce NT (no CRC), then Crypto1 ciphertext whose
  /// parity and CRC cannot be checked.
  @Test func mifareClassicCrypto1Session() throws {
    let frames = try PM3Text.frames("hf_mf_hid_sio_sim.list_14a.txt")
    let (steps, _) = OuterStack.run(frames)
    #expect(steps[10].target == .mifareClassic)
    #expect(steps[10].a.crc == .ok)
    #expect(steps[11].a.crc == .absent)
    #expect(steps[11].a.result.handoff?.1.bytes == [0x1E, 0xD2, 0x4A, 0x6A])
    #expect(frames[12].parityErrors == [0, 5, 7])
    #expect(steps[12...39].allSatisfy { $0.a.crc == .encrypted && $0.findings.isEmpty })
    #expect(steps[12...39].allSatisfy { $0.target == .mifareClassic })
    // A new WUPA ends the encrypted session.
    #expect(steps[40].aDecode?.summary == "WUPA")
    #expect(steps[41].a.crc == .absent)
    #expect(
      steps[45].aDecode?.summary == "SAK 0x08 (UID complete, not ISO 14443-4: MIFARE Classic 1K)")
  }

  @Test func encryptedFramesKeepParityAndCRC() {
    var stack = OuterStack()
    stack.context.encrypted = true
    var frame = TestFrame.make(0, .reader, [0x12, 0x34, 0x56, 0x78])
    frame.parityErrors = [2]
    let step = stack.run(frame)
    #expect(step.a.crc == .encrypted)
    #expect(step.findings.isEmpty)
    #expect(step.target == .mifareClassic)
    #expect(step.a.result.handoff?.1.bytes == [0x12, 0x34, 0x56, 0x78])
    // A WUPA is never encrypted and ends the Crypto1 session.
    let wupa = stack.run(TestFrame.make(1, .reader, [0x52], bits: 7))
    #expect(wupa.aDecode?.summary == "WUPA")
    #expect(stack.context.encrypted == false)
  }

  @Test func notCapturedCRCIsKept() {
    let frames = [
      TestFrame.make(0, .reader, [0x26], bits: 7, crc: .notCaptured),
      TestFrame.make(1, .tag, [0x44, 0x00], crc: .notCaptured),
      TestFrame.make(2, .reader, [0x93, 0x70, 0x88, 0x04, 0x66, 0xD6, 0x3C], crc: .notCaptured),
      TestFrame.make(3, .tag, [0x04], crc: .notCaptured),
      TestFrame.make(4, .reader, [0x30, 0x04], crc: .notCaptured),
    ]
    let (steps, _) = OuterStack.run(frames)
    // REQA and ATQA have no CRC on air (ISO/IEC 14443-3 §6.4): absent, nothing was stripped.
    #expect(steps.map(\.a.crc) == [.absent, .absent, .notCaptured, .notCaptured, .notCaptured])
    #expect(steps[2].aDecode?.summary == "SELECT CL1 88 04 66 d6")
    #expect(steps[3].aDecode?.summary == "SAK 0x04 (UID not complete)")
    #expect(steps[4].a.result.handoff?.1.bytes == [0x30, 0x04])
  }

  @Test func otherTechnologiesStayRawAndTypeBIsDecoded() {
    var b = TestFrame.make(0, .reader, [0x05, 0x00, 0x08, 0x39, 0x73])
    b.technology = .nfcB
    var f = TestFrame.make(1, .reader, [0x06, 0x00, 0xFF, 0xFF, 0x01, 0x00])
    f.technology = .nfcF
    let (out, _) = decodeAll([b, f])
    // Type B has its own layer now (ISO14443BLayerTests).
    #expect(out[0].layers.map(\.name) == ["WUPB"])
    #expect(out[0].frame.crc == .ok)
    // NFC-F has its own decode (FeliCaMessage); this frame came without its CRC-F.
    #expect(out[1].layers.map(\.name) == ["SENSF_REQ"])
    #expect(out[1].frame.crc == .unchecked)
  }

  @Test func atqaAndSAKValues() {
    let atqa = ATQA(airBytes: [0x44, 0x00])
    #expect(atqa?.value == 0x0044)
    #expect(atqa?.uidSize == .double)
    #expect(ATQA(value: 0x0002).uidSize.length == 4)
    #expect(ATQA(value: 0x0081).uidSize == .triple)
    #expect(ATQA(value: 0x0003).bitFrameAnticollision == false)
    #expect(SAK(0x24).cascade && !SAK(0x24).iso14443_4 && SAK(0x20).iso14443_4)
    #expect(SAK(0x60).iso18092)
    #expect(NVB(0x80) == nil)
    #expect(NVB(0x78) == nil)
    #expect(NVB(0x25)?.knownBits == 5)
    #expect(BCC.compute([0x88, 0x04, 0x8D, 0x24]) == 0x25)
  }
}
