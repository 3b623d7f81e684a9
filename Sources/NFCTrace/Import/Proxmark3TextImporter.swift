import Foundation

/// Reads the text the Proxmark3 client prints for `trace list` (also `hf 14a list` …), as
/// users paste it (RfidResearchGroup `client/src/cmdtrace.c`, `printTraceLine`/`printHexLine`).
///
/// Accepted, in any mix of LF/CRLF/CR line ends, tabs for spaces, and ANSI colour codes:
/// - the echo line (`… pm3 --> trace list …`, `proxmark3> hf list 14a`), `[=]`/`[+]`/`[?]` log lines and blank lines
///   (skipped; a preamble line naming the protocol, e.g. `ISO14443A - all times …`, is kept
///   as a hint, unless the preamble names two, as the 2015 client's did over every listing);
/// - the table header `Start | End | Src | Data … | CRC | Annotation` (or `Gap | Duration`
///   for `-r`) and its `---+---` rule;
/// - rows `start | end | Rdr/Tag | data | CRC | annotation`, where data is hex bytes with
///   `!` after a byte whose parity bit was wrong, `(n)` after a short frame's byte (n valid
///   bits; older clients print `'`), `[..]` around the CRC (`-c`); long frames continue on rows
///   with empty start/end/src columns (18 bytes a row);
/// - `Frame Delay Time` / `fdt` rows of `--frame` and the `*` rows of `-t mf` (decrypted
///   copies of the frame above; the official client's `hf list mf` marks them `dec`) —
///   skipped with their continuation rows;
/// - the `-x` hex dump: a `0.%010u` line holding the raw tick timestamp, then
///   `000000 00 fe|ff LL LL data…` (fe = reader, ff = tag, big-endian length).
///
/// Times: `start`/`end` are ticks from the first record (1/13.56 MHz, `sourceTime`
/// `.proxmarkTicks`); with `-u` they are µs printed `%.1f` (`.microseconds`, converted with
/// 13.56 ticks/µs); with `-r` they are the gap since the previous frame's end and the
/// duration, from which start times are rebuilt. `timeNs` counts from the first frame.
/// Times are u32 values, so a drop of more than 2³¹ ticks is read as a wrap-around (warning);
/// a value past 4294967295 ticks is none the client prints: its row is skipped (warning).
///
/// Bits: a `(n)` mark gives `bits = n` (n = 0 → nil). Listings that print no mark (`-t 7816`,
/// `des`, `raw`) get the client's duration rule for 1-byte frames
/// (`Proxmark3.shortFrameBits(durationTicks:)`) unless the preamble names a non-14443-A
/// protocol or, naming none (`-t raw`, which lists any protocol), the frames have not shown
/// ISO 14443-A yet (a REQA/WUPA, a valid CRC_A; a valid CRC_B shows 14443-B); `-x` dumps carry no duration, so a 1-byte `26`/`52`/`7A`–`7D` from the reader is
/// 7 bits and a 1-byte tag answer below `10` is 4 bits. Hitag listings print the first byte
/// right-aligned with its bit count (`18(5)`); such frames are realigned MSB first like the
/// binary trace, with flag `msb-first`.
///
/// Frames of a listing whose preamble names a protocol without type A parity (14b, ISO 15693 /
/// iCLASS, Hitag, FeliCa, LEGIC, Thinfilm) get flag `parity-not-recorded`, those of a Hitag
/// listing technology `.lowFrequency`, as the binary importer gives such files' frames; the
/// frames of a listing whose preamble names ISO14443A (or ISO14443B) alone are `.nfcA`
/// (`.nfcB`).
///
/// The text holds only what the client printed: parity marks only for the protocols it checks
/// (none for `-t 7816`), no parity or duration in `-x`, at most 18 rows (324 bytes) of a
/// frame, and µs times rounded to 0.1 µs.
///
/// Location: unit `line`, the 1-based line of the frame's first row and its byte offset.
/// A line inside the table that cannot be read becomes a warning; an input with no table
/// and no hex dump at all is `TraceError(.malformed)`; an unreadable last row without a line
/// end (a file cut inside it) is `TraceError(.truncated)` after the frames before it.
public struct Proxmark3TextImporter: TraceImporter {
  /// `pm3-text`: sniffs for the table header, `Rdr`/`Tag` rows or `-x` hex-dump lines.
  public static let format: TraceFormat = TraceFormat(
    name: "pm3-text",
    summary: "Proxmark3 client `trace list` output (table, -c/-r/-u/--frame, -x hex dump)",
    sniff: { head, path in Proxmark3TextSniffer.score(head: head, path: path) },
    open: { try Proxmark3TextImporter(input: $0) })

