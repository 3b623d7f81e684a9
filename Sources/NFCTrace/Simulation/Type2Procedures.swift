/// Core NFC / Android NDEF operations on a Type 2 tag, as `ReaderProfile` documents them
/// (reference/nfc-facts.md §4, §5).
extension SimulatedReader {
  /// What a Type 2 command got back.
  enum Type2Reply {
    case data([UInt8])
    case ack
  }

  /// Sends a Type 2 command (CRC_A appended) with the retry; NAK → `LinkError.nak`.
  func type2Command(_ payload: [UInt8], timeout: Int64 = commandTimeout, frame: [UInt8]? = nil)
    throws -> Type2Reply
  {
    let reply = transceive(
      frame ?? CRC.appendingCRCA(payload), hasCRC: true, timeout: timeout, retryNAK1: true)
    switch reply {
    case .answer(let bytes, 4, true) where bytes.count == 1:
      if bytes[0] == TagAnswer.ack { return .ack }
      throw LinkError.nak(bytes[0])
    case .answer(let bytes, nil, true) where bytes.count >= 3 && CRC.hasValidCRCA(bytes):
      return .data(Array(bytes.dropLast(2)))
    case .collision: throw LinkError.protocolError("collision")
    default: throw LinkError.noAnswer
    }
  }

  /// READ `page` (4 pages) into the reader's image.
  func readPages(_ page: Int) throws {
    guard case .data(let d) = try type2Command([0x30, UInt8(page & 0xFF)]), d.count == 16 else {
      throw LinkError.protocolError("READ \(page) did not return 16 bytes")
    }
    store(d, at: page * 4)
  }

  /// FAST_READ `start`…`end` into the reader's image.
  func fastRead(_ start: Int, _ end: Int) throws {
    let expected = (end - start + 1) * 4
    let command: [UInt8] = [0x3A, UInt8(start & 0xFF), UInt8(end & 0xFF)]
    guard case .data(let d) = try type2Command(command), d.count == expected else {
      throw LinkError.protocolError("FAST_READ \(start)-\(end) did not return \(expected) bytes")
    }
    store(d, at: start * 4)
  }

  private func store(_ data: [UInt8], at address: Int) {
    for (i, b) in data.enumerated() where address + i < t2.image.count {
      t2.image[address + i] = b
      t2.known[address + i] = true
    }
  }

  /// WRITE one page; anything but ACK fails.
  func writePage(_ page: Int, _ bytes: ArraySlice<UInt8>) throws {
    let command = [0xA2, UInt8(page & 0xFF)] + bytes
    guard case .ack = try type2Command(command, timeout: Self.writeTimeout) else {
      throw LinkError.protocolError("WRITE \(page) answered with data instead of ACK")
    }
    store(Array(bytes), at: page * 4)
  }

  /// queryNDEFStatus on a Type 2 tag (detection), cached per connection.
  func detectType2() throws {
    guard !t2.detected else { return }
    if profile.type2DetectsWithGetVersion {
      try getVersion()
      try readPages(3)
    } else {
      try readPages(0)
    }
    let cc = Array(t2.image[12..<16])
    t2.detected = true
    // Only read access 0h lets a reader read NDEF (NFC Forum T2T 1.0 §6.1, CC3).
    guard cc[0] == 0xE1, cc[1] >> 4 == 1, cc[3] >> 4 == 0 else {
      (t2.status, t2.capacity) = (.notSupported, 0)
      return
    }
    t2.areaEnd = SimulatedTLVArea.areaEnd(cc: cc)
    defer { if t2.dynamicLockPage == nil { t2.dynamicLockPage = lockControlPage() } }
    while true {
      // Bytes from 16 on are read contiguously; the scan may use them up to the first gap.
      let knownEnd = t2.known[16...].firstIndex(of: false) ?? t2.known.count
      switch SimulatedTLVArea.scan(t2.image, known: knownEnd, areaEnd: t2.areaEnd) {
      case .found(let tlv):
        t2.tlv = tlv
        t2.status = cc[3] & 0x0F == 0 ? .readWrite : .readOnly
        t2.capacity = SimulatedTLVArea.capacity(tlvStart: tlv.start, areaEnd: t2.areaEnd)
        return
      case .none:
        (t2.status, t2.capacity) = (.notSupported, 0)
        return
      case .needMore(let end):
        guard end - 1 < t2.known.count, !t2.known[end - 1] else {
          throw LinkError.protocolError("TLV area beyond the readable memory")
        }
        try readPages((end - 1) / 4)
      }
    }
  }

  /// The dynamic lock page named by a Lock Control TLV at the start of the data area
  /// (facts §5.2: address = PageAddr × 2^BytesPerPage + ByteOffset), nil without one.
  private func lockControlPage() -> Int? {
    let v = t2.image[16..<21]
    guard t2.known[20], v[16] == 0x01, v[17] == 0x03 else { return nil }
    let address = Int(v[18] >> 4) << Int(v[20] & 0x0F) + Int(v[18] & 0x0F)
    return address / 4
  }

  /// GET_VERSION; a tag without it (original Ultralight) stays silent and drops to IDLE, so the
  /// reader re-activates it (one try, no retry: this is a probe).
  private func getVersion() throws {
    let reply = channel.transmit(CRC.appendingCRCA([0x60]), hasCRC: true, gap: gap())
    if case .answer(let v, nil, true) = reply, v.count == 10, CRC.hasValidCRCA(v) {
      // Storage size byte → product: 0F NTAG213, 11 NTAG215, 13 NTAG216 (facts §4.6).
      let pages: [UInt8: Int] = [0x0F: 0x28, 0x11: 0x82, 0x13: 0xE2]
      t2.dynamicLockPage = v[2] == 0x04 ? pages[v[6]] : nil
      return
    }
    channel.wait(Self.commandTimeout)
    guard case .answer = transceive([0x52], bits: 7, hasCRC: false, timeout: Self.activationTimeout)
    else { throw LinkError.noAnswer }
    _ = try selectCascade(prefer: primaryUID, firstReply: anticollisionFrame(level: 1))
  }

