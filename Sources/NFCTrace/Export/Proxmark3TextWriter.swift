import Foundation

/// Writes frames as the table the Proxmark3 client prints for `trace list -t 14a` (carrier-tick
/// times), as users paste it: optional command echo, the `[+]`/`[=]` preamble, the header, one
/// row per frame (RfidResearchGroup/proxmark3 `client/src/cmdtrace.c` `printTraceLine`, as
/// printed by the client at 1c8c3b78 with colours off).
///
/// Row: ` %10u | %10u | Src |%-72s | CRC | Annotation` — start and end in ticks from the first
/// frame; `Rdr`/`Tag`; 18 bytes per line as `%02X` plus `!` for a parity error (`  ` otherwise),
/// further lines with empty time/source columns; a type A 1-byte frame shorter than 1088 ticks
/// gets `(n)` valid bits (REQA `26(7)`, ACK `0A(4)`) — after its `!` when its parity bit was
/// wrong (`00!(1)`: the client's `(n)` overwrites the `!`, which would lose the error; our
/// importer reads both); a frame before the first is listed at 0; CRC column ` ok ` / ` !! ` by the client's
/// rule (frames of 3+ bytes except 5-byte tag answers and bit-oriented anticollision `9x 50`),
/// blank otherwise; CRC_B for type B, ISO 15693 and other frames without type A parity, CRC-F
/// for FeliCa frames, the client's iCLASS rule for iCLASS frames, none for LF frames. The
/// preamble names the protocol every frame fits (`ListingProtocol`; for a mix, the one most
/// frames fit, ISO14443A on a tie; `Rows.misfits` reports the others); bit counts of other than type A frames are marked `(n)` after the
/// last byte, or, for LF frames, after the right-aligned first byte as in a Hitag listing.
/// Annotations (type A reader frames only): REQA,
/// WUPA, ANTICOLL(-2/-3), SELECT_UID(-2/-3), HALT,
/// READBLOCK(n), WRITEBLOCK(n), EV1 VERSION, PWD-AUTH, RATS; empty for everything else.
/// Event frames are skipped.
public struct Proxmark3TextWriter: Sendable {
  /// The echo line printed before the table, e.g.
  /// `[offline|script] pm3 --> trace list -1 -t 14a`; nil for none.
  public var commandEcho: String?
  /// Print the `[+] Recorded activity …` and `[=] …` lines and the blank line before the header.
  public var includePreamble: Bool

  /// A writer; by default with the preamble and no echo line.
  public init(commandEcho: String? = nil, includePreamble: Bool = true) {
    self.commandEcho = commandEcho
    self.includePreamble = includePreamble
  }

  static let header =
    "      Start |        End | Src | Data (! denotes parity error)"
    + "                                           | CRC | Annotation"
  static let rule =
    "------------+------------+-----+" + String(repeating: "-", count: 73) + "+-----+"
    + String(repeating: "-", count: 20)

  /// The whole listing, lines ending in `\n`.
  public func text(for frames: [Frame]) -> String {
    var rows = Rows(self)
    var body = ""
    for frame in frames { body += rows.rows(frame) }
    return head(traceBytes: rows.traceBytes, listing: rows.listingProtocol) + body
  }

  /// The protocol a listing is for, named on the preamble's last line as the client names it
  /// (`cmdtrace.c`, `CmdTraceList`). Our importer takes the name as the listing's protocol:
  /// ISO 14443-A rules (a 1-byte frame's bits from its duration, type A parity) apply only to
  /// `typeA`.
  public enum ListingProtocol: Sendable {
    /// `trace list -t 14a` (also the listing of mixed technologies).
    case typeA
    /// `trace list -t 14b`: every frame is ISO 14443-B.
    case typeB
    /// `trace list -t felica`: every frame is FeliCa (ISO/IEC 18092 212/424 kbps).
    case felica
    /// `trace list -t 15` / `-t iclass`: ISO 15693 and HID iCLASS frames (the client names
    /// both `ISO15693 / iCLASS`).
    case iso15693IClass
    /// `trace list -t hitag1|hitag2|hitags`: LF frames (Hitag), the first byte printed with
    /// its valid bits right-aligned.
    case hitag

    /// The name on the preamble's last line (`[=] ISO14443B - all times …`).
    public var preambleName: String {
      switch self {
      case .typeA: "ISO14443A"
      case .typeB: "ISO14443B"
      case .felica: "ISO18092 / FeliCa"
      case .iso15693IClass: "ISO15693 / iCLASS"
      case .hitag: "Hitag1 / Hitag2 / HitagS"
      }
    }
  }

