import NDEF

/// Everything known about a tag's contents after one session (or from a static dump): identity,
/// NDEF status, CC, lock bits, configuration pages, TLVs, the NDEF message with its validator
/// findings, and the memory with per-byte provenance, as found at the start and as left at the
/// end. Built by `init(session:)` or `init(dump:)`; rendered by `ReportText` and `ReportJSON`.
public struct TagReport: Sendable {
  /// Where the report comes from.
  public enum Origin: Sendable {
    /// A session of a trace.
    case session(SessionInfo)
    /// A static dump (`flipper-nfc`, `pm3-json`, `raw-type2`): contents only, no frames.
    case dump(format: String)
  }

  /// Which NFC Forum tag type the contents follow.
  public enum Layout: String, Sendable {
    /// Type 2: 4-byte pages from page 0.
    case type2
    /// Type 4: CC file and NDEF file.
    case type4
    /// Type 3: 16-byte blocks of the NDEF service, the Attribute Information Block first.
    case type3
    /// Type 5: ISO/IEC 15693 blocks from block 0, the CC first, then the TLV area.
    case type5
    /// Neither (MIFARE Classic, other technologies, or nothing seen).
    case none
  }

  /// A PWD_AUTH seen in the session (NTAG21x / Ultralight EV1).
  public struct PasswordAuth: Sendable, Equatable {
    /// The 4-byte password sent.
    public var password: [UInt8]
    /// The PACK answered, nil when refused or unanswered.
    public var pack: [UInt8]?
    /// The PWD_AUTH frame index.
    public var frame: Int
    /// The authenticate operation's outcome.
    public var outcome: OperationOutcome

    /// Creates a record of one PWD_AUTH.
    public init(password: [UInt8], pack: [UInt8]?, frame: Int, outcome: OperationOutcome) {
      self.password = password
      self.pack = pack
      self.frame = frame
      self.outcome = outcome
    }
  }

  /// The origin.
  public var origin: Origin
  /// The tag's identity.
  public var tag: TagIdentity
  /// The session's operations (empty for dumps).
  public var operations: [Operation]
  /// `queryNDEFStatus`'s answer: from the session, or computed from the CC; the CC as left
  /// when the session changed the status (a writeLock), with the queried one in `reason`.
  public var ndefStatus: (status: NDEFStatus, capacity: Int?, reason: String?)?
  /// The layout of the contents.
  public var layout: Layout
  /// The memory, as found and as left.
  public var memory: TagMemory
  /// The contents as left at the end (for dumps: the dump).
  public var end: TagContents
  /// The contents as found at the start (same as `end` for dumps).
  public var start: TagContents
  /// NFC counters read (READ_CNT answers, or stored in the dump), by counter number.
  public var counters: [(counter: Int, value: Int)]
  /// PWD_AUTH commands of the session.
  public var passwordAuths: [PasswordAuth]
  /// Problems noticed (dump warnings).
  public var warnings: [String]
  /// Doubts about the contents as left (pages written without acknowledgement).
  public var notes: [String] = []

  /// The session index, nil for a dump.
  public var sessionIndex: Int? {
    if case .session(let info) = origin { return info.index }
    return nil
  }

  /// True for a static dump.
  public var isDump: Bool { sessionIndex == nil }

  /// Type 2 pages whose WRITE the tag acknowledged in this session (operation detail
  /// `pages_acknowledged`).
  public var writtenPages: Set<Int> = []

