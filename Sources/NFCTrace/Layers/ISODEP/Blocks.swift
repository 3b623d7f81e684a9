/// One ISO-DEP block: PCB, optional CID and NAD bytes, INF (CRC already removed).
///
/// PCB classes (Wireshark masks): I-block `(pcb & 0xE2) == 0x02` — b5 chaining (0x10), b4 CID
/// follows (0x08), b3 NAD follows (0x04), b1 block number; R-block `(pcb & 0xE6) == 0xA2` —
/// b5 NAK (0x10), b4 CID, b1 block number; S-block `(pcb & 0xC7) == 0xC2` — b6–b5 `00`
/// DESELECT, `11` WTX, b4 CID; S(PARAMETERS) `(pcb & 0xF7) == 0xF0` (ISO/IEC 14443-4:2016). Field order: PCB, [CID], [NAD], INF.
/// ISO/IEC 14443-4 §7.1; nfc-facts §2.5.
public struct ISODEPBlock: Sendable, Equatable {
  /// The block class.
  public enum Kind: String, Sendable {
    /// Information block (carries INF, possibly chained).
    case iBlock = "I-block"
    /// Receive-ready acknowledgement.
    case rACK = "R(ACK)"
    /// Receive-ready negative acknowledgement.
    case rNAK = "R(NAK)"
    /// Supervisory DESELECT (no INF).
    case sDeselect = "S(DESELECT)"
    /// Supervisory waiting-time extension (1 INF byte: WTXM).
    case sWTX = "S(WTX)"
    /// Supervisory PARAMETERS (PCB `F0`, `F8` with CID; INF: parameter TLVs), ISO/IEC
    /// 14443-4:2016 §7.1.1.1, negotiating the bit rates and frame sizes beyond PPS.
    case sParameters = "S(PARAMETERS)"
    /// S-block with b6–b5 `01` or `10` (RFU).
    case sOther = "S-block"
  }

  /// The PCB byte.
  public var pcb: UInt8
  /// The class.
  public var kind: Kind
  /// The CID byte when b4 says it follows (b4–b1 CID, b8–b7 power level indication).
  public var cidByte: UInt8?
  /// The NAD byte (I-blocks only).
  public var nad: UInt8?
  /// INF.
  public var inf: [UInt8]

  /// Reads a block; nil when the PCB is not an I-, R- or S-block or a CID/NAD byte is missing.
  public init?(_ bytes: [UInt8]) {
    guard let pcb = bytes.first, let kind = Self.kind(of: pcb) else { return nil }
    self.pcb = pcb
    self.kind = kind
    let end = Self.prologueLength(pcb: pcb, kind: kind)
    guard end <= bytes.count else { return nil }
    var i = 1
    if pcb & 0x08 != 0 {
      cidByte = bytes[i]
      i += 1
    }
    if i < end { nad = bytes[i] }
    inf = Array(bytes[end...])
  }

  /// Bytes before INF in a block of class `kind` with this PCB: the PCB, the CID byte when b4
  /// is set, and the NAD byte when b3 of an I-block is set (ISO/IEC 14443-4 §7.1.1).
  public static func prologueLength(pcb: UInt8, kind: Kind) -> Int {
    1 + (pcb & 0x08 != 0 ? 1 : 0) + (kind == .iBlock && pcb & 0x04 != 0 ? 1 : 0)
  }

  /// The class of a PCB, nil when it is none.
  public static func kind(of pcb: UInt8) -> Kind? {
    if pcb & 0xE2 == 0x02 { return .iBlock }
    if pcb & 0xE6 == 0xA2 { return pcb & 0x10 == 0 ? .rACK : .rNAK }
    if pcb & 0xC7 == 0xC2 {
      switch pcb & 0x30 {
      case 0x00: return .sDeselect
      case 0x30: return .sWTX
      default: return .sOther
      }
    }
    // S(PARAMETERS): b6–b5 `11` like S(WTX), but b2 = 0.
    if pcb & 0xF7 == 0xF0 { return .sParameters }
    return nil
  }

  /// b1, for I- and R-blocks.
  public var blockNumber: Int { Int(pcb & 0x01) }
  /// b5 of an I-block: more blocks of this chain follow.
  public var chaining: Bool { kind == .iBlock && pcb & 0x10 != 0 }
  /// CID (b4–b1 of the CID byte).
  public var cid: Int? { cidByte.map { Int($0 & 0x0F) } }
  /// Power level indication (b8–b7 of the CID byte, tag blocks).
  public var powerLevel: Int? { cidByte.map { Int($0 >> 6) } }

  /// `, CID 0` / `, CID 0, NAD 0x12`, or empty.
  var addressText: String {
    var text = ""
    if let cid { text += ", CID \(cid)" }
    if let nad { text += ", NAD 0x" + Hex.string([nad]) }
    return text
  }

  /// PCB, CID and NAD fields.
  var baseFields: [LayerField] {
    var fields = [LayerField("pcb", .hex([pcb]))]
    if kind == .iBlock || kind == .rACK || kind == .rNAK {
      fields.append(LayerField("block_number", .int(blockNumber)))
    }
    if kind == .iBlock { fields.append(LayerField("chaining", .bool(chaining))) }
    if let cid { fields.append(LayerField("cid", .int(cid))) }
    if let powerLevel, powerLevel != 0 {
      fields.append(LayerField("power_level", .int(powerLevel)))
    }
    if let nad { fields.append(LayerField("nad", .hex([nad]))) }
    return fields
  }
}

