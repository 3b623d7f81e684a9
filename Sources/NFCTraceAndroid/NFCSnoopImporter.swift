import Foundation
import NFCTrace

/// Imports Android NFC snoop logs (`NFCSNOOP_LOG_SUMMARY` in `adb shell dumpsys nfc` or a bug
/// report, see `NFCSnoopLog`): the NCI packets between the phone's NFC controller and the
/// Android NFC stack, turned into tag frames by `NCIInterpreter`.
///
/// Frames: `timeNs` from the first packet, `sourceTime` in µs since the Unix epoch; CRC
/// `.notCaptured` (the controller adds and checks it); location unit `NCI packet` with the
/// record number and its byte offset in the section's decompressed data. Reader frames are
/// timed when the stack handed them to the controller, tag frames when the answer came back.
///
/// Errors (`TraceError`): `.unsupported` when the file holds no snoop section (thrown by
/// `init`); `.malformed` for bad base64, a damaged or cut zlib stream, an unknown version or a
/// record running past the end, thrown by the `next()` after the frames of the records before
/// the damage. Byte offsets are in the file for the text, in the section's decompressed data
/// for records (unit `NCI packet`).
public struct NFCSnoopImporter: TraceImporter {
  /// `android-nfcsnoop`.
  public static let format = TraceFormat(
    name: "android-nfcsnoop",
    summary: "Android NFC snoop log (NFCSNOOP_LOG_SUMMARY of dumpsys nfc / a bug report): NCI "
      + "packets of the phone's reader/writer mode",
    sniff: { head, _ in NFCSnoopImporter.sniff(head) },
    open: { try NFCSnoopImporter(input: $0) }, sourceTimeIsDate: true)

  private let path: String
  private var records: [NFCSnoopLog.Record] = []
  private var nextRecord = 0
  private var finished = false
  /// The damage that stopped reading, thrown after the frames before it.
  private var damage: TraceError?
  private var nci = NCIInterpreter()
  private var queue: [Frame] = []
  private var queueHead = 0
  private var emitted = 0
  private var firstUs: Int64?
  /// Problems met so far that did not stop the import.
  public private(set) var warnings: [TraceWarning] = []

  /// Reads and decompresses the snoop sections of `input`.
  /// - Throws: `TraceError` `.unsupported` when there is no snoop section, `.malformed` when
  ///   the section cannot be decoded at all.
  public init(input: TraceInput) throws {
    path = input.path
    let contents: NFCSnoopLog.Contents
    do {
      contents = try NFCSnoopLog.contents(input.bytes)
    } catch {
      throw TraceError(
        .unsupported, at: SourceLocation(file: input.path, unit: "line", record: 1, offset: 0),
        error.message)
    }
    records = contents.records
    // Capped like every importer's, and lines counted in one pass: a file of many sections
    // can give many warnings.
    var lines = LineCounter(input.bytes)
    for w in contents.warnings {
      warnings.appendCapped(
        TraceWarning(
          w.message,
          location: SourceLocation(
            file: input.path, unit: "line", record: lines.line(at: w.offset), offset: w.offset)))
      if warnings.count > TraceWarning.limit { break }
    }
    if let problem = contents.damage {
      let location =
        problem.decompressed
        ? SourceLocation(
          file: input.path, unit: "NCI packet", record: contents.recordsRead + 1,
          offset: problem.offset)
        : SourceLocation(
          file: input.path, unit: "line", record: Self.line(input.bytes, problem.offset),
          offset: problem.offset)
      damage = TraceError(.malformed, at: location, problem.message)
      if records.contains(where: \.timeIsRelative) {
        warnings.append(
          TraceWarning(
            "the snoop log is damaged: its frames are timed from the first packet, not by the "
              + "clock", frame: nil, location: location))
      }
    }
  }

