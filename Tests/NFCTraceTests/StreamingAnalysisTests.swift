import Foundation
import NFCTracePcap
import TestSupport
import Testing

@testable import NFCTrace

/// `report` and `diagnose` stream: sessions are handed on as they end and not kept, and the
/// results are those of the whole-trace analysis.
@Suite struct StreamingAnalysisTests {
  let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all)
  let mfuSim = TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace")
  let torn = TestPaths.traces("t2t-ntag215-write-torn.pcap")

  func json(_ d: SessionDiagnosis) -> String {
    let out = OutputBuffer(fd: nil)
    DiagnosisRender.json(d, to: out)
    return String(decoding: out.takeBytes(), as: UTF8.self)
  }

  func streamed(_ path: String) throws -> (run: DiagnosisRun, sessions: [SessionDiagnosis]) {
    let input = try TraceInput(path: path)
    var sessions: [SessionDiagnosis] = []
    let run = try DiagnosisRun(
      importer: try registry.detect(input).open(input), expected: nil
    ) { sessions.append($0) }
    return (run, sessions)
  }

  func whole(_ path: String) throws -> DiagnosisReport {
    let input = try TraceInput(path: path)
    return try DiagnosisRun(importer: try registry.detect(input).open(input)).diagnose()
  }

  @Test func streamedDiagnosisIsTheWholeTracesOne() throws {
    for path in [mfuSim, torn] {
      let (run, sessions) = try streamed(path)
      let report = try whole(path)
      #expect(sessions.map(json) == report.sessions.map(json))
      // Nothing kept: no session, no evidence of a finished one.
      #expect(run.sessions.isEmpty)
      #expect(run.observer.rf.isEmpty && run.observer.logs.isEmpty)
    }
    let (_, sim) = try streamed(mfuSim)
    #expect(sim.count == 18)
    #expect(sim.flatMap(\.findings).filter { $0.severity == .info }.count == 9)
    let (_, tornSessions) = try streamed(torn)
    #expect(tornSessions.flatMap(\.findings).map(\.severity) == [.error, .error, .warning])
  }

  @Test func observerHandsOverAndForgetsASession() throws {
    var observer = DiagnosisObserver()
    let input = try TraceInput(path: torn)
    var pipeline = FramePipeline(importer: try registry.detect(input).open(input))
    while let f = try pipeline.next() { observer.push(f) }
    #expect(observer.logs.keys.sorted() == [0])
    let taken = observer.take(0)
    #expect(!taken.log.commands.isEmpty)
    #expect(observer.logs.isEmpty && observer.rf.isEmpty)
    // A session the observer never saw gives empty evidence.
    #expect(observer.take(7).log.commands.isEmpty)
  }

  @Test func streamedReportSessionsAreTheWholeTracesOnes() throws {
    var formats: [String] = []
    var streamed: [SessionAnalysis] = []
    let input = try TraceInput(path: mfuSim)
    let result = try ReportSource.stream(
      input, formatName: nil, registry: registry, onFormat: { formats.append($0) },
      onSession: { streamed.append($0) })
    let whole = try ReportSource.open(input, formatName: nil, registry: registry)
    #expect(formats == ["pm3-trace"])
    #expect(result.sessions.isEmpty)
    #expect(result.format == "pm3-trace")
    #expect(streamed.count == 18)
    func text(_ s: SessionAnalysis) -> String { ReportText.render(TagReport(session: s)) }
    #expect(streamed.map(text) == whole.sessions.map(text))
    var choice = TagReport.DefaultSessionChoice()
    streamed.forEach { choice.offer($0) }
    #expect(choice.session?.info.index == 16)
    #expect(TagReport.defaultSession(whole.sessions)?.info.index == 16)
    #expect(TagReport.DefaultSessionChoice().session == nil)
  }

  @Test func streamedReportOfADumpCallsNeither() throws {
    var calls = 0
    let result = try ReportSource.stream(
      TraceInput(path: TestPaths.shared("public/ChameleonMini/NTAG215_blank.bin")),
      formatName: nil, registry: registry, onFormat: { _ in calls += 1 },
      onSession: { _ in calls += 1 })
    #expect(calls == 0)
    #expect(result.dump?.format == "raw-type2")
  }
}

