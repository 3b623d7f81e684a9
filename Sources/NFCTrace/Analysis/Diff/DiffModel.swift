import NDEF

/// One session chosen for a diff: where it came from, its analysis and its exchanges.
public struct DiffSide: Sendable {
  /// The trace path as given on the command line.
  public var path: String
  /// The session's analysis (tag, operations, memory, NDEF status).
  public var analysis: SessionAnalysis
  /// The session's exchanges, each with its operation index (from `ExchangeRecorder`).
  public var exchanges: [ExchangeRecord]

  /// How many sessions the trace has.
  public var sessionCount = 1
  /// The trace's other sessions in which an operation failed or was interrupted: the session
  /// index and those operations (`writeNDEF interrupted`), so a failure outside the compared
  /// session is not missed.
  public var otherFailures: [(session: Int, operations: String)] = []

  /// A side; `sessions`: all of the trace's sessions (for `sessionCount`, `otherFailures`;
  /// none given: this session alone).
  public init(
    path: String, analysis: SessionAnalysis, exchanges: [ExchangeRecord],
    sessions: [SessionAnalysis] = []
  ) {
    self.init(
      path: path, analysis: analysis, exchanges: exchanges, sessionCount: sessions.count,
      failures: sessions.compactMap { s in Self.failures(of: s).map { (s.info.index, $0) } })
  }

  /// A side of a trace streamed past: `sessionCount` sessions, `failures` every session's
  /// failed or interrupted operations (`failures(of:)`; the compared session's are left out).
  public init(
    path: String, analysis: SessionAnalysis, exchanges: [ExchangeRecord], sessionCount: Int,
    failures: [(session: Int, operations: String)]
  ) {
    self.path = path
    self.analysis = analysis
    self.exchanges = exchanges
    self.sessionCount = max(1, sessionCount)
    otherFailures = failures.filter { $0.session != analysis.info.index }
  }

  /// Session `s`'s failed or interrupted operations (`writeNDEF interrupted · …`), nil when
  /// none.
  public static func failures(of s: SessionAnalysis) -> String? {
    let bad = s.operations.filter { $0.outcome == .failed || $0.outcome == .interrupted }
    return bad.isEmpty ? nil : bad.map(\.shortText).joined(separator: " · ")
  }

  /// The session index.
  public var session: Int { analysis.info.index }
}

/// A value that differs between A and B (nil on a side that has none).
public struct FieldDifference: Sendable, Equatable {
  /// What differs: `outcome`, `reason`, `details.pages_acknowledged`, `uri`, `product`…
  public var field: String
  /// The value in A.
  public var a: FieldValue?
  /// The value in B.
  public var b: FieldValue?
  /// Positions of the bytes of a `.hex` `a` that belong to a secret, printed `••`.
  public var aSecret: Set<Int> = []
  /// The same for `b`.
  public var bSecret: Set<Int> = []

  /// A difference.
  public init(_ field: String, _ a: FieldValue?, _ b: FieldValue?) {
    self.field = field
    self.a = a
    self.b = b
  }
}

/// One column of the aligned operations.
public struct OperationDiff: Sendable {
  /// Index into A's operations (nil: only in B).
  public var a: Int?
  /// Index into B's operations (nil: only in A).
  public var b: Int?
  /// Differences of the paired operations (outcome, reason, unanswered/failed counts,
  /// details); empty when the pair is the same or one side is missing.
  public var differences: [FieldDifference]
  /// True when both sides exist and nothing differs (exchanges included).
  public var same: Bool
}

/// One column of the aligned exchanges inside a pair of aligned operations.
public struct ExchangeDiff: Sendable {
  /// Index into `TraceDiff.operations` of the operation pair holding the exchanges.
  public var operation: Int
  /// Index into A's exchanges (nil: only in B).
  public var a: Int?
  /// Index into B's exchanges (nil: only in A).
  public var b: Int?
  /// What differs: `command` (request bytes), `response` (answer bytes, or answered vs not).
  public var differences: [String]
  /// True when both sides exist with the same request and response bytes.
  public var same: Bool { a != nil && b != nil && differences.isEmpty }
}