  /// The rules a frame's row follows (parity marks, bit count, CRC column, annotation).
  enum RowKind: Sendable, CaseIterable {
    case typeA, typeB, felica, iso15693, iClass, lowFrequency
    /// A frame of no known technology that travelled without type A parity (a Proxmark3 file
    /// without it; ISO 15693 and type B frames the decoder keeps raw): listed with CRC_B, which
    /// ISO 15693's CRC equals (ISO/IEC 13239), and fits a type B or ISO 15693 listing.
    case noTypeA

    init(_ frame: Frame) {
      switch frame.technology {
      case .nfcB: self = .typeB
      case .nfcF: self = .felica
      case .iClass: self = .iClass
      case .nfcV: self = .iso15693
      case .lowFrequency: self = .lowFrequency
      case .nfcA, .unknown:
        if Proxmark3TraceWriter.lowFrequencyBits(frame) != nil {
          self = .lowFrequency
        } else {
          self = Proxmark3TraceWriter.hasTypeAParity(frame) ? .typeA : .noTypeA
        }
      }
    }

    /// The listings that read this kind's rows back as written.
    func fits(_ listing: ListingProtocol) -> Bool {
      switch self {
      case .typeA: listing == .typeA
      case .typeB: listing == .typeB
      case .felica: listing == .felica
      case .iso15693, .iClass: listing == .iso15693IClass
      case .lowFrequency: listing == .hitag
      case .noTypeA: listing == .typeB || listing == .iso15693IClass
      }
    }
  }

  /// The lines before the rows: the echo, the preamble (which gives the size of the frames as
  /// a Proxmark3 tracelog, `traceBytes`, and names `listing`) and the table header.
  public func head(traceBytes: Int, listing: ListingProtocol = .typeA) -> String {
    var out = ""
    if let commandEcho { out += commandEcho + "\n" }
    if includePreamble {
      out += "[+] Recorded activity ( \(traceBytes) bytes )\n"
      out += "[=] start = start of start frame. end = end of frame. src = source of transfer.\n"
      out += "[=] \(listing.preambleName) - all times are in carrier periods (1/13.56MHz)\n\n"
    }
    return out + Self.header + "\n" + Self.rule + "\n"
  }

  /// The table's rows one frame at a time, times counted from the first frame, for writers
  /// that stream: `head(traceBytes:)` with the final `traceBytes` goes before them.
  public struct Rows {
    private let writer: Proxmark3TextWriter
    private var first: Int64?
    private var scratch = Data()
    /// The size so far of the frames as a Proxmark3 tracelog.
    public private(set) var traceBytes = 0
    /// The listing's protocol: the one every frame so far fits (`RowKind.fits`: 14b, FeliCa,
    /// ISO 15693 / iCLASS, Hitag; frames without type A parity fit 14b and 15693, and alone are
    /// taken for ISO 15693, whose frames the decoder keeps raw), ISO 14443-A
    /// for type A frames; for a mix, the one most frames fit (ISO 14443-A on a tie).
    public var listingProtocol: ListingProtocol {
      let kinds = Set(firstOfKind.keys)
      for listing in [ListingProtocol.iso15693IClass, .typeB, .felica, .hitag]
      where !kinds.isEmpty && kinds.allSatisfy({ $0.fits(listing) }) {
        return listing
      }
      // A mix: the protocol most frames fit (a FeliCa capture with one stray ISO 15693 poll
      // stays FeliCa), ISO 14443-A on a tie.
      var best = (ListingProtocol.typeA, fitting(.typeA))
      for listing in [ListingProtocol.iso15693IClass, .typeB, .felica, .hitag] {
        let n = fitting(listing)
        if n > best.1 { best = (listing, n) }
      }
      return best.0
    }

    /// How many frames so far `listing` reads back as written.
    private func fitting(_ listing: ListingProtocol) -> Int {
      countOfKind.reduce(0) { $0 + ($1.key.fits(listing) ? $1.value : 0) }
    }
    /// The first frame the listing's protocol does not fit, and how many there are: its row
    /// will read back by that protocol's rules (a whole byte of a type B frame as a short
    /// frame, an LF bit count lost), so `convert` warns.
    public var misfits: (location: SourceLocation, count: Int)? {
      let listing = listingProtocol
      let odd = firstOfKind.filter { !$0.key.fits(listing) }
      guard let first = odd.values.min(by: { $0.index < $1.index }) else { return nil }
      return (first.location, odd.keys.reduce(0) { $0 + (countOfKind[$1] ?? 0) })
    }
    private var firstOfKind: [RowKind: (index: Int, location: SourceLocation)] = [:]
    private var countOfKind: [RowKind: Int] = [:]

    /// Rows for `writer`'s table.
    public init(_ writer: Proxmark3TextWriter) { self.writer = writer }

