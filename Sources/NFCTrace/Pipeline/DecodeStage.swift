/// The first stage of the pipeline: importer → `FrameDecoder`, in batches.
///
/// A batch holds up to `batchSize` decoded frames in trace order. When the importer throws,
/// the frames decoded before the damage are returned first and the error on the next call, so
/// no frame before the damage is lost.
struct DecodeStage {
  /// Frames per batch: large enough that handing a batch between threads costs little per
  /// frame, small enough that the batches in flight stay a few hundred KiB.
  static let batchSize = 1024

  private var importer: any TraceImporter
  private var decoder = FrameDecoder()
  private var pendingError: (any Error)?
  private var ended = false

  init(importer: any TraceImporter) { self.importer = importer }

  /// Importer warnings so far.
  var warnings: [TraceWarning] { importer.warnings }

  /// The next batch of decoded frames (never empty), or nil at the end.
  /// - Throws: the importer's error, after the frames read before it were returned.
  mutating func nextBatch() throws -> [DecodedFrame]? {
    if let error = pendingError {
      pendingError = nil
      ended = true
      throw error
    }
    guard !ended else { return nil }
    var batch: [DecodedFrame] = []
    batch.reserveCapacity(Self.batchSize)
    do {
      while batch.count < Self.batchSize {
        guard let frame = try importer.next() else {
          ended = true
          break
        }
        batch.append(decoder.decode(frame))
      }
    } catch {
      if batch.isEmpty {
        ended = true
        throw error
      }
      pendingError = error
    }
    return batch.isEmpty ? nil : batch
  }
}
