import Foundation
import TestSupport
import Testing

@testable import NFCTrace

// Round-trip property: a randomized scenario is simulated, its frames are analysed through an
// in-memory importer (SessionAnalysisRun / DiagnosisRun, as `nfctrace` does on a file), and what
// the analyzer concludes must equal the simulator's ground truth: the operations (kind and
// outcome), the NDEF status and capacity, every byte of the final memory the analyzer knows
// for certain, and the diagnosis of the failure (write-interrupted/100, the NAK finding, no
// error at all on a clean run).
//
// NFCTRACE_ROUNDTRIP_CASES (default 300; `make test-long` runs 5000) and
// NFCTRACE_ROUNDTRIP_SEED (default 0x4E46435452414345) choose the cases. Every failure prints the
// case's seed and scenario; rerun one with NFCTRACE_ROUNDTRIP_SEED=<seed> NFCTRACE_ROUNDTRIP_CASES=1.

private let environment = ProcessInfo.processInfo.environment
private let caseCount = environment["NFCTRACE_ROUNDTRIP_CASES"].flatMap { Int($0) } ?? 300
private let baseSeed =
  environment["NFCTRACE_ROUNDTRIP_SEED"].flatMap {
    UInt64($0.replacingOccurrences(of: "0x", with: ""), radix: 16)
  }
  ?? 0x4E46_4354_5241_4345

/// The fault a random case injects.
enum RoundTripFault: Equatable {
  case none
  /// The tag leaves after its k-th acknowledged write.
  case removeAfterWrites(Int)
  /// WRITEs of one page get this NAK code (Type 2).
  case nak(page: Int, code: UInt8)
}

/// A URI record `https://www.` + `n` letters (NFC Forum URI RTD: prefix code 0x02).
private func uriRecord(_ n: Int, _ rng: inout SplitMix64) -> [UInt8] {
  let text = (0..<n).map { _ in UInt8(0x61 + rng.below(26)) }
  let payload = [0x02] + text
  if payload.count < 256 { return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload }
  let l = payload.count
  return [0xC1, 0x01, 0, 0, UInt8(l >> 8), UInt8(l & 0xFF), 0x55] + payload
}

/// A random scenario: one tag, connect + queryNDEFStatus, then reads and writes, one fault.
func randomScenario(seed: UInt64) -> (Scenario, RoundTripFault) {
  var rng = SplitMix64(seed: seed)
  let kinds: [TagKind] = [.ntag213, .ntag215, .ntag216, .type4]
  let kind = kinds[Int(rng.below(UInt64(kinds.count)))]
  let room = [TagKind.ntag213: 120, .ntag215: 400, .ntag216: 700, .type4: 600][kind] ?? 100
  var tag = TagSpec(
    type: kind, uid: [0x04] + rng.bytes(6), ndef: uriRecord(1 + Int(rng.below(40)), &rng))
  if kind == .type4 {
    tag.mle = [255, 59, 128][Int(rng.below(3))]
    tag.mlc = [255, 54, 100][Int(rng.below(3))]
  }
  var actions: [ScenarioAction] = [.connect, .queryNDEFStatus]
  for _ in 0..<(1 + Int(rng.below(3))) {
    actions.append(
      rng.below(2) == 0
        ? .readNDEF : .writeNDEF(message: uriRecord(1 + Int(rng.below(UInt64(room))), &rng)))
  }
  if rng.below(2) == 0 { actions.append(.disconnect) }
  var fault = RoundTripFault.none
  var faults: [ScenarioFault] = []
  switch rng.below(4) {
  case 1:
    let k = 1 + Int(rng.below(6))
    fault = .removeAfterWrites(k)
    faults = [.removeAfterWrites(count: k)]
  case 2 where kind != .type4:
    let page = 4 + Int(rng.below(8))
    let code: UInt8 = [0, 1, 5][Int(rng.below(3))]
    fault = .nak(page: page, code: code)
    faults = [.nakOnPage(page: page, code: code)]
  default: break
  }
  let reader: ReaderKind = rng.below(2) == 0 ? .ios : .android
  return (
    Scenario(
      name: "roundtrip-\(String(seed, radix: 16))", seed: seed, tag: tag, reader: reader,
      actions: actions, faults: faults),
    fault
  )
}

/// The truth's app operations that put frames on air, as `kind outcome` with the analyzer's
/// outcome words: a request the tag never answered is `interrupted` for the analyzer whether
/// the tag left or only went silent (error 100 either way).
func truthOperations(_ t: GroundTruth) -> [String] {
  let analysed: Set<String> = ["connect", "queryNDEFStatus", "readNDEF", "writeNDEF"]
  return joiningRepeatedFailures(
    t.operations.filter { analysed.contains($0.kind) && $0.firstFrame != nil }.map { op in
      (op.kind, op.error?.code == 100 ? "interrupted" : op.outcome.rawValue)
    })
}

