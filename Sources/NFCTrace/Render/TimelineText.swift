/// Renders the annotated timeline as text, streaming: a header per session, one line per frame
/// (time since the trace start in ms with µs, gap to the previous frame, direction, bytes, CRC
/// mark, decoded meaning of every layer innermost first), field events as event lines, and the
/// frame's findings indented below it.
///
/// Frames of a new session are held until its UID is known (at most `holdLimit` frames) so the
/// header can name the tag.
public final class TimelineTextRenderer {
  private let out: OutputBuffer
  private let color: Bool
  /// Bytes shown per frame before eliding. Unchecked exclusivity, as the fields below: it is
  /// read for every frame, and its dynamic check cost more than the read.
  @exclusivity(unchecked) public var maxBytesShown = 24
  /// Frames held while waiting for a session's UID.
  @exclusivity(unchecked) public var holdLimit = 64
  // Unchecked exclusivity (as in `OutputBuffer`): read for every frame; no access to them is
  // held across a call that reaches them again.
  @exclusivity(unchecked) private var lastTimeNs: Int64?
  @exclusivity(unchecked) private var currentSession: Int?
  private enum Item {
    case frame(DecodedFrame)
    case event(OperationEvent)
  }
  @exclusivity(unchecked) private var held: [Item] = []
  /// The held session's tag identity once seen: ("UID", bytes) or ("PUPI", bytes).
  @exclusivity(unchecked) private var heldUID: (label: String, id: [UInt8])?
  /// True while `heldUID` is an ATQB's PUPI: with several tags answering REQB's slots the
  /// reader's ATTRIB may select another (ISO/IEC 14443-3 §7.10), so frames stay held for it.
  @exclusivity(unchecked) private var heldTentative = false

  /// A renderer writing to `out`, with ANSI colour when `color`.
  public init(out: OutputBuffer, color: Bool) {
    self.out = out
    self.color = color
  }

  @exclusivity(unchecked) private var pendingStarts: [OperationEvent] = []

  /// Renders operation starts (a header above the operation's first frame) and ends (its
  /// outcome, after its last frame).
  public func render(_ event: OperationEvent) {
    switch event {
    case .started: pendingStarts.append(event)
    case .ended:
      if held.isEmpty { operationLine(event) } else { held.append(.event(event)) }
    }
  }

  /// Renders one frame (or holds it until its session's header can be written).
  public func render(_ f: DecodedFrame) {
    // Appended one by one: arrays made and joined per frame were a tenth of the renderer's time.
    if f.session != currentSession {
      flushHeld()
      currentSession = f.session
      if f.session != nil {
        holdStarts()
        held.append(.frame(f))
        heldUID = nil
        noteIdentity(f)
        if heldUID != nil, !heldTentative { flushHeld() }
        return
      }
    } else if !held.isEmpty {
      holdStarts()
      held.append(.frame(f))
      noteIdentity(f)
      if (heldUID != nil && !heldTentative) || held.count >= holdLimit { flushHeld() }
      return
    }
    if !pendingStarts.isEmpty {
      for e in pendingStarts { operationLine(e) }
      pendingStarts.removeAll(keepingCapacity: true)
    }
    line(f)
  }

  /// Moves the operation starts waiting for their first frame into `held`.
  private func holdStarts() {
    guard !pendingStarts.isEmpty else { return }
    for e in pendingStarts { held.append(.event(e)) }
    pendingStarts.removeAll(keepingCapacity: true)
  }

  private func operationLine(_ e: OperationEvent) {
    // Written in pieces, not built as one string first.
    switch e {
    case .started(let kind, _):
      if color { out.write("\u{1B}[1;34m") }
      out.write("  ▸ ")
      out.write(kind.rawValue)
    case .ended(let op):
      if color { out.write(op.outcome == .ok ? "\u{1B}[2m" : "\u{1B}[1;31m") }
      out.write("  ◂ ")
      out.write(op.kind.rawValue)
      out.append(0x20)
      out.write(op.outcomeText)
      if let reason = op.reason {
        out.write(": ")
        out.write(reason)
      }
    }
    if color { out.write("\u{1B}[0m") }
    out.endLine()
  }

  /// Writes anything still held (call at the end).
  public func finish() { flushHeld() }

  private func flushHeld() {
    let frames = held.compactMap { item -> DecodedFrame? in
      if case .frame(let f) = item { return f }
      return nil
    }
    guard let first = frames.first else {
      for case .event(let e) in held { operationLine(e) }
      held = []
      return
    }
    header(session: first.session, technology: sessionTechnology(frames), uid: heldUID)
    for item in held {
      switch item {
      case .frame(let f): line(f)
      case .event(let e): operationLine(e)
      }
    }
    held.removeAll(keepingCapacity: true)
    heldUID = nil
    heldTentative = false
  }

