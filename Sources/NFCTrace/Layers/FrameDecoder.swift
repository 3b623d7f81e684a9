/// The decoder stack: hands each frame from the ISO 14443-3 layer down to the layers inside
/// it, by table, keeping each protocol's state where the protocol keeps it.
///
/// Stack (ISO/IEC 14443-3 type A or B → 14443-4 → 7816-4 → NFC Forum T4T; 14443-3 type A →
/// T2T or MIFARE Classic). Field off and a new REQA/WUPA reset every layer.
public struct FrameDecoder: Sendable {
  /// The shared link state (UID, SAK, ATS, ISO-DEP active, encrypted).
  public private(set) var context = LinkContext()
  private var typeA = ISO14443ALayer()
  private var typeB = ISO14443BLayer()
  private var isoDEP = ISODEPLayer()
  private var apdu = APDULayer()
  private var type2 = Type2Layer()
  private var type4 = Type4Layer()
  private var mifare = MIFAREClassicLayer()
  private var iso15693 = ISO15693Layer()
  /// The UID of the NFC-V tag the reader last addressed or an INVENTORY answer named.
  private var iso15693UID: [UInt8]?
  /// The IDm of the NFC-F card in the current activation, once an answer gave it.
  private var felicaIDm: [UInt8]?
  /// The first block of the reader's last CHECK of the Type 3 NDEF service: its answer starts
  /// with that block (block 0: the Attribute Information Block, NFC Forum T3T 1.0 §7.1;
  /// 88h: a FeliCa Lite-S's Memory Configuration).
  private var felicaCheckFirstBlock: Int?
  /// The request code of the last SENSF_REQ (what a SENSF_RES's request data is).
  private var felicaRequestCode: UInt8?
  /// The IC code (PMm byte 1) each card's SENSF_RES gave, by IDm (at most 8 cards): block 88h
  /// is a Memory Configuration on a FeliCa Lite / Lite-S only.
  private var felicaICCodes: [[UInt8]: UInt8] = [:]
  /// Whether the last reader frame was a command addressed to a card by its IDm.
  private var felicaAddressed = false
  /// True after an intact NFC-F frame (a FeliCa polling, or a capture starting inside an NFC-F
  /// exchange) up to a frame of another technology or a field change: a frame with the NFC-F
  /// length structure whose CRC-F fails is then a damaged NFC-F frame (JIS X 6319-4 §7).
  private var felicaLink = false
  /// True after an HID iCLASS ACTALL in a trace that does not say its technology (a Proxmark3
  /// `.trace`): the frames that follow are iCLASS until the field changes or a type A poll.
  private var iClassLink = false
  /// True after an ISO/IEC 15693 INVENTORY in a trace that does not say its technology (a
  /// Proxmark3 `.trace` of `hf 15`): the frames that follow are NFC-V until the field changes
  /// or a type A or B reader frame comes (`followsISO15693`).
  private var nfcVLink = false
  /// True after a frame of a source that does not say its technology verified CRC_B and not
  /// CRC_A before any type A activation: the link is ISO 14443-B (or a proprietary protocol
  /// over its modulation, e.g. Xerox), so its frames without either CRC (slot markers of
  /// 1 byte) are not type A commands. A type A short frame or CRC_A ends it.
  private var crcBLink = false

  /// A stack with every layer idle.
  public init() {}