  /// The memory map rows as `rows(atStart:)` gives them, with the secret bytes masked unless
  /// `showSecrets`: the PWD (4 bytes) and PACK (2 bytes) of an NTAG21x / Ultralight EV1
  /// configuration (NTAG213/215/216 datasheet §8.5.7), as the Configuration section masks
  /// them — zeros (what a READ returns there) and NXP's factory default PWD FF FF FF FF
  /// (datasheet §8.8.1) are no secret and stay — and an Ultralight C's 3DES key (pages
  /// 2Ch–2Fh, MF0ICU2 datasheet §7.5.7), whatever it holds. A masked byte is `masked`, its
  /// value 0.
  public func rows(atStart: Bool = false, showSecrets: Bool) -> [MemoryRow] {
    var rows = rows(atStart: atStart)
    guard !showSecrets else { return rows }
    maskMessageSecrets(&rows, atStart: atStart)
    guard layout == .type2 else { return rows }
    if tag.isUltralightC { maskUltralightCKey(&rows) }
    guard let c = (atStart ? start : end).config else { return rows }
    for i in rows.indices where rows[i].file == nil && !rows[i].isBlock {
      let width = rows[i].address == c.pwdPage ? 4 : rows[i].address == c.packPage ? 2 : 0
      guard width > 0, rows[i].known.prefix(width).contains(true) else { continue }
      let value = Array(rows[i].bytes.prefix(width))
      let isSecret =
        !value.allSatisfy { $0 == 0 }
        && !(width == 4 && ReportJSON.isFactoryDefaultPassword(value))
      guard isSecret else { continue }
      rows[i].masked = (0..<rows[i].bytes.count).map { $0 < width && rows[i].known[$0] }
      for j in 0..<width where rows[i].masked[j] { rows[i].bytes[j] = 0 }
    }
    return rows
  }

  /// Masks in `rows` the known bytes of an Ultralight C's 3DES key pages (2Ch–2Fh; the key
  /// comes only from WRITEs or a dump: a READ never returns it, MF0ICU2 datasheet §7.5.7).
  private func maskUltralightCKey(_ rows: inout [MemoryRow]) {
    let key = UltralightCAuthentication.keyAddresses
    for i in rows.indices where rows[i].file == nil && !rows[i].isBlock {
      let first = rows[i].address * 4
      Self.mask(&rows[i], rows[i].bytes.indices.filter { key.contains(first + $0) })
    }
  }

  /// Marks the known bytes `hit` of `row` masked, their value 0.
  private static func mask(_ row: inout MemoryRow, _ hit: [Int]) {
    let known = hit.filter { row.known[$0] }
    guard !known.isEmpty else { return }
    if row.masked.isEmpty { row.masked = Array(repeating: false, count: row.bytes.count) }
    for j in known {
      row.masked[j] = true
      row.bytes[j] = 0
    }
  }

  /// Masks in `rows` the bytes of the message's records that hold a secret (a Wi-Fi network
  /// key: `NDEFComparison.secretOffsets`, the rule `ndef` and `diff` mask by), at their
  /// memory addresses: Type 2 through the NDEF TLV's address map (around lock and reserved
  /// bytes), Type 4 after the NDEF file's length field, Type 3 after the Attribute
  /// Information Block.
  private func maskMessageSecrets(_ rows: inout [MemoryRow], atStart: Bool) {
    // A byte secret in either image is masked in both: the other image may hold it unchanged
    // (a key left past a shorter new message).
    let (found, file) = messageSecrets(atStart: true)
    let (left, _) = messageSecrets(atStart: false)
    var addresses = found.union(left)
    switch layout {
    case .type2:
      for image in [memory.type2Start, memory.type2End] {
        addresses.formUnion(NDEFComparison.unclaimedSecrets(type2: image))
      }
    case .type4:
      let size = (end.type4CC ?? start.type4CC)?.ndefFile.lengthFieldSize ?? 2
      for files in [memory.filesStart, memory.filesEnd] {
        if let id = file, let image = files[id] {
          addresses.formUnion(NDEFComparison.unclaimedSecrets(file: image, lengthSize: size))
        }
      }
    default: break
    }
    guard !addresses.isEmpty else { return }
    for i in rows.indices where rows[i].file == file {
      let width = rows[i].file != nil ? 1 : rows[i].isBlock ? 16 : 4
      let first = rows[i].address * width
      Self.mask(&rows[i], rows[i].bytes.indices.filter { addresses.contains(first + $0) })
    }
  }

