/// The reference simulator: runs a `Scenario` (virtual tag + reader profile + actions + faults)
/// and returns the frames a perfect sniffer would capture, with the ground truth.
///
/// Frames: `timeNs` from the field-on event at 0, `durationNs`, `sourceTime` in Proxmark3
/// ticks, CRC left `.unchecked` as an importer would, technology `.nfcA`, location file
/// `simulated:<name>`, unit `frame`, record = index + 1, offset 0. Field on/off are event frames.
/// Everything random (default UID, signature, reader gaps, noise, processing jitter) comes from
/// the scenario's seed: the same scenario always gives the same frames.
public struct Simulator {
  /// Runs `scenario`.
  /// - Throws: `SimulationError.invalidValue` when a tag option is out of range (UID length,
  ///   hex option sizes, initial NDEF message larger than the memory, Type 4 sizes).
  public static func run(_ scenario: Scenario) throws -> SimulationResult {
    var rng = SplitMix64(seed: scenario.seed)
    let uid = scenario.tag.uid?.bytes ?? ([0x04] + rng.bytes(6))
    guard UIDLength.isValid(uid.count) else {
      throw SimulationError.invalidValue(key: "tag.uid", message: "4, 7 or 10 bytes")
    }
    let tag = try makeTag(scenario.tag, uid: uid, rng: &rng)
    let channel = RFChannel(
      name: scenario.name, primary: tag.virtual, rng: SplitMix64(seed: rng.next()))
    let reader = SimulatedReader(
      channel: channel, profile: .profile(scenario.reader), tagKind: scenario.tag.type,
      primaryUID: uid)
    try apply(scenario.faults, tag: tag, channel: channel, reader: reader, rng: &rng)
    let initial = ndefStatus(tag)
    reader.run(scenario.actions)
    let sessions = reader.sessions()
    let truth = GroundTruth(
      tagType: scenario.tag.type, reader: scenario.reader, uid: uid, sessions: sessions,
      ndefStatus: initial.status, capacity: initial.capacity, finalMemory: tag.memory,
      ndefRead: reader.ndefRead, ndefWritten: reader.ndefWritten,
      expectedError: sessions.flatMap(\.operations).first { $0.outcome != .ok }?.error)
    return SimulationResult(frames: channel.frames, truth: truth)
  }

  /// The virtual tag with typed access for faults and truth.
  private enum BuiltTag {
    case type2(Type2Tag)
    case type4(Type4Tag)

    var virtual: any VirtualTag {
      switch self {
      case .type2(let t): t
      case .type4(let t): t
      }
    }

    var memory: [UInt8] {
      switch self {
      case .type2(let t): t.memory
      case .type4(let t): t.application.ndefFile
      }
    }
  }

  private static func makeTag(_ spec: TagSpec, uid: [UInt8], rng: inout SplitMix64) throws
    -> BuiltTag
  {
    if let product = Type2Product.forKind(spec.type) {
      let image = try SimulatedTLVArea.factoryImage(product, uid: uid, spec: spec)
      return .type2(Type2Tag(product: product, uid: uid, memory: image, signature: rng.bytes(32)))
    }
    return .type4(try makeType4(spec, uid: uid, rng: &rng))
  }

