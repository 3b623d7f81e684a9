/// What the app (or the reader stack on its behalf) did, in Core NFC's terms.
public enum OperationKind: String, Sendable, Hashable {
  /// Activation: anticollision and SELECT, plus RATS/ATS (and PPS) for ISO-DEP tags; the
  /// GET_VERSION/READ_SIG identification that directly follows it.
  case connect
  /// Finding out whether and how the tag holds NDEF: Type 2 CC and TLV scan; Type 4 NDEF
  /// application, CC file, NDEF file and NLEN.
  case queryNDEFStatus
  /// Reading the NDEF message.
  case readNDEF
  /// Writing the NDEF message (Type 2 page writes over the NDEF TLV; Type 4 UPDATE BINARY).
  case writeNDEF
  /// Making the tag read-only (Type 2 CC access byte and lock bytes; Type 4 CC write access).
  case writeLock
  /// PWD_AUTH, Ultralight C / AES, MIFARE Classic authentication.
  case authenticate
  /// Any other command (e.g. an app's raw `sendMiFareCommand` or `sendCommand(apdu:)`).
  case transceive
}

/// How an operation ended, as the app saw it.
public enum OperationOutcome: String, Sendable, Hashable {
  /// Every command was answered as the protocol expects.
  case ok
  /// The tag refused (NAK, error status word, missing application).
  case failed
  /// The tag stopped answering (left the field) before the operation finished.
  case interrupted
  /// The trace does not show how it ended.
  case unknown
}

/// One operation of a session: its kind, outcome, the frames it spans and details.
///
/// A value with copy-on-write storage: the session analyzer reads and hands on its current
/// operation many times per frame, and a copy of seven arrays and strings, retained and
/// released field by field, was a large part of that (docs/performance.md). Now a copy is one
/// reference; the storage is copied only when a shared operation is changed.
public struct Operation: Sendable, Equatable {
  /// The fields; changed only through a uniquely referenced instance (`mutable`).
  private final class Storage: @unchecked Sendable {
    @exclusivity(unchecked) var kind: OperationKind
    @exclusivity(unchecked) var outcome: OperationOutcome = .ok
    @exclusivity(unchecked) var reason: String?
    @exclusivity(unchecked) var firstFrame: Int
    @exclusivity(unchecked) var lastFrame: Int
    @exclusivity(unchecked) var unansweredFrames: [Int] = []
    @exclusivity(unchecked) var failedFrames: [Int] = []
    @exclusivity(unchecked) var details: [LayerField] = []
    @exclusivity(unchecked) var acknowledgedPages: [Int] = []
    @exclusivity(unchecked) var classicWrites: [ClassicBlockWrite] = []
    @exclusivity(unchecked) var classicReads: [Int] = []
    @exclusivity(unchecked) var reasonFrame: Int?

    init(kind: OperationKind, frame: Int) {
      self.kind = kind
      firstFrame = frame
      lastFrame = frame
    }

    func copy() -> Storage {
      let c = Storage(kind: kind, frame: firstFrame)
      c.outcome = outcome
      c.reason = reason
      c.lastFrame = lastFrame
      c.unansweredFrames = unansweredFrames
      c.failedFrames = failedFrames
      c.details = details
      c.acknowledgedPages = acknowledgedPages
      c.classicWrites = classicWrites
      c.classicReads = classicReads
      c.reasonFrame = reasonFrame
      return c
    }

    func equals(_ o: Storage) -> Bool {
      kind == o.kind && outcome == o.outcome && reason == o.reason && firstFrame == o.firstFrame
        && lastFrame == o.lastFrame && unansweredFrames == o.unansweredFrames
        && failedFrames == o.failedFrames && details == o.details
        && acknowledgedPages == o.acknowledgedPages && classicWrites == o.classicWrites
        && classicReads == o.classicReads && reasonFrame == o.reasonFrame
    }
  }

  private var storage: Storage

  /// The storage, copied first when another operation shares it.
  private var mutable: Storage {
    mutating get {
      if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
      return storage
    }
  }

