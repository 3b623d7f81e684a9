/// The NDEF application of an NFC Forum Type 4 tag, mapping 2.0: the CC file E103 and one NDEF
/// file, reached with ISO/IEC 7816-4 SELECT, READ BINARY and UPDATE BINARY (short APDUs only;
/// reference/nfc-facts.md §3, §6).
///
/// Status words: 9000 success; 6A82 application or file not found; 6A86 wrong P1/P2;
/// 6700 wrong Lc/Le (Le above MLe, Lc above MLc, data past the file end, malformed lengths);
/// 6982 security status not satisfied (access byte not 00, or any write to the CC file — the
/// value real tags return is unverified, facts §6.4); 6B00 offset beyond the file; 6986 no
/// current file; 6D00 unknown INS; 6E00 CLA other than 00.
struct Type4NDEFApplication {
  /// NDEF application AID, mapping 2.0 (facts §6.1).
  static let aid: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  static let ccFileID: [UInt8] = [0xE1, 0x03]
  static let ndefFileID: [UInt8] = [0xE1, 0x04]

  enum File { case cc, ndef }

  let mle: Int
  let mlc: Int
  let readAccess: UInt8
  let writeAccess: UInt8
  /// The NDEF file (NLEN + message + free space), `max_ndef_size` bytes.
  private(set) var ndefFile: [UInt8]
  private var applicationSelected = false
  private var selected: File?

  init(mle: Int, mlc: Int, readAccess: UInt8, writeAccess: UInt8, ndefFile: [UInt8]) {
    self.mle = mle
    self.mlc = mlc
    self.readAccess = readAccess
    self.writeAccess = writeAccess
    self.ndefFile = ndefFile
  }

  /// The 15-byte CC file: CCLEN 000F, version 20, MLe, MLc, NDEF File Control TLV 04 06.
  var capabilityContainer: [UInt8] {
    let size = ndefFile.count
    return [
      0x00, 0x0F, 0x20, UInt8(mle >> 8 & 0xFF), UInt8(mle & 0xFF), UInt8(mlc >> 8 & 0xFF),
      UInt8(mlc & 0xFF), 0x04, 0x06, 0xE1, 0x04, UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
      readAccess, writeAccess,
    ]
  }

  /// Forgets the selection (power loss, re-activation).
  mutating func reset() {
    applicationSelected = false
    selected = nil
  }

  /// A parsed short C-APDU.
  private struct Command {
    var ins: UInt8, p1: UInt8, p2: UInt8
    var data: [UInt8]
    var lc: Int?
    var le: Int?
  }

  /// Processes one C-APDU; returns the R-APDU and whether it was a successful UPDATE BINARY.
  mutating func process(_ apdu: [UInt8]) -> (response: [UInt8], wrote: Bool) {
    guard apdu.count >= 4 else { return (sw(0x6700), false) }
    guard apdu[0] == 0x00 else { return (sw(0x6E00), false) }
    guard let c = Self.parse(apdu) else { return (sw(0x6700), false) }
    switch c.ins {
    case 0xA4: return (select(c), false)
    case 0xB0: return (readBinary(c), false)
    case 0xD6:
      let r = updateBinary(c)
      return (r, r == sw(0x9000))
    default: return (sw(0x6D00), false)
    }
  }

  private static func parse(_ a: [UInt8]) -> Command? {
    var c = Command(ins: a[1], p1: a[2], p2: a[3], data: [])
    if a.count == 4 { return c }
    if a.count == 5 {
      c.le = a[4] == 0 ? 256 : Int(a[4])
      return c
    }
    let lc = Int(a[4])
    guard lc > 0, a.count == 5 + lc || a.count == 6 + lc else { return nil }
    c.lc = lc
    c.data = Array(a[5..<(5 + lc)])
    if a.count == 6 + lc { c.le = a[5 + lc] == 0 ? 256 : Int(a[5 + lc]) }
    return c
  }

  private func sw(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

  private mutating func select(_ c: Command) -> [UInt8] {
    switch c.p1 {
    case 0x04:
      guard c.data == Self.aid else { return sw(0x6A82) }
      applicationSelected = true
      selected = nil
      return sw(0x9000)
    case 0x00:
      guard c.p2 == 0x0C || c.p2 == 0x00 else { return sw(0x6A86) }
      guard c.lc == 2 else { return sw(0x6700) }
      guard applicationSelected else { return sw(0x6A82) }
      if c.data == Self.ccFileID {
        selected = .cc
      } else if c.data == Self.ndefFileID {
        selected = .ndef
      } else {
        return sw(0x6A82)
      }
      return sw(0x9000)
    default:
      return sw(0x6A86)
    }
  }

  private func readBinary(_ c: Command) -> [UInt8] {
    guard let file = selected else { return sw(0x6986) }
    guard c.p1 & 0x80 == 0 else { return sw(0x6A86) }
    guard c.lc == nil, let le = c.le else { return sw(0x6700) }
    if file == .ndef, readAccess != 0x00 { return sw(0x6982) }
    let content = file == .cc ? capabilityContainer : ndefFile
    let offset = Int(c.p1) << 8 | Int(c.p2)
    guard offset < content.count else { return sw(0x6B00) }
    guard le <= mle else { return sw(0x6700) }
    return Array(content[offset..<min(offset + le, content.count)]) + sw(0x9000)
  }

  private mutating func updateBinary(_ c: Command) -> [UInt8] {
    guard let file = selected else { return sw(0x6986) }
    guard c.p1 & 0x80 == 0 else { return sw(0x6A86) }
    guard let lc = c.lc else { return sw(0x6700) }
    guard file == .ndef, writeAccess == 0x00 else { return sw(0x6982) }
    let offset = Int(c.p1) << 8 | Int(c.p2)
    guard offset < ndefFile.count else { return sw(0x6B00) }
    guard lc <= mlc, offset + lc <= ndefFile.count else { return sw(0x6700) }
    ndefFile.replaceSubrange(offset..<(offset + lc), with: c.data)
    return sw(0x9000)
  }
}