  private static func makeType4(_ spec: TagSpec, uid: [UInt8], rng: inout SplitMix64) throws
    -> Type4Tag
  {
    func check(_ value: Int?, _ key: String, _ range: ClosedRange<Int>, _ fallback: Int) throws
      -> Int
    {
      let v = value ?? fallback
      guard range.contains(v) else {
        throw SimulationError.invalidValue(
          key: "tag.\(key)", message: "expected \(range), got \(v)")
      }
      return v
    }
    let size = try check(spec.maxNDEFSize, "max_ndef_size", 3...0x7FFF, 2048)
    let message = spec.ndef?.bytes ?? []
    guard message.count + 2 <= size else {
      throw SimulationError.invalidValue(
        key: "tag.ndef", message: "\(message.count) bytes + NLEN exceed max_ndef_size \(size)")
    }
    var file = [UInt8](repeating: 0, count: size)
    file[0] = UInt8(message.count >> 8 & 0xFF)
    file[1] = UInt8(message.count & 0xFF)
    file.replaceSubrange(2..<(2 + message.count), with: message)
    let app = Type4NDEFApplication(
      // MLe is at least 000Fh, MLc at least 0001h (NFC Forum T4T 2.0 §5.1.2, CC file).
      mle: try check(spec.mle, "mle", 0x0F...0xFFFF, 0xFF),
      mlc: try check(spec.mlc, "mlc", 1...0xFFFF, 0xFF),
      readAccess: UInt8(try check(spec.readAccess, "read_access", 0...0xFF, 0)),
      writeAccess: UInt8(try check(spec.writeAccess, "write_access", 0...0xFF, 0)),
      ndefFile: file)
    let tag = Type4Tag(
      uid: uid, application: app, fsci: try check(spec.fsci, "fsci", 0...8, 5),
      fwi: try check(spec.fwi, "fwi", 0...14, 8), wtx: try check(spec.wtx, "wtx", 0...16, 0))
    tag.rng = SplitMix64(seed: rng.next())
    return tag
  }

  private static func apply(
    _ faults: [ScenarioFault], tag: BuiltTag, channel: RFChannel, reader: SimulatedReader,
    rng: inout SplitMix64
  ) throws {
    for fault in faults {
      switch fault {
      case .removeAfterFrame(let n): channel.removeAfterFrame = n
      case .removeAfterWrites(let k): channel.removeAfterWrites = k
      case .nakOnPage(let page, let code):
        if case .type2(let t) = tag { t.nakPages[page] = code }
      case .noise(let crc, let parity):
        channel.crcErrorRate = min(max(crc, 0), 1)
        channel.parityErrorRate = min(max(parity, 0), 1)
      case .slowTag(let wtx):
        if case .type4(let t) = tag { t.everyAnswerWTX = max(wtx, 0) }
      case .secondTag(let uid, let polls):
        guard let product = Type2Product.forKind(.ntag213) else { continue }
        let image = try SimulatedTLVArea.factoryImage(
          product, uid: uid, spec: TagSpec(type: .ntag213))
        reader.secondTag = Type2Tag(
          product: product, uid: uid, memory: image, signature: rng.bytes(32))
        reader.secondTagPolls = polls
      case .responseLongerThanFSD:
        if case .type4(let t) = tag { t.ignoresFSD = true }
      case .appAppendsCRC: reader.appAppendsCRC = true
      case .reactivateBeforeWrite: reader.reactivateBeforeWrite = true
      }
    }
  }

  /// NDEF status and capacity of the tag as it starts (Core NFC style, GroundTruth docs).
  private static func ndefStatus(_ tag: BuiltTag) -> (status: NDEFStatus, capacity: Int) {
    switch tag {
    case .type2(let t):
      let cc = Array(t.memory[12..<16])
      guard cc[0] == 0xE1, cc[1] >> 4 == 1 else { return (.notSupported, 0) }
      let end = SimulatedTLVArea.areaEnd(cc: cc)
      guard
        case .found(let tlv) = SimulatedTLVArea.scan(t.memory, known: t.memory.count, areaEnd: end)
      else { return (.notSupported, 0) }
      let status: NDEFStatus = cc[3] & 0x0F == 0 ? .readWrite : .readOnly
      return (status, SimulatedTLVArea.capacity(tlvStart: tlv.start, areaEnd: end))
    case .type4(let t):
      let app = t.application
      guard app.readAccess == 0 else { return (.notSupported, 0) }
      return (app.writeAccess == 0 ? .readWrite : .readOnly, app.ndefFile.count - 2)
    }
  }
}