  /// The addresses of the secret bytes of the message as found (`atStart`) or left, and the
  /// Type 4 NDEF file they are in.
  private func messageSecrets(atStart: Bool) -> (Set<Int>, UInt16?) {
    let contents = atStart ? start : end
    var addresses = Set<Int>()
    var file: UInt16?
    switch layout {
    case .type2:
      guard let area = contents.tlvArea, let tlv = area.ndef, tlv.isComplete,
        let map = area.ndefAddressMap
      else { return ([], file) }
      addresses = Set(NDEFComparison.secretOffsets(message: tlv.value).map(map.address(of:)))
    case .type4:
      // Without the CC (not read in this capture) the NDEF file is E104 with a 2-byte NLEN,
      // as the diff takes it (`NDEFComparison.side`).
      let size = contents.type4CC?.ndefFile.lengthFieldSize ?? 2
      file = contents.type4CC?.ndefFile.fileID ?? 0xE104
      let files = atStart ? memory.filesStart : memory.filesEnd
      guard let id = file, let image = files[id], let nlen = image.knownBigEndian(0, size),
        let message = image.known(size, nlen)
      else { return ([], file) }
      addresses = Set(NDEFComparison.secretOffsets(message: message).map { size + $0 })
    case .type3:
      guard let ln = contents.type3AIB?.ln,
        let message = (atStart ? memory.type3Start : memory.type3End).known(16, ln)
      else { return ([], file) }
      addresses = Set(NDEFComparison.secretOffsets(message: message).map { 16 + $0 })
    case .type5:
      guard let area = contents.tlvArea, let tlv = area.ndef, tlv.isComplete else {
        return ([], file)
      }
      let start = area.baseAddress + tlv.valueOffset
      addresses = Set(NDEFComparison.secretOffsets(message: tlv.value).map { start + $0 })
    case .none: break
    }
    return (addresses, file)
  }

  /// The memory map rows as left at the end (`atStart` false) or as found at the start.
  /// Rows carried from an earlier session on the same UID are marked `earlierSession`.
  /// Secret bytes are as stored: renderers use `rows(atStart:showSecrets:)`.
  public func rows(atStart: Bool = false) -> [MemoryRow] {
    var rows: [MemoryRow]
    if layout == .type4 {
      rows = MemoryRow.type4(atStart ? memory.filesStart : memory.filesEnd)
    } else if layout == .type3 {
      rows = MemoryRow.type3(atStart ? memory.type3Start : memory.type3End)
    } else if layout == .type5 {
      rows = MemoryRow.type5(
        atStart ? memory.type5Start : memory.type5End, blockSize: memory.type5BlockSize ?? 4)
    } else {
      rows =
        atStart
        ? MemoryRow.type2(memory.type2Start)
        : MemoryRow.type2(memory.type2End, written: writtenPages)
    }
    guard case .session(let info) = origin else { return rows }
    for i in rows.indices {
      rows[i].earlierSession = rows[i].frame.map { $0 < info.firstFrame } ?? false
    }
    return rows
  }

  /// True when the contents as found differ from the contents as left.
  public var changed: Bool {
    memory.type2Start != memory.type2End || memory.filesStart != memory.filesEnd
      || memory.type3Start != memory.type3End || memory.type5Start != memory.type5End
  }
}

extension TagReport {
  /// One note per Type 4 file a read or write reached past the 64 KiB memory image at
  /// (`ByteImage.limit`; a T4T 3.0 file may be larger): those bytes are not shown.
  static func beyondImageNotes(_ m: TagMemory) -> [String] {
    m.filesBeyondLimit.sorted { $0.key < $1.key }
      .map { id, b in
        "file \(Hex.word(id)): bytes from offset \(b.offset) on (first at frame \(b.frame)) "
          + "lie past the \(ByteImage.limit / 1024) KiB memory image and are not shown"
      }
  }

  /// The query's status, unless the CC as left says otherwise (the session locked the tag):
  /// the report is of the tag as left.
  private static func status(
    queried s: SessionAnalysis, end: (status: NDEFStatus, capacity: Int?, reason: String?)?,
    ccExceedsMemory: Bool
  ) -> (status: NDEFStatus, capacity: Int?, reason: String?)? {
    guard let q = s.ndefStatus else {
      guard var end, ccFromEarlierSession(s) else { return end }
      let note = "from the CC an earlier session read; this session did not query it"
      end.reason = end.reason.map { "\($0); \(note)" } ?? note
      return end
    }
    // The CC gives the status; when the query itself failed later, the app got an error. A
    // Type 2 tag the session wrote nothing to is as the query found it: a different status
    // from the bytes read comes from pages the query could not read (a read-protected data
    // area), not from a change.
    guard let end, end.status != q.status, !type2Unwritten(s) else {
      let note = ccExceedsMemory ? userMemoryNote(q, end) : nil
      let reason = [s.ndefStatusReasonAsReturned, note].compactMap { $0 }
      return (q.status, q.capacity, reason.isEmpty ? nil : reason.joined(separator: "; "))
    }
    // A Type 4 CC as found gives another status than the query's (an NDEF file whose read
    // was refused): what the app got is the query's answer. (A Type 2 status also follows the
    // TLVs, which the session may have changed: the status as left stands.)
    if type4CCUnchanged(s) {
      let cc = "the CC alone gives \(end.status.rawValue)" + (end.reason.map { " (\($0))" } ?? "")
      let reason = [s.ndefStatusReason, cc].compactMap { $0 }.joined(separator: "; ")
      return (q.status, q.capacity, reason)
    }
    // A CC write the tag did not acknowledge may not have happened: the old status may stand.
    let unconfirmed = (12..<16).contains { s.memory.type2End.state($0) == .unacknowledged }
    let was =
      unconfirmed
      ? "queryNDEFStatus said \(q.status.rawValue); the session's write of the CC was not "
        + "acknowledged, so the tag may still hold the old CC"
      : "queryNDEFStatus said \(q.status.rawValue) before the session changed the CC"
    return (end.status, end.capacity, end.reason.map { "\($0); \(was)" } ?? was)
  }

