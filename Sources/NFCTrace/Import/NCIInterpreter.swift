/// Turns NFC Controller Interface packets (NCI 1.0/2.0, as an Android phone's NFC snoop log
/// holds them) into the frames the phone exchanged with a tag in reader/writer mode.
///
/// The phone's NFCC does the activation and the framing itself; the host sees:
/// - RF_INTF_ACTIVATED_NTF (`61 05`): the activated tag. For NFC-A poll mode its SENS_RES
///   (ATQA, air order), NFCID1 (UID), SEL_RES (SAK) and, on the ISO-DEP interface, the ATS
///   (without TL) become target-info tag frames (`ReaderChipFlag.targetInfo`), like a PN53x's
///   InListPassiveTarget answer. For NFC-F poll mode the SENSF_RES (IDm, PMm, request data)
///   becomes the card's SENSF_RES frame, LEN and response code `01` given back.
/// - Data packets on the static RF connection (Conn ID 0), segments joined on PBF: on the
///   Frame RF interface (T1T/T2T/T3T/T5T) the host's command as sent and the tag's answer
///   followed by one status octet (00 OK, 11–17 OK with 1–7 valid bits, 02 frame corrupted,
///   B0–B2 RF errors), which is taken off; on the ISO-DEP interface the APDUs themselves
///   (`ReaderChipFlag.isoDEPPayload`).
/// - CORE_INTERFACE_ERROR_NTF (`60 08`) and a non-OK status octet: the tag's answer did not
///   arrive (RF timeout, transmission or protocol error); no tag frame, a warning.
/// - RF_DEACTIVATE_NTF (`61 06`): the end of the tag's activation, shown as a field-off event
///   (deactivation to Idle or Discovery); to Sleep or Sleep_AF the tag is only put to sleep,
///   to be selected again, and stays in the session.
/// - Notifications segmented on PBF are joined before they are read (NCI 2.0 §3.5).
/// Sources: NCI 1.0/2.0 §3.4 (packet format), §7.3 (RF_INTF_ACTIVATED_NTF), §8.2 (Frame RF
/// interface), §8.3 (ISO-DEP interface), §4.7 (CORE_INTERFACE_ERROR_NTF); AOSP libnfc-nci
/// `nfc_ncif.cc`.
public struct NCIInterpreter: Sendable {
  /// What one NCI packet gave.
  public struct Output: Sendable {
    /// Frames recovered, in order.
    public var frames: [ReaderChipFrame] = []
    /// Problems met (RF errors, unexpected packets).
    public var warnings: [String] = []
  }

  private enum Interface {
    case none, frame, isoDEP
    case other(UInt8)
  }

  private var interface = Interface.none
  private var technology = Technology.unknown
  private var hostSegments: [UInt8] = []
  private var controllerSegments: [UInt8] = []
  /// A control message's segments so far (PBF 1), joined as data messages' are: NCI 2.0
  /// §3.5 segments control messages too.
  private var controlSegments: [UInt8] = []
  /// The GID and OID of the control message `controlSegments` belongs to.
  private var controlMessage: (gid: UInt8, oid: UInt8)?
  private var warnedTruncated = false
  /// A data packet of the current activation was logged without its payload.
  private var dataNotLogged = false
  private var warnedInterface = false
  private var warnedConnection = false

  /// An interpreter before any activation.
  public init() {}

  /// Frames for one NCI packet (3-byte header included); `received` is true for packets from
  /// the NFCC to the host.
  public mutating func packet(_ p: [UInt8], received: Bool) -> Output {
    var out = Output()
    guard p.count >= 3 else {
      out.warnings.append("NCI packet of \(p.count) bytes, shorter than its 3-byte header")
      return out
    }
    let mt = p[0] >> 5
    let payload = Array(p.dropFirst(3))
    // A log without payloads keeps the header's length alone (see `data`).
    if !payload.isEmpty, payload.count != Int(p[2]) {
      out.warnings.append(
        "NCI packet header announces \(p[2]) payload bytes, \(payload.count) were logged; "
          + "using those logged")
    }
    switch mt {
    case 0: data(p, payload, received: received, &out)
    case 3:
      // A segmented notification (PBF 1): only the last segment completes it, and every
      // segment carries the same GID and OID (NCI 2.0 §3.5); another message drops the rest.
      let id = (gid: p[0] & 0x0F, oid: p[1] & 0x3F)
      if let open = controlMessage, open != id {
        out.warnings.append(
          "a segmented notification (GID \(open.gid), OID \(open.oid), \(controlSegments.count) "
            + "bytes) never got its last segment (PBF 0) before another message; not shown")
        controlSegments = []
      }
      controlSegments += payload
      guard p[0] & 0x10 == 0 else {
        controlMessage = id
        return out
      }
      let message = controlSegments
      controlSegments = []
      controlMessage = nil
      notification(gid: id.gid, oid: id.oid, message, &out)
    case 1, 2: break  // commands and responses: configuration and discovery
    default:
      out.warnings.append("NCI packet of reserved message type \(mt) (NCI 2.0 §3.4); ignored")
    }
    return out
  }

