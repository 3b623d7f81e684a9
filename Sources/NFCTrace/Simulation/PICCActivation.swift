/// The tag side of ISO/IEC 14443-3 type A activation: IDLE, READY (per cascade level), ACTIVE
/// and HALT states; REQA/WUPA → ATQA, anticollision (whole-byte and bit-oriented) → UID part +
/// BCC, SELECT → SAK + CRC_A, HLTA → HALT (reference/nfc-facts.md §1.1–§1.4).
///
/// Frames reaching an ACTIVE tag are handed to the tag's application (Type 2 commands, RATS and
/// ISO-DEP blocks).
struct PICCActivation {
  /// ISO/IEC 14443-3 §6.3 states (POWER-OFF is `idle` after `reset()`).
  enum State: Equatable {
    case idle
    case ready(level: Int)
    case active
    case halt
  }

  /// What the activation layer does with a frame.
  enum Outcome {
    case answer(TagAnswer)
    case silent
    /// For the application: the frame with its CRC removed (`intact` false when corrupted).
    case application([UInt8], intact: Bool)
  }

  let uid: [UInt8]
  /// ATQA in air order (LSB first), e.g. `44 00`.
  let atqa: [UInt8]
  /// SAK of the last cascade level (`00` Type 2, `20` ISO-DEP).
  let finalSAK: UInt8
  private(set) var state: State = .idle

  init(uid: [UInt8], atqa: [UInt8], finalSAK: UInt8) {
    self.uid = uid
    self.atqa = atqa
    self.finalSAK = finalSAK
  }

  /// Number of cascade levels: 1, 2 or 3 for 4-, 7- or 10-byte UIDs.
  var levels: Int { uid.count <= 4 ? 1 : (uid.count <= 7 ? 2 : 3) }

  /// The four UID bytes (or CT + three) of cascade `level` (1-based), followed by their BCC.
  func cascadeBytes(level: Int) -> [UInt8] {
    var part: [UInt8]
    switch (levels, level) {
    case (1, _): part = Array(uid.prefix(4))
    case (2, 1), (3, 1): part = [0x88] + uid.prefix(3)
    case (2, _): part = Array(uid.dropFirst(3).prefix(4))
    case (3, 2): part = [0x88] + uid.dropFirst(3).prefix(3)
    default: part = Array(uid.dropFirst(6).prefix(4))
    }
    while part.count < 4 { part.append(0) }
    return part + [part.reduce(0, ^)]
  }

  /// SAK at `level`: the cascade bit (0x04) plus the ISO-DEP bit below the last level (a 7-byte
  /// DESFire answers `24` at CL1), the final SAK at the last.
  func sak(level: Int) -> UInt8 { level < levels ? 0x04 | (finalSAK & 0x20) : finalSAK }

  mutating func reset() { state = .idle }
  mutating func halt() { state = .halt }
  mutating func activate() { state = .active }

  /// Handles one frame.
  mutating func handle(_ frame: [UInt8], bits: Int?, intact: Bool) -> Outcome {
    if frame.count == 1, bits == 7 { return shortFrame(frame[0]) }
    switch state {
    case .idle, .halt: return .silent
    case .ready(let level):
      guard intact else { return .silent }
      return ready(level: level, frame, bits: bits)
    case .active:
      if intact, frame == [0x50, 0x00, 0x57, 0xCD] {
        state = .halt
        return .silent
      }
      let ok = intact && frame.count >= 3 && CRC.hasValidCRCA(frame)
      return .application(ok ? Array(frame.dropLast(2)) : frame, intact: ok)
    }
  }

  private mutating func shortFrame(_ byte: UInt8) -> Outcome {
    let wakes: Bool
    switch (byte, state) {
    case (0x26, .idle): wakes = true
    case (0x52, .idle), (0x52, .halt): wakes = true
    default: wakes = false
    }
    guard wakes else {
      // An unexpected short frame sends a READY/ACTIVE tag back to IDLE (§6.3, error handling).
      if case .ready = state { state = .idle }
      if state == .active { state = .idle }
      return .silent
    }
    state = .ready(level: 1)
    return .answer(TagAnswer(data: atqa, hasCRC: false))
  }

  private mutating func ready(level: Int, _ frame: [UInt8], bits: Int?) -> Outcome {
    let sel: [UInt8] = [0x93, 0x95, 0x97]
    guard frame.count >= 2, level <= sel.count, frame[0] == sel[level - 1] else {
      state = .idle
      return .silent
    }
    let mine = cascadeBytes(level: level)
    if frame[1] == 0x70 {
      guard frame.count == 9, CRC.hasValidCRCA(frame), Array(frame[2..<7]) == mine else {
        state = .idle
        return .silent
      }
      state = level < levels ? .ready(level: level + 1) : .active
      return .answer(.withCRC([sak(level: level)]))
    }
    return anticollision(frame, bits: bits, mine: mine)
  }

  /// Answers the UID bits after the ones the reader sent (NVB high nibble = bytes incl. SEL and
  /// NVB, low nibble = extra bits). The first byte of a split answer carries only the bits
  /// the tag sends; the bits the reader already sent read as 0.
  private mutating func anticollision(_ frame: [UInt8], bits: Int?, mine: [UInt8]) -> Outcome {
    let nvb = frame[1]
    let known = (Int(nvb >> 4) - 2) * 8 + Int(nvb & 0x0F)
    guard known >= 0, known < 40 else {
      state = .idle
      return .silent
    }
    for bit in 0..<known {
      let index = 2 + bit / 8
      guard index < frame.count else { return .silent }
      let sent = (frame[index] >> UInt8(bit % 8)) & 1
      if sent != (mine[bit / 8] >> UInt8(bit % 8)) & 1 {
        return .silent  // not this tag's UID: it stays READY and keeps listening
      }
    }
    var answer = Array(mine[(known / 8)...])
    answer[0] &= ~UInt8(truncatingIfNeeded: (1 << (known % 8)) - 1)
    return .answer(TagAnswer(data: answer, hasCRC: false))
  }
}
