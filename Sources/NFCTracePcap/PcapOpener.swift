import CPcap
import Foundation
import NFCTrace

/// File magics of pcap (libpcap "savefile" header) and pcapng, as the first four bytes.
///
/// pcap: 0xA1B2C3D4 (µs time stamps) and 0xA1B23C4D (ns time stamps), written in the
/// writer's byte order; 0xA1B2CD34 is the µs "modified" (Kuznetzov) variant libpcap also
/// reads. pcapng: Section Header Block type 0x0A0D0D0A (a palindrome).
/// Sources: libpcap `sf-pcap.c` / pcap-savefile(5); IETF draft-ietf-opsawg-pcapng §4.1.
enum PcapMagic {
  /// pcap with microsecond time stamps (both byte orders).
  static let microsecond: Set<[UInt8]> = [
    [0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1],
    [0xA1, 0xB2, 0xCD, 0x34], [0x34, 0xCD, 0xB2, 0xA1],
  ]
  /// pcap with nanosecond time stamps (both byte orders).
  static let nanosecond: Set<[UInt8]> = [[0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1]]
  /// The "modified" variant, whose record headers are 24 bytes instead of 16.
  static let modified: Set<[UInt8]> = [[0xA1, 0xB2, 0xCD, 0x34], [0x34, 0xCD, 0xB2, 0xA1]]
  /// pcapng Section Header Block type.
  static let pcapng: [UInt8] = [0x0A, 0x0D, 0x0D, 0x0A]
}

/// Opens a pcap/pcapng input for `PcapImporter`: libpcap handle, packet positions, time unit,
/// and the pcapng interface filtering.
struct PcapOpener {
  /// What the importer starts from.
  struct Opened {
    var source: PcapSource?
    /// The link type of the packets read (one of `PcapLinkType.supported`).
    var linkType = PcapLinkType.iso14443
    var positions = PacketPositions()
    var timeUnit: SourceTime.Unit = .nanoseconds
    var endError: TraceError?
    var nfcgateByInterfaces = false
    var warnings: [TraceWarning] = []
  }

  let input: TraceInput

  func open() throws -> Opened {
    let magic = [UInt8](input.bytes.prefix(4))
    guard !input.bytes.isEmpty else {
      throw TraceError(.truncated, at: here(0), "empty file, expected a pcap or pcapng header")
    }
    if magic == PcapMagic.pcapng { return try openPcapng() }
    return try openPcap(
      microseconds: PcapMagic.microsecond.contains(magic),
      fixedRecordHeader: PcapMagic.microsecond.contains(magic)
        || PcapMagic.nanosecond.contains(magic)
        ? !PcapMagic.modified.contains(magic) : false)
  }

  /// A place in the file's headers, in no packet: named by its byte offset alone.
  private func here(_ offset: Int) -> SourceLocation {
    input.location(unit: "byte", record: 0, offset: offset)
  }

  private func openPcap(microseconds: Bool, fixedRecordHeader: Bool) throws -> Opened {
    var opened = Opened()
    let source = try openSource()
    if fixedRecordHeader { source.recordHeaderBytes = 16 }
    guard PcapLinkType.supported.contains(source.linkType) else {
      throw PcapLinkType.unsupported(source.linkType, at: here(0))
    }
    opened.source = source
    opened.linkType = source.linkType
    opened.timeUnit = microseconds ? .microseconds : .nanoseconds
    return opened
  }

