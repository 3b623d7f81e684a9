import NDEF

/// Rule: a write succeeded on the radio but the NDEF it left on the tag is malformed, or is
/// not the message the app meant to write.
///
/// Evidence: after a `writeNDEF` whose outcome is ok, the message the length field claims,
/// every byte written and acknowledged (`NDEFWriteState.complete`), is validated with
/// `NDEFValidator` (relax mode; NFC Forum NDEF 1.0, RTD-URI 1.0, RTD-Text 1.0; the app
/// mistakes of nfc-facts §7.4/§7.5: a URI payload starting with the scheme instead of an
/// identifier code, an RFU identifier code such as `a` in `ahttps://…`, a Text payload
/// without status byte). Every validator finding of warning or error severity becomes a
/// finding with the validator's code, and the verdict becomes `succeeded-with-bad-content`.
/// With `--expect`, the end image is compared with the intended message:
/// `content-differs-from-expected` (error after a successful write; info after a failed or
/// interrupted one, saying how much of it is on the tag). With `--expect` and no writeNDEF at
/// all on a tag the app could write (nor an app's own write of the NDEF file,
/// `Operation.writesNDEFFile`): `no-write-sent` (info), unless the tag already holds the
/// message. A length written last that claims more than the message written before it (its
/// ME record ends inside the claimed span): `ndef-length-exceeds-message` (error). Type 3:
/// the message is Ln bytes from block 1 as left (`type3`).
enum ContentRule: DiagnosisRule {
  static let codes = [
    "content-differs-from-expected", "no-write-sent", "ndef-malformed-on-read",
    "message-unconfirmed", "ndef-length-exceeds-message", "t2t-no-tlv-at-page-4",
  ]

