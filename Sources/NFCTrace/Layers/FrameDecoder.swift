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
    if frame.technology == .unknown, frame.crc == .unchecked, CRC.isNFCFFrame(frame.data),
      !CRC.hasValidCRCA(frame.data), !CRC.hasValidCRCB(frame.data)
    {
      return nfcF(frame)
    }
    let wasComplete = context.uidComplete
    let first =
      isTypeB(frame)
      ? typeB.decode(frame: frame, context: &context)
      : typeA.decode(frame: frame, context: &context)
    if first.newActivation || first.resetsInnerLayers { resetInner() }
    if let cid = first.isoDEPActivation { isoDEP.activate(cid: cid) }
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
    out.expectsResponse = expectsResponse
    out.startsActivation = first.newActivation
    out.completedUID = completedUID
    out.layers = layers
    out.findings = findings
    out.undecodedReason = undecodedReason
    return out
  }

  /// A FeliCa (NFC-F) frame in a source that does not say the technology (a phone's polling
  /// loop sends SENSF_REQ between its REQA and REQB): kept raw with its CRC-F checked and
  /// technology NFC-F, not read as a type A or B frame with a bad CRC. It changes no type A/B
  /// state.
  private func nfcF(_ frame: consuming Frame) -> DecodedFrame {
    frame.crc = .ok
    frame.technology = .nfcF
    let reader = frame.direction == .reader
    let command = frame.data.count > 1 ? frame.data[1] : 0
    let out = DecodedFrame(frame: frame)
    out.expectsResponse = reader
    // SENSF_REQ is NFC-F's poll, as REQA is type A's: it opens an activation (a session when
    // a card answers) and interrupts no operation when none does.
    out.startsActivation = reader && command == 0x00
    out.undecodedReason =
      (reader && command == 0x00
        ? "FeliCa (NFC-F) SENSF_REQ: the reader polling for NFC-F"
        : "FeliCa (NFC-F) frame, command code \(Hex.string([command]))")
      + " (LEN and CRC-F valid); NFC-F is not decoded yet"
    return out
  }

  /// Type B frames go to the type B layer: those the source says are NFC-B, and those of
  /// sources that do not say (Proxmark3, pcap 264) that `ISO14443BLayer.claims`.
  private func isTypeB(_ frame: Frame) -> Bool {
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
    case .iso14443A, .iso14443B, .appleECP:
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

  private mutating func resetAll() {
    typeA.reset()
    typeB.reset()
    context.resetActivation()
    // Every tag is powered off: the next activation says which technology the link uses.
    context.technology = .unknown
    resetInner()
  }
}
