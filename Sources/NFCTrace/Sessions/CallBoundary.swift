import NDEF

/// Where one Core NFC call ends and the next of the same kind begins when an app calls
/// `readNDEF` or `writeNDEF` twice in a row: no frame marks the boundary, so it is read from
/// the procedure starting over.
///
/// - Type 2 `readNDEF`: once the call has read the whole message, a READ (or FAST_READ) that
///   starts at or before the call's first page is the next call.
/// - Type 2 `writeNDEF`: WRITEs go up the data area; the one step back a call takes is the
///   length-last stack's final WRITE of the NDEF TLV's length, after it cleared it (`03 00`
///   first, NFC Forum T2T 1.0 §6.4.2) or after it wrote the pages past it (data first).
///   Any other step back (to the same or a lower page) is the next call.
/// - Type 4 `readNDEF`: after the NDEF data was read, a READ BINARY at offset 0 (NLEN), or at
///   or before the call's first offset (stacks that keep NLEN from the query), is the next
///   call.
/// - Type 4 `writeNDEF`: after an UPDATE BINARY at offset 0 set a non-zero NLEN (the last step
///   of T4T 2.0 §5.4.6, or the only one of a length-first stack), another UPDATE at offset 0
///   is the next call.
///
/// The repeat of a command that got no answer, a damaged answer (CRC failed), a NAK 1
/// (transmission error) or a NAK 5 (EEPROM write error) is a retry of the same call, up to 5
/// times; after any other refusal the same command again is the app's next call.
struct CallBoundary: Sendable {
  private var firstReadPage: Int?
  /// Type 4: the offset of the call's first READ BINARY.
  private var firstReadOffset: Int?
  private var dataRead = false
  private var lastWritePage: Int?
  /// The page of the call's last Type 2 WRITE.
  var lastWrittenPage: Int? { lastWritePage }
  private var firstWritePage: Int?
  /// A WRITE of the call, before any step back, set the length to 0 (usually the first one;
  /// a later one when reserved bytes put the length on a later page).
  private var firstWriteClearedLength = false
  /// The NDEF TLV length field's address at the call's first WRITE.
  private var lengthAt: Int?
  /// The pages of the call's WRITEs that stepped back (to the same or a lower page).
  private var stepBackPages: [Int] = []
  private var steppedBack: Bool { !stepBackPages.isEmpty }
  /// The step back set the NDEF TLV's length to a non-zero value: the length-last write's
  /// final WRITE, after which the call has nothing left to write.
  private var finalLengthWritten = false
  /// Type 2: the call wrote its final length (see `finalLengthWritten`).
  var type2WriteFinished: Bool { finalLengthWritten }
  private var lengthSet = false
  /// True while the last command is unanswered or was refused with NAK 1 (transmission error)
  /// or NAK 5 (EEPROM write error) (nfc-facts §4.2): stacks send such a command again, so
  /// the same command next is a retry. Any other refusal is final, and the same command again
  /// is the app's next call.
  private var lastRetryable = false
  /// The last command: a retry repeats it exactly.
  private var last: LayerDecode?
  /// Whether the last command reached the capture damaged (bad CRC): its bytes as captured
  /// are not the ones sent, so a repeat is matched by command name and page instead.
  private var lastDamaged = false
  /// How many times in a row the last command was sent again. Stacks retry a failed
  /// transmission a few times (Android libnfc-nci: up to 5, `RW_MAX_RETRIES`); more copies
  /// than that are the app's next call.
  private var retries = 0
  static let maxRetries = 5
  /// Longest gap between a command and its retry: stacks resend after their timeout, at most
  /// a frame waiting time (FWT ≤ 4.9 s with FWI 14, usually milliseconds); 1 s.
  static let retryWindowNs: Int64 = 1_000_000_000
  private var lastTimeNs: Int64 = 0

  /// The call read NDEF data (a Type 2 READ answer or a Type 4 READ of the NDEF file).
  var type4DataRead: Bool { dataRead }
  /// Type 4: the call set a non-zero NLEN (a write's last step).
  var type4LengthSet: Bool { lengthSet }

  /// Forgets the call (a new operation started).
  mutating func reset() { self = CallBoundary() }