/// Which memory image a difference is in.
public enum MemoryImage: String, Sendable {
  /// The memory as the session left it.
  case end
  /// The memory as the session found it.
  case start
}

/// A tag memory unit that differs: a Type 2 page (4 bytes) or a 16-byte row of a Type 4 file.
public struct MemoryDifference: Sendable, Equatable {
  /// End or start image.
  public var image: MemoryImage
  /// Type 4 file id; nil for Type 2 memory and Type 3 blocks.
  public var file: UInt16?
  /// True for a Type 3 block (16 bytes) of the NDEF service.
  public var isBlock = false
  /// Type 2: page number. Type 4: byte offset in the file. Type 3: block number.
  public var unit: Int
  /// Byte address of the unit (page × 4 for Type 2; the offset for Type 4).
  public var offset: Int
  /// A's bytes (nil where no byte is known).
  public var a: [UInt8]?
  /// B's bytes.
  public var b: [UInt8]?
  /// A's bytes one by one, nil where a byte is not known (a unit known in part).
  public var aBytes: [UInt8?] = []
  /// B's bytes one by one.
  public var bBytes: [UInt8?] = []
  /// A's provenance for the unit: `read`, `written`, `written-unacknowledged`, `unknown`,
  /// or `mixed`.
  public var aState: String
  /// B's provenance.
  public var bState: String
  /// The frame that set A's bytes (the latest of the unit), if any.
  public var aFrame: Int?
  /// The frame that set B's bytes.
  public var bFrame: Int?
  /// True when `aFrame` is before A's session: the unit was carried from an earlier session
  /// on the same UID, and `aState` is what that session did (`report`'s `earlier_session`).
  public var aEarlierSession = false
  /// The same for B.
  public var bEarlierSession = false
  /// Positions in the unit of the bytes that belong to a secret on either side (the same
  /// positions masked on both), printed `••`.
  public var secret: Set<Int> = []
}

/// One side's final NDEF message as its end memory holds it.
public struct NDEFSideState: Sendable {
  /// `message` (a message could be decoded), `empty` (NDEF TLV / NLEN of length 0), `none`
  /// (the data area holds no NDEF TLV), `incomplete` (the message runs into unread bytes),
  /// `unknown` (the session did not read the NDEF area).
  public var state: String
  /// The message bytes (for `message`).
  public var message: [UInt8]?
  /// Bytes of the TLV / NDEF file the message depends on that were written without an
  /// acknowledgement: the tag may hold something else there.
  public var unacknowledgedBytes: Int
  /// The validator's report (relax mode), for `message`.
  public var report: NDEFReport?
  /// Error finding codes of the validator (and failure code).
  public var errors: [String]
  /// Offsets in `message` of the bytes that belong to a secret (the payload of a record
  /// holding a Wi-Fi network key): printed `••` unless secrets are shown.
  public var secretOffsets: Set<Int> = []
  /// The tag memory addresses of those bytes.
  public var secretAddresses = SecretAddresses()

  /// A side with no decodable message in `state`.
  public static func without(_ state: String, unacknowledged: Int = 0) -> NDEFSideState {
    NDEFSideState(
      state: state, message: nil, unacknowledgedBytes: unacknowledged, report: nil, errors: [])
  }
}

