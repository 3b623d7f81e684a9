import NFCTrace

/// The pcap-based trace formats, for registration in a `FormatRegistry`.
public enum PcapFormats {
  /// `pcap`: pcap and pcapng files of link type 264 (LINKTYPE_ISO_14443), and USB captures
  /// of PN53x and CCID (PC/SC) readers (189, 220, 249), read by `PcapImporter` through libpcap.
  public static let all: [TraceFormat] = [pcap]

  /// The `pcap` format.
  public static let pcap = TraceFormat(
    name: "pcap",
    summary: "pcap / pcapng, link type 264 (ISO 14443 pseudo-header; Wireshark, Proxmark3 "
      + "via text2pcap, NFCGate, Flipper Zero debug pcap); USB captures of PN53x, ACR122 and "
      + "PC/SC (CCID) readers (usbmon 189/220, USBPcap 249)",
    sniff: { head, path in sniff(head, path: path) },
    open: { input in try PcapImporter(input: input) }, sourceTimeIsDate: true)

  /// Confidence that `head` starts a pcap (either magic, either byte order) or pcapng file:
  /// 95 for a magic (100 with a matching extension), 0 otherwise.
  public static func sniff(_ head: [UInt8], path: String) -> Int {
    let magic = [UInt8](head.prefix(4))
    var score = 0
    if PcapMagic.microsecond.contains(magic) || PcapMagic.nanosecond.contains(magic) {
      score = 95
    } else if magic == PcapMagic.pcapng {
      // The byte-order magic follows the block length (pcapng §4.1); without it, 80.
      let order = [UInt8](head.dropFirst(8).prefix(4))
      score = order == [0x4D, 0x3C, 0x2B, 0x1A] || order == [0x1A, 0x2B, 0x3C, 0x4D] ? 95 : 80
    }
    let lower = path.lowercased()
    if score > 0, lower.hasSuffix(".pcap") || lower.hasSuffix(".pcapng") || lower.hasSuffix(".cap")
    {
      score += 5
    }
    return score
  }
}