/// The marks a streamed `diagnose` text report leaves for its evidence lines.
@Suite struct EvidenceMarksTests {
  /// The lines of frames 1 (WUPA, answered) and 23 (a WRITE without answer) of the torn
  /// write's trace.
  func lines() throws -> [Int: DiagnosisRender.EvidenceLine] {
    let input = try TraceInput(path: TestPaths.traces("t2t-ntag215-write-torn.pcap"))
    let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all)
    var pipeline = FramePipeline(importer: try registry.detect(input).open(input))
    var out: [Int: DiagnosisRender.EvidenceLine] = [:]
    while let f = try pipeline.next() {
      let i = f.frame.index
      if i == 1 || i == 23 { out[i] = DiagnosisRender.EvidenceLine(i, f) }
    }
    return out
  }

  @Test func marksAreReplacedByTheirLinesAcrossChunks() throws {
    let lines = try lines()
    var marks = EvidenceMarks()
    let text =
      "head\n      " + marks.mark(23, answersCaptured: true) + "\n      "
      + marks.mark(23, answersCaptured: false) + "\n      " + marks.mark(42, answersCaptured: true)
      + "\ntail\n"
    #expect(marks.wanted == [23, 42])
    let write = "#23    R→T  a2 06 66 63 74 72 d9 7b   WRITE page 6 ← 66 63 74 72"
    let expected =
      "head\n      \(write)  [no answer]\n      \(write)\n      #42\ntail\n"
    let bytes = Array(text.utf8)
    // Every split of the text into two chunks gives the same output.
    for cut in 0...bytes.count {
      let out = OutputBuffer(fd: nil)
      var filler = EvidenceMarks.Filler(lines: lines, to: out)
      filler.copy(Data(bytes[..<cut]))
      filler.copy(Data(bytes[cut...]))
      filler.finish()
      #expect(String(decoding: out.takeBytes(), as: UTF8.self) == expected, "cut at \(cut)")
    }
  }

  @Test func evidenceLineIsTheFrameLine() throws {
    let lines = try lines()
    let wupa = try #require(lines[1])
    #expect(
      wupa.text(answersCaptured: true) == "#1     R→T  52" + String(repeating: " ", count: 24)
        + "WUPA")
    #expect(wupa.text(answersCaptured: false) == wupa.text(answersCaptured: true))
  }

  /// A frame number of six digits or more keeps a space before the direction (it ran into it:
  /// `#299925R→T`).
  @Test func longFrameNumbersKeepTheirSpace() throws {
    let input = try TraceInput(path: TestPaths.traces("t2t-ntag215-write-torn.pcap"))
    let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all)
    var pipeline = FramePipeline(importer: try registry.detect(input).open(input))
    var wupa: DecodedFrame?
    while wupa == nil, let f = try pipeline.next() {
      if f.frame.index == 1 { wupa = f }
    }
    let f = try #require(wupa)
    let pad = String(repeating: " ", count: 24)
    #expect(
      DiagnosisRender.EvidenceLine(299_925, f).text(answersCaptured: true)
        == "#299925 R→T  52\(pad)WUPA")
    #expect(
      DiagnosisRender.EvidenceLine(12345, f).text(answersCaptured: true)
        == "#12345 R→T  52\(pad)WUPA")
    #expect(DiagnosisRender.frameLine(5, nil) == "#5")
  }

  @Test func spoolGivesBackWhatWasWritten() throws {
    // Its file has no name once open: nothing is left behind when the program is killed.
    let suffix = "spooltest-\(UUID().uuidString)"
    let spool = SessionSpool(suffix: suffix)
    let temporary = FileManager.default.temporaryDirectory.path
    let names = try FileManager.default.contentsOfDirectory(atPath: temporary)
    #expect(!names.contains { $0.hasSuffix(suffix) })
    let line = String(repeating: "x", count: 1000) + "\n"
    for _ in 0..<100 { spool.write { $0.write(line) } }
    var back = Data()
    spool.chunks { back.append($0) }
    #expect(back.count == 100_100)
    #expect(back == Data(String(repeating: line, count: 100).utf8))
  }

  /// Bytes that are not a mark are printed, not dropped.
  @Test func aDamagedMarkIsPrinted() {
    let out = OutputBuffer(fd: nil)
    var filler = EvidenceMarks.Filler(lines: [:], to: out)
    filler.copy(Data("a \u{1}12x b\n".utf8))
    filler.finish()
    #expect(String(decoding: out.takeBytes(), as: UTF8.self) == "a 12x b\n")
  }
}

/// A diff side made from a streamed trace's session count and failures is the one made from
/// every session.
@Test func diffSideFromStreamedFailures() throws {
  let registry = FormatRegistry(PcapFormats.all + BuiltinFormats.all)
  let input = try TraceInput(path: TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"))
  let sessions = try ReportSource.open(input, formatName: nil, registry: registry).sessions
  let chosen = try #require(sessions.first { $0.info.index == 16 })
  let whole = DiffSide(path: "x", analysis: chosen, exchanges: [], sessions: sessions)
  let failures = sessions.compactMap { s in DiffSide.failures(of: s).map { (s.info.index, $0) } }
  let streamed = DiffSide(
    path: "x", analysis: chosen, exchanges: [], sessionCount: sessions.count, failures: failures)
  #expect(streamed.sessionCount == 18 && whole.sessionCount == 18)
  #expect(streamed.otherFailures.map(\.session) == whole.otherFailures.map(\.session))
  #expect(streamed.otherFailures.map(\.operations) == whole.otherFailures.map(\.operations))
  #expect(whole.otherFailures.count == 6)
  #expect(whole.otherFailures.first?.session == 1)
  #expect(whole.otherFailures.first?.operations == "authenticate failed")
}
