import Foundation
import NDEF
import NFCTracePcap
import TestSupport
import Testing

@testable import NFCTrace

/// Loads the wanted sessions of a Proxmark3 binary trace the way `nfctrace diff` does: one
/// streaming pass with the session analysis and an `ExchangeRecorder`.
private func sides(_ path: String, sessions wanted: [Int?]) throws -> [DiffSide] {
  let input = try TraceInput(path: path)
  var recorder = ExchangeRecorder(
    selection: .init(
      sessions: Set(wanted.compactMap { $0 }), lastWithTag: wanted.contains { $0 == nil }))
  let run = try SessionAnalysisRun(importer: try Proxmark3BinaryImporter.format.open(input)) {
    recorder.take($0)
  }
  recorder.finish()
  return try wanted.map { w in
    let index = try #require(w ?? recorder.defaultSession)
    let analysis = try #require(run.sessions.first { $0.info.index == index })
    let exchanges = try #require(
      recorder.exchanges(session: index, operations: analysis.operations))
    return DiffSide(path: path, analysis: analysis, exchanges: exchanges)
  }
}

private func pairs(_ list: [SequenceAlignment.Pair]) -> [String] { list.map(\.description) }

@Suite struct DiffTests {
  let ok = TestPaths.traces("t2t-ntag215-write-ok.trace")
  let torn = TestPaths.traces("t2t-ntag215-write-torn.trace")
  let mfuSim = TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace")

  // MARK: Alignment

  @Test func extraRetryInBIsOneGapNotAShift() {
    let a = ["READ 3", "READ 4", "WRITE 4", "WRITE 5", "READ 4"]
    let b = ["READ 3", "READ 4", "WRITE 4", "WRITE 4", "WRITE 5", "READ 4"]
    let columns = SequenceAlignment.align(a, b) { $0 == $1 ? 10 : nil }
    // The first WRITE 4 of B pairs; the repeat right after it is the one extra element.
    #expect(pairs(columns) == ["0=0", "1=1", "2=2", "-=3", "3=4", "4=5"])
  }

  @Test func extraElementInAAndDisjointTails() {
    let columns = SequenceAlignment.align([1, 1, 2, 7], [1, 2, 9]) { $0 == $1 ? 10 : nil }
    #expect(pairs(columns) == ["0=0", "1=-", "2=1", "-=2", "3=-"])
    #expect(pairs(SequenceAlignment.align([Int](), [5]) { _, _ in 1 }) == ["-=0"])
    #expect(SequenceAlignment.align([Int](), [Int]()) { _, _ in 1 }.isEmpty)
  }

  @Test func scoresPickTheBetterPartner() {
    // Both A elements could pair with B's single "x"; the higher score wins.
    let columns = SequenceAlignment.align(["x1", "x2"], ["x2"]) { a, b in
      a.first == b.first ? (a == b ? 12 : 10) : nil
    }
    #expect(pairs(columns) == ["0=-", "1=0"])
  }

  @Test func longSequencesUseTheLinearAlignerAndKeepRetriesAsGaps() {
    let a = Array(0..<3000)
    var b = a
    b.insert(1500, at: 1501)  // one retry in the middle
    #expect((a.count + 1) * (b.count + 1) > SequenceAlignment.cellLimit)
    let columns = SequenceAlignment.align(a, b) { $0 == $1 ? 10 : nil }
    #expect(columns.count == 3001)
    #expect(columns.filter { $0.a == nil }.map(\.b) == [1501])
    #expect(columns[1502] == SequenceAlignment.Pair(1501, 1502))
  }

  // MARK: ok vs torn