  /// Lines that could not be read, time steps backwards or wraps.
  public var warnings: [TraceWarning] { log.warnings }

  private let input: TraceInput
  private var offset = 0
  private var lineNumber = 0
  private var lineOffset = 0
  private var line: [UInt8] = []
  private var fields: [Range<Int>] = []
  private var state = Proxmark3TextState()
  private var clock = TickClock()
  private var log = WarningLog()
  private var emitted = 0
  /// The current line is the input's last and has no line end: the file may have been cut.
  private var lastLineUnterminated = false
  /// Where the listing ends inside a row that cannot be read (a cut file).
  private var cut: (location: SourceLocation, reason: String)?
  /// `|`-separated columns of the table header (rows carry as many).
  /// True from a decrypted-copy row (`*` / `dec` source) to the next row with a source: its
  /// continuation rows are the copy's too.
  private var inDecryptedCopy = false
  private var headerColumns: Int?
  /// A row broken over several lines was joined (warned once).
  private var joinedWrappedRows = false
  /// libnfc TX/RX lines before the table were skipped (warned once).
  private var warnedOtherLog = false

  /// Opens `input`. Never throws: an input without a table is reported by `next()`.
  public init(input: TraceInput) throws {
    self.input = input
    line.reserveCapacity(256)
  }

  /// The next frame, or nil at the end of the input.
  /// - Throws: `TraceError(.malformed)` at the end of an input in which no `trace list` table
  ///   row, header or `-x` hex-dump line was found.
  public mutating func next() throws -> Frame? {
    let bytes = input.bytes
    return try bytes.withUnsafeBytes { raw -> Frame? in
      while offset < raw.count {
        lineOffset = offset
        lineNumber += 1
        offset = Proxmark3Text.loadLine(raw, from: offset, into: &line)
        joinWrappedRow(raw)
        if let nul = line.firstIndex(of: 0) { warnNUL(at: nul) }
        lastLineUnterminated = offset >= raw.count && !TextLines.isLineEnd(raw[offset - 1])
        if let frame = readLine() { return frame }
      }
      if let pending = state.pending {
        state.pending = nil
        return finish(pending)
      }
      if let cut {
        self.cut = nil
        throw TraceError(
          .truncated, at: cut.location,
          "the listing ends inside a row (\(cut.reason)): the file was cut; the frames "
            + "before this row are kept")
      }
      guard state.sawTable else { throw missingTable() }
      return nil
    }
  }

  /// A NUL byte has no place in a listing: the file is damaged there.
  private mutating func warnNUL(at index: Int) {
    log.add(
      "NUL byte",
      TraceWarning(
        "a NUL byte in the text: the file is damaged here",
        location: input.location(unit: "line", record: lineNumber, offset: lineOffset + index)))
  }

  /// A table row that a terminal broke over several lines (a listing copied from a window
  /// narrower than the table): the row has fewer `|` than the header and the lines after it
  /// carry the rest, so that together they have the header's. They are joined (with a
  /// warning, once); before, the bytes on the later lines were lost and the frame's CRC blamed
  /// the radio link.
  private mutating func joinWrappedRow(_ raw: UnsafeRawBufferPointer) {
    var pipes = line.count { $0 == Proxmark3Text.pipe }
    guard pipes > 0 else { return }
    // The header itself wrapped: its later lines start with `|` (`| CRC | Annotation`).
    let header = headerColumns == nil && Proxmark3Text.contains(line, 0..<line.count, "src")
    guard let columns = headerColumns ?? (header ? Int.max : nil) else { return }
    var next: [UInt8] = []
    while pipes < columns - 1, offset < raw.count {
      let after = Proxmark3Text.loadLine(raw, from: offset, into: &next)
      let more = next.count { $0 == Proxmark3Text.pipe }
      guard !next.isEmpty, more > 0, pipes + more <= columns - 1 else { return }
      if header, next.first(where: { $0 != 0x20 }) != Proxmark3Text.pipe,
        !Proxmark3Text.contains(next, 0..<next.count, "crc")
      {
        return
      }
      if !joinedWrappedRows {
        joinedWrappedRows = true
        log.add(
          "wrapped row",
          TraceWarning(
            "line \(lineNumber) continues on the next line (the listing was wrapped by a "
              + "terminal): joined; later such rows are joined too",
            location: input.location(unit: "line", record: lineNumber, offset: lineOffset)))
      }
      line += next
      offset = after
      lineNumber += 1
      pipes += more
    }
  }