/// Block-number bookkeeping of ISO/IEC 14443-4 §7.5.4 (nfc-facts §2.6).
///
/// The reader starts at 0 and toggles when it receives an I-block or R(ACK) carrying its
/// current number; the tag starts at 1, toggles on every I-block it receives and on an R(ACK)
/// whose number differs from its own. Each check returns the expected number when the observed
/// one breaks the rule, then resynchronises on what was seen so one lost frame gives one
/// finding. Before an activation is seen nothing is checked.
struct BlockNumbers: Sendable {
  /// What a reader I-block's number says.
  enum BlockNumberCheck: Equatable {
    /// The number the rules expect.
    case ok
    /// Another number than the rules allow; the expected one.
    case unexpected(Int)
    /// Toggled with no answer to the previous I-block in the trace: the capture missed it.
    case answerMissed
    /// A tag I-block toggled from the tag's last one with no reader block in the trace since:
    /// the tag answers only a reader I-block (§7.5.3.2 PICC rules): the capture missed the command.
    case commandMissed
  }

  private var reader = 0
  private var tag = 1
  private var known = false
  /// The number of the reader's R(NAK) the tag has not answered yet.
  private var nak: Int?
  /// True from a reader I-block until the tag's I-block or R(ACK): the reader has no answer
  /// the trace shows.
  private var readerAwaitsAnswer = false
  /// True from a tag's chained I-block until the reader's next block: the tag awaits R(ACK).
  private var tagAwaitsACK = false

  /// Start of a session (ATS seen).
  mutating func activate() {
    tagAwaitsACK = false
    reader = 0
    tag = 1
    known = true
    nak = nil
    readerAwaitsAnswer = false
  }

  /// A reader R(NAK) with number `n` (the reader's current block number).
  mutating func readerNAK(_ n: Int) {
    nak = n
    tagAwaitsACK = false
  }

  /// A reader I-block with number `n`: `.unexpected` when it breaks the rules, `.answerMissed`
  /// when the reader toggled its number although the trace shows no answer to its previous
  /// I-block (it toggles only on receiving one, PCD rule B: the capture missed it).
  mutating func readerIBlock(_ n: Int) -> BlockNumberCheck {
    defer {
      tagAwaitsACK = false
      nak = nil
      reader = n
      tag = n
      known = true
      readerAwaitsAnswer = true
    }
    guard known, n != reader else { return .ok }
    return readerAwaitsAnswer ? .answerMissed : .unexpected(reader)
  }

  /// A tag I-block with number `n` (`chaining`: its chaining bit): `.answerMissed` when it
  /// continues the tag's chain with a toggled number although the trace shows no R(ACK) since
  /// the previous part (a tag toggles on an R(ACK) of another number, §7.5.3.2, PICC rule E:
  /// the capture missed the reader's R(ACK)).
  mutating func tagIBlock(_ n: Int, chaining: Bool) -> BlockNumberCheck {
    let ackMissed = tagAwaitsACK
    // The reader's R(NAK) carries the number of the block it still waits for (§7.5.4.2, PCD
    // rule 4): an I-block with that number is its answer, whatever the tag sent before.
    let askedFor = nak == n
    defer {
      nak = nil
      readerAwaitsAnswer = false
      tagAwaitsACK = chaining
      tag = n
      reader = n ^ 1
      known = true
    }
    guard known, n != tag, !askedFor else { return .ok }
    if ackMissed { return .answerMissed }
    // The reader's last block was the tag's answer's trigger: none since its last I-block.
    let commandMissed = !readerAwaitsAnswer && nak == nil
    return commandMissed ? .commandMissed : .unexpected(tag)
  }

  /// A reader R(ACK) with number `n`.
  /// A reader R(ACK) with number `n`: as `readerIBlock`, `.answerMissed` when it toggled with
  /// no tag block in the trace since the reader's last block (the tag's chained part was
  /// missed).
  mutating func readerACK(_ n: Int) -> BlockNumberCheck {
    // The number of the tag's chained part it awaits an R(ACK) for: the reader did not take
    // that part (damaged on its side) and asks for it again (§7.5.4.2: the tag resends its
    // last block on an R(ACK) of its current number).
    if known, tagAwaitsACK, n == tag {
      tagAwaitsACK = false
      nak = nil
      reader = n
      readerAwaitsAnswer = true
      return .ok
    }
    let missed = known && n != reader && readerAwaitsAnswer
    let expected: Int? = readerACKExpected(n)
    if missed { return .answerMissed }
    return expected.map { .unexpected($0) } ?? .ok
  }

  private mutating func readerACKExpected(_ n: Int) -> Int? {
    defer {
      tagAwaitsACK = false
      nak = nil
      reader = n
      tag = n
      known = true
      // The R(ACK) asks for the tag's next chained block: an I-block after it with a toggled
      // number shows the reader received that block.
      readerAwaitsAnswer = true
    }
    return known && n != reader ? reader : nil
  }

  /// A tag R(ACK) with number `n`.
  mutating func tagACK(_ n: Int) -> Int? {
    defer {
      tag = n
      reader = n ^ 1
      known = true
      nak = nil
      readerAwaitsAnswer = false
    }
    // The answer to R(NAK): the tag's last block again when the NAK carries its current
    // number (rule 11; in a chain, its R(ACK) of the NAK's number), else R(ACK) with its
    // current number, the other one (rule 12; it never got the reader's last I-block). Which
    // applies depends on what the tag received, which the trace cannot show: both are valid.
    if nak != nil { return nil }
    return known && n != tag ? tag : nil
  }
}
