/// The air between the simulated reader and the tags: the clock, the recorded frames, field
/// on/off, noise, collisions and the tag-removal faults.
///
/// Time runs in carrier ticks from the first frame (the field-on event at 0). A reader frame
/// starts when the reader sends it; a tag answer starts one FDT (`AirTiming.fdt`) plus the
/// tag's own delay after the reader frame ends. When two tags answer differently, the recorded
/// frame is the bitwise OR of both with parity errors on the bytes that differ and the flag
/// `collision`, and the reader learns the position of the first differing bit (ISO/IEC
/// 14443-3 §6.4.4: Manchester coding makes the collision visible bit by bit).
///
/// Sessions: a new session starts at every field on and at the first answered REQA/WUPA after
/// an HLTA or an S(DESELECT) (the rule the session segmenter uses).
final class RFChannel {
  /// What the reader receives for one frame.
  enum Reply {
    /// Nothing within the reader's timeout.
    case none
    /// One answer; `intact` false when noise corrupted it (bad CRC or parity).
    case answer([UInt8], bits: Int?, intact: Bool)
    /// Two tags answered differently: the OR-ed bytes and the first differing bit (counted
    /// from the first bit of the answer, LSB first within bytes).
    case collision([UInt8], firstBit: Int)
  }

  private let location: String
  private(set) var frames: [Frame] = []
  /// Current time in ticks: the end of the last frame or wait.
  private(set) var now: Int64 = 0
  var rng: SplitMix64
  private(set) var fieldIsOn = false
  let primary: any VirtualTag
  /// A second tag in the field (fault `second-tag`), nil when absent.
  var secondary: (any VirtualTag)?
  /// False once the primary tag has left the field.
  private(set) var primaryPresent = true
  var crcErrorRate = 0.0
  var parityErrorRate = 0.0
  var removeAfterFrame: Int?
  var removeAfterWrites: Int?
  private var acknowledgedWrites = 0
  /// Index of the first frame of each session.
  private(set) var sessionStarts: [Int] = []
  private var sawHalt = false

  init(name: String, primary: any VirtualTag, rng: SplitMix64) {
    location = "simulated:\(name)"
    self.primary = primary
    self.rng = rng
  }

  /// 0-based index of the current session (−1 before the first field on).
  var sessionIndex: Int { sessionStarts.count - 1 }

  /// Lets `ticks` pass with nothing on the air.
  func wait(_ ticks: Int64) { now += max(ticks, 0) }

  func fieldOn() {
    guard !fieldIsOn else { return }
    fieldIsOn = true
    sessionStarts.append(frames.count)
    sawHalt = false
    appendEvent(.fieldOn)
  }

  func fieldOff() {
    guard fieldIsOn else { return }
    fieldIsOn = false
    primary.powerOff()
    secondary?.powerOff()
    appendEvent(.fieldOff)
  }

  /// Sends a reader frame `gap` ticks from now and returns what the reader receives.
  func transmit(_ data: [UInt8], bits: Int? = nil, hasCRC: Bool, gap: Int64) -> Reply {
    now += max(gap, 0)
    let frameIndex = frames.count
    let wakesAfterHalt = data.count == 1 && bits == 7 && sawHalt
    noteHalt(data)
    let (sent, parity, intact) = corrupt(data, bits: bits, hasCRC: hasCRC)
    let start = now
    let duration = AirTiming.readerFrameTicks(sent, bits: bits)
    append(.reader, sent, bits: bits, start: start, duration: duration, parity: parity, flags: [])
    now = start + duration
    guard fieldIsOn else { return .none }
    var answers: [TagAnswer] = []
    if primaryPresent, let a = primary.receive(sent, bits: bits, intact: intact) {
      answers.append(a)
    }
    if let second = secondary, let a = second.receive(sent, bits: bits, intact: intact) {
      answers.append(a)
    }
    guard let first = answers.first else { return .none }
    if wakesAfterHalt {
      // A REQA/WUPA after HLTA that a tag answers starts a new session.
      sessionStarts.append(frameIndex)
      sawHalt = false
    }
    let answerStart =
      now + AirTiming.fdt(after: sent, bits: bits) + (answers.map(\.delay).max() ?? 0)
    if answers.count > 1, answers[1].data != first.data {
      return collide(first, answers[1], start: answerStart)
    }
    return deliver(first, start: answerStart)
  }