  @Test func okVersusTornWrite() throws {
    let a = try sides(ok, sessions: [nil])[0]
    let b = try sides(torn, sessions: [nil])[0]
    let d = TraceDiff(a: a, b: b)
    #expect(d.tag.isEmpty)
    #expect(
      d.operations.map { "\($0.a.map(String.init) ?? "-")=\($0.b.map(String.init) ?? "-")" }
        == ["0=0", "1=1", "2=2", "3=3", "4=-"])
    #expect(
      d.operations.map { op in
        (op.a ?? op.b).map { (op.a != nil ? a : b).analysis.operations[$0].kind }
      }
        == [.connect, .queryNDEFStatus, .readNDEF, .writeNDEF, .readNDEF])
    #expect(d.operations.map(\.same) == [true, true, true, false, false])
    let write = d.operations[3].differences
    #expect(
      write.map(\.field) == ["outcome", "reason", "unanswered", "details.pages_acknowledged"])
    #expect(write[0] == FieldDifference("outcome", .string("ok"), .string("interrupted")))
    #expect(write[2] == FieldDifference("unanswered", .int(0), .int(2)))
    #expect(
      write[3]
        == FieldDifference("details.pages_acknowledged", .string("4,5,6,7,8,9"), .string("4,5")))
    #expect(!d.same)
  }

  @Test func okVersusTornExchanges() throws {
    let a = try sides(ok, sessions: [nil])[0]
    let b = try sides(torn, sessions: [nil])[0]
    let d = TraceDiff(a: a, b: b)
    // Frame numbers: the Proxmark3 copies of the traces have no field-on event, so frames
    // are one lower than in the pcap ones.
    // Inside writeNDEF: pages 4 and 5 are the same; page 6 was ACKed in A and not answered
    // in B; B's retry of page 6 is one extra exchange; pages 7–9 were only written in A.
    let inWrite = d.exchanges.filter { $0.operation == 3 }
    let frames = inWrite.map { x in
      (
        x.a.map { a.exchanges[$0].requestFrame ?? -1 },
        x.b.map { b.exchanges[$0].requestFrame ?? -1 }
      )
    }
    #expect(
      frames.map { "\($0.0.map(String.init) ?? "-")/\($0.1.map(String.init) ?? "-")" }
        == ["18/18", "20/20", "22/22", "-/23", "24/-", "26/-", "28/-"])
    #expect(inWrite.map(\.differences) == [[], [], ["response"], [], [], [], []])
    let differing = d.exchanges.filter { !$0.same }
    #expect(differing.count == 5)
    let page6 = try #require(inWrite[2].b.map { b.exchanges[$0] })
    #expect(page6.key == "WRITE page=6")
    #expect(page6.answerSummary == "no answer")
    #expect(inWrite[2].a.map { a.exchanges[$0].answerSummary } == "ACK")
    // Nothing differs in the operations before the write.
    #expect(d.exchanges.filter { $0.operation < 3 }.allSatisfy { $0.same })
  }

  @Test func okVersusTornMemory() throws {
    let a = try sides(ok, sessions: [nil])[0]
    let b = try sides(torn, sessions: [nil])[0]
    let m = TraceDiff(a: a, b: b).memory
    // Page 6 holds the same bytes, but B's write of it was never acknowledged; page 9 still
    // holds the old message's tail in B. Pages 4, 5, 7, 8 hold the same certain bytes (read
    // back or acknowledged), so they are not differences. The start images are equal.
    #expect(m.map(\.unit) == [6, 9])
    #expect(m.allSatisfy { $0.image == .end && $0.file == nil })
    #expect(m[0].a == [0x66, 0x63, 0x74, 0x72] && m[0].b == [0x66, 0x63, 0x74, 0x72])
    // A's page 6 was written, acknowledged and read back (report says `written` too).
    #expect(m[0].aState == "written" && m[0].bState == "written-unacknowledged")
    #expect(m[0].aFrame == 31 && m[0].bFrame == 23)
    #expect(m[1].a == [0x6F, 0x6B, 0xFE, 0x00] && m[1].b == [0x6F, 0x6C, 0x64, 0xFE])
    #expect(m[1].aState == "written" && m[1].bState == "read")
    #expect(m[1].aFrame == 29 && m[1].bFrame == 17)
  }

  @Test func okVersusTornNDEF() throws {
    let a = try sides(ok, sessions: [nil])[0]
    let b = try sides(torn, sessions: [nil])[0]
    let n = TraceDiff(a: a, b: b).ndef
    // B's tag holds the new TLV length (pages 4–5 acknowledged) over the old message's tail:
    // a well-formed URI record whose last character is stale, resting on an unacknowledged page.
    #expect(n.a.state == "message" && n.b.state == "message")
    #expect(n.a.unacknowledgedBytes == 0 && n.b.unacknowledgedBytes == 4)
    // Same length, one stale byte: the message bytes differ, and B's rests on 4 unacknowledged.
    let okBytes: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x04] + Array("nfctrace.dev/ok".utf8)
    #expect(n.differences.first?.a == .hex(okBytes))
    #expect(
      n.differences.map(\.field) == ["message", "unacknowledged_bytes"])
    #expect(n.differences.last == FieldDifference("unacknowledged_bytes", .int(0), .int(4)))
    #expect(n.records.count == 1)
    #expect(
      n.records[0].differences == [
        FieldDifference(
          "uri", .string("https://nfctrace.dev/ok"), .string("https://nfctrace.dev/ol"))
      ])
    #expect(!n.same)
  }

  @Test func okVersusTornTiming() throws {
    let a = try sides(ok, sessions: [nil])[0]
    let b = try sides(torn, sessions: [nil])[0]
    let d = TraceDiff(a: a, b: b)
    let write = d.timing[3]
    #expect(
      write.a
        == OperationTiming(
          exchanges: 6, answered: 6, medianResponseNs: 4_100_000, maxResponseNs: 4_100_000,
          retries: 0, durationNs: 31_483_185))
    #expect(write.a?.retries == 0 && write.b?.retries == 1)
    #expect(write.b?.exchanges == 4 && write.b?.answered == 2)
    #expect(write.notable.map(\.why) == ["unanswered"])
    #expect(
      write.notable.first?.aResponseNs == 4_100_000 && write.notable.first?.bResponseNs == nil)
    #expect(d.timing[4].a != nil && d.timing[4].b == nil)
  }

  // MARK: Same sessions

  @Test func traceDiffedWithItselfHasNoDifferences() throws {
    let s = try sides(torn, sessions: [0, 0])
    let d = TraceDiff(a: s[0], b: s[1])
    #expect(d.same)
    #expect(d.operations.count == 4 && d.operations.allSatisfy { $0.same })
    #expect(d.exchanges.count == 13 && d.exchanges.allSatisfy { $0.same })
    #expect(d.memory.isEmpty && d.tag.isEmpty && d.ndef.same)
    #expect(d.timing.allSatisfy { $0.notable.isEmpty && $0.a == $0.b })
  }

  @Test func mfuSimSameReadInSessions4And10DiffersOnlyInTiming() throws {
    let s = try sides(mfuSim, sessions: [4, 10])
    let d = TraceDiff(a: s[0], b: s[1])
    #expect(d.same)
    #expect(d.operations.map(\.a) == [0, 1, 2] && d.operations.map(\.b) == [0, 1, 2])
    // 11: the closing HLTA is not compared (it belongs to no operation's work).
    #expect(d.exchanges.count == 11 && d.exchanges.allSatisfy { $0.same })
    #expect(d.memory.isEmpty)
    #expect(d.ndef.a.state == "message" && d.ndef.a.message?.count == 67 && d.ndef.same)
    // Timing: the tag answers READ alike; the reader's pacing differs. Response times run from
    // the end of the READ (its recorded duration, 346 903 ns), as the FDT does.
    let read = d.timing[2]
    #expect(read.a?.medianResponseNs == 270_501 && read.b?.medianResponseNs == 270_501)
    #expect(read.a?.maxResponseNs == 279_941 && read.b?.maxResponseNs == 270_502)
    #expect(read.a?.durationNs == 18_669_912 && read.b?.durationNs == 19_682_596)
    #expect(read.notable.isEmpty)
    #expect(d.timing[0].a?.durationNs == 3_361_799 && d.timing[0].b?.durationNs == 3_362_831)
  }

  // MARK: Recorder

  @Test func recorderKeepsOnlySelectedSessions() throws {
    let input = try TraceInput(path: mfuSim)
    var recorder = ExchangeRecorder(selection: .init(sessions: [4], lastWithTag: true))
    _ = try SessionAnalysisRun(importer: try Proxmark3BinaryImporter.format.open(input)) {
      recorder.take($0)
    }
    recorder.finish()
    // Session 17 never completed anticollision: 16 is the last one with a tag.
    #expect(recorder.lastTaggedSession == 16)
    #expect(recorder.lastTouchedSession == 16 && recorder.defaultSession == 16)
    #expect(recorder.exchanges(session: 4, operations: [])?.count == 12)
    #expect(recorder.exchanges(session: 16, operations: []) != nil)
    #expect(recorder.exchanges(session: 10, operations: []) == nil)
    #expect(recorder.exchanges(session: 15, operations: []) == nil)
  }

  /// A session that only activated the tag after the one that wrote it is not the one to
  /// compare by default: the last session that read, wrote or sent APDUs is (as `report`).
  @Test func recorderDefaultSkipsATrailingConnect() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x12, 0x00] + [UInt8](repeating: 0, count: 12))
    b.write(4, [0x03, 0x00, 0xFE, 0x00])
    b.reader([0x50, 0x00])
    b.activateType2()
    var recorder = ExchangeRecorder(selection: .init(lastWithTag: true))
    _ = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) { recorder.take($0) }
    recorder.finish()
    #expect(recorder.lastTaggedSession == 1)
    #expect(recorder.defaultSession == 0)
    #expect(recorder.exchanges(session: 0, operations: []) != nil)
    // An answered Ultralight C AUTHENTICATE is an operation (authenticate), as report counts.
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + [UInt8](repeating: 0x42, count: 8))
    var second = ExchangeRecorder(selection: .init(lastWithTag: true))
    _ = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) { second.take($0) }
    second.finish()
    #expect(second.defaultSession == 1)
  }

  // MARK: Rendering

  @Test func textIsTwoColumnsWithin160Characters() throws {
    let d = TraceDiff(
      a: try sides(ok, sessions: [nil])[0], b: try sides(torn, sessions: [nil])[0])
    let lines = DiffText.lines(d)
    #expect(lines.allSatisfy { $0.count <= 160 })
    let write = try #require(lines.first { $0.hasPrefix("≠ writeNDEF ok") })
    #expect(write.hasSuffix("│ writeNDEF interrupted  #18–#23"))
    #expect(lines.contains { $0.hasPrefix("− readNDEF unknown  #30–#32") })
    #expect(
      lines.contains {
        $0.hasPrefix("+ ") && $0.hasSuffix("│ #23 WRITE page 6 ← 66 63 74 72 → no answer")
      })
    let page9 = try #require(lines.first { $0.hasPrefix("≠ page 9") })
    #expect(page9.contains("6f 6b fe 00  written #29") && page9.hasSuffix("6f 6c 64 fe  read #17"))
  }

  /// An answer repeating its command's summary says it once; a raw answer (`raw ff 0f`) to a
  /// raw command (`raw`) keeps its words. It printed `raw →  ff 0f`.
  @Test func exchangeTextStripsOnlyARepeatedCommand() throws {
    let tagOnly = ExchangeRecord(
      requestFrame: nil, request: [], requestNs: 0, requestCRC: nil, command: nil,
      requestRawReason: nil, responseFrame: 7, response: [0xFF, 0x0F], responseNs: 0,
      answer: nil, responseCRC: nil, unanswered: false, operation: nil)
    #expect(DiffText.exchange(tagOnly) == "raw → raw ff 0f")
    var b = TraceBuilder()
    b.activateType2()
    b.read(3, [0xE1, 0x10, 0x3E, 0x00])
    let read = try #require(try diffSide(b).exchanges.last)
    #expect(DiffText.exchange(read) == "#10 READ page 3 → e1 10 3e 00 …")
  }

  /// Memory a session carried from an earlier one on the same UID is marked as `report`
  /// marks it: text `#11 (earlier session)`, JSON `a_earlier_session` / `b_earlier_session`.
  /// It was shown as the compared session's own.
  @Test func memoryCarriedFromAnEarlierSessionIsMarked() throws {
    let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04]
    var a = TraceBuilder()
    a.activateType2()
    a.read(4, bytes)
    a.reader([0x50, 0x00])
    a.activateType2()
    a.read(8, [])
    var b = TraceBuilder()
    b.activateType2()
    b.read(4, [0x11, 0x12, 0x13, 0x14])
    b.read(8, [])
    let d = TraceDiff(a: try diffSide(a), b: try diffSide(b))
    #expect(d.a.analysis.info.index == 1)
    let page4 = d.memory.filter { $0.unit == 4 }
    #expect(page4.map(\.aEarlierSession) == [true, true])
    #expect(page4.map(\.bEarlierSession) == [false, false])
    let lines = DiffText.lines(d).filter { $0.hasPrefix("≠ page 4 ") }
    #expect(lines.count == 2)
    #expect(
      lines.allSatisfy { $0.hasPrefix("≠ page 4    01 02 03 04  read #11 (earlier session) ") })
    #expect(lines.allSatisfy { $0.hasSuffix("│ 11 12 13 14  read #11") })
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "test", to: out)
    #expect(
      out.text.contains(
        "{\"image\":\"end\",\"page\":4,\"a\":\"01020304\",\"b\":\"11121314\",\"a_state\":\"read\","
          + "\"b_state\":\"read\",\"a_frame\":11,\"b_frame\":11,\"a_earlier_session\":true,"
          + "\"b_earlier_session\":false}"))
  }

  @Test func jsonDocument() throws {
    let d = TraceDiff(
      a: try sides(ok, sessions: [nil])[0], b: try sides(torn, sessions: [nil])[0])
    let out = OutputBuffer(fd: nil)
    DiffJSON.render(d, version: "0.1.0", to: out)
    let doc = try #require(
      try JSONSerialization.jsonObject(with: Data(out.text.utf8)) as? [String: Any])
    #expect(doc["same"] as? Bool == false)
    let ops = try #require(doc["operations"] as? [[String: Any]])
    #expect(
      ops.map { $0["kind"] as? String } == [
        "connect", "queryNDEFStatus", "readNDEF", "writeNDEF", "readNDEF",
      ])
    #expect(ops[4]["b"] is NSNull && ops[4]["a"] as? Int == 4)
    let memory = try #require(doc["memory"] as? [[String: Any]])
    #expect(memory.map { $0["page"] as? Int } == [6, 9])
    #expect(memory[0]["b_state"] as? String == "written-unacknowledged")
    #expect((doc["exchanges"] as? [Any])?.count == 5)
    let ndef = try #require(doc["ndef"] as? [[String: Any]])
    let field = (ndef[0]["differences"] as? [[String: Any]])?.first
    #expect(field?["b"] as? String == "https://nfctrace.dev/ol")
    let a = try #require(doc["a"] as? [String: Any])
    #expect((a["tag"] as? [String: Any])?["product"] as? String == "NTAG215")
  }
}

