import Foundation

/// Runs a `DecodeStage` (import and protocol layers) on a thread of its own, so that decoding
/// the next frames overlaps with pairing, session analysis and rendering of the previous ones
/// on the caller's thread. Batches pass through a queue of at most `depth` batches, so memory
/// stays bounded whatever the trace length.
///
/// Ownership, not sharing: the stage (and its importer) is touched only by the worker thread
/// until it has finished; the caller reads the warnings only after the end was handed over
/// under the lock. That is why the class is `@unchecked Sendable`.
final class DecodeThread: @unchecked Sendable {
  /// Batches that may wait in the queue.
  static let depth = 4

  private let condition = NSCondition()
  private var stage: DecodeStage
  // Guarded by `condition`:
  private var queue: [[DecodedFrame]] = []
  private var head = 0
  private var ended = false
  private var failure: (any Error)?
  private var abandoned = false
  private var finalWarnings: [TraceWarning] = []
  private var graveyard: [[DecodedFrame]] = []

  /// Starts decoding `importer` at once on a new thread.
  init(importer: any TraceImporter) {
    stage = DecodeStage(importer: importer)
    let thread = Thread { [self] in work() }
    thread.stackSize = 8 << 20
    thread.start()
  }

  /// Importer warnings: complete once `nextBatch()` returned nil or threw, empty before.
  var warnings: [TraceWarning] {
    condition.lock()
    defer { condition.unlock() }
    return finalWarnings
  }

  /// The next batch in trace order, or nil at the end; waits for the worker.
  /// - Throws: the importer's error, after every batch decoded before it.
  func nextBatch() throws -> [DecodedFrame]? {
    condition.lock()
    defer { condition.unlock() }
    while head == queue.count && !ended { condition.wait() }
    if head < queue.count {
      let batch = queue[head]
      queue[head] = []
      head += 1
      if head == queue.count {
        queue.removeAll(keepingCapacity: true)
        head = 0
      }
      condition.broadcast()
      return batch
    }
    if let error = failure {
      failure = nil
      throw error
    }
    return nil
  }

  /// Hands back a batch whose frames the caller is done with, so that the worker releases
  /// them: memory is then freed by the thread that allocated it. Freeing on the other thread
  /// made the two threads contend for malloc's arena lock (tens of thousands of context
  /// switches per million frames).
  func bury(_ batch: [DecodedFrame]) {
    condition.lock()
    if !ended { graveyard.append(batch) }
    condition.unlock()
  }

  /// Tells the worker nobody will take more batches (the pipeline was dropped early).
  func abandon() {
    condition.lock()
    abandoned = true
    condition.broadcast()
    condition.unlock()
  }

  private func work() {
    var failed: (any Error)?
    while true {
      releaseBuried()
      let batch: [DecodedFrame]?
      do { batch = try stage.nextBatch() } catch {
        failed = error
        break
      }
      guard let batch, put(batch) else { break }
    }
    condition.lock()
    ended = true
    failure = failed
    finalWarnings = stage.warnings
    condition.broadcast()
    condition.unlock()
    releaseBuried()  // `bury` adds nothing once `ended` is set
  }

  /// Drops the batches handed back, outside the lock.
  private func releaseBuried() {
    var dead: [[DecodedFrame]] = []
    condition.lock()
    swap(&dead, &graveyard)
    condition.unlock()
    dead.removeAll()
  }

  /// Queues a batch, waiting while the queue is full; false when the consumer has gone.
  private func put(_ batch: [DecodedFrame]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while queue.count - head >= Self.depth && !abandoned { condition.wait() }
    if abandoned { return false }
    queue.append(batch)
    condition.broadcast()
    return true
  }
}