  private func noteHalt(_ data: [UInt8]) {
    let deselect = data.count == 3 && data[0] & 0xF7 == 0xC2 && CRC.hasValidCRCA(data)
    if data == [0x50, 0x00, 0x57, 0xCD] || deselect { sawHalt = true }
  }

  /// Applies the noise fault: a flipped CRC bit and/or one byte with a wrong parity bit.
  private func corrupt(_ data: [UInt8], bits: Int?, hasCRC: Bool) -> ([UInt8], [Int], Bool) {
    var out = data
    var parity: [Int] = []
    var intact = true
    if hasCRC, crcErrorRate > 0, rng.unit() < crcErrorRate, let last = out.indices.last {
      out[last] ^= 0x01 << UInt8(rng.below(8))
      intact = false
    }
    if parityErrorRate > 0, bits == nil, !out.isEmpty, rng.unit() < parityErrorRate {
      parity = [Int(rng.below(UInt64(out.count)))]
      intact = false
    }
    return (out, parity, intact)
  }

  private func deliver(_ a: TagAnswer, start: Int64) -> Reply {
    let (data, parity, intact) = corrupt(a.data, bits: a.bits, hasCRC: a.hasCRC)
    let duration = AirTiming.tagFrameTicks(data, bits: a.bits)
    append(
      .tag, data, bits: a.bits, start: start, duration: duration, parity: parity, flags: a.flags)
    now = start + duration
    if a.acknowledgesWrite {
      acknowledgedWrites += 1
      if let limit = removeAfterWrites, acknowledgedWrites >= limit { removePrimary() }
    }
    return .answer(data, bits: a.bits, intact: intact)
  }

  private func collide(_ a: TagAnswer, _ b: TagAnswer, start: Int64) -> Reply {
    let count = max(a.data.count, b.data.count)
    var data = [UInt8](repeating: 0, count: count)
    var differing: [Int] = []
    var firstBit = count * 8
    for i in 0..<count {
      let x = i < a.data.count ? a.data[i] : 0
      let y = i < b.data.count ? b.data[i] : 0
      data[i] = x | y
      guard x != y else { continue }
      differing.append(i)
      firstBit = min(firstBit, i * 8 + (x ^ y).trailingZeroBitCount)
    }
    let duration = AirTiming.tagFrameTicks(data, bits: nil)
    append(
      .tag, data, bits: nil, start: start, duration: duration, parity: differing,
      flags: ["collision"])
    now = start + duration
    return .collision(data, firstBit: firstBit)
  }

  private func removePrimary() {
    guard primaryPresent else { return }
    primaryPresent = false
    primary.powerOff()
  }

  private func appendEvent(_ event: FrameEvent) {
    frames.append(
      Frame(
        index: frames.count, timeNs: AirTiming.nanoseconds(ticks: now),
        sourceTime: SourceTime(now, .proxmarkTicks), direction: .event, event: event, data: [],
        technology: .nfcA, location: at(frames.count)))
    checkRemoval()
  }

  private func append(
    _ direction: Direction, _ data: [UInt8], bits: Int?, start: Int64, duration: Int64,
    parity: [Int], flags: [String]
  ) {
    frames.append(
      Frame(
        index: frames.count, timeNs: AirTiming.nanoseconds(ticks: start),
        durationNs: AirTiming.nanoseconds(ticks: duration),
        sourceTime: SourceTime(start, .proxmarkTicks), direction: direction, data: data,
        bits: bits, parityErrors: parity, crc: .unchecked, technology: .nfcA,
        sourceFlags: flags, location: at(frames.count)))
    checkRemoval()
  }

  private func checkRemoval() {
    if let n = removeAfterFrame, frames.count - 1 >= n { removePrimary() }
  }

  private func at(_ index: Int) -> SourceLocation {
    SourceLocation(file: location, unit: "frame", record: index + 1, offset: 0)
  }
}