  /// Decodes one frame. Never fails: what no layer understands stays raw with a reason.
  /// The frame moves into the result (taken last, so its arrays are not copied).
  public mutating func decode(_ frame: consuming Frame) -> DecodedFrame {
    if frame.direction == .event {
      if frame.event == .fieldOff || frame.event == .fieldOn { resetAll() }
      let out = DecodedFrame(frame: frame)
      out.expectsResponse = false
      return out
    }
    if frame.technology == .nfcF
      || (frame.technology == .unknown && frame.crc == .unchecked && isNFCF(frame.data))
    {
      return nfcF(frame)
    }
    felicaLink = false
    if frame.technology == .nfcV { return nfcV(frame) }
    if frame.technology == .unknown, followsISO15693(frame) {
      frame.technology = .nfcV
      return nfcV(frame)
    }
    if frame.technology == .unknown, followsIClass(frame) { frame.technology = .iClass }
    let wasComplete = context.uidComplete
    let typeBLink = Self.isTypeB(frame, context: context) || followsCRCB(frame)
    let first =
      typeBLink
      ? typeB.decode(frame: frame, context: &context)
      : typeA.decode(frame: frame, context: &context)
    if first.newActivation || first.resetsInnerLayers {
      resetInner()
    } else if first.resetsMIFAREClassic {
      mifare.reset()
    }
    if let cid = first.isoDEPActivation {
      isoDEP.activate(cid: cid, atqb: typeB.selectedATQB)
    }
    // A reported activation can complete the UID in its first frame, after a complete one.
    let completedUID =
      context.uidComplete && (!wasComplete || first.newActivation) ? context.uid : nil
    var result = first.result
    var depth = 0
    // Built locally with room for the usual depth (14443-3 → ISO-DEP → APDU → T4T): one
    // allocation instead of one per layer.
    var layers: [LayerDecode] = []
    layers.reserveCapacity(4)
    var findings: [Finding] = []
    var undecodedReason: String?
    var expectsResponse = first.expectsResponse
    while true {
      if let d = result.decode { layers.append(d) }
      if let e = result.expectsResponse { expectsResponse = e }
      if !result.findings.isEmpty { findings += result.findings }
      guard let (next, unit) = result.handoff, depth < 8 else {
        if result.decode == nil || result.reason != nil { undecodedReason = result.reason }
        break
      }
      depth += 1
      result = dispatch(next, unit)
    }
    frame.crc = first.crc
    let out = DecodedFrame(frame: frame)
    if typeBLink { out.decodedTechnology = .nfcB }
    out.crcBAlone = first.crcBAlone
    out.expectsResponse = expectsResponse
    out.startsActivation = first.newActivation
    out.completedUID = completedUID
    out.layers = layers
    out.findings = findings
    out.undecodedReason = undecodedReason
    return out
  }

  /// Whether a frame of a source that does not say its technology is NFC-F: its LEN and CRC-F
  /// fit (a phone's polling loop sends SENSF_REQ between its REQA and REQB), or, on an NFC-F
  /// link (`felicaLink`), its LEN fits whatever its CRC-F (a frame damaged on the air). Never
  /// one whose CRC_A or CRC_B verifies.
  private func isNFCF(_ data: [UInt8]) -> Bool {
    guard
      CRC.isNFCFFrame(data) || CRC.hasNFCFSync(data)
        || (felicaLink && NFCFFraming.hasLengthStructure(data))
    else { return false }
    return !CRC.hasValidCRCA(data) && !CRC.hasValidCRCB(data)
  }

