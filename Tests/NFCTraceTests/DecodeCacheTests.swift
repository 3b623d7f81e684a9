import Testing

@testable import NFCTrace

private func frame(_ index: Int, _ direction: Direction, _ hex: String) -> Frame {
  Frame(
    index: index, timeNs: Int64(index) * 1_000_000, direction: direction,
    data: Hex.bytes(hex) ?? [],
    location: SourceLocation(file: "t", unit: "record", record: index + 1, offset: 0))
}

/// Feeds units to one protocol layer, as the decoder stack would, and returns their decodes.
private struct LayerDriver<Layer: ProtocolLayer> {
  var layer: Layer
  var context = LinkContext()

  init(_ layer: Layer) { self.layer = layer }

  mutating func run(_ direction: Direction, _ hex: String, bits: Int? = nil) -> LayerDecode? {
    let unit = LayerUnit(
      direction: direction, bytes: Hex.bytes(hex) ?? [], bits: bits, frameIndex: 0, timeNs: 0)
    return layer.decode(unit, context: &context).decode
  }
}

/// Decodes remembered by their bytes must still differ where the state around them differs,
/// and findings (which name frames) must never come from the cache.
@Suite struct DecodeCacheTests {
  @Test func sameUIDBytesAtTwoCascadeLevelsDecodeByLevel() {
    var stack = OuterStack()
    let frames = [
      frame(0, .reader, "52"), frame(1, .tag, "44 00"),
      frame(2, .reader, "93 20"), frame(3, .tag, "88 04 a1 b2 9f"),
      frame(4, .reader, "95 20"), frame(5, .tag, "88 04 a1 b2 9f"),
    ]
    let steps = frames.map { stack.run($0) }
    #expect(steps[3].aDecode?.summary == "UID CL1 88 04 a1 b2 (BCC ok)")
    #expect(steps[5].aDecode?.summary == "UID CL2 88 04 a1 b2 (BCC ok)")
    #expect(steps[5].aDecode?.field("level") == .string("CL2"))
  }

  @Test func cachedSelectStillReportsTheBadBCCOfItsOwnFrame() {
    var stack = OuterStack()
    // SELECT CL1 with a wrong BCC (9e instead of 9f), twice: the finding names each frame.
    let hex = Hex.string(CRC.appendingCRCA(Hex.bytes("93 70 88 04 a1 b2 9e") ?? []), separator: " ")
    _ = stack.run(frame(0, .reader, "52"))
    _ = stack.run(frame(1, .tag, "44 00"))
    let first = stack.run(frame(2, .reader, hex))
    _ = stack.run(frame(3, .reader, "52"))
    _ = stack.run(frame(4, .tag, "44 00"))
    let second = stack.run(frame(5, .reader, hex))
    #expect(first.aDecode?.summary == second.aDecode?.summary)
    #expect(first.findings.filter { $0.code == "bad-bcc" }.map(\.frames) == [[2]])
    #expect(second.findings.filter { $0.code == "bad-bcc" }.map(\.frames) == [[5]])
  }

  @Test func type2CommandDecodeFollowsTheSelectedSector() {
    var driver = LayerDriver(Type2Layer())
    #expect(driver.run(.reader, "30 04")?.field("sector") == nil)
    _ = driver.run(.reader, "c2 ff")
    _ = driver.run(.tag, "0a", bits: 4)
    _ = driver.run(.reader, "01 00 00 00")
    #expect(driver.run(.reader, "30 04")?.field("sector") == .int(1))
    driver.layer.reset()
    #expect(driver.run(.reader, "30 04")?.field("sector") == nil)
  }

