import CPcap
import Foundation
import NFCTrace

/// Reads pcap and pcapng files of link type 264 (LINKTYPE_ISO_14443) through libpcap, one
/// packet per `next()`; and USB captures of a PN53x or CCID (PC/SC) reader (link types 189, 220:
/// Linux usbmon; 249: Windows USBPcap), whose bulk transfers give the frames the reader
/// exchanged with the tag (`USBReaderDecoder`, `PN53xHostLink`), timed by the USB packets.
///
/// Each packet's 4-byte pseudo-header (see `ISO14443PseudoHeader`) gives the frame:
/// - 0xFE reader data / 0xFF tag data: `.reader` / `.tag`, CRC included, `crc == .unchecked`;
/// - 0xFA reader data / 0xFB tag data without their CRC: `crc == .notCaptured`;
/// - 0xFC field on / 0xFD field off: `direction == .event`, `event` set, `data` empty.
///
/// `timeNs` counts from the first packet; `sourceTime` is the packet's time stamp since the
/// Unix epoch in the file's own resolution (µs or ns). `location` is `packet N` (1-based,
/// counting every packet of the file as Wireshark numbers them) at the byte offset of the
/// packet's record or block. Technology is `.unknown`: link type 264 does not say A or B.
///
/// Packets that cannot be read as ISO 14443 (unknown event, short packet, pseudo-header
/// version ≠ 0) become warnings and are skipped. pcapng files mixing link types, and NFCGate's
/// `0x02` prefix, are handled as described in `PcapngInterfaceFilter` and `NFCGatePrefix`.
///
/// Errors (`TraceError`): `.unsupported` for another link type (named); `.truncated` or
/// `.malformed` with libpcap's message when a header or record is damaged, thrown by the
/// `next()` that reaches the damage.
public final class PcapImporter: TraceImporter {
  /// Problems met so far that did not stop the import (at most `TraceWarning.limit` + 1).
  public private(set) var warnings: [TraceWarning] = []

  private let path: String
  private let source: PcapSource?
  private let positions: PacketPositions
  private let timeUnit: SourceTime.Unit
  /// The walk's damage in a pcapng, thrown when libpcap reaches the end before it.
  private let endError: TraceError?
  private var packetsRead = 0
  private var frameIndex = 0
  private var firstTimeNs: Int64?
  private var nfcgate: NFCGateMode
  // Unchecked exclusivity for the fields the read path tests for every packet (`lookahead`,
  // `deferredError`, `usbFrames`): their dynamic checks cost more than the rest of the path's
  // bookkeeping. Only this class's methods touch them, on one thread, none while another
  // holds an access.
  @exclusivity(unchecked) private var lookahead: [Frame] = []
  /// Set when the frames read ahead are all stamped in whole seconds (see `checkWholeSeconds`).
  private var wholeSeconds = false
  /// No packet read ahead carried a time (`checkNoTimes`).
  private var untimed = false
  /// The packet being read has time 0 after timed ones (`placingUntimed`).
  private var packetUntimed = false
  /// The frames so far are pcapng Simple Packet Blocks, which carry no time: the first timed
  /// packet starts the clock, instead of counting from 1970. (Packets stamped 0 keep it: a
  /// writer's clock may start there.)
  private var timesFromNextTimed = false
  /// A packet that carries a time (not a Simple Packet Block) was read.
  private var sawTimedPacket = false
  private var warnedUntimedPacket = false
  /// The latest packet time so far, to notice times going back.
  private var latestTimeNs: Int64?
  private var warnedBackwards = false
  private var warnedClamped = false
  @exclusivity(unchecked) private var deferredError: TraceError?
  private let linkType: Int
  /// The reader found in a USB capture (link types 189, 220, 249).
  private var usb = USBReaderDecoder()
  /// Frames of a USB packet not yet returned (one InListPassiveTarget answer gives several).
  @exclusivity(unchecked) private var usbFrames: [Frame] = []
  @exclusivity(unchecked) private var usbFramesHead = 0