  /// An NFC-F frame: one the source says is NFC-F, or, in a source that does not say the
  /// technology (a phone's polling loop sends SENSF_REQ between its REQA and REQB), one whose
  /// LEN and CRC-F fit. It changes no type A/B state. SENSF_REQ opens an activation, as REQA
  /// does (a session when a card answers); SENSF_RES completes it with the IDm as the tag's
  /// identifier. JIS X 6319-4; NFC Forum Digital Protocol §8.
  private mutating func nfcF(_ frame: consuming Frame) -> DecodedFrame {
    frame.technology = .nfcF
    // A sync code before LEN (Proxmark3) is the physical layer's, not the frame's.
    let data = Self.withoutSyncCode(frame.data)
    let reader = frame.direction == .reader
    var body = data
    var reason: String?
    var crcFinding: Finding?
    if let len = data.first.map(Int.init), len >= 2, data.count == len + 2 {
      // CRC-F (ISO/IEC 13239 with initial value 0000, high byte first) over LEN and payload.
      frame.crc = CRC.isNFCFFrame(data) ? .ok : .bad
      if frame.crc == .bad {
        crcFinding = NFCFFraming.crcMismatch(
          data, frameIndex: frame.index, offset: frame.data.count - data.count)
      }
      body = Array(data.prefix(len))
    } else if let len = data.first.map(Int.init), len >= 2, data.count == len {
      // The source kept the frame without its CRC-F.
    } else {
      reason =
        "NFC-F frame: LEN \(data.first.map { String($0) } ?? "missing") does not match the "
        + "frame's \(data.count) bytes (LEN counts itself and the payload, CRC-F follows)"
    }
    // A damaged answer's status and blocks are not the card's (the CRC-F says so).
    var decoded =
      reason == nil
      ? FeliCaMessage.decode(
        body, requestCode: felicaRequestCode, damaged: !reader && frame.crc == .bad)
      : (nil, reason: reason)
    if frame.crc != .bad { felicaLink = true }
    let command = body.count > 1 ? body[1] : 0
    if reader {
      felicaCheckFirstBlock = decoded.0.flatMap(FeliCaMessage.checkedFirstBlock)
      if command == 0x00, body.count > 4 { felicaRequestCode = body[4] }
    } else if command == 0x07, let block = felicaCheckFirstBlock, let d = decoded.0 {
      let ic = felicaIDm.flatMap { felicaICCodes[$0] }
      decoded.0 = FeliCaMessage.annotating(d, firstBlock: block, icCode: ic)
    } else if command == 0x01, body.count >= 18, frame.crc != .bad {
      let card = Array(body[2..<10])
      if felicaICCodes.count < 8 || felicaICCodes[card] != nil { felicaICCodes[card] = body[11] }
    }
    if reader, command == 0x00, decoded.0 != nil { felicaIDm = nil }
    // Every answer starts with the card's IDm: the first one intact identifies the card, also
    // when the capture starts after the polling.
    var idm: [UInt8]?
    // A reader that talks to several cards addresses each by its IDm: a command to another
    // card than the one answering so far opens that card's session, so its answer joins it.
    let addressing =
      reader && decoded.0 != nil && command != 0x00 && command & 1 == 0 && command < 0x20
      && body.count >= 10 && frame.crc != .bad
    // Also the first command of a capture that starts after the poll, or after a poll no card
    // answered intact: its IDm names the card.
    if addressing {
      let addressed = Array(body[2..<10])
      if addressed != felicaIDm {
        idm = addressed
        felicaIDm = addressed
      }
    }
    if reader { felicaAddressed = addressing }
    // The answer to a command addressed by IDm is that card's session's, whatever IDm it
    // names (only the addressed card answers; the session's analysis judges a mismatch).
    if !reader, decoded.0 != nil, command & 1 == 1, command < 0x20, frame.crc != .bad,
      command == 0x01 || !felicaAddressed
    {
      let answered = Array(body.dropFirst(2).prefix(8))
      if answered != felicaIDm {
        idm = answered
        felicaIDm = answered
      }
    }
    let out = DecodedFrame(frame: frame)
    out.expectsResponse = reader
    out.startsActivation = reader && command == 0x00 && decoded.0 != nil
    out.completedUID = idm
    if let d = decoded.0 { out.layers = [d] }
    if let crcFinding { out.findings = [crcFinding] }
    out.undecodedReason = decoded.reason
    return out
  }

