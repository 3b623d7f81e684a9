extension TraceDiff {
  /// Compares session `a` with session `b`: tags, operations aligned by kind, the exchanges
  /// inside each aligned operation pair aligned by command, memory, NDEF and timing. Secrets
  /// are compared as they are; unless `showSecrets`, their bytes are marked to be printed
  /// `••` (`maskSecrets`).
  public init(
    a: DiffSide, b: DiffSide, thresholds: TimingThresholds = TimingThresholds(),
    showSecrets: Bool = false
  ) {
    self.a = a
    self.b = b
    tag = Self.tagDifferences(a.analysis.tag, b.analysis.tag)
    let byOpA = Self.group(a.exchanges, count: a.analysis.operations.count)
    let byOpB = Self.group(b.exchanges, count: b.analysis.operations.count)
    let columns = Self.alignOperations(
      a.analysis.operations, b.analysis.operations, byOpA, byOpB, a, b)
    var ops: [OperationDiff] = []
    var xs: [ExchangeDiff] = []
    for column in columns {
      let index = ops.count
      var diff = OperationDiff(a: column.a, b: column.b, differences: [], same: false)
      if let i = column.a, let j = column.b {
        diff.differences = Self.operationDifferences(
          a.analysis.operations[i], b.analysis.operations[j])
        let inner = Self.alignExchanges(
          byOpA[i], byOpB[j], a.exchanges, b.exchanges, operation: index)
        xs += inner
        diff.same = diff.differences.isEmpty && inner.allSatisfy(\.same)
      }
      ops.append(diff)
    }
    operations = ops
    exchanges = xs
    memory = MemoryComparison.differences(a.analysis, b.analysis)
    ndef = NDEFComparison.compare(a.analysis, b.analysis, showSecrets: showSecrets)
    timing = TimingComparison.compare(
      operations: ops, exchanges: xs, a: a, b: b, thresholds: thresholds)
    if !showSecrets { maskSecrets() }
  }

  /// Exchange indices per operation index. The reader's closing HLTA, HLTB or S(DESELECT)
  /// is left out: whether a reader halts the tag at the end says nothing of the operation
  /// it follows (it made identical writes differ). So are the steps of a completed ISO-DEP
  /// chain, unless `chainSteps` (timing: they took time on the air): the APDU they carry is
  /// compared whole, its framing as `framing`. ISO-DEP presence checks are never in it
  /// (`presenceChecks` gives them).
  static func group(_ records: [ExchangeRecord], count: Int, chainSteps: Bool = false) -> [[Int]] {
    var out = [[Int]](repeating: [], count: count)
    for (i, r) in records.enumerated()
    where !closing.contains(r.name) && (chainSteps || !r.chainStep) && !r.presenceCheck {
      if let op = r.operation, op >= 0, op < count { out[op].append(i) }
    }
    return out
  }

  /// ISO-DEP presence checks per operation index (`ExchangeRecord.presenceCheck`).
  static func presenceChecks(_ records: [ExchangeRecord], count: Int) -> [Int] {
    var out = [Int](repeating: 0, count: count)
    for r in records where r.presenceCheck {
      if let op = r.operation, op >= 0, op < count { out[op] += 1 }
    }
    return out
  }

  private static let closing: Set<String> = ["HLTA", "HLTB", "S(DESELECT)"]

  // MARK: Tag

  static func tagDifferences(_ a: TagIdentity, _ b: TagIdentity) -> [FieldDifference] {
    func hex(_ v: [UInt8]?) -> FieldValue? { v.map { .hex($0) } }
    /// MSB first, as the report writes it (`00 44`).
    func atqa(_ v: UInt16?) -> FieldValue? {
      v.map { .hex([UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)]) }
    }
    let pairs: [(String, FieldValue?, FieldValue?)] = [
      ("technology", .string(a.technology.rawValue), .string(b.technology.rawValue)),
      ("uid", a.uidString.map { .string($0) }, b.uidString.map { .string($0) }),
      ("product", a.product.map { .string($0) }, b.product.map { .string($0) }),
      ("atqa", atqa(a.atqa), atqa(b.atqa)),
      ("sak", a.sak.map { .hex([$0]) }, b.sak.map { .hex([$0]) }),
      ("ats", hex(a.ats), hex(b.ats)),
      ("atqb", hex(a.atqb), hex(b.atqb)),
      ("atr", hex(a.atr), hex(b.atr)),
      ("version", hex(a.version), hex(b.version)),
      ("several_tags", .bool(a.collision), .bool(b.collision)),
    ]
    return pairs.filter { $0.1 != $0.2 }.map { FieldDifference($0.0, $0.1, $0.2) }
  }

  // MARK: Operations

  /// Operations pair only with the same kind; among those, the same outcome and similar
  /// commands score higher, so an extra operation in the middle shows as one gap.
  static func alignOperations(
    _ opsA: [Operation], _ opsB: [Operation], _ byOpA: [[Int]], _ byOpB: [[Int]],
    _ a: DiffSide, _ b: DiffSide
  ) -> [SequenceAlignment.Pair] {
    let keysA = byOpA.map { Self.keyCounts($0, a.exchanges) }
    let keysB = byOpB.map { Self.keyCounts($0, b.exchanges) }
    let commandsA = byOpA.map { Self.commandCounts($0, a.exchanges) }
    let commandsB = byOpB.map { Self.commandCounts($0, b.exchanges) }
    // Among alignments of equal score, the one pairing operations that sent the same command
    // bytes: of two writes of one kind and outcome, the identical one is the partner and the
    // other is the extra (`+`/`−`) row, whatever their order.
    return SequenceAlignment.align(
      Array(opsA.indices), Array(opsB.indices), tiebreakMax: contentScale,
      tiebreak: { i, j in Self.contentSimilarity(commandsA[i], commandsB[j]) }
    ) { i, j in
      guard opsA[i].kind == opsB[j].kind else { return nil }
      var s = 10
      if opsA[i].outcome == opsB[j].outcome { s += 3 }
      return s + Self.similarity(keysA[i], keysB[j])
    }
  }

  private static func keyCounts(_ indices: [Int], _ records: [ExchangeRecord]) -> [String: Int] {
    var out: [String: Int] = [:]
    for i in indices { out[records[i].key, default: 0] += 1 }
    return out
  }

  /// How many times each request payload (CRC and ISO-DEP prologue excluded) was sent.
  private static func commandCounts(_ indices: [Int], _ records: [ExchangeRecord]) -> [[UInt8]:
    Int]
  {
    var out: [[UInt8]: Int] = [:]
    for i in indices { out[Array(records[i].requestPayload), default: 0] += 1 }
    return out
  }

  /// Resolution of `contentSimilarity`.
  private static let contentScale = 100

  /// 0…`contentScale`: the share of commands sent byte for byte alike by both operations
  /// (multiset overlap of the request payloads over the larger count; both empty: all alike).
  static func contentSimilarity(_ a: [[UInt8]: Int], _ b: [[UInt8]: Int]) -> Int {
    let total = max(a.values.reduce(0, +), b.values.reduce(0, +))
    guard total > 0 else { return contentScale }
    let shared = a.reduce(0) { $0 + min($1.value, b[$1.key] ?? 0) }
    return shared * contentScale / total
  }

  /// 0…4: how many commands the two operations share (multiset overlap over the larger).
  private static func similarity(_ a: [String: Int], _ b: [String: Int]) -> Int {
    let total = max(a.values.reduce(0, +), b.values.reduce(0, +))
    guard total > 0 else { return 4 }
    let shared = a.reduce(0) { $0 + min($1.value, b[$1.key] ?? 0) }
    return shared * 4 / total
  }

  /// Operation details whose value is a frame index (docs/json.md): each trace's own, so only
  /// whether both sides have one is compared.
  static let frameDetails: Set<String> = [
    "answer_not_captured", "block_limit_exceeded", "block_limit_refused", "chain_answered",
    "chain_part", "classic_auth_abandoned", "classic_auth_unanswered", "data_before_write_flag",
    "duplicate_error", "encrypted_unanswered", "last_answer_damaged", "ndef_area_overwritten",
    "ndef_detection_failed", "ndef_file_written", "nt_not_captured", "write_count_exceeded",
    "write_flag_set", "wrong_block_command", "wrong_block_number",
  ]

  static func operationDifferences(_ a: Operation, _ b: Operation) -> [FieldDifference] {
    var out: [FieldDifference] = []
    func add(_ field: String, _ x: FieldValue?, _ y: FieldValue?, same: Bool? = nil) {
      if !(same ?? (x == y)) { out.append(FieldDifference(field, x, y)) }
    }
    add("outcome", .string(a.outcome.rawValue), .string(b.outcome.rawValue))
    add(
      "reason", a.reason.map { .string($0) }, b.reason.map { .string($0) },
      same: a.reason.map(withoutFrameNumbers) == b.reason.map(withoutFrameNumbers))
    add("unanswered", .int(a.unansweredFrames.count), .int(b.unansweredFrames.count))
    add("failed", .int(a.failedFrames.count), .int(b.failedFrames.count))
    var keys = a.details.map(\.key)
    for d in b.details where !keys.contains(d.key) { keys.append(d.key) }
    for k in keys {
      let (x, y) = (a.detail(k), b.detail(k))
      add("details." + k, x, y, same: frameDetails.contains(k) ? (x == nil) == (y == nil) : nil)
    }
    return out
  }

  /// `text` with its frame indices replaced by "N": the numbers after "frame " / "frames " (a
  /// list or range of them: "frames 4, 7 and 9", "frames 4–6") and after "#". Frame indices
  /// are each trace's own (docs/json.md).
  static func withoutFrameNumbers(_ text: String) -> String {
    var out = ""
    var rest = Substring(text)
    while let i = rest.firstIndex(where: { $0 == "#" || $0 == "f" }) {
      out += rest[..<i]
      rest = rest[i...]
      let marker: Substring? =
        rest.hasPrefix("#")
        ? "#" : rest.hasPrefix("frames ") ? "frames " : rest.hasPrefix("frame ") ? "frame " : nil
      guard let marker, rest.dropFirst(marker.count).first?.isASCII == true,
        rest.dropFirst(marker.count).first?.isNumber == true
      else {
        out += rest.prefix(1)
        rest = rest.dropFirst()
        continue
      }
      out += marker + "N"
      rest = skipNumberList(rest.dropFirst(marker.count))
    }
    return out + rest
  }

  /// `s` past a leading number and the numbers joined to it by ", ", " and " or a dash.
  private static func skipNumberList(_ s: Substring) -> Substring {
    var rest = s.drop { $0.isNumber }
    while true {
      guard let joint = [", ", " and ", "–", "-"].first(where: { rest.hasPrefix($0) }),
        rest.dropFirst(joint.count).first?.isNumber == true
      else { return rest }
      rest = rest.dropFirst(joint.count).drop { $0.isNumber }
    }
  }

  // MARK: Exchanges

  /// Exchanges pair only when their keys (command + location) are equal; identical bytes
  /// score higher, so a retry of a command shows as one extra exchange.
  static func alignExchanges(
    _ ia: [Int], _ ib: [Int], _ ra: [ExchangeRecord], _ rb: [ExchangeRecord], operation: Int
  ) -> [ExchangeDiff] {
    let keysA = ia.map { ra[$0].key }
    let keysB = ib.map { rb[$0].key }
    let pairs = SequenceAlignment.align(Array(ia.indices), Array(ib.indices)) { x, y in
      guard keysA[x] == keysB[y] else { return nil }
      let differences = exchangeDifferences(ra[ia[x]], rb[ib[y]])
      return 10 + (differences.contains("command") ? 0 : 2)
        + (differences.contains("response") ? 0 : 2)
    }
    return pairs.map { p in
      let x = p.a.map { ia[$0] }
      let y = p.b.map { ib[$0] }
      var d: [String] = []
      if let x, let y { d = exchangeDifferences(ra[x], rb[y]) }
      return ExchangeDiff(operation: operation, a: x, b: y, differences: d)
    }
  }

  /// `command` when the request payloads differ; `response` when the answers differ (bytes,
  /// or one answered and the other not); `framing` when the same exchange took a different
  /// number of chained I-blocks on the two sides (another FSD or FSC).
  static func exchangeDifferences(_ a: ExchangeRecord, _ b: ExchangeRecord) -> [String] {
    var out: [String] = []
    // A frame that failed its CRC differs from an intact one even when the bytes before the
    // CRC agree: the radio damaged it on one side only.
    if a.requestPayload != b.requestPayload || (a.requestCRC == .bad) != (b.requestCRC == .bad) {
      out.append("command")
    }
    if a.responsePayload != b.responsePayload || a.unanswered != b.unanswered
      || (a.responseCRC == .bad) != (b.responseCRC == .bad)
    {
      out.append("response")
    }
    if a.framedDifferently(from: b) {
      out.append("framing")
    }
    return out
  }
}
