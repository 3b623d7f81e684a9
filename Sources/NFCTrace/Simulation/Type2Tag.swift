/// A virtual NFC Forum Type 2 tag (NTAG213/215/216, Ultralight EV1, blank Ultralight) with its
/// real memory map and command behaviour (reference/nfc-facts.md §4; NXP NTAG213/215/216
/// datasheet §10, MF0UL11 datasheet).
///
/// Behaviour choices where sources are silent: a frame of the wrong length for its command is
/// ignored and the tag returns to IDLE (ISO/IEC 14443-3 error handling — this is what makes an
/// app-appended CRC fail with Core NFC error 100); a corrupted frame in ACTIVE state gets NAK 1
/// (datasheet: parity or CRC error); an unknown command gets NAK 0; a blank Ultralight has no
/// GET_VERSION and stays silent. PWD_AUTH state is lost on every re-activation (REQA/WUPA).
final class Type2Tag: VirtualTag {
  let product: Type2Product
  private(set) var memory: [UInt8]
  private var activation: PICCActivation
  private var authenticated = false
  private var failedAuthentications = 0
  private var nfcCounter: UInt32 = 0
  private var counterCounted = false
  private var compatibilityWritePage: Int?
  private let signature: [UInt8]
  /// Pages whose WRITE is answered with this NAK (fault `nak-on-page`).
  var nakPages: [Int: UInt8] = [:]

  var uid: [UInt8] { activation.uid }

  init(product: Type2Product, uid: [UInt8], memory: [UInt8], signature: [UInt8]) {
    self.product = product
    self.memory = memory
    self.signature = signature
    activation = PICCActivation(uid: uid, atqa: Self.atqa(uidCount: uid.count), finalSAK: 0x00)
  }

  /// ATQA `44 00` for a 7-byte UID (UID size bits 0x40 + bit-frame anticollision 0x04).
  static func atqa(uidCount: Int) -> [UInt8] {
    [(uidCount <= 4 ? 0x00 : (uidCount <= 7 ? 0x40 : 0x80)) | 0x04, 0x00]
  }

  func powerOff() {
    activation.reset()
    authenticated = false
    compatibilityWritePage = nil
    counterCounted = false
  }

  func receive(_ frame: [UInt8], bits: Int?, intact: Bool) -> TagAnswer? {
    if frame.count == 1, bits == 7 { authenticated = false }
    switch activation.handle(frame, bits: bits, intact: intact) {
    case .answer(let a): return a
    case .silent: return nil
    case .application(let payload, let ok):
      return ok ? command(payload) : .fourBit(0x1)
    }
  }

  // MARK: configuration

  private func byte(page: Int, _ i: Int) -> UInt8 {
    let at = page * 4 + i
    return at < memory.count ? memory[at] : 0
  }
  private var auth0: Int { product.cfg0Page.map { Int(byte(page: $0, 3)) } ?? 0xFF }
  private var access: UInt8 { product.cfg1Page.map { byte(page: $0, 0) } ?? 0 }
  private var readProtected: Bool {
    access & 0x80 != 0 && !authenticated && auth0 < product.pageCount
  }

  // MARK: commands

  private func command(_ p: [UInt8]) -> TagAnswer? {
    if let page = compatibilityWritePage {
      compatibilityWritePage = nil
      return p.count == 16 ? write(page, Array(p[0..<4])) : ignore()
    }
    guard let op = p.first else { return ignore() }
    let ev1 = product.isEV1Family
    switch (op, p.count) {
    case (0x30, 2): return read(Int(p[1]))
    case (0xA2, 6): return write(Int(p[1]), Array(p[2..<6]))
    case (0xA0, 2): return compatibilityWriteStart(Int(p[1]))
    case (0x3A, 3) where ev1: return fastRead(Int(p[1]), Int(p[2]))
    case (0x60, 1): return product.version.map { .withCRC($0) } ?? ignore()
    case (0x3C, 2) where ev1: return p[1] == 0 ? .withCRC(signature) : .fourBit(0x0)
    case (0x1B, 5) where ev1: return passwordAuthentication(Array(p[1..<5]))
    case (0x39, 2) where ev1: return readCounter(Int(p[1]))
    case (0x30, _), (0xA2, _), (0xA0, _), (0x60, _): return ignore()
    case (0x3A, _), (0x3C, _), (0x1B, _), (0x39, _): return ev1 ? ignore() : .fourBit(0x0)
    default: return ev1 ? .fourBit(0x0) : ignore()
    }
  }

