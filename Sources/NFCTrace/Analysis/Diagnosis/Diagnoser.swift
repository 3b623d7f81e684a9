import NDEF

/// A write operation the tag's refusal failed (`DiagnosisContext.refusedWrites`).
struct RefusedWrite {
  /// The operation's index in the session.
  var index: Int
  /// The operation.
  var operation: Operation
  /// The refusal's status bytes, from the operation's detail.
  var status: [UInt8]
  /// The first refusal's command (when inside the operation) and answer frames.
  var frames: [Int]
  /// The operation's reason (the first refusal's).
  var reason: String
}

/// What a rule sees: one session's analysis and frame-level evidence, the message the app
/// meant to write, and what earlier sessions on the same tag showed.
public struct DiagnosisContext: Sendable {
  /// The session.
  public var session: SessionAnalysis
  /// RF evidence.
  public var rf: SessionRFStatistics
  /// Writes, refusals, activations, PACKs.
  public var log: SessionCommandLog
  /// The NDEF message the app meant to write (`--expect`), if given.
  public var expected: [UInt8]?
  /// Frame of the last accepted PWD_AUTH (PACK) in an earlier session on the same UID.
  public var earlierAuthFrame: Int?
  /// The session before this one, if any.
  public var previous: SessionAnalysis?

  /// The session index.
  public var index: Int { session.info.index }

  /// The index of the operation spanning `frame`, else the last one starting before it.
  /// The reader activation (REQA/WUPA) `frame` belongs to, else the session's first frame.
  func activation(of frame: Int) -> Int {
    log.activations.last { $0 <= frame } ?? session.info.firstFrame
  }

  /// The last authentication the tag accepted (PWD_AUTH's PACK, an Ultralight C/AES last
  /// answer) before `frame` in its activation: authentication does not survive a new one
  /// (NTAG21x datasheet §8.8).
  func authentication(before frame: Int) -> Int? {
    let start = activation(of: frame)
    return log.packFrames.last { $0 > start && $0 < frame }
  }

  public func operation(at frame: Int) -> Int? {
    let ops = session.operations
    if let i = ops.firstIndex(where: { $0.firstFrame <= frame && frame <= $0.lastFrame }) {
      return i
    }
    return ops.lastIndex { $0.firstFrame <= frame }
  }

  /// Indices of the write operations (writeNDEF, writeLock).
  public var writeOperations: [Int] {
    session.operations.indices.filter {
      session.operations[$0].kind == .writeNDEF || session.operations[$0].kind == .writeLock
    }
  }

  /// The write operations a tag's refusal failed, whose procedure kept the refusal's status
  /// bytes in the hex detail `key` (Type 3 `status_flags`, Type 5 `error_code`), with the
  /// first refusal's frames: its command (when inside the operation) and the refusal.
  func refusedWrites(statusDetail key: String) -> [RefusedWrite] {
    writeOperations.compactMap { i in
      let op = session.operations[i]
      guard op.outcome == .failed, case .hex(let status)? = op.detail(key),
        let frame = op.failedFrames.first, let reason = op.reason
      else { return nil }
      return RefusedWrite(
        index: i, operation: op, status: status, frames: Self.exchange(answeredBy: frame, in: op),
        reason: reason)
    }
  }

  /// The frames of the exchange answered at `frame`: the command just before it when it is
  /// inside operation `op`, and the answer.
  static func exchange(answeredBy frame: Int, in op: Operation) -> [Int] {
    [frame - 1, frame].filter { $0 >= op.firstFrame }
  }

  /// The logged commands inside operation `i`.
  public func commands(in i: Int) -> [SessionCommandLog.Command] {
    guard session.operations.indices.contains(i) else { return [] }
    let op = session.operations[i]
    guard op.firstFrame <= op.lastFrame else { return [] }
    return Array(log.commands(in: op.firstFrame...op.lastFrame))
  }

  /// The Core NFC error for a refused or failed command of operation `i`: 401 for NDEF
  /// writes (`writeNDEF`/`writeLock` report `ndefReaderSessionErrorTagUpdateFailure`), 102 for
  /// raw commands and reads.
  public func refusalError(_ i: Int?) -> CoreNFCError {
    guard let i, session.operations.indices.contains(i) else { return .tagResponseError }
    switch session.operations[i].kind {
    case .writeNDEF, .writeLock: return .tagUpdateFailure
    default: return .tagResponseError
    }
  }
}