  /// Takes the identity `f` shows for the held session: an ATQB's PUPI only tentatively (the
  /// first ATQB's, until an ATTRIB names the PUPI it selects).
  private func noteIdentity(_ f: DecodedFrame) {
    guard let id = Self.identity(f) else { return }
    let tentative = id.label == "PUPI" && f.frame.direction == .tag
    if tentative, heldUID != nil { return }
    heldUID = id
    heldTentative = tentative
  }

  /// The tag identity a frame shows: the UID an anticollision completed; a type B tag's PUPI
  /// (ATQB, ISO/IEC 14443-3 §7.9.2; the intact ATTRIB that selects it, §7.10); or, in a
  /// capture that starts after the activation, the
  /// 7-byte UID of a Type 2 READ of page 0 whose two BCCs check (`TagIdentity.uid(fromPage0:)`).
  private static func identity(_ f: DecodedFrame) -> (label: String, id: [UInt8])? {
    if let uid = f.completedUID { return ("UID", uid) }
    if f.frame.direction == .reader, f.frame.crc != .bad, let d = f.layers.first,
      d.protocolID == .iso14443B, d.name == "ATTRIB", case .hex(let pupi)? = d.field("identifier")
    {
      return ("PUPI", pupi)
    }
    guard f.frame.direction == .tag, let d = f.layers.first else { return nil }
    if d.protocolID == .iso14443B, d.name == "ATQB", case .hex(let pupi)? = d.field("pupi") {
      return ("PUPI", pupi)
    }
    guard d.protocolID == .type2, d.name == "READ response", case .int(0)? = d.field("page"),
      case .hex(let b)? = d.field("data"), let uid = TagIdentity.uid(fromPage0: b)
    else { return nil }
    return ("UID", uid)
  }

  private func sessionTechnology(_ frames: [DecodedFrame]) -> String {
    // A UID read from a Type 2 tag's page 0 makes it NFC-A, as `TagIdentity` takes it.
    if frames.contains(where: { $0.layers.first?.protocolID == .iso14443A })
      || (heldUID != nil && frames.contains { $0.layers.first?.protocolID == .type2 })
    {
      return "NFC-A"
    }
    let t = frames.lazy.map(\.technology).first { $0 != .unknown } ?? .unknown
    return t == .unknown ? "unknown technology" : t.rawValue.uppercased()
  }

  /// The UTF-8 of 72 box-drawing lines (3 bytes each), the most a header's rule needs.
  private static let rule = [UInt8](String(repeating: "─", count: 72).utf8)

  private func header(session: Int?, technology: String, uid: (label: String, id: [UInt8])?) {
    guard let session else { return }
    var text = "── session \(session) · \(technology)"
    if let uid { text += " · \(uid.label) \(Hex.uid(uid.id))" }
    text += " "
    if color { out.write("\u{1B}[1m") }
    out.write(text)
    // Every character of the header is one Unicode scalar (box drawing, middle dot, ASCII).
    let n = min(max(4, 72 - text.unicodeScalars.count), Self.rule.count / 3)
    Self.rule.withUnsafeBufferPointer { out.append(UnsafeBufferPointer(rebasing: $0[0..<(n * 3)])) }
    if color { out.write("\u{1B}[0m") }
    out.endLine()
  }

