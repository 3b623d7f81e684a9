/// What really happened in a simulated run, for checking decoders and analyses against.
///
/// Shape:
/// ```
/// GroundTruth
///   tagType: TagKind, reader: ReaderKind, uid: [UInt8]
///   sessions: [Session]            // one per activation
///     index, uid ([] before anticollision completed), firstFrame, lastFrame (frame indices)
///     operations: [Operation]      // (kind, outcome ok|failed|interrupted, reason, frames)
///   ndefStatus: NDEFStatus, capacity: Int      // Core NFC style, of the tag as it started
///   finalMemory: [UInt8]           // Type 2: all pages; Type 4: the NDEF file (NLEN included)
///   ndefRead: [UInt8]?             // last message readNDEF returned
///   ndefWritten: [UInt8]?          // last message writeNDEF completed
///   expectedError: CoreNFCError?   // error of the first failing operation (nil if unknown)
/// ```
public struct GroundTruth: Sendable, Equatable {
  /// How an operation ended.
  public enum Outcome: String, Sendable, Hashable {
    /// Completed.
    case ok
    /// The tag answered with an error, or a precondition failed (read-only, too big, …).
    case failed
    /// The tag left the field (or stopped answering) during the operation.
    case interrupted
  }

  /// One app operation (or the reader's polling round).
  public struct Operation: Sendable, Equatable {
    /// The action's `op` (`connect`, `readNDEF`, …) or `poll` for a polling round.
    public var kind: String
    /// How it ended.
    public var outcome: Outcome
    /// Why it failed or was interrupted, or a short note (`2 tags`, `SW 6A82`); nil when
    /// plain success.
    public var reason: String?
    /// Index of the operation's first frame, nil when it sent nothing.
    public var firstFrame: Int?
    /// Index of the operation's last frame, nil when it sent nothing.
    public var lastFrame: Int?
    /// The Core NFC error the app receives, nil on success and where no source names it
    /// (writeNDEF on a tag whose status is notSupported, reference/nfc-facts.md §8.4).
    public var error: CoreNFCError?
  }

  /// One activation of a tag: from a field on, or from the first answered REQA/WUPA after an
  /// HLTA or S(DESELECT), to the frame before the next such start.
  public struct Session: Sendable, Equatable {
    /// 0-based session number.
    public var index: Int
    /// UID of the tag selected in this session (empty if none was selected).
    public var uid: [UInt8]
    /// Index of the session's first frame.
    public var firstFrame: Int
    /// Index of the session's last frame.
    public var lastFrame: Int
    /// Operations that ended in this session, each inside its frame range: one that crossed
    /// the session's start (a re-activation inside it, restartPolling) starts here at
    /// `firstFrame`, the frames it sent before closing the previous session.
    public var operations: [Operation]
  }

  /// The simulated product.
  public var tagType: TagKind
  /// The reader profile.
  public var reader: ReaderKind
  /// The primary tag's UID.
  public var uid: [UInt8]
  /// Sessions in order.
  public var sessions: [Session]
  /// NDEF status Core NFC reports for the tag as it started.
  public var ndefStatus: NDEFStatus
  /// NDEF capacity in bytes (Type 2: nfcpy rule of reference/nfc-facts.md §5.4; Type 4: max NDEF
  /// file size − 2).
  public var capacity: Int
  /// The tag's memory at the end: Type 2 all pages (PWD/PACK with their real values), Type 4 the
  /// NDEF file.
  public var finalMemory: [UInt8]
  /// The last NDEF message `readNDEF` returned.
  public var ndefRead: [UInt8]?
  /// The last NDEF message `writeNDEF` wrote completely.
  public var ndefWritten: [UInt8]?
  /// The error of the first operation that did not succeed, nil if all did or when that
  /// operation's error is unknown (`Operation.error`).
  public var expectedError: CoreNFCError?

  /// All operations of all sessions, in order.
  public var operations: [Operation] { sessions.flatMap(\.operations) }
}

/// Frames and truth of one simulated run.
public struct SimulationResult: Sendable {
  /// The frames, events (field on/off) included, as an importer would return them.
  public var frames: [Frame]
  /// What happened.
  public var truth: GroundTruth

  /// The run as a trace without field events holds it (Proxmark3 formats have none): the
  /// frames other than events, numbered again from 0, and the truth's frame indices moved to
  /// match. A range starting on an event starts at the next frame kept, one ending on an
  /// event ends at the frame kept before it (not before its start).
  public func droppingEvents() -> SimulationResult {
    // kept[i]: frames kept before frame i.
    var kept: [Int] = []
    kept.reserveCapacity(frames.count + 1)
    var out: [Frame] = []
    for f in frames {
      kept.append(out.count)
      guard f.event == nil else { continue }
      var g = f
      g.index = out.count
      out.append(g)
    }
    kept.append(out.count)
    let last = max(0, out.count - 1)
    func first(_ i: Int) -> Int { min(kept[max(0, min(i, frames.count))], last) }
    func end(_ i: Int, from start: Int) -> Int {
      let j = max(0, min(i, frames.count - 1))
      let mapped = frames.indices.contains(j) && frames[j].event == nil ? kept[j] : kept[j] - 1
      return max(start, min(mapped, last))
    }
    var truth = self.truth
    for s in truth.sessions.indices {
      let start = first(truth.sessions[s].firstFrame)
      truth.sessions[s].firstFrame = start
      truth.sessions[s].lastFrame = end(truth.sessions[s].lastFrame, from: start)
      for o in truth.sessions[s].operations.indices {
        guard let a = truth.sessions[s].operations[o].firstFrame else { continue }
        let opStart = first(a)
        truth.sessions[s].operations[o].firstFrame = opStart
        if let b = truth.sessions[s].operations[o].lastFrame {
          truth.sessions[s].operations[o].lastFrame = end(b, from: opStart)
        }
      }
    }
    return SimulationResult(frames: out, truth: truth)
  }
}

extension CoreNFCError {
  /// 1: feature not supported (`readerErrorUnsupportedFeature`).
  static let unsupportedFeature = CoreNFCError(code: 1, name: "readerErrorUnsupportedFeature")
  /// 104: the tag is not connected (`readerTransceiveErrorTagNotConnected`).
  static let tagNotConnected = CoreNFCError(
    code: 104, name: "readerTransceiveErrorTagNotConnected")
}
