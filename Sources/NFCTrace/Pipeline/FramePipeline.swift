/// The one-way pipeline from an importer to session-assigned decoded frames, streaming:
/// importer → `FrameDecoder` (protocol layers) → `TransactionPairer` → `SessionSegmenter`.
///
/// Pull frames with `next()`; memory stays bounded by the few frames held for pairing and
/// re-activation and the decoded batches in flight, independent of the trace length. With
/// `concurrent: true` the import and the protocol layers run on a second thread (see
/// `DecodeThread`), overlapping with everything after them; the frames and their order are
/// the same either way.
public struct FramePipeline {
  /// Exactly one of the two is set.
  private var inline: DecodeStage?
  private var thread: DecodeThreadHandle?
  private var pairer = TransactionPairer()
  /// The session stage; its `sessions` list is complete once `next()` returned nil.
  public private(set) var segmenter = SessionSegmenter()
  private var ready: [DecodedFrame] = []
  private var readyIndex = 0
  /// The batch being passed on, handed back to the decoding thread once every frame of it
  /// has been returned.
  private var spent: [DecodedFrame] = []
  private var finished = false
  private var sides = CaptureSides()

  /// A pipeline pulling from `importer`; `concurrent` decodes on a second thread.
  public init(importer: any TraceImporter, concurrent: Bool = true) {
    if concurrent {
      thread = DecodeThreadHandle(importer: importer)
    } else {
      inline = DecodeStage(importer: importer)
    }
  }

  /// Warnings from the importer, then one for a trace that holds only the reader's or only
  /// the tag's frames (`CaptureSides`): complete once `next()` returned nil or threw (with
  /// `concurrent`, empty before that).
  public var warnings: [TraceWarning] {
    let imported = thread?.thread.warnings ?? inline?.warnings ?? []
    guard finished, let oneSided = sides.warning else { return imported }
    return imported + [oneSided]
  }

  /// Sessions found so far (all of them after `next()` returned nil). Builds an array: use
  /// `session(_:)` per frame.
  public var sessions: [SessionInfo] { segmenter.sessions }

  /// Session `index` as known so far, in O(1).
  public func session(_ index: Int) -> SessionInfo? { segmenter.session(index) }

  /// The next frame with layers, pairing and session, or nil at the end.
  /// - Throws: the importer's `TraceError` when it reaches damage; every frame before it has
  ///   been returned, except up to a few held for pairing — call `drain()` to get them.
  public mutating func next() throws -> DecodedFrame? {
    while readyIndex >= ready.count {
      ready.removeAll(keepingCapacity: true)
      readyIndex = 0
      if let thread, !spent.isEmpty {
        thread.thread.bury(spent)
        spent = []
      }
      if finished { return nil }
      guard let batch = try nextBatch() else {
        finished = true
        ready = drainStages()
        continue
      }
      for decoded in batch {
        sides.count(decoded)
        pairer.push(decoded) { paired in
          segmenter.push(paired) { ready.append($0) }
        }
      }
      if thread != nil { spent = batch }
    }
    defer { readyIndex += 1 }
    return ready[readyIndex]
  }

  /// After an import error: the frames still held by the pairing and session stages.
  public mutating func drain() -> [DecodedFrame] {
    finished = true
    let rest = Array(ready[readyIndex...]) + drainStages()
    ready = []
    readyIndex = 0
    return rest
  }

  private mutating func nextBatch() throws -> [DecodedFrame]? {
    if let thread { return try thread.thread.nextBatch() }
    return try inline?.nextBatch() ?? nil
  }

  private mutating func drainStages() -> [DecodedFrame] {
    var out: [DecodedFrame] = []
    for paired in pairer.flush() { out += segmenter.push(paired) }
    out += segmenter.finish()
    return out
  }
}

/// Owns a `DecodeThread` for a pipeline: when the pipeline goes away, the worker is told to
/// stop instead of waiting for ever on a full queue.
final class DecodeThreadHandle {
  let thread: DecodeThread
  init(importer: any TraceImporter) { thread = DecodeThread(importer: importer) }
  deinit { thread.abandon() }
}
