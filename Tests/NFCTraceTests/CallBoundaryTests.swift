import TestSupport
import Testing

@testable import NFCTrace

/// The operations of a simulated scenario, as `kind outcome` (first frame).
private func operations(
  _ tag: TagSpec, reader: ReaderKind, _ actions: [ScenarioAction], faults: [ScenarioFault] = []
) throws -> [String] {
  let scenario = Scenario(
    name: "calls", seed: 1, tag: tag, reader: reader, actions: actions, faults: faults)
  let result = try Simulator.run(scenario)
  let sessions = try SessionAnalysisRun(importer: MemoryImporter(frames: result.frames)).sessions
  return sessions.flatMap(\.operations).map { "\($0.kind.rawValue) \($0.outcome.rawValue)" }
}

private let uri: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
private let longer: [UInt8] = [0xD1, 0x01, 0x10, 0x55, 0x04] + Array("nfctrace.dev/ok!".utf8)

/// Two readNDEF or writeNDEF calls in a row are two operations (they were merged into one):
/// `CallBoundary` sees the procedure start over.
@Suite struct CallBoundaryTests {
  @Test(arguments: [ReaderKind.ios, .android])
  func twoReadsOnAType2Tag(_ reader: ReaderKind) throws {
    let ops = try operations(
      TagSpec(type: .ntag215, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: reader,
      [.connect, .queryNDEFStatus, .readNDEF, .readNDEF])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "readNDEF ok", "readNDEF ok"])
  }

  /// Length-last stacks (iOS: `03 00` first, the length last) step back to page 4 once per
  /// call; the second call's first WRITE starts a new operation.
  @Test(arguments: [ReaderKind.ios, .android])
  func twoWritesOnAType2Tag(_ reader: ReaderKind) throws {
    let ops = try operations(
      TagSpec(type: .ntag213, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: reader,
      [.connect, .queryNDEFStatus, .writeNDEF(message: uri), .writeNDEF(message: longer)])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "writeNDEF ok", "writeNDEF ok"])
  }

  @Test func twoReadsAndTwoWritesOnAType4Tag() throws {
    let ops = try operations(
      TagSpec(type: .type4, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: .ios,
      [
        .connect, .queryNDEFStatus, .readNDEF, .readNDEF, .writeNDEF(message: uri),
        .writeNDEF(message: longer),
      ])
    #expect(
      ops == [
        "connect ok", "queryNDEFStatus ok", "readNDEF ok", "readNDEF ok", "writeNDEF ok",
        "writeNDEF ok",
      ])
  }

  /// A WRITE refused with NAK 5 is sent once more by the stack (a retry, same call); the app's
  /// second call repeats the same WRITE and is a second failed operation.
  @Test func retryStaysInTheCallAndARepeatedCallIsNew() throws {
    let ops = try operations(
      TagSpec(type: .ntag215, uid: [4, 1, 2, 3, 4, 5, 6], ndef: uri), reader: .ios,
      [.connect, .queryNDEFStatus, .writeNDEF(message: uri), .writeNDEF(message: uri)],
      faults: [.nakOnPage(page: 4, code: 5)])
    #expect(ops == ["connect ok", "queryNDEFStatus ok", "writeNDEF failed", "writeNDEF failed"])
  }

  /// A NAK 1 on a data page, acknowledged on the retry, keeps one writeNDEF (t2-noisy-rf: the
  /// retry of WRITE page 7 is not the step back that starts the next call, and the final
  /// WRITE of the length to page 4 still belongs to the call).
  @Test func transmissionErrorRetryIsNotANewCall() throws {
    let input = try TraceInput(path: TestPaths.traces("generated/t2-noisy-rf.trace"))
    let sessions = try SessionAnalysisRun(importer: try Proxmark3BinaryImporter(input: input))
      .sessions
    let writes = sessions.flatMap(\.operations).filter { $0.kind == .writeNDEF }
    #expect(writes.count == 1)
    #expect(writes.first?.outcome == .ok)
    #expect(writes.first.map { [$0.firstFrame, $0.lastFrame] } == [37, 52])
    #expect(writes.first?.detail("pages_acknowledged") == .string("4,5,6,7,8,9,4"))
  }
}