/// A diagnosis rule: looks at one session and returns findings. Each rule documents its
/// evidence logic and spec source.
protocol DiagnosisRule: Sendable {
  /// The codes this rule can emit.
  static var codes: [String] { get }
  /// Findings for the session.
  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding]
}

/// Runs every rule over every session and turns operations into verdicts.
public enum Diagnoser {
  /// The rules, in the order their findings are listed when severities tie.
  static let rules: [any DiagnosisRule.Type] = [
    InterruptedWriteRule.self, Type2NAKRule.self, Type2DataAreaOverflowRule.self,
    Type2ReservedAreaRule.self, Type2LockCompletenessRule.self, Type2LockWithoutCCRule.self,
    Type2FrozenLockRule.self,
    Type2MisplacedLockRule.self, Type2CCMagicRule.self,
    Type4StatusRule.self, Type4LengthFieldRule.self, Type3Rule.self, Type5Rule.self,
    NDEFPreconditionRule.self, WriteOrderRule.self, EmptyMessageWriteRule.self, ContentRule.self,
    ReadBackRule.self, ClassicWriteRule.self,
    RFRule.self, BlockNumberRule.self,
    // TagNotHeardRule and ReaderNotHeardRule run first, alone (`diagnose`); listed here for
    // their codes.
    SeveralTagsRule.self, OperationFallbackRule.self, TagNotHeardRule.self, ReaderNotHeardRule.self,
    TraceCutRule.self,
  ]

  /// Findings that explain the others of their operation: listed before the other findings of
  /// the same severity (the session's list, so an operation's headline is its root cause).
  static let rootCauses: Set<String> = [
    "t4t-nlen-size-mismatch", "message-too-large", "t2t-write-into-reserved-area",
  ]

  /// Every code any rule can emit (NDEF validator codes excepted).
  public static var codes: [String] { rules.flatMap { $0.codes } + AppsOwnWrites.codes }

  /// Diagnoses `sessions` with the observer's evidence.
  public static func diagnose(
    sessions: [SessionAnalysis], observer: DiagnosisObserver, expected: [UInt8]?
  ) -> DiagnosisReport {
    var sequence = DiagnosisSequence(expected: expected)
    return DiagnosisReport(
      sessions: sessions.map { s in
        let i = s.info.index
        return sequence.diagnose(
          s, rf: observer.rf[i] ?? SessionRFStatistics(),
          log: observer.logs[i] ?? SessionCommandLog())
      })
  }

  /// Diagnoses one session.
  static func diagnose(_ c: DiagnosisContext) -> SessionDiagnosis {
    // Without the tag's side every other rule would read the missing answers as the tag's.
    guard c.session.tagHeard else {
      var findings = TagNotHeardRule.check(c)
      for i in findings.indices { findings[i].session = c.index }
      return SessionDiagnosis(analysis: c.session, verdicts: [], findings: findings)
    }
    // Without the reader's side (or its data) a silent session would read as "no writes".
    if !c.session.readerHeard {
      var findings = ReaderNotHeardRule.check(c)
      if !findings.isEmpty {
        for i in findings.indices { findings[i].session = c.index }
        return SessionDiagnosis(analysis: c.session, verdicts: [], findings: findings)
      }
    }
    var findings: [DiagnosisFinding] = []
    for rule in rules {
      for var f in rule.check(c) {
        f.session = c.index
        f.frames = Array(Set(f.frames)).sorted()
        findings.append(f)
      }
    }
    findings = AppsOwnWrites.adjust(findings, c)
    findings = dedupe(findings)
    findings = tagSessionNote(findings, c)
    // A message too large for the tag is the root cause of what its write left behind (a
    // torn message, NAKs past the memory): it leads its operation's findings.
    // Likewise a write through a reserved area for the malformed message readers then see.
    func rank(_ f: DiagnosisFinding) -> Int { rootCauses.contains(f.code) ? 0 : 1 }
    let order = findings.enumerated().sorted { a, b in
      if a.element.severity != b.element.severity { return a.element.severity > b.element.severity }
      if rank(a.element) != rank(b.element) { return rank(a.element) < rank(b.element) }
      return (a.element.frames.first ?? 0, a.offset) < (b.element.frames.first ?? 0, b.offset)
    }.map(\.element)
    return SessionDiagnosis(analysis: c.session, verdicts: verdicts(c, findings), findings: order)
  }