  private enum NFCGateMode { case undecided, strip, keep }
  /// NFCGate only: whether the last reader frame (and so its answer) is an APDU.
  private var nfcgateAPDUs: Bool?
  private var nfcgateAPDUsWarned = false
  /// NFCGate only: the last reader frame opened a two-step raw command.
  private var nfcgateTwoStepOpen = false
  /// The interfaces are NFCGate's pair (264 and 147): the frames decide whether they carry its
  /// prefix (another tool's capture may have a USER0 interface too).
  private let nfcgateByInterfaces: Bool

  /// Opens `input` (pcap in either byte order and resolution, or pcapng).
  /// - Throws: `TraceError` `.truncated` for an empty input or a cut header, `.malformed` for
  ///   a header libpcap rejects, `.unsupported` for a link type other than 264.
  public init(input: TraceInput) throws {
    path = input.path
    let opened = try PcapOpener(input: input).open()
    source = opened.source
    positions = opened.positions
    timeUnit = opened.timeUnit
    endError = opened.endError
    linkType = opened.linkType
    let iso = linkType == PcapLinkType.iso14443
    nfcgateByInterfaces = opened.nfcgateByInterfaces
    nfcgate = iso ? .undecided : .keep
    warnings = opened.warnings
  }

  /// The next frame, or nil at the end.
  /// - Throws: `TraceError` `.truncated`/`.malformed` at a damaged record, after every frame
  ///   before it was returned.
  public func next() throws -> Frame? {
    if nfcgate == .undecided { decideNFCGateByContent() }
    // Returned as read unless NFCGate's prefix is stripped: no copy of the frame per packet.
    guard nfcgate == .strip else { return try nextRead() }
    guard var frame = try nextRead() else { return nil }
    if !NFCGatePrefix.strip(&frame) {
      warn("NFCGate capture: frame does not start with the 0x02 prefix; kept whole", frame)
    }
    if frame.direction == .reader {
      let secondStep = nfcgateAPDUs == false && nfcgateTwoStepOpen
      let apdus =
        secondStep ? false : NFCGatePrefix.carriesAPDUs(command: frame.data, previous: nfcgateAPDUs)
      nfcgateTwoStepOpen =
        !secondStep && !apdus && frame.data.first.map(NFCGatePrefix.twoStepCodes.contains) == true
      if apdus, !nfcgateAPDUsWarned {
        nfcgateAPDUsWarned = true
        warnings.append(
          TraceWarning(
            "NFCGate capture of APDUs (IsoDep): the frames are the APDUs the phone's NFC "
              + "controller carried in ISO-DEP blocks; the blocks and the activation are not in "
              + "the capture"))
      }
      nfcgateAPDUs = apdus
    }
    // A tag frame answers the reader frame before it: the same kind.
    if nfcgateAPDUs == true, frame.direction != .event {
      frame.sourceFlags.append(ReaderChipFlag.isoDEPPayload)
    }
    return frame
  }

  /// The next frame read ahead, the error met while reading ahead, or the next from libpcap.
  /// Inlined, as `readFrame` and `frame(from:at:)`: each call level returning the frame copied
  /// it (twice), a dozen copies of the frame per packet in all.
  @inline(__always) private func nextRead() throws -> Frame? {
    if !lookahead.isEmpty { return lookahead.removeFirst() }
    if let error = deferredError {
      deferredError = nil
      throw error
    }
    return try readFrame()
  }