  /// A CC that declares more than the product's user memory (`t2t-cc-exceeds-memory`, which
  /// the caller checks): queryNDEFStatus's capacity follows the CC; the contents' capacity
  /// stops at the user memory. Both are said.
  private static func userMemoryNote(
    _ q: (status: NDEFStatus, capacity: Int?),
    _ end: (status: NDEFStatus, capacity: Int?, reason: String?)?
  ) -> String? {
    guard let end, end.status == q.status, let e = end.capacity, let c = q.capacity, e < c
    else { return nil }
    return "queryNDEFStatus counts it from the CC, which declares more than the tag has: "
      + "its user memory holds a message of at most \(e) bytes"
  }

  /// True for a Type 2 tag (no Type 3 or 4 memory) the session wrote no byte of, not even
  /// without acknowledgement.
  private static func type2Unwritten(_ s: SessionAnalysis) -> Bool {
    let m = s.memory.type2End
    guard m.count > 0, s.memory.filesEnd.isEmpty, s.memory.type3End.count == 0,
      s.memory.type5End.count == 0
    else {
      return false
    }
    return !(0..<m.count).contains { i in
      switch m.state(i) {
      case .written, .unacknowledged, .writtenUnknown: true
      default: false
      }
    }
  }

  /// True when the session holds a Type 4 CC (file E103) and left its known bytes as found.
  private static func type4CCUnchanged(_ s: SessionAnalysis) -> Bool {
    let m = s.memory
    guard let end = m.filesEnd[0xE103] else { return false }
    return m.filesStart[0xE103]?.knownRun(from: 0) == end.knownRun(from: 0)
  }

  /// True when the CC the status comes from was carried from an earlier session on the same
  /// UID (its bytes' frame precedes the session).
  private static func ccFromEarlierSession(_ s: SessionAnalysis) -> Bool {
    let frame = s.memory.filesEnd[0xE103]?.frame(0) ?? s.memory.type2End.frame(12)
    return frame.map { $0 < s.info.firstFrame } ?? false
  }