@Suite struct DiffExchangeAlignmentTests {
  /// A Type 2 WRITE of `data` to `page` at frame `frame`, ACKed unless `nak`.
  private func write(_ page: Int, _ data: [UInt8], frame: Int, nak: Bool = false) -> ExchangeRecord
  {
    let command = LayerDecode(
      .type2, "WRITE", "WRITE page \(page)",
      [LayerField("page", .int(page)), LayerField("data", .hex(data))])
    let answer = LayerDecode(
      .type2, nak ? "NAK" : "ACK", nak ? "NAK" : "ACK", [LayerField("ack", .bool(!nak))])
    return ExchangeRecord(
      requestFrame: frame, request: [0xA2, UInt8(page)] + data + [0x00, 0x00],
      requestNs: Int64(frame) * 5_000_000, requestCRC: .ok, command: command,
      requestRawReason: nil, responseFrame: frame + 1, response: [nak ? 0x00 : 0x0A],
      responseNs: Int64(frame) * 5_000_000 + 4_800_000, answer: answer, responseCRC: .absent,
      unanswered: false, operation: 0)
  }

  @Test func sameCommandDifferentDataAndARetryAfterANAK() {
    let a = [write(4, [1, 2, 3, 4], frame: 10), write(5, [5, 6, 7, 8], frame: 12)]
    let b = [
      write(4, [1, 2, 3, 9], frame: 20, nak: true), write(4, [1, 2, 3, 9], frame: 22),
      write(5, [5, 6, 7, 8], frame: 24),
    ]
    let x = TraceDiff.alignExchanges([0, 1], [0, 1, 2], a, b, operation: 0)
    // The acknowledged attempts pair (same answer scores higher); B's NAKed first attempt is
    // the one extra exchange, and the pair differs only in the bytes written.
    #expect(
      x.map { "\($0.a.map(String.init) ?? "-")=\($0.b.map(String.init) ?? "-")" } == [
        "-=0", "0=1", "1=2",
      ])
    #expect(x.map(\.differences) == [[], ["command"], []])
    #expect(a[0].key == "WRITE page=4")
    // B repeated the NAKed WRITE: one retry; A none.
    let tb = TimingComparison.timing([0, 1, 2], b)
    #expect(tb.retries == 1 && tb.answered == 3 && tb.medianResponseNs == 4_800_000)
    #expect(tb.durationNs == 24_800_000)
    #expect(TimingComparison.timing([0, 1], a).retries == 0)
    // Gaps: start of each request − end of the previous exchange's last frame (these records
    // give no durations: its start).
    #expect(TimingComparison.gaps(b) == [nil, 10_000_000 - 4_800_000, 10_000_000 - 4_800_000])
  }
}

