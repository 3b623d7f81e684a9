import Foundation
import NFCTrace

/// The NCI packets of an Android NFC snoop log.
///
/// Android's NFC stack (libnfc-nci `debug_nfcsnoop.cc`) keeps the last NCI packets in a ring
/// buffer and prints it in `adb shell dumpsys nfc` and in bug reports as a section
/// `--- BEGIN:NFCSNOOP_LOG_SUMMARY (N bytes in) ---` … `--- END:NFCSNOOP_LOG_SUMMARY ---` of
/// base64 (128-character lines). Newer stacks add a `NFCSNOOP_VS_LOG_SUMMARY` section of
/// vendor notifications, which holds no tag traffic and is skipped.
///
/// Decoded, a section is a 9-byte preamble — version `01`, then the time of the newest packet
/// in microseconds since the Unix epoch (u64, little-endian; the field is named `_ms` in the
/// source but holds µs) — followed by a zlib stream of records: length (u16), time since the
/// previous record in µs (u32), `is_received` (u8: 1 = NFCC → host), then the NCI packet.
/// Times are recovered backwards from the preamble's.
struct NFCSnoopLog {
  /// One NCI packet with its time and where it was found.
  struct Record {
    /// Microseconds since the Unix epoch; from the first record of a damaged section (whose
    /// newest record, the time reference, is lost) when `timeIsRelative`.
    var timeUs: Int64
    var timeIsRelative = false
    var received: Bool
    var packet: [UInt8]
    /// 1-based record number in the file (sections counted in order).
    var number: Int
    /// Byte offset of the record in the section's decompressed data.
    var offset: Int
  }

  /// Why the log cannot be read, with the byte offset in the file (or in the decompressed data
  /// when `decompressed`).
  struct Problem: Error {
    var message: String
    var offset: Int
    var decompressed = false
  }

  /// What a file holds: the records of every `NFCSNOOP_LOG_SUMMARY` section (text) — or of the
  /// file itself when it is the decoded binary — oldest first, warnings, and the damage that
  /// stopped reading (the records before it are kept).
  struct Contents {
    var records: [Record] = []
    /// Records met in the file, those dropped as repeats included: the next one's number is
    /// this plus one.
    var recordsRead = 0
    /// Warnings with the byte offset in the file they concern.
    var warnings: [(message: String, offset: Int)] = []
    var damage: Problem?
  }

  /// Reads `bytes`.
  /// - Throws: `Problem` at offset 0 when the file holds no snoop log at all.
  static func contents(_ bytes: Data) throws(Problem) -> Contents {
    let sections = textSections(bytes)
    var out = Contents()
    if sections.isEmpty {
      guard bytes.first == 0x01, bytes.count >= 9 else {
        throw Problem(
          message: "no NFC snoop log: expected a '--- BEGIN:NFCSNOOP_LOG_SUMMARY' section (from "
            + "'adb shell dumpsys nfc' or a bug report) or its decoded binary (version 01)",
          offset: 0)
      }
      decode([UInt8](bytes), fileOffset: { $0 }, into: &out)
      return out
    }
    var total = 0
    for section in sections where out.damage == nil {
      let base64 = base64Prefix(section.text)
      let binary = Data(base64Encoded: base64.text) ?? Data()
      if let stop = base64.stop {
        out.damage = Problem(message: stop.message, offset: section.offset + stop.index)
      }
      guard binary.count >= 9 else {
        if base64.stop == nil {
          out.warnings.append(("snoop section is empty", section.offset))
        }
        continue
      }
      guard total < fileLimit else {
        out.warnings.append(
          (
            "snoop sections past \(fileLimit >> 20) MiB of decompressed records are not read "
              + "(a phone keeps 256 KiB): this section and later ones", section.offset
          ))
        break
      }
      let damage = out.damage
      total += decode(
        [UInt8](binary), fileOffset: { section.offset + base64.textOffset(ofDecoded: $0) },
        into: &out)
      // Bad base64 stops the section first: the cut stream it leaves is its consequence.
      if let damage { out.damage = damage }
    }
    return out
  }

