import Foundation
import Testing

@testable import NFCTrace

/// A scenario cut off before its JSON ends (review of 2026-12-07; README `simulate`: invalid
/// JSON is named with the line and byte offset where the syntax breaks).
@Suite struct ScenarioTruncationTests {
  /// A scenario cut off is named at its end: the last line and the file size as byte offset
  /// (it said "not valid JSON: Unexpected end of file during JSON parse." with no place).
  @Test func truncatedScenarioNamesTheEndOfTheFile() throws {
    let cut = Data("{\"name\":\"x\",\n \"seed\": 1,\n".utf8)
    #expect(
      throws: SimulationError.invalidScenario(
        "not valid JSON at line 2, byte offset 25: the file ends before the JSON does")
    ) { try Scenario.decode(cut) }
    let noNewline = Data("{\"name\":\"x\",\n \"seed\": 1".utf8)
    #expect(
      throws: SimulationError.invalidScenario(
        "not valid JSON at line 2, byte offset 23: the file ends before the JSON does")
    ) { try Scenario.decode(noNewline) }
  }

  /// A fraction where an integer is read is valid JSON that JSONDecoder calls "not valid
  /// JSON": the key path and the number are named; a fault rate's fraction is not blamed.
  @Test func fractionWhereAnIntegerIsReadIsNamed() throws {
    let json = Data(
      ("{\"name\":\"x\",\"seed\":1,\"tag\":{\"type\":\"ntag215\"},\"reader\":\"ios\","
        + "\"actions\":[{\"op\":\"connect\"},{\"op\":\"wait\",\"ms\":1.5}],"
        + "\"faults\":[{\"kind\":\"noise\",\"crc_error_rate\":0.5}]}").utf8)
    #expect(
      throws: SimulationError.invalidScenario(
        "actions.[1].ms: 1.5 is not an integer (scenario numbers are whole numbers)")
    ) { try Scenario.decode(json) }
  }

  /// An unknown tag type or reader lists the allowed values (it said "Cannot initialize
  /// TagKind from invalid String value ntag999", new-user trial).
  @Test func unknownEnumerationValueListsTheChoices() throws {
    let tag = Data(
      #"{"name":"x","seed":1,"tag":{"type":"ntag999"},"reader":"ios","actions":[]}"#.utf8)
    #expect(
      throws: SimulationError.invalidScenario(
        "tag.type: unknown value \"ntag999\"; expected one of ntag213, ntag215, ntag216, "
          + "ultralight-ev1, type2-blank, type4")
    ) { try Scenario.decode(tag) }
    let reader = Data(
      #"{"name":"x","seed":1,"tag":{"type":"ntag213"},"reader":"pc","actions":[]}"#.utf8)
    #expect(
      throws: SimulationError.invalidScenario(
        "reader: unknown value \"pc\"; expected one of ios, android")
    ) { try Scenario.decode(reader) }
  }
}