extension DiffExchangeAlignmentTests {
  /// An answer that failed its CRC on one side only differs from the intact one, though the
  /// bytes before the CRC agree (it compared equal, hiding the damaged exchange that made B
  /// retry); the damaged side pairs with nothing when the other side has the intact retry.
  @Test func damagedAnswerDiffersFromAnIntactOne() {
    let read = LayerDecode(.type2, "READ", "READ page 4", [LayerField("page", .int(4))])
    func exchange(_ frame: Int, _ crc: CRCStatus) -> ExchangeRecord {
      ExchangeRecord(
        requestFrame: frame, request: [0x30, 0x04, 0x26, 0xEE], requestNs: Int64(frame),
        requestCRC: .ok, command: read, requestRawReason: nil, responseFrame: frame + 1,
        response: Array(repeating: 0, count: 16) + [0x37, crc == .bad ? 0x00 : 0x49],
        responseNs: Int64(frame) + 400_000, answer: nil, responseCRC: crc, unanswered: false,
        operation: 0)
    }
    #expect(TraceDiff.exchangeDifferences(exchange(0, .ok), exchange(0, .bad)) == ["response"])
    let x = TraceDiff.alignExchanges(
      [0], [0, 1], [exchange(0, .ok)], [exchange(0, .bad), exchange(2, .ok)], operation: 0)
    #expect(x.map(\.differences) == [[], []])
    #expect(x.map { $0.a == nil } == [true, false])
  }
}

