import Foundation
import NFCTrace
import Testing

/// Hunt of the importers of 2026-12-04c, PN53x readers (libnfc logs, USB captures): a Type 2
/// COMPATIBILITY_WRITE the chip runs itself, exchanges with one of two listed targets, and
/// libnfc lines under journalctl's prefix.
@Suite struct PN53xPass29Tests {
  /// A PN53x normal information frame around `tfiPD` (PN533 user manual §6.2).
  private static func frame(_ tfiPD: [UInt8]) -> [UInt8] {
    let len = UInt8(tfiPD.count)
    let dcs = 0 &- tfiPD.reduce(0, &+)
    return [0, 0, 0xFF, len, 0 &- len] + tfiPD + [dcs, 0]
  }

  /// `frame(tfiPD)` as hex, as libnfc logs it.
  private static func pn53x(_ tfiPD: [UInt8]) -> String {
    Hex.string(frame(tfiPD), separator: " ")
  }

  /// A pn53x_usb log of `exchanges` (PN53x command and answer, without TFI), each line
  /// preceded by `prefix`.
  private static func log(_ exchanges: [([UInt8], [UInt8])], prefix: String = "") -> TraceInput {
    let text = exchanges.flatMap { command, answer in
      [
        prefix + "debug\tlibnfc.driver.pn53x_usb\tTX: " + pn53x([0xD4] + command),
        prefix + "debug\tlibnfc.driver.pn53x_usb\tRX: " + pn53x([0xD5] + answer),
      ]
    }.joined(separator: "\n")
    return TraceInput(path: "pn53x.log", bytes: Data(text.utf8))
  }

  private static func frames(_ input: TraceInput) throws -> ([Frame], [String]) {
    var importer = try LibnfcLogImporter(input: input)
    var frames: [Frame] = []
    while let frame = try importer.next() { frames.append(frame) }
    return (frames, importer.warnings.map(\.message))
  }

  private static func sessions(_ input: TraceInput) throws -> [SessionAnalysis] {
    try SessionAnalysisRun(importer: LibnfcLogImporter(input: input)).sessions
  }

  private static let uid1: [UInt8] = [0x04, 0xA8, 0xCE, 0x6A, 0x5D, 0x2D, 0x80]
  private static let uid2: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
  /// InListPassiveTarget of one 106 kbit/s type A target, Tg 1, SENS_RES 00 44, SAK `sak`.
  private static func list(sak: UInt8) -> ([UInt8], [UInt8]) {
    ([0x4A, 0x01, 0x00], [0x4B, 0x01, 0x01, 0x00, 0x44, sak, 0x07] + uid1)
  }
  private static let record: [UInt8] = [
    0x03, 0x0D, 0xD1, 0x01, 0x09, 0x55, 0x04, 0x61, 0x2E, 0x63, 0x6F, 0x6D, 0x2F, 0x78, 0x79, 0xFE,
  ]

  // MARK: - 1. COMPATIBILITY_WRITE run by the chip