  /// The report of one analysed session.
  public init(session s: SessionAnalysis) {
    origin = .session(s.info)
    tag = s.tag
    operations = s.operations
    memory = s.memory
    layout = Self.layout(tag: s.tag, memory: s.memory)
    end = TagContents(
      layout: layout, type2: s.memory.type2End, files: s.memory.filesEnd, tag: tag,
      type3: s.memory.type3End, type5: s.memory.type5End, type5BlockSize: s.memory.type5BlockSize,
      type5MemorySize: s.memory.type5MemorySize, type2Start: s.memory.type2Start,
      type2ReadBack: s.memory.type2ReadBack)
    start = TagContents(
      layout: layout, type2: s.memory.type2Start, files: s.memory.filesStart, tag: tag,
      type3: s.memory.type3Start, type5: s.memory.type5Start,
      type5BlockSize: s.memory.type5BlockSize, type5MemorySize: s.memory.type5MemorySize)
    ndefStatus = Self.status(
      queried: s, end: end.status,
      ccExceedsMemory: end.tlvFindings.contains { $0.code == "t2t-cc-exceeds-memory" })
    counters = Self.counters(s.operations)
    passwordAuths = Self.passwordAuths(s.operations)
    warnings = []
    writtenPages = Self.writtenPages(s.operations)
    if layout == .type3 {
      notes = Self.unacknowledgedBlockNotes(s.memory.type3End)
      let lnCertain = (11..<14).allSatisfy { s.memory.type3End.state($0) != .unacknowledged }
      if let note = Self.tornLengthNote(
        s.operations, now: end.nlen, was: start.nlen, name: "Ln", lengthCertain: lnCertain)
      {
        notes.append(note)
      }
    } else if layout == .type4 {
      notes = Self.unacknowledgedFileNotes(s.memory.filesEnd) + Self.beyondImageNotes(s.memory)
      let file = s.memory.filesEnd[s.type4NDEFFile ?? 0xE104]
      let nlenCertain = (0..<(end.type4CC?.ndefFile.lengthFieldSize ?? 2)).allSatisfy {
        file?.state($0) != .unacknowledged
      }
      if let note = Self.tornLengthNote(
        s.operations, now: end.nlen, was: start.nlen,
        name: end.type4CC?.ndefFile.lengthFieldSize
          == 4 ? "ENLEN" : "NLEN", lengthCertain: nlenCertain)
      {
        notes.append(note)
      }
    } else {
      notes = Self.unacknowledgedNotes(MemoryRow.type2(s.memory.type2End))
      if let note = Self.tornLengthNote(
        s.operations, now: end.tlvArea?.ndef?.length, was: start.tlvArea?.ndef?.length,
        name: "NDEF TLV length", lengthCertain: Self.lengthAcknowledged(s.memory.type2End, end))
      {
        notes.append(note)
      }
    }
  }

  /// Whether the NDEF TLV length byte at the end was read or acknowledged (not written
  /// without acknowledgement).
  static func lengthAcknowledged(_ image: ByteImage, _ end: TagContents) -> Bool {
    guard let address = end.tlvArea?.ndefLengthAddress else { return true }
    return image.state(address) != .unacknowledged
  }

  /// The NDEF TLV's length changed in a writeNDEF that did not complete (nfc-facts §5.5 write
  /// order): what the tag may hold now. `lengthCertain`: the length byte was not written
  /// without acknowledgement.
  static func tornLengthNote(
    _ ops: [Operation], now: Int?, was: Int?, name: String, lengthCertain: Bool = true
  ) -> String? {
    guard let write = ops.last(where: { $0.kind == .writeNDEF }), write.outcome != .ok,
      let now, let was, now != was
    else { return nil }
    if now == 0 && !lengthCertain {
      return "the \(name) may now be 0 (was \(was)): the write that clears it was not"
        + " acknowledged (\(unacknowledgedAnswers)), so the tag holds the old message or an empty one"
    }
    if now == 0 {
      return "the \(name) is now 0 (was \(was)): writeNDEF ended \(write.outcome.rawValue)"
        + " after clearing it, so the tag holds an empty message"
    }
    if !lengthCertain {
      return "the \(name) may now be \(now): the write that set it was not"
        + " acknowledged (\(unacknowledgedAnswers)), so the tag holds that length or the one before that write (0 when the writer cleared it"
        + " first; \(was) at the start); nfctrace diagnose tells which bytes were written"
    }
    return "the \(name) is now \(now) (was \(was)) but writeNDEF ended"
      + " \(write.outcome.rawValue): unless every byte it announces was written, the message is"
      + " torn (nfctrace diagnose tells which)"
  }

  /// The answers after which a write may or may not have landed.
  static let unacknowledgedAnswers =
    "no answer, a damaged 4-bit answer, or a failed programming: NAK 5, SW 65xx"

  static func writtenPages(_ ops: [Operation]) -> Set<Int> {
    var pages: Set<Int> = []
    for op in ops {
      if case .string(let list)? = op.detail("pages_acknowledged") {
        pages.formUnion(list.split(separator: ",").compactMap { Int($0) })
      }
    }
    return pages
  }

  /// A WRITE that got no ACK may or may not have reached the EEPROM (a torn write): the tag
  /// holds the old or the new bytes there, and the message may mix both.
  static func unacknowledgedNotes(_ rows: [MemoryRow]) -> [String] {
    let pages = rows.filter { $0.state == .unacknowledged }.map(\.address)
    guard !pages.isEmpty else { return [] }
    let list = pages.map(String.init).joined(separator: ", ")
    return [
      "page\(pages.count == 1 ? "" : "s") \(list) written without acknowledgement: the tag may hold"
        + " the old or the new bytes there, and the message may mix both"
    ]
  }