  /// A Type 2 writeNDEF on a tag whose CC says NDEF, whose acknowledged WRITE of page 4, where
  /// the TLV area starts (T2T 1.0 §2.3), put there a first byte that is no TLV tag: the tag
  /// holds no NDEF message.
  private static func noTLV(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    // Only on a tag whose CC (page 3) said NDEF when the session found it (or, not read
    // then, at its end): elsewhere page 4 is the app's own data. (An amiibo writer writes the
    // CC's magic away after its pages, `t2t-cc-magic-lost`.)
    let m = c.session.memory
    guard op.outcome == .ok, c.session.type4CC == nil,
      let cc = (m.type2Start.known(12, 4) ?? m.type2End.known(12, 4)).flatMap(
        Type2CapabilityContainer.init),
      cc.status != .notSupported,
      let w = c.commands(in: i).last(where: { $0.isWrite && $0.page == 4 && $0.answer == .ack }),
      let first = w.data.first, !Type2Procedure.tlvTypes.contains(first)
    else { return nil }
    let looksLikeCC = w.data.count == 4 && first == 0xE1
    var f = DiagnosisFinding(
      code: "t2t-no-tlv-at-page-4", severity: .error, operation: i,
      frames: [w.frame] + [w.answerFrame].compactMap { $0 },
      cause: "the write put \(Hex.string([first]).uppercased())h at page 4, where a TLV must start",
      message: "The tag acknowledged a WRITE of page 4 ← \(Hex.string(w.data, separator: " ")). "
        + "Page 4 starts the TLV area (NFC Forum T2T 1.0 §2.3), whose first byte must be a TLV "
        + "tag (00 NULL, 01/02 Lock/Memory Control, 03 NDEF Message, FD proprietary, FE "
        + "terminator): readers find no NDEF message on this tag."
        + (looksLikeCC ? " The bytes are a capability container, which belongs in page 3." : ""),
      coreNFCError: nil,
      fix: "Write NDEF with writeNDEF(_:completionHandler:), which builds the TLV itself; an app "
        + "writing pages with sendMiFareCommand must start page 4 with 03 (NDEF Message TLV) and "
        + "its length" + (looksLikeCC ? ", and write the CC to page 3." : ".")
        + (op.kind == .transceive
          ? " If the app meant to copy a non-NDEF dump (an amiibo), the tag no longer holds "
            + "NDEF, as expected: use another tag for NDEF." : ""))
    f.effect = .badContent
    return f
  }

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var out: [DiagnosisFinding] = []
    if let f = noWrite(c) { out.append(f) }
    out += malformedReads(c)
    // The app's own page writes that put no TLV at page 4: judged by the same rule.
    for i in c.session.operations.indices where c.session.operations[i].overwritesNDEFArea {
      if let f = noTLV(c, i) { out.append(f) }
    }
    for i in c.writeOperations where c.session.operations[i].kind == .writeNDEF {
      if c.session.tag.technology == .nfcF {
        out += type3(c, i)
        continue
      }
      let op = c.session.operations[i]
      guard let st = NDEFWriteState.after(op, in: c.session, log: c.log) else {
        if let f = noTLV(c, i) { out.append(f) }
        continue
      }
      let writes = c.commands(in: i).filter(\.isWrite)
      if op.outcome == .ok, st.shape == .complete, let bytes = st.bytes {
        // Type 2: the message as readers see it, around reserved (Lock/Memory Control) bytes —
        // unless a later write replaced it (then the operation's own bytes are judged).
        let tlv = superseded(op, c) ? nil : c.session.memory.type2Area?.ndef
        let message = tlv.flatMap { $0.isComplete && $0.length == bytes.count ? $0.value : nil }
        out += validate(message ?? bytes, st: st, writes: writes, op: i)
      } else if op.outcome == .ok, st.shape == .torn, !superseded(op, c) {
        if let f = lengthPastMessage(c, st, op: i, writes: writes) ?? unconfirmed(c, st, op: i) {
          out.append(f)
        }
        // Pages written inside the old message, its length left alone (an app's own WRITE of
        // part of a record): every command was acknowledged, and the message the tag now
        // holds is the old one with those bytes replaced.
        if let message = heldMessage(c.session) {
          out += validate(message, st: st, writes: writes, op: i)
        }
      }
      if let e = c.expected, let f = compare(e, st, op: op, i, writes: writes) {
        out.append(f)
      }
    }
    return out
  }

  private static func validate(
    _ bytes: [UInt8], st: NDEFWriteState, writes: [SessionCommandLog.Command], op: Int
  ) -> [DiagnosisFinding] {
    malformed(bytes, op: op) { writeFrame(st.valueStart + $0, writes) ?? writes.first?.frame }
  }

  /// The last of `writes` that wrote the byte at `address` (a Type 2 byte address, a Type 4
  /// file offset), nil when none did.
  private static func writeFrame(_ address: Int, _ writes: [SessionCommandLog.Command]) -> Int? {
    writes.last { w in
      if let p = w.page { return p == address / 4 }
      let o = w.offset ?? 0
      return address >= o && address < o + w.data.count
    }?.frame
  }

  /// The validator's warnings and errors on the message `bytes` a successful write left, each
  /// with the frame that wrote its byte (`frame`: message offset → frame).
  private static func malformed(_ bytes: [UInt8], op: Int, frame: (Int) -> Int?)
    -> [DiagnosisFinding]
  {
    let report = NDEFValidator.validate(bytes, mode: .relax)
    return report.findings.filter { $0.severity >= .warning }.map { n in
      var f = DiagnosisFinding(
        code: n.code, severity: n.severity == .error ? .error : .warning, operation: op,
        frames: [frame(n.offset)].compactMap { $0 },
        cause: "the write succeeded, but the NDEF it wrote is malformed: \(n.code)",
        message: n.message + (n.readersShow.map { ". Readers: " + $0 } ?? ""),
        coreNFCError: nil,
        fix: n.fix.map { "Build the record with Core NFC's helper: " + $0 }
          ?? "Build records with NFCNDEFPayload's typed constructors "
          + "(wellKnownTypeURIPayload(url:), wellKnownTypeTextPayload(string:locale:)).")
      f.effect = .badContent
      return f
    }
  }

  /// `--expect` named a message, the tag was writable, and no writeNDEF is in the session.
  private static func noWrite(_ c: DiagnosisContext) -> DiagnosisFinding? {
    // An app's own WriteData to the NDEF file (DESFire / NTAG 424 DNA) is a write on the air.
    guard let e = c.expected, !e.isEmpty, c.session.ndefStatus?.status == .readWrite,
      !c.session.operations.contains(where: { $0.kind == .writeNDEF || $0.writesNDEFFile })
    else { return nil }
    // Too large for the tag: Core NFC refused it with 402 (message-too-large says so).
    if let capacity = c.session.ndefStatus?.capacity, e.count > capacity { return nil }
    let held = c.session.memory.type2Area?.ndef.map(\.value) ?? heldMessage(c.session)
    if held == e { return nil }
    let q = c.session.operations.lastIndex { $0.kind == .queryNDEFStatus }
    return DiagnosisFinding(
      code: "no-write-sent", severity: .info, operation: q,
      frames: q.map { [c.session.operations[$0].lastFrame] } ?? [],
      cause: "no write was sent in this session",
      message: "The app meant to write \(bytesText(e.count)), and queryNDEFStatus reported the "
        + "tag readWrite, but the session has no writeNDEF: no write command reached the tag"
        + (heldSize(c.session).map { ". The tag holds another message \($0)" } ?? "") + ".",
      coreNFCError: nil,
      fix: "Check that the app calls writeNDEF(_:completionHandler:) after queryNDEFStatus "
        + "returns .readWrite (and that the session was not invalidated first).")
  }

  /// The size of the message the tag holds, in parentheses: a Type 2 NDEF TLV's announced
  /// length, with how many of its bytes the session knows when not all, as `report` words it
  /// (`(21 bytes, only 9 known)`); nil when no message is known.
  private static func heldSize(_ s: SessionAnalysis) -> String? {
    if let tlv = s.memory.type2Area?.ndef {
      return "(\(bytesText(tlv.length))"
        + (tlv.isComplete ? ")" : ", only \(tlv.value.count) known)")
    }
    return heldMessage(s).map { "(\(bytesText($0.count)))" }
  }

  /// The length written last (after the data, the length-last order) claims more bytes than
  /// the NDEF message the operation wrote before it, which ends with its ME record inside
  /// the claimed span: the writer counted bytes that are not the message's (the length
  /// field, the TLV's T and L). `ndef-length-exceeds-message` (error, bad content).
  private static func lengthPastMessage(
    _ c: DiagnosisContext, _ st: NDEFWriteState, op: Int, writes: [SessionCommandLog.Command]
  ) -> DiagnosisFinding? {
    guard st.lengthWrittenHere, let lengthFrame = st.lengthFrame,
      writes.last?.frame == lengthFrame, writes.count > 1
    else { return nil }
    let type2 = c.session.usesType2Memory
    let run = c.session.ndefImageEnd.knownRun(from: st.valueStart)
    guard let end = NDEFWriteState.messageEnd(Array(run.prefix(st.claimed))), end < st.claimed,
      Set(st.written).isSuperset(of: st.valueStart..<(st.valueStart + end))
    else { return nil }
    let extra = st.claimed - end
    var f = DiagnosisFinding(
      code: "ndef-length-exceeds-message", severity: .error, operation: op,
      frames: [lengthFrame],
      cause: "the \(st.lengthName) written last (\(st.claimed)) is \(extra) more than the "
        + "\(end)-byte message written before it",
      message: "The writer wrote an NDEF message of \(end) bytes (its ME record ends at byte "
        + "\(st.valueStart + end - 1)) and then set the \(st.lengthName) to \(st.claimed): the "
        + "\(extra) byte(s) after the message count as part of it. Readers that parse the "
        + "whole length find bytes after the ME record and may reject the message or read "
        + "garbage; the write order itself (length last) was right.",
      coreNFCError: nil,
      fix: "Set the length to the NDEF message's own size — without the \(st.lengthName) field"
        + (type2 ? " or the TLV's T and L bytes" : "") + " — or write with "
        + "writeNDEF(_:completionHandler:), which computes it.")
    f.effect = .badContent
    return f
  }

  /// A write that set the length (every command acknowledged) over message bytes it did not
  /// write itself and nothing confirms: never read nor written in the trace, or written
  /// without an acknowledgement (by an earlier session: a write resumed on a re-tap that
  /// skipped the pages the interrupted one left unconfirmed). `message-unconfirmed`
  /// (warning): the tag may hold a torn message.
  private static func unconfirmed(_ c: DiagnosisContext, _ st: NDEFWriteState, op: Int)
    -> DiagnosisFinding?
  {
    guard st.lengthWrittenHere, st.lengthFrame != nil else { return nil }
    // A length past the capacity claims bytes the file or data area does not have: not a
    // torn message but an impossible one (`message-too-large`, `t2t-length-ff-one-byte`).
    if let capacity = c.session.ndefStatus?.capacity, st.claimed > capacity { return nil }
    let type2 = c.session.usesType2Memory
    let image = c.session.ndefImageEnd
    let shaky = st.older.filter { image.state($0) == .unacknowledged }
    let missing = st.unknown
    guard !shaky.isEmpty || !missing.isEmpty else { return nil }
    func span(_ bytes: [Int]) -> String { NDEFWriteState.span(bytes, pages: type2) }
    var parts: [String] = []
    if !shaky.isEmpty {
      parts.append(
        "\(shaky.count) were written earlier without an acknowledgement (\(span(shaky)))")
    }
    if !missing.isEmpty {
      parts.append(
        "\(missing.count) were neither read nor written in the trace (\(span(missing)))")
    }
    let end = st.valueStart + st.claimed - 1
    var f = DiagnosisFinding(
      code: "message-unconfirmed", severity: .warning, operation: op,
      frames: [st.lengthFrame].compactMap { $0 },
      cause: "the \(st.lengthName) was set over message bytes this write did not write and "
        + "nothing confirms",
      message: "The write set the \(st.lengthName) to \(st.claimed) (bytes \(st.valueStart)–"
        + "\(end)), but of those bytes, " + parts.joined(separator: ", and ") + ". Unless they "
        + "already hold the message, the tag holds a torn one; readNDEF would tell.",
      coreNFCError: nil,
      fix: "Write the whole message again with writeNDEF(_:completionHandler:) and verify with "
        + "readNDEF. A writer that resumes an interrupted write must write again every page "
        + "the tag did not acknowledge, not only the length.")
    f.effect = .badContent
    return f
  }

  /// Whether an accepted write after `op` replaced what it left.
  private static func superseded(_ op: Operation, _ c: DiagnosisContext) -> Bool {
    c.log.commands.contains { $0.frame > op.lastFrame && $0.isWrite && $0.accepted }
  }

  /// The NDEF message the tag holds at the end, when every byte of it is known.
  private static func heldMessage(_ s: SessionAnalysis) -> [UInt8]? {
    if let tlv = s.memory.type2Area?.ndef { return tlv.isComplete ? tlv.value : nil }
    if let aib = s.memory.type3AttributeBlock, aib.invalidReason == nil {
      return s.memory.type3End.known(16, aib.ln)
    }
    return type4Message(s)
  }

  /// The first message offset where `actual` and `expected` differ (the shorter one's end when
  /// one is the other's start); nil when they are equal or `actual` is unknown.
  private static func firstDifference(_ actual: [UInt8]?, _ expected: [UInt8]) -> Int? {
    guard let actual, actual != expected else { return nil }
    return zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      ?? min(actual.count, expected.count)
  }

  /// The frame whose answer brought message byte `offset` into the session's NDEF image (a
  /// READ's, a READ BINARY's), nil when no read carried it.
  private static func readFrame(_ s: SessionAnalysis, _ offset: Int) -> Int? {
    if s.usesType2Memory {
      // The value runs around Lock/Memory Control reserved bytes (NFC Forum T2T 1.0 §2.3).
      guard let map = s.memory.type2Area?.ndefAddressMap else { return nil }
      return s.memory.type2End.frame(map.address(of: offset))
    }
    let size = s.type4CC?.ndefFile.lengthFieldSize ?? 2
    return s.ndefImageEnd.frame(size + offset)
  }

  /// readNDEF operations that read a whole message whose records cannot be delimited (framing
  /// damage that stops the validator's relax mode): the app gets no usable message.
  /// `ndef-malformed-on-read` (error) with the validator's framing error.
  private static func malformedReads(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i -> DiagnosisFinding? in
      let op = c.session.operations[i]
      // Framing damage only (records that cannot be delimited): a payload a record's type
      // does not expect still reaches the app as that record.
      guard op.kind == .readNDEF, case .hex(let bytes)? = op.detail("message"), !bytes.isEmpty
      else { return nil }
      let report = NDEFValidator.validate(bytes, mode: .relax)
      // The framing failure stops decoding: it is the last error (findings go by offset).
      guard report.failure != nil, let n = report.findings.last(where: { $0.severity == .error })
      else { return nil }
      // Where the message starts and where it breaks, as this read's answers brought them (a
      // later write in the session may have set the bytes since: its frames are not evidence).
      let carried = [readFrame(c.session, 0), readFrame(c.session, n.offset)].compactMap { $0 }
        .filter { (op.firstFrame...max(op.firstFrame, op.lastFrame)).contains($0) }
      var f = DiagnosisFinding(
        code: "ndef-malformed-on-read", severity: .error, operation: i,
        frames: carried.isEmpty ? [op.firstFrame, op.lastFrame] : carried,
        cause: "the NDEF message read is malformed: \(n.code)",
        message: "readNDEF read the whole \(bytes.count)-byte message, and it is malformed: "
          + n.message
          + (n.readersShow.map { ". Readers: " + $0 + "." }
            ?? ". Core NFC's readNDEF returns no usable message for it."),
        coreNFCError: nil,
        fix: "Rewrite the tag with writeNDEF(_:completionHandler:) and an NFCNDEFMessage built "
          + "from NFCNDEFPayload's constructors, so the lengths match the data; find the writer "
          + "that left this message (an app's own page writes, an interrupted write).")
      f.effect = .badContent
      return f
    }
  }

  /// Type 3: the message Ln (Attribute Information Block as left) announces from block 1 is
  /// validated after a successful writeNDEF that set WriteF OFF, and compared with
  /// `--expect` (NFC Forum T3T 1.0 §7.1).
  private static func type3(_ c: DiagnosisContext, _ i: Int) -> [DiagnosisFinding] {
    let op = c.session.operations[i]
    let image = c.session.memory.type3End
    guard let aib = c.session.memory.type3AttributeBlock, aib.invalidReason == nil else {
      return []
    }
    let message = image.known(16, aib.ln)
    var out: [DiagnosisFinding] = []
    if op.outcome == .ok, !aib.writeInProgress, let message {
      out += malformed(message, op: i) { image.frame(16 + $0) ?? op.lastFrame }
    }
    if op.outcome == .ok, !aib.writeInProgress, let f = type3Unconfirmed(c, i, aib) {
      out.append(f)
    }
    guard let e = c.expected else { return out }
    let ok = op.outcome == .ok && !aib.writeInProgress
    if ok, message == e { return out }
    var text =
      "The app meant to write \(bytesText(e.count)); the Ln on the tag claims "
      + bytesText(aib.ln)
    if let message {
      text += matchText(message, e)
    } else {
      text += " (not all of them were read or written in the trace)"
    }
    if aib.writeInProgress { text += "; WriteF is still ON: the write did not finish" }
    var f = DiagnosisFinding(
      code: "content-differs-from-expected", severity: ok ? .error : .info, operation: i,
      frames: [image.frame(0)].compactMap { $0 },
      cause: ok
        ? "the tag does not hold the message the app meant to write"
        : "the intended message is not (all) on the tag",
      message: text + ".", coreNFCError: nil,
      fix: "Read the tag back with readNDEF after writeNDEF's completion handler and compare.")
    if ok { f.effect = .badContent }
    out.append(f)
    return out
  }

  /// A Type 3 writeNDEF whose last step (block 0 with WriteF OFF and the new Ln, T3T 1.0
  /// §7.4.3) the tag acknowledged, with Ln over data bytes (from block 1) that no write
  /// confirmed and no read showed: `message-unconfirmed`, as for Type 2 and 4.
  private static func type3Unconfirmed(
    _ c: DiagnosisContext, _ i: Int, _ aib: Type3AttributeBlock
  ) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    let image = c.session.memory.type3End
    guard aib.ln > 0, aib.ln <= aib.capacity, image.state(0) == .written,
      let set = image.frame(0), (op.firstFrame...op.lastFrame).contains(set)
    else { return nil }
    let claimed = 16..<(16 + aib.ln)
    let missing = claimed.filter { image.state($0) == .unknown }
    let shaky = claimed.filter { image.state($0) == .unacknowledged }
    guard !missing.isEmpty || !shaky.isEmpty else { return nil }
    func blocks(_ bytes: [Int]) -> String {
      let b = Array(Set(bytes.map { $0 / 16 })).sorted()
      return (b.count == 1 ? "block " : "blocks ") + rangesText(b)
    }
    var parts: [String] = []
    if !missing.isEmpty {
      parts.append(
        "\(missing.count) were neither read nor written in the trace (\(blocks(missing)))")
    }
    if !shaky.isEmpty {
      parts.append("\(shaky.count) were written without an acknowledgement (\(blocks(shaky)))")
    }
    var f = DiagnosisFinding(
      code: "message-unconfirmed", severity: .warning, operation: i,
      frames: [set - 1, set].filter { $0 >= op.firstFrame },
      cause: "the Ln was set over message bytes this write did not write and nothing confirms",
      message: "The write set Ln to \(aib.ln) in the Attribute Information Block (frame \(set)): "
        + "the message runs over bytes 0–\(aib.ln - 1) of the data blocks (from block 1), but of "
        + "those bytes, " + parts.joined(separator: ", and ") + ". Unless they already hold the "
        + "message, the tag holds a torn one; readNDEF would tell.",
      coreNFCError: nil,
      fix: "Write the whole message again with writeNDEF(_:completionHandler:) and verify with "
        + "readNDEF; an app writing blocks itself must write every block Ln covers "
        + "(⌈Ln / 16⌉ from block 1) before block 0.")
    f.effect = .badContent
    return f
  }

  /// `, and the first 24 bytes match the intended message (first difference at message byte
  /// 24)`.
  private static func matchText(_ actual: [UInt8], _ e: [UInt8]) -> String {
    let same = zip(actual, e).prefix { $0 == $1 }.count
    var text = ", and the first \(bytesText(same)) match the intended message"
    if same < min(actual.count, e.count) { text += " (first difference at message byte \(same))" }
    return text
  }

  /// The message in the Type 4 NDEF file as left, when its NLEN (ENLEN on a T4T 3.0 tag) and
  /// all of it are known.
  private static func type4Message(_ s: SessionAnalysis) -> [UInt8]? {
    guard let file = s.type4NDEFFile, let image = s.memory.filesEnd[file] else { return nil }
    let size = s.type4CC?.ndefFile.lengthFieldSize ?? 2
    guard let nlen = image.knownBigEndian(0, size) else { return nil }
    return image.known(size, nlen)
  }

  private static func compare(
    _ e: [UInt8], _ st: NDEFWriteState, op: Operation, _ i: Int,
    writes: [SessionCommandLog.Command]
  ) -> DiagnosisFinding? {
    let ok = op.outcome == .ok
    // The tag holds the message, whichever write put each byte there (a write resumed after a
    // re-activation finds its first pages written by the operation before).
    if ok, st.bytes == e { return nil }
    let actual = st.bytes
    var message =
      "The app meant to write \(bytesText(e.count)); the \(st.lengthName) on the tag claims \(bytesText(st.claimed))"
    let onlyLengthUncertain = actual == e && st.lengthUnacknowledged
    if onlyLengthUncertain {
      // Every byte matches, and only the length's write is unconfirmed: not a difference,
      // an uncertainty (new-user trial: "differs" beside "the bytes match").
      message =
        "The app meant to write \(bytesText(e.count)): every byte of it is on the tag, and the "
        + "tag holds exactly that message if the last write, of the \(st.lengthName) (which "
        + st.lengthSilenceText + "), reached its memory; otherwise the \(st.lengthName) is "
        + (st.earlierLength.map {
          $0 == 0 ? "still 0: an empty message (readNDEF reports 403)" : "still \($0)"
        } ?? "still the earlier one")
    } else if let actual {
      message += matchText(actual, e)
    } else {
      message += " (\(st.composition(pages: false)))"
    }
    message += "."
    var f = DiagnosisFinding(
      code: "content-differs-from-expected", severity: ok ? .error : .info, operation: i,
      frames: [
        st.lengthFrame,
        firstDifference(actual, e).flatMap {
          writeFrame(st.valueStart + $0, writes)
        },
      ].compactMap { $0 },
      cause: ok
        ? "the tag does not hold the message the app meant to write"
        : onlyLengthUncertain
          ? "the intended message is on the tag only if its length's write landed"
          : "the intended message is not (all) on the tag",
      message: message, coreNFCError: nil,
      fix: "Read the tag back with readNDEF after writeNDEF's completion handler and compare.")
    if ok { f.effect = .badContent }
    return f
  }
}