  /// What a fix asking for authentication needs in Core NFC terms. The sample apps use an
  /// NFCNDEFReaderSession, whose NFCNDEFTag has no sendMiFareCommand; an app that already
  /// sent PWD_AUTH or AUTHENTICATE in the trace has the tag session, and is not told again.
  static let tagSessionText = tagSessionText(call: "writeNDEF")

  /// `tagSessionText` for the refused operation's own call (writeNDEF, writeLock, readNDEF, or
  /// queryNDEFStatus and then readNDEF).
  static func tagSessionText(call: String) -> String {
    " sendMiFareCommand needs an NFCTagReaderSession (pollingOption .iso14443) and the tag as "
      + ".miFare(NFCMiFareTag): an NFCNDEFReaderSession's NFCNDEFTag cannot send it. "
      + "Authenticate, then call \(call) on that same NFCMiFareTag, in the same connection."
  }

  /// The Core NFC call to make after authenticating, for the refused operation `kind`: the
  /// operation's own NFCNDEFTag method (Apple, NFCNDEFTag: queryNDEFStatus(completionHandler:),
  /// readNDEF(completionHandler:), writeNDEF(_:completionHandler:),
  /// writeLock(completionHandler:)); a refused query is followed by the read it precedes, and
  /// a refused raw command is sent again.
  static func callAfterAuthentication(_ kind: OperationKind?) -> String {
    switch kind {
    case .writeLock?: return "writeLock"
    case .readNDEF?: return "readNDEF"
    case .queryNDEFStatus?: return "queryNDEFStatus and then readNDEF"
    case .transceive?: return "sendMiFareCommand(commandPacket:completionHandler:) again"
    default: return "writeNDEF"
    }
  }

  /// Adds `tagSessionText` to the first fix that asks for authentication through
  /// sendMiFareCommand, unless the app authenticated in this session.
  private static func tagSessionNote(_ findings: [DiagnosisFinding], _ c: DiagnosisContext)
    -> [DiagnosisFinding]
  {
    let authenticated = c.log.commands.contains {
      $0.name == "PWD_AUTH" || $0.name.hasPrefix("AUTHENTICATE")
    }
    guard !authenticated,
      let i = findings.firstIndex(where: {
        $0.fix.contains("sendMiFareCommand")
          && ["PWD_AUTH", "password", "3DES key"].contains(where: $0.fix.contains)
      })
    else { return findings }
    var out = findings
    let ops = c.session.operations
    let refused = out[i].operation.flatMap { ops.indices.contains($0) ? ops[$0].kind : nil }
    // A refused lock-page WRITE is a lock operation, whatever operation it was sent in.
    let call =
      out[i].code == "t2t-nak-lock-page"
      ? "writeLock (or send the lock page's WRITE again)" : callAfterAuthentication(refused)
    out[i].fix += tagSessionText(call: call)
    return out
  }

  /// What a length field of the wrong size (`t4t-nlen-size-mismatch`) makes a write look
  /// like: a huge message, or an unfinished or emptying write (NLEN read as 0).
  static let lengthFieldSymptoms: Set<String> = [
    "message-too-large", "write-unfinished", "ndef-emptied",
  ]

  /// The fallback rule only speaks for operations no other rule explained. A cluster of
  /// damaged frames nearby (`rf-damaged-frames`, which frames it lists depends on what the
  /// capture format records) is context, not the operation's explanation: the refusal itself
  /// is still said, whatever the format.
  private static func dedupe(_ findings: [DiagnosisFinding]) -> [DiagnosisFinding] {
    let context: Set<String> = ["rf-damaged-frames"]
    let explained = Set(
      findings.filter {
        !OperationFallbackRule.codes.contains($0.code) && !context.contains($0.code)
      }
      .compactMap(\.operation))
    // A length field of the wrong size makes readers read a length that was never meant: no
    // message is "too large", unfinished or emptied there.
    let wrongLengthField = Set(
      findings.filter { $0.code == "t4t-nlen-size-mismatch" }.compactMap(\.operation))
    let kept = findings.filter {
      !(OperationFallbackRule.codes.contains($0.code)
        && $0.operation.map(explained.contains) == true)
        && !(Self.lengthFieldSymptoms.contains($0.code)
          && $0.operation.map(wrongLengthField.contains) == true)
    }
    return contextErrors(mergeRepeats(kept))
  }