/// Two final messages of different lengths differ in `ndef_state` too (the row said "=" when
/// only the records below it showed the difference).
@Test func ndefStateComparesTheMessageLength() throws {
  func session(_ path: String, _ index: Int) throws -> SessionAnalysis {
    let run = try SessionAnalysisRun(importer: try PcapImporter(input: TraceInput(path: path)))
    return try #require(run.sessions.first { $0.info.index == index })
  }
  let a = try session(TestPaths.traces("usb/pn533-t4t-usbmon.pcap"), 0)
  let b = try session(TestPaths.traces("usb/acr1252u-pcsc-usbpcap.pcap"), 1)
  let diff = NDEFComparison.compare(a, b)
  #expect(diff.differences.map(\.field) == ["length", "message"])
  #expect(diff.differences.first?.a == .int(15))
  #expect(diff.differences.first?.b == .int(10))
}

/// The ATQA differs as the bytes MSB first, as the report writes it, not as a decimal int
/// (0x0344 was printed as 836).
@Test func atqaDiffersAsHex() {
  var a = TagIdentity()
  var b = TagIdentity()
  a.atqa = 0x0044
  b.atqa = 0x0344
  #expect(
    TraceDiff.tagDifferences(a, b) == [
      FieldDifference("atqa", .hex([0x00, 0x44]), .hex([0x03, 0x44]))
    ])
}

