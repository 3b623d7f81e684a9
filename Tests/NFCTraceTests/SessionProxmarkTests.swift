import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Pipeline + session analysis over a Proxmark3 binary trace.
func analyzeProxmark(_ relative: String) throws -> [SessionAnalysis] {
  let input = try TraceInput(path: TestPaths.shared(relative))
  return try SessionAnalysisRun(importer: try Proxmark3BinaryImporter(input: input)).sessions
}

@Suite struct SessionProxmarkTests {
  @Test func passwordAuthThenReads() throws {
    let sessions = try analyzeProxmark("public/proxmark3/hf_14a_mfu.trace")
    #expect(sessions.count == 1)
    let s = try #require(sessions.first)
    #expect(s.operations.map(\.kind) == [.connect, .authenticate, .transceive])
    #expect(s.operations[1].outcome == .ok)
    #expect(s.authenticated)
    #expect(s.tag.uidString == "04:A8:1D:12:DE:5F:80")
    // READ 4…8 answered with zeros: pages 4–11 known, read after the authentication.
    #expect(s.memory.type2End.known(16, 32) == Array(repeating: 0, count: 32))
    #expect(s.memory.type2End.state(16) == .read)
  }

  @Test func bluetoothOOBMessageReadFromTheNTAGSimulation() throws {
    let sessions = try analyzeProxmark("public/proxmark3/hf_14a_mfu-sim.trace")
    #expect(sessions.count == 18)
    let read = try #require(sessions[4].operations.first { $0.kind == .readNDEF })
    #expect(read.outcome == .ok)
    #expect(read.detail("ndef_length") == .int(0x43))
    guard case .hex(let bytes)? = read.detail("message") else {
      Issue.record("no message")
      return
    }
    let message = try NDEFMessage(parsing: bytes)
    #expect(
      String(decoding: message.records[0].type, as: UTF8.self) == "application/vnd.bluetooth.ep.oob"
    )
    #expect(message.records[0].id == Array("0".utf8))
    // The UL C probe after the CC read gets no answer: failed, not a lost connection.
    let probe = try #require(sessions[1].operations.last)
    #expect(probe.kind == .authenticate && probe.outcome == .failed)
    // Every session on the tag carries the memory forward: session 11 knows the CC.
    #expect(sessions[11].type2CC?.bytes == [0xE1, 0x10, 0x12, 0x00])
  }
}