  /// An NFC-V frame (the source says ISO 15693): its CRC checked (kept when the source
  /// stripped it), then the request or the response to it decoded (ISO/IEC 15693-3 §7, §9,
  /// §10). INVENTORY is the poll (a connect when a tag answers); its answer's UID, and the UID
  /// of an addressed request naming another tag, identify the session's tag (an INVENTORY
  /// while another technology's tag is active opens nothing by itself). STAY QUIET
  /// expects no answer (§10.3.2).
  private mutating func nfcV(_ frame: consuming Frame) -> DecodedFrame {
    let (crc, crcFinding) = ISO15693CRC.resolve(frame)
    frame.crc = crc
    let reader = frame.direction == .reader
    let data = frame.data
    // The CRC's two bytes end the frame unless the source took them off (a reader chip's
    // frames; its damaged-answer marker has no bytes at all).
    let hasCRC =
      (crc == .ok || crc == .bad) && data.count >= 3
      && !frame.sourceFlags.contains(ReaderChipFlag.damagedAnswer)
    let body = hasCRC ? data[..<(data.count - 2)] : data[...]
    let decoded =
      reader
      ? iso15693.decodeRequest(body)
      : iso15693.decodeResponse(body, damaged: crc == .bad)
    var uid: [UInt8]?
    if let d = decoded.0, crc != .bad, case .hex(let named)? = d.field("uid"),
      reader ? d.name != "INVENTORY" : d.name.hasPrefix("INVENTORY")
    {
      if named != iso15693UID {
        uid = named
        iso15693UID = named
      }
    }
    let out = DecodedFrame(frame: frame)
    out.expectsResponse = reader && decoded.0?.name != "STAY QUIET"
    // A reader polling for NFC-V while a tag of another technology is being activated or is
    // active (its ATQA seen, its UID or IDm complete) does not end that tag's activation:
    // only an answer's UID would.
    let otherTagActive =
      context.atqa != nil || typeB.selectedATQB != nil || context.uidComplete
      || context.isoDEPActive || context.encrypted
      || felicaIDm != nil
    out.startsActivation = reader && decoded.0?.name == "INVENTORY" && !otherTagActive
    if out.startsActivation { iso15693UID = nil }
    out.completedUID = uid
    if let d = decoded.0 { out.layers = [d] }
    if let crcFinding { out.findings = [crcFinding] }
    out.undecodedReason = decoded.reason
    return out
  }

  /// `data` without a leading sync code `B2 4D` (Proxmark3 logs it) when LEN fits the bytes
  /// after it (with or without CRC-F) and not the bytes with it.
  private static func withoutSyncCode(_ data: [UInt8]) -> [UInt8] {
    guard data.count >= 4, data[0] == 0xB2, data[1] == 0x4D, !CRC.isNFCFFrame(data) else {
      return data
    }
    let len = Int(data[2])
    return data.count - 2 == len + 2 || data.count - 2 == len ? Array(data.dropFirst(2)) : data
  }

  /// Type B frames go to the type B layer: those the source says are NFC-B, and those of
  /// sources that do not say (Proxmark3, pcap 264) that `ISO14443BLayer.claims`.
  /// Static: a non-mutating method of this large struct (about 1.4 KiB) called from `decode`
  /// received a copy of all of it.
  private static func isTypeB(_ frame: Frame, context: LinkContext) -> Bool {
    // APDUs a reader carried in ISO-DEP blocks it built go to the layer that hands them on.
    if !frame.sourceFlags.isEmpty, frame.sourceFlags.contains(ReaderChipFlag.isoDEPPayload) {
      return false
    }
    switch frame.technology {
    case .nfcB: return true
    case .unknown: return ISO14443BLayer.claims(frame, context: context)
    default: return false
    }
  }

  private mutating func dispatch(_ id: ProtocolID, _ unit: LayerUnit) -> LayerResult {
    switch id {
    case .isoDEP: return isoDEP.decode(unit, context: &context)
    case .iso7816: return apdu.decode(unit, context: &context)
    case .type2: return type2.decode(unit, context: &context)
    case .type4: return type4.decode(unit, context: &context)
    case .mifareClassic: return mifare.decode(unit, context: &context)
    case .nfcDEP: return NFCDEPFrame.decode(unit)
    case .iso14443A, .iso14443B, .appleECP, .felica, .iso15693:
      return .undecoded("no inner decoder for \(id.rawValue)")
    }
  }