  /// Reads frames ahead to apply the content rule of `NFCGatePrefix`; an error met here is
  /// kept and thrown after the frames read before it.
  private func decideNFCGateByContent() {
    var dataFrames = 0
    do {
      while dataFrames < NFCGatePrefix.lookahead,
        lookahead.count < NFCGatePrefix.lookaheadFrameLimit, let frame = try readFrame()
      {
        lookahead.append(frame)
        if frame.direction != .event { dataFrames += 1 }
      }
    } catch let error as TraceError {
      deferredError = error
    } catch {
      deferredError = TraceError(.malformed, at: location(packetsRead + 1, nil), "\(error)")
    }
    checkWholeSeconds()
    checkNoTimes()
    if !wholeSeconds && !untimed { warnIfTicksAsTenthsOfNanoseconds() }
    if nfcgateByInterfaces {
      // NFCGate's interfaces: its prefix on the frames confirms it; frames without it are
      // ordinary ISO 14443 frames of another tool's capture.
      guard NFCGatePrefix.matchesPrefix(lookahead) else {
        nfcgate = .keep
        warnings.append(
          TraceWarning(
            "interfaces of link types 264 and 147 (as NFCGate writes), but the frames "
              + "do not start with NFCGate's 0x02 prefix: read as ordinary ISO 14443 frames"))
        return
      }
      nfcgate = .strip
      warnings.append(
        TraceWarning(
          "NFCGate capture (interfaces of link types 264 and 147): removing the "
            + "constant 0x02 byte NFCGate puts before every frame"))
      return
    }
    guard NFCGatePrefix.matchesContent(lookahead) else {
      nfcgate = .keep
      return
    }
    nfcgate = .strip
    warnings.append(
      TraceWarning(
        "NFCGate-style capture (every data frame uses the CRC-dropped events 0xFA/0xFB and "
          + "starts with 0x02): removing the constant 0x02 byte NFCGate puts before every frame"
      ))
  }

  /// The next ISO 14443 frame from libpcap, skipping (with a warning) unreadable packets.
  @inline(__always) private func readFrame() throws -> Frame? {
    guard let source else { return nil }
    while true {
      if usbFramesHead < usbFrames.count {
        defer { usbFramesHead += 1 }
        return usbFrames[usbFramesHead]
      }
      // pcapng positions come from the block walk; pcap, and pcapng past the walk's table
      // (a block libpcap refuses that the walk accepted), need the stream position.
      let position =
        positions.offsets == nil || packetsRead >= positions.count ? source.position : nil
      switch source.next() {
      case .end:
        if let endError, packetsRead <= positions.count { throw endError }
        if linkType != PcapLinkType.iso14443, frameIndex == 0, usb.readers == 0 {
          throw TraceError(
            .unsupported, at: location(packetsRead + 1, position),
            "USB capture (link type \(PcapLinkType.describe(linkType))) without NFC reader "
              + "traffic in its \(packetsRead) packets: expected bulk transfers of PN53x frames "
              + "(00 00 FF …) or CCID messages; capture the reader's USB bus")
        }
        return nil
      case .error(let message):
        let at = location(packetsRead + 1, position)
        let kind: TraceError.Kind = message.contains("truncated") ? .truncated : .malformed
        throw TraceError(kind, at: at, message)
      case .packet(let packet):
        packetsRead += 1
        let at = location(packetsRead, position)
        if linkType != PcapLinkType.iso14443 {
          usbPacket(packet, at: at)
        } else if let frame = frame(from: packet, at: at) {
          return frame
        }
      }
    }
  }

  /// Proxmark3's documented pcap route (`trace list -x` → `text2pcap -t "%S.%f"`) writes the
  /// carrier tick count as the fraction of a second, so one tick (73.7 ns) becomes 0.1 ns.
  /// Frames at 106 kbit/s are at least ~100 µs apart; many data frames inside a few µs means
  /// that time base. The times are kept (as in the file) with a warning.
  private func warnIfTicksAsTenthsOfNanoseconds() {
    let data = lookahead.filter { $0.direction != .event }
    guard data.count >= 8, let first = data.first else { return }
    // Gaps of 0 are a source without times (a converted libnfc log) or a coarse clock, not
    // carrier ticks, which never give two frames the same time.
    let pairs = zip(data, data.dropFirst())
    let tiny = pairs.filter { (1..<5_000).contains($1.timeNs.saturatingMinus($0.timeNs)) }
    // A tag answers no sooner than ~86 µs after the reader's frame ends (ISO/IEC 14443-3
    // §6.2.1.1, FDT ≥ 1172/fc): answers a few µs after the command's start say the same
    // when polling frames (Apple ECP, unanswered WUPAs) space the first frames out.
    let answers = pairs.filter { $0.direction == .reader && $1.direction == .tag }
    let early = answers.filter { (1..<20_000).contains($1.timeNs.saturatingMinus($0.timeNs)) }
    let what: String
    if tiny.count * 2 >= data.count - 1 {
      what =
        "\(tiny.count) of the first \(data.count - 1) gaps between frames are under 5 µs, where "
        + "frames at 106 kbit/s are ~100 µs apart"
    } else if early.count >= 2, early.count * 2 >= answers.count {
      what =
        "\(early.count) of the first \(answers.count) tag answers start under 20 µs after the "
        + "reader's frame, where a tag answers no sooner than ~86 µs after its end"
    } else {
      return
    }
    warn(
      what + ": these times look like Proxmark3 carrier ticks "
        + "written as 0.1 ns each (the trace list -x → text2pcap route), about 737× too short; "
        + "session splitting by silence will be wrong. Import the Proxmark3 .trace, or convert "
        + "it with nfctrace convert, which writes real times",
      at: first.location)
  }