  private func line(_ f: DecodedFrame) {
    // `f.frame.…` reads the fields in place; a local copy of the Frame would retain and
    // release each of its arrays and strings once per line.
    // Times come from the input (a pcapng time stamp can be anything): saturate, never trap.
    let gap = lastTimeNs.map { last -> Int64 in
      let (d, overflow) = f.frame.timeNs.subtractingReportingOverflow(last)
      return overflow ? (f.frame.timeNs < last ? .min : .max) : d
    }
    lastTimeNs = f.frame.timeNs
    var mark = out.count
    out.append(0x23)  // "#"
    out.appendInt(Int64(f.frame.index))
    out.padLeftAligned(from: mark, width: 6)
    if color { out.write("\u{1B}[2m") }
    mark = out.count
    // A source without times (libnfc log) numbers frames in order: no time to print.
    let timed = f.frame.sourceTime?.unit != .order
    if timed { appendMilliseconds(f.frame.timeNs) } else { out.write("no time") }
    out.alignRight(from: mark, width: 10)
    out.write(timed ? " ms" : "   ")
    if color { out.write("\u{1B}[0m") }
    mark = out.count
    if let gap, timed {
      if gap >= 0 { out.append(0x2B) }  // "+"; a time going back prints its own "-"
      appendMilliseconds(gap)
    }
    // A gap of 10 s or more is wider than its column: one space still parts it from "ms".
    out.alignRight(from: mark, width: max(10, out.count - mark + 1))
    out.appendSpaces(2)
    if f.frame.direction == .event {
      paint(f.frame.event?.rawValue ?? "event", "35")
      out.endLine()
      return
    }
    paint(f.frame.direction == .reader ? "R→T" : "T→R", f.frame.direction == .reader ? "36" : "33")
    out.appendSpaces(2)
    mark = out.count
    appendBytes(f)
    // 18 bytes fit: a Type 2 READ answer (16 data bytes and CRC_A) is the commonest long frame.
    out.padLeftAligned(from: mark, width: 3 * 18)
    mark = out.count
    out.write(crcMark(f.frame.crc))
    out.padLeftAligned(from: mark, width: 5)
    appendMeaning(f)
    out.endLine()
    for finding in f.findings {
      paint(
        "        ! \(finding.code): \(finding.message)", finding.severity == .error ? "31" : "33")
      out.endLine()
    }
  }

  private func appendMeaning(_ f: DecodedFrame) {
    if f.layers.isEmpty {
      out.write("raw")
      if let reason = f.undecodedReason {
        out.write(" (")
        out.write(reason)
        out.write(")")
      }
    } else {
      // By index: iterating the decodes copied each one (its strings and fields retained).
      let layers = f.layers
      for i in layers.indices.reversed() {
        if i < layers.count - 1 { out.write(" ‹ ") }
        out.write(layers[i].summary)
      }
    }
    if f.response == .unanswered { out.write("  [no answer]") }
  }

  private func appendBytes(_ f: DecodedFrame) {
    let data = f.frame.data
    let shown = min(data.count, maxBytesShown)
    if f.frame.parityErrors.isEmpty {
      out.appendHex(data[..<shown], separator: 0x20)
    } else {
      appendBytes(data[..<shown], parityErrors: f.frame.parityErrors)
    }
    if let bits = f.frame.bits, bits < 8 {
      out.append(0x28)
      out.appendInt(Int64(bits))
      out.append(0x29)
    }
    if data.count > shown {
      out.write(" …+")
      out.appendInt(Int64(data.count - shown))
    }
  }

  /// Bytes as hex with `!` after each byte whose parity bit was wrong.
  private func appendBytes(_ data: ArraySlice<UInt8>, parityErrors: [Int]) {
    let shown = data.count
    var parity = parityErrors.makeIterator()
    var nextParity = parity.next()
    for i in 0..<shown {
      if i > 0 { out.append(0x20) }
      let b = data[i]
      out.append(Hex.digits[Int(b >> 4)])
      out.append(Hex.digits[Int(b & 0x0F)])
      while let p = nextParity, p < i { nextParity = parity.next() }
      if nextParity == i { out.append(0x21) }  // "!" parity error
    }
  }

  /// `ns` as milliseconds with three decimals, written straight into the buffer.
  private func appendMilliseconds(_ ns: Int64) { Self.appendMilliseconds(ns, to: out) }

  /// Writes `ns` as milliseconds with three decimals (µs resolution) straight into `out`.
  static func appendMilliseconds(_ ns: Int64, to out: OutputBuffer) {
    if ns < 0 { out.append(0x2D) }
    let us = ns.magnitude / 1000  // magnitude: -Int64.min does not fit in Int64
    out.appendInt(Int64(us / 1000))
    out.append(0x2E)
    out.appendDigits(us % 1000, count: 3)
  }

  private func crcMark(_ crc: CRCStatus) -> String {
    switch crc {
    case .ok: return "ok"
    case .bad: return "!!"
    case .notCaptured: return "nc"
    case .encrypted: return "enc"
    case .absent, .unchecked: return ""
    }
  }

  private func paint(_ s: String, _ code: String) {
    if color { out.write("\u{1B}[\(code)m") }
    out.write(s)
    if color { out.write("\u{1B}[0m") }
  }

  /// `ns` as milliseconds with three decimals (µs resolution): 1234567 → `1.234`.
  public static func milliseconds(_ ns: Int64) -> String {
    let out = OutputBuffer(fd: nil)
    appendMilliseconds(ns, to: out)
    return out.text
  }
}