  /// `nfc-mfultralight w`: InDataExchange `A0 page data(16)` to a SAK 00 target, answered
  /// `D5 41 00` — the chip ran both steps (PN533 user manual, InDataExchange "MIFARE Write 16
  /// bytes"). It was one raw 18-byte frame ("needs 2 bytes, got 18") and no write.
  @Test func compatibilityWriteToAType2TargetIsBothParts() throws {
    let input = Self.log([
      Self.list(sak: 0x00),
      ([0x40, 0x01, 0xA0, 0x04] + Self.record, [0x41, 0x00]),
      ([0x40, 0x01, 0x30, 0x04], [0x41, 0x00] + Self.record),
    ])
    let (frames, warnings) = try Self.frames(input)
    #expect(warnings == [])
    #expect(
      frames.map(\.data) == [
        [0x44, 0x00], [0x00], [0xA0, 0x04], [], Self.record, [], [0x30, 0x04], Self.record,
      ])
    #expect(frames.map(\.direction) == [.tag, .tag, .reader, .tag, .reader, .tag, .reader, .tag])
    #expect(frames[3].sourceFlags == [ReaderChipFlag.emptyAnswer])
    #expect(frames[5].sourceFlags == [ReaderChipFlag.emptyAnswer])
    #expect(frames[4].sourceFlags == [])
    let (decoded, _) = decodeAll(frames)
    #expect(
      decoded[2...5].map { $0.layers.last?.summary } == [
        "COMPATIBILITY_WRITE page 4", "ACK (consumed by the reader chip)",
        "COMPATIBILITY_WRITE page 4 ← 03 0d d1 01 (16-byte frame, first 4 stored)",
        "ACK (consumed by the reader chip)",
      ])
    let s = try #require(try Self.sessions(input).first)
    #expect(s.operations.map(\.kind) == [.connect, .writeNDEF, .readNDEF])
    #expect(s.operations[1].outcome == .ok)
    #expect(s.memory.type2End.known(16, 4) == [0x03, 0x0D, 0xD1, 0x01])
  }

  /// A chip error to the write: part 1 stays unanswered and the warning says the chip does not
  /// tell which step failed; nothing of part 2 is shown.
  @Test func failedCompatibilityWriteShowsPartOneOnly() throws {
    let input = Self.log([
      Self.list(sak: 0x00), ([0x40, 0x01, 0xA0, 0x05] + Self.record, [0x41, 0x01]),
    ])
    let (frames, warnings) = try Self.frames(input)
    #expect(frames.map(\.data) == [[0x44, 0x00], [0x00], [0xA0, 0x05]])
    #expect(
      warnings == [
        "InDataExchange status 0x01: timeout, the tag did not answer (MIFARE Write 16 bytes to a "
          + "Type 2 tag, run by the chip as COMPATIBILITY_WRITE: it does not say whether part 1 "
          + "or part 2 failed)"
      ])
  }

  /// To a MIFARE Classic (SAK 08) the same command stays the one-frame WRITE the Classic
  /// layer decodes as carried out by the chip.
  @Test func mifareClassicWriteStaysOneFrame() throws {
    let input = Self.log([
      Self.list(sak: 0x08), ([0x40, 0x01, 0xA0, 0x05] + Self.record, [0x41, 0x00]),
    ])
    let (frames, _) = try Self.frames(input)
    #expect(frames.map(\.data) == [[0x44, 0x00], [0x08], [0xA0, 0x05] + Self.record, []])
    let (decoded, _) = decodeAll(frames)
    #expect(
      decoded[2].layers.last?.summary
        == "WRITE block 5 ← 030dd101095504612e636f6d2f7879fe (carried out by the reader chip)")
  }

  // MARK: - 2. Two targets

  /// InListPassiveTarget with NbTg 2 (`Tg SENS_RES SEL_RES NFCIDLength NFCID1` each).
  private static let listTwo: ([UInt8], [UInt8]) = (
    [0x4A, 0x02, 0x00],
    [0x4B, 0x02, 0x01, 0x00, 0x44, 0x00, 0x07] + uid1 + [0x02, 0x00, 0x44, 0x00, 0x07] + uid2
  )

  /// Tg 1 is the activation; Tg 2 is one frame of its target data, shown, not an activation;
  /// exchanges with Tg 1 stay in Tg 1's session (they went to Tg 2's UID).
  @Test func secondTargetIsShownButExchangesWithTg1StayWithIt() throws {
    let input = Self.log([Self.listTwo, ([0x40, 0x01, 0x30, 0x03], [0x41, 0x00] + Self.record)])
    let (frames, warnings) = try Self.frames(input)
    #expect(warnings == [])
    #expect(
      frames.map(\.data).prefix(3) == [
        [0x44, 0x00], [0x00], [0x02, 0x00, 0x44, 0x00, 0x07] + Self.uid2,
      ])
    #expect(frames[2].sourceFlags == [ReaderChipFlag.targetInfo, ReaderChipFlag.listedTarget])
    let (decoded, _) = decodeAll(frames)
    let listed = try #require(decoded[2].layers.last)
    #expect(listed.name == "listed target")
    #expect(
      listed.summary
        == "Tg 2 listed by the reader chip: ATQA 0x0044, SAK 0x00, UID 04:11:22:33:44:55:66 "
        + "(another target; exchanges addressed to it show its activation first)")
    #expect(listed.field("tg") == .int(2))
    #expect(listed.field("uid") == .hex(Self.uid2))
    let s = try Self.sessions(input)
    #expect(s.map(\.tag.uid) == [Self.uid1])
    #expect(s[0].operations.map(\.kind) == [.connect, .queryNDEFStatus])
  }

  /// An exchange with Tg 2, then with Tg 1: each addressed target's activation is shown again
  /// before its exchange (flagged `pn53x-target-selected`), so each goes to its own UID.
  @Test func exchangesGoToTheTargetTheirTgNames() throws {
    let cc2: [UInt8] = [0xE1, 0x10, 0x12, 0x00] + Array(repeating: 0, count: 12)
    let cc1: [UInt8] = [0xE1, 0x10, 0x3E, 0x00] + Array(repeating: 0, count: 12)
    let input = Self.log([
      Self.listTwo,
      ([0x40, 0x02, 0x30, 0x03], [0x41, 0x00] + cc2),
      ([0x40, 0x01, 0x30, 0x03], [0x41, 0x00] + cc1),
    ])
    let (frames, _) = try Self.frames(input)
    #expect(
      frames.map(\.data) == [
        [0x44, 0x00], [0x00], [0x02, 0x00, 0x44, 0x00, 0x07] + Self.uid2,
        [0x44, 0x00], [0x00], [0x30, 0x03], cc2,
        [0x44, 0x00], [0x00], [0x30, 0x03], cc1,
      ])
    #expect(
      frames[3].sourceFlags
        == [ReaderChipFlag.targetInfo, ReaderChipFlag.targetSelected, "uid=04112233445566"])
    #expect(frames[8].sourceFlags == [ReaderChipFlag.targetInfo, ReaderChipFlag.targetSelected])
    let s = try Self.sessions(input)
    #expect(s.map(\.tag.uid) == [Self.uid1, Self.uid2, Self.uid1])
    #expect(
      s.map { $0.operations.map(\.kind) } == [
        [.connect], [.connect, .queryNDEFStatus], [.connect, .queryNDEFStatus],
      ])
    let (decoded, _) = decodeAll(frames)
    #expect(
      decoded[3].layers.last?.summary
        == "ATQA 0x0044 (UID size double, bit-frame anticollision) (listed by the reader chip, "
        + "selected again for the exchange addressed to it)")
  }

  /// InAutoPoll with two type A targets (`Type Len TargetData` each) is split the same way; an
  /// InDataExchange to a Tg the listing did not give is reported.
  @Test func inAutoPollTargetsAndAnUnlistedTg() throws {
    let t1: [UInt8] = [0x01, 0x00, 0x44, 0x00, 0x07] + Self.uid1
    let t2: [UInt8] = [0x02, 0x00, 0x44, 0x00, 0x07] + Self.uid2
    let input = Self.log([
      ([0x60, 0x14, 0x02, 0x20, 0x10], [0x61, 0x02, 0x10, 0x0C] + t1 + [0x10, 0x0C] + t2),
      ([0x40, 0x03, 0x30, 0x03], [0x41, 0x01]),
    ])
    let (frames, warnings) = try Self.frames(input)
    #expect(frames.map(\.data) == [[0x44, 0x00], [0x00], t2, [0x30, 0x03]])
    #expect(
      warnings == [
        "InDataExchange addresses Tg 3, which the last target listing did not give (Tg 1, 2); "
          + "the exchange is shown under the target shown last",
        "InDataExchange status 0x01: timeout, the tag did not answer",
      ])
  }

  /// The same through the host link a USB capture feeds (bare PN53x frames).
  @Test func hostLinkCreditsTheExchangeToItsTarget() {
    var link = PN53xHostLink()
    _ = link.hostToReader(Self.frame([0xD4] + Self.listTwo.0))
    let listing = link.readerToHost(Self.frame([0xD5] + Self.listTwo.1))
    #expect(listing.frames.count == 3)
    let exchange = link.hostToReader(Self.frame([0xD4, 0x40, 0x02, 0x30, 0x03]))
    #expect(exchange.frames.map(\.data) == [[0x44, 0x00], [0x00], [0x30, 0x03]])
    #expect(exchange.frames.first?.flags.last == "uid=04112233445566")
  }

  // MARK: - 3. journalctl's prefix

  /// `journalctl`'s default format puts `Mon DD HH:MM:SS host program[pid]:` before the
  /// priority: the category is the 7th token (it was looked for in the first 6 only).
  @Test func journalctlPrefixIsRead() throws {
    for prefix in [
      "Dec 04 21:30:01 host nfc-poll[1234]: ", "Fri 2026-12-04 21:30:01 UTC host nfc-poll[1234]: ",
    ] {
      let input = Self.log(
        [Self.list(sak: 0x00), ([0x40, 0x01, 0x30, 0x03], [0x41, 0x00] + Self.record)],
        prefix: prefix)
      let (frames, warnings) = try Self.frames(input)
      #expect(warnings == [])
      #expect(frames.map(\.data) == [[0x44, 0x00], [0x00], [0x30, 0x03], Self.record])
    }
  }

  /// A category past the token limit, or a line with no `libnfc.` token, is no traffic line.
  @Test func categoryFarAfterThePrefixIsNotTaken() throws {
    let far = Array(repeating: "x", count: 16).joined(separator: " ")
    let text = [
      far + " debug\tlibnfc.driver.pn53x_usb\tTX: " + Self.pn53x([0xD4, 0x4A, 0x01, 0x00]),
      "debug\tlibnfc.driver.pn53x_usb\tTX: " + Self.pn53x([0xD4, 0x40, 0x01, 0x30, 0x03]),
      "nfc-list TX: 00 00 ff",
      "debug\tlibnfc.driver.pn53x_usb\tRX: " + Self.pn53x([0xD5, 0x41, 0x00] + Self.record),
    ].joined(separator: "\n")
    let (frames, _) = try Self.frames(TraceInput(path: "far.log", bytes: Data(text.utf8)))
    #expect(frames.map(\.data) == [[0x30, 0x03], Self.record])
  }
}