  /// Flipper Zero's debug pcap stamps every frame with its real-time clock in whole seconds
  /// (`ts_usec` 0): such times order frames but cannot time answers or gaps, so frames get
  /// the `wholeSeconds` unit, which turns those analyses off, and the trace a warning.
  private func checkWholeSeconds() {
    let data = lookahead.filter { $0.direction != .event }
    let clock = data.map { $0.timeNs &+ (firstTimeNs ?? 0) }
    // All 0 is a writer without times (a converted libnfc log), not a clock.
    guard data.count >= 8, clock.allSatisfy({ $0 % 1_000_000_000 == 0 }),
      clock.contains(where: { $0 != 0 }), let first = data.first
    else { return }
    wholeSeconds = true
    for i in lookahead.indices {
      lookahead[i].sourceTime = sourceTime(lookahead[i].timeNs &+ (firstTimeNs ?? 0))
    }
    warn(
      "every packet time is a whole second (as in Flipper Zero's debug pcap, stamped by its "
        + "real-time clock): frames are in order, but answer times, gaps and frame waiting "
        + "times are not measured", at: first.location)
  }

  /// Every packet read ahead has time 0 (pcapng Simple Packet Blocks carry none; some writers
  /// leave it 0): frames are numbered in order (`order` unit, which turns timing analyses
  /// off) and one warning says so, instead of every gap reading 0 ms.
  private func checkNoTimes() {
    let data = lookahead.filter { $0.direction != .event }
    guard !wholeSeconds, data.count >= 2, let first = data.first,
      lookahead.allSatisfy({ $0.timeNs &+ (firstTimeNs ?? 0) == 0 })
    else { return }
    untimed = true
    for i in lookahead.indices {
      lookahead[i].sourceTime = SourceTime(Int64(lookahead[i].index), .order)
    }
    warn(
      "the packets carry no time (the first \(lookahead.count) all 0: pcapng Simple Packet "
        + "Blocks have none, or the writer left them out): frames are in order, but answer "
        + "times, gaps and frame waiting times are not measured", at: first.location)
  }

  /// Times that go back (captures merged, a clock reset) are kept as they are, with one
  /// warning; a sub-second time after whole seconds ends the whole-second reading.
  private func checkTime(_ ns: Int64, at location: SourceLocation) {
    // Read ahead, the first packets all had time 0; a later one has a time: the capture is
    // timed from here (the untimed ones stay numbered in order).
    if untimed, ns != 0 {
      untimed = false
      warn(
        "this packet carries a time, after packets without one: frames are timed from here",
        at: location)
    }
    if wholeSeconds, ns % 1_000_000_000 != 0 {
      wholeSeconds = false
      warn(
        "this packet's time has a fraction of a second, after whole seconds only: frames are "
          + "timed again from here", at: location)
    }
    if let latest = latestTimeNs, ns < latest, !warnedBackwards {
      warnedBackwards = true
      warn(
        "packet time goes back by \(Self.milliseconds(latest &- ns)) ms: the capture was merged "
          + "or its clock reset; times, gaps and durations across this point are not meaningful",
        at: location)
    }
    latestTimeNs = max(latestTimeNs ?? ns, ns)
  }