  /// Warnings for what the end of the log left unfinished: data segments whose last one
  /// (PBF 0) never came.
  public mutating func finish() -> Output {
    var out = Output()
    dropSegments("the log ends", &out)
    return out
  }

  /// Forgets data segments still waiting for their last one (PBF 0), with a warning saying
  /// what cut them short.
  private mutating func dropSegments(_ why: String, _ out: inout Output) {
    for (segments, side) in [(hostSegments, "reader"), (controllerSegments, "tag")]
    where !segments.isEmpty {
      out.warnings.append(
        "\(why) inside a segmented \(side) data message (\(segments.count) bytes without its "
          + "last segment, PBF 0); not shown")
    }
    hostSegments = []
    controllerSegments = []
    if let open = controlMessage {
      out.warnings.append(
        "\(why) inside a segmented notification (GID \(open.gid), OID \(open.oid), "
          + "\(controlSegments.count) bytes without its last segment, PBF 0); not shown")
      controlSegments = []
      controlMessage = nil
    }
  }

  // MARK: - Data

  private mutating func data(_ p: [UInt8], _ payload: [UInt8], received: Bool, _ out: inout Output)
  {
    guard p[0] & 0x0F == 0 else {
      // A logical connection the host created (NCI 2.0 §4.4.2: NFCEE, or a second RF
      // connection): no tag data of the static RF connection.
      if !warnedConnection {
        warnedConnection = true
        out.warnings.append(
          "data on NCI connection \(p[0] & 0x0F) (not the static RF connection 0, which carries "
            + "the tag's data) is not shown (reported once)")
      }
      return
    }
    if payload.isEmpty, p[2] > 0 {
      dataNotLogged = true
      if !warnedTruncated {
        warnedTruncated = true
        out.warnings.append(
          "data packets are logged without their payload (the NFC snoop log is not in 'full' "
            + "mode): only activations and errors can be shown. Turn on \"NFC NCI unfiltered "
            + "log\" in Developer options and capture again (reported once)")
      }
      return
    }
    let more = p[0] & 0x10 != 0
    if received {
      controllerSegments += payload
      guard !more else { return }
      let message = controllerSegments
      controllerSegments = []
      answer(message, &out)
    } else {
      hostSegments += payload
      guard !more else { return }
      let message = hostSegments
      hostSegments = []
      command(message, &out)
    }
  }

  private mutating func command(_ message: [UInt8], _ out: inout Output) {
    switch interface {
    case .isoDEP:
      out.frames.append(frame(.reader, message, flags: [ReaderChipFlag.isoDEPPayload]))
    case .frame:
      out.frames.append(frame(.reader, message, flags: []))
    case .other(let id):
      warnInterface(id, &out)
    case .none:
      out.warnings.append("data sent before any tag was activated; ignored")
    }
  }

  private mutating func answer(_ message: [UInt8], _ out: inout Output) {
    switch interface {
    case .isoDEP:
      out.frames.append(frame(.tag, message, flags: [ReaderChipFlag.isoDEPPayload]))
    case .frame:
      guard let status = message.last else {
        out.warnings.append(
          "data message on the Frame RF interface without its status octet; ignored")
        return
      }
      let body = Array(message.dropLast())
      switch status {
      case 0x00:
        out.frames.append(
          frame(.tag, body, flags: body.isEmpty ? [ReaderChipFlag.emptyAnswer] : []))
      case 0x11...0x17:
        var f = frame(.tag, body, flags: [])
        f.bits = Int(status - 0x10)
        out.frames.append(f)
      case 0x02:
        // RF frame corrupted (NCI 2.0 §8.2): the tag answered, the frame failed its checks.
        var f = frame(.tag, body, flags: [ReaderChipFlag.damagedAnswer])
        f.crc = .bad
        out.frames.append(f)
        out.warnings.append("the tag's answer arrived damaged: \(Self.statusMeaning(status))")
      default:
        out.warnings.append("the tag's answer did not arrive: \(Self.statusMeaning(status))")
      }
    case .other(let id):
      warnInterface(id, &out)
    case .none:
      out.warnings.append("data received before any tag was activated; ignored")
    }
  }

