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
/// blank otherwise; CRC_B for type B frames and CRC-F for FeliCa frames. Annotations: REQA,
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
  /// (`cmdtrace.c`, `CmdTraceList`).
  public enum ListingProtocol: Sendable {
    /// `trace list -t 14a` (also the listing of mixed technologies).
    case typeA
    /// `trace list -t 14b`: every frame is ISO 14443-B.
    case typeB
    /// `trace list -t felica`: every frame is FeliCa (ISO/IEC 18092 212/424 kbps).
    case felica

    var preambleName: String {
      switch self {
      case .typeA: "ISO14443A"
      case .typeB: "ISO14443B"
      case .felica: "ISO18092 / FeliCa"
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
    /// The listing's protocol: 14b or FeliCa when every frame so far is of that technology
    /// (and there was one), 14a otherwise.
    public var listingProtocol: ListingProtocol {
      switch (sawTypeB, sawFeliCa, sawOther) {
      case (true, false, false): .typeB
      case (false, true, false): .felica
      default: .typeA
      }
    }
    private var sawTypeB = false
    private var sawFeliCa = false
    private var sawOther = false

    /// Rows for `writer`'s table.
    public init(_ writer: Proxmark3TextWriter) { self.writer = writer }

    /// The rows of `frame` (none for an event frame).
    public mutating func rows(_ frame: Frame) -> String {
      guard frame.direction != .event else { return "" }
      switch frame.technology {
      case .nfcB: sawTypeB = true
      case .nfcF: sawFeliCa = true
      default: sawOther = true
      }
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
    let duration = min(max(Proxmark3TraceWriter.durationTicks(frame), 0), 0xFFFF)
    let isTag = frame.direction == .tag
    // The client checks CRC_B and annotates nothing of type A in a 14b listing.
    let typeB = frame.technology == .nfcB
    var cells = cellLines(frame.data, parityErrors: Set(frame.parityErrors))
    if frame.data.count == 1, Proxmark3TraceWriter.hasTypeAParity(frame),
      let bits = Self.shortBits(duration: duration), !cells.isEmpty
    {
      cells[0] = String(cells[0].prefix(2)) + (frame.parityErrors.isEmpty ? "" : "!") + "(\(bits))"
    }
    // FeliCa frames carry CRC-F (the client's `felica_CRC_check`), with or without the sync
    // code before LEN; type A opcodes mean nothing in them.
    let typeF = frame.technology == .nfcF
    let crc =
      typeB
      ? (frame.data.count >= 3 ? (CRC.hasValidCRCB(frame.data) ? " ok " : " !! ") : "    ")
      : typeF
        ? (frame.data.count >= 3
          ? (CRC.isNFCFFrame(frame.data) || CRC.hasNFCFSync(frame.data) ? " ok " : " !! ")
          : "    ")
        : Self.crcColumn(frame.data, isResponse: isTag)
    let note = isTag || typeB || typeF ? "" : Self.annotation(frame.data, bits: frame.bits)
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

  private func cellLines(_ data: [UInt8], parityErrors: Set<Int>) -> [String] {
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
