import Foundation
import NFCTrace
import TestSupport

/// Frames read straight from the shared real and synthetic traces, for driving the inner
/// layers (APDU, Type 2, Type 4, MIFARE Classic) without the importers or the outer layers.
enum InnerLayerFixtures {
  /// One transmission as the source shows it.
  struct Record {
    var direction: Direction
    /// Bytes as listed (CRC included when the source shows it).
    var bytes: [UInt8]
    /// Valid bits of a short frame (`26(7)`), else nil.
    var bits: Int?
    /// The listing's CRC column (`ok`, `!!`, `A ok`, empty); `pcap` for pcap records.
    var crc: String

    /// The bytes without the trailing CRC_A when it verifies (what the ISO 14443-3 layer
    /// hands on); frames whose CRC fails (`!!`, Crypto1) keep every byte.
    var payload: [UInt8] {
      bytes.count > 2 && CRC.hasValidCRCA(bytes) ? Array(bytes.dropLast(2)) : bytes
    }

    /// A unit for a layer: `payload` minus `dropFirst` leading bytes (an ISO-DEP PCB).
    func unit(_ index: Int, dropFirst: Int = 0) -> LayerUnit {
      LayerUnit(
        direction: direction, bytes: Array(payload.dropFirst(dropFirst)), bits: bits,
        frameIndex: index, timeNs: Int64(index))
    }
  }

  /// Records of a Proxmark3 `trace list -t 14a|7816|mf` listing under
  /// `../shared/traces/derived/proxmark3-text/`; continuation lines are joined, decrypted
  /// `*` lines skipped.
  static func proxmarkListing(_ name: String) throws -> [Record] {
    let path = TestPaths.shared("derived/proxmark3-text/" + name)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var records: [Record] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let columns = line.split(separator: "|", omittingEmptySubsequences: false)
      guard columns.count >= 6 else { continue }
      let source = columns[2].trimmingCharacters(in: .whitespaces)
      let (bytes, bits) = parseData(columns[3])
      let crc = columns[4].trimmingCharacters(in: .whitespaces)
      if source == "Rdr" || source == "Tag" {
        guard !bytes.isEmpty else { continue }
        records.append(
          Record(direction: source == "Rdr" ? .reader : .tag, bytes: bytes, bits: bits, crc: crc))
      } else if source.isEmpty, columns[0].trimmingCharacters(in: .whitespaces).isEmpty,
        var last = records.popLast()
      {
        last.bytes += bytes
        last.crc = crc
        records.append(last)
      }
    }
    return records
  }

  private static func parseData(_ column: Substring) -> ([UInt8], Int?) {
    var bytes: [UInt8] = []
    var bits: Int?
    for token in column.split(separator: " ") {
      var hex = token.replacingOccurrences(of: "!", with: "")
      if let open = hex.firstIndex(of: "(") {
        bits = Int(hex[hex.index(after: open)...].dropLast())
        hex = String(hex[..<open])
      }
      if let value = UInt8(hex, radix: 16) { bytes.append(value) }
    }
    return (bytes, bits)
  }

  /// Transmissions (events 0xFE reader, 0xFF tag) of a classic pcap of link type 264 under
  /// `../shared/traces/`.
  static func pcap264(_ relative: String) throws -> [Record] {
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.shared(relative))))
    var records: [Record] = []
    var offset = 24
    while offset + 16 <= data.count {
      let captured =
        Int(data[offset + 8]) | Int(data[offset + 9]) << 8 | Int(data[offset + 10]) << 16
        | Int(data[offset + 11]) << 24
      let start = offset + 16
      offset = start + captured
      guard offset <= data.count, captured >= 4 else { break }
      let event = data[start + 1]
      guard event == 0xFE || event == 0xFF else { continue }
      records.append(
        Record(
          direction: event == 0xFE ? .reader : .tag, bytes: Array(data[(start + 4)..<offset]),
          bits: nil, crc: "pcap"))
    }
    return records
  }

  /// The records an ISO 14443-3A layer would hand inward, with their indices: drops
  /// REQA/WUPA, anticollision/SELECT (93/95/97), HLTA, Apple ECP (6A) and the tag answers to
  /// them (ATQA, UID, SAK).
  static func afterActivation(_ records: [Record]) -> [(index: Int, record: Record)] {
    var out: [(index: Int, record: Record)] = []
    var skipAnswer = false
    for (index, record) in records.enumerated() {
      if record.direction == .tag {
        if !skipAnswer { out.append((index, record)) }
        skipAnswer = false
        continue
      }
      let b = record.payload
      let isShort = record.bits == 7 || (b.count == 1 && (b[0] == 0x26 || b[0] == 0x52))
      let isAnticollision = [0x93, 0x95, 0x97].contains(b.first) && b.count >= 2
      let isHalt = b == [0x50, 0x00]
      let isECP = b.first == 0x6A
      skipAnswer = isShort || isAnticollision || isHalt || isECP
      if !skipAnswer { out.append((index, record)) }
    }
    return out
  }
}