/// Tag memory addresses of bytes that belong to a secret, by kind of memory.
public struct SecretAddresses: Sendable, Equatable {
  /// Type 2 byte addresses (page × 4 + byte).
  public var type2: Set<Int> = []
  /// Type 3 byte addresses of the NDEF service (block × 16 + byte).
  public var type3: Set<Int> = []
  /// Type 4 byte offsets, by file id.
  public var files: [UInt16: Set<Int>] = [:]
  /// Type 2 byte addresses of an NTAG21x / Ultralight EV1 PWD (4 bytes) and PACK (2 bytes)
  /// holding a value that is not zeros nor NXP's factory default PWD `FF FF FF FF` (the rule
  /// `report` masks by; NTAG213/215/216 datasheet §8.5.7, §8.8.1). Kept apart from `type2`
  /// because a READ answers zeros there whatever they hold: zeros read are not masked.
  public var password: Set<Int> = []
  /// The NTAG21x / Ultralight EV1 PWD and PACK pages of the product identified (its CFG0
  /// page + 2 and + 3; datasheet §8.5.7), whatever they hold: a WRITE there sends the new
  /// password, masked unless zeros or the factory default, acknowledged or not.
  public var pwdPage: Int?
  /// The PACK page (see `pwdPage`).
  public var packPage: Int?
  /// Type 2 byte addresses of an Ultralight C's 3DES key (pages 2Ch–2Fh, MF0ICU2 datasheet
  /// §7.5.7) on a tag identified as one, whatever they hold: write-only, so only WRITEs and
  /// memory rows show them (a READ there returns other pages, not the key).
  public var ultralightCKey: Set<Int> = []

  /// None.
  public init() {}

  /// True when no byte is secret.
  public var isEmpty: Bool {
    type2.isEmpty && type3.isEmpty && password.isEmpty && pwdPage == nil
      && ultralightCKey.isEmpty && files.values.allSatisfy(\.isEmpty)
  }

  /// Adds `other`'s addresses.
  public mutating func formUnion(_ other: SecretAddresses) {
    type2.formUnion(other.type2)
    type3.formUnion(other.type3)
    password.formUnion(other.password)
    ultralightCKey.formUnion(other.ultralightCKey)
    pwdPage = pwdPage ?? other.pwdPage
    packPage = packPage ?? other.packPage
    files.merge(other.files) { $0.union($1) }
  }

  /// These addresses and `other`'s; the PWD and PACK pages are these ones where known.
  public func union(_ other: SecretAddresses) -> SecretAddresses {
    var out = self
    out.formUnion(other)
    return out
  }

  /// Every Type 4 offset whatever the file (an exchange does not say which file is selected).
  var anyFile: Set<Int> { files.values.reduce(into: Set<Int>()) { $0.formUnion($1) } }
}

/// One column of the aligned NDEF records, with the fields that differ.
public struct NDEFRecordDiff: Sendable {
  /// Record index in A's message (nil: only in B).
  public var a: Int?
  /// Record index in B's message (nil: only in A).
  public var b: Int?
  /// Differences (`tnf`, `type`, `id`, `kind`, then payload fields by path like `uri`,
  /// `titles.en`, `records[0].decoded.uri`).
  public var differences: [FieldDifference]
  /// True when both records exist and nothing differs.
  public var same: Bool { a != nil && b != nil && differences.isEmpty }
}

/// The NDEF comparison.
public struct NDEFDiff: Sendable {
  /// A's final message.
  public var a: NDEFSideState
  /// B's final message.
  public var b: NDEFSideState
  /// Differences of state, length and bytes of the message, unacknowledged bytes and validity.
  public var differences: [FieldDifference]
  /// Records aligned by TNF and type.
  public var records: [NDEFRecordDiff]
  /// True when the messages, states and records are the same.
  public var same: Bool { differences.isEmpty && records.allSatisfy(\.same) }
}