  private mutating func warnInterface(_ id: UInt8, _ out: inout Output) {
    guard !warnedInterface else { return }
    warnedInterface = true
    // NCI 2.0 Table 128: 03 NFC-DEP, 04–7F RFU, 80–FE proprietary (NXP: MIFARE Classic).
    let kind =
      id == 0x03
      ? "NFC-DEP, peer to peer" : id >= 0x80 ? "proprietary, e.g. NXP MIFARE Classic" : "RFU"
    out.warnings.append(
      "data on RF interface 0x\(Hex.string([id])) (\(kind)) is not decoded (reported once)")
  }

  private func frame(_ direction: Direction, _ data: [UInt8], flags: [String]) -> ReaderChipFrame {
    .data(direction, data, technology: technology, flags: flags)
  }

  // MARK: - Notifications

  private mutating func notification(gid: UInt8, oid: UInt8, _ b: [UInt8], _ out: inout Output) {
    switch (gid, oid) {
    case (1, 5): activated(b, &out)
    case (1, 6):
      interface = .none
      dropSegments("the tag was deactivated", &out)
      // Deactivation type (NCI 2.0 Table 62): 01 Sleep and 02 Sleep_AF put the tag to sleep
      // (HLTA, S(DESELECT)) with the field on, to select it again (Android's reconnect):
      // the tag stays in the session. 00 Idle and 03 Discovery end the activation.
      if let type = b.first, type == 0x01 || type == 0x02 { return }
      var off = ReaderChipFrame.field(.fieldOff, flag: "nci-rf-deactivate")
      if dataNotLogged { off.flags.append(ReaderChipFlag.dataNotLogged) }
      dataNotLogged = false
      out.frames.append(off)
    case (0, 8):
      guard b.count >= 2, b[1] == 0 else { return }
      out.warnings.append(
        "CORE_INTERFACE_ERROR_NTF: \(Self.statusMeaning(b[0])); the tag did not answer")
    case (0, 7):
      guard let status = b.first else { return }
      out.warnings.append("CORE_GENERIC_ERROR_NTF: \(Self.statusMeaning(status))")
    default: break
    }
  }

  /// RF_INTF_ACTIVATED_NTF: DiscID, interface, protocol, technology and mode, max payload,
  /// credits, technology parameters (length-prefixed), data exchange mode and bit rates,
  /// activation parameters (length-prefixed).
  private mutating func activated(_ b: [UInt8], _ out: inout Output) {
    dropSegments("a new activation came", &out)
    guard b.count >= 7, b.count >= 7 + Int(b[6]) else {
      interface = .none
      out.warnings.append("RF_INTF_ACTIVATED_NTF shorter than its fields")
      return
    }
    let (rfInterface, mode) = (b[1], b[3])
    let techEnd = 7 + Int(b[6])
    let tech = Array(b[7..<techEnd])
    // Data exchange mode, transmit and receive bit rates, then the activation parameters.
    var activation: [UInt8] = []
    if techEnd + 4 <= b.count {
      let n = Int(b[techEnd + 3])
      let start = techEnd + 4
      activation = Array(b[start..<min(b.count, start + n)])
    }
    // ISO-DEP, NFC-A poll: RATS Response Length, then the ATS without TL (NCI §7.3.1 Table 79).
    var ats: [UInt8]?
    if rfInterface == 0x02, mode == 0x00, let n = activation.first.map(Int.init), n > 0 {
      if n + 1 <= activation.count {
        ats = Array(activation[1...n])
      } else {
        out.warnings.append("RATS response shorter than its length (\(n) bytes announced)")
      }
    }
    switch rfInterface {
    case 0x01: interface = .frame
    case 0x02: interface = .isoDEP
    default: interface = .other(rfInterface)
    }
    technology = Self.technology(mode)
    switch mode {
    case 0x00: pollA(tech, ats: ats, &out)
    case 0x01: pollB(tech, &out)
    case 0x02: pollF(tech, &out)
    case 0x80...0xFF:
      // The phone emulates a card: the data that follows is a remote reader's, not a tag's.
      interface = .none
      out.warnings.append(
        "activated in listen mode (card emulation, mode 0x\(Hex.string([mode]))): not a tag read; "
          + "its data is not shown")
    default:
      out.warnings.append(
        "activation in \(Self.modeName(mode)) (mode 0x\(Hex.string([mode]))): its parameters "
          + "are not decoded")
    }
  }

