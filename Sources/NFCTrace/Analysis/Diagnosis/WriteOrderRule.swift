import NDEF

/// Rule: the write procedure risks a torn message — the final length is written before the
/// data it announces, so losing the tag in between leaves a length that covers old or missing
/// bytes.
///
/// Evidence (NFC Forum recommendation as implemented by nfcpy and Android, nfc-facts §5.5 and
/// §6.4: length 0 first, then the data, then the real length):
/// - Type 2: in a writeNDEF, the first WRITE covering the NDEF TLV's L byte (found in the end
///   image) already carries a non-zero length, and later WRITEs of the same operation follow.
/// - Type 4: the first UPDATE BINARY at offset 0 carries a non-zero NLEN and later UPDATE
///   BINARYs of the same operation follow (one UPDATE with NLEN + whole message is fine).
/// - Type 2, data first: acknowledged WRITEs past the length's page overwrote bytes of the
///   old message (as found at the session's start, non-zero length) before any write of the
///   length, which follows (or several pages were so written).
/// - Type 4, data first: the same with UPDATE BINARYs over the old NLEN (`dataFirstType4`).
/// - Type 3, data first: UPDATEs of data blocks over the old message before block 0 with
///   WriteF ON (NFC Forum T3T 1.0 §7.4.3, nfcpy `tt3.py`; `type3DataFirst`).
/// Code: `unsafe-write-order` (warning; no Core NFC error by itself).
enum WriteOrderRule: DiagnosisRule {
  static let codes = ["unsafe-write-order"]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    var out: [DiagnosisFinding] = []
    for i in c.writeOperations where c.session.operations[i].kind == .writeNDEF {
      if c.session.tag.technology == .nfcF {
        if let f = type3DataFirst(c, i) { out.append(f) }
        continue
      }
      let writes = c.commands(in: i).filter(\.isWrite)
      let first: SessionCommandLog.Command?
      let name: String
      if writes.contains(where: { $0.page != nil }) {
        guard
          let st = NDEFWriteState.after(
            c.session.operations[i], in: c.session, log: c.log)
        else { continue }
        let page = st.lengthAddress / 4
        first = writes.first { $0.page == page && $0.data.count > st.lengthAddress % 4 }
        // Data of the message after the length: a page past the length's holding bytes the
        // length claims (a Terminator after the final length, libnfc-nci's last step, is not).
        let messageEnd = st.valueStart + st.claimed
        guard let f = first, (Type2TLV.lengthPart(in: f.data, at: st.lengthAddress % 4) ?? 0) != 0,
          writes.contains(where: {
            $0.frame > f.frame && ($0.page ?? 0) > page && ($0.page ?? 0) * 4 < messageEnd
          })
        else {
          if let d = dataFirst(c, i, writes: writes, lengthPage: page, first: first) {
            out.append(d)
          }
          continue
        }
        name = "NDEF TLV length"
      } else {
        // NLEN is 2 bytes; ENLEN (Extended NDEF File Control TLV, T4T 3.0 §5.1) 4.
        let size = c.session.type4CC?.ndefFile.lengthFieldSize ?? 2
        first = writes.first { $0.offset == 0 }
        guard let f = first, f.data.count >= size, f.data.prefix(size).contains(where: { $0 != 0 }),
          writes.contains(where: { $0.frame > f.frame && ($0.offset ?? 0) >= size })
        else {
          if let d = dataFirstType4(c, i, writes: writes, size: size, first: first) {
            out.append(d)
          }
          continue
        }
        name = size == 4 ? "ENLEN" : "NLEN"
      }
      guard let f = first else { continue }
      out.append(
        DiagnosisFinding(
          code: "unsafe-write-order", severity: .warning, operation: i, frames: [f.frame],
          cause: "the \(name) was written before the message data",
          message: "The first write (\(f.summary)) already sets the final \(name); the message "
            + "bytes follow in later writes. If the tag leaves the field in between, it keeps a "
            + "length that announces bytes that were never written: a torn message. The safe "
            + "order is length 0 first, then the data, then the real length.",
          coreNFCError: nil,
          fix: "If the app writes pages itself (sendMiFareCommand / sendCommand(apdu:)), write "
            + "the length as 0 first, the data next and the real length last. With "
            + "writeNDEF(_:completionHandler:) the order is Core NFC's: keep the tag still "
            + "until the completion handler and verify with readNDEF."))
    }
    return out
  }

  /// Type 3, data first: an UPDATE of data blocks replaced blocks of the old message (Ln as
  /// found non-zero) before the write set WriteF ON in block 0 (`Type3Procedure`'s detail
  /// `data_before_write_flag`). T3T 1.0 §7.4.3 and nfcpy `tt3.py` write block 0 with WriteF
  /// 0Fh first, the data blocks next, block 0 with WriteF 00h and the new Ln last: a write
  /// cut off in between then leaves WriteF ON, which readers see; without it the old Ln over
  /// partly new bytes looks like a valid message.
  private static func type3DataFirst(_ c: DiagnosisContext, _ i: Int) -> DiagnosisFinding? {
    let op = c.session.operations[i]
    guard case .int(let frame)? = op.detail("data_before_write_flag") else { return nil }
    let m = c.session.memory
    let old =
      m.type3Start.known(0, 16).flatMap { Type3AttributeBlock(parsing: $0) }?.ln
    return DiagnosisFinding(
      code: "unsafe-write-order", severity: .warning, operation: i, frames: [frame],
      cause: "the data blocks were written over the old message before WriteF was set ON",
      message: "The write's UPDATE of data blocks (frame \(frame)) replaced blocks of the old "
        + (old.map { "\($0)-byte " } ?? "") + "message while block 0 still had WriteF OFF "
        + "and the old Ln: the write never set WriteF ON (0Fh) before them. If the tag leaves "
        + "the field before block 0 is written again, it keeps the old Ln over partly new "
        + "bytes, and nothing tells readers that a write was cut off: a torn message that "
        + "looks valid. The safe order (NFC Forum T3T 1.0 §7.4.3) is block 0 with WriteF ON "
        + "first, then the data blocks, then block 0 with WriteF OFF and the new Ln.",
      coreNFCError: nil,
      fix: "If the app writes blocks itself (NFCFeliCaTag's writeWithoutEncryption(serviceCode:"
        + "blockList:blockData:completionHandler:)), write block 0 with WriteF 0Fh first, the "
        + "data blocks next and block 0 with WriteF 00h and the new Ln last. With "
        + "writeNDEF(_:completionHandler:) the order is Core NFC's: keep the tag still until the "
        + "completion handler and verify with readNDEF.")
  }

  /// Type 4, data first: UPDATE BINARYs replaced bytes of the old message (NLEN as found
  /// non-zero) before NLEN was written, or with no NLEN write at all in an operation that did
  /// not end ok. An UPDATE is not atomic across its bytes, and the old NLEN over new bytes is
  /// a torn message (T4T 2.0 §5.4.4 has NLEN 0000 written first).
  private static func dataFirstType4(
    _ c: DiagnosisContext, _ i: Int, writes: [SessionCommandLog.Command], size: Int,
    first lengthWrite: SessionCommandLog.Command?
  ) -> DiagnosisFinding? {
    guard let id = c.session.type4NDEFFile,
      let old = c.session.memory.filesStart[id]?.knownBigEndian(0, size), old > 0
    else { return nil }
    // An earlier operation set NLEN to 0 already: no old length stood when this one began.
    let firstFrame = c.session.operations[i].firstFrame
    let earlier = c.log.commands.last { w in
      w.isWrite && w.accepted && w.frame < firstFrame && w.offset == 0
    }
    if let earlier, earlier.data.prefix(size).allSatisfy({ $0 == 0 }) { return nil }
    let over = writes.filter { w in
      guard let offset = w.offset, offset >= size, offset < size + old, w.accepted
      else { return false }
      return lengthWrite.map { w.frame < $0.frame } ?? true
    }
    let unfinished = c.session.operations[i].outcome != .ok
    guard let data = over.first, lengthWrite != nil || over.count > 1 || unfinished else {
      return nil
    }
    let name = size == 4 ? "ENLEN" : "NLEN"
    return dataFirstFinding(
      i, data, oldLength: old, length: name, lengthZero: "\(name) 0", standard: " (NFC Forum T4T)",
      writer: "writes the NDEF file itself (sendCommand(apdu:)), write \(name) 0000 first")
  }

  /// Type 2, data first: the operation overwrote bytes of the old message while the old
  /// (non-zero) length stood, and wrote the length only after them — or never. Losing the tag
  /// in between leaves the old length over partly new bytes.
  private static func dataFirst(
    _ c: DiagnosisContext, _ i: Int, writes: [SessionCommandLog.Command], lengthPage: Int,
    first lengthWrite: SessionCommandLog.Command?
  ) -> DiagnosisFinding? {
    let start = Type2TLVArea(parsing: c.session.memory.type2Start.knownRun(from: 16))
    guard let old = start.ndef, old.length > 0, let lengthAt = start.ndefLengthAddress else {
      return nil
    }
    // An earlier operation of the session (a write cut short by a NAK, then a reconnect) set
    // the length to 0 already: no old length stood when this one began.
    let firstFrame = c.session.operations[i].firstFrame
    let earlier = c.log.commands.last { w in
      w.isWrite && w.answer == .ack && w.frame < firstFrame && w.page == lengthAt / 4
    }
    if let earlier, Type2TLV.lengthPart(in: earlier.data, at: lengthAt % 4) == 0 { return nil }
    let oldEnd = start.ndefValueEndAddress ?? start.baseAddress + old.valueEnd
    let over = writes.filter { w in
      guard let p = w.page, p > lengthPage, w.answer == .ack else { return false }
      return p * 4 < oldEnd && lengthWrite.map { w.frame < $0.frame } ?? true
    }
    // One page rewritten in place, length untouched, leaves the old or the new page: whole
    // either way. A new length after it, or several pages, can leave a mix.
    guard let data = over.first, lengthWrite != nil || over.count > 1 else { return nil }
    return dataFirstFinding(
      i, data, oldLength: old.length, length: "length", lengthZero: "length 0", standard: "",
      writer: "writes pages itself (sendMiFareCommand), write the length as 0 first")
  }

  /// `unsafe-write-order` for data written over the old message (`oldLength` bytes) before
  /// its `length` (NDEF TLV length, NLEN, ENLEN) was changed.
  private static func dataFirstFinding(
    _ i: Int, _ data: SessionCommandLog.Command, oldLength: Int, length: String,
    lengthZero: String, standard: String, writer: String
  ) -> DiagnosisFinding {
    let field = length == "length" ? "the NDEF TLV length" : length
    return DiagnosisFinding(
      code: "unsafe-write-order", severity: .warning, operation: i, frames: [data.frame],
      cause: "the message data was written over the old message while its \(length) still stood",
      message: "The write (\(data.summary)) replaced bytes of the old \(oldLength)-byte message "
        + "before \(field) was changed. If the tag leaves the field in between, it keeps the "
        + "old \(length) over partly new bytes: a torn message. The safe order is \(lengthZero) "
        + "first, then the data, then the real \(length)\(standard).",
      coreNFCError: nil,
      fix: "If the app \(writer), the data next and the real \(length) last. With "
        + "writeNDEF(_:completionHandler:) the order is Core NFC's: keep the tag still until the "
        + "completion handler and verify with readNDEF.")
  }
}
