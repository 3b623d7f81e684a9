import NDEF

/// The NDEF procedures of an NFC Forum Type 2 tag, as seen from the frames: which READ belongs
/// to `queryNDEFStatus` (the CC at page 3 and the TLV scan up to the NDEF TLV's length), which
/// to `readNDEF` (the message bytes), which WRITEs are `writeNDEF` (data area) or `writeLock`
/// (lock bytes of page 2, the CC access byte, the dynamic lock page), and what each did to the
/// tag's memory (NFC Forum T2T 1.0 §6; nfc-facts §4, §5).
struct Type2Procedure: Sendable {
  /// The status and capacity computed when the query completed.
  private(set) var status: (status: NDEFStatus, capacity: Int?, reason: String)?
  /// The first page a READ showed read-protected (its answer rolled over there, `read`):
  /// from page 4, the stack's TLV walk reads the rolled-over pages, not the data area.
  private var readProtectedFrom: Int?
  /// The command refused with NAK 1 (transmission error) or NAK 5 (EEPROM write error; NXP
  /// NTAG213/215/216 datasheet §9.3, nfc-facts §4.2) that made an operation fail, while no
  /// other refusal did: a reader's retry of the same command that succeeds recovers the
  /// operation (the page was programmed by the retry).
  /// `page`: set when the refused command arrived damaged in the capture (bad CRC) — its bytes
  /// as captured are not the ones sent, so the repeat is matched by command and page.
  /// `frames`: the NAKs of this command and its repeats (stacks retry up to 5 times).
  private var transmissionNAK: (summary: String, frames: [Int], page: (String, Int)?)?
  /// The first page of the last READ/FAST_READ the tag answered (a presence check repeats
  /// READ 0).
  private var lastReadPage: Int?
  /// The last page the last READ (4 pages) or FAST_READ (its range) answered.
  private var lastReadEnd: Int?
  /// True when the tag refused GET_VERSION: an original MIFARE Ultralight or Ultralight C.
  private(set) var getVersionRefused = false
  /// Frame of an AUTHENTICATE first-step answer whose second step has not come yet.
  private var authenticationStarted: Int?
  /// GET_VERSION went unanswered: the tag lacks it, as one that NAKs it.
  mutating func versionUnanswered() { getVersionRefused = true }
  /// Pages (numbered across sectors) the session wrote that no READ answer returned since: a
  /// read-back confirms a write in the memory image under the READ's frame, so the image
  /// alone cannot tell a byte read back before a readNDEF from one it never read.
  private var writtenUnread: Set<Int> = []

  /// Where an earlier session on the same UID found the NDEF TLV's length (byte address).
  var knownNDEFLengthAddress: Int?

  /// True once the NDEF TLV's T and L bytes are known (the TLV scan found it).
  func ndefTLVFound(_ memory: TagMemory) -> Bool { memory.type2Area?.ndef != nil }

  // MARK: Classification

  /// The operation a Type 2 command belongs to. `answered` tells whether the tag answered it
  /// (known from the pairing stage before the command reaches the analyzer).
  func classify(
    _ d: LayerDecode, current: OperationKind?, memory: TagMemory, tag: TagIdentity,
    answered: Bool
  ) -> OperationKind? {
    switch d.name {
    case "READ", "FAST_READ":
      return classifyRead(d, current: current, memory: memory, tag: tag)
    case "WRITE", "COMPATIBILITY_WRITE":
      if case .int(2)? = d.field("part") { return current }
      let kind = classifyWrite(d, tag: tag, memory: memory, current: current)
      // Data-area WRITEs after one that started a writeNDEF continue it, even when the trace
      // began too late to show the NDEF status.
      // (`current` first: `writesNDEF` may parse the TLV area.)
      guard kind == .writeNDEF, current != .writeNDEF, !writesNDEF(d, memory: memory) else {
        return kind
      }
      return .transceive
    case "PWD_AUTH": return .authenticate
    case "AUTHENTICATE":
      // Right after activation an unanswered Ultralight C AUTHENTICATE is the stack's
      // identification probe; an answered one is a real 3DES/AES authentication.
      return current == .connect && !answered ? .connect : .authenticate
    case "SECTOR_SELECT":
      // Switching sectors is a step of the NDEF procedure that spans them (NTAG I2C 2K).
      switch current {
      case .queryNDEFStatus?, .readNDEF?, .writeNDEF?: return current
      default: return .transceive
      }
    case "GET_VERSION", "READ_SIG":
      return current == nil || current == .connect ? .connect : .transceive
    default: return .transceive
    }
  }

  private func pages(_ d: LayerDecode) -> ClosedRange<Int>? {
    if let p = d.absolutePage { return p...(p + 3) }
    if d.inKeptSector, case .int(let s)? = d.field("start_page"),
      case .int(let e)? = d.field("end_page"), s <= e
    {
      return (s + d.sectorPages)...(e + d.sectorPages)
    }
    return nil
  }

