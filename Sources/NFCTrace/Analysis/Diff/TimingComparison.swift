/// Timing of aligned operations and exchanges: response time (tag frame start − reader frame
/// end), the gap before each request (its start − the end of the previous exchange's last
/// frame), retries, and the exchanges whose timing differs beyond `TimingThresholds`. The
/// reader's S(WTX) responses are steps of the command's wait, not exchanges of their own.
public enum TimingComparison {
  /// One `TimingDiff` per operation column of `operations`.
  public static func compare(
    operations: [OperationDiff], exchanges: [ExchangeDiff], a: DiffSide, b: DiffSide,
    thresholds: TimingThresholds
  ) -> [TimingDiff] {
    let gapsA = gaps(a.exchanges)
    let gapsB = gaps(b.exchanges)
    // The steps of ISO-DEP chains are kept for the duration and the retries (they took time on
    // the air; a part sent again is a retry); counts and response times leave them out.
    let byOpA = TraceDiff.group(a.exchanges, count: a.analysis.operations.count, chainSteps: true)
    let byOpB = TraceDiff.group(b.exchanges, count: b.analysis.operations.count, chainSteps: true)
    let checksA = TraceDiff.presenceChecks(a.exchanges, count: a.analysis.operations.count)
    let checksB = TraceDiff.presenceChecks(b.exchanges, count: b.analysis.operations.count)
    var notes = [[TimingNote]](repeating: [], count: operations.count)
    var aligned = [Bool](repeating: false, count: operations.count)
    for (k, x) in exchanges.enumerated() {
      guard let i = x.a, let j = x.b, x.operation < notes.count else { continue }
      aligned[x.operation] = true
      let ra = a.exchanges[i]
      let rb = b.exchanges[j]
      if ra.isWTXResponse || rb.isWTXResponse { continue }
      var why: [String] = []
      if ra.unanswered != rb.unanswered { why.append("unanswered") }
      if let ta = ra.responseTimeNs, let tb = rb.responseTimeNs,
        beyond(ta, tb, thresholds.responseNs, thresholds.responseRatio)
      {
        why.append("response")
      }
      if let ga = gapsA[i], let gb = gapsB[j], beyond(ga, gb, thresholds.gapNs, thresholds.gapRatio)
      {
        why.append("gap")
      }
      guard !why.isEmpty else { continue }
      notes[x.operation].append(
        TimingNote(
          exchange: k, aResponseNs: ra.responseTimeNs, bResponseNs: rb.responseTimeNs,
          aGapNs: gapsA[i], bGapNs: gapsB[j], why: why.joined(separator: ",")))
    }
    return operations.enumerated().map { k, op in
      var t = TimingDiff(
        operation: k, a: op.a.map { timing(byOpA[$0], a.exchanges, presenceChecks: checksA[$0]) },
        b: op.b.map { timing(byOpB[$0], b.exchanges, presenceChecks: checksB[$0]) },
        notable: notes[k])
      // Exchanges that do not align cannot be compared one by one: the medians still can.
      if !aligned[k], let ma = t.a?.medianResponseNs, let mb = t.b?.medianResponseNs {
        t.medianDiffers = beyond(ma, mb, thresholds.responseNs, thresholds.responseRatio)
      }
      return t
    }
  }

  /// True when `x` and `y` differ by at least `ns` and by at least `ratio` of the smaller.
  static func beyond(_ x: Int64, _ y: Int64, _ ns: Int64, _ ratio: Double) -> Bool {
    let d = abs(x - y)
    return d >= ns && Double(d) >= ratio * Double(max(0, min(x, y)))
  }

  /// Gap before each exchange's first frame: its start − the previous exchange's last end
  /// (at least 0: an estimated duration may overshoot).
  public static func gaps(_ records: [ExchangeRecord]) -> [Int64?] {
    var out: [Int64?] = []
    out.reserveCapacity(records.count)
    var previous: Int64?
    for r in records {
      out.append(r.timed ? previous.map { max(0, r.requestNs.saturatingMinus($0)) } : nil)
      previous = r.endNs
    }
    return out
  }

  /// Timing of the exchanges `indices` (one operation's, in order), with the operation's
  /// `presenceChecks` (which `indices` leaves out).
  public static func timing(
    _ indices: [Int], _ records: [ExchangeRecord], presenceChecks: Int = 0
  ) -> OperationTiming {
    var times: [Int64] = []
    var retries = 0
    var answered = 0
    var wtx = 0
    var previous: ExchangeRecord?
    for i in indices where records[i].wtxRequest { wtx += 1 }
    // The duration spans every exchange, the S(WTX) waits included (a command left unanswered
    // after them lasted that long).
    let spanned = indices
    let indices = indices.filter { !records[$0].isWTXResponse }
    for i in indices {
      let r = records[i]
      if !r.chainStep && r.response != nil && r.requestFrame != nil { answered += 1 }
      // Only answers to commands: a chain's steps (the tag's R(ACK) to a part, a part the
      // reader fetched) are framing, which another FSD or FSC changes.
      if !r.chainStep, let t = r.responseTimeNs { times.append(t) }
      // A repeat of a failed command, or the reader's R(NAK) after it: ISO-DEP's own retry,
      // asking for the damaged or missing block again (ISO/IEC 14443-4 §7.5.4).
      // Only after a lost or damaged block: an R(NAK) after an intact answer is a presence check.
      let nak = r.command?.protocolID == .isoDEP && r.command?.name == "R(NAK)"
      if let p = previous, p.failed, p.requestFrame != nil,
        (nak && (p.unanswered || p.responseCRC == .bad)) || p.requestPayload == r.requestPayload
      {
        retries += 1
      }
      previous = r
    }
    times.sort()
    let timed = spanned.allSatisfy { records[$0].timed }
    let first = spanned.first.map { records[$0].requestNs }
    let last = spanned.last.map { records[$0].responseNs ?? records[$0].requestNs }
    return OperationTiming(
      exchanges: indices.filter { !records[$0].chainStep }.count, answered: answered,
      medianResponseNs: median(times),
      maxResponseNs: times.last, retries: retries,
      durationNs: timed ? first.flatMap { f in last.map { $0 - f } } : nil,
      presenceChecks: presenceChecks, wtxRequests: wtx)
  }

  /// The median of sorted values (the lower middle one for an even count).
  static func median(_ sorted: [Int64]) -> Int64? {
    sorted.isEmpty ? nil : sorted[(sorted.count - 1) / 2]
  }
}
