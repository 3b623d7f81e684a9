import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// What a pipeline delivered: each frame's visible result, the error, the warnings.
private struct Delivery: Equatable {
  var frames: [String] = []
  var error: String?
  var warnings: [String] = []
  var sessions: [SessionInfo] = []
}

/// Runs the pipeline to the end (draining after an import error, as the analysis does).
private func deliver(_ importer: any TraceImporter, concurrent: Bool) -> Delivery {
  var p = FramePipeline(importer: importer, concurrent: concurrent)
  var d = Delivery()
  func note(_ f: DecodedFrame) {
    let layers = f.layers.map { "\($0.protocolID.rawValue):\($0.summary)" }.joined(separator: "|")
    let findings = f.findings.map(\.code).joined(separator: ",")
    d.frames.append(
      "\(f.frame.index) \(f.session.map(String.init) ?? "-") \(String(describing: f.response)) "
        + "\(f.frame.crc.rawValue) \(layers) \(findings) \(f.undecodedReason ?? "")")
  }
  do {
    while let f = try p.next() { note(f) }
  } catch {
    d.error = "\(error)"
    for f in p.drain() { note(f) }
  }
  d.warnings = p.warnings.map(\.message)
  d.sessions = p.sessions
  return d
}

private func pcap(_ path: String) throws -> PcapImporter {
  try PcapImporter(input: try TraceInput(path: path))
}

/// Set free when the importer holding it is destroyed.
private final class Probe {}

/// A trace's frames repeated `times` times (10 s apart, so each round is its own session),
/// failing with a `TraceError` after `failAfter` frames when set.
private struct RepeatingImporter: TraceImporter {
  var base: [Frame] = []
  var times = 1
  var failAfter: Int?
  var probe: Probe?
  private var produced = 0
  var warnings: [TraceWarning] = [TraceWarning("repeated")]

  init(input: TraceInput) throws {
    let importer = try PcapImporter(input: input)
    while let f = try importer.next() { base.append(f) }
  }

  var total: Int { base.count * times }

  mutating func next() throws -> Frame? {
    if let failAfter, produced == failAfter {
      throw TraceError(
        .truncated, at: SourceLocation(file: "r", unit: "record", record: produced + 1, offset: 7),
        "cut here")
    }
    guard produced < total, !base.isEmpty else { return nil }
    var f = base[produced % base.count]
    f.index = produced
    f.timeNs += Int64(produced / base.count) * 10_000_000_000
    produced += 1
    return f
  }
}

private func repeating(times: Int, failAfter: Int? = nil) throws -> RepeatingImporter {
  var r = try RepeatingImporter(
    input: try TraceInput(path: TestPaths.traces("generated/swift-nfchandler.pcap")))
  r.times = times
  r.failAfter = failAfter
  return r
}

@Suite struct ConcurrentPipelineTests {
  /// Decoding on a second thread must not change a single frame, warning or session.
  @Test(arguments: [
    TestPaths.shared("derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"),
    TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"),
    TestPaths.shared("derived/synthetic/synthetic_nfcgate_style.pcapng"),
    TestPaths.shared("derived/pcap/hf_14a_mfu.text2pcap.pcapng"),
    TestPaths.traces("generated/swift-nfchandler.pcap"),
  ])
  func sameFramesOnOneThreadAndOnTwo(path: String) throws {
    let inline = deliver(try pcap(path), concurrent: false)
    let concurrent = deliver(try pcap(path), concurrent: true)
    #expect(inline.frames.count > 5)
    #expect(concurrent == inline)
  }

  /// More frames than one batch and than the queue holds, so the worker waits for the
  /// reader: every frame arrives once, in order, with the same sessions as on one thread.
  @Test func manyBatchesArriveInOrder() throws {
    let importer = try repeating(times: 300)
    #expect(importer.total > 10 * 256)
    let concurrent = deliver(importer, concurrent: true)
    let indices = concurrent.frames.compactMap { Int($0.prefix { $0 != " " }) }
    #expect(indices == Array(0..<importer.total))
    #expect(concurrent.sessions.count == 300)
    #expect(concurrent.warnings == ["repeated"])
    #expect(concurrent == deliver(importer, concurrent: false))
  }

  /// An import error deep in the trace: every frame before it is delivered, then the error,
  /// exactly as on one thread.
  @Test func importErrorComesAfterEveryFrameBeforeIt() throws {
    let importer = try repeating(times: 100, failAfter: 1000)
    let concurrent = deliver(importer, concurrent: true)
    #expect(concurrent.frames.count == 1000)
    #expect(concurrent.error == "r: record 1001, byte offset 7: cut here")
    #expect(concurrent == deliver(importer, concurrent: false))
  }

  /// A pipeline dropped before the end stops its worker (which would otherwise wait on a full
  /// queue for ever) and frees the importer.
  @Test func droppedPipelineStopsItsWorker() async throws {
    var importer = try repeating(times: 1000)
    weak var probe: Probe?
    do {
      let p = Probe()
      probe = p
      importer.probe = p
      var pipeline = FramePipeline(importer: importer, concurrent: true)
      importer.probe = nil
      #expect(try pipeline.next()?.frame.index == 0)
    }
    for _ in 0..<1000 where probe != nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(probe == nil)
  }
}