  /// The Type 3 blocks an UPDATE wrote without an answer.
  static func unacknowledgedBlockNotes(_ image: ByteImage) -> [String] {
    let blocks = MemoryRow.type3(image).filter { $0.state == .unacknowledged }.map(\.address)
    guard !blocks.isEmpty else { return [] }
    return [
      "block\(blocks.count == 1 ? "" : "s") \(blocks.map(String.init).joined(separator: ", ")) "
        + "written without an answer: the tag may hold the old or the new bytes there, and the "
        + "message may mix both"
    ]
  }

  /// The bytes of Type 4 files an UPDATE BINARY wrote without an answer, per file.
  static func unacknowledgedFileNotes(_ files: [UInt16: ByteImage]) -> [String] {
    files.keys.sorted().compactMap { id in
      guard let image = files[id] else { return nil }
      let doubtful = (0..<image.count).filter { image.state($0) == .unacknowledged }
      guard !doubtful.isEmpty else { return nil }
      return "file \(Hex.word(id)) bytes "
        + "\(rangesText(doubtful)) written without acknowledgement: the tag may hold the old or "
        + "the new bytes there, and the message may mix both"
    }
  }

  /// The report of a static dump: no frames, every stored page `read`.
  public init(dump d: TagDump) {
    origin = .dump(format: d.format)
    var identity = TagIdentity()
    identity.technology = .nfcA
    identity.uid = d.uid ?? d.uidFromPages ?? []
    identity.atqa = d.atqa
    identity.sak = d.sak
    identity.ats = d.ats
    identity.version = d.version
    identity.signature = d.signature
    var inferred: [String] = []
    let stated = d.statedProduct?.lowercased() ?? ""
    identity.dumpNamesUltralightC = stated == "mifare ultralight c" || stated == "ultralight c"
    // Only names this reader knows (Flipper's own, such as "Mifare Ultralight 11", differ
    // from ours without contradicting).
    let namedProduct = NTAGProduct.allCases.first { stated == $0.displayName.lowercased() }
    let known = identity.dumpNamesUltralightC || namedProduct != nil
    if let v = identity.versionInfo, let name = d.statedProduct, known,
      stated != v.productName.lowercased()
    {
      inferred.append(
        "the dump names the product \(name), its GET_VERSION answer \(v.productName): the "
          + "GET_VERSION answer is used")
    }
    // Each product has a fixed page count (nfc-facts §4.3): a dump of another size is not of
    // the product GET_VERSION names (an edited file, a GET_VERSION taken from another tag, an
    // emulator image). Its lock and configuration pages are not read from that product's map.
    // A smaller dump of no product's size is a partial one (Proxmark3 `hf mfu dump` saves the
    // pages it could read, e.g. before a password-protected area): the product stands.
    let partial =
      identity.versionInfo?.product?.lastPage.map {
        d.pages.count < $0 + 1 && TagIdentity.productFromPageCount(d.pages.count) == nil
      } ?? false
    if partial, let v = identity.versionInfo, let last = v.product?.lastPage {
      inferred.append(
        "a partial dump: it holds \(d.pages.count) of the \(v.productName)'s \(last + 1) pages")
    } else if let v = identity.versionInfo, let last = v.product?.lastPage, !d.pages.isEmpty,
      d.pages.count != last + 1
    {
      identity.versionContradictsSize = true
      let bySize = TagIdentity.productFromPageCount(d.pages.count)
      identity.inferredProduct = bySize
      inferred.append(
        "the dump holds \(d.pages.count) pages, but its GET_VERSION answer names the "
          + "\(v.productName), which has \(last + 1): "
          + (bySize.map {
            "the dump's size is the \($0.displayName)'s, whose memory map is used"
          } ?? "no product has that size, so lock and configuration pages are not decoded"))
    } else if identity.versionInfo == nil, let p = namedProduct {
      identity.inferredProduct = p
    } else if identity.version == nil, !identity.isUltralightC,
      d.pages.count == TagIdentity.ultralightCPages
    {
      identity.dumpNamesUltralightC = true
      inferred.append(
        "product MIFARE Ultralight C inferred from the dump's size (48 pages, its memory map; no "
          + "other Type 2 product has 48): the dump holds no GET_VERSION answer")
    } else if identity.versionInfo == nil, !identity.isUltralightC,
      let p = TagIdentity.productFromPageCount(d.pages.count)
    {
      identity.inferredProduct = p
      inferred.append(
        "product \(p.displayName) inferred from the dump's size (\(d.pages.count) pages, its "
          + "memory map): the dump holds no GET_VERSION answer")
    }
    tag = identity
    operations = []
    var image = ByteImage()
    for (i, page) in d.pages.enumerated() where d.pageKnown.indices.contains(i) && d.pageKnown[i] {
      image.record(page, at: i * 4, state: .read, frame: -1)
    }
    memory = TagMemory()
    memory.type2Start = image
    memory.type2End = image
    // An ISO-DEP tag's dump (Flipper ISO14443-4A) holds no pages: nothing in Type 2 terms.
    layout = identity.isISODEP && d.pages.isEmpty ? .type4 : .type2
    end = TagContents(layout: layout, type2: image, files: [:], tag: identity)
    start = end
    ndefStatus = end.status
    counters = d.counters.enumerated().map { ($0.offset, $0.element) }
    passwordAuths = []
    warnings = d.notes.map(\.message) + inferred
  }

