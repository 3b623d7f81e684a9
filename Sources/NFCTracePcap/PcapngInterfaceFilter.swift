import Foundation

// Workaround for a libpcap limitation: libpcap (1.10) refuses a pcapng file whose interfaces
// have different link types ("an interface has a type N different from the type of the first
// interface"). NFCGate writes exactly such files (one LINKTYPE_ISO_14443 interface and one
// LINKTYPE_USER0 interface). Before libpcap sees a pcapng file we walk it at block level only
// (block type + total length, the Section Header Block's byte order, the link type and
// if_tsresol of Interface Description Blocks, the interface id of packet blocks) and, when the
// link types differ, hand libpcap an in-memory copy holding each section's SHB, its first
// link-type-264 IDB and only that interface's packets, renumbered to interface 0. Packet
// contents are never interpreted here: libpcap still reads every packet.
//
// Block layout: IETF draft-ietf-opsawg-pcapng §3.1 (type, total length, body, total length),
// §4.1 SHB (byte-order magic 0x1A2B3C4D), §4.2 IDB (LinkType u16, reserved u16, SnapLen u32,
// options; if_tsresol = option 9), §4.3 EPB / §4.4 SPB / Appendix A PB (obsolete).

/// Block types the walk distinguishes (pcapng §10.1).
private enum BlockType {
  static let sectionHeader: UInt32 = 0x0A0D_0D0A
  static let interfaceDescription: UInt32 = 1
  static let packet: UInt32 = 2
  static let simplePacket: UInt32 = 3
  static let enhancedPacket: UInt32 = 6
}

/// What a block-level walk of a pcapng file found.
struct PcapngLayout {
  /// One Interface Description Block.
  struct Interface {
    /// 0-based section (SHB) number.
    var section: Int
    /// Interface id within its section (0-based, in IDB order).
    var id: Int
    /// LINKTYPE_* value.
    var linkType: Int
    /// if_tsresol option byte (pcapng §4.2), nil when absent (meaning 10^-6 s).
    var tsresol: UInt8?
    /// Byte offset of the IDB.
    var offset: Int
    /// Packet blocks that refer to this interface.
    var packetCount: Int = 0
    /// An option whose value runs past the block's options (its byte offset and what is
    /// wrong), which libpcap reports only as "too short" at the file's start.
    var optionProblem: (offset: Int, message: String)?
  }

  /// Where the walk had to stop.
  struct Damage {
    var offset: Int
    var truncated: Bool
    var message: String
  }

  /// Every IDB in file order.
  var interfaces: [Interface] = []
  /// Byte offset of every packet block (EPB, SPB, PB) in file order.
  var packetOffsets: [Int] = []
  /// For every packet block, the index into `interfaces`, or -1 for an undefined interface id.
  var packetInterfaces: [Int32] = []
  /// The 1-based numbers (in file order) of the Simple Packet Blocks, which carry no time.
  var simplePackets: Set<Int> = []
  /// Byte offset and byte order (true = little-endian) of each section header.
  var sections: [(offset: Int, littleEndian: Bool)] = []
  /// The first damaged block, if any; the walk stops there.
  var damage: Damage?

  /// True when libpcap would refuse the file because its interfaces' link types differ.
  var hasMixedLinkTypes: Bool { Set(interfaces.map(\.linkType)).count > 1 }

  /// Whether a packet block names an interface no IDB of its section describes.
  var hasUndefinedInterface: Bool { packetInterfaces.contains { $0 < 0 } }
}

/// Bounds-checked reads in one byte order.
private struct BlockBytes {
  let buffer: UnsafeRawBufferPointer

  func u16(_ at: Int, _ littleEndian: Bool) -> UInt16? {
    guard at >= 0, at + 2 <= buffer.count else { return nil }
    let v = buffer.loadUnaligned(fromByteOffset: at, as: UInt16.self)
    return littleEndian ? UInt16(littleEndian: v) : UInt16(bigEndian: v)
  }

  func u32(_ at: Int, _ littleEndian: Bool) -> UInt32? {
    guard at >= 0, at + 4 <= buffer.count else { return nil }
    let v = buffer.loadUnaligned(fromByteOffset: at, as: UInt32.self)
    return littleEndian ? UInt32(littleEndian: v) : UInt32(bigEndian: v)
  }
}