  private func classifyRead(
    _ d: LayerDecode, current: OperationKind?, memory: TagMemory, tag: TagIdentity
  ) -> OperationKind {
    guard let range = pages(d) else { return .transceive }
    let queried = status != nil
    let ndef = status.map { $0.status != .notSupported } ?? false
    if !queried && range.contains(3) { return .queryNDEFStatus }
    // The CC read again outside a read (after writeLock, or a stack checking the status
    // again) is the query again, not a readNDEF of bytes it never covered.
    // READ 0 repeated (the last read was READ 0 too) is the stack's presence check (libnfc-nci
    // RW_T2tPresenceCheck reads block 0; nfcpy page 0), not a query each time; a READ 0 after
    // another read starts a detection.
    let presenceCheck = current == .transceive && range.lowerBound == 0 && lastReadPage == 0
    // A query that read the whole message (a FAST_READ of the whole memory): a read starting
    // over at the CC and reading the message again is the next call, a readNDEF, as a READ back
    // at the first page after the message was read is (`CallBoundary`).
    // (A READ of pages 0–3 holds no message byte: the TLV area is not parsed for it.)
    if ndef, current == .queryNDEFStatus, range.lowerBound <= 3, range.upperBound >= 4,
      Self.rereadsWholeMessage(range, memory: memory)
    {
      return .readNDEF
    }
    if queried, range.lowerBound <= 3, current != .readNDEF, !presenceCheck {
      return .queryNDEFStatus
    }
    // The read after the query's READ 0 (libnfc-nci reads page 0, then the data area for the
    // TLVs) is detection too, even when the TLVs are already known (the tag was just written).
    if current == .queryNDEFStatus && range.lowerBound >= 3
      && (!ndefTLVFound(memory) || lastReadPage == 0)
    {
      return .queryNDEFStatus
    }
    // makeReadOnly reads the block of the dynamic lock bytes before setting them
    // (libnfc-nci rw_t2t_ndef.cc, RW_T2tSetTagReadOnly): a step of the writeLock.
    if current == .writeLock, Self.readsLockBytes(range, memory: memory, tag: tag) {
      return .writeLock
    }
    if current == .queryNDEFStatus, Self.readsLockBytes(range, memory: memory, tag: tag) {
      // NDEF detection reads the dynamic lock bytes to tell readWrite from readOnly
      // (libnfc-nci rw_t2t_ndef.cc, rw_t2t_read_locks; T2T 1.0 §4.4).
      return .queryNDEFStatus
    }
    if let last = tag.lastPage, range.lowerBound > dataAreaLastPage(memory, tag: tag) ?? last {
      return .transceive  // configuration, lock or signature pages
    }
    // (A readNDEF keeps such reads anyway: the data area is parsed only for the other two.)
    if ndef, let kind = current, kind == .queryNDEFStatus || kind == .writeNDEF,
      Self.pastMessage(range, memory: memory, duringWrite: kind == .writeNDEF)
    {
      // Reads of the data area past a message already read whole are a step of the procedure
      // in progress, not a readNDEF: Android's write reads the blocks of the new message's
      // end and Terminator first (libnfc-nci rw_t2t_ndef.cc, RW_T2tWriteNDef), nfcpy reads
      // pages it has not cached in the middle of its write (tt2.py).
      return kind
    }
    // A readNDEF starts at the message: a read past the end of a message known whole (the
    // one just written or read) outside a readNDEF is the app's own (sendMiFareCommand). So
    // is one inside a readNDEF that jumps past it (not the page after the last read: a stack
    // reading on in order stays in its call).
    if ndef, Self.pastMessage(range, memory: memory, duringWrite: false),
      current != .readNDEF || lastReadEnd.map({ range.lowerBound > $0 + 1 }) == true
    {
      return .transceive
    }
    // Reads of the data area are readNDEF once the NDEF status is known; before that (no CC
    // read in this session) they are raw reads, e.g. an app's sendMiFareCommand.
    let inData =
      range.upperBound >= 4 && range.lowerBound <= (dataAreaLastPage(memory, tag: tag) ?? 255)
    return inData && (ndef || (!queried && ndefTLVFound(memory))) ? .readNDEF : .transceive
  }

  /// Whether `pages` hold dynamic lock bytes: where the Lock Control TLV puts them, the
  /// identified product's dynamic lock page, or T2T's default place (`defaultLockBytes`).
  private static func readsLockBytes(
    _ pages: ClosedRange<Int>, memory: TagMemory, tag: TagIdentity
  ) -> Bool {
    let bytes = (pages.lowerBound * 4)..<((pages.upperBound + 1) * 4)
    if let product = tag.ntagProduct, let lock = Type2Locks.dynamicLayout(product)?.page {
      return pages.contains(lock) || readsDefaultLockBytes(bytes, memory: memory)
    }
    let area = memory.type2Area
    if let area, area.reservedAreas.contains(where: \.isLock) {
      return area.reservedAreas.contains { $0.isLock && $0.bytes.overlaps(bytes) }
    }
    return defaultLockBytes(memory)?.overlaps(bytes) ?? false
  }

  /// Whether `bytes` overlap T2T's default dynamic lock bytes on a tag whose Lock Control TLV
  /// does not place them elsewhere. libnfc-nci locates the lock bytes from the TLVs or T2T's
  /// default layout, not from the product an app's GET_VERSION identified: its detection
  /// (rw_t2t_read_locks) and makeReadOnly (rw_t2t_ndef.cc, RW_T2tSetTagReadOnly) read them
  /// there even on an NTAG215/216, whose real lock page lies past that place (nfc-facts §5.2).
  /// The cheap CC check first: the data area is parsed only for a read reaching that place.
  private static func readsDefaultLockBytes(_ bytes: Range<Int>, memory: TagMemory) -> Bool {
    guard defaultLockBytes(memory)?.overlaps(bytes) == true else { return false }
    return !(memory.type2Area?.reservedAreas.contains(where: \.isLock) ?? false)
  }

