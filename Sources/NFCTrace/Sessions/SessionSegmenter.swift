/// One session: the frames from an activation of one tag to the next split.
public struct SessionInfo: Sendable, Equatable {
  /// 0-based session index.
  public var index: Int
  /// The RF technology seen.
  public var technology: Technology
  /// The tag's UID once anticollision completed (empty if never seen).
  public var uid: [UInt8]
  /// Index of the session's first frame.
  public var firstFrame: Int
  /// Index of the session's last frame.
  public var lastFrame: Int
  /// Time of the first frame, ns from the trace start.
  public var startNs: Int64
  /// Time of the last frame, ns from the trace start.
  public var endNs: Int64
  /// False when the source has no times (frames numbered in order, `SourceTime.Unit.order`):
  /// `startNs` and `endNs` are then 0.
  public var timed = true

  /// `12.408–13.022 s`, or `no time` for a source without times.
  public var span: String {
    timed ? SessionsRender.seconds(startNs) + "–" + SessionsRender.seconds(endNs) + " s" : "no time"
  }

  /// The UID as `04:66:D6:5F:00:50:9C`, or nil before anticollision.
  public var uidString: String? { uid.isEmpty ? nil : Hex.uid(uid) }
}

/// Splits the paired frame stream into sessions, streaming.
///
/// A session starts at the first REQA/WUPA the tag answers (or at the first answered exchange
/// when the capture starts mid-activation). It ends at field off/on, at a new activation after
/// HLTA (or an S(DESELECT), answered, or unanswered and followed by the activation) or after
/// silence longer than `silenceNs`, and when
/// anticollision finds a different UID.
/// Polling frames no tag answered outside a session get no session (`session == nil`).
///
/// To split on a different UID, the frames of a re-activation inside a session are held until
/// the UID is complete (at most `holdLimit` frames), then assigned.
public struct SessionSegmenter: Sendable {
  /// Silence after which a new activation starts a new session: 100 ms.
  public var silenceNs: Int64 = 100_000_000
  /// Most frames held while waiting for a re-activation's UID.
  public var holdLimit = 64
  /// Sessions closed so far.
  public private(set) var closed: [SessionInfo] = []
  /// The open session, valid while `isOpen`. Kept out of an optional: this is read for every
  /// frame, and a test or a field of an optional struct copied the whole struct (its UID
  /// array retained and released) each time.
  private var open = SessionInfo(
    index: 0, technology: .unknown, uid: [], firstFrame: 0, lastFrame: 0, startNs: 0, endNs: 0)
  private var isOpen = false
  private var current: SessionInfo? { isOpen ? open : nil }
  private var lastAnsweredNs: Int64 = 0
  private var sawHalt = false
  /// The reader sent S(DESELECT) that the capture shows unanswered, and no answered exchange
  /// followed: a tag that then answers a new activation had left the PROTOCOL state, in which
  /// it answers neither REQA nor WUPA (ISO/IEC 14443-3 §6.3; 14443-4 §8): the DESELECT's
  /// answer was missed, or the tag was reset.
  private var deselectSent = false
  /// A tag frame of ISO-DEP followed the last activation: the tag is in the PROTOCOL state.
  private var isoDEPUp = false
  private var held: [DecodedFrame] = []
  private var holding = false
  /// Whether a tag frame was seen in the open session.
  private var tagHeard = false
  /// REQAs left unanswered after the session's HLTA, held until the next frame tells whether
  /// the reader went on talking to the halted tag (which ignores REQA, ISO/IEC 14443-3 §6.3)
  /// or the session is over.
  private var pollsAfterHalt: [DecodedFrame] = []

  /// A segmenter with no session.
  public init() {}

  /// All sessions, the open one included (call after `finish()` for the final list).
  public var sessions: [SessionInfo] { closed + (current.map { [$0] } ?? []) }

  /// Session `index`, closed or open, in O(1): sessions are numbered in the order they open
  /// and one closes before the next opens, so `closed[i]` is session `i`.
  public func session(_ index: Int) -> SessionInfo? {
    if index >= 0 && index < closed.count { return closed[index] }
    return isOpen && open.index == index ? open : nil
  }

  /// Assigns sessions to `frame` and returns the frames now final, in order.
  public mutating func push(_ frame: DecodedFrame) -> [DecodedFrame] {
    var out: [DecodedFrame] = []
    push(frame) { out.append($0) }
    return out
  }