/// Block-level walk and interface filter for pcapng (see the comment at the top of the file).
enum PcapngInterfaceFilter {
  /// Walks the blocks of `buffer`. Never fails: damage is recorded in `PcapngLayout.damage`.
  static func walk(_ buffer: UnsafeRawBufferPointer) -> PcapngLayout {
    var layout = PcapngLayout()
    let bytes = BlockBytes(buffer: buffer)
    var offset = 0
    var littleEndian = true
    var sectionFirstInterface = 0
    while offset < buffer.count {
      guard let type = bytes.u32(offset, littleEndian), buffer.count - offset >= 12 else {
        layout.damage = .init(
          offset: offset, truncated: true,
          message:
            "truncated pcapng block: \(buffer.count - offset) bytes left, expected 12 or more")
        break
      }
      if type == BlockType.sectionHeader {
        guard let order = byteOrder(bytes, offset) else {
          layout.damage = .init(
            offset: offset, truncated: false,
            message: "bad pcapng byte-order magic, expected 0x1A2B3C4D")
          break
        }
        littleEndian = order
        layout.sections.append((offset, littleEndian))
        sectionFirstInterface = layout.interfaces.count
      } else if layout.sections.isEmpty {
        layout.damage = .init(
          offset: offset, truncated: false, message: "expected a pcapng Section Header Block")
        break
      }
      guard let length = blockLength(bytes, offset, littleEndian, &layout) else { break }
      record(type, at: offset, length, bytes, littleEndian, sectionFirstInterface, &layout)
      offset += length
    }
    return layout
  }

  /// The rewritten file and, for each packet kept, its 1-based packet number and byte offset
  /// in the original file; plus, per interface skipped, a message and the IDB's byte offset.
  struct Filtered {
    var bytes: [UInt8] = []
    var packetNumbers: [Int] = []
    var packetOffsets: [Int] = []
    var skipped: [(message: String, offset: Int)] = []
  }

  /// Keeps, in each section, the SHB, the first IDB of `linkType` (renumbered 0) and the packet
  /// blocks of that interface. Sections without such an interface are dropped.
  static func keep(
    linkType: Int, of layout: PcapngLayout, in buffer: UnsafeRawBufferPointer
  ) -> Filtered {
    var out = Filtered()
    var kept = Set<Int>()  // indices into layout.interfaces: the first match per section
    var sectionsDone = Set<Int>()
    // Per section, the first interface of `linkType` that has packets, else the first one.
    for withPackets in [true, false] {
      for (i, interface) in layout.interfaces.enumerated()
      where interface.linkType == linkType && !sectionsDone.contains(interface.section)
        && (!withPackets || interface.packetCount > 0)
      {
        kept.insert(i)
        sectionsDone.insert(interface.section)
      }
    }
    let bytes = BlockBytes(buffer: buffer)
    for (section, header) in layout.sections.enumerated() {
      guard
        let keep = kept.first(where: { layout.interfaces[$0].section == section }),
        let shbLength = bytes.u32(header.offset + 4, header.littleEndian).map(Int.init),
        let idbLength = bytes.u32(layout.interfaces[keep].offset + 4, header.littleEndian)
      else { continue }
      let start = out.bytes.count
      append(buffer, header.offset, shbLength, to: &out.bytes)
      // Blocks are dropped, so the SHB's Section Length (i64 at +16) becomes -1, "unknown".
      for k in 16..<24 where start + k < out.bytes.count { out.bytes[start + k] = 0xFF }
      append(buffer, layout.interfaces[keep].offset, Int(idbLength), to: &out.bytes)
      copyPackets(of: keep, layout, bytes, header.littleEndian, &out)
    }
    for (i, interface) in layout.interfaces.enumerated() where !kept.contains(i) {
      let place = interface.section > 0 ? "section \(interface.section + 1) " : ""
      var message =
        "skipped \(place)interface \(interface.id) (link type \(interface.linkType), "
        + "\(PcapLinkType.name(interface.linkType)), \(interface.packetCount) "
        + (interface.packetCount == 1 ? "packet)" : "packets)")
      if interface.linkType == linkType {
        message +=
          ": a second interface of the same link type (another sniffer or a merged capture); "
          + "its frames would interleave with the first one's. Split the file per interface "
          + "(editcap/tshark) to read it"
      }
      out.skipped.append((message, interface.offset))
    }
    // A packet naming an interface no IDB of its section describes: libpcap stops the whole
    // file there; it is left out, said once per packet.
    for (n, owner) in layout.packetInterfaces.enumerated() where owner < 0 {
      out.skipped.append(
        (
          "skipped packet \(n + 1): its interface id has no Interface Description Block in "
            + "its section (pcapng §4.3), so its link type is unknown",
          layout.packetOffsets[n]
        ))
    }
    return out
  }

  // MARK: - Walk helpers

  private static func byteOrder(_ bytes: BlockBytes, _ offset: Int) -> Bool? {
    switch bytes.u32(offset + 8, true) {
    case 0x1A2B_3C4D: return true
    case 0x4D3C_2B1A: return false
    default: return nil
    }
  }

  /// The block's total length, checked against the input size, alignment and the trailing copy.
  private static func blockLength(
    _ bytes: BlockBytes, _ offset: Int, _ littleEndian: Bool, _ layout: inout PcapngLayout
  ) -> Int? {
    guard let raw = bytes.u32(offset + 4, littleEndian) else { return nil }
    let length = Int(raw)
    guard length >= 12, length % 4 == 0 else {
      layout.damage = .init(
        offset: offset, truncated: false,
        message: "pcapng block total length \(length), expected a multiple of 4 ≥ 12")
      return nil
    }
    guard length <= bytes.buffer.count - offset else {
      layout.damage = .init(
        offset: offset, truncated: true,
        message: "truncated pcapng block: total length \(length), "
          + "\(bytes.buffer.count - offset) bytes left")
      return nil
    }
    guard bytes.u32(offset + length - 4, littleEndian) == raw else {
      layout.damage = .init(
        offset: offset, truncated: false,
        message: "pcapng block's trailing total length differs from its leading \(length)")
      return nil
    }
    return length
  }