  static func layout(tag: TagIdentity, memory: TagMemory) -> Layout {
    if tag.technology == .nfcF || memory.type3End.count > 0 { return .type3 }
    if tag.technology == .nfcV || memory.type5End.count > 0 { return .type5 }
    if !memory.filesEnd.isEmpty || tag.hasNDEFApplication || tag.isISODEP { return .type4 }
    if memory.type2End.count > 0 || tag.isType2 { return .type2 }
    return .none
  }

  /// READ_CNT answers recorded as `counter_N` operation details.
  static func counters(_ ops: [Operation]) -> [(counter: Int, value: Int)] {
    var found: [Int: Int] = [:]
    for op in ops {
      for d in op.details where d.key.hasPrefix("counter_") {
        if let n = Int(d.key.dropFirst(8)), case .int(let v) = d.value { found[n] = v }
      }
    }
    return found.keys.sorted().compactMap { k in found[k].map { (k, $0) } }
  }

  static func passwordAuths(_ ops: [Operation]) -> [PasswordAuth] {
    ops.compactMap { op in
      guard op.kind == .authenticate, case .hex(let pwd)? = op.detail("password") else {
        return nil
      }
      var pack: [UInt8]?
      if case .hex(let p)? = op.detail("pack"), !p.isEmpty { pack = p }
      return PasswordAuth(password: pwd, pack: pack, frame: op.firstFrame, outcome: op.outcome)
    }
  }

  /// The session to report by default: the last one that touched the tag (an operation other
  /// than connect, or memory), else the last one; nil when there is none.
  public static func defaultSession(_ sessions: [SessionAnalysis]) -> SessionAnalysis? {
    var choice = DefaultSessionChoice()
    sessions.forEach { choice.offer($0) }
    return choice.session
  }

  /// `defaultSession` made as sessions stream by, keeping two of them at most.
  public struct DefaultSessionChoice: Sendable {
    private var lastTouched: SessionAnalysis?
    private var last: SessionAnalysis?

    /// No session offered yet.
    public init() {}

    /// Offers the next session, in trace order.
    public mutating func offer(_ s: SessionAnalysis) {
      if TagReport.touched(s) { lastTouched = s }
      last = s
    }

    /// The choice among the sessions offered so far.
    public var session: SessionAnalysis? { lastTouched ?? last }
  }

  /// True when session `s` ran an operation other than connect or read/wrote memory itself
  /// (memory carried from an earlier session on the same UID does not count).
  static func touched(_ s: SessionAnalysis) -> Bool {
    if s.operations.contains(where: { $0.kind != .connect }) { return true }
    let first = s.info.firstFrame
    func mine(_ image: ByteImage) -> Bool {
      image.frames.contains { Int($0) >= first }
    }
    return mine(s.memory.type2End) || s.memory.filesEnd.values.contains(where: mine)
      || mine(s.memory.type3End) || mine(s.memory.type5End)
  }
}