/// Field engineer passes: APDUs in blocks of other numbers are the same command, and the
/// final NDEF of a session that skipped the CC (kept from an earlier one) is still read.
@Suite struct DiffType4Tests {
  /// A Type 4 query, then the tag activated again after 200 ms (a second session).
  private func queriedThenReactivated() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.gapUs = 200_000
    b.activateType4()
    b.gapUs = 400
    return b
  }

  @Test func blockNumbersDoNotMakeCommandsDiffer() throws {
    var b = queriedThenReactivated()
    b.apdu([0x90, 0x60, 0x00, 0x00, 0x00], [0x91, 0xAF])  // shifts the block numbers
    b.queryType4()
    var recorder = ExchangeRecorder(selection: .init(sessions: [0, 1]))
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) {
      recorder.take($0)
    }
    recorder.finish()
    let a = try #require(recorder.exchanges(session: 0, operations: run.sessions[0].operations))
    let c = try #require(recorder.exchanges(session: 1, operations: run.sessions[1].operations))
    let selectA = try #require(a.first { $0.name == "SELECT NDEF application" })
    let selectB = try #require(c.first { $0.name == "SELECT NDEF application" })
    #expect(selectA.request.first != selectB.request.first)
    #expect(selectA.requestPayload == selectB.requestPayload)
    #expect(selectA.responsePayload == selectB.responsePayload)
  }

  @Test func finalMessageWithoutTheCCInTheSession() throws {
    var b = queriedThenReactivated()
    let ok: [UInt8] = [0x90, 0x00]
    b.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok)
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x07, 0x00, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x00], ok)
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames))
    let side = NDEFComparison.side(try #require(run.sessions.last))
    #expect(side.state == "message")
    #expect(side.message == [0xD1, 0x01, 0x01, 0x54, 0x00])
  }
}