  private static func record(
    _ type: UInt32, at offset: Int, _ length: Int, _ bytes: BlockBytes, _ littleEndian: Bool,
    _ sectionFirstInterface: Int, _ layout: inout PcapngLayout
  ) {
    let section = layout.sections.count - 1
    var interfaceID: Int?
    switch type {
    case BlockType.interfaceDescription:
      guard let linkType = bytes.u16(offset + 8, littleEndian) else { return }
      layout.interfaces.append(
        .init(
          section: section, id: layout.interfaces.count - sectionFirstInterface,
          linkType: Int(linkType), tsresol: tsresol(bytes, offset, length, littleEndian),
          offset: offset, optionProblem: optionProblem(bytes, offset, length, littleEndian)))
      return
    case BlockType.enhancedPacket: interfaceID = bytes.u32(offset + 8, littleEndian).map(Int.init)
    case BlockType.packet: interfaceID = bytes.u16(offset + 8, littleEndian).map(Int.init)
    case BlockType.simplePacket: interfaceID = 0
    default: return
    }
    var index: Int32 = -1
    if let interfaceID, interfaceID < layout.interfaces.count - sectionFirstInterface {
      let i = sectionFirstInterface + interfaceID
      layout.interfaces[i].packetCount += 1
      index = Int32(truncatingIfNeeded: i)
    }
    layout.packetOffsets.append(offset)
    layout.packetInterfaces.append(index)
    if type == BlockType.simplePacket { layout.simplePackets.insert(layout.packetOffsets.count) }
  }

  /// The if_tsresol option (code 9) of the IDB at `offset`, if present.
  /// The first IDB option whose value runs past the options area (pcapng §3.5: code u16,
  /// length u16, value padded to 32 bits), if any.
  private static func optionProblem(
    _ bytes: BlockBytes, _ offset: Int, _ length: Int, _ littleEndian: Bool
  ) -> (offset: Int, message: String)? {
    var at = offset + 16  // type, length, LinkType, reserved, SnapLen
    let end = offset + length - 4
    while at + 4 <= end, let code = bytes.u16(at, littleEndian),
      let size = bytes.u16(at + 2, littleEndian)
    {
      if code == 0 { return nil }  // opt_endofopt
      let next = at + 4 + (Int(size) + 3) & ~3
      if next > end {
        return (
          at,
          "Interface Description Block option \(code) claims \(size) bytes, past the block's "
            + "end (\(end - at - 4) bytes left for it); expected options that end inside the "
            + "block (pcapng §3.5)"
        )
      }
      at = next
    }
    return nil
  }

  private static func tsresol(
    _ bytes: BlockBytes, _ offset: Int, _ length: Int, _ littleEndian: Bool
  ) -> UInt8? {
    var at = offset + 16  // type, length, LinkType, reserved, SnapLen
    let end = offset + length - 4
    while at + 4 <= end, let code = bytes.u16(at, littleEndian),
      let size = bytes.u16(at + 2, littleEndian)
    {
      if code == 0 { return nil }  // opt_endofopt
      if code == 9, size >= 1, at + 4 < end { return bytes.buffer[at + 4] }
      at += 4 + (Int(size) + 3) & ~3
    }
    return nil
  }

  // MARK: - Rewrite helpers

  private static func append(
    _ buffer: UnsafeRawBufferPointer, _ offset: Int, _ length: Int, to out: inout [UInt8]
  ) {
    guard offset >= 0, length >= 0, offset + length <= buffer.count else { return }
    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)]))
  }

  private static func copyPackets(
    of interface: Int, _ layout: PcapngLayout, _ bytes: BlockBytes,
    _ littleEndian: Bool, _ out: inout Filtered
  ) {
    let target = Int32(truncatingIfNeeded: interface)
    for (n, owner) in layout.packetInterfaces.enumerated() where owner == target {
      let offset = layout.packetOffsets[n]
      guard let type = bytes.u32(offset, littleEndian),
        let length = bytes.u32(offset + 4, littleEndian).map(Int.init)
      else { continue }
      let start = out.bytes.count
      append(bytes.buffer, offset, length, to: &out.bytes)
      // Renumber the interface id to 0 in the copy (EPB: u32 at +8; PB: u16 at +8).
      let idSize = type == BlockType.enhancedPacket ? 4 : (type == BlockType.packet ? 2 : 0)
      for k in 0..<idSize where start + 8 + k < out.bytes.count {
        out.bytes[start + 8 + k] = 0
      }
      out.packetNumbers.append(n + 1)
      out.packetOffsets.append(offset)
    }
  }
}