  /// Where readers look for dynamic lock bits on a tag without a Lock Control TLV: right after
  /// a data area larger than 48 bytes, one bit per 8 bytes beyond the first 48 (T2T 1.0 §4.4;
  /// nfc-facts §5.2; libnfc-nci's detection reads them there, rw_t2t_read_locks). On NTAG215/216
  /// that is user memory (pages 80h / DEh), not their real lock page — still the stack's read.
  static func defaultLockBytes(_ memory: TagMemory) -> Range<Int>? {
    guard let cc = memory.type2NDEFCC, cc.dataAreaSize > 48 else { return nil }
    let bits = (cc.dataAreaSize - 48 + 7) / 8
    let start = 16 + cc.dataAreaSize
    return start..<(start + (bits + 7) / 8)
  }

  /// Whether `pages` reach the end of an NDEF message already known whole (NFC Forum T2T 1.0
  /// §2.3: the NDEF TLV's value ends at its length).
  private static func rereadsWholeMessage(_ pages: ClosedRange<Int>, memory: TagMemory) -> Bool {
    guard let area = memory.type2Area, let ndef = area.ndef, ndef.isComplete, ndef.length > 0,
      let end = area.ndefValueEndAddress
    else { return false }
    return (pages.upperBound + 1) * 4 >= end
  }

  /// Whether `pages` start past the end of an NDEF message whose every byte is known. During
  /// a write only while its length is still 0 (the length-last procedure under way): a READ
  /// after a write that set its length is the next call.
  private static func pastMessage(
    _ pages: ClosedRange<Int>, memory: TagMemory, duringWrite: Bool
  ) -> Bool {
    // A message's value starts at byte 18 at the earliest (page 4: T, L): reads from page 4
    // down never start past it, and the data area is not parsed for them.
    guard pages.lowerBound > 4, let area = memory.type2Area, let ndef = area.ndef, ndef.isComplete,
      !duringWrite || ndef.length == 0, let end = area.ndefValueEndAddress
    else { return false }
    return pages.lowerBound * 4 >= end
  }

  /// The data area's last page: as the CC declares it, else the identified product's last user
  /// page; nil when neither is known.
  private func dataAreaLastPage(_ memory: TagMemory, tag: TagIdentity) -> Int? {
    if let end = memory.type2DataAreaEndPage { return end - 1 }
    return tag.ntagProduct?.userMemoryBytes.map { 3 + $0 / 4 }
  }

  /// A data-area WRITE is writeNDEF when the session knows the tag holds NDEF (its status is
  /// readWrite/readOnly) and the write starts where one can (`canStartNDEFWrite`), or it
  /// starts the TLV area (page 4) or the NDEF TLV's length where the tag's memory (read now, or
  /// by an earlier session on the same UID: a stack that detected NDEF, reconnected, then
  /// wrote) places it; otherwise it is a raw write.
  private func writesNDEF(_ d: LayerDecode, memory: TagMemory) -> Bool {
    if Self.writesRawDataArea(d, memory: memory) { return false }
    if let status, status.status != .notSupported {
      return d.absolutePage.map { Self.canStartNDEFWrite($0, memory: memory) } ?? true
    }
    guard let page = d.absolutePage else { return false }
    if page == 4 { return true }
    // Nothing known of the tag (a capture that starts mid-session): page 5 is where a
    // data-first write starts, the page after the NDEF TLV's T and L at page 4.
    if status == nil, memory.type2Area == nil, knownNDEFLengthAddress == nil, page == 5 {
      return true
    }
    guard let address = memory.type2Area?.ndefLengthAddress ?? knownNDEFLengthAddress else {
      return false
    }
    return page == address / 4 || page == (address - 1) / 4
  }

  /// Whether WRITE `d` fills the data area with bytes that are no TLVs: a WRITE of page 4
  /// whose first byte is no TLV type, or a later page once the session wrote such a byte at
  /// page 4 (an amiibo writer's encrypted pages, `a5 00 …`). writeNDEF lays the data area out
  /// as TLVs from page 4 (NFC Forum T2T 1.0 §2.3: 00, 01, 02, 03, FD, FE), so these are the
  /// app's own page writes (sendMiFareCommand). A byte only read there says nothing: a
  /// data-first writer leaves page 4 to the end.
  private static func writesRawDataArea(_ d: LayerDecode, memory: TagMemory) -> Bool {
    guard let page = d.absolutePage, page >= 4 else { return false }
    let first: UInt8?
    if page == 4, case .hex(let data)? = d.field("data") {
      first = data.first
    } else if memory.type2End.state(16) == .written {
      first = memory.type2End.known(16, 1)?.first
    } else {
      first = nil
    }
    guard let first else { return false }
    return !tlvTypes.contains(first)
  }

  /// Whether a write starting at `page` can begin an NDEF write on a tag whose NDEF TLV the
  /// session read: an NDEF write starts with the page of the TLV's length (length first, NFC
  /// Forum T2T 1.0 §6.4.3; libnfc-nci rw_t2t_ndef.cc writes the first NDEF block first,
  /// nfc-facts §5.5), with the page right after it (a data-first writer: the message's pages,
  /// then the length's page last), or lays the TLV area out anew from page 4 (a Lock or Memory
  /// Control TLV before the NDEF TLV). A first WRITE further on is the app's own command
  /// (sendMiFareCommand), as a read past a message known whole is. True while the TLV's place
  /// is not known, and while its length is 0 over message bytes: a length-first write under
  /// way, which a stack resumes at the page it stopped at (after a NAK 1 and a re-activation).
  private static func canStartNDEFWrite(_ page: Int, memory: TagMemory) -> Bool {
    // The NDEF TLV's length ends at byte 17 or later: pages 4–5 can always start the write
    // (checked before the TLV area is parsed).
    if page <= 5 { return true }
    guard let area = memory.type2Area, let ndef = area.ndef,
      let lengthEnd = area.ndefLengthAddresses?.last
    else { return true }
    let value = memory.type2End.known(area.baseAddress + ndef.valueOffset, 1)
    if ndef.length == 0, value != [0xFE] { return true }
    return page <= lengthEnd / 4 + 1
  }

