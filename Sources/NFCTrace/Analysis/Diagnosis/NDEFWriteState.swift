import NDEF

/// What the NDEF length field on the tag claims after a write operation, and where each byte
/// of the claimed message came from: written and acknowledged in this operation, written
/// without acknowledgement, older (read before, or written earlier), or never seen.
///
/// Type 2: the first NDEF Message TLV of the data area (NFC Forum T2T 1.0 §2.3, nfc-facts
/// §5.1); Type 4: NLEN/ENLEN at the start of the NDEF file (NFC Forum T4T, nfc-facts §6.2).
struct NDEFWriteState {
  /// What the claimed message is made of.
  enum Shape: Equatable {
    /// Every claimed byte was written and acknowledged by this operation.
    case complete
    /// The length says 0: the tag holds an empty NDEF message.
    case empty
    /// The length was not touched and no claimed byte was written: the old message stands.
    case oldIntact
    /// A mix: the message on the tag is corrupt.
    case torn
  }

  /// `NDEF TLV length` or `NLEN`.
  var lengthName: String
  /// Address (Type 2 byte address; Type 4 file offset) of the length field.
  var lengthAddress: Int
  /// The claimed message length.
  var claimed: Int
  /// First byte of the claimed message.
  var valueStart: Int
  /// True when this operation wrote the length field.
  var lengthWrittenHere: Bool
  /// Frame that set the length field.
  var lengthFrame: Int?
  /// Claimed bytes written and acknowledged in this operation.
  var written: [Int] = []
  /// Claimed bytes written without acknowledgement.
  var unacknowledged: [Int] = []
  /// Claimed bytes with an older value.
  var older: [Int] = []
  /// Claimed bytes never read nor written.
  var unknown: [Int] = []
  /// The message bytes if every claimed byte is known (unacknowledged ones as sent).
  var bytes: [UInt8]?
  /// True when the write that set the length field got no answer: the tag holds that length
  /// or the one before it (`earlierLength`).
  var lengthUnacknowledged = false
  /// The answer after which that write may have landed, rather than none: NAK 5 (EEPROM
  /// write error, NXP NTAG21x datasheet), another 4-bit code than NXP's (a damaged ACK or
  /// NAK), or a Type 4 SW 65xx (the non-volatile memory changed, ISO/IEC 7816-4 §5.1.3; 6581
  /// memory failure). Its name, e.g. `NAK 5`, `SW 6581`.
  var lengthProgrammingFailure: String?

  /// How the length's write ended: `was answered NAK 5 (EEPROM write error: …)`, or `got no
  /// answer`.
  var lengthSilenceText: String {
    guard let failure = lengthProgrammingFailure else { return "got no answer" }
    switch failure {
    case "NAK 5": return "was answered NAK 5 (EEPROM write error: programming started and failed)"
    case "SW 6581": return "was answered SW 6581 (memory failure: programming started and failed)"
    case let f where f.hasPrefix("NAK"):
      return "was answered \(f), a code no datasheet gives (a damaged ACK or NAK: whether it "
        + "was programmed is unknown)"
    case let f where f.hasPrefix("SW 63"):
      return "was answered \(failure) (a warning: the tag's memory changed, ISO/IEC 7816-4 "
        + "§5.1.3; whether it holds the bytes sent is not known)"
    default:
      return "was answered \(failure) (the tag's memory changed, ISO/IEC 7816-4: the write "
        + "started and did not complete)"
    }
  }
  /// The length an earlier acknowledged write of the operation put in the length field (0
  /// for the length-last procedure's first step, `03 00` or `03 FF 00 00`).
  var earlierLength: Int?
  /// True when one write that got no answer carried the length and every claimed byte (a
  /// Type 4 UPDATE BINARY of NLEN and the message together): the tag holds the new message,
  /// its old one, or — had it lost power while programming — a mix; the trace cannot tell.
  var oneUnansweredWrite = false
  /// `earlierLength`, or when it is unknown, the length the field holds if the unanswered
  /// writes did not land, with their bytes as they were before the operation (read, or
  /// written earlier in the session).
  var priorLength: Int?
  /// True when the length field's bytes were last set by more than one write (a 3-byte Type 2
  /// length continuing on the next page) and not all of them were acknowledged.
  var lengthSplit = false
  /// The size in bytes of the NDEF message whose bytes follow the length field in the image
  /// (up to its first record with ME, `messageEnd`), when they parse as one.
  var writtenMessageSize: Int?