/// A timing row is `=` only when both sides took as many exchanges and retries, not merely
/// when no paired exchange's timing differs (diagnose realism pass, finding 12).
@Test func timingRowWithMoreExchangesIsNotSame() throws {
  func side(_ b: TraceBuilder) throws -> DiffSide {
    var recorder = ExchangeRecorder(selection: .init(sessions: [0], lastWithTag: false))
    let run = try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)) {
      recorder.take($0)
    }
    recorder.finish()
    let analysis = try #require(run.sessions.first)
    let exchanges = try #require(recorder.exchanges(session: 0, operations: analysis.operations))
    return DiffSide(path: "built", analysis: analysis, exchanges: exchanges)
  }
  let cc: [UInt8] =
    [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE, 0x00] + Array(repeating: 0, count: 8)
  var a = TraceBuilder()
  a.activateType2(version: ntag213Version)
  a.read(3, cc)
  var b = a
  b.read(3, cc)
  let d = TraceDiff(a: try side(a), b: try side(b))
  let rows = DiffText.timing(d).filter { $0.contains("queryNDEFStatus") }
  #expect(rows.count == 1)
  #expect(rows.first?.hasPrefix("≠ queryNDEFStatus   1 ") == true)
  #expect(DiffText.timing(d).contains { $0.hasPrefix("= connect ") })
}

extension DiffExchangeAlignmentTests {
  /// Summaries are cut to the column: a pair differing past the cut looked the same on both
  /// sides. The first differing byte is shown under it.
  @Test func firstDifferingByteIsShown() {
    let read = LayerDecode(.type2, "READ", "READ page 4", [LayerField("page", .int(4))])
    func exchange(_ last: UInt8) -> ExchangeRecord {
      ExchangeRecord(
        requestFrame: 1, request: [0x30, 0x04], requestNs: 0, requestCRC: .absent,
        command: read, requestRawReason: nil, responseFrame: 2,
        response: Array(repeating: 0, count: 15) + [last], responseNs: 400_000, answer: nil,
        responseCRC: .absent, unanswered: false, operation: 0)
    }
    let lines = DiffText.firstDifference(exchange(0x61), exchange(0x62))
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("      response byte 15: 61") == true)
    #expect(lines.first?.hasSuffix("│ 62") == true)
    #expect(DiffText.firstDifference(exchange(0x61), exchange(0x61)).isEmpty)
  }
}

/// The final Type 2 message is read as the report reads it: no TLVs without the CC (page 3),
/// none on a tag whose CC is not NDEF's (both were "incomplete", page 4 read as TLVs).
@Test func diffType2SideFollowsTheCC() throws {
  let mfuc = try #require(try analyzeProxmark("public/proxmark3/hf_14a_mfuc.trace").first)
  #expect(NDEFComparison.side(mfuc).state == "none")
  let mfu = try #require(try analyzeProxmark("public/proxmark3/hf_14a_mfu.trace").first)
  #expect(NDEFComparison.side(mfu).state == "unknown")
}