  /// The base64 of `text` (whitespace skipped) up to its padding, the first byte that is not
  /// base64, or its end, padded to whole 4-character groups so that a cut or a lost character
  /// still decodes up to the damage (a last group of one character, 6 bits, holds no byte and
  /// is dropped); and where and why the base64 ended early, if it did.
  private static func base64Prefix(_ text: [UInt8]) -> Base64Text {
    var chars: [UInt8] = []
    chars.reserveCapacity(text.count)
    var groupStarts: [Int] = []
    var stop: (index: Int, message: String)?
    var padded = false
    scan: for (i, c) in text.enumerated() {
      switch c {
      case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F:
        guard !padded else {
          stop = (
            i,
            "base64 continues after its padding '=': the text between the BEGIN and END "
              + "lines must be one base64 block"
          )
          break scan
        }
        if chars.count % 4 == 0 { groupStarts.append(i) }
        chars.append(c)
      case 0x3D: padded = true
      case 0x20, 0x09, 0x0A, 0x0D: continue
      default:
        stop = (
          i,
          "byte \(Hex.string([c])) is not base64: the text between the BEGIN and END "
            + "lines must be base64 only"
        )
        break scan
      }
    }
    if chars.count % 4 == 1 { chars.removeLast() }
    if chars.count % 4 != 0 { chars += Array(repeating: 0x3D, count: 4 - chars.count % 4) }
    return Base64Text(
      text: String(decoding: chars, as: UTF8.self), stop: stop, groupStarts: groupStarts)
  }

  /// A section's base64, where it ended early, and the byte offset in the section text of each
  /// 4-character group (3 decoded bytes), to name the text behind a decoded byte.
  private struct Base64Text {
    var text: String
    var stop: (index: Int, message: String)?
    var groupStarts: [Int]

    /// The section-text offset of decoded byte `b`.
    func textOffset(ofDecoded b: Int) -> Int {
      guard !groupStarts.isEmpty else { return 0 }
      return groupStarts[min(max(0, b / 3), groupStarts.count - 1)]
    }
  }

  /// Decompressed bytes read per section, and in all: a phone's ring buffer holds 256 KiB of
  /// records (libnfc-nci `NFCSNOOP_MEM_BUFFER_SIZE`), so more is not a snoop log.
  static let sectionLimit = 4 << 20
  static let fileLimit = 16 << 20

  /// The base64 text of each LOG_SUMMARY section and the byte offset of its first line.
  private static func textSections(_ bytes: Data) -> [(text: [UInt8], offset: Int)] {
    let begin = Array("--- BEGIN:NFCSNOOP_LOG_SUMMARY".utf8)
    let end = Array("--- END:NFCSNOOP_LOG_SUMMARY".utf8)
    var out: [([UInt8], Int)] = []
    var i = bytes.startIndex
    while let start = find(begin, in: bytes, from: i) {
      let body = TextLines.line(in: bytes, from: start).next
      let stop = find(end, in: bytes, from: body) ?? bytes.endIndex
      out.append((Array(bytes[body..<stop]), body - bytes.startIndex))
      i = stop
    }
    return out
  }

  private static func find(_ needle: [UInt8], in bytes: Data, from: Int) -> Int? {
    guard let first = needle.first else { return nil }
    var i = from
    while let at = bytes[i...].firstIndex(of: first) {
      if bytes.count - at >= needle.count, bytes[at..<(at + needle.count)].elementsEqual(needle) {
        return at
      }
      i = at + 1
    }
    return nil
  }

  /// Preamble, inflate, records; damage goes to `out.damage`, after the records before it.
  /// `fileOffset(b)`: where in the file decoded byte `b` of the section came from. Returns
  /// the number of decompressed bytes.
  @discardableResult
  private static func decode(
    _ binary: [UInt8], fileOffset: (Int) -> Int, into out: inout Contents
  ) -> Int {
    guard binary[0] == 0x01 else {
      out.damage = Problem(
        message: "snoop log version \(binary[0]) is not supported (expected 1)",
        offset: fileOffset(0))
      return 0
    }
    var newest: Int64 = 0
    for k in 0..<8 { newest |= Int64(binary[1 + k]) << (8 * k) }
    guard binary.count > 9 else { return 0 }  // an empty ring buffer
    var data: [UInt8]
    var inflateDamage: Problem?
    do {
      let inflated = try Inflate.zlib(Array(binary[9...]), limit: sectionLimit)
      data = inflated.bytes
      let rest = binary.count - 9 - inflated.consumed
      if rest > 0 {
        out.warnings.append(
          (
            "\(rest) bytes after the end of the snoop log's compressed stream are not part of "
              + "it and are ignored", fileOffset(9 + inflated.consumed)
          ))
      }
    } catch {
      data = error.partial
      inflateDamage = Problem(
        message: "the snoop log's compressed data cannot be read past \(error.partial.count) "
          + "decompressed bytes: \(error.message)", offset: fileOffset(9 + error.consumed))
    }
    var (records, recordDamage) = records(
      data, newestUs: newest, complete: inflateDamage == nil,
      afterUs: out.records.last?.timeUs ?? 0)
    // Numbered through the file, as the importer's locations count them (repeats included).
    for k in records.indices { records[k].number += out.recordsRead }
    out.recordsRead += records.count
    let repeated = dropRepeats(&records, of: out.records)
    if repeated > 0 {
      out.warnings.append(
        (
          "this snoop section repeats \(repeated) record(s) of an earlier one (the same ring "
            + "buffer dumped again: same time to the µs, same packets, up to the earlier one's "
            + "end); shown once", fileOffset(0)
        ))
    }
    if let first = records.first, let last = out.records.last, !first.timeIsRelative,
      !last.timeIsRelative, first.timeUs < last.timeUs
    {
      out.warnings.append(
        (
          "this snoop section starts \((last.timeUs - first.timeUs) / 1000) ms before the end of "
            + "an earlier one (an older dump after a newer one): its records are shown after "
            + "those, with times going back", fileOffset(0)
        ))
    }
    out.records += records
    out.damage = inflateDamage ?? recordDamage
    return data.count
  }