func analyzerOperations(_ sessions: [SessionAnalysis]) -> [String] {
  joiningRepeatedFailures(
    sessions.flatMap(\.operations).map { ($0.kind.rawValue, $0.outcome.rawValue) })
}

/// `kind outcome` per operation. Two calls of the same kind in a row are two operations on
/// both sides (`CallBoundary` finds where the app's second readNDEF or writeNDEF began),
/// except failed ones: an app calling again with the same refused command cannot be told from
/// the stack's retries, so runs of the same failed or interrupted operation count once.
private func joiningRepeatedFailures(_ ops: [(kind: String, outcome: String)]) -> [String] {
  var out: [(kind: String, outcome: String)] = []
  for op in ops {
    if let last = out.last, last == op, op.outcome != "ok" { continue }
    out.append(op)
  }
  return out.map { "\($0.kind) \($0.outcome)" }
}

/// Bytes the analyzer knows for certain (read, or written and acknowledged) that differ from
/// the tag's real final memory: `[(address, analyzer, truth)]`. Type 2 skips PWD and PACK
/// (the last two pages: they read back as zeros).
func memoryDisagreements(_ sessions: [SessionAnalysis], _ t: GroundTruth) -> [(Int, UInt8, UInt8)] {
  guard let last = sessions.last else { return [] }
  let image: ByteImage?
  var limit = t.finalMemory.count
  if t.tagType == .type4 {
    image = last.memory.filesEnd[last.type4NDEFFile ?? 0xE104]
  } else {
    image = last.memory.type2End
    limit -= 8
  }
  guard let image else { return [] }
  var out: [(Int, UInt8, UInt8)] = []
  for i in 0..<min(image.count, limit) where [.read, .written].contains(image.state(i)) {
    if image.values[i] != t.finalMemory[i] { out.append((i, image.values[i], t.finalMemory[i])) }
  }
  return out
}

/// The diagnosis the truth calls for: `nil` = no error finding at all.
func expectedFindingCodes(_ t: GroundTruth, fault: RoundTripFault) -> Set<String>? {
  guard let failing = t.operations.first(where: { $0.error != nil && $0.firstFrame != nil }) else {
    return nil
  }
  if failing.kind == "writeNDEF", failing.outcome == .interrupted { return ["write-interrupted"] }
  if case .nak(_, let code) = fault, failing.reason?.hasPrefix("NAK") == true {
    switch code {
    case 1: return ["t2t-nak-transmission-error"]
    case 5: return ["t2t-nak-eeprom-error"]
    default: return ["t2t-nak-unexplained", "t2t-nak-beyond-memory", "t2t-nak-outside-ndef-area"]
    }
  }
  return []  // some error finding, code not asserted
}

/// Runs one case; returns the disagreements as text (empty = agrees).
func roundTripDisagreements(seed: UInt64) throws -> [String] {
  let (scenario, fault) = randomScenario(seed: seed)
  let result = try Simulator.run(scenario)
  let t = result.truth
  let run = try DiagnosisRun(importer: MemoryImporter(frames: result.frames))
  let sessions = run.sessions
  var problems: [String] = []
  let ops = (truthOperations(t), analyzerOperations(sessions))
  if ops.0 != ops.1 { problems.append("operations: truth \(ops.0) analyzer \(ops.1)") }
  if let q = t.operations.first(where: { $0.kind == "queryNDEFStatus" }), q.outcome == .ok {
    let status = sessions.compactMap(\.ndefStatus).first
    if status?.status != t.ndefStatus || status?.capacity != t.capacity {
      problems.append(
        "NDEF status: truth \(t.ndefStatus) \(t.capacity), analyzer \(String(describing: status))")
    }
  }
  let bytes = memoryDisagreements(sessions, t)
  if !bytes.isEmpty { problems.append("memory (address, analyzer, truth): \(bytes.prefix(8))") }
  let findings = run.diagnose().findings
  let errors = Set(findings.filter { $0.severity == .error }.map(\.code))
  switch expectedFindingCodes(t, fault: fault) {
  case nil:
    if !errors.isEmpty { problems.append("clean run, but error findings \(errors.sorted())") }
  case let codes? where codes.isEmpty:
    if errors.isEmpty { problems.append("failed operation, but no error finding") }
  case let codes?:
    if errors.isDisjoint(with: codes) {
      problems.append("expected one of \(codes.sorted()), got \(errors.sorted())")
    }
    if codes.contains("write-interrupted"),
      findings.first(where: { $0.code == "write-interrupted" })?.coreNFCError?.code != 100
    {
      problems.append("write-interrupted without Core NFC error 100")
    }
  }
  return problems
}