  /// Radio context (`command-retried`, `rf-damaged-frames`) names no Core NFC error of its own
  /// on an operation another finding already gives one for: the app's completion handler gets
  /// one error (a NAK 1 the reader retried is the write's 401, not also a 101).
  private static func contextErrors(_ findings: [DiagnosisFinding]) -> [DiagnosisFinding] {
    let context: Set<String> = ["command-retried", "rf-damaged-frames"]
    let explained = Set(
      findings.filter { !context.contains($0.code) && $0.coreNFCError != nil }
        .compactMap(\.operation))
    return findings.map { f in
      guard context.contains(f.code), let op = f.operation, explained.contains(op) else {
        return f
      }
      var f = f
      f.coreNFCError = nil
      return f
    }
  }

  /// The same finding for the same operation (a refused command the reader sent again and
  /// again: NAK 5 three times) is said once, with every attempt as evidence.
  private static func mergeRepeats(_ findings: [DiagnosisFinding]) -> [DiagnosisFinding] {
    // The message names the command (its page, its AID): only the same refusal of the same
    // command merges, not refusals of different commands that share a cause.
    struct Key: Hashable {
      var code: String
      var operation: Int?
      var cause: String
      var message: String
    }
    var first: [Key: Int] = [:]
    var count: [Key: Int] = [:]
    var out: [DiagnosisFinding] = []
    for f in findings {
      let key = Key(code: f.code, operation: f.operation, cause: f.cause, message: f.message)
      if let i = first[key], f.operation != nil {
        out[i].frames = Array(Set(out[i].frames + f.frames)).sorted()
        count[key, default: 1] += 1
        continue
      }
      first[key] = out.count
      out.append(f)
    }
    for (key, n) in count where n > 1 {
      guard let i = first[key] else { continue }
      out[i].message += " The same happened \(n) times in this operation."
    }
    return out
  }

  static func verdicts(_ c: DiagnosisContext, _ findings: [DiagnosisFinding]) -> [OperationVerdict]
  {
    var out: [OperationVerdict] = []
    for (i, op) in c.session.operations.enumerated() {
      // An app's own write of the NDEF file (DESFire / NTAG 424 DNA WriteData) is judged as
      // a write too, though its operation stays a transceive.
      // So is an acknowledged MIFARE Classic WRITE or TRANSFER.
      let isWrite =
        op.kind == .writeNDEF || op.kind == .writeLock || op.writesNDEFFile
        || op.writesClassicBlocks || op.overwritesNDEFArea
      let verdict: Verdict
      switch op.outcome {
      case .ok:
        guard isWrite else { continue }
        let mine = findings.filter { $0.operation == i }
        if mine.contains(where: { $0.effect == .unfinished }) {
          verdict = .interrupted
        } else {
          verdict =
            mine.contains { $0.effect == .badContent } ? .succeededWithBadContent : .succeeded
        }
      case .failed: verdict = .failed
      case .interrupted: verdict = .interrupted
      case .unknown:
        guard isWrite || !op.unansweredFrames.isEmpty else { continue }
        // The trace does not show the end (a cut file, an answer the sniffer missed or has only
        // damaged, a MIFARE Classic ciphertext that may be the never-answered HALT, a chained
        // command answered before its last part): unknown.
        // Otherwise an operation left without its answers was interrupted.
        let unseen = [
          "trace_cut", "answer_not_captured", "last_answer_damaged", "encrypted_unanswered",
          "chain_answered",
        ].contains {
          op.detail($0) != nil
        }
        verdict = unseen ? .unknown : .interrupted
      }
      out.append(OperationVerdict(operation: i, kind: op.kind, verdict: verdict))
    }
    if let f = findings.first(where: { $0.effect == .notAttempted }) {
      out.append(
        OperationVerdict(operation: f.operation ?? 0, kind: .writeNDEF, verdict: .notAttempted))
    }
    return out
  }
}