  /// Whether WRITE `d` starts past the page of the NDEF message's end (where its Terminator
  /// goes, NFC Forum T2T 1.0 §2.3): no step of writing that message (libnfc-nci writes the
  /// Terminator after the final length) touches it.
  func writesPastMessage(_ d: LayerDecode, memory: TagMemory) -> Bool {
    guard let page = d.absolutePage, let end = memory.type2Area?.ndefValueEndAddress else {
      return false
    }
    // A Terminator (FEh) on the first page after the message's last one: a writer that pads
    // the message to whole pages puts it there.
    if page == (end + 3) / 4, case .hex(let data)? = d.field("data"), data.first == 0xFE {
      return false
    }
    return page * 4 > end
  }

  private func classifyWrite(
    _ d: LayerDecode, tag: TagIdentity, memory: TagMemory, current: OperationKind?
  ) -> OperationKind {
    guard let page = d.absolutePage else { return .transceive }
    let data: [UInt8]
    if case .hex(let b)? = d.field("data") { data = b } else { data = [] }
    // Pages 0–1 hold the UID (read-only, NTAG213/215/216 datasheet §8.5.1): no NDEF procedure
    // writes them (the TLV area starts at page 4), only an app's own command.
    if page < 2 { return .transceive }
    // Lock bytes (page 2, the dynamic lock page, a Lock Control TLV's) and the CC: writeLock
    // only when the WRITE sets a lock bit or makes the CC read-only (`lockPageKind`).
    if let kind = Self.lockPageKind(data, page: page, tag: tag, memory: memory, current: current) {
      return kind
    }
    if let product = tag.ntagProduct, let user = product.userMemoryBytes {
      // Products without a dynamic lock page (NTAG210, MF0UL11) have CFG0 right after the user
      // memory (nfc-facts §4.3): only a real dynamic lock page is a lock page (above).
      // Inside a lock sequence, bits set where T2T's default layout puts the dynamic lock bytes
      // (a generic writer, nfcpy's): the writer means to lock, even where that is user memory
      // (NTAG215/216; `t2t-lock-misplaced` says so).
      if current == .writeLock, let locks = Self.defaultLockBytes(memory),
        locks.overlaps((page * 4)..<(page * 4 + 4)), data.contains(where: { $0 != 0 })
      {
        return .writeLock
      }
      // Past the user memory: configuration pages, or no page at all (the tag NAKs it).
      if page >= 4 + user / 4 { return .transceive }
    } else if tag.isUltralightC, page >= 0x28 {
      // 28h: lock bytes 2–3 (above); 29h: counter; 2Ah/2Bh: AUTH0/AUTH1; 2Ch–2Fh: the 3DES key.
      return .transceive
    }
    // Past the data area the CC declares no NDEF procedure writes: the default dynamic lock
    // bytes right after it (no Lock Control TLV; libnfc-nci's makeReadOnly) lock, anything
    // else (configuration pages: AUTH0, ACCESS, PWD, PACK) is the app's own command.
    // (Unidentified tags only: an identified product's lock page is known above, and its user
    // memory past the CC's area stays writeNDEF's.)
    if tag.ntagProduct == nil, !tag.isUltralightC, let end = memory.type2DataAreaEndPage,
      page >= end
    {
      let bytes = (page * 4)..<(page * 4 + 4)
      let declared = memory.type2Area?.reservedAreas.contains(where: \.isLock) ?? false
      guard !declared, let locks = Self.defaultLockBytes(memory), locks.overlaps(bytes) else {
        return .transceive
      }
      // Lock bits set: writeLock. None set (`00 00`): no lock; inside a write, a step of it.
      let setsBits = zip(bytes, data).contains { locks.contains($0) && $1 != 0 }
      return setsBits ? .writeLock : current == .writeNDEF ? .writeNDEF : .transceive
    }
    return .writeNDEF
  }

  // MARK: Answers