  /// Whether command `d`, classified as `kind` while an operation of the same kind is open,
  /// starts the next call. `nlenSize`: the Type 4 NLEN field size (2, or 4 for ENLEN).
  func startsNewCall(
    _ kind: OperationKind, _ d: LayerDecode, at timeNs: Int64, memory: TagMemory, nlenSize: Int
  ) -> Bool {
    if isRetry(d, at: timeNs) { return false }
    switch (kind, d.protocolID) {
    case (.readNDEF, .type2):
      guard dataRead, let first = firstReadPage, let page = d.absoluteStartPage, page <= first
      else { return false }
      // Stacks re-read the first page while detecting (hf_14a_mfu-sim: READ 4 three times,
      // then the rest): only a call that has the whole message is over.
      return memory.type2Area?.ndef?.isComplete ?? false
    case (.writeNDEF, .type2):
      // Only a WRITE steps back: a READ in a write is one of its steps (Android reads the
      // pages of the new message's end first; a reader checks what it wrote).
      guard d.name == "WRITE" || d.name == "COMPATIBILITY_WRITE", let last = lastWritePage,
        let page = d.absolutePage, page <= last
      else {
        return false
      }
      // The length's page, written last: cleared first, or not written before by this call.
      // (Where the TLV was not known at the call's first WRITE, this WRITE says where it is.)
      let at = lengthAt ?? Self.lengthAddress(d, page: page) ?? Int.max
      let finalLength = firstWriteClearedLength || (firstWritePage ?? 0) > at / 4
      // A 3-byte length whose low bytes continue on the next page takes two WRITEs, in
      // either order: each of its pages is stepped back to once.
      let tail = Self.lengthTailPage(lengthAt, memory: memory)
      if page == tail {
        return !(finalLength && stepBackPages.allSatisfy { $0 == at / 4 && $0 != page })
      }
      guard stepBackPages.allSatisfy({ $0 == tail }) else { return true }
      // The `FF` page of a length continuing on the next page: its high byte alone (0 for a
      // 255-byte message) or none (`FF` its last byte) tells no clearing from a final length.
      // The tag may still hold a 1-byte length there (cleared to `03 00` first, the low bytes
      // written with the data): then this WRITE's `FF` makes the field 3 bytes.
      if page == at / 4, (at + 2) / 4 != page, case .hex(let data)? = d.field("data"),
        data.count > at % 4, data[at % 4] == 0xFF
      {
        return !finalLength
      }
      guard let length = Self.lengthValue(d, page: page, address: lengthAt), length != 0 else {
        return true
      }
      return !finalLength
    case (.readNDEF, .type4):
      // Stacks that keep NLEN from the query (Android) start each call at the first data
      // offset: a READ back at or before the call's first one starts the next call.
      guard dataRead, let offset = d.binaryOffset else { return false }
      return offset == 0 || offset <= (firstReadOffset ?? 0)
    case (.writeNDEF, .type4):
      return lengthSet && d.binaryOffset == 0
    default:
      return false
    }
  }

  /// Whether the first part of a chained command APDU (`d`, an ISO-DEP I-block with an
  /// `apdu_header`) starts the next Type 4 writeNDEF call: an UPDATE BINARY at offset 0 after
  /// the current call set NLEN. The APDU itself is decoded only when its last part arrives,
  /// which may never happen when the tag leaves.
  func startsNewCall(chained d: LayerDecode) -> Bool {
    guard lengthSet, case .hex(let h)? = d.field("apdu_header"), h.count == 4 else { return false }
    return h[1] == 0xD6 && h[2] == 0 && h[3] == 0
  }

  /// Whether `d`, sent at `timeNs`, is the stack's retry of the last command (see
  /// `isRetry`): it belongs to that command's operation, whatever its kind.
  func retries(_ d: LayerDecode, at timeNs: Int64) -> Bool { isRetry(d, at: timeNs) }

  /// A stack's retry: the same command again, soon (within `retryWindowNs`; an app calling
  /// again after Core NFC reported the failure takes longer), after a failed transmission.
  private func isRetry(_ d: LayerDecode, at timeNs: Int64) -> Bool {
    // Times of damaged captures may lie ±9.2e18 ns apart: a gap that overflows is no retry.
    let (gap, overflow) = timeNs.subtractingReportingOverflow(lastTimeNs)
    return lastRetryable && retries < Self.maxRetries && !overflow && gap <= Self.retryWindowNs
      && (last == d
        || (lastDamaged && last?.name == d.name && last?.absolutePage != nil
          && last?.absolutePage == d.absolutePage))
  }

  /// Records a command of the call (after `startsNewCall` said it belongs to it), sent at
  /// `timeNs`; `damaged`: its frame failed its CRC in the capture.
  mutating func command(_ d: LayerDecode, at timeNs: Int64, memory: TagMemory, damaged: Bool) {
    let retried = isRetry(d, at: timeNs)
    retries = retried ? retries + 1 : 0
    lastTimeNs = timeNs
    lastRetryable = true
    last = d
    lastDamaged = damaged
    if d.protocolID == .type4, !retried, firstReadOffset == nil, d.name.hasPrefix("READ") {
      firstReadOffset = d.binaryOffset
    }
    guard d.protocolID == .type2, !retried else { return }
    if d.name == "READ" || d.name == "FAST_READ" {
      if firstReadPage == nil { firstReadPage = d.absoluteStartPage }
    } else if d.name == "WRITE", let page = d.absolutePage {
      if let last = lastWritePage {
        if page <= last { stepBackPages.append(page) }
        // The length part this page holds: its FF page's, or a 3-byte length's low bytes.
        let part =
          Self.lengthValue(d, page: page, address: lengthAt)
          ?? (page == Self.lengthTailPage(lengthAt, memory: memory)
            ? Self.tailValue(d, page: page, address: lengthAt) : nil)
        if steppedBack, let part, part != 0 { finalLengthWritten = true }
        if !steppedBack, part == 0 { firstWriteClearedLength = true }
      } else {
        // Located once per call, at its first WRITE (the area is parsed on each access), in
        // the layout that WRITE leaves: it may move the TLV (NULL TLVs put before it, a 1-byte
        // length made 3 bytes).
        lengthAt = Self.lengthAddress(after: d, page: page, memory: memory)
        firstWritePage = page
        firstWriteClearedLength = Self.lengthValue(d, page: page, address: lengthAt) == 0
      }
      lastWritePage = page
    }
  }