    /// The rows of `frame` (none for an event frame).
    public mutating func rows(_ frame: Frame) -> String {
      guard frame.direction != .event else { return "" }
      let kind = RowKind(frame)
      if firstOfKind[kind] == nil { firstOfKind[kind] = (frame.index, frame.location) }
      countOfKind[kind, default: 0] += 1
      scratch.removeAll(keepingCapacity: true)
      Proxmark3TraceWriter.append(frame, to: &scratch)
      traceBytes += scratch.count
      let start = Proxmark3TraceWriter.timestampTicks(frame)
      let origin = first ?? start
      first = origin
      // Times count from the first frame: one before it is listed at 0, not wrapped.
      return writer.rows(frame, start: max(start - origin, 0))
    }
  }

  /// Appends the listing's UTF-8 bytes to `data`.
  public func append(_ frames: [Frame], to data: inout Data) {
    data.append(contentsOf: Array(text(for: frames).utf8))
  }

  /// Writes the listing to `path`.
  /// - Throws: the file system error.
  public func write(_ frames: [Frame], to path: String) throws {
    try Data(text(for: frames).utf8).write(to: URL(fileURLWithPath: path))
  }

  fileprivate func rows(_ frame: Frame, start: Int64) -> String {
    // A listing's End is not limited to a record's u16 duration: the frame's real end.
    let duration = min(max(Proxmark3TraceWriter.durationTicks(frame), 0), Int64(UInt32.max))
    let isTag = frame.direction == .tag
    let kind = RowKind(frame)
    let cells = Self.markedCells(frame, kind: kind, duration: duration)
    let crc = Self.crcColumn(frame.data, kind: kind, isResponse: isTag)
    // The client annotates type A commands only (none in 14b, FeliCa, 15693/iCLASS listings).
    let note = isTag || kind != .typeA ? "" : Self.annotation(frame.data, bits: frame.bits)
    var out = ""
    for (i, cell) in cells.enumerated() {
      let last = i == cells.count - 1
      let padded = cell.padding(toLength: max(72, cell.count), withPad: " ", startingAt: 0)
      let tail = " | \(last ? crc : "    ")| \(last ? note : "")\n"
      if i == 0 {
        let t1 = UInt32(truncatingIfNeeded: start)
        let t2 = UInt32(truncatingIfNeeded: start + duration)
        out +=
          " " + Self.pad10(t1) + " | " + Self.pad10(t2) + " | " + (isTag ? "Tag" : "Rdr")
          + " |" + padded + tail
      } else {
        out += "            |            |     |" + padded + tail
      }
    }
    return out
  }

  /// The data cells with the frame's bit count marked as the client prints it: a type A
  /// 1-byte frame by its duration (`26(7)`, after a parity `!`); an LF frame's first byte with
  /// its valid bits right-aligned and the rest shifted (`18(5) 22`, the Hitag listing, read
  /// back by `Proxmark3HexDump.alignMSBFirst`); any other frame's last byte (`B1(3)`).
  static func markedCells(_ frame: Frame, kind: RowKind, duration: Int64) -> [String] {
    let errors = Set(frame.parityErrors)
    let bits = frame.bits.flatMap { (1...7).contains($0) && !frame.data.isEmpty ? $0 : nil }
    switch kind {
    case .typeA:
      var cells = cellLines(frame.data, parityErrors: errors)
      if frame.data.count == 1, let n = shortBits(duration: duration), !cells.isEmpty {
        cells[0] = String(cells[0].prefix(2)) + (errors.isEmpty ? "" : "!") + "(\(n))"
      }
      return cells
    case .lowFrequency where bits != nil:
      let n = bits ?? 8
      var cells = cellLines(rightAligned(frame.data, bits: n), parityErrors: errors)
      cells[0] = String(cells[0].prefix(2)) + "(\(n)) " + cells[0].dropFirst(4)
      return cells
    default:
      var cells = cellLines(frame.data, parityErrors: errors)
      if let n = bits, let last = cells.popLast() {
        cells.append(String(last.dropLast(2)) + "(\(n))")
      }
      return cells
    }
  }

  /// An LF frame's bits as the Hitag listing prints them: `bits` valid bits of the MSB-first
  /// stream (`Proxmark3TraceWriter.lowFrequencyBits`) right-aligned in the first byte.
  static func rightAligned(_ data: [UInt8], bits: Int) -> [UInt8] {
    let b = UInt8(bits)
    return data.indices.map { j in
      let high = j == 0 ? 0 : data[j - 1] << b
      return high | data[j] >> (8 - b)
    }
  }

