/// The protocols a decoded frame can carry, as named in JSON `layers[].protocol`.
public enum ProtocolID: String, Sendable, Hashable, CaseIterable {
  /// ISO/IEC 14443-3 type A: REQA/WUPA, anticollision, SELECT, HLTA, CRC_A.
  case iso14443A = "iso14443-3a"
  /// ISO/IEC 14443-3 type B (kept raw for now, recognised by REQB/ATTRIB).
  case iso14443B = "iso14443-3b"
  /// ISO/IEC 14443-4 (ISO-DEP): RATS/ATS, PPS, I/R/S blocks.
  case isoDEP = "iso14443-4"
  /// ISO/IEC 7816-4 command and response APDUs.
  case iso7816 = "iso7816"
  /// NFC Forum Type 2 Tag / MIFARE Ultralight / NTAG commands.
  case type2 = "t2t"
  /// NFC Forum Type 4 Tag NDEF application, CC file and NDEF file.
  case type4 = "t4t"
  /// MIFARE Classic commands and Crypto1 ciphertext.
  case mifareClassic = "mifare-classic"
  /// Apple Enhanced Contactless Polling frames (`6A …`).
  case appleECP = "apple-ecp"
  /// NFC-F (JIS X 6319-4 / FeliCa): polling, CHECK and UPDATE of the Type 3 Tag commands.
  case felica = "felica"
  /// NFC-DEP (ISO/IEC 18092 §12) over NFC-A, after a SAK announcing ISO/IEC 18092.
  case nfcDEP = "nfc-dep"
  /// ISO/IEC 15693-3 (NFC-V) requests and responses, and the NFC Forum Type 5 Tag CC.
  case iso15693 = "iso15693"
}

/// A decoded field value, rendered as a JSON scalar (hex as a lower-case string).
public enum FieldValue: Sendable, Equatable, CustomStringConvertible {
  /// An integer (page numbers, lengths, block numbers).
  case int(Int)
  /// Text (names, meanings).
  case string(String)
  /// Bytes, shown as lower-case hex without spaces.
  case hex([UInt8])
  /// A flag.
  case bool(Bool)

  /// The value as it appears in text output.
  public var description: String {
    switch self {
    case .int(let v): return String(v)
    case .string(let s): return s
    case .hex(let b): return Hex.string(b, separator: " ")
    case .bool(let b): return b ? "yes" : "no"
    }
  }
}

/// One named field of a layer's decode.
public struct LayerField: Sendable, Equatable {
  /// The key, snake_case (e.g. `page`, `fsdi`, `sw`).
  public var key: String
  /// The value.
  public var value: FieldValue
  /// Creates a field.
  public init(_ key: String, _ value: FieldValue) {
    self.key = key
    self.value = value
  }
}

/// What one protocol layer understood of one frame.
public struct LayerDecode: Sendable, Equatable {
  /// The protocol.
  public var protocolID: ProtocolID
  /// The message name in the field's terms (`READ`, `ATQA`, `I-block`, `SELECT`, `S(WTX)`).
  public var name: String
  /// Decoded fields in a stable order.
  public var fields: [LayerField]
  /// One-line meaning for the timeline (`READ page 4`, `WRITE page 4 ← 03 1d d1 01`).
  public var summary: String

  /// Creates a decode.
  public init(
    _ protocolID: ProtocolID, _ name: String, _ summary: String, _ fields: [LayerField] = []
  ) {
    self.protocolID = protocolID
    self.name = name
    self.fields = fields
    self.summary = summary
  }

  /// Whether the message is `name`: lengths first, as in `field(_:)` (most names compared
  /// against are another message's, and a full comparison of two long strings costs many
  /// times more). Decode names and the names compared against are NFC (ASCII and literals),
  /// so equal names have equal UTF-8 lengths.
  @inline(__always) public func named(_ name: String) -> Bool {
    self.name.utf8.count == name.utf8.count && self.name == name
  }

  /// The value of field `key`, if present.
  public func field(_ key: String) -> FieldValue? {
    // Lengths first: unequal strings of equal length are rare here, and a full comparison of
    // two different strings costs many times more (this runs several times per frame).
    let length = key.utf8.count
    return fields.first { $0.key.utf8.count == length && $0.key == key }?.value
  }
}