  private static func milliseconds(_ ns: Int64) -> String {
    String(format: "%.3f", Double(ns) / 1_000_000)
  }

  /// A pcapng Simple Packet Block, which carries no time, after timed packets (Enhanced
  /// Packet Blocks): placed at the latest time so far, its source time its order, said once.
  /// (Read as libpcap gives it, time 0 or the interface's if_tsoffset, it lay in 1970.)
  private func placingUntimed(_ packet: PcapPacket, at location: SourceLocation) -> PcapPacket {
    packetUntimed = false
    guard positions.simplePackets.contains(location.record) else {
      sawTimedPacket = true
      return packet
    }
    guard !untimed else { return packet }
    guard sawTimedPacket, let latest = latestTimeNs else {
      // Before any timed packet: numbered in order; the first timed one starts the clock.
      packetUntimed = true
      timesFromNextTimed = true
      return packet
    }
    packetUntimed = true
    if !warnedUntimedPacket {
      warnedUntimedPacket = true
      warn(
        "packet without a time (a pcapng Simple Packet Block) after timed ones: placed at the "
          + "latest time so far, in order (said once)", at: location)
    }
    var placed = packet
    placed.timeNs = latest
    return placed
  }

  /// Checks a packet's time (backwards steps, past 2262) and returns the capture's first
  /// time, which frame times count from (the first timed packet's after leading Simple Packet
  /// Blocks).
  private func startPacket(_ packet: PcapPacket, at location: SourceLocation) -> Int64 {
    let wasUntimed = untimed
    checkTime(packet.timeNs, at: location)
    if timesFromNextTimed, !packetUntimed, !untimed, firstTimeNs != nil {
      timesFromNextTimed = false
      firstTimeNs = packet.timeNs
      if !wasUntimed {
        warn(
          "this packet carries a time, after Simple Packet Blocks without one: frames are timed "
            + "from here", at: location)
      }
    }
    let first = firstTimeNs ?? packet.timeNs
    firstTimeNs = first
    if packet.timeClamped, !warnedClamped {
      warnedClamped = true
      warn(
        "packet time is past 2262-04-11 23:47:16 UTC, the latest a 64-bit count of "
          + "nanoseconds holds: held at that time (said once)", at: location)
    }
    return first
  }

  @inline(__always) private func frame(from packet: PcapPacket, at location: SourceLocation)
    -> Frame?
  {
    let packet = placingUntimed(packet, at: location)
    let first = startPacket(packet, at: location)
    switch ISO14443PseudoHeader.parse(packet.bytes) {
    case .skip(let reason):
      let cut = packet.originalLength > packet.bytes.count
      warn(
        reason
          + (cut
            ? " (the snap length cut the packet: captured \(packet.bytes.count) of its "
              + "\(packet.originalLength) bytes)" : ""),
        at: location)
      return nil
    case .frame(let event, let payload, let lengthField):
      checkLengths(packet, payload.count, lengthField, event, location)
      let shape = event.frameShape
      // A frame the snap length cut lost its end, CRC included: not a damaged frame.
      let cut = packet.originalLength > packet.bytes.count && event.carriesData
      let frame = Frame(
        index: frameIndex, timeNs: packet.timeNs.saturatingMinus(first),
        sourceTime: sourceTime(packet.timeNs),
        direction: shape.direction, event: shape.event,
        data: event.carriesData ? Array(payload) : [], crc: cut ? .notCaptured : shape.crc,
        technology: .unknown, sourceFlags: cut ? [Self.truncatedFlag] : [], location: location,
        originalLength: cut ? payload.count + packet.originalLength - packet.bytes.count : nil)
      frameIndex += 1
      return frame
    }
  }