  private func missingTable() -> TraceError {
    TraceError(
      .malformed, at: input.location(unit: "line", record: 1, offset: 0),
      "no Proxmark3 trace list found in \(lineNumber) lines: expected a table header "
        + "(Start | End | Src | Data | CRC | Annotation), rows like `0 | 1056 | Rdr |26(7) | | "
        + "REQA`, or `trace list -x` hex-dump lines (`0.0000001234`, `000000 00 fe 00 01 26`)")
  }

  /// Reads the current line; returns the previous frame when this line starts a new one.
  private mutating func readLine() -> Frame? {
    let all = Proxmark3Text.trim(line, 0..<line.count)
    if all.isEmpty { return nil }
    if line[all.lowerBound] == UInt8(ascii: "[") {
      noteHint()
      return nil
    }
    if line.allSatisfy({ Proxmark3Text.isRuleCharacter($0) }) { return nil }
    if line.contains(Proxmark3Text.pipe) { return readTableLine() }
    // The client's prompt: `pm3 -->` (RRG) or `proxmark3>` (older clients), with or without a
    // command after it.
    if Proxmark3Text.contains(line, all, "pm3 -->")
      || Proxmark3Text.contains(line, all, "proxmark3>")
    {
      return nil
    }
    return readHexDumpLine(all)
  }

  /// Text before the table is skipped, but a libnfc log's TX/RX traffic there is frames of
  /// another capture: say so once, rather than lose them without a word.
  private mutating func noteOtherLog(_ all: Range<Int>) {
    guard !warnedOtherLog, Proxmark3Text.contains(line, all, "libnfc."),
      Proxmark3Text.contains(line, all, "tx:") || Proxmark3Text.contains(line, all, "rx:")
    else { return }
    warnedOtherLog = true
    log.add(
      "libnfc lines",
      TraceWarning(
        "libnfc TX/RX lines before the Proxmark3 listing, from this one, are skipped (a "
          + "libnfc log pasted before it?): read that part alone with --input-format libnfc-log",
        location: input.location(unit: "line", record: lineNumber, offset: lineOffset)))
  }

  /// The protocol the preamble names. The official client of about 2015 (`CmdHFList`) printed
  /// the same two lines, `iso14443a - All times …` and `iClass - Timings …`, over every
  /// listing, whatever it held: a preamble naming two protocols names none, and the frames
  /// settle the technology (`noteTechnology`) as in a `-t raw` listing.
  private mutating func noteHint() {
    guard !state.sawTable, !state.hintAmbiguous, let named = Proxmark3ListProtocol.named(in: line)
    else { return }
    if state.hint == .unknown {
      state.hint = named
    } else if state.hint != named {
      state.hint = .unknown
      state.hintAmbiguous = true
    }
  }