  private mutating func resetInner() {
    isoDEP.reset()
    apdu.reset()
    type2.reset()
    type4.reset()
    mifare.reset()
  }

  /// Whether `frame` (of a source that does not say its technology) is HID iCLASS: the
  /// reader's ACTALL `0A` sent as a whole byte opens it — no ISO 14443-A reader frame is one
  /// full byte (REQA/WUPA are 7-bit short frames, everything else carries a CRC_A) — and a
  /// type A REQA/WUPA ends it.
  private mutating func followsIClass(_ frame: borrowing Frame) -> Bool {
    guard frame.direction == .reader, frame.data.count == 1 else { return iClassLink }
    if frame.bits == 7 {
      iClassLink = false
    } else if frame.data[0] == 0x0A, frame.bits == nil || frame.bits == 8 {
      iClassLink = true
    }
    return iClassLink
  }

  /// Whether `frame` (of a source that does not say its technology) is ISO/IEC 15693: a
  /// reader's INVENTORY (`isISO15693Inventory`) or addressed request
  /// (`isAddressedISO15693Request`, which its UID ending E0h sets apart) opens it while no type A or B tag is being activated or active; a short frame (REQA/WUPA), a one-byte frame (iCLASS ACTALL), a
  /// reader frame whose CRC_A verifies and CRC_B does not, or one whose first byte has b1 or
  /// b8 set ends it: no ISO 15693 reader sets the RFU flag b8, NFC Forum and phone readers use
  /// one subcarrier (b1 clear), and type B's REQB/WUPB (05h), ATTRIB (1Dh), Slot-MARKERs,
  /// R- and S-blocks all have one of them.
  private mutating func followsISO15693(_ frame: borrowing Frame) -> Bool {
    guard frame.direction == .reader else { return nfcVLink }
    let data = frame.data
    if let bits = frame.bits, bits > 0, bits < 8 {
      nfcVLink = false
    } else if Self.isISO15693Inventory(data) || Self.isAddressedISO15693Request(data),
      context.atqa == nil, context.sak == nil, typeB.selectedATQB == nil,
      !context.isoDEPActive, !context.encrypted
    {
      nfcVLink = true
    } else if nfcVLink,
      data.count == 1 || data.first.map({ $0 & 0x81 != 0 }) == true
        || (CRC.hasValidCRCA(data) && !CRC.hasValidCRCB(data))
    {
      nfcVLink = false
    }
    return nfcVLink
  }

  /// Whether `data` is an ISO/IEC 15693 INVENTORY request with its CRC (§10.3.1): flags with
  /// the inventory flag (b3) set and the subcarrier (b1), protocol extension (b4) and RFU
  /// (b8) flags clear, command 01h, the AFI when flag b5 says so, the mask length (at most 64
  /// bits) and exactly the mask bytes it calls for, then a CRC that verifies (the ISO 15693
  /// CRC is CRC_B's). The clear flags keep type B's REQB/WUPB (`05 AFI PARAM`) and ATTRIB
  /// (`1D …`) out, whose CRC_B verifies too.
  static func isISO15693Inventory(_ data: [UInt8]) -> Bool {
    guard data.count >= 5, data.count <= 15, data[1] == 0x01 else { return false }
    let flags = data[0]
    guard flags & 0x04 != 0, flags & 0x89 == 0 else { return false }
    var n = flags & 0x10 != 0 ? 3 : 2
    guard n < data.count - 2 else { return false }
    let maskBits = Int(data[n])
    guard maskBits <= 64 else { return false }
    n += 1 + (maskBits + 7) / 8
    return n + 2 == data.count && CRC.hasValidCRCB(data)
  }