  /// Records the answer `a` to command `c`; `nlenSize` as in `startsNewCall`.
  mutating func answer(_ c: LayerDecode?, _ a: LayerDecode, nlenSize: Int) {
    // `named`, not a `switch` on the name: every Type 4 answer was compared in full with each
    // case (see `LayerDecode.named`).
    if a.named("READ response") || a.named("FAST_READ response") {
      lastRetryable = false
      dataRead = true
    } else if a.named("ACK") {
      lastRetryable = false
    } else if a.named("NAK") {
      if case .int(let code)? = a.field("nak_code") {
        lastRetryable = Type2Layer.isRetriableNAK(code)
      } else {
        lastRetryable = false
      }
    } else {
      guard case .string(let sw)? = a.field("sw") else { return }
      lastRetryable = false
      guard sw == "9000", let c, c.protocolID == .type4 else { return }
      if c.named("READ NDEF data") || c.named("READ NLEN and NDEF data") { dataRead = true }
      if Type4Procedure.ndefUpdates.contains(c.name), c.binaryOffset == 0,
        case .hex(let data)? = c.field("data"), data.prefix(nlenSize).contains(where: { $0 != 0 })
      {
        lengthSet = true
      }
    }
  }

  /// The page holding the low bytes of a 3-byte NDEF TLV length at `address` (`FF` there in
  /// `memory`) when they continue past the page of its `FF` (after a Lock or Memory Control
  /// TLV, NFC Forum T2T 1.0 §2.3); nil for a field within one page or a 1-byte length.
  private static func lengthTailPage(_ address: Int?, memory: TagMemory) -> Int? {
    guard let address, (address + 2) / 4 != address / 4,
      memory.type2End.known(address, 1) == [0xFF]
    else { return nil }
    return (address + 2) / 4
  }

  /// The low bytes of a 3-byte length at `address` (its `FF`) that WRITE `d` puts on `page`,
  /// the page after the `FF`'s, as a number (0 for the cleared form `FF 00 00`).
  private static func tailValue(_ d: LayerDecode, page: Int, address: Int?) -> Int? {
    guard let address, case .hex(let data)? = d.field("data"), data.count >= 4 else {
      return nil
    }
    let count = address + 3 - page * 4
    guard (1...2).contains(count) else { return nil }
    return data.prefix(count).reduce(0) { $0 << 8 | Int($1) }
  }

  /// The address of the NDEF TLV length field once WRITE `d` to `page` is applied to
  /// `memory`; the one before it when the write leaves no NDEF TLV to parse.
  private static func lengthAddress(after d: LayerDecode, page: Int, memory: TagMemory) -> Int? {
    // The known data area from page 4 with the write's page put in, parsed as the area is
    // (`TagMemory.type2Area`): once, as this runs at every call's first WRITE.
    var run = memory.type2End.knownRun(from: 16)
    let at = page * 4 - 16
    guard case .hex(let data)? = d.field("data"), data.count >= 4, at >= 0, at <= run.count
    else { return memory.type2Area?.ndefLengthAddress }
    if at + 4 > run.count { run += repeatElement(0, count: at + 4 - run.count) }
    run.replaceSubrange(at..<(at + 4), with: data.prefix(4))
    // Up to the page after the written one: enough for a length field the write moved, and a
    // cleared message (`03 00` then old bytes) is not walked as TLVs to the end of memory.
    return Type2TLVArea(layoutOf: Array(run.prefix(at + 8)), baseAddress: 16).ndefLengthAddress
      ?? memory.type2Area?.ndefLengthAddress
  }

  /// The address of the NDEF TLV length field in WRITE `d` to `page`, found after a `03` in
  /// its first three bytes; nil without one.
  private static func lengthAddress(_ d: LayerDecode, page: Int) -> Int? {
    guard case .hex(let data)? = d.field("data"), let t = data.prefix(3).firstIndex(of: 0x03)
    else { return nil }
    return page * 4 + t + 1
  }

  /// The NDEF TLV length a WRITE puts in place, when the WRITE covers the length field (one
  /// byte, or `FF` + two bytes; NFC Forum T2T 1.0 §2.3) at `address`, else (no TLV known)
  /// after a `03` in the written page. Nil when not covered. A 3-byte field that continues on
  /// the next page gives the part in this page (`Type2TLV.lengthPart`).
  private static func lengthValue(_ d: LayerDecode, page: Int, address: Int?) -> Int? {
    guard case .hex(let data)? = d.field("data"), data.count >= 4 else { return nil }
    let index: Int
    if let address {
      index = address - page * 4
    } else if let t = data.prefix(3).firstIndex(of: 0x03) {
      index = t + 1
    } else {
      return nil
    }
    return Type2TLV.lengthPart(in: Array(data.prefix(4)), at: index)
  }

}
