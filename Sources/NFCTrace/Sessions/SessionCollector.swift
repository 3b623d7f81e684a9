/// Runs session analysis over the decoded frame stream: one `SessionAnalyzer` per open session,
/// finished when the session's frames stop, with the memory of earlier sessions on the same UID
/// carried forward. Keeps per-session state only, never every frame of the trace.
public struct SessionCollector: Sendable {
  private var open: (index: Int, analyzer: SessionAnalyzer)?
  private var lastMemoryByUID: [[UInt8]: TagMemory] = [:]
  /// The NXP product GET_VERSION identified, by UID, for later sessions on the same tag.
  private var productByUID: [[UInt8]: NTAGProduct] = [:]
  /// The PMm a FeliCa card's poll answer gave, by IDm: a later session on the card that
  /// starts at a command (a reader talking to several cards in turn) names the same product.
  private var pmmByUID: [[UInt8]: [UInt8]] = [:]
  /// UIDs of ISO-DEP tags that served the NDEF application: a later session on the tag that
  /// does not select it again (a write after a re-activation) still names a Type 4 tag.
  private var ndefApplicationUIDs: Set<[UInt8]> = []
  /// Sessions finished so far, in order.
  public private(set) var finished: [SessionAnalysis] = []

  /// Whether finished sessions keep their memory images (the report, diagnosis and diff need
  /// them; the timeline and the session list do not, and dropping them keeps memory use
  /// independent of the number of sessions).
  public var keepsMemory: Bool

  /// Whether finished sessions are kept in `finished` (false: only handed out by
  /// `takeFinished()`, so memory does not grow with the trace).
  public var retainsSessions: Bool
  private var justFinished: [SessionAnalysis] = []

  /// Most UIDs whose memory is carried forward.
  static let uidLimit = 4096

  /// A collector with no session.
  public init(keepsMemory: Bool = true, retainsSessions: Bool = true) {
    self.keepsMemory = keepsMemory
    self.retainsSessions = retainsSessions
  }

  /// Sessions finished since the last call.
  public mutating func takeFinished() -> [SessionAnalysis] {
    defer { justFinished.removeAll() }
    return justFinished
  }

  /// Takes the next frame of the pipeline. `lookup` gives a session's info by index (the
  /// pipeline's `session(_:)`), for the span of a session that just ended.
  public mutating func push(_ f: DecodedFrame, lookup: (Int) -> SessionInfo?) {
    guard let s = f.session else {
      // Frames outside sessions come only after a session ended (field off, silence). The
      // field-off that ended it may say the log left the session's data out.
      if f.frame.direction == .event, !f.frame.sourceFlags.isEmpty,
        f.frame.sourceFlags.contains(ReaderChipFlag.dataNotLogged)
      {
        open?.analyzer.noteDataNotLogged()
      }
      close(lookup: lookup)
      return
    }
    if let o = open, o.index != s { close(lookup: lookup) }
    if open == nil {
      open = (s, SessionAnalyzer(info: lookup(s) ?? placeholder(s, f)))
    }
    open?.analyzer.push(f)
    // Once the UID is known, the session starts from what earlier sessions on the tag left
    // (a stack that detected NDEF, reconnected, then wrote), not only after it ends.
    if let uid = f.completedUID, let previous = carriedMemory(uid) {
      open?.analyzer.carry(previous)
    }
    if let uid = f.completedUID, !Self.isRandom(uid), let product = productByUID[uid] {
      open?.analyzer.carry(product: product)
    }
    if let uid = f.completedUID, let pmm = pmmByUID[uid] { open?.analyzer.carry(pmm: pmm) }
    if let uid = f.completedUID, ndefApplicationUIDs.contains(uid) {
      open?.analyzer.carryNDEFApplication()
    }
    if open?.analyzer.hasEvents == true, let e = open?.analyzer.takeEvents() { events += e }
  }

  private var events: [OperationEvent] = []

  /// True while the open session's analyzer holds frames whose operation is not known yet
  /// (a reader chain waiting for its last part, `SessionAnalyzer.holdsFrames`).
  public var holdsFrames: Bool { open?.analyzer.holdsFrames ?? false }

  /// Operation starts and ends since the last call (ends of a closed session included).
  public mutating func takeEvents() -> [OperationEvent] {
    defer { events.removeAll() }
    return events
  }

  /// Finishes the open session; call once the pipeline returned nil. `cut` names the import
  /// error that ended the trace early (a cut file): the open session's last operation is then
  /// judged by what the trace shows, not by the silence the cut leaves.
  public mutating func finish(lookup: (Int) -> SessionInfo?, cut: TraceError? = nil) {
    if let cut { open?.analyzer.traceCut(cut.location.description) }
    close(lookup: lookup)
  }

  private mutating func close(lookup: (Int) -> SessionInfo?) {
    // Taken out, not copied: a copy of the analyzer retained and released each of its many
    // arrays and strings once per session.
    guard var o = open.take() else { return }
    let info = lookup(o.index) ?? placeholder(o.index, nil)
    var analysis = o.analyzer.finish(info: info)
    events += o.analyzer.takeEvents()
    let uid = analysis.tag.uid
    // Random 4-byte UIDs (08…) change at every activation and untouched memories carry
    // nothing; the map is capped so a trace of many tags cannot grow it without bound.
    if let previous = carriedMemory(uid) {
      // Carried again: the session may have learnt its UID only late (a reader-reported one).
      analysis.memory = analysis.memory.carried(from: previous)
    }
    if !uid.isEmpty && !Self.isRandom(uid) {
      let room = lastMemoryByUID.count < Self.uidLimit || lastMemoryByUID[uid] != nil
      if !analysis.memory.isEmpty && room { lastMemoryByUID[uid] = analysis.memory }
      if let product = analysis.tag.versionInfo?.product,
        productByUID.count < Self.uidLimit || productByUID[uid] != nil
      {
        productByUID[uid] = product
      }
      if let pmm = analysis.tag.pmm, pmmByUID.count < Self.uidLimit || pmmByUID[uid] != nil {
        pmmByUID[uid] = pmm
      }
      if analysis.tag.hasNDEFApplication, ndefApplicationUIDs.count < Self.uidLimit {
        ndefApplicationUIDs.insert(uid)
      }
    }
    if !keepsMemory { analysis.memory = TagMemory() }
    if retainsSessions { finished.append(analysis) }
    justFinished.append(analysis)
  }

  /// Random 4-byte UIDs (`08…`, ISO/IEC 14443-3 §6.4.4) name no tag across activations.
  private static func isRandom(_ uid: [UInt8]) -> Bool { uid.count == 4 && uid.first == 0x08 }

  /// The memory the last session on `uid` left, if any.
  private func carriedMemory(_ uid: [UInt8]) -> TagMemory? {
    uid.isEmpty || Self.isRandom(uid) ? nil : lastMemoryByUID[uid]
  }

  private func placeholder(_ index: Int, _ f: DecodedFrame?) -> SessionInfo {
    SessionInfo(
      index: index, technology: .unknown, uid: [], firstFrame: f?.frame.index ?? 0,
      lastFrame: f?.frame.index ?? 0, startNs: f?.frame.timeNs ?? 0, endNs: f?.frame.timeNs ?? 0)
  }
}