  var shape: Shape {
    if claimed == 0 { return .empty }
    if written.count == claimed { return .complete }
    // Nothing this operation sent landed on the claimed bytes (refused writes, or writes
    // elsewhere): the old message stands, even where the trace never read it.
    if !lengthWrittenHere && written.isEmpty && unacknowledged.isEmpty { return .oldIntact }
    return .torn
  }

  /// The state after operation `op` of session `s`, whose logged commands are `log`; nil
  /// when the length field is unknown. A byte counts as written by the operation when one of
  /// its writes covered it (the last one decides: acknowledged, unanswered, or refused = not
  /// written); values come from the end image, so reads after the operation show the truth.
  static func after(
    _ op: Operation, in s: SessionAnalysis, log: SessionCommandLog
  ) -> NDEFWriteState? {
    let w =
      op.firstFrame <= op.lastFrame
      ? log.commands(in: op.firstFrame...op.lastFrame).filter(\.isWrite) : []
    let type4 = !s.usesType2Memory
    // Bytes a later write of the session set again: there the end image shows that write's
    // value, and this operation is judged by what it wrote itself.
    let last = op.lastFrame
    let later = { (i: Int) in log.wroteLater(i, after: last, fileOffsets: type4) }
    // The session's writes before the operation, asked only for an unanswered length write.
    let before = { log.commands.filter { $0.frame < op.firstFrame && $0.isWrite } }
    return type4
      ? Self.type4(s, w, before: before, later: later)
      : type2(s, w, before: before, later: later)
  }

  /// A byte's value before the operation, from `covering`, the session's earlier writes of
  /// it: the last one's when it was acknowledged (nil when its landing is uncertain), else
  /// as the session first found it (`start`).
  private static func prior(
    _ covering: [SessionCommandLog.Command], _ i: Int, start: ByteImage?,
    value: (SessionCommandLog.Command, Int) -> UInt8
  ) -> UInt8? {
    guard let last = covering.last(where: { landed($0) != nil }) else {
      return start?.known(i, 1)?.first
    }
    return landed(last) == true ? value(last, i) : nil
  }

  private static func type2(
    _ s: SessionAnalysis, _ w: [SessionCommandLog.Command],
    before: () -> [SessionCommandLog.Command], later: (Int) -> Bool
  ) -> NDEFWriteState? {
    let image = s.memory.type2End
    guard let area = s.memory.type2Area, let tlv = area.ndef, let lengthAt = area.ndefLengthAddress
    else { return nil }
    let covering = { (list: [SessionCommandLog.Command], i: Int) in
      list.filter { $0.page == i / 4 && $0.data.count > i % 4 }
    }
    let value = { (c: SessionCommandLog.Command, i: Int) in c.data[i % 4] }
    return make(
      "NDEF TLV length", lengthAt: lengthAt, claimed: tlv.length,
      valueStart: 16 + tlv.valueOffset, image: image, covers: { covering(w, $0) },
      value: value,
      prior: { prior(covering(before(), $0), $0, start: s.memory.type2Start, value: value) },
      lengthIn: { Type2TLV.length(in: $0.data, at: lengthAt % 4) },
      ownValueStart: { c in lengthAt + (c.data[lengthAt % 4] == 0xFF ? 3 : 1) },
      decode: { b in
        // One byte, or FF and two (its form is the first byte's).
        guard let first = b.first ?? nil else { return nil }
        guard first == 0xFF else { return Int(first) }
        guard b.count >= 3, let hi = b[1], let lo = b[2] else { return nil }
        return Int(hi) << 8 | Int(lo)
      }, later: later)
  }

  private static func type4(
    _ s: SessionAnalysis, _ w: [SessionCommandLog.Command],
    before: () -> [SessionCommandLog.Command], later: (Int) -> Bool
  ) -> NDEFWriteState? {
    let id = s.type4NDEFFile ?? 0xE104
    guard let file = s.memory.filesEnd[id] else { return nil }
    let size = s.type4CC?.ndefFile.lengthFieldSize ?? 2
    guard let nlen = file.knownBigEndian(0, size) else { return nil }
    let covering = { (list: [SessionCommandLog.Command], i: Int) in
      list.filter { c in
        (c.ins == 0xD6 || c.ins == 0xD7) && i >= (c.offset ?? 0)
          && i < (c.offset ?? 0) + c.data.count
      }
    }
    let value = { (c: SessionCommandLog.Command, i: Int) in c.data[i - (c.offset ?? 0)] }
    return make(
      size == 4 ? "ENLEN" : "NLEN", lengthAt: 0, claimed: nlen, valueStart: size,
      image: file, covers: { covering(w, $0) }, value: value,
      prior: { prior(covering(before(), $0), $0, start: s.memory.filesStart[id], value: value) },
      lengthIn: { c in
        c.offset == 0 && c.data.count >= size
          ? ByteImage.bigEndian(c.data.prefix(size)) : nil
      }, ownValueStart: { _ in size },
      decode: { b in b.contains(nil) ? nil : ByteImage.bigEndian(b.compactMap { $0 }) },
      later: later)
  }