  private func openPcapng() throws -> Opened {
    let layout = input.bytes.withUnsafeBytes { PcapngInterfaceFilter.walk($0) }
    var opened = Opened()
    opened.endError = layout.damage.map { damageError($0, layout) }
    guard let first = layout.interfaces.first else {
      // A section header with nothing after it holds no packets; damage is reported as such.
      if let error = opened.endError { throw error }
      // Packets without any IDB (a lone Simple Packet Block): libpcap reads nothing and says
      // nothing, and their link type cannot be known.
      if let packet = layout.packetOffsets.first {
        let n = layout.packetOffsets.count
        throw TraceError(
          .malformed, at: input.location(unit: "packet", record: 1, offset: packet),
          "\(n) packet block\(n == 1 ? "" : "s") but no Interface Description Block: "
            + "expected one before the first packet, giving its link type (pcapng §4.2)")
      }
      return opened
    }
    // libpcap refuses such a first IDB as "too short" at byte offset 0.
    if let problem = first.optionProblem {
      throw TraceError(.malformed, at: here(problem.offset), problem.message)
    }
    let linkTypes = Set(layout.interfaces.map(\.linkType))
    // Interfaces with packets first: an empty ISO 14443 interface beside a USB one with the
    // reader's traffic must not hide it.
    let withPackets = layout.interfaces.filter { $0.packetCount > 0 }.map(\.linkType)
    guard
      let linkType = PcapLinkType.preferred(withPackets)
        ?? PcapLinkType.preferred(layout.interfaces.map(\.linkType)),
      let chosen = layout.interfaces.first(where: { $0.linkType == linkType })
    else {
      throw PcapLinkType.unsupported(first.linkType, at: here(first.offset))
    }
    opened.linkType = linkType
    opened.timeUnit = chosen.tsresol == nil || chosen.tsresol == 6 ? .microseconds : .nanoseconds
    opened.nfcgateByInterfaces =
      linkType == PcapLinkType.iso14443 && NFCGatePrefix.matchesInterfaces(linkTypes)
    // Two interfaces of the chosen link type in one section (two sniffers, or two readers'
    // captures merged) would interleave two exchanges as one: only the first is read.
    let sameType = layout.interfaces.filter { $0.linkType == linkType }
    let twoOfAKind = Set(sameType.map(\.section)).count < sameType.count
    if layout.hasMixedLinkTypes || twoOfAKind || layout.hasUndefinedInterface {
      let filtered = input.bytes.withUnsafeBytes {
        PcapngInterfaceFilter.keep(linkType: linkType, of: layout, in: $0)
      }
      opened.source = try wrap(interfaceAt: first.offset) { () throws(PcapOpenFailure) in
        try PcapSource(bytes: filtered.bytes)
      }
      opened.positions = PacketPositions(
        offsets: filtered.packetOffsets, numbers: filtered.packetNumbers,
        simplePackets: layout.simplePackets)
      opened.warnings = filtered.skipped.map {
        TraceWarning(
          $0.message, location: input.location(unit: "byte", record: 0, offset: $0.offset))
      }
    } else {
      opened.source = try openSource(interfaceAt: first.offset)
      opened.positions = PacketPositions(
        offsets: layout.packetOffsets, numbers: nil, simplePackets: layout.simplePackets)
    }
    if let damage = layout.damage {
      opened.positions.beyond = (layout.packetOffsets.count + 1, damage.offset)
    }
    return opened
  }

  /// The walk's damage as the error `next()` throws once the packets before it are read.
  private func damageError(_ damage: PcapngLayout.Damage, _ layout: PcapngLayout) -> TraceError {
    TraceError(
      damage.truncated ? .truncated : .malformed,
      at: input.location(
        unit: "packet", record: layout.packetOffsets.count + 1, offset: damage.offset),
      damage.message)
  }

  /// libpcap over the file itself when `input` is that file unchanged (streams from disk),
  /// else over a copy of the bytes (standard input, in-memory input).
  /// `interfaceAt`: the byte offset of a pcapng file's first Interface Description Block,
  /// which libpcap's complaints about it name (it reads the IDB when opening the file).
  private func openSource(interfaceAt: Int = 0) throws -> PcapSource {
    try wrap(interfaceAt: interfaceAt) { () throws(PcapOpenFailure) in
      var info = stat()
      if input.path != "-", stat(input.path, &info) == 0, Int(info.st_size) == input.bytes.count {
        return try PcapSource(path: input.path)
      }
      return try PcapSource(bytes: input.bytes)
    }
  }

  private func wrap(
    interfaceAt: Int = 0, _ body: () throws(PcapOpenFailure) -> PcapSource
  ) throws -> PcapSource {
    do {
      return try body()
    } catch {
      let kind: TraceError.Kind = error.message.contains("truncated") ? .truncated : .malformed
      let aboutIDB = error.message.contains("Interface Description Block")
      // libpcap's "unknown file format" (a file named pcap with --input-format that is not
      // one): say what the first bytes were and what a pcap or pcapng file starts with.
      if error.message == "unknown file format" {
        let magic = Hex.string(Array(input.head(4)), separator: " ")
        throw TraceError(
          .malformed, at: here(0),
          "not a pcap or pcapng file: it starts with \(magic), expected a pcap magic number "
            + "(d4 c3 b2 a1, 4d 3c b2 a1 or byte-swapped) or a pcapng Section Header Block "
            + "(0a 0d 0d 0a)")
      }
      throw TraceError(kind, at: here(aboutIDB ? interfaceAt : 0), error.message)
    }
  }
}