  /// ACK/NAK decodes are remembered by the command's name and page and the code: each answer
  /// still names its own command and page, and the side effects of the ACK (the two-step
  /// commands) happen every time.
  @Test func cachedAckAndNakNameTheirOwnCommand() {
    var driver = LayerDriver(Type2Layer())
    var answers: [LayerDecode?] = []
    for page in ["04", "05", "04"] {
      _ = driver.run(.reader, "a2 \(page) 01 02 03 04")
      answers.append(driver.run(.tag, "0a", bits: 4))
    }
    #expect(answers.map { $0?.field("page") } == [.int(4), .int(5), .int(4)])
    #expect(answers.allSatisfy { $0?.name == "ACK" && $0?.field("command") == .string("WRITE") })
    _ = driver.run(.reader, "a2 04 01 02 03 04")
    let nak = driver.run(.tag, "00", bits: 4)
    #expect(nak?.name == "NAK")
    #expect(nak?.summary == "NAK 0x0 (invalid argument or page)")
    #expect(nak?.field("page") == .int(4))
    // COMPATIBILITY_WRITE: each cached ACK still opens the second step (16 data bytes).
    for page in ["06", "06"] {
      _ = driver.run(.reader, "a0 \(page)")
      #expect(driver.run(.tag, "0a", bits: 4)?.field("command") == .string("COMPATIBILITY_WRITE"))
      let part2 = driver.run(.reader, "00 11 22 33 00 00 00 00 00 00 00 00 00 00 00 00")
      #expect(part2?.name == "COMPATIBILITY_WRITE")
      #expect(part2?.field("part") == .int(2))
      #expect(part2?.field("page") == .int(6))
    }
    // An ACK without a command (the capture started after it).
    driver.layer.reset()
    #expect(driver.run(.tag, "0a", bits: 4)?.field("command") == nil)
  }

  /// GET_VERSION answers are remembered by their 8 bytes: each tap still sets the layer's
  /// version and the link's tag family, and another product decodes as its own.
  @Test func cachedGetVersionAnswerFollowsItsBytes() {
    var driver = LayerDriver(Type2Layer())
    _ = driver.run(.reader, "60")
    let ntag215 = driver.run(.tag, "00 04 04 02 01 00 11 03")
    _ = driver.run(.reader, "60")
    let ntag213 = driver.run(.tag, "00 04 04 02 01 00 0f 03")
    #expect(ntag215?.field("product") == .string("NTAG215"))
    #expect(ntag213?.field("product") == .string("NTAG213"))
    #expect(driver.context.tagFamilyHint == "NTAG213")
    driver.layer.reset()
    driver.context = LinkContext()
    _ = driver.run(.reader, "60")
    #expect(driver.run(.tag, "00 04 04 02 01 00 11 03") == ntag215)
    #expect(driver.context.tagFamilyHint == "NTAG215")
  }

  /// RATS and ATS decodes are remembered by their bytes: a second activation with other
  /// parameters decodes its own.
  @Test func cachedRATSAndATSFollowTheirBytes() {
    var driver = LayerDriver(ISODEPLayer())
    let rats1 = driver.run(.reader, "e0 80")
    let ats1 = driver.run(.tag, "06 77 77 71 02 80")
    driver.layer.reset()
    let rats2 = driver.run(.reader, "e0 50")
    let ats2 = driver.run(.tag, "05 72 80 40 02")
    driver.layer.reset()
    #expect(driver.run(.reader, "e0 80") == rats1)
    #expect(driver.run(.tag, "06 77 77 71 02 80") == ats1)
    #expect(rats1 != rats2)
    #expect(ats1 != ats2)
    #expect(rats2?.field("fsdi") == .int(5))
    #expect(driver.context.fsc == ATS(Hex.bytes("06 77 77 71 02 80") ?? []).fsc)
  }

  @Test func tableIsEmptiedAtItsLimitAndStaysRight() {
    var cache = DecodeCache<Int>()
    var made = 0
    for round in 0..<2 {
      for i in 0..<(DecodeCache<Int>.limit + 10) {
        let d = cache.decode(i) {
          made += 1
          return LayerDecode(.type2, "READ", "READ page \(i)")
        }
        #expect(d.summary == "READ page \(i)", "round \(round)")
      }
    }
    // Every key was made once per fill of the table: more than once in all, never wrong.
    #expect(made > DecodeCache<Int>.limit + 10)
    #expect(ShortBytesKey(kind: 1, [UInt8](repeating: 0, count: 17)) == nil)
    #expect(ShortBytesKey(kind: 1, [0x01]) != ShortBytesKey(kind: 1, [0x01, 0x00]))
    #expect(ShortBytesKey(kind: 1, [0x01]) != ShortBytesKey(kind: 2, [0x01]))
  }
}