@Test func roundTripRandomScenariosAgreeWithGroundTruth() throws {
  var failures = 0
  for i in 0..<caseCount {
    let seed = baseSeed &+ UInt64(i)
    let problems = try roundTripDisagreements(seed: seed)
    guard !problems.isEmpty else { continue }
    failures += 1
    let json = (try? randomScenario(seed: seed).0.jsonData()).map {
      String(decoding: $0, as: UTF8.self)
    }
    Issue.record(
      """
      round trip disagrees for seed 0x\(String(seed, radix: 16)) \
      (rerun: NFCTRACE_ROUNDTRIP_SEED=\(String(seed, radix: 16)) NFCTRACE_ROUNDTRIP_CASES=1):
      \(problems.joined(separator: "\n"))
      scenario: \(json ?? "?")
      """)
    if failures >= 5 { break }
  }
}

/// The generator covers every branch the property talks about within the default case count.
@Test func roundTripGeneratorCoversTheFaults() {
  var kinds = Set<String>()
  for i in 0..<300 {
    let (s, fault) = randomScenario(seed: baseSeed &+ UInt64(i))
    kinds.insert(s.tag.type.rawValue)
    switch fault {
    case .none: kinds.insert("none")
    case .removeAfterWrites: kinds.insert("remove")
    case .nak(_, let code): kinds.insert("nak\(code)")
    }
  }
  #expect(
    kinds == ["ntag213", "ntag215", "ntag216", "type4", "none", "remove", "nak0", "nak1", "nak5"])
}

// MARK: Disagreements the property found, kept as tests

/// A Type 4 write that completed (9000) before the tag left: the unanswered S(DESELECT) and
/// its R(NAK) retry belong to no operation; writeNDEF stays ok (seed 0x4e464354524143f0).
@Test func unansweredDeselectAfterCompletedWriteDoesNotInterruptIt() throws {
  var tag = TagSpec(
    type: .type4, uid: [0x04, 0xBB, 0x00, 0x2D, 0x6C, 0x85, 0xB8],
    ndef: [0xD1, 0x01, 0x01, 0x55, 0x02])
  tag.mlc = 100
  let s = Scenario(
    name: "deselect", seed: 1, tag: tag, reader: .ios,
    actions: [
      .connect, .queryNDEFStatus, .writeNDEF(message: [0xD1, 0x01, 0x02, 0x55, 0x02, 0x61]),
      .disconnect,
    ],
    faults: [.removeAfterWrites(count: 1)])
  let (result, report) = try diagnoseSimulated(s)
  #expect(truthOperations(result.truth) == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok"])
  #expect(analyzerOperations(report.sessions.map(\.analysis)) == truthOperations(result.truth))
  #expect(report.findings.filter { $0.severity == .error }.isEmpty)
}

/// A WRITE refused with NAK 1 and acknowledged on the retry: writeNDEF is ok (truth: the
/// reader retried, the page was written); the NAK is a warning without a Core NFC error.
@Test func nak1RetriedAndAcknowledgedKeepsTheWriteOK() throws {
  let s = try Scenario.load(path: TestPaths.traces("scenarios/t2-noisy-rf.json"))
  let (result, report) = try diagnoseSimulated(s)
  #expect(result.truth.operations.first { $0.kind == "writeNDEF" }?.outcome == .ok)
  let session = try #require(report.sessions.first)
  let write = try #require(session.analysis.operations.firstIndex { $0.kind == .writeNDEF })
  #expect(session.analysis.operations[write].outcome == .ok)
  #expect(session.analysis.operations[write].failedFrames.count == 1)  // the NAK 1 stays visible
  #expect(session.verdicts.first { $0.operation == write }?.verdict == .succeeded)
  let nak = try #require(report.findings.first { $0.code == "t2t-nak-transmission-error" })
  #expect(nak.severity == .warning)
  #expect(nak.coreNFCError == nil)
  #expect(nak.operation == write)
}

/// A refused first WRITE changes nothing on the tag: no ndef-torn (the old message stands even
/// where the session never read it); the simulator reports the NAK inside writeNDEF as 401.
@Test func refusedWriteLeavesTheOldMessageAndReports401() throws {
  for name in ["t2-write-without-pwd-auth", "t2-nak-locked-page"] {
    let s = try Scenario.load(path: TestPaths.traces("scenarios/\(name).json"))
    let (result, report) = try diagnoseSimulated(s)
    #expect(result.truth.operations.first { $0.kind == "writeNDEF" }?.error?.code == 401, "\(name)")
    #expect(report.findings.map(\.code).count == 1, "\(name): \(report.findings.map(\.code))")
    #expect(!report.findings.contains { $0.code == "ndef-torn" }, "\(name)")
  }
}

/// The reader's retry of a doubled-CRC frame is one mistake: one finding with both frames.
@Test func crcAppendedOncePerOperation() throws {
  let s = try Scenario.load(path: TestPaths.traces("scenarios/t2-app-appends-crc.json"))
  let (_, report) = try diagnoseSimulated(s)
  let f = report.findings.filter { $0.code == "raw-command-crc-appended" }
  #expect(f.count == 1)
  #expect(f.first?.frames.count == 2)
}