  mutating func answer(
    _ x: Exchange, op: inout Operation, memory: inout TagMemory, tag: TagIdentity
  ) {
    guard let answer = x.answer, let response = x.response else { return }
    let frame = response.frame.index
    switch answer.name {
    case "AUTHENTICATE response":
      authenticationStarted = answer.field("part") == .int(1) ? frame : nil
    case "READ response", "FAST_READ response":
      lastReadPage = x.command?.absoluteStartPage
      lastReadEnd = x.command.flatMap { pages($0)?.upperBound }
      // A sniffed answer whose CRC fails may carry damaged bytes: it does not overwrite what
      // intact frames showed (the reader retries, or the bytes stay unknown).
      if response.frame.crc != .bad, x.command?.inKeptSector ?? true {
        let protectedFrom = read(
          answer, sectorPages: x.command?.sectorPages ?? 0, frame: frame, memory: &memory, tag: tag)
        if let protectedFrom {
          op.set("read_protected_from", .int(protectedFrom))
          readProtectedFrom = protectedFrom
        } else if let start = x.command?.absoluteStartPage, start + 3 >= 4 {
          // Pages from 4 on read without a roll-over: not (or no longer, after PWD_AUTH)
          // read-protected.
          readProtectedFrom = nil
        }
      }
      recoverRetry(x, op: &op)
    case "ACK":
      write(x.command, acknowledged: true, frame: frame, op: &op, memory: &memory, tag: tag)
      recoverRetry(x, op: &op)
    case "NAK" where x.command?.name == "GET_VERSION" && op.kind == .connect:
      // Stacks probe the product with GET_VERSION; MIFARE Ultralight, Ultralight C and NTAG203
      // do not support it and NAK (nfc-facts §4.6): an identification answer, not a failure.
      getVersionRefused = true
      op.set("get_version", .string("refused: MIFARE Ultralight, Ultralight C or NTAG203"))
    case "NAK" where x.command?.name == "READ_SIG" && op.kind == .connect:
      // The same kind of probe: READ_SIG (NTAG21x, Ultralight EV1 originality signature)
      // refused by a tag without it (another maker's, an original Ultralight, a clone).
      op.set("read_sig", .string("refused: the tag has no originality signature"))
    case "NAK":
      let what = x.command?.summary ?? "command"
      // A refusal a retry made up for earlier in the call leaves it ok: this one is first again.
      let firstRefusal = op.outcome == .ok
      let retriable: Bool
      if case .int(let code)? = answer.field("nak_code") {
        retriable = Type2Layer.isRetriableNAK(code)
      } else {
        // A failure the reader reported without the tag's code (PC/SC 63 00, `ReaderFailure`):
        // it may have been no answer at all, so a repeat answered makes up for it.
        retriable = true
      }
      // A repeat of the command a NAK 1/5 refused, refused again: the stack's retries ended
      // here, so this last refusal is what the app's call failed with.
      let refusedRetry =
        transmissionNAK.map { op.failedLastBy($0.frames) && Self.repeats(x.command, $0) }
        ?? false
      if retriable, refusedRetry, let nak = transmissionNAK,
        nak.frames.count < CallBoundary.maxRetries
      {
        transmissionNAK?.frames.append(frame)  // refused again: the stack retries once more
      } else if retriable, firstRefusal {
        let damaged = x.request?.frame.crc == .bad
        transmissionNAK = (
          what, [frame],
          damaged ? x.command.flatMap { c in c.absolutePage.map { (c.name, $0) } } : nil
        )
      } else {
        transmissionNAK = nil
      }
      // The details describe the refusal that gives the reason: the first one, or the last
      // of a command's retries.
      let givesReason = op.outcome == .ok || refusedRetry
      let why = "\(answer.summary) on \(what)"
      op.fail(why, frame: frame)
      if refusedRetry {
        op.reason = why
        op.reasonFrame = frame
      }
      // NAK 5 (EEPROM write error): programming started and failed, so the page is uncertain;
      // so it is after a non-standard 4-bit code (a damaged ACK or NAK, nfc-facts §4.2). NAK
      // 0, 1 and 4 refuse the command before any programming.
      if case .int(let code)? = answer.field("nak_code"), Type2Layer.writeMayHaveLanded(nak: code),
        let c = x.command,
        let p = c.absolutePage, case .hex(let data)? = c.field("data")
      {
        Self.record(data, page: p, acknowledged: false, frame: frame, memory: &memory)
        writtenUnread.insert(p)
      }
      if givesReason {
        op.details.removeAll { $0.key == "nak_page" || $0.key == "nak_code" }
        if let p = x.command?.absolutePage { op.set("nak_page", .int(p)) }
        if case .int(let c)? = answer.field("nak_code") { op.set("nak_code", .int(c)) }
      }
    case "PACK":
      op.set("pack", answer.field("pack") ?? .hex([]))
      recoverRetry(x, op: &op)
    case "READ_CNT response":
      // Kept per counter so the report can show the counters the session read.
      if case .int(let n)? = answer.field("counter"), let v = answer.field("counter_value") {
        op.set("counter_\(n)", v)
      }
      recoverRetry(x, op: &op)
    default:
      // Any other answer (GET_VERSION, READ_SIG…) to the repeat of a command NAK 1 refused.
      recoverRetry(x, op: &op)
    }
    if x.command?.name == "PWD_AUTH", let pwd = x.command?.field("password") {
      op.set("password", pwd)
    }
    if op.kind == .queryNDEFStatus { updateStatus(memory: memory) }
  }

  /// A command refused with NAK 1 or NAK 5 and then sent again and answered (ACK or data):
  /// the tag received the repeat intact and carried it out, so the operation did not fail
  /// (the retry stays visible in `failedFrames` for the diagnosis).
  private mutating func recoverRetry(_ x: Exchange, op: inout Operation) {
    guard let nak = transmissionNAK, op.failedLastBy(nak.frames),
      Self.repeats(x.command, nak)
    else { return }
    transmissionNAK = nil
    op.recover(dropping: ["nak_page", "nak_code"])
  }

  /// Whether `c` repeats the refused command: the same command, or for one captured damaged
  /// the same command name and page.
  private static func repeats(
    _ c: LayerDecode?, _ nak: (summary: String, frames: [Int], page: (String, Int)?)
  ) -> Bool {
    c?.summary == nak.summary
      || (nak.page.map { $0.0 == c?.name && $0.1 == c?.absolutePage } ?? false)
  }