  /// Queues the frames a USB capture packet gives (see `USBReaderDecoder`). Their time is
  /// the packet's: when the host sent the command, when the reader's answer reached the host.
  private func usbPacket(_ packet: PcapPacket, at location: SourceLocation) {
    let packet = placingUntimed(packet, at: location)
    let first = startPacket(packet, at: location)
    usbFrames.removeAll(keepingCapacity: true)
    usbFramesHead = 0
    let transfer: USBTransfer
    switch USBTransfer.parse(packet.bytes, linkType: linkType) {
    case .failure(let problem):
      return warn(problem.message, at: location)
    case .success(nil):
      return
    case .success(let parsed?):
      transfer = parsed
    }
    let output = usb.decode(transfer)
    for message in output.warnings { warn(message, at: location) }
    for out in output.frames {
      usbFrames.append(
        Frame(
          index: frameIndex, timeNs: packet.timeNs.saturatingMinus(first),
          sourceTime: sourceTime(packet.timeNs), direction: out.direction, event: out.event,
          data: out.data, bits: out.bits, crc: out.crc, technology: out.technology,
          sourceFlags: out.flags, location: location))
      frameIndex += 1
    }
  }

  /// The source flag of a frame the capture's snap length cut (as NFC-Laboratory's).
  static let truncatedFlag = "truncated"

  private func checkLengths(
    _ packet: PcapPacket, _ payload: Int, _ lengthField: Int, _ event: ISO14443PcapEvent,
    _ location: SourceLocation
  ) {
    let cut = packet.originalLength > packet.bytes.count
    if cut {
      warn(
        "packet captured \(packet.bytes.count) of its \(packet.originalLength) bytes "
          + "(snap length); the frame is incomplete", at: location)
    }
    // A length field that counts the packet as sent (before the cut) is right: the warning
    // above says it all.
    let sentPayload = payload + packet.originalLength - packet.bytes.count
    if lengthField != payload, !(cut && lengthField == sentPayload) {
      warn(
        "pseudo-header length field says \(lengthField) bytes but \(payload) follow; "
          + "using the \(payload) captured bytes", at: location)
    }
    if !event.carriesData && payload > 0 {
      warn("field on/off event carries \(payload) data bytes; ignored", at: location)
    }
  }

  private func sourceTime(_ ns: Int64) -> SourceTime {
    if wholeSeconds { return SourceTime(ns / 1_000_000_000, .wholeSeconds) }
    if (untimed && ns == 0) || packetUntimed { return SourceTime(Int64(frameIndex), .order) }
    return timeUnit == .microseconds
      ? SourceTime(ns / 1000, .microseconds) : SourceTime(ns, .nanoseconds)
  }

  /// `packet number` (1-based, libpcap's count) at its original number and byte offset.
  private func location(_ number: Int, _ position: Int?) -> SourceLocation {
    let (record, offset) = positions.lookup(number, streamPosition: position)
    return SourceLocation(file: path, unit: "packet", record: record, offset: offset)
  }

  private func warn(_ message: String, at location: SourceLocation, frame: Int? = nil) {
    warnings.appendCapped(TraceWarning(message, frame: frame, location: location))
  }

  private func warn(_ message: String, _ frame: Frame) {
    warn(message, at: frame.location, frame: frame.index)
  }
}

/// Maps libpcap's packet count to the packet number and byte offset to report.
struct PacketPositions {
  /// Byte offsets of the packets libpcap will return, in order (pcapng, from the block walk);
  /// nil for pcap, where `ftell` before each read is exact.
  var offsets: [Int]?
  /// Original 1-based packet numbers when packets were filtered out; nil when libpcap's count
  /// is the packet number.
  var numbers: [Int]?
  /// The original numbers of the packets that are pcapng Simple Packet Blocks (no time).
  var simplePackets: Set<Int> = []
  /// Packet number and offset reported past the table (the pcapng walk's damage).
  var beyond: (number: Int, offset: Int)?

  /// Packets in the table (`Int.max` when there is no table).
  var count: Int { offsets?.count ?? Int.max }

  func lookup(_ n: Int, streamPosition: Int?) -> (record: Int, offset: Int) {
    guard let offsets else { return (n, streamPosition ?? 0) }
    if n >= 1, n <= offsets.count {
      let number = numbers.flatMap { n <= $0.count ? $0[n - 1] : nil } ?? n
      return (number, offsets[n - 1])
    }
    if let beyond { return (beyond.number, beyond.offset) }
    return (n, streamPosition ?? 0)
  }
}