  /// The kind.
  public var kind: OperationKind {
    get { storage.kind }
    set { mutable.kind = newValue }
  }
  /// The outcome.
  public var outcome: OperationOutcome {
    get { storage.outcome }
    set { mutable.outcome = newValue }
  }
  /// Why the outcome is what it is (e.g. "NAK 0x0 on WRITE page 40").
  public var reason: String? {
    get { storage.reason }
    _modify { yield &mutable.reason }
  }
  /// Index of the operation's first frame.
  public var firstFrame: Int {
    get { storage.firstFrame }
    set { mutable.firstFrame = newValue }
  }
  /// Index of the operation's last frame.
  public var lastFrame: Int {
    get { storage.lastFrame }
    set { mutable.lastFrame = newValue }
  }
  /// Frame indices of requests that got no answer.
  public var unansweredFrames: [Int] {
    get { storage.unansweredFrames }
    _modify { yield &mutable.unansweredFrames }
  }
  /// Frame indices of the failing answers (NAK, error SW).
  public var failedFrames: [Int] {
    get { storage.failedFrames }
    _modify { yield &mutable.failedFrames }
  }
  /// Kind-specific details (status, capacity, pages written, message length…).
  public var details: [LayerField] {
    get { storage.details }
    _modify { yield &mutable.details }
  }
  /// Type 2 pages whose WRITE the tag acknowledged, in order (rendered as the detail
  /// `pages_acknowledged` when the operation ends).
  public var acknowledgedPages: [Int] {
    get { storage.acknowledgedPages }
    _modify { yield &mutable.acknowledgedPages }
  }
  /// MIFARE Classic blocks the tag acknowledged writing, in order (rendered as the detail
  /// `blocks_written` when the operation ends).
  public var classicWrites: [ClassicBlockWrite] {
    get { storage.classicWrites }
    _modify { yield &mutable.classicWrites }
  }
  /// MIFARE Classic blocks whose plaintext READ the tag answered with 16 bytes, in order (NXP
  /// MF1S50yyX datasheet §12.2): read, though MIFARE Classic memory is not decoded.
  public var classicReads: [Int] {
    get { storage.classicReads }
    _modify { yield &mutable.classicReads }
  }
  /// The frame of the refusal that gave a failed operation its `reason` (the first since the
  /// last `recover`), nil otherwise: `diagnose` heads the operation with that refusal too.
  public internal(set) var reasonFrame: Int? {
    get { storage.reasonFrame }
    set { mutable.reasonFrame = newValue }
  }

  /// Creates an operation spanning one frame.
  public init(kind: OperationKind, frame: Int) {
    storage = Storage(kind: kind, frame: frame)
  }

  public static func == (a: Operation, b: Operation) -> Bool {
    a.storage === b.storage || a.storage.equals(b.storage)
  }

  /// The value of detail `key`.
  public func detail(_ key: String) -> FieldValue? { details.first { $0.key == key }?.value }

  /// Sets detail `key` (replacing an earlier value).
  public mutating func set(_ key: String, _ value: FieldValue) {
    if let i = details.firstIndex(where: { $0.key == key }) {
      details[i].value = value
    } else {
      details.append(LayerField(key, value))
    }
  }

  /// Marks the operation failed (unless already interrupted). The first refusal gives the
  /// `reason`: later ones usually follow from it (a writer retrying, or going on, after a NAK).
  mutating func fail(_ why: String, frame: Int) {
    failedFrames.append(frame)
    guard outcome != .interrupted else { return }
    if outcome != .failed {
      reason = why
      reasonFrame = frame
    }
    outcome = .failed
  }

  /// A readNDEF that read an NDEF length of 0 (`field`: NLEN, the NDEF TLV's L, Ln): the tag
  /// is formatted but holds no message, and Core NFC's readNDEF then ends with 403
  /// ndefReaderSessionErrorZeroLengthMessage (reported, not verified; nfc-facts §5.1, §8.3),
  /// so the call failed although every command was answered.
  mutating func failEmptyRead(lengthField field: String) {
    guard outcome == .ok else { return }
    outcome = .failed
    reason =
      "\(field) is 0: the tag holds no NDEF message, so Core NFC's readNDEF reports 403 "
      + "ndefReaderSessionErrorZeroLengthMessage"
  }

  /// Sets a query's `status`, `capacity` and `rule` from `status` when the answer that
  /// decided it (frame `decidedAt`) is the query's own and the query was not interrupted.
  mutating func settleQuery(
    _ status: (status: NDEFStatus, capacity: Int?, reason: String)?, decidedAt: Int?
  ) {
    guard let status, outcome != .interrupted, let decidedAt, decidedAt >= firstFrame,
      decidedAt <= lastFrame
    else { return }
    set("status", .string(status.status.rawValue))
    if let c = status.capacity { set("capacity", .int(c)) }
    set("rule", .string(status.reason))
  }

  /// Undoes `fail` when a later answer made up for the refusals (a repeat the tag accepted):
  /// ok again, the refused frames kept in `failedFrames`, the refusal's `details` keys gone.
  mutating func recover(dropping keys: Set<String>) {
    outcome = .ok
    reason = nil
    reasonFrame = nil
    details.removeAll { keys.contains($0.key) }
  }

  /// Whether the operation stands failed by exactly the refusals `frames` since its last
  /// recovery: they are the last of `failedFrames` (earlier refusals a retry made up for
  /// stay there too).
  func failedLastBy(_ frames: [Int]) -> Bool {
    outcome == .failed && failedFrames.count >= frames.count
      && failedFrames.suffix(frames.count).elementsEqual(frames)
  }