  private mutating func readTableLine() -> Frame? {
    Proxmark3Text.split(line, into: &fields)
    // A continuation row of a listing without times (its data in the second column) may have
    // lost its last columns too; a timed one has its End column empty.
    if state.untimed, fields.count >= 2, Proxmark3Text.trim(line, fields[0]).isEmpty,
      !Proxmark3Text.trim(line, fields[1]).isEmpty
    {
      return continueFrame(data: fields[1])
    }
    guard fields.count >= 4 else { return unreadable("fewer than 4 `|`-separated columns") }
    let src = Proxmark3Text.trim(line, fields[2])
    if Proxmark3Text.equals(line, src, "src") {
      state.sawTable = true
      state.untimed = false
      state.relative = Proxmark3Text.contains(line, fields[0], "gap")
      headerColumns = fields.count
      return nil
    }
    // The last row, without its line end, short of the header's columns: the file stops in
    // its data (its bytes may parse, but the frame is not whole).
    if lastLineUnterminated, let columns = headerColumns, fields.count < columns,
      Proxmark3Text.equals(line, src, "rdr") || Proxmark3Text.equals(line, src, "tag")
        || (src.isEmpty && Proxmark3Text.trim(line, fields[0]).isEmpty)
    {
      cut = (
        input.location(unit: "line", record: lineNumber, offset: lineOffset),
        "it has \(fields.count) of the table's \(columns) columns"
      )
      return nil
    }
    // `Rdr | 26 | | REQA`: a listing edited down to its source, data, CRC and annotation
    // columns (forum posts cut the times away): its frames in order, without times.
    let first = Proxmark3Text.trim(line, fields[0])
    if Proxmark3Text.equals(line, first, "src") {
      state.sawTable = true
      state.untimed = true
      headerColumns = fields.count
      return nil
    }
    if Proxmark3Text.equals(line, first, "rdr") { return startUntimedFrame(.reader) }
    if Proxmark3Text.equals(line, first, "tag") { return startUntimedFrame(.tag) }
    let copy = Proxmark3Text.equals(line, src, "*") || Proxmark3Text.equals(line, src, "dec")
    if !src.isEmpty { inDecryptedCopy = copy }
    if Proxmark3Text.equals(line, src, "rdr") { return startFrame(.reader) }
    if Proxmark3Text.equals(line, src, "tag") { return startFrame(.tag) }
    // The decrypted copy of the frame above (RRG `*`, the official client's `dec`), with its
    // continuation rows: the frame itself is the ciphertext row.
    if copy { return nil }
    if src.isEmpty { return readUnsourcedRow() }
    return unreadable("source column is not Rdr or Tag")
  }

  /// A row with an empty Src column: a continuation of the frame above (empty times) or a
  /// `--frame` delay row (times present).
  private mutating func readUnsourcedRow() -> Frame? {
    let start = Proxmark3Text.trim(line, fields[0])
    let end = Proxmark3Text.trim(line, fields[1])
    if start.isEmpty, end.isEmpty { return continueFrame(data: fields[3]) }
    if Proxmark3Text.contains(line, fields[3], "delay")
      || Proxmark3Text.contains(line, fields[3], "fdt")
    {
      return nil
    }
    return unreadable("row without Rdr/Tag source")
  }

  /// A row `Rdr/Tag | data | CRC | annotation` of a listing without its Start and End columns:
  /// a frame in order (source time `.order`, every frame at the time of the one before), its
  /// short frames' bits from their byte as in a `-x` dump (no duration to tell them).
  private mutating func startUntimedFrame(_ direction: Direction) -> Frame? {
    state.sawTable = true
    state.untimed = true
    var cells = Proxmark3DataCells()
    guard cells.append(line, fields[1]) else { return unreadable("data column is not hex bytes") }
    cells.crcColumnBad = fields.count > 2 && Proxmark3Text.contains(line, fields[2], "!crc")
    let location = input.location(unit: "line", record: lineNumber, offset: lineOffset)
    if state.untimedRows == 0 {
      log.add(
        "untimed",
        TraceWarning(
          "the listing has no Start and End columns (an edited listing): its frames are read "
            + "in order, without times, so answer delays and frame waiting times are not checked",
          frame: emitted, location: location))
    }
    let order = Int64(state.untimedRows)
    state.untimedRows += 1
    let next = Proxmark3PendingFrame(
      cells: cells, direction: direction, ticks: state.previousEnd ?? clock.last,
      durationTicks: nil, sourceTime: SourceTime(order, .order), location: location)
    return replacePending(with: next)
  }

  /// A continuation row: its bytes in column `data` (the fourth of a timed listing's row, the
  /// second of one without times) join the frame above, unless that is a decrypted copy.
  private mutating func continueFrame(data: Range<Int>) -> Frame? {
    if inDecryptedCopy { return nil }
    guard state.pending != nil else { return unreadable("continuation row with no frame above it") }
    if state.pending?.cells.append(line, data) == false {
      return unreadable("data column is not hex bytes")
    }
    return nil
  }

