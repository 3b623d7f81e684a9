/// The reader side of ISO/IEC 14443-3 type A: polling, anticollision (whole-byte and
/// bit-oriented), SELECT, HLTA, RATS, and the send-with-one-retry primitive.
extension SimulatedReader {
  static let activationTimeout = AirTiming.ticks(ms: 0.5)
  static let commandTimeout = AirTiming.ticks(ms: 5)
  static let writeTimeout = AirTiming.ticks(ms: 10)

  /// Sends `data` and waits up to `timeout`; on silence or a corrupted answer (or, with
  /// `retryNAK1`, a NAK 1/5 transmission error) sends it once more. Returns the last reply.
  func transceive(
    _ data: [UInt8], bits: Int? = nil, hasCRC: Bool, timeout: Int64, retryNAK1: Bool = false
  ) -> RFChannel.Reply {
    var reply = RFChannel.Reply.none
    for _ in 0..<2 {
      reply = channel.transmit(data, bits: bits, hasCRC: hasCRC, gap: gap())
      switch reply {
      case .none:
        channel.wait(timeout)
        continue
      case .answer(let bytes, let b, let intact):
        guard intact else { continue }
        if retryNAK1, b == 4, bytes.count == 1, bytes[0] == 0x1 || bytes[0] == 0x5 { continue }
        if hasCRC, b == nil, !(bytes.count >= 3 && CRC.hasValidCRCA(bytes)), bytes.count > 1 {
          continue
        }
        return reply
      case .collision:
        return reply
      }
    }
    return reply
  }

  /// Polling: field on, WUPA, CL1 anticollision; with a collision, selects and halts every
  /// tag (REQA wakes the next) and reports how many answered.
  func poll() throws -> String? {
    if !channel.fieldIsOn {
      channel.fieldOn()
      channel.wait(AirTiming.fieldOnGuard)
    }
    pendingCL1 = nil
    guard case .answer = transceive([0x52], bits: 7, hasCRC: false, timeout: Self.activationTimeout)
    else {
      throw OperationFailure(
        reason: "no tag answered WUPA",
        error: CoreNFCError(code: 201, name: "readerSessionInvalidationErrorSessionTimeout"))
    }
    let first = anticollisionFrame(level: 1)
    switch first {
    case .answer(let bytes, _, true) where bytes.count == 5:
      pendingCL1 = bytes
      return "1 tag"
    case .collision:
      var count = 0
      var reply = first
      while count < 4 {
        let (uid, _) = try selectCascade(prefer: nil, firstReply: reply)
        sessionUIDs[channel.sessionIndex] = uid
        count += 1
        halt()
        guard
          case .answer = transceive([0x26], bits: 7, hasCRC: false, timeout: Self.activationTimeout)
        else { break }
        reply = anticollisionFrame(level: 1)
      }
      return "\(count) tags"
    default:
      throw LinkError.noAnswer
    }
  }

  /// connect: SELECT (after polling's anticollision or a new WUPA), RATS for ISO-DEP.
  func connect() throws -> String? {
    if !channel.fieldIsOn { _ = try poll() }
    var firstReply: RFChannel.Reply? = pendingCL1.map { .answer($0, bits: nil, intact: true) }
    pendingCL1 = nil
    if firstReply == nil {
      guard
        case .answer = transceive([0x52], bits: 7, hasCRC: false, timeout: Self.activationTimeout)
      else { throw LinkError.noAnswer }
      firstReply = anticollisionFrame(level: 1)
    }
    let (uid, sak) = try selectCascade(prefer: primaryUID, firstReply: firstReply)
    sessionUIDs[channel.sessionIndex] = uid
    if sak & 0x20 != 0 { try requestATS() }
    connected = true
    return "UID \(Hex.uid(uid)), SAK \(Hex.string([sak]))"
  }

  /// Re-activation (fault `reactivate-before-write`): deselect/HLTA, WUPA, anticollision,
  /// SELECT, RATS. The reader keeps what it believes (PWD_AUTH, selected file).
  func reactivate() throws {
    if tagKind == .type4 {
      _ = try? isoDepBlock([0xC2])
    } else {
      halt()
    }
    guard case .answer = transceive([0x52], bits: 7, hasCRC: false, timeout: Self.activationTimeout)
    else { throw LinkError.noAnswer }
    let (uid, sak) = try selectCascade(prefer: primaryUID, firstReply: anticollisionFrame(level: 1))
    sessionUIDs[channel.sessionIndex] = uid
    if sak & 0x20 != 0 { try requestATS() }
  }

  /// HLTA `50 00` + CRC_A; no answer is expected.
  func halt() {
    _ = channel.transmit([0x50, 0x00, 0x57, 0xCD], hasCRC: true, gap: gap())
    channel.wait(Self.activationTimeout)
  }