/// How bad a finding is.
public enum Severity: String, Sendable, Hashable, Comparable {
  case info, warning, error

  private var rank: Int {
    switch self {
    case .info: return 0
    case .warning: return 1
    case .error: return 2
    }
  }
  public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// An observation attached to frames, like Wireshark's expert info.
///
/// Decoders emit findings about single frames (`bad-crc`, `bad-bcc`, `malformed-apdu`);
/// analyses emit findings about sessions. `code` is stable kebab-case.
public struct Finding: Sendable, Equatable {
  /// Stable kebab-case code (e.g. `bad-crc`).
  public var code: String
  /// Severity.
  public var severity: Severity
  /// Plain explanation.
  public var message: String
  /// Indices of the frames it points at.
  public var frames: [Int]
  /// Byte offset inside the frame or message, when it points at one.
  public var offset: Int?

  /// Creates a finding.
  public init(
    _ code: String, _ severity: Severity, _ message: String, frames: [Int] = [], offset: Int? = nil
  ) {
    self.code = code
    self.severity = severity
    self.message = message
    self.frames = frames
    self.offset = offset
  }
}

/// The part of a frame handed to one layer.
public struct LayerUnit: Sendable {
  /// Reader or tag.
  public var direction: Direction
  /// The layer's payload: for the outermost layer the frame without CRC; for inner layers what
  /// the outer layer handed off (e.g. the reassembled INF field of chained I-blocks).
  public var bytes: [UInt8]
  /// Valid bits in the last byte for short frames, else nil.
  public var bits: Int?
  /// The frame's index (the last frame, for reassembled payloads).
  public var frameIndex: Int
  /// The frame's time in nanoseconds.
  public var timeNs: Int64
  /// True when the unit repeats the tag's previous answer because the reader asked for it
  /// again (ISO-DEP R(NAK), ISO/IEC 14443-4 §7.5.4 rule 11): inner layers read it as the answer
  /// to the command they already paired.
  public var retransmission = false
  /// True for a tag's answer that ended the reader's chained command before its last part
  /// (ISO-DEP `incomplete-chain`): it answers a command no layer saw whole, so inner layers
  /// pair it with no earlier command.
  public var answersIncompleteCommand = false
  /// True when the source kept only the first bytes of the tag's answer (a PC/SC READ BINARY
  /// with `Le` below 16 returns that many of the READ answer's 16 bytes).
  public var partialAnswer = false
  /// True when the capture cut the frame (a pcap snap length): its bytes are the first ones
  /// of the frame, its CRC and the rest were not kept.
  public var cutByCapture = false
  /// True for an empty tag frame standing for the reader's report that the command failed
  /// (`ReaderChipFlag.readerFailure`): a refusal, not a missing answer.
  public var readerFailure = false
  /// True for an empty tag frame standing for the reader's report that the tag's answer
  /// arrived damaged (`ReaderChipFlag.damagedAnswer`): the tag answered, its bytes are unknown.
  public var readerDamaged = false
  /// True for an empty tag frame standing for the reader chip's report of success with no
  /// data (`ReaderChipFlag.emptyAnswer`): the chip consumed a 4-bit ACK.
  public var readerChipACK = false
  /// True when the frame's two CRC bytes were taken off (CRC ok or bad): a 4-bit ACK/NAK
  /// carries none (nfc-facts §1: every frame but REQA/WUPA, ATQA, anticollision and ACK/NAK
  /// carries CRC_A), so such a 1-byte payload is not one.
  public var carriedCRC = false
  /// True when the frame's CRC failed: its bytes may be damaged, and a protocol that only
  /// counts valid blocks (ISO-DEP block numbering, ISO/IEC 14443-4 §7.5.3) does not count it.
  public var damaged = false

  /// Creates a unit.
  public init(
    direction: Direction, bytes: [UInt8], bits: Int? = nil, frameIndex: Int, timeNs: Int64,
    retransmission: Bool = false
  ) {
    self.direction = direction
    self.bytes = bytes
    self.bits = bits
    self.frameIndex = frameIndex
    self.timeNs = timeNs
    self.retransmission = retransmission
  }
}

/// A layer's answer for one unit: what it decoded, what it hands to the next layer, and
/// findings.
public struct LayerResult: Sendable {
  /// The decode, or nil when this layer has nothing to say (then `reason` says why).
  public var decode: LayerDecode?
  /// The protocol and payload to decode next, if any.
  public var handoff: (ProtocolID, LayerUnit)?
  /// Findings about this frame.
  public var findings: [Finding]
  /// Why the unit was not decoded (kept in the timeline beside the raw bytes).
  public var reason: String?
  /// False when the command is acknowledged by silence (NTAG I2C SECTOR_SELECT part 2), so
  /// no answer is not "unanswered"; nil leaves the outer layer's judgement.
  public var expectsResponse: Bool?

