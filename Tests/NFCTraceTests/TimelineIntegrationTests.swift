import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Runs the whole pipeline over a file with the given importer.
func decodeTrace(_ path: String, format: TraceFormat) throws -> (
  frames: [DecodedFrame], sessions: [SessionInfo]
) {
  var pipeline = FramePipeline(importer: try format.open(try TraceInput(path: path)))
  var frames: [DecodedFrame] = []
  while let f = try pipeline.next() { frames.append(f) }
  return (frames, pipeline.sessions)
}

@Suite struct TimelineIntegrationTests {
  let mfuSim = TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace")

  @Test func mfuSimAnticollisionReadsAndBadCRC() throws {
    let (frames, sessions) = try decodeTrace(mfuSim, format: Proxmark3BinaryImporter.format)
    #expect(frames.count == 306)
    #expect(frames.map(\.frame.index) == Array(0..<306))
    // Session 1: REQA, ATQA, two cascade levels, READ page 2.
    let names = frames[3...12].map { $0.innermost?.name ?? "-" }
    #expect(
      names == [
        "REQA", "ATQA", "ANTICOLLISION", "UID", "SELECT", "SAK", "ANTICOLLISION", "UID", "SELECT",
        "SAK",
      ])
    #expect(frames[12].completedUID == [0x04, 0x66, 0xD6, 0x5F, 0x00, 0x50, 0x9C])
    #expect(sessions[1].uid == [0x04, 0x66, 0xD6, 0x5F, 0x00, 0x50, 0x9C])
    #expect(frames[13].innermost?.summary == "READ page 2")
    #expect(frames[13].response == .answeredBy(14))
    // GET_VERSION answered with ten zero bytes: the CRC fails.
    #expect(frames[23].innermost?.name == "GET_VERSION")
    #expect(frames[24].frame.crc == .bad)
    #expect(frames[24].findings.map(\.code) == ["bad-crc"])
    #expect(frames.filter { $0.frame.crc == .bad }.map(\.frame.index) == [24, 125, 223])
    // READ page 3 returns the CC and the start of the NDEF TLV.
    #expect(frames[46].innermost?.field("data") == .hex(Array(frames[46].frame.data.prefix(16))))
    #expect(frames[46].frame.data.prefix(6) == [0xE1, 0x10, 0x12, 0x00, 0x03, 0x43])
  }

  @Test func visaChainingAndWTX() throws {
    let path = TestPaths.shared("public/proxmark3/hf_visa_apple_ecp.trace")
    let (frames, _) = try decodeTrace(path, format: Proxmark3BinaryImporter.format)
    #expect(frames.count == 34)
    #expect(frames[27].innermost?.summary == "I-block (chained, part 1)")
    #expect(frames[28].innermost?.summary == "R(ACK) 0")
    // The reassembled response: 68 data bytes + SW 9000 handed to the APDU layer.
    #expect(frames[29].layer(.iso7816)?.field("data_length") == .int(68))
    #expect(frames[29].layer(.iso7816)?.field("sw") == .string("9000"))
    #expect(frames[31].innermost?.summary == "S(WTX) request WTXM 1")
    #expect(frames[33].layer(.iso7816)?.field("sw") == .string("6986"))
  }

  @Test func binaryAndTextListingDecodeAlike() throws {
    let text = TestPaths.shared("derived/proxmark3-text/hf_14a_mfu-sim.list_14a.txt")
    let a = try decodeTrace(mfuSim, format: Proxmark3BinaryImporter.format).frames
    let b = try decodeTrace(text, format: Proxmark3TextImporter.format).frames
    #expect(a.count == b.count)
    #expect(a.map(\.frame.data) == b.map(\.frame.data))
    #expect(a.map { $0.layers.map(\.summary) } == b.map { $0.layers.map(\.summary) })
    #expect(a.map(\.frame.crc) == b.map(\.frame.crc))
    #expect(a.map(\.session) == b.map(\.session))
  }

  @Test func everySharedTraceImports() throws {
    let fm = FileManager.default
    let registry = FormatRegistry(BuiltinFormats.all)
    var checked = 0
    for dir in ["public/proxmark3", "public/nfc-laboratory", "derived/proxmark3-text"] {
      let folder = TestPaths.shared(dir)
      for name in try fm.contentsOfDirectory(atPath: folder).sorted()
      where name.hasSuffix(".trace") || (name.hasSuffix(".json") && dir.contains("laboratory"))
        || name.hasSuffix(".txt")
      {
        let input = try TraceInput(path: folder + "/" + name)
        let format = try registry.detect(input)
        let (frames, _) = try decodeTrace(folder + "/" + name, format: format)
        #expect(!frames.isEmpty, "\(name)")
        checked += 1
      }
    }
    #expect(checked == 24 + 19 + 22)
  }

  @Test func mifareClassicCiphertextIsNeverACommand() throws {
    let path = TestPaths.shared("public/proxmark3/hf_mf_hid_sio_sim.trace")
    let (frames, _) = try decodeTrace(path, format: Proxmark3BinaryImporter.format)
    guard let auth = frames.firstIndex(where: { $0.innermost?.name.hasPrefix("AUTH") == true })
    else {
      Issue.record("no AUTH")
      return
    }
    // The nonce exchange ({nr, ar} and {at}) is named as such; everything after it is ciphertext.
    let after = frames[(auth + 4)...].prefix { !$0.startsActivation }
    #expect(frames[auth + 3].innermost?.name == "AUTH (at)")
    #expect(after.count >= 3)
    // Ciphertext, or a nested authentication's encrypted nonces (AUTH (nt) marked `nested`).
    let nested: Set<String> = ["AUTH (nt)", "AUTH (nr, ar)", "AUTH (at)"]
    for f in after {
      #expect(f.frame.crc == .encrypted)
      #expect(f.layers.allSatisfy { $0.protocolID == .mifareClassic })
      #expect(f.innermost?.name == "ciphertext" || nested.contains(f.innermost?.name ?? ""))
    }
    #expect(after.filter { $0.innermost?.field("nested") == .bool(true) }.count == 2)
  }
}

@Suite struct ReaderChipLogTests {
  @Test func libnfcActivationGivesTheSessionItsUIDAndWritesTheirACK() throws {
    let path = TestPaths.traces("libnfc/acr122u_t2t_read_write.log")
    let (frames, sessions) = try decodeTrace(path, format: LibnfcLogImporter.format)
    #expect(sessions.first?.uid == [0x04, 0xA8, 0xCE, 0x6A, 0x5D, 0x2D, 0x80])
    #expect(frames[2].innermost?.name == "ATQA")
    #expect(frames[2].startsActivation)
    #expect(frames[3].innermost?.name == "SAK")
    #expect(frames[8].innermost?.summary == "WRITE page 11 ← 67 58 63 51")
    #expect(frames[9].innermost?.summary == "ACK (consumed by the reader chip)")
    #expect(frames[10].response == .unanswered)
  }
}