  /// RATS `E0 80` → ATS; sets FSC and FWT from T0/TB1 (defaults FSCI 2, FWI 4).
  private func requestATS() throws {
    let reply = transceive(
      CRC.appendingCRCA([0xE0, 0x80]), hasCRC: true, timeout: Self.activationTimeout)
    guard case .answer(let ats, nil, true) = reply, ats.count >= 3, CRC.hasValidCRCA(ats) else {
      throw LinkError.noAnswer
    }
    let sizes = [16, 24, 32, 40, 48, 64, 96, 128, 256]
    var fsci = 2
    var fwi = 4
    if ats.count > 3, ats[0] > 1 {
      let t0 = ats[1]
      fsci = Int(t0 & 0x0F)
      var i = 2
      if t0 & 0x10 != 0 { i += 1 }
      if t0 & 0x20 != 0, i < ats.count - 2 { fwi = Int(ats[i] >> 4) }
    }
    isoDep = ISODEPLink(
      fsc: sizes[min(fsci, 8)], fwt: AirTiming.fwt(fwi: fwi), blockNumber: 0)
  }

  /// `SEL 20`: one whole-byte anticollision frame at `level`, with the retry.
  func anticollisionFrame(level: Int) -> RFChannel.Reply {
    transceive([Self.sel(level), 0x20], hasCRC: false, timeout: Self.activationTimeout)
  }

  static func sel(_ level: Int) -> UInt8 { [0x93, 0x95, 0x97][min(max(level, 1), 3) - 1] }

  /// Completes anticollision and SELECT over all cascade levels. At a collision the reader
  /// continues with the bit of `prefer`'s UID (or 1 without a preference).
  /// - Returns: the UID and the last SAK.
  func selectCascade(prefer: [UInt8]?, firstReply: RFChannel.Reply?) throws -> ([UInt8], UInt8) {
    var uid: [UInt8] = []
    for level in 1...3 {
      let part = try resolve(level: level, prefer: prefer, first: level == 1 ? firstReply : nil)
      let frame = CRC.appendingCRCA([Self.sel(level), 0x70] + part)
      let reply = transceive(frame, hasCRC: true, timeout: Self.activationTimeout)
      guard case .answer(let sak, nil, true) = reply, sak.count == 3, CRC.hasValidCRCA(sak) else {
        throw LinkError.noAnswer
      }
      let cascade = sak[0] & 0x04 != 0
      uid += cascade && part[0] == 0x88 ? Array(part[1..<4]) : Array(part[0..<4])
      if !cascade { return (uid, sak[0]) }
    }
    throw LinkError.protocolError("SAK still has the cascade bit after CL3")
  }

  /// Anticollision at `level` until one tag's four bytes + BCC are known.
  private func resolve(level: Int, prefer: [UInt8]?, first: RFChannel.Reply?) throws -> [UInt8] {
    var known = [UInt8](repeating: 0, count: 5)
    var knownBits = 0
    var reply = first ?? anticollisionFrame(level: level)
    let wanted = prefer.map {
      PICCActivation(uid: $0, atqa: [], finalSAK: 0).cascadeBytes(level: level)
    }
    for _ in 0..<40 {
      switch reply {
      case .answer(let bytes, _, true):
        for b in knownBits..<40 { setBit(&known, b, uidBit(bytes, b - (knownBits / 8) * 8)) }
        guard known[0] ^ known[1] ^ known[2] ^ known[3] == known[4] else {
          throw LinkError.protocolError("BCC mismatch in anticollision answer")
        }
        return known
      case .collision(let bytes, let rel):
        let collisionBit = (knownBits / 8) * 8 + rel
        guard collisionBit < 40, collisionBit >= knownBits else {
          throw LinkError.protocolError("collision outside the UID bits")
        }
        for b in knownBits..<collisionBit {
          setBit(&known, b, uidBit(bytes, b - (knownBits / 8) * 8))
        }
        setBit(&known, collisionBit, wanted.map { uidBit($0, collisionBit) } ?? 1)
        knownBits = collisionBit + 1
        let nvb = UInt8((2 + knownBits / 8) << 4 | knownBits % 8)
        let sent = Array(known[0..<((knownBits + 7) / 8)])
        let partial = knownBits % 8 == 0 ? nil : knownBits % 8
        reply = transceive(
          [Self.sel(level), nvb] + sent, bits: partial, hasCRC: false,
          timeout: Self.activationTimeout)
      default:
        throw LinkError.noAnswer
      }
    }
    throw LinkError.protocolError("anticollision did not converge")
  }

  private func uidBit(_ bytes: [UInt8], _ index: Int) -> UInt8 {
    guard index >= 0, index / 8 < bytes.count else { return 0 }
    return bytes[index / 8] >> UInt8(index % 8) & 1
  }

  private func setBit(_ bytes: inout [UInt8], _ index: Int, _ value: UInt8) {
    guard index / 8 < bytes.count else { return }
    let mask = UInt8(1) << UInt8(index % 8)
    bytes[index / 8] = value == 1 ? bytes[index / 8] | mask : bytes[index / 8] & ~mask
  }
}