  /// Assigns sessions to `frame` and hands the frames now final to `emit`, in order (no array
  /// per frame unless a re-activation is being held).
  public mutating func push(_ frame: DecodedFrame, emit: (DecodedFrame) -> Void) {
    if holding {
      held.append(frame)
      if let uid = frame.completedUID {
        release(uid: uid).forEach(emit)
      } else if held.count >= holdLimit || frame.frame.direction == .event {
        release(uid: nil).forEach(emit)
      }
      return
    }
    if !pollsAfterHalt.isEmpty || holdsPollAfterHalt(frame) {
      holdPollAfterHalt(frame, emit: emit)
      return
    }
    if let f = assign(frame) { emit(f) }
  }

  /// A REQA nobody answered, soon after the open session's HLTA.
  private func holdsPollAfterHalt(_ f: DecodedFrame) -> Bool {
    isOpen && sawHalt && f.startsActivation && f.innermost?.name == "REQA"
      && f.response == .unanswered && !isSilent(f)
  }

  /// Holds `frame` when it is one more such REQA; else settles the held ones: commands to a
  /// tag keep them in the open session (the reader still talks to the halted tag), anything
  /// else ends the session at the first of them, as an unanswered poll after HLTA does.
  private mutating func holdPollAfterHalt(_ frame: DecodedFrame, emit: (DecodedFrame) -> Void) {
    if holdsPollAfterHalt(frame), pollsAfterHalt.count < holdLimit {
      pollsAfterHalt.append(frame)
      return
    }
    let polls = pollsAfterHalt
    pollsAfterHalt = []
    // A tag answering anticollision was not halted (a halted tag ignores it too): that is a
    // new activation, as after a poll answered.
    var answeredActivation = false
    if case .answeredBy = frame.response {
      answeredActivation = frame.innermost?.protocolID == .iso14443A
    }
    if Self.impliesTag(frame), !frame.startsActivation, !answeredActivation {
      for var p in polls {
        attach(&p)
        emit(p)
      }
    } else {
      for p in polls { if let f = assign(p) { emit(f) } }
    }
    push(frame, emit: emit)
  }

  /// Releases held frames and closes the open session (end of trace).
  public mutating func finish() -> [DecodedFrame] {
    var out: [DecodedFrame] = []
    // Releasing can start a new hold (a later re-activation among the held frames).
    while holding { out += release(uid: held.lazy.compactMap(\.completedUID).first) }
    let polls = pollsAfterHalt
    pollsAfterHalt = []
    for p in polls { if let f = assign(p) { out.append(f) } }
    close()
    return out
  }

  /// Assigns the frame's session; nil when the frame starts a hold (re-activation).
  private mutating func assign(_ input: DecodedFrame) -> DecodedFrame? {
    var f = input
    let t = f.frame.timeNs
    let silent = isSilent(f)
    if f.frame.direction == .event {
      if f.frame.event == .fieldOff || f.frame.event == .fieldOn { close() }
      return f
    }
    let answered: Bool
    if case .answeredBy = f.response {
      answered = true
    } else {
      answered = f.frame.direction == .tag
    }
    if f.startsActivation {
      if answered {
        // A session opened on reader commands alone (the tag unheard) ends at the first
        // activation a tag answers: what came before stays a session of its own.
        if !isOpen || sawHalt || deselectSent || silent || !tagHeard {
          close()
          start(at: f)
        } else {
          holding = true
          held = [f]
          return nil
        }
      } else if isOpen, sawHalt || silent {
        // After HLTA (or silence) a poll nobody answers belongs to no tag: the session is over.
        close()
      }
    } else if !isOpen && (answered || Self.impliesTag(f)) {
      start(at: f)
    }
    // S(DESELECT) puts an ISO-DEP tag in the HALT state too, once it answered it (ISO/IEC
    // 14443-4 §8): an unanswered one (a tag not selected) halts nothing.
    // Names compared only within the protocols that use them: this runs for every frame.
    if f.layers.contains(where: { d in
      switch d.protocolID {
      case .iso14443A, .type2: return d.name == "HLTA"
      case .iso14443B: return d.name == "HLTB"
      case .isoDEP: return d.name == "S(DESELECT)" && f.frame.direction == .reader && answered
      default: return false
      }
    }) {
      sawHalt = true
    }
    if f.startsActivation {
      isoDEPUp = false
    } else if f.frame.direction == .tag, f.layers.contains(where: { $0.protocolID == .isoDEP }) {
      isoDEPUp = true
    }
    if isoDEPUp, f.frame.direction == .reader, !answered, f.innermost?.protocolID == .isoDEP,
      f.innermost?.name == "S(DESELECT)"
    {
      deselectSent = true
    } else if answered, !f.startsActivation {
      deselectSent = false
    }
    if f.frame.direction == .tag { tagHeard = true }
    // Without the tag's answers (a sniffer that hears only the reader) the reader's commands
    // to the tag are the only measure of its presence.
    if answered || (!tagHeard && Self.impliesTag(f)) { lastAnsweredNs = t }
    if let uid = f.completedUID { adoptUID(uid, from: f) }
    attach(&f)
    return f
  }