  /// Whether `data` is an addressed ISO/IEC 15693 request with its CRC (§7.3.1, §10): flags
  /// with the address flag (b6) set and the subcarrier, inventory, protocol extension and RFU
  /// flags clear (one subcarrier, as `followsISO15693` keeps the link),
  /// STAY QUIET (02h) or an optional or custom command code (20h–3Fh, A0h–DFh), the 8-byte UID whose
  /// most significant byte, sent last, is E0h (§4.1), then a CRC that verifies. What a
  /// capture that starts after the INVENTORY (or a sniff that missed it) shows first.
  static func isAddressedISO15693Request(_ data: [UInt8]) -> Bool {
    guard data.count >= 12, data.count <= 64 else { return false }
    let flags = data[0]
    let command = data[1]
    guard flags & 0x20 != 0, flags & 0x8D == 0,
      command == 0x02 || (0x20...0x3F).contains(command) || (0xA0...0xDF).contains(command)
    else { return false }
    // The IC manufacturer code of a custom command, EXTENDED GET SYSTEM INFORMATION's
    // request field, come before the UID.
    let uidStart = (0xA0...0xDF).contains(command) || command == 0x3B ? 3 : 2
    guard uidStart + 8 + 2 <= data.count, data[uidStart + 7] == 0xE0 else { return false }
    return CRC.hasValidCRCB(data)
  }

  /// Whether `data` has the shape of an ISO/IEC 15693 request (§7.3.1, §10): an INVENTORY
  /// (`isISO15693Inventory`), or flags with the inventory and RFU flags clear, a command code
  /// of 20h–3Fh or A0h–FFh (custom, proprietary), or an addressed STAY QUIET, and the CRC, which must verify when
  /// `crcRequired` (a request damaged on an NFC-V link keeps it). iCLASS reader commands
  /// (ACTALL 0A, IDENTIFY/READ 0C, SELECT 81, READCHECK 88, CHECK 05, UPDATE 87) have the
  /// inventory or RFU bit set, or are shorter. For a source that says the link is ISO 15693
  /// or iCLASS: alone, the shape is also a type B I-block's.
  static func isISO15693Request(_ data: [UInt8], crcRequired: Bool = true) -> Bool {
    if isISO15693Inventory(data) { return true }
    guard data.count >= 4, data[0] & 0x84 == 0 else { return false }
    // STAY QUIET (02h) is always addressed: flags, command, UID, CRC (§10.3.2).
    let stayQuiet = data[1] == 0x02 && data[0] & 0x20 != 0 && data.count == 12
    guard stayQuiet || (0x20...0x3F).contains(data[1]) || data[1] >= 0xA0 else { return false }
    return !crcRequired || CRC.hasValidCRCB(data)
  }

  /// Whether `frame` (of a source that does not say its technology) carries neither CRC on a
  /// link whose earlier frame verified CRC_B alone (`crcBLink`, updated here). Checked after
  /// `isTypeB`, so the CRCs are computed only before a type A activation.
  private mutating func followsCRCB(_ frame: borrowing Frame) -> Bool {
    guard frame.technology == .unknown, context.technology == .unknown else { return false }
    if let bits = frame.bits, bits > 0, bits < 8 {
      crcBLink = false
      return false
    }
    guard context.atqa == nil, context.sak == nil, !context.isoDEPActive, !context.encrypted
    else {
      crcBLink = false
      return false
    }
    let data = frame.data
    guard frame.crc == .unchecked, data.count >= 3 else { return crcBLink && data.count > 0 }
    let crcA = CRC.hasValidCRCA(data)
    if crcA || CRC.hasValidCRCB(data) {
      crcBLink = !crcA
      return false
    }
    return crcBLink
  }

  private mutating func resetAll() {
    iClassLink = false
    nfcVLink = false
    crcBLink = false
    typeA.reset()
    typeB.reset()
    context.resetActivation()
    felicaIDm = nil
    felicaCheckFirstBlock = nil
    felicaRequestCode = nil
    felicaICCodes = [:]
    felicaAddressed = false
    felicaLink = false
    iso15693.reset()
    iso15693UID = nil
    // Every tag is powered off: the next activation says which technology the link uses.
    context.technology = .unknown
    resetInner()
  }
}
