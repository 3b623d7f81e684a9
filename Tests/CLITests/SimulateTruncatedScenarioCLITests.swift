import Foundation
import TestSupport
import Testing

/// A scenario file cut off names the end of the file (it said "not valid JSON: Unexpected end
/// of file during JSON parse." with no place, README: the line and byte offset where the
/// syntax breaks).
@Suite struct SimulateTruncatedScenarioCLITests {
  @Test func truncatedScenarioNamesItsEnd() throws {
    let path = NSTemporaryDirectory() + "nfctrace-trunc-\(UUID().uuidString).json"
    try Data("{\"name\":\"x\",\n \"seed\": 1,\n".utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = CLI.run(["simulate", path, "-o", path + ".pcap"])
    #expect(run.status == 3)
    #expect(
      run.stderr
        == "nfctrace: error: \(path): not a valid scenario: not valid JSON at line 2, byte offset "
        + "25: the file ends before the JSON does\n")
  }
}