  /// `covers(i)`: the operation's writes covering byte `i`, in order; `value(c, i)`: the byte
  /// write `c` puts at `i`.
  private static func make(
    _ name: String, lengthAt: Int, claimed: Int, valueStart: Int, image: ByteImage,
    covers: @escaping (Int) -> [SessionCommandLog.Command],
    value: @escaping (SessionCommandLog.Command, Int) -> UInt8,
    prior: (Int) -> UInt8?,
    lengthIn: (SessionCommandLog.Command) -> Int?,
    ownValueStart: (SessionCommandLog.Command) -> Int, decode: ([UInt8?]) -> Int?,
    later: (Int) -> Bool = { _ in false }
  ) -> NDEFWriteState {
    // A refused write did not land: the one before it decides (a NAK 0 on the length-last
    // write's final length leaves the length 0 an earlier write of the operation set).
    let lengthCovers = covers(lengthAt).filter { landed($0) != nil }
    let lengthCmd = lengthCovers.last
    // The length this operation left, when a later write set it again.
    var claimed = claimed
    var valueStart = valueStart
    if later(lengthAt), let c = lengthCmd, landed(c) == true, let own = lengthIn(c) {
      claimed = own
      valueStart = ownValueStart(c)  // a 1-byte length then, a 3-byte one now, or the reverse
    }
    var st = NDEFWriteState(
      lengthName: name, lengthAddress: lengthAt, claimed: claimed, valueStart: valueStart,
      lengthWrittenHere: lengthCmd != nil, lengthFrame: lengthCmd?.frame ?? image.frame(lengthAt))
    st.judgeLengthWrites(
      (lengthAt..<valueStart).map { covers($0).filter { landed($0) != nil } }, image: image,
      value: value, prior: prior, decode: decode)
    // A byte whose last write got no answer is still known when an earlier acknowledged write
    // of the operation put the same value there (the length-last stack's final WRITE repeats
    // the first page's other bytes).
    let cover = { (i: Int) -> SessionCommandLog.Command? in
      let all = covers(i).filter { landed($0) != nil }
      guard let last = all.last, landed(last) == false,
        let acked = all.dropLast().last(where: { landed($0) == true }),
        value(acked, i) == value(last, i)
      else { return all.last }
      return acked
    }
    // Cap the walk: a damaged length cannot make us walk beyond the image limit.
    let end = valueStart + min(claimed, ByteImage.limit)
    if let lengthCmd, st.lengthUnacknowledged, claimed <= ByteImage.limit {
      st.oneUnansweredWrite = (valueStart..<end).allSatisfy {
        covers($0).last?.frame == lengthCmd.frame
      }
    }
    var all: [UInt8] = []
    var complete = true
    // Past the image no write and no read reached: unknown, without asking each byte (a
    // lying length would cost its length times the operation's writes).
    let known = max(valueStart, min(end, image.count))
    if known < end { complete = false }
    for i in valueStart..<known {
      switch cover(i).flatMap(landed) {
      case true?: st.written.append(i)
      case false?: st.unacknowledged.append(i)
      case nil:
        if image.state(i) == .unknown {
          st.unknown.append(i)
          complete = false
        } else {
          st.older.append(i)
        }
      }
      if later(i), let c = cover(i), landed(c) == true {
        all.append(value(c, i))
      } else if i < image.count {
        all.append(image.values[i])
      }
    }
    if known < end { st.unknown.append(contentsOf: known..<end) }
    st.bytes = complete && all.count == claimed ? all : nil
    return st
  }