/// Timing of one side's exchanges in one operation.
public struct OperationTiming: Sendable, Equatable {
  /// Exchanges in the operation, as the commands are compared: the steps of a completed
  /// ISO-DEP chain or wait are not exchanges of their own, so another FSD or FSC does not
  /// change the count.
  public var exchanges: Int
  /// Requests of `exchanges` that got an answer.
  public var answered: Int
  /// Median response time (tag frame start − reader frame end) of the answers to commands, ns:
  /// the steps of ISO-DEP chains and waits (a tag's R(ACK) to a chained part, a part fetched
  /// by an R(ACK), an S(WTX) exchange) are left out, so framing alone cannot move it; nil
  /// without answers or timestamps.
  public var medianResponseNs: Int64?
  /// Longest response time of the answers to commands, ns.
  public var maxResponseNs: Int64?
  /// Repeats of a command whose previous attempt failed (no answer, NAK, error SW, bad CRC).
  public var retries: Int
  /// First frame start to last frame start of the operation's exchanges, ns (nil when the
  /// source has no timestamps).
  public var durationNs: Int64?
  /// ISO-DEP presence checks the reader made during the operation (`R(NAK)`/`R(ACK)` answered
  /// with R(ACK), or an empty I-block, after an intact answer): counted, not compared, and not
  /// in `exchanges` or `durationNs`.
  public var presenceChecks = 0
  /// S(WTX) requests the tag sent during the operation: how often it asked for more time
  /// (ISO/IEC 14443-4 §7.3). Compared: a difference marks the timing row `≠`.
  public var wtxRequests = 0
}

/// An aligned exchange whose timing differs notably.
public struct TimingNote: Sendable, Equatable {
  /// Index into `TraceDiff.exchanges`.
  public var exchange: Int
  /// A's response time, ns.
  public var aResponseNs: Int64?
  /// B's response time, ns.
  public var bResponseNs: Int64?
  /// A's gap: this request's start − the previous frame's start in the session, ns.
  public var aGapNs: Int64?
  /// B's gap.
  public var bGapNs: Int64?
  /// Why it is listed: `response`, `gap`, `unanswered`.
  public var why: String
}

/// Timing of one aligned operation pair.
public struct TimingDiff: Sendable {
  /// Index into `TraceDiff.operations`.
  public var operation: Int
  /// A's timing (nil when the operation is only in B).
  public var a: OperationTiming?
  /// B's timing.
  public var b: OperationTiming?
  /// Exchanges whose timing differs beyond `TimingThresholds`.
  public var notable: [TimingNote]
  /// True when no exchange of the operation aligned with one of the other side (so none can
  /// be `notable`) and the two sides' median response times differ beyond the response
  /// thresholds.
  public var medianDiffers = false

  /// True when the two sides' timing is alike: both have the operation, no exchange is
  /// notable, the medians do not differ, and the numbers of exchanges, retries and S(WTX)
  /// requests are equal.
  public var same: Bool {
    notable.isEmpty && !medianDiffers && a?.exchanges == b?.exchanges && a?.retries == b?.retries
      && a?.wtxRequests == b?.wtxRequests
  }
}

/// When a timing difference is worth listing. Response times of the same tag vary by a few µs
/// between captures (sniffer clock, frame-start detection); reader gaps vary by far more (host
/// scheduling), so each has its own bar.
public struct TimingThresholds: Sendable {
  /// Response times differ by at least this many ns…
  public var responseNs: Int64 = 50_000
  /// …and by at least this fraction of the smaller one.
  public var responseRatio: Double = 0.2
  /// Gaps differ by at least this many ns…
  public var gapNs: Int64 = 2_000_000
  /// …and by at least this fraction of the smaller one.
  public var gapRatio: Double = 0.5

  /// The defaults.
  public init() {}
}

/// The difference of two sessions (of two traces, or two sessions of one trace).
public struct TraceDiff: Sendable {
  /// Session A.
  public var a: DiffSide
  /// Session B.
  public var b: DiffSide
  /// Tag identity differences (UID, product, ATQA, SAK, ATS, version).
  public var tag: [FieldDifference]
  /// Operations aligned by kind (and, among equal kinds, by their commands).
  public var operations: [OperationDiff]
  /// Exchanges aligned inside each aligned operation pair (all of them, same ones included).
  public var exchanges: [ExchangeDiff]
  /// Memory units that differ in value or certainty (end image, then start image).
  public var memory: [MemoryDifference]
  /// The final NDEF messages.
  public var ndef: NDEFDiff
  /// Timing per aligned operation pair.
  public var timing: [TimingDiff]

  /// True when nothing but timing differs.
  public var same: Bool {
    tag.isEmpty && operations.allSatisfy(\.same) && memory.isEmpty && ndef.same
  }
}