  /// A WRITE that got no answer may or may not have reached the EEPROM.
  mutating func unanswered(_ f: DecodedFrame, memory: inout TagMemory) {
    guard let d = f.innermost, d.name == "WRITE" || d.name == "COMPATIBILITY_WRITE" else { return }
    guard let page = d.absolutePage, case .hex(let data)? = d.field("data") else { return }
    Self.record(data, page: page, acknowledged: false, frame: f.frame.index, memory: &memory)
    writtenUnread.insert(page)
  }

  /// Records a WRITE of `data` (its first 4 bytes) to `page` as `stored` says it leaves the
  /// page: one-time-programmable bytes OR'ed, unknown bytes left alone.
  static func record(
    _ data: [UInt8], page: Int, acknowledged: Bool, frame: Int, memory: inout TagMemory,
    dynamicLockPage: Int? = nil
  ) {
    // Ordinary pages (every WRITE of a message) are written as they are, in one piece.
    guard page == 2 || page == 3 || page == dynamicLockPage else {
      memory.type2Write(
        Array(data.prefix(4)), at: page * 4, acknowledged: acknowledged, frame: frame)
      return
    }
    let stored = stored(
      Array(data.prefix(4)), page: page, memory: memory, dynamicLockPage: dynamicLockPage)
    for (i, b) in stored.enumerated() {
      guard let b else { continue }
      memory.type2Write([b], at: page * 4 + i, acknowledged: acknowledged, frame: frame)
    }
  }

  /// Records a READ/FAST_READ answer `a` to a command in the NTAG I2C sector starting at page
  /// `sectorPages` (0 for sector 0 and tags without sectors). Returns the first read-protected
  /// page (AUTH0) when the answer rolled over to page 0 there.
  private mutating func read(
    _ a: LayerDecode, sectorPages: Int, frame: Int, memory: inout TagMemory, tag: TagIdentity
  ) -> Int? {
    guard case .hex(let data)? = a.field("data") else { return nil }
    guard let first = a.startPage else { return nil }
    var protectedFrom: Int?
    // READ wraps to page 0 past the last page (nfc-facts §4.1): split the answer there.
    var last =
      sectorPages == 0 ? (tag.lastReadablePage ?? ultralightLastPage(memory) ?? Int.max) : Int.max
    if sectorPages == 0, a.name == "READ response",
      let k = Self.wrapAtProtection(data, uid: tag.uid), first + k <= last
    {
      last = first + k - 1
      // On a tag of unknown size, a roll-over where a Type 2 product's memory ends is that end.
      if tag.lastReadablePage != nil || !Self.memoryEnds.contains(first + k) {
        protectedFrom = first + k
      }
    }
    // PWD and PACK read as zeros whatever they hold.
    let config = tag.ntagProduct.flatMap(Type2Configuration.init(product:))
    let writeOnly =
      sectorPages == 0 ? config.map { $0.pwdPage * 4..<($0.packPage + 1) * 4 } ?? 0..<0 : 0..<0
    for (i, chunk) in stride(from: 0, to: data.count, by: 4).enumerated() {
      let page = first + i
      let target = sectorPages + (page > last ? page - last - 1 : page)
      if !writtenUnread.isEmpty { writtenUnread.remove(target) }
      memory.type2Read(
        Array(data[chunk..<min(chunk + 4, data.count)]), at: target * 4, frame: frame,
        writeOnly: writeOnly)
    }
    return protectedFrom
  }

  /// Page counts where a Type 2 product's readable memory ends, so a READ rolls over to page 0
  /// there without any protection (nfc-facts §4.1, §4.3): MIFARE Ultralight 16, Ultralight
  /// EV1 MF0UL11 / NTAG210 20, MF0UL21 / NTAG212 41, Ultralight C 44 (its key pages cannot
  /// be read), NTAG213 45, NTAG215 135, NTAG216 231.
  static let memoryEnds: Set<Int> = [16, 20, 41, 44, 45, 135, 231]