  /// No answer; the tag falls back to IDLE.
  private func ignore() -> TagAnswer? {
    activation.reset()
    return nil
  }

  /// What READ/FAST_READ return for a page: PWD and PACK read as zeros.
  private func readable(_ page: Int) -> [UInt8] {
    if page == product.pwdPage || page == product.packPage { return [0, 0, 0, 0] }
    return Array(memory[(page * 4)..<(page * 4 + 4)])
  }

  private func read(_ page: Int) -> TagAnswer {
    guard page <= product.lastPage, !(readProtected && page >= auth0) else { return .fourBit(0) }
    countRead()
    // Wraps to page 0 past the last page, or past AUTH0 while read protection applies.
    let limit = readProtected ? min(auth0, product.pageCount) : product.pageCount
    return .withCRC((0..<4).flatMap { readable((page + $0) % limit) })
  }

  private func fastRead(_ start: Int, _ end: Int) -> TagAnswer {
    guard start <= end, end <= product.lastPage, !(readProtected && end >= auth0) else {
      return .fourBit(0)
    }
    countRead()
    return .withCRC((start...end).flatMap { readable($0) })
  }

  private func countRead() {
    guard product.version?[2] == 0x04, access & 0x10 != 0, !counterCounted else { return }
    counterCounted = true
    nfcCounter = min(nfcCounter + 1, 0xFF_FFFF)
  }

  private func isLocked(_ page: Int) -> Bool {
    let staticBits = UInt16(byte(page: 2, 2)) | UInt16(byte(page: 2, 3)) << 8
    if (3...15).contains(page) { return staticBits >> UInt16(page) & 1 == 1 }
    if let dyn = product.dynamicLockPage, page >= 16, page <= product.userEnd {
      let bit = (page - 16) / max(product.pagesPerDynamicLockBit, 1)
      let bits = UInt16(byte(page: dyn, 0)) | UInt16(byte(page: dyn, 1)) << 8
      return bit < 16 && bits >> UInt16(bit) & 1 == 1
    }
    if page == product.cfg0Page || page == product.cfg1Page { return access & 0x40 != 0 }
    return false
  }

  private func writeRejected(_ page: Int) -> Bool {
    page < 2 || page > product.lastPage || (page >= auth0 && !authenticated) || isLocked(page)
  }

  private func write(_ page: Int, _ data: [UInt8]) -> TagAnswer {
    if let code = nakPages[page] { return .fourBit(code) }
    guard !writeRejected(page) else { return .fourBit(0) }
    let base = page * 4
    let otp = page == 3 || page == product.dynamicLockPage
    for i in 0..<4 {
      if page == 2 {
        // UID/BCC/internal bytes are read-only; lock bits are one-time programmable.
        if i >= 2 { memory[base + i] |= data[i] }
      } else if otp {
        // CC and dynamic lock bits are OR-ed in; the RFUI byte keeps its value.
        if page == 3 || i < 3 { memory[base + i] |= data[i] }
      } else {
        memory[base + i] = data[i]
      }
    }
    var ack = TagAnswer.fourBit(TagAnswer.ack, delay: AirTiming.type2WriteProgramming)
    ack.acknowledgesWrite = true
    return ack
  }

  private func compatibilityWriteStart(_ page: Int) -> TagAnswer {
    if let code = nakPages[page] { return .fourBit(code) }
    guard !writeRejected(page) else { return .fourBit(0) }
    compatibilityWritePage = page
    return .fourBit(TagAnswer.ack)
  }

  private func passwordAuthentication(_ pwd: [UInt8]) -> TagAnswer {
    guard let pwdPage = product.pwdPage, let packPage = product.packPage else {
      return .fourBit(0)
    }
    let limit = Int(access & 0x07)
    if limit > 0, failedAuthentications >= 1 << limit { return .fourBit(0x4) }
    guard Array(memory[(pwdPage * 4)..<(pwdPage * 4 + 4)]) == pwd else {
      failedAuthentications += 1
      return .fourBit(0)
    }
    failedAuthentications = 0
    authenticated = true
    return .withCRC(Array(memory[(packPage * 4)..<(packPage * 4 + 2)]))
  }

  private func readCounter(_ address: Int) -> TagAnswer {
    let isNTAG = product.version?[2] == 0x04
    guard isNTAG ? address == 2 : address <= 2 else { return .fourBit(0) }
    if isNTAG, access & 0x08 != 0, !authenticated { return .fourBit(0) }
    let value = isNTAG ? nfcCounter : 0
    return .withCRC([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)])
  }
}