  /// Whether the writes that last set the length field's bytes (`fieldCovers[k]`: the writes
  /// covering its k-th byte, refused ones left out) all landed. A 3-byte length that continues
  /// on the next page (T2T 1.0 §2.3) takes two WRITEs: when one landed and the other got no
  /// answer, the tag holds the new length or one mixing new and earlier bytes.
  /// `earlierLength` is the length with every unanswered byte at the value an earlier
  /// acknowledged write of the operation put there, else the value it had before the
  /// operation (`prior`; nil when unknown).
  private mutating func judgeLengthWrites(
    _ fieldCovers: [[SessionCommandLog.Command]], image: ByteImage,
    value: (SessionCommandLog.Command, Int) -> UInt8, prior: (Int) -> UInt8?,
    decode: ([UInt8?]) -> Int?
  ) {
    let lasts = fieldCovers.compactMap(\.last)
    guard let silent = lasts.filter({ Self.landed($0) == false }).max(by: { $0.frame < $1.frame })
    else { return }
    // Each byte as it stands if the unanswered writes did not land: from this operation's
    // acknowledged writes only, or (`before`) also from what the byte held before it.
    func bytes(before: Bool) -> [UInt8?] {
      fieldCovers.enumerated().map { k, all in
        let i = lengthAddress + k
        guard let last = all.last else { return image.known(i, 1)?.first }
        guard Self.landed(last) == false else { return value(last, i) }
        guard let acked = all.dropLast().last(where: { Self.landed($0) == true }) else {
          return before ? prior(i) : nil
        }
        return value(acked, i)
      }
    }
    let alternative = decode(bytes(before: false))
    if alternative == claimed { return }  // the same length either way
    earlierLength = alternative
    priorLength = alternative ?? decode(bytes(before: true))
    lengthUnacknowledged = true
    switch silent.answer {
    case .nak(let code) where Type2Layer.writeMayHaveLanded(nak: code):
      lengthProgrammingFailure = "NAK \(code)"
    case .sw(let sw) where Type4Procedure.memoryChanged(sw): lengthProgrammingFailure = "SW " + sw
    default: lengthProgrammingFailure = nil
    }
    lengthFrame = silent.frame
    lengthSplit = Set(lasts.map(\.frame)).count > 1
    if lengthSplit { writtenMessageSize = Self.messageEnd(image.knownRun(from: valueStart)) }
  }

  /// The size of the NDEF message that starts `bytes`: the end of its first record with ME
  /// (NDEF 1.0 §3.2.1); nil when no such record ends inside them or a record does not parse.
  static func messageEnd(_ bytes: [UInt8]) -> Int? {
    var cursor = NDEFByteCursor(bytes)
    while !cursor.isAtEnd {
      guard let r = try? NDEFMessageParser.readRawRecord(&cursor) else { return nil }
      if r.header & NDEFFlag.me != 0 { return cursor.position }
    }
    return nil
  }

  /// true = acknowledged, false = unanswered, NAK 5, a non-standard 4-bit code (a damaged
  /// ACK or NAK) or SW 63xx/65xx (may have landed: an EEPROM write error means programming
  /// started and failed, NXP NTAG21x datasheet; SW1 63 and 65 say the
  /// non-volatile memory changed, ISO/IEC 7816-4 §5.1.3), nil = refused (did not land).
  private static func landed(_ c: SessionCommandLog.Command) -> Bool? {
    switch c.answer {
    case .ack: return true
    case .sw(let sw): return sw == "9000" ? true : Type4Procedure.memoryChanged(sw) ? false : nil
    case .none: return c.damagedSuccess
    case .nak(let code) where Type2Layer.writeMayHaveLanded(nak: code): return false
    case .nak, .other: return nil
    }
  }

  /// `bytes 36–39, page 9`: byte addresses, and with `pages` the Type 2 pages holding them.
  static func span(_ bytes: [Int], pages: Bool) -> String {
    var t = "bytes " + rangesText(bytes)
    if pages {
      t +=
        ", page" + (Set(bytes.map { $0 / 4 }).count == 1 ? " " : "s ")
        + rangesText(bytes.map { $0 / 4 })
    }
    return t
  }

  /// One sentence on what the claimed message is made of; `pages` names Type 2 pages.
  func composition(pages: Bool, lastPage: Int? = nil) -> String {
    func span(_ bytes: [Int]) -> String { Self.span(bytes, pages: pages) }
    var parts: [String] = []
    if !written.isEmpty {
      parts.append("\(written.count) written and acknowledged now (\(span(written)))")
    }
    if !unacknowledged.isEmpty {
      parts.append(
        "\(unacknowledged.count) written without acknowledgement (\(span(unacknowledged)): value uncertain)"
      )
    }
    if !older.isEmpty {
      parts.append("\(older.count) not written by this operation (\(span(older)): older content)")
    }
    // Bytes past the tag's last page (a length larger than the tag) do not exist at all.
    let end = lastPage.map { ($0 + 1) * 4 } ?? Int.max
    let missing = unknown.filter { $0 < end }
    let absent = unknown.filter { $0 >= end }
    if !missing.isEmpty {
      parts.append("\(missing.count) never read nor written in the trace (\(span(missing)))")
    }
    if !absent.isEmpty, let lastPage {
      parts.append(
        "\(absent.count) past the tag's last page \(lastPage) (\(span(absent))): the tag has no "
          + "such memory")
    }
    return parts.joined(separator: ", ")
  }
}
