import Foundation
import TestSupport
import Testing

@testable import NFCTrace

// Every scenario in Traces/scenarios/ (the four Core NFC sample apps of ../shared/seeds and the
// fault scenarios) is simulated, its frames are diagnosed, and the result must equal the
// `NAME.expected.json` beside it: per session, the operations (kind and outcome), the verdicts
// and the finding codes. With NFCTRACE_UPDATE_EXPECTED=1 the files are rewritten instead.

/// What the analyzer must conclude from one scenario, in the `.expected.json` shape.
struct ScenarioExpectation: Codable, Equatable {
  struct Verdict: Codable, Equatable {
    var operation: Int
    var kind: String
    var verdict: String
  }
  struct Session: Codable, Equatable {
    var index: Int
    var uid: String?
    var operations: [String]
    var verdicts: [Verdict]
    var findings: [String]
  }
  var scenario: String
  var sessions: [Session]

  init(scenario: String, report: DiagnosisReport) {
    self.scenario = scenario
    sessions = report.sessions.map { s in
      Session(
        index: s.index, uid: s.analysis.tag.uid.isEmpty ? nil : Hex.string(s.analysis.tag.uid),
        operations: s.analysis.operations.map { "\($0.kind.rawValue) \($0.outcome.rawValue)" },
        verdicts: s.verdicts.map {
          Verdict(operation: $0.operation, kind: $0.kind.rawValue, verdict: $0.verdict.rawValue)
        },
        findings: s.findings.map { "\($0.severity) \($0.code)" })
    }
  }

  /// Pretty JSON, one session field a line (stable key order).
  func json() throws -> String {
    let e = JSONEncoder()
    e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try e.encode(self), as: UTF8.self) + "\n"
  }
}

private let scenarioFolder = TestPaths.traces("scenarios")

private let scenarioNames: [String] = {
  let files = (try? FileManager.default.contentsOfDirectory(atPath: scenarioFolder)) ?? []
  return files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".expected.json") }
    .map { String($0.dropLast(5)) }.sorted()
}()

/// Simulates a scenario and diagnoses its frames as an importer would deliver them.
func diagnoseSimulated(_ scenario: Scenario) throws -> (SimulationResult, DiagnosisReport) {
  let result = try Simulator.run(scenario)
  let run = try DiagnosisRun(importer: MemoryImporter(frames: result.frames))
  return (result, run.diagnose())
}

@Test func everySampleAppAndFaultScenarioIsListed() {
  #expect(
    scenarioNames == [
      "ios11-nfchelper", "objc-nfcmanager", "swift-nfchandler", "t2-app-appends-crc",
      "t2-nak-locked-page", "t2-noisy-rf", "t2-removed-mid-write", "t2-write-without-pwd-auth",
      "t4-slow-wtx", "t4-write-read-only", "uikit-writer",
    ])
}

@Test(arguments: scenarioNames)
func scenarioDiagnosisMatchesExpected(_ name: String) throws {
  let scenario = try Scenario.load(path: "\(scenarioFolder)/\(name).json")
  let (_, report) = try diagnoseSimulated(scenario)
  let actual = ScenarioExpectation(scenario: name, report: report)
  let expectedPath = "\(scenarioFolder)/\(name).expected.json"
  if ProcessInfo.processInfo.environment["NFCTRACE_UPDATE_EXPECTED"] == "1" {
    try Data(try actual.json().utf8).write(to: URL(fileURLWithPath: expectedPath))
    return
  }
  let data = try #require(FileManager.default.contents(atPath: expectedPath), "\(expectedPath)")
  let expected = try JSONDecoder().decode(ScenarioExpectation.self, from: data)
  let shown = (try? actual.json()) ?? ""
  #expect(
    actual == expected, "\(name): the diagnosis differs from \(name).expected.json:\n\(shown)")
}

// The sample apps' own mistakes, stated once more as facts (the expected files could be
// regenerated wrongly; these cannot).

@Test func objcAppWritesReservedURICodeWithIdentifierAfterRestartPolling() throws {
  let s = try Scenario.load(path: "\(scenarioFolder)/objc-nfcmanager.json")
  guard case .writeNDEF(let message)? = s.actions.first(where: { $0.op == "writeNDEF" }) else {
    Issue.record("no writeNDEF")
    return
  }
  // SR + IL, type "U", ID "12345678", payload "ahttps://www.example.cn" (ASCII, no prefix code).
  #expect(Array(message.prefix(4)) == [0xD9, 0x01, 0x17, 0x08])
  #expect(String(decoding: message[5..<13], as: UTF8.self) == "12345678")
  #expect(String(decoding: message[13...], as: UTF8.self) == "ahttps://www.example.cn")
  let (result, report) = try diagnoseSimulated(s)
  // The polling round selected both tags (listed in the session it ends in, the second).
  #expect(result.truth.sessions.dropFirst().first?.operations.first?.reason == "2 tags")
  #expect(report.findings.map(\.code).contains("several-tags"))
  let write = report.sessions.last?.verdicts.first { $0.kind == .writeNDEF }
  #expect(write?.verdict == .succeededWithBadContent)
  #expect(report.sessions.last?.findings.map(\.code) == ["uri-code-reserved"])
}

@Test func swiftHandlerSendsSelectWithoutLeAndURIWithoutIdentifierCode() throws {
  let s = try Scenario.load(path: "\(scenarioFolder)/swift-nfchandler.json")
  #expect(
    s.actions.contains(
      .sendCommand(apdu: [0x00, 0xA4, 0x04, 0x00, 0x06, 0xA0, 0x00, 0x00, 0x03, 0x00, 0x00])))
  let (_, report) = try diagnoseSimulated(s)
  #expect(report.findings.map(\.code) == ["uri-no-identifier-byte", "apdu-refused"])
}

@Test func faultScenariosGiveTheirSpecificFindings() throws {
  let cases: [(String, String, Int?)] = [
    ("t2-removed-mid-write", "write-interrupted", 100),
    ("t2-nak-locked-page", "t2t-nak-locked-page", 401),
    ("t2-write-without-pwd-auth", "t2t-nak-password", 401),
    ("t4-write-read-only", "t4t-security-not-satisfied", 400),
    ("t2-app-appends-crc", "raw-command-crc-appended", 100),
  ]
  for (name, code, error) in cases {
    let (result, report) = try diagnoseSimulated(
      try Scenario.load(path: "\(scenarioFolder)/\(name).json"))
    let finding = report.findings.first
    #expect(finding?.code == code, "\(name)")
    #expect(finding?.coreNFCError?.code == error, "\(name)")
    // The findings name no operation the truth says succeeded… and nothing is torn.
    #expect(!report.findings.contains { $0.code == "ndef-torn" }, "\(name)")
    #expect(result.truth.expectedError != nil, "\(name)")
  }
}