  func type2ReadNDEF() throws -> String? {
    try detectType2()
    guard t2.status != .notSupported, let tlv = t2.tlv else {
      throw OperationFailure(reason: "tag is not NDEF formatted", error: .tagResponseError)
    }
    guard tlv.length > 0 else {
      throw OperationFailure(reason: "NDEF TLV has length 0", error: .zeroLengthMessage)
    }
    guard tlv.valueStart + tlv.length <= min(t2.areaEnd, t2.image.count) else {
      throw OperationFailure(
        reason: "NDEF TLV length \(tlv.length) runs past the data area", error: .tagResponseError)
    }
    let firstPage = tlv.start / 4
    let lastPage = (tlv.valueStart + tlv.length - 1) / 4
    if profile.fastReadPages > 0 {
      var page = firstPage
      while page <= lastPage {
        let end = min(page + profile.fastReadPages - 1, lastPage)
        try fastRead(page, end)
        page = end + 1
      }
    } else {
      for page in stride(from: firstPage, through: lastPage, by: 4) { try readPages(page) }
    }
    let message = Array(t2.image[tlv.valueStart..<(tlv.valueStart + tlv.length)])
    ndefRead = message
    return "\(message.count)-byte message"
  }

  func type2WriteNDEF(_ message: [UInt8]) throws -> String? {
    try detectType2()
    guard t2.status != .notSupported, let tlv = t2.tlv else {
      // Core NFC reports notSupported and writeNDEF does not format (nfc-facts §8.4); no
      // source names the error it then gives, so none is claimed (as `diagnose` does).
      throw OperationFailure(reason: "tag is not NDEF formatted", error: nil)
    }
    guard t2.status == .readWrite else {
      throw OperationFailure(reason: "tag is read-only (CC3)", error: .tagNotWritable)
    }
    guard message.count <= t2.capacity else {
      throw OperationFailure(
        reason: "message of \(message.count) bytes exceeds capacity \(t2.capacity)",
        error: .tagSizeTooSmall)
    }
    let newTLV = SimulatedTLVArea.ndefTLV(message, room: t2.areaEnd - tlv.start)
    guard tlv.start + newTLV.count <= t2.image.count else {
      throw OperationFailure(
        reason: "data area larger than the reader supports", error: .tagUpdateFailure)
    }
    var target = t2.image
    target.replaceSubrange(tlv.start..<(tlv.start + newTLV.count), with: newTLV)
    let lengthSize = newTLV[1] == 0xFF ? 3 : 1
    var zeroLength = target
    for i in 0..<lengthSize { zeroLength[tlv.start + 1 + i] = lengthSize == 3 && i == 0 ? 0xFF : 0 }
    let pages = Array((tlv.start / 4)...((tlv.start + newTLV.count - 1) / 4))
    let lengthPages = Set((tlv.start + 1) / 4...(tlv.start + lengthSize) / 4)
    let terminator = newTLV.last == 0xFE ? (tlv.start + newTLV.count - 1) : nil
    var body = target
    if profile.terminatorLast, let t = terminator { body[t] = t2.image[t] }
    if reactivateBeforeWrite { try reactivate() }
    let slice = { (image: [UInt8], page: Int) in image[(page * 4)..<(page * 4 + 4)] }
    for page in lengthPages.sorted() { try writePage(page, slice(zeroLength, page)) }
    // The length is 0 on the tag now: a write that stops after this leaves an empty message,
    // which the next readNDEF finds (403), not the old one.
    t2.tlv = SimulatedTLVArea.NDEFTLV(start: tlv.start, lengthFieldSize: lengthSize, length: 0)
    for page in pages where !lengthPages.contains(page) { try writePage(page, slice(body, page)) }
    for page in lengthPages.sorted() { try writePage(page, slice(target, page)) }
    if profile.terminatorLast, let t = terminator, !lengthPages.contains(t / 4) {
      try writePage(t / 4, slice(target, t / 4))
    }
    t2.tlv = SimulatedTLVArea.NDEFTLV(
      start: tlv.start, lengthFieldSize: lengthSize, length: message.count)
    ndefWritten = message
    return "\(message.count)-byte message, \(pages.count) pages"
  }

  func type2WriteLock() throws -> String? {
    try detectType2()
    guard t2.status == .readWrite else {
      throw OperationFailure(
        reason: t2.status == .readOnly ? "tag is already read-only" : "tag is not NDEF formatted",
        error: t2.status == .readOnly ? .tagNotWritable : .tagUpdateFailure)
    }
    try writePage(3, [t2.image[12], t2.image[13], t2.image[14], 0x0F][...])
    let staticLock: () throws -> Void = {
      try self.writePage(2, [self.t2.image[8], self.t2.image[9], 0xFF, 0xFF][...])
    }
    let dynamicLock: () throws -> Void = {
      if let page = self.t2.dynamicLockPage {
        try self.writePage(page, [0xFF, 0xFF, 0xFF, 0x00][...])
      }
    }
    if profile.dynamicLockFirst {
      try dynamicLock()
      try staticLock()
    } else {
      try staticLock()
      try dynamicLock()
    }
    t2.status = .readOnly
    return nil
  }
}