  private mutating func startFrame(_ direction: Direction) -> Frame? {
    state.sawTable = true
    state.untimed = false
    let startField = Proxmark3Text.trim(line, fields[0])
    let endField = Proxmark3Text.trim(line, fields[1])
    guard let first = Proxmark3Number(line, startField),
      let second = Proxmark3Number(line, endField),
      first.ticks <= UInt32.max, second.ticks <= UInt32.max
    else { return unreadable(timeColumnsProblem(startField, endField)) }
    var cells = Proxmark3DataCells()
    guard cells.append(line, fields[3]) else { return unreadable("data column is not hex bytes") }
    cells.crcColumnBad = fields.count > 4 && Proxmark3Text.contains(line, fields[4], "!crc")
    let timing = state.timing(first, second)
    let location = input.location(unit: "line", record: lineNumber, offset: lineOffset)
    let placed: (ticks: Int64, step: TickClock.Step)
    if restarted(first, second) {
      // The row ends before it starts: its start was a negative count printed as a u32 (the
      // client's ISO 15693 reader restarts the counter for each exchange, iso15693.c), not
      // 316 s later. The exchange starts after the previous frame; the time between is not
      // known.
      let negative = Int64(first.ticks) - (1 << 32)
      let at = max(state.previousEnd ?? 0, clock.last)
      placed = (clock.restart(negative, at: at), .first)
      log.add(
        "counter restart",
        TraceWarning(
          "start \(first.ticks) is after end \(second.ticks): read as a negative start "
            + "(\(negative) ticks) of a restarted tick counter; the frame is placed after the "
            + "previous one, and the time between them is not known",
          frame: emitted, location: location), limit: 1)
    } else {
      placed = clock.place(UInt32(truncatingIfNeeded: timing.start))
      noteStep(placed.step, location)
    }
    let next = Proxmark3PendingFrame(
      cells: cells, direction: direction, ticks: placed.ticks, durationTicks: timing.duration,
      sourceTime: timing.sourceTime, location: location)
    return replacePending(with: next)
  }

  /// Whether a row of an ISO 15693 / iCLASS listing (the client's ISO 15693 reader restarts
  /// its counter for each exchange) starts after it ends, with a start more than 2³¹ ticks
  /// ahead of the previous frame's end: a negative start printed as a u32 (the counter
  /// restarted just after the frame began), not a frame across the counter's wrap-around
  /// (whose start follows the frame before it closely). Other listings keep the wrap rule: a
  /// value above the previous one is later, however far.
  private func restarted(_ first: Proxmark3Number, _ second: Proxmark3Number) -> Bool {
    guard state.hint == .iso15693OrIClass, !state.relative,
      !(first.isMicroseconds || second.isMicroseconds), first.ticks > second.ticks,
      first.ticks >= 1 << 31
    else { return false }
    let start = UInt32(truncatingIfNeeded: first.ticks)
    guard let end = state.previousEnd else { return true }
    return start &- clock.raw(of: end) >= 1 << 31
  }

  /// Why a row's start/end columns cannot be read: the client prints them from its 32-bit
  /// tick counter, so a number past 4294967295 ticks (however many digits) was not printed by
  /// it, like text that is no number at all.
  private func timeColumnsProblem(_ start: Range<Int>, _ end: Range<Int>) -> String {
    Proxmark3Number.isNumeral(line, start) && Proxmark3Number.isNumeral(line, end)
      ? "start/end column past the client's 32-bit tick counter (at most 4294967295 ticks)"
      : "start/end columns are not numbers"
  }

  private mutating func readHexDumpLine(_ all: Range<Int>) -> Frame? {
    switch Proxmark3HexDump.parse(line, all) {
    case .timestamp(let ticks):
      state.sawTable = true
      state.hexTimestamp = ticks
      return nil
    case .frame(let direction, let bytes, let declared):
      state.sawTable = true
      return hexFrame(direction, bytes, declared)
    case .emptyRecord:
      state.hexTimestamp = nil
      return nil
    case .notHexDump:
      if state.sawTable { return unreadable("neither a table row nor a hex-dump line") }
      noteHint()  // older clients print the preamble without `[=]`
      noteOtherLog(all)
      return nil
    case .bad(let reason):
      return state.sawTable ? unreadable(reason) : nil
    }
  }

