import Testing

@testable import NFCTrace

// Regressions found by the seventh session's reviews of 2026-12-06 (JSON output, the batch
// review, the attack on changed paths).

/// The sessions output's `ndef_status` said readWrite with no word that the query was
/// interrupted (the report said so): both now give the note (JSON review, 2026-12-06).
@Test func interruptedQueryStatusSaysTheAppGotAnError() throws {
  var b = TraceBuilder()
  b.activateType2()
  // Pages 0–3: UID, BCC1, internal, lock bytes, CC.
  b.read(
    0, [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0, 0xE1, 0x10, 0x3E, 0])
  b.reader([0x30, 0x04])
  b.event(.fieldOff, gapUs: 20_000)
  let s = try sessions(b)[0]
  #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
  #expect(s.operations[1].outcome == .interrupted)
  let reason = try #require(s.ndefStatusReasonAsReturned)
  #expect(reason.contains("queryNDEFStatus interrupted: the app got an error, not this status"))
}

/// S(DESELECT) answered, then HLTA: a command after them was sent after the HLTA, not after the
/// S(DESELECT) with the HLTA's frame number (review of 2203d56).
@Test func commandAfterDeselectThenHLTANamesTheHLTA() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.reader([0xC2])
  b.tag([0xC2])
  b.reader([0x50, 0x00])
  let hlta = b.frames.count - 1
  b.reader([0xE0, 0x80])
  let rats = try #require(decodeAll(b.frames).0.last)
  let halted = try #require(rats.findings.first { $0.code == "command-while-halted" })
  #expect(halted.message.hasPrefix("sent after HLTA (frame \(hlta)) with no WUPA between"))
}

/// The log's index of the last accepted write per byte (which replaced a scan of every later
/// write for each operation: diagnose of 2 400 writeNDEF took 16 s, attack review): a byte
/// written again later is found, one written last is not, a refused write counts for none.
@Test func commandLogKnowsBytesWrittenLater() {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 0)
  b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00])
  let first = b.frames.count - 2
  b.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x02, 0xD0, 0x00], [0x90, 0x00])
  let second = b.frames.count - 2
  b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x09], [0x69, 0x82])
  var log = SessionCommandLog()
  for f in decodeAll(b.frames).0 { log.push(f) }
  log.finish()
  #expect(log.wroteLater(1, after: first, fileOffsets: true))
  #expect(log.wroteLater(3, after: first, fileOffsets: true))
  #expect(!log.wroteLater(1, after: second, fileOffsets: true))
  #expect(!log.wroteLater(4, after: first, fileOffsets: true))
  #expect(!log.wroteLater(1, after: first, fileOffsets: false))
}

/// The per-byte index as disjoint spans (an entry per byte took 877 MB for a T4T 3.0 file
/// written whole, late review): later writes split what they overlap.
@Test func lastWriteIndexSplitsSpans() {
  var index = LastWriteIndex()
  index.mark(0..<100, frame: 1)
  index.mark(40..<60, frame: 2)
  index.mark(90..<120, frame: 3)
  index.mark(1_000_000..<16_000_000, frame: 4)
  #expect(index.frame(at: 0) == 1)
  #expect(index.frame(at: 39) == 1)
  #expect(index.frame(at: 40) == 2)
  #expect(index.frame(at: 59) == 2)
  #expect(index.frame(at: 60) == 1)
  #expect(index.frame(at: 89) == 1)
  #expect(index.frame(at: 90) == 3)
  #expect(index.frame(at: 119) == 3)
  #expect(index.frame(at: 120) == nil)
  #expect(index.frame(at: 15_999_999) == 4)
  #expect(index.frame(at: 16_000_000) == nil)
}
