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
    /// 1-based record number in its section.
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
    var warnings: [String] = []
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
      decode([UInt8](bytes), fileOffset: 0, into: &out)
      return out
    }
    for section in sections where out.damage == nil {
      let (base64, bad) = base64Prefix(section.text)
      let binary = Data(base64Encoded: base64) ?? Data()
      if let bad {
        out.damage = Problem(
          message: "byte \(Hex.string([section.text[bad]])) is not base64: the text between "
            + "the BEGIN and END lines must be base64 only", offset: section.offset + bad)
      }
      guard binary.count >= 9 else {
        if bad == nil {
          out.warnings.append("snoop section at byte offset \(section.offset) is empty")
        }
        continue
      }
      let damage = out.damage
      decode([UInt8](binary), fileOffset: section.offset, into: &out)
      // Bad base64 stops the section first: the cut stream it leaves is its consequence.
      if let damage { out.damage = damage }
    }
    return out
  }

  /// The longest whole-quantum base64 prefix of `text` (whitespace skipped) and the index of the
  /// first byte that is neither base64 nor whitespace.
  private static func base64Prefix(_ text: [UInt8]) -> (String, Int?) {
    var chars: [UInt8] = []
    chars.reserveCapacity(text.count)
    for (i, c) in text.enumerated() {
      switch c {
      case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F, 0x3D: chars.append(c)
      case 0x20, 0x09, 0x0A, 0x0D: continue
      default:
        chars.removeLast(chars.count % 4)
        return (String(decoding: chars, as: UTF8.self), i)
      }
    }
    return (String(decoding: chars, as: UTF8.self), nil)
  }

  /// The base64 text of each LOG_SUMMARY section and the byte offset of its first line.
  private static func textSections(_ bytes: Data) -> [(text: [UInt8], offset: Int)] {
    let begin = Array("--- BEGIN:NFCSNOOP_LOG_SUMMARY".utf8)
    let end = Array("--- END:NFCSNOOP_LOG_SUMMARY".utf8)
    var out: [([UInt8], Int)] = []
    var i = bytes.startIndex
    while let start = find(begin, in: bytes, from: i) {
      let lineEnd = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
      let body = min(lineEnd + 1, bytes.endIndex)
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
  private static func decode(_ binary: [UInt8], fileOffset: Int, into out: inout Contents) {
    guard binary[0] == 0x01 else {
      out.damage = Problem(
        message: "snoop log version \(binary[0]) is not supported (expected 1)",
        offset: fileOffset)
      return
    }
    var newest: Int64 = 0
    for k in 0..<8 { newest |= Int64(binary[1 + k]) << (8 * k) }
    guard binary.count > 9 else { return }  // an empty ring buffer
    var data: [UInt8]
    var inflateDamage: Problem?
    do {
      data = try Inflate.zlib(Array(binary[9...]), limit: 64 << 20)
    } catch {
      data = error.partial
      inflateDamage = Problem(
        message: "the snoop log's compressed data cannot be read past \(error.partial.count) "
          + "decompressed bytes: \(error.message)", offset: fileOffset)
    }
    let (records, recordDamage) = records(data, newestUs: newest, complete: inflateDamage == nil)
    out.records += records
    out.damage = inflateDamage ?? recordDamage
  }

  /// The records of decompressed data. The preamble holds the newest record's time and each
  /// delta is from the record before, so times are counted back from the last record when the
  /// data is `complete`; else forward from 0 (`timeIsRelative`).
  private static func records(_ d: [UInt8], newestUs: Int64, complete: Bool) -> (
    [Record], Problem?
  ) {
    var out: [Record] = []
    var deltas: [Int64] = []
    var damage: Problem?
    var i = 0
    while i < d.count {
      guard i + 7 <= d.count else {
        damage = Problem(
          message: "record \(out.count + 1): header cut short (7 bytes expected, "
            + "\(d.count - i) left)", offset: i, decompressed: true)
        break
      }
      let length = Int(d[i]) | Int(d[i + 1]) << 8
      let delta =
        Int64(d[i + 2]) | Int64(d[i + 3]) << 8 | Int64(d[i + 4]) << 16 | Int64(d[i + 5]) << 24
      guard i + 7 + length <= d.count else {
        damage = Problem(
          message: "record \(out.count + 1): NCI packet of \(length) bytes runs past the end "
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
      var t: Int64 = 0
      for k in out.indices {
        if k > 0 { t &+= deltas[k] }
        out[k].timeUs = t
        out[k].timeIsRelative = true
      }
    }
    return (out, damage)
  }
}
