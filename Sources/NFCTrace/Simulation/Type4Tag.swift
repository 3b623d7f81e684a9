/// A virtual NFC Forum Type 4 tag: ISO/IEC 14443-3 activation with SAK 20, RATS → ATS, the
/// ISO/IEC 14443-4 block protocol (I-block numbering, chaining both ways, R(ACK)/R(NAK),
/// S(WTX), S(DESELECT)) and the NDEF application (reference/nfc-facts.md §2, §6).
///
/// Block rules (facts §2.6): the tag's block number follows each I-block it receives; it sends
/// a response larger than the reader's FSD as a chain of I-blocks (PCB `12`, then `03` after the
/// reader's R(ACK)); it acknowledges a chained command block with R(ACK) of that block's
/// number; it answers R(NAK) by sending its last block again. Answers come a few ms after the
/// command (1.0 ms + up to 0.3 ms for SELECT/READ BINARY, 3.0 ms + up to 1 ms for UPDATE BINARY,
/// never more than 80 % of FWT); with WTX the tag first sends S(WTX) (WTXM 2) at 80 % of FWT,
/// and answers 80 % of FWT × WTXM after the reader's S(WTX) reply.
final class Type4Tag: VirtualTag {
  private var activation: PICCActivation
  private(set) var application: Type4NDEFApplication
  let fsci: Int
  let fwi: Int
  /// S(WTX) requests before each UPDATE BINARY answer (tag option `wtx`).
  let updateWTX: Int
  /// S(WTX) requests before every APDU answer (fault `slow-tag`).
  var everyAnswerWTX = 0
  /// Fault `response-longer-than-fsd`: answers are never chained.
  var ignoresFSD = false
  /// Source of the processing-time jitter (seeded by the simulator).
  var rng = SplitMix64(seed: 0)

  private var protocolActive = false
  private var fsd = 256
  private var blockNumber: UInt8 = 1
  private var received: [UInt8] = []
  private var pendingBlocks: [[UInt8]] = []
  private var lastBlock: [UInt8]?
  private var pendingWTX = 0
  private var pendingAnswerIsWrite = false
  static let wtxm: UInt8 = 2

  var uid: [UInt8] { activation.uid }
  var fwt: Int64 { AirTiming.fwt(fwi: fwi) }

  init(uid: [UInt8], application: Type4NDEFApplication, fsci: Int, fwi: Int, wtx: Int) {
    var atqa = Type2Tag.atqa(uidCount: uid.count)
    atqa[1] = 0x03  // proprietary coding as on NXP DESFire / NTAG 424 (facts §1.3)
    activation = PICCActivation(uid: uid, atqa: atqa, finalSAK: 0x20)
    self.application = application
    self.fsci = fsci
    self.fwi = fwi
    updateWTX = wtx
  }

  /// ATS: TL 06, T0 (TA1, TB1, TC1 present + FSCI), TA1 00 (106 kbit/s only), TB1 FWI/SFGI 0,
  /// TC1 02 (CID supported, NAD not), historical byte 80.
  var ats: [UInt8] { [0x06, 0x70 | UInt8(fsci & 0x0F), 0x00, UInt8(fwi & 0x0F) << 4, 0x02, 0x80] }

  func powerOff() {
    activation.reset()
    application.reset()
    deactivateProtocol()
  }

  private func deactivateProtocol() {
    protocolActive = false
    blockNumber = 1
    received = []
    pendingBlocks = []
    lastBlock = nil
    pendingWTX = 0
  }

  func receive(_ frame: [UInt8], bits: Int?, intact: Bool) -> TagAnswer? {
    if frame.count == 1, bits == 7 {
      // Re-activation: ISO-DEP state and the selected file are gone.
      deactivateProtocol()
      application.reset()
    }
    if protocolActive {
      // In the ISO-DEP state HLTA is not a valid command: everything is a block.
      guard intact, frame.count >= 3, CRC.hasValidCRCA(frame) else { return nil }
      return block(Array(frame.dropLast(2)))
    }
    switch activation.handle(frame, bits: bits, intact: intact) {
    case .answer(let a): return a
    case .silent: return nil
    case .application(let payload, let ok):
      guard ok, payload.count == 2, payload[0] == 0xE0 else { return nil }
      let fsdi = Int(payload[1] >> 4)
      let sizes = [16, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024, 2048, 4096]
      fsd = fsdi < sizes.count ? sizes[fsdi] : 4096
      protocolActive = true
      blockNumber = 1
      return .withCRC(ats)
    }
  }