  /// Under read protection (PROT set) a READ of an unauthenticated reader rolls over to page 0
  /// at AUTH0 instead of the last page (NXP NTAG213/215/216 datasheet §10.2, nfc-facts §4.1):
  /// the answer's pages k… are then pages 0… The rolled-over part shows as the UID's pages
  /// (page 0 = UID0–2 + BCC0, page 1 = UID3–6, ISO/IEC 14443-3 §6.5.4). The offset k (1–3)
  /// where they start, or nil.
  static func wrapAtProtection(_ data: [UInt8], uid: [UInt8]) -> Int? {
    guard uid.count == 7, data.count == 16 else { return nil }
    let page0 = Array(uid[0..<3]) + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]]
    let head = page0 + Array(uid[3..<7])
    for k in 1...3 {
      let n = min(data.count - 4 * k, head.count)
      if data[(4 * k)..<(4 * k + n)].elementsEqual(head.prefix(n)) { return k }
    }
    return nil
  }

  /// The last page of a tag that refused GET_VERSION when the CC's data area size tells:
  /// 48 bytes → MIFARE Ultralight (pages 0–15) (nfc-facts §4.3); nil otherwise.
  private func ultralightLastPage(_ memory: TagMemory) -> Int? {
    guard getVersionRefused, let cc = memory.type2End.known(12, 4) else { return nil }
    // CC2 12 (144 bytes) is an Ultralight C or an NTAG203, whose last pages differ.
    return cc[2] == 0x06 ? 15 : nil
  }

  private mutating func write(
    _ command: LayerDecode?, acknowledged: Bool, frame: Int, op: inout Operation,
    memory: inout TagMemory, tag: TagIdentity
  ) {
    guard let c = command, let page = c.absolutePage else { return }
    guard case .hex(let data)? = c.field("data") else { return }  // COMPATIBILITY_WRITE part 1
    Self.record(
      data, page: page, acknowledged: acknowledged, frame: frame, memory: &memory,
      dynamicLockPage: page >= 16 ? dynamicLockPage(tag, memory: memory) : nil)
    op.acknowledgedPages.append(page)
    writtenUnread.insert(page)
    // The app's own WRITE of page 4 with no TLV there (`writesRawDataArea`): it may have
    // destroyed the tag's NDEF, so `diagnose` judges it as a write.
    // Only on a tag that was NDEF as the session found it (its CC's magic E1h): elsewhere
    // page 4 is the app's own data.
    if acknowledged, page == 4, op.kind == .transceive, let t = data.first,
      !Self.tlvTypes.contains(t),
      (memory.type2Start.known(12, 1) ?? memory.type2End.known(12, 1)) == [0xE1]
    {
      op.set("ndef_area_overwritten", .int(frame))
    }
  }

  /// The TLV types of NFC Forum T2T 1.0 §2.3: NULL, Lock Control, Memory Control, NDEF
  /// Message, proprietary, Terminator.
  static let tlvTypes: Set<UInt8> = [0x00, 0x01, 0x02, 0x03, 0xFD, 0xFE]

  /// What a WRITE leaves in the page, nil where it is not known: lock bytes (page 2 bytes 2–3)
  /// and the CC (page 3) are one-time programmable — written bits are OR'ed into what is there,
  /// and page 2 bytes 0–1 (BCC1, internal) cannot be changed (NXP NTAG213/215/216 datasheet
  /// §8.5.2, §8.5.3, §8.5.6). Where the old value is unknown, a written 00 leaves the byte
  /// unknown, another value is kept (the bits it sets are set; the old value of the others is
  /// usually 0), and BCC1 and the internal byte stay unknown. The dynamic lock page
  /// (`dynamicLockPage`, its 3 lock bytes are one-time programmable too, byte 3 is RFU; datasheet
  /// §8.5.3) is OR'ed the same way.
  static func stored(_ data: [UInt8], page: Int, memory: TagMemory, dynamicLockPage: Int? = nil)
    -> [UInt8?]
  {
    let lockPage = page == dynamicLockPage
    guard page == 2 || page == 3 || lockPage, data.count == 4 else { return data }
    let otp: [Bool] =
      page == 2
      ? [false, false, true, true]
      : lockPage ? [true, true, true, false] : [true, true, true, true]
    let frozen = page == 2 ? frozenLockBits(memory) : [0, 0, 0, 0]
    return (0..<4).map { i in
      let old = memory.type2End.known(page * 4 + i, 1)?.first
      guard otp[i] else { return old }  // cannot be written: what was there stays
      let written = data[i] & ~frozen[i]
      guard let old else { return written == 0 ? nil : written }
      return old | written
    }
  }

  /// The bits of page 2 a WRITE cannot set because a static block-lock bit already set in
  /// LOCK0 freezes them (nfc-facts §4.4; NXP NTAG213/215/216 datasheet §8.5.2): BL-CC (01h)
  /// freezes the CC's lock bit (LOCK0 08h), BL 9–4 (02h) the lock bits of pages 4–9 (LOCK0
  /// F0h, LOCK1 03h), BL 15–10 (04h) those of pages 10–15 (LOCK1 FCh). Block-lock bits the
  /// same WRITE sets freeze only later writes. Per byte of the page; none when LOCK0 is unknown.
  static func frozenLockBits(_ memory: TagMemory) -> [UInt8] {
    guard let lock0 = memory.type2End.known(10, 1)?.first else { return [0, 0, 0, 0] }
    let bits = Type2Locks.BlockLock.frozenPages(lock0: lock0).reduce(0) { $0 | 1 << $1 }
    return [0, 0, UInt8(bits & 0xFF), UInt8(bits >> 8)]
  }

  /// The dynamic lock page of an identified product; page 28h of an Ultralight C, whose
  /// bytes 0–1 are its one-time-programmable LOCK2/LOCK3 (MF0ICU2 datasheet §7.5.2).
  private func dynamicLockPage(_ tag: TagIdentity, memory: TagMemory) -> Int? {
    if let product = tag.ntagProduct { return Type2Locks.dynamicLayout(product)?.page }
    if tag.isUltralightC { return 0x28 }
    // Unidentified NXP tag (no GET_VERSION, as Android sends none): where a Lock Control TLV
    // puts the lock bytes, when they start a page (the factory NTAG21x TLV names the lock
    // page, whose byte 3 is RFUI). Another maker's page layout is its own.
    guard tag.uid.count >= 7, !tag.isOtherMakersUID,
      let area = Type2Locks.declaredArea(in: memory.type2End), area.address % 4 == 0
    else {
      return nil
    }
    return area.address / 4
  }

  // MARK: Settling

  private mutating func updateStatus(memory: TagMemory) {
    guard let cc = memory.type2End.known(12, 4).flatMap(Type2CapabilityContainer.init) else {
      return
    }
    // One copy of the known data area serves the TLV walk and its length.
    let run = memory.type2End.knownRun(from: 16)
    // The READ of the CC rolled over at page 4: the data area is read-protected (AUTH0 4 and
    // PROT, NTAG213/215/216 datasheet §8.8), and NDEF detection finds no NDEF TLV.
    if run.isEmpty, readProtectedFrom == 4, cc.hasMagic {
      status = (
        .notSupported, nil,
        "the data area is read-protected (the READ rolled over at page 4: AUTH0 and PROT): "
          + "NDEF detection finds no NDEF TLV"
      )
      return
    }
    let area = run.isEmpty ? nil : Type2TLVArea(layoutOf: run, baseAddress: 16)
    status = cc.ndefStatus(area: area, knownBytes: run.count)
  }

  /// An Ultralight C / AES AUTHENTICATE whose first step the tag answered (`AF` + ek(RndB))
  /// but whose second step (`AF` + ek(RndA ‖ RndB')) never came did not authenticate (NXP
  /// MF0ICU2 datasheet §9.5). The command the app sent was answered, so the operation is not a
  /// failure, nor a success: outcome `unknown` (as a MIFARE Classic authentication abandoned
  /// after the tag's nonce), detail `authentication` saying the tag is not authenticated (a
  /// stack telling an Ultralight C apart stops after the first step).
  mutating func settleAuthenticate(_ op: inout Operation) {
    guard authenticationStarted != nil else { return }
    authenticationStarted = nil
    // A second step refused or unanswered failed or interrupted the operation: that says it.
    guard op.outcome == .ok else { return }
    op.outcome = .unknown
    op.reason =
      "the reader never sent the second step (AF + ek(RndA ‖ RndB')): the tag is not "
      + "authenticated, and whether the key is right is not known"
    op.set(
      "authentication",
      .string(
        "first step only: the tag answered with ek(RndB), the reader never sent the second step, "
          + "so the tag is not authenticated"))
  }

  mutating func settleQuery(_ op: inout Operation, memory: TagMemory) {
    updateStatus(memory: memory)
    guard let status, op.outcome == .ok || op.outcome == .unknown else { return }
    op.set("status", .string(status.status.rawValue))
    if let c = status.capacity { op.set("capacity", .int(c)) }
    op.set("rule", .string(status.reason))
    if let tlv = memory.type2Area?.ndef {
      op.set("ndef_tlv_address", .int(16 + tlv.offset))
      op.set("ndef_length", .int(tlv.length))
    } else if status.capacity != nil {
      // Counted from byte 16: TLVs before the NDEF TLV (a Lock Control TLV) make it smaller.
      op.set("capacity_upper_bound", .bool(true))
    }
  }

  func settleRead(_ op: inout Operation, memory: TagMemory) {
    // The TLV area is parsed once here (each `area` call parses it again).
    guard let area = memory.type2Area, let tlv = area.ndef else { return }
    let complete = tlv.isComplete
    op.set("ndef_length", .int(tlv.length))
    if tlv.length == 0 { return op.failEmptyRead(lengthField: "The NDEF TLV's length") }
    // Message bytes the session wrote and no read has returned since: the image knows them
    // from the write, but the read stopped before them.
    let end = area.baseAddress + tlv.valueOffset + tlv.length
    let unread =
      !writtenUnread.isEmpty
      && (area.baseAddress + tlv.offset..<end).contains { writtenUnread.contains($0 / 4) }
    if op.outcome == .ok && (!complete || unread) {
      op.outcome = .unknown
      op.reason = "reads stopped before the end of the \(tlv.length)-byte message"
    }
    // What the app got: not the bytes the image knows from the write when the read stopped.
    if complete && !unread { op.set("message", .hex(tlv.value)) }
  }
}