  /// The technology of an RF Technology and Mode value (NCI 2.0 Table 96).
  private static func technology(_ mode: UInt8) -> Technology {
    switch mode {
    case 0x00: return .nfcA
    case 0x01: return .nfcB
    case 0x02: return .nfcF
    case 0x06: return .nfcV
    default: return .unknown
    }
  }

  private static func modeName(_ mode: UInt8) -> String {
    switch mode {
    case 0x02: return "NFC-F poll mode"
    case 0x03: return "NFC active poll mode"
    case 0x05: return "NFC-F active poll mode"
    case 0x06: return "NFC-V poll mode"
    case 0x70...0x7F: return "a proprietary poll mode"
    default: return "an RFU poll mode"
    }
  }

  /// NFC-B poll parameters: SENSB_RES length, SENSB_RES without its first byte 50 (NCI
  /// §7.3.1): the ATQB, given back its 50.
  private func pollB(_ t: [UInt8], _ out: inout Output) {
    guard let n = t.first, n == 11 || n == 12, Int(n) + 1 <= t.count else {
      out.warnings.append(
        "NFC-B activation parameters: SENSB_RES of 11 or 12 bytes expected (NCI §7.3.1)")
      return
    }
    out.frames.append(
      .data(
        .tag, [0x50] + t[1...Int(n)], technology: .nfcB, flags: [ReaderChipFlag.targetInfo]))
  }

  /// NFC-F poll parameters: bit rate (1: 212, 2: 424 kbit/s), SENSF_RES length (16 or 18),
  /// SENSF_RES from its byte 2 on (NCI 2.0 §7.3.1: IDm, PMm, request data): shown as the card's
  /// SENSF_RES with its LEN and response code `01` (NFC Forum Digital §8.6.2).
  private func pollF(_ t: [UInt8], _ out: inout Output) {
    guard t.count >= 2, t[1] == 16 || t[1] == 18, 2 + Int(t[1]) <= t.count else {
      out.warnings.append(
        "NFC-F activation parameters: bit rate, then a SENSF_RES of 16 or 18 bytes expected "
          + "(NCI §7.3.1)")
      return
    }
    let n = Int(t[1])
    out.frames.append(
      .data(
        .tag, [UInt8(n + 2), 0x01] + t[2..<(2 + n)], technology: .nfcF,
        flags: [ReaderChipFlag.targetInfo]))
  }

  /// NFC-A poll parameters: SENS_RES(2) NFCID1 length, NFCID1, SEL_RES length, SEL_RES.
  private mutating func pollA(_ t: [UInt8], ats: [UInt8]?, _ out: inout Output) {
    guard t.count >= 3, t.count >= 3 + Int(t[2]) else {
      out.warnings.append("NFC-A activation parameters shorter than their fields")
      return
    }
    let uid = Array(t[3..<(3 + Int(t[2]))])
    var frames = [
      ReaderChipFrame.targetInfo([t[0], t[1]], extra: ["uid=" + Hex.string(uid)])
    ]
    let selAt = 3 + uid.count
    if selAt < t.count, t[selAt] >= 1, selAt + 1 < t.count {
      frames.append(ReaderChipFrame.targetInfo([t[selAt + 1]]))
    }
    // The RATS response without its TL byte (NCI §7.3.1): TL counts itself.
    if let ats, ats.count < 255 {
      frames.append(ReaderChipFrame.targetInfo([UInt8(ats.count + 1)] + ats))
    }
    out.frames += frames
  }

  /// NCI status codes (NCI 2.0 Table 140).
  static func statusMeaning(_ status: UInt8) -> String {
    switch status {
    case 0x02: return "status 02, RF frame corrupted"
    case 0xB0: return "status B0, RF transmission error"
    case 0xB1: return "status B1, RF protocol error"
    case 0xB2: return "status B2, RF timeout"
    case 0xB3: return "status B3, unexpected data"
    default: return "status \(Hex.string([status]))"
    }
  }
}