  /// Removes from `records` the run an earlier section of the file already holds: a second
  /// `dumpsys nfc` appended to the first prints the ring buffer again, so its first records
  /// are the earlier section's last ones (its oldest may have rotated out). The run is the
  /// longest prefix of `records` equal — absolute time (µs), direction, packet — to the
  /// earlier records from the first one's match to their end; a prefix that stops matching
  /// before that end is no repeat (two logs whose times happen to meet) and nothing is
  /// removed. Returns how many were removed.
  private static func dropRepeats(_ records: inout [Record], of earlier: [Record]) -> Int {
    func same(_ a: Record, _ b: Record) -> Bool {
      a.timeUs == b.timeUs && a.received == b.received && a.packet == b.packet
    }
    guard let first = records.first, !first.timeIsRelative,
      let start = earlier.lastIndex(where: { !$0.timeIsRelative && same($0, first) })
    else { return 0 }
    // The match that begins the longest run: the earliest of equal records at that time.
    var j = start
    while j > 0, same(earlier[j - 1], first) { j -= 1 }
    var k = 0
    while k < records.count, j + k < earlier.count, same(earlier[j + k], records[k]) { k += 1 }
    guard j + k == earlier.count else { return 0 }
    records.removeFirst(k)
    return k
  }

  /// The records of decompressed data. The preamble holds the newest record's time and each
  /// delta is from the record before, so times are counted back from the last record when the
  /// data is `complete`; else forward from `afterUs` (the last time of an earlier section, or 0;
  /// `timeIsRelative`).
  private static func records(_ d: [UInt8], newestUs: Int64, complete: Bool, afterUs: Int64) -> (
    [Record], Problem?
  ) {
    var out: [Record] = []
    var deltas: [Int64] = []
    var damage: Problem?
    var i = 0
    while i < d.count {
      guard i + 7 <= d.count else {
        damage = Problem(
          message: "record header cut short (7 bytes expected, "
            + "\(d.count - i) left)", offset: i, decompressed: true)
        break
      }
      let length = Int(d[i]) | Int(d[i + 1]) << 8
      let delta =
        Int64(d[i + 2]) | Int64(d[i + 3]) << 8 | Int64(d[i + 4]) << 16 | Int64(d[i + 5]) << 24
      guard i + 7 + length <= d.count else {
        damage = Problem(
          message: "NCI packet of \(length) bytes runs past the end "
            + "of the log", offset: i, decompressed: true)
        break
      }
      out.append(
        Record(
          timeUs: 0, received: d[i + 6] != 0, packet: Array(d[(i + 7)..<(i + 7 + length)]),
          number: out.count + 1, offset: i))
      deltas.append(delta)
      i += 7 + length
    }
    if complete && damage == nil {
      var t = newestUs
      for k in stride(from: out.count - 1, through: 0, by: -1) {
        out[k].timeUs = t
        t &-= deltas[k]
      }
    } else {
      // After an earlier section's records, so the trace's times still go forward.
      var t = afterUs
      for k in out.indices {
        if k > 0 { t &+= deltas[k] }
        out[k].timeUs = t
        out[k].timeIsRelative = true
      }
    }
    return (out, damage)
  }
}