extension LayerDecode {
  /// The first page a Type 2 READ, FAST_READ or WRITE (or the answer to one) addresses: its
  /// `page`, else its `start_page`.
  var startPage: Int? {
    if case .int(let p)? = field("page") { return p }
    if case .int(let p)? = field("start_page") { return p }
    return nil
  }

  /// The pages before the NTAG I2C sector a Type 2 command addresses (its `sector` × 256:
  /// sectors of 256 pages, 1 KiB each, NXP NTAG I2C plus datasheet §8.3), 0 for sector 0 and
  /// tags without sectors. Session memory numbers pages across sectors, so the NDEF data area
  /// of a 2K tag continues from sector 0 into sector 1.
  var sectorPages: Int {
    if case .int(let s)? = field("sector") { return s * 256 }
    return 0
  }

  /// Whether the command addresses a sector the session memory keeps: NTAG I2C has sectors
  /// 0–3 (3: session registers); a higher sector byte is refused by the tag (NAK), and
  /// keeping it would make one memory image per session of up to 64 KiB.
  var inKeptSector: Bool { keptSectorPages != nil }

  /// The `page` of a Type 2 command numbered across sectors (`sectorPages` + page); nil
  /// outside the sectors kept (`inKeptSector`).
  var absolutePage: Int? {
    guard let base = keptSectorPages, case .int(let p)? = field("page") else { return nil }
    return base + p
  }

  /// `startPage` numbered across sectors (nil outside the sectors kept).
  var absoluteStartPage: Int? {
    guard let base = keptSectorPages else { return nil }
    return startPage.map { base + $0 }
  }

  /// `sectorPages` when `inKeptSector`, else nil: one look-up of the sector field (the pages
  /// of every Type 2 command and answer are numbered this way).
  private var keptSectorPages: Int? {
    guard case .int(let s)? = field("sector") else { return 0 }
    return (0...3).contains(s) ? s * 256 : nil
  }

  /// The offset of a Type 4 READ/UPDATE BINARY (P1P2), nil for other decodes.
  var binaryOffset: Int? {
    if case .int(let o)? = field("offset") { return o }
    return nil
  }
}