  private func block(_ b: [UInt8]) -> TagAnswer? {
    guard let pcb = b.first else { return nil }
    var offset = 1
    if pcb & 0x08 != 0 { offset += 1 }  // CID
    if pcb & 0xE2 == 0x02, pcb & 0x04 != 0 { offset += 1 }  // NAD (I-blocks only)
    let inf = Array(b.dropFirst(offset))
    switch pcb {
    case _ where pcb & 0xE2 == 0x02: return iBlock(pcb, inf)
    case _ where pcb & 0xE6 == 0xA2: return rBlock(pcb)
    case _ where pcb & 0xC7 == 0xC2 && pcb & 0x30 == 0x00:
      activation.halt()
      deactivateProtocol()
      return .withCRC([pcb])
    case _ where pcb & 0xC7 == 0xC2 && pcb & 0x30 == 0x30:
      return pendingWTX > 0 ? afterWTXReply() : nil
    default: return nil
    }
  }

  private func iBlock(_ pcb: UInt8, _ inf: [UInt8]) -> TagAnswer? {
    blockNumber = pcb & 0x01
    received += inf
    if pcb & 0x10 != 0 {
      return send([0xA2 | blockNumber], delay: 0)
    }
    let apdu = received
    received = []
    let (response, wrote) = application.process(apdu)
    let isUpdate = apdu.count > 1 && apdu[1] == 0xD6
    pendingBlocks = split(response)
    pendingAnswerIsWrite = wrote
    pendingWTX = everyAnswerWTX + (isUpdate ? updateWTX : 0)
    if pendingWTX > 0 { return send([0xF2, Self.wtxm], delay: fwt * 8 / 10) }
    return nextResponseBlock(delay: processing(update: isUpdate))
  }

  private func afterWTXReply() -> TagAnswer? {
    pendingWTX -= 1
    let delay = fwt * Int64(Self.wtxm) * 8 / 10
    if pendingWTX > 0 { return send([0xF2, Self.wtxm], delay: delay) }
    return nextResponseBlock(delay: delay)
  }

  private func rBlock(_ pcb: UInt8) -> TagAnswer? {
    let number = pcb & 0x01
    if pcb & 0x10 != 0 {
      // R(NAK) for our current block: send it again; otherwise acknowledge (§7.5.4).
      if number == blockNumber, let last = lastBlock { return .withCRC(last) }
      return .withCRC([0xA2 | blockNumber])
    }
    if number == blockNumber { return lastBlock.map { TagAnswer.withCRC($0) } }
    blockNumber = number
    return nextResponseBlock(delay: 0)
  }

  /// Processing time before an I-block answer, within 80 % of FWT.
  private func processing(update: Bool) -> Int64 {
    let ms = update ? 3.0 + rng.unit() : 1.0 + 0.3 * rng.unit()
    return min(AirTiming.ticks(ms: ms), fwt * 8 / 10)
  }

  /// Splits an R-APDU into I-block INF fields of at most FSD − 3 bytes (PCB + CRC_A).
  private func split(_ response: [UInt8]) -> [[UInt8]] {
    let room = ignoresFSD ? response.count : max(fsd - 3, 1)
    var parts: [[UInt8]] = []
    var i = 0
    repeat {
      parts.append(Array(response[i..<min(i + room, response.count)]))
      i += room
    } while i < response.count
    return parts
  }

  private func nextResponseBlock(delay: Int64) -> TagAnswer? {
    guard !pendingBlocks.isEmpty else { return nil }
    let inf = pendingBlocks.removeFirst()
    let chaining: UInt8 = pendingBlocks.isEmpty ? 0x00 : 0x10
    var answer = send([0x02 | chaining | blockNumber] + inf, delay: delay)
    if pendingBlocks.isEmpty, pendingAnswerIsWrite {
      answer.acknowledgesWrite = true
      pendingAnswerIsWrite = false
    }
    return answer
  }

  private func send(_ block: [UInt8], delay: Int64) -> TagAnswer {
    lastBlock = block
    return .withCRC(block, delay: delay)
  }
}