  /// The 1-based line holding byte `offset` (lines end with LF, CR LF or CR: `TextLines`).
  private static func line(_ bytes: Data, _ offset: Int) -> Int {
    var lines = LineCounter(bytes)
    return lines.line(at: offset)
  }

  /// The next frame, nil at the end.
  public mutating func next() throws -> Frame? {
    while queueHead == queue.count {
      queue.removeAll(keepingCapacity: true)
      queueHead = 0
      guard nextRecord < records.count else {
        if !finished {
          finished = true
          let location = SourceLocation(
            file: path, unit: "NCI packet", record: records.count, offset: records.last?.offset ?? 0
          )
          for message in nci.finish().warnings {
            warnings.appendCapped(TraceWarning(message, frame: nil, location: location))
          }
        }
        if let damage {
          self.damage = nil
          throw damage
        }
        return nil
      }
      interpret(records[nextRecord])
      nextRecord += 1
    }
    defer { queueHead += 1 }
    return queue[queueHead]
  }

  private mutating func interpret(_ r: NFCSnoopLog.Record) {
    let location = SourceLocation(
      file: path, unit: "NCI packet", record: r.number, offset: r.offset)
    let out = nci.packet(r.packet, received: r.received)
    for message in out.warnings {
      warnings.appendCapped(TraceWarning(message, frame: nil, location: location))
    }
    let first = firstUs ?? r.timeUs
    firstUs = first
    for f in out.frames {
      queue.append(
        Frame(
          index: emitted, timeNs: (r.timeUs &- first) &* 1000,
          sourceTime: r.timeIsRelative ? nil : SourceTime(r.timeUs, .microseconds),
          direction: f.direction,
          event: f.event, data: f.data, bits: f.bits, crc: f.crc, technology: f.technology,
          sourceFlags: f.flags, location: location))
      emitted += 1
    }
  }

  /// Confidence that `head` starts an NFC snoop log: 95 with the section marker in view, 60
  /// for the start of a bug report or of `dumpsys nfc` output (the section comes later), 50
  /// for the decoded binary (version `01`, 8 bytes of time, then a zlib header: CMF `78` and a
  /// FLG that makes CMF·256 + FLG a multiple of 31, RFC 1950 §2.2).
  static func sniff(_ head: [UInt8]) -> Int {
    if head.count >= 11, head[0] == 0x01, head[9] == 0x78,
      (UInt16(head[9]) << 8 | UInt16(head[10])) % 31 == 0
    {
      return 50
    }
    let text = String(decoding: head, as: UTF8.self)
    if text.contains("NFCSNOOP_LOG_SUMMARY") { return 95 }
    return startsBugReport(head) ? 60 : 0
  }

  /// A bug report's first two lines: a rule of `=`, then `== dumpstate` (any line end).
  private static func startsBugReport(_ head: [UInt8]) -> Bool {
    guard head.starts(with: repeatElement(UInt8(ascii: "="), count: 56)) else { return false }
    let second = TextLines.line(in: head, from: 0).next
    return head[second...].starts(with: "== dumpstate".utf8)
  }
}

/// The trace formats of this module, for registration in a `FormatRegistry`.
public enum AndroidFormats {
  /// `android-nfcsnoop`.
  public static let all: [TraceFormat] = [NFCSnoopImporter.format]
}

/// 1-based line numbers of byte offsets, counted forward from the last offset asked (offsets
/// come in increasing order; an earlier one restarts the count). Lines end with LF, CR LF or
/// CR (`TextLines`).
private struct LineCounter {
  private let bytes: Data
  private var position: Int
  private var line = 1

  init(_ bytes: Data) {
    self.bytes = bytes
    position = bytes.startIndex
  }

  mutating func line(at offset: Int) -> Int {
    let target = bytes.index(bytes.startIndex, offsetBy: min(max(offset, 0), bytes.count))
    if target < position {
      position = bytes.startIndex
      line = 1
    }
    line += TextLines.count(in: bytes, position..<target)
    position = target
    return line
  }
}