  /// Whether `f` comes after a silence longer than `silenceNs` since the last answered frame.
  /// Silence needs times that measure it: not frames in order, not a clock's whole seconds.
  private func isSilent(_ f: DecodedFrame) -> Bool {
    f.frame.sourceTime?.unit.timesFrames != false
      && f.frame.timeNs.saturatingMinus(lastAnsweredNs) > silenceNs
  }

  private mutating func attach(_ f: inout DecodedFrame) {
    guard isOpen else { return }
    open.lastFrame = f.frame.index
    // A clock that went backwards (warned by the importer) must not give a negative span.
    open.endNs = max(open.endNs, f.frame.timeNs)
    if open.technology == .unknown { open.technology = f.technology }
    f.session = open.index
  }

  private mutating func adoptUID(_ uid: [UInt8], from f: DecodedFrame) {
    guard isOpen else { return }
    if open.uid.isEmpty {
      open.uid = uid
    } else if open.uid != uid {
      close()
      start(at: f)
      open.uid = uid
    }
  }

  private mutating func release(uid: [UInt8]?) -> [DecodedFrame] {
    holding = false
    let frames = held
    held = []
    guard let first = frames.first else { return [] }
    let differs = uid.map { u in !isOpen || (!open.uid.isEmpty && open.uid != u) } ?? false
    if differs || !isOpen {
      close()
      start(at: first)
    }
    var head = first
    sawHalt = false
    deselectSent = false
    lastAnsweredNs = head.frame.timeNs
    attach(&head)
    var out = [head]
    for frame in frames.dropFirst() {
      if holding {
        held.append(frame)
      } else if let f = assign(frame) {
        out.append(f)
      }
    }
    // A second re-activation inside the held frames starts its own hold.
    if holding, let uid = held.lazy.compactMap(\.completedUID).first {
      out += release(uid: uid)
    }
    return out
  }

  private mutating func start(at f: DecodedFrame) {
    let tech = f.technology
    open = SessionInfo(
      index: closed.count, technology: tech, uid: [], firstFrame: f.frame.index,
      lastFrame: f.frame.index, startNs: f.frame.timeNs, endNs: f.frame.timeNs)
    open.timed = f.frame.sourceTime?.unit != .order
    isOpen = true
    sawHalt = false
    deselectSent = false
    tagHeard = f.frame.direction == .tag
  }

  /// A reader command sent only to a tag that answered: anticollision and SELECT (after an
  /// ATQA), ATTRIB (after an ATQB), or a command of a protocol inside ISO 14443-3 (RATS,
  /// Type 2, ISO-DEP …). When the capture missed the tag's answers it is the only sign of the
  /// tag; polls (REQA/WUPA, REQB, ECP) and HLTA are not.
  static func impliesTag(_ f: DecodedFrame) -> Bool {
    guard f.frame.direction == .reader, let d = f.innermost else { return false }
    switch d.protocolID {
    case .iso14443A: return d.name == "ANTICOLLISION" || d.name == "SELECT"
    case .iso14443B: return d.name == "ATTRIB"
    case .appleECP: return false
    case .felica: return d.name != "SENSF_REQ"
    case .iso15693: return d.name != "INVENTORY"
    case .isoDEP, .iso7816, .type2, .type4, .mifareClassic, .nfcDEP: return true
    }
  }

  private mutating func close() {
    if isOpen { closed.append(open) }
    isOpen = false
  }
}