  private mutating func hexFrame(_ direction: Direction, _ bytes: [UInt8], _ declared: Int)
    -> Frame?
  {
    let location = input.location(unit: "line", record: lineNumber, offset: lineOffset)
    if declared != bytes.count {
      log.add(
        "hex length",
        TraceWarning(
          "hex-dump header declares \(declared) bytes, the line holds \(bytes.count); the bytes "
            + "present are used", location: location))
    }
    guard let raw = state.hexTimestamp else {
      return unreadable("hex-dump data line without the `0.%010u` timestamp line before it")
    }
    state.hexTimestamp = nil
    let placed = clock.place(raw)
    noteStep(placed.step, location)
    var cells = Proxmark3DataCells()
    cells.bytes = bytes
    let next = Proxmark3PendingFrame(
      cells: cells, direction: direction, ticks: placed.ticks, durationTicks: nil,
      sourceTime: SourceTime(Int64(raw), .proxmarkTicks), location: location)
    return replacePending(with: next)
  }

  private mutating func replacePending(with next: Proxmark3PendingFrame) -> Frame? {
    let previous = state.pending
    state.pending = next
    state.previousEnd = next.durationTicks.map { next.ticks + $0 } ?? next.ticks
    return previous.map { finish($0) }
  }

  private mutating func finish(_ pending: Proxmark3PendingFrame) -> Frame {
    let index = emitted
    emitted += 1
    var frame = Frame(
      index: index, timeNs: clock.nanosecondsSinceFirst(pending.ticks),
      durationNs: pending.durationTicks.map { Proxmark3.nanoseconds(ticks: $0) },
      sourceTime: pending.sourceTime, direction: pending.direction, data: pending.cells.bytes,
      parityErrors: pending.cells.parityErrors, location: pending.location)
    if pending.cells.emptyRecord { frame.sourceFlags = ["empty-record"] }
    // A listing that names a protocol without type A parity: none is made up for its frames
    // (`Proxmark3TraceWriter.hasTypeAParity`), and a Hitag listing's frames are LF, as the
    // binary importer has them.
    if !state.hint.hasTypeAParity { frame.sourceFlags.append("parity-not-recorded") }
    switch state.hint {
    // The preamble names the protocol: the frames are of it, as the binary importer says of a
    // trace whose parity bits verify (ISO14443A, ISO14443B; a Hitag listing's are LF).
    case .iso14443A: frame.technology = .nfcA
    case .iso14443B: frame.technology = .nfcB
    case .hitag: frame.technology = .lowFrequency
    case .iso15693OrIClass: noteISO15693(&frame)
    default: break
    }
    applyBits(&frame, pending)
    if let lost = pending.cells.lostHighNibble {
      restoreCRCByte(&frame, lost, crcBad: pending.cells.crcColumnBad)
    }
    return frame
  }

  /// A listing whose preamble names ISO 15693 and iCLASS (one line for both): a reader frame
  /// that is an ISO 15693 request (`FrameDecoder.isISO15693Request`; iCLASS commands are not)
  /// and the tag frames after it are NFC-V, so a sniff that starts after the INVENTORY, with
  /// non-addressed requests, is decoded too (`02 20 0A …`, READ SINGLE BLOCK 10, is otherwise
  /// a type B I-block with a CRC_B that verifies).
  private mutating func noteISO15693(_ frame: inout Frame) {
    let data = frame.data
    if frame.direction == .reader {
      state.iso15693Link = FrameDecoder.isISO15693Request(data, crcRequired: !state.iso15693Link)
    } else if !state.iso15693Link, data.count >= 12, data[0] == 0, data[9] == 0xE0,
      CRC.hasValidCRCB(data)
    {
      // An INVENTORY or GET SYSTEM INFORMATION answer (flags 00, DSFID or info flags, the UID
      // ending E0h) to a request the sniffer caught damaged.
      state.iso15693Link = true
    }
    if state.iso15693Link { frame.technology = .nfcV }
  }