  /// Creates a result.
  public init(
    decode: LayerDecode? = nil, handoff: (ProtocolID, LayerUnit)? = nil,
    findings: [Finding] = [], reason: String? = nil
  ) {
    self.decode = decode
    self.handoff = handoff
    self.findings = findings
    self.reason = reason
  }

  /// A result that decodes nothing, with the reason.
  public static func undecoded(_ reason: String) -> LayerResult { LayerResult(reason: reason) }

  /// Puts `earlier` (the outer checks' findings on the same frame) before this result's
  /// findings. Most frames have none: then nothing is done, where the concatenation made a new
  /// array for every frame.
  public mutating func prependFindings(_ earlier: [Finding]) {
    if !earlier.isEmpty { findings = earlier + findings }
  }
}

/// What the PCD–PICC link is doing, shared by the layers of one decoder stack.
///
/// The ISO 14443-3 layer writes activation facts (UID, ATQA, SAK); the ISO-DEP layer sets
/// `isoDEPActive` after ATS; the MIFARE Classic layer sets `encrypted` after AUTH. Everything
/// resets on field off and on a new REQA/WUPA.
public struct LinkContext: Sendable {
  /// ATQA as the 16-bit value (air bytes `44 00` → 0x0044).
  public var atqa: UInt16?
  /// The UID assembled from the cascade levels so far.
  public var uid: [UInt8] = []
  /// True once the last cascade level's SAK had the cascade bit clear.
  public var uidComplete = false
  /// The final SAK.
  public var sak: UInt8?
  /// The ATS bytes (without CRC) once received.
  public var ats: [UInt8]? {
    didSet { mifarePlus = MIFAREPlusNative.isMIFAREPlus(ats: ats) }
  }
  /// True when the ATS names a MIFARE Plus (`MIFAREPlusNative`): read once per ATS, not per
  /// frame.
  public private(set) var mifarePlus = false
  /// True after a RATS was answered with an ATS: frames are ISO-DEP blocks.
  public var isoDEPActive = false
  /// True after a MIFARE Classic authentication: frames are Crypto1 ciphertext.
  public var encrypted = false
  /// The frame of the reader's S(DESELECT) the tag has just answered (ISO/IEC 14443-4 §8:
  /// the tag is now halted), set by the ISO-DEP layer and taken by the ISO 14443-3 layer at
  /// the next frame, which treats the tag as after HLTA.
  public var deselectAnswered: Int?
  /// FSD from RATS (bytes the reader can receive).
  public var fsd: Int?
  /// FSC from ATS (bytes the tag can receive).
  public var fsc: Int?
  /// FWT from ATS in nanoseconds.
  public var fwtNs: Int64?
  /// True when the tag answered GET_VERSION or SAK says Type 2 (`00`).
  public var tagFamilyHint: String?
  /// The technology in use.
  public var technology: Technology = .unknown
  /// True when a PC/SC reader's ATR names a MIFARE Classic card (no SAK is seen then).
  public var mifareClassicByATR = false

  /// A fresh context.
  public init() {}

  /// Forgets the activation (new REQA/WUPA or field off).
  public mutating func resetActivation() {
    let tech = technology
    self = LinkContext()
    technology = tech
  }
}

/// One protocol layer of the decoder stack.
///
/// A layer keeps the state its protocol keeps (block numbers, chaining buffers, the pending
/// command, the selected file) and decodes one unit at a time. It never throws: anything it
/// cannot decode comes back with a reason and stays in the timeline raw.
public protocol ProtocolLayer: Sendable {
  /// The protocol decoded.
  static var protocolID: ProtocolID { get }
  /// Decodes one unit, updating the layer's state and the shared link context.
  mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult
  /// Forgets the layer's state (new activation or field off).
  mutating func reset()
}