  private static func cellLines(_ data: [UInt8], parityErrors: Set<Int>) -> [String] {
    guard !data.isEmpty else { return ["<empty trace - possible error>"] }
    var lines: [String] = []
    var line = ""
    for (j, b) in data.enumerated() {
      line += Hex.string([b]).uppercased() + (parityErrors.contains(j) ? "! " : "  ")
      if j % 18 == 17 {
        lines.append(line)
        line = ""
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }

  private static func pad10(_ v: UInt32) -> String {
    let s = String(v)
    return String(repeating: " ", count: max(10 - s.count, 0)) + s
  }

  /// Valid bits the client shows for a 1-byte frame of `duration` ticks, nil for a whole byte.
  static func shortBits(duration: Int64) -> Int? {
    guard duration < 1088 else { return nil }
    var limit: Int64 = 1088
    var m = 7
    while m > 0 {
      limit -= 128
      if duration > limit { break }
      m -= 1
    }
    return m
  }

  /// The CRC column by the frame's kind: CRC_B for type B, ISO 15693 and frames without type A
  /// parity (ISO 15693's CRC is CRC_B's, ISO/IEC 13239), CRC-F for FeliCa (with or without the
  /// sync code), the iCLASS rule (`iClassCRCColumn`), none for LF, CRC_A otherwise.
  static func crcColumn(_ d: [UInt8], kind: RowKind, isResponse: Bool) -> String {
    switch kind {
    case .typeA: return crcColumn(d, isResponse: isResponse)
    case .typeB, .iso15693, .noTypeA:
      return d.count >= 3 ? (CRC.hasValidCRCB(d) ? " ok " : " !! ") : "    "
    case .felica:
      return d.count >= 3 ? (CRC.isNFCFFrame(d) || CRC.hasNFCFSync(d) ? " ok " : " !! ") : "    "
    case .iClass: return iClassCRCColumn(d, isResponse: isResponse)
    case .lowFrequency: return "    "
    }
  }

  /// The client's `iclass_CRC_check` (`cmdhflist.c`): a reader's READ/READ4/PAGESEL (4 bytes)
  /// and unsecured UPDATE (12) carry a CRC over the bytes after the command byte; a tag's
  /// 10- and 34-byte answers over all of theirs; other answers of 4 bytes or more are listed
  /// ` ok ` as the client does, shorter frames blank. The iCLASS CRC is the ISO 15693
  /// polynomial (reflected 0x8408) preset 0xE012, without the final complement, low byte first.
  static func iClassCRCColumn(_ d: [UInt8], isResponse: Bool) -> String {
    guard d.count >= 4 else { return "    " }
    let body: ArraySlice<UInt8>
    if isResponse {
      guard d.count == 10 || d.count == 34 else { return " ok " }
      body = d[...]
    } else {
      guard d.count == 4 || d.count == 12 else { return "    " }
      body = d.dropFirst()
    }
    let crc = CRC.update(0xE012, body.dropLast(2))
    let ok = d[d.count - 2] == UInt8(crc & 0xFF) && d[d.count - 1] == UInt8(crc >> 8)
    return ok ? " ok " : " !! "
  }

  /// ` ok `, ` !! ` or blank, by the client's `iso14443A_CRC_check`.
  static func crcColumn(_ d: [UInt8], isResponse: Bool) -> String {
    guard d.count >= 3, !(isResponse && d.count == 5) else { return "    " }
    if d[1] == 0x50, (0x93...0x97).contains(d[0]) { return "    " }
    return CRC.hasValidCRCA(d) ? " ok " : " !! "
  }

  /// The client's annotation for the reader commands listed in the type's docs.
  static func annotation(_ d: [UInt8], bits: Int?) -> String {
    guard let op = d.first else { return "" }
    if d.count == 1 {
      return op == 0x26 ? "REQA" : (op == 0x52 ? "WUPA" : "")
    }
    let level = ["", "-2", "-3"]
    switch op {
    case 0x93, 0x95, 0x97:
      let suffix = level[Int(op - 0x93) / 2]
      return (d[1] == 0x70 ? "SELECT_UID" : "ANTICOLL") + suffix
    case 0x50 where d.count == 4 && d[1] == 0x00: return "HALT"
    case 0x30 where d.count == 4: return "READBLOCK(\(d[1]))"
    case 0xA2 where d.count == 8: return "WRITEBLOCK(\(d[1]))"
    case 0x60 where d.count == 3: return "EV1 VERSION"
    case 0x1B where d.count == 7:
      return "PWD-AUTH: 0x" + Hex.string(d[1..<5]).uppercased()
    case 0xE0 where d.count == 4:
      let fsdi = Int(d[1] >> 4)
      let sizes = [16, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024, 2048, 4096]
      return "RATS - FSDI=\(fsdi) (FSD=\(sizes[min(fsdi, 12)])), CID=\(d[1] & 0x0F)"
    default: return ""
    }
  }
}