  /// Restores the CRC byte whose first digit the client's `[` mark overwrote from the CRC of
  /// the bytes before it (CRC_A or CRC_B, ISO/IEC 14443-3 Annex B; old clients name every
  /// listing ISO14443A, so both are tried) when the row's CRC column does not say `!crc` and
  /// the remaining digit and the second CRC byte agree; otherwise the byte keeps only that
  /// digit, with a warning.
  private mutating func restoreCRCByte(
    _ frame: inout Frame, _ lost: (index: Int, low: UInt8), crcBad: Bool
  ) {
    let data = frame.data
    let crcByte = lost.index == data.count - 2 && lost.index > 0
    if crcByte, !crcBad {
      let body = data[..<lost.index]
      for crc in [CRC.crcA(body), CRC.crcB(body)] {
        let expected = UInt8(crc & 0xFF)
        if expected & 0x0F == lost.low, UInt8(crc >> 8) == data[data.count - 1] {
          frame.data[lost.index] = expected
          return
        }
      }
    }
    log.add(
      "lost CRC digit",
      TraceWarning(
        "the `[` CRC mark overwrote the first hex digit of byte \(lost.index + 1) of "
          + "\(data.count)"
          + (crcBad
            ? " of a frame whose CRC the client found wrong"
            : crcByte ? " and no CRC of the bytes before it agrees with the rest" : "")
          + ": the byte is kept as 0\(Hex.string([lost.low]).suffix(1)) (unknown high digit)",
        frame: frame.index, location: frame.location))
  }

  private mutating func applyBits(_ frame: inout Frame, _ pending: Proxmark3PendingFrame) {
    let cells = pending.cells
    let count = cells.bytes.count
    if let mark = cells.bitsMark {
      if state.hint == .hitag, mark.index == 0, (1...7).contains(mark.bits) {
        frame.data = Proxmark3HexDump.alignMSBFirst(cells.bytes, bits: mark.bits)
        frame.bits = mark.bits
        frame.sourceFlags.append("msb-first")
      } else if mark.index == count - 1, (1...7).contains(mark.bits) {
        frame.bits = mark.bits
      } else if mark.index == count - 1 {
        // A last byte holds 1 to 7 valid bits; (0), (8), (9) are no count the client prints.
        log.add(
          "bits mark",
          TraceWarning(
            "bit-count mark (\(mark.bits)) ignored: expected 1 to 7 valid bits in the last "
              + "byte; the frame is read as whole bytes", frame: frame.index,
            location: frame.location))
      } else {
        log.add(
          "bits mark",
          TraceWarning(
            "bit-count mark (\(mark.bits)) after byte \(mark.index + 1) of \(count) ignored: "
              + "expected it after the last byte", frame: frame.index, location: frame.location))
      }
      return
    }
    if state.hint == .unknown, state.showsISO14443A == nil { noteTechnology(cells.bytes, pending) }
    guard count == 1, let only = cells.bytes.first else { return }
    if let duration = pending.durationTicks {
      let timing = state.hint != .unknown || state.showsISO14443A == true
      if (state.hint.allowsDurationRule && timing) || cells.shortMark {
        frame.bits =
          Proxmark3.shortFrameBits(durationTicks: duration) ?? (cells.shortMark ? 7 : nil)
      }
    } else {
      frame.bits = Proxmark3.shortFrameBits(byte: only, fromReader: pending.direction == .reader)
    }
  }

  /// Settles `state.showsISO14443A` from a frame of a listing that names no protocol: a
  /// reader's 1-byte REQA/WUPA (26/52) of 7-bit duration, or a CRC_A / CRC_B that checks.
  private mutating func noteTechnology(_ bytes: [UInt8], _ pending: Proxmark3PendingFrame) {
    if bytes.count == 1, pending.direction == .reader, bytes[0] == 0x26 || bytes[0] == 0x52,
      let d = pending.durationTicks, Proxmark3.shortFrameBits(durationTicks: d) == 7
    {
      state.showsISO14443A = true
    } else if bytes.count >= 3 {
      if CRC.hasValidCRCA(bytes) {
        state.showsISO14443A = true
      } else if CRC.hasValidCRCB(bytes) {
        state.showsISO14443A = false
      }
    }
  }

  private mutating func noteStep(_ step: TickClock.Step, _ location: SourceLocation) {
    switch step {
    case .first, .forward: return
    case .wrapped:
      log.add(
        "time wrap",
        TraceWarning(
          "time drops by more than 2^31 ticks: read as a wrap-around of the 32-bit tick "
            + "counter (about 316.7 s)", frame: emitted, location: location))
    case .backward:
      log.add(
        "time backwards",
        TraceWarning(
          "start time is earlier than the previous frame's; kept as printed",
          frame: emitted, location: location), limit: 1)
    }
  }

