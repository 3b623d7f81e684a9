/// The reader (PCD) side of the ISO/IEC 14443-4 block protocol (reference/nfc-facts.md §2.5,
/// §2.6): I-block numbering from 0, command chaining when an APDU exceeds FSC − 3 bytes,
/// R(ACK) to receive a chained answer, S(WTX) replies, R(NAK) once after a timeout or a
/// corrupted block, and a protocol error for a block longer than the reader's FSD (256).
extension SimulatedReader {
  static let readerFSD = 256

  /// Exchanges one C-APDU and returns the R-APDU (data + SW1 SW2).
  func exchangeAPDU(_ apdu: [UInt8]) throws -> [UInt8] {
    let room = max(isoDep.fsc - 3, 1)
    var offset = 0
    var reply: [UInt8] = []
    repeat {
      let part = Array(apdu[offset..<min(offset + room, apdu.count)])
      offset += room
      let more = offset < apdu.count
      reply = try isoDepBlock([0x02 | (more ? 0x10 : 0) | isoDep.blockNumber] + part)
      if more {
        guard let pcb = reply.first, pcb & 0xF6 == 0xA2, pcb & 0x01 == isoDep.blockNumber else {
          throw LinkError.protocolError("expected R(ACK) to a chained command block")
        }
        isoDep.blockNumber ^= 1
      }
    } while offset < apdu.count
    return try collectResponse(first: reply)
  }

  private func collectResponse(first: [UInt8]) throws -> [UInt8] {
    var block = first
    var response: [UInt8] = []
    while true {
      guard let pcb = block.first, pcb & 0xE2 == 0x02 else {
        throw LinkError.protocolError("expected an I-block answer")
      }
      guard pcb & 0x01 == isoDep.blockNumber else {
        throw LinkError.protocolError("I-block with the wrong block number")
      }
      isoDep.blockNumber ^= 1
      response += block.dropFirst(pcb & 0x08 != 0 ? 2 : 1)
      guard pcb & 0x10 != 0 else { break }
      block = try isoDepBlock([0xA2 | isoDep.blockNumber])
    }
    guard response.count >= 2 else { throw LinkError.protocolError("R-APDU without SW1 SW2") }
    return response
  }

  /// Sends one block (CRC_A appended) and returns the tag's block without CRC, answering
  /// S(WTX) requests; one R(NAK) (or a retransmission, ISO/IEC 14443-4 §7.5.4 rule 6) after
  /// a timeout or a corrupted block, then `LinkError.noAnswer`.
  @discardableResult
  func isoDepBlock(_ block: [UInt8]) throws -> [UInt8] {
    var toSend = block
    var timeout = isoDep.fwt + AirTiming.deltaFWT
    var retried = false
    var resent = false
    while true {
      let reply = channel.transmit(CRC.appendingCRCA(toSend), hasCRC: true, gap: gap())
      if case .answer(let bytes, nil, true) = reply, bytes.count >= 3, CRC.hasValidCRCA(bytes) {
        guard bytes.count <= Self.readerFSD else {
          throw LinkError.protocolError(
            "\(bytes.count)-byte block exceeds the reader's FSD \(Self.readerFSD)")
        }
        let answer = Array(bytes.dropLast(2))
        if let pcb = answer.first, pcb & 0xF7 == 0xF2, answer.count >= 2 {
          let wtxm = Int64(answer[answer.count - 1] & 0x3F)
          toSend = [pcb, answer[answer.count - 1]]
          timeout = isoDep.fwt * max(wtxm, 1) + AirTiming.deltaFWT
          continue
        }
        if let pcb = answer.first, pcb & 0xF6 == 0xA2, pcb & 0x01 != isoDep.blockNumber, retried,
          !resent, block.first.map({ $0 & 0xE2 == 0x02 }) == true
        {
          resent = true
          toSend = block  // the tag missed our I-block: send it again
          continue
        }
        return answer
      }
      if case .none = reply { channel.wait(timeout) }
      guard !retried else { throw LinkError.noAnswer }
      retried = true
      toSend = [0xB2 | isoDep.blockNumber]
    }
  }
}