  /// Marks the operation interrupted: the tag did not answer `frame`. The first command left
  /// unanswered is what the interruption is about: later silent frames (the reader's retries,
  /// a damaged frame no tag answers) keep its reason unless `replacingReason` (an account that
  /// explains the whole silence, such as a chained command cut off).
  mutating func interrupt(_ why: String, frame: Int, replacingReason: Bool = false) {
    unansweredFrames.append(frame)
    if outcome != .interrupted || replacingReason { reason = why }
    outcome = .interrupted
  }

  /// True for an app's own command that wrote the NDEF file (detail `ndef_file_written`: a
  /// DESFire / NTAG 424 DNA WriteData to it the tag acknowledged, NT4H2421Gx §10, WriteData): a
  /// `transceive` that `diagnose` counts as a write.
  public var writesNDEFFile: Bool { detail("ndef_file_written") != nil }

  /// True for an app's own Type 2 WRITE of page 4 whose first byte is no TLV type (detail
  /// `ndef_area_overwritten`, the acknowledgement's frame; NFC Forum T2T 1.0 §2.3): raw page
  /// writes (an amiibo writer's), not writeNDEF, but they replace the tag's TLV area — a
  /// `transceive` that `diagnose` counts as a write.
  public var overwritesNDEFArea: Bool { detail("ndef_area_overwritten") != nil }

  /// True for an operation in which the tag acknowledged a MIFARE Classic WRITE or TRANSFER
  /// (`classicWrites`, detail `blocks_written`; NXP MF1S50yyX datasheet §12.5–12.6): a
  /// `transceive` that `diagnose` counts as a write.
  public var writesClassicBlocks: Bool { !classicWrites.isEmpty }

  /// `writeNDEF interrupted` or `queryNDEFStatus readWrite 492 B`.
  public var shortText: String { kind.rawValue + " " + outcomeText }

  /// The outcome as `sessions` and `diagnose` word it: a queryNDEFStatus that found the
  /// status gives it as Core NFC's completion handler does (`NFCNDEFStatus`: `notSupported`,
  /// `readWrite 492 B`, `readWrite ≤142 B` when the NDEF TLV was not read and the capacity is
  /// counted from byte 16; nfc-facts §8.1), with the outcome after it when not ok; any other
  /// operation its outcome (`interrupted`).
  public var outcomeText: String {
    guard kind == .queryNDEFStatus, case .string(let s)? = detail("status") else {
      return outcome.rawValue
    }
    var text = s
    if case .int(let c)? = detail("capacity") {
      text += detail("capacity_upper_bound") == .bool(true) ? " ≤\(c) B" : " \(c) B"
    }
    if outcome != .ok { text += " (\(outcome.rawValue))" }
    return text
  }
}

/// A MIFARE Classic block the tag acknowledged writing: a WRITE's 16 bytes (the ACK to its
/// part 2, or a reader chip's report of success), or a TRANSFER of a value operation's result
/// (`data` empty: the value is not on the air). NXP MF1S50yyX datasheet §12.5–12.6.
public struct ClassicBlockWrite: Sendable, Equatable {
  /// The block number.
  public var block: Int
  /// The 16 bytes written; empty for a TRANSFER.
  public var data: [UInt8]
  /// The frame of the tag's acknowledgement (or the chip's report).
  public var frame: Int

  /// True for a sector trailer (keys A/B and access bits): block 3 of a 4-block sector below
  /// block 128, block 15 of a 16-block sector from 128 on (MF1S50yyX §8.6, MF1S70yyX §8.6).
  public var isSectorTrailer: Bool { block < 128 ? block % 4 == 3 : (block - 128) % 16 == 15 }

  /// Creates a record.
  public init(block: Int, data: [UInt8], frame: Int) {
    self.block = block
    self.data = data
    self.frame = frame
  }
}

/// A request and the frame that answered it (nil when unanswered).
public struct Exchange: Sendable {
  /// The reader's frame (nil for a tag frame with no request, e.g. a reader chip's report).
  public var request: DecodedFrame?
  /// The tag's answer.
  public var response: DecodedFrame?

  /// The first frame index of the exchange.
  public var firstFrame: Int { request?.frame.index ?? response?.frame.index ?? 0 }
  /// The last frame index of the exchange.
  public var lastFrame: Int { response?.frame.index ?? request?.frame.index ?? 0 }
  /// The request's innermost decode.
  public var command: LayerDecode? { request?.innermost }
  /// The response's innermost decode.
  public var answer: LayerDecode? { response?.innermost }
  /// True when a request expected an answer and got none.
  public var unanswered: Bool { request?.response == .unanswered }
}