  /// A `-x` hex-dump data row: six hex digits of offset, then a space.
  private static func isHexDumpRow(_ line: [UInt8]) -> Bool {
    line.count > 6 && line[6] == 0x20
      && line.prefix(6).allSatisfy { Hex.nibble($0) != nil }
  }

  /// The start of a table row cut inside its first column: spaces, maybe a colour escape
  /// (`ESC [ … m`), then the digits of the Start time and nothing else.
  private static func isRowStart(_ line: [UInt8]) -> Bool {
    var digits = 0
    var i = 0
    while i < line.count {
      let b = line[i]
      if b == 0x1B {
        // Skip the escape sequence up to its final letter.
        while i < line.count, !(0x40...0x7E).contains(line[i]) || line[i] == 0x5B { i += 1 }
      } else if (0x30...0x39).contains(b) {
        digits += 1
      } else if b != 0x20 && b != 0x09 && b != 0x0D {
        return false
      }
      i += 1
    }
    return digits > 0
  }

  private mutating func unreadable(_ reason: String) -> Frame? {
    if lastLineUnterminated,
      line.contains(Proxmark3Text.pipe) || Self.isHexDumpRow(line) || Self.isRowStart(line)
    {
      // The last row, without its line end, unreadable: the file stops inside it.
      cut = (input.location(unit: "line", record: lineNumber, offset: lineOffset), reason)
      return nil
    }
    log.add(
      "unreadable line",
      TraceWarning(
        "line skipped (\(reason)): `\(Proxmark3Text.excerpt(line))`",
        location: input.location(unit: "line", record: lineNumber, offset: lineOffset)))
    return nil
  }
}

/// A frame whose rows are still being read (continuation rows may follow).
struct Proxmark3PendingFrame {
  var cells: Proxmark3DataCells
  var direction: Direction
  /// Start on the 64-bit tick line (tick equivalent for µs listings).
  var ticks: Int64
  var durationTicks: Int64?
  var sourceTime: SourceTime?
  var location: SourceLocation
}

/// Listing-wide state of the text importer.
struct Proxmark3TextState {
  var hint = Proxmark3ListProtocol.unknown
  /// The preamble named two protocols (the 2015 client's generic one): no hint is kept.
  var hintAmbiguous = false
  /// With no protocol named (`-t raw`): whether the frames so far show ISO 14443-A — a
  /// REQA/WUPA or a frame with a valid CRC_A (true) — or 14443-B, a valid CRC_B (false);
  /// nil until one does. Only 14443-A timing makes a 1-byte frame's duration its bit count.
  var showsISO14443A: Bool?
  var sawTable = false
  /// `-r`: the columns are gap and duration instead of start and end.
  var relative = false
  /// The rows start with the Src column: the Start and End columns were cut away.
  var untimed = false
  /// Frames read from rows without times (their `.order` source time).
  var untimedRows = 0
  /// In a listing of `hf 15` / `hf iclass`: the last reader frame was an ISO 15693 request.
  var iso15693Link = false
  var previousEnd: Int64?
  var hexTimestamp: UInt32?
  var pending: Proxmark3PendingFrame?

  /// Start (tick line, before unwrapping), duration and source time of a row's two columns.
  func timing(_ first: Proxmark3Number, _ second: Proxmark3Number)
    -> (start: Int64, duration: Int64, sourceTime: SourceTime)
  {
    let micro = first.isMicroseconds || second.isMicroseconds
    let start: Int64
    let duration: Int64
    if relative {
      let gap = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: first.ticks)))
      start = (previousEnd ?? 0) + gap
      duration = Int64(UInt32(truncatingIfNeeded: second.ticks))  // printed from a u32
    } else {
      start = first.ticks
      duration = Int64(UInt32(truncatingIfNeeded: second.ticks &- first.ticks))
    }
    let sourceTime =
      micro
      ? SourceTime(relative ? (start * 100 + 678) / 1356 : micros(first), .microseconds)
      : SourceTime(start, .proxmarkTicks)
    return (start, duration, sourceTime)
  }

  private func micros(_ number: Proxmark3Number) -> Int64 {
    var scale: Int64 = 1
    for _ in 0..<min(number.fractionDigits, 12) { scale *= 10 }
    return (number.mantissa + scale / 2) / scale
  }
}
