/// One item of a streaming analysis, in trace order.
public enum AnalysisItem: Sendable {
  /// An operation started or ended (delivered before the frame that revealed it).
  case event(OperationEvent)
  /// A decoded frame with its pairing and session.
  case frame(DecodedFrame)
  /// A session's analysis, as soon as its last frame has passed. Indirect: inline, the large
  /// analysis made every item (one per frame) as large, copied at each hand-over.
  indirect case session(SessionAnalysis)
}

/// The whole analysis of one input, streaming: importer → `FramePipeline` → `SessionCollector`.
///
/// Every frame and operation event is handed to `observe` as it is produced, so renderers and
/// observers never need the whole trace; only per-session results are kept.
public struct SessionAnalysisRun {
  /// The sessions analysed, in order.
  public private(set) var sessions: [SessionAnalysis] = []
  /// Importer warnings.
  public private(set) var warnings: [TraceWarning] = []
  /// The import error that stopped reading, if any (what came before it is analysed).
  public private(set) var error: TraceError?

  /// Reads everything from `importer`. A `TraceError` met while reading is kept in `error`
  /// after the frames before it were analysed; other errors are rethrown. An input whose
  /// every record was rejected (no frame, and warnings that name records) is invalid input
  /// too: `error` is `.malformed` at the first rejected record; one with no frame and nothing
  /// rejected gets the warning `noFrames`.
  /// `keepsMemory: false` drops each finished session's memory images; `retainsSessions:
  /// false` hands sessions only to `observe` (`sessions` stays empty), so memory use does not
  /// grow with the number of sessions (see `SessionCollector`). `concurrent` imports and
  /// decodes on a second thread (`FramePipeline`); the items are the same either way.
  public init(
    importer: any TraceImporter, keepsMemory: Bool = true, retainsSessions: Bool = true,
    concurrent: Bool = true, observe: (AnalysisItem) -> Void = { _ in }
  ) throws {
    var pipeline = FramePipeline(importer: importer, concurrent: concurrent)
    var collector = SessionCollector(keepsMemory: keepsMemory, retainsSessions: retainsSessions)
    var frames = 0
    // Frames of a reader chain whose operation is not known yet, handed on with the events
    // that place them. Bounded: a chain longer than `holdLimit` frames goes out as it comes
    // (under the operation before it) until it ends.
    var held: [DecodedFrame] = []
    var overflowed = false
    func take(_ f: DecodedFrame) {
      frames += 1
      collector.push(f) { pipeline.session($0) }
      let events = collector.takeEvents()
      if !collector.holdsFrames { overflowed = false }
      if collector.holdsFrames, !overflowed, f.session == held.last?.session || held.isEmpty {
        if held.count < Self.holdLimit {
          for e in events { observe(.event(e)) }
          held.append(f)
          return
        }
        overflowed = true
      }
      Self.release(&held, events: events, observe: observe)
      for s in collector.takeFinished() { observe(.session(s)) }
      observe(.frame(f))
    }
    do {
      while let f = try pipeline.next() { take(f) }
    } catch let e as TraceError {
      error = e
      for f in pipeline.drain() { take(f) }
    }
    collector.finish(lookup: { pipeline.session($0) }, cut: error)
    Self.release(&held, events: collector.takeEvents(), observe: observe)
    for s in collector.takeFinished() { observe(.session(s)) }
    sessions = collector.finished
    warnings = pipeline.warnings
    if error == nil, frames == 0 {
      error = TraceError.allRejected(warnings)
      // A valid but empty capture (a pcap of only its file header) is not an error, but an
      // output of nothing at all would look like a tool that failed silently.
      if error == nil { warnings.append(TraceWarning(Self.noFrames)) }
    }
  }

  /// The warning of an input that holds no frame and no rejected record.
  public static let noFrames = "the trace holds no frames: nothing to decode"

  /// Most frames held for one chain.
  static let holdLimit = 4096

  /// Hands on `held` frames interleaved with `events` by the frames they name: a start before
  /// its first frame, an end after its last. Events placed after every held frame follow them.
  private static func release(
    _ held: inout [DecodedFrame], events: [OperationEvent], observe: (AnalysisItem) -> Void
  ) {
    var next = events[...]
    for f in held {
      while let e = next.first, placedBefore(e, f.frame.index) {
        observe(.event(e))
        next = next.dropFirst()
      }
      observe(.frame(f))
    }
    held.removeAll()
    for e in next { observe(.event(e)) }
  }

  private static func placedBefore(_ e: OperationEvent, _ frame: Int) -> Bool {
    switch e {
    case .started(_, let first): return first <= frame
    case .ended(let op): return op.lastFrame < frame
    }
  }
}
