import CPcap
import NFCTrace

/// pcap link-layer header types (LINKTYPE_*) the importer knows by number.
///
/// Numbers from tcpdump.org "Link-layer header types" (also libpcap `pcap/dlt.h`, where these
/// DLT values equal the LINKTYPE values).
enum PcapLinkType {
  /// LINKTYPE_ISO_14443: ISO/IEC 14443 frames behind a 4-byte pseudo-header. The one we read.
  static let iso14443 = 264
  /// LINKTYPE_USER0: NFCGate uses it for its Android "initial card data" interface.
  static let user0 = 147
  /// LINKTYPE_NFC_LLCP: NFC Logical Link Control Protocol PDUs (NFC Forum LLCP 1.1).
  static let nfcLLCP = 245
  /// LINKTYPE_USB_LINUX: Linux usbmon with the 48-byte header (reader ↔ host USB).
  static let usbLinux = 189
  /// LINKTYPE_USB_LINUX_MMAPPED: Linux usbmon with the 64-byte header (reader ↔ host USB).
  static let usbLinuxMMapped = 220
  /// LINKTYPE_USBPCAP: Windows USBPcap (reader ↔ host USB).
  static let usbPcap = 249

  /// Link types read: ISO 14443 frames, and USB captures of a PN53x or CCID reader.
  static let supported: Set<Int> = [iso14443, usbLinux, usbLinuxMMapped, usbPcap]

  /// Link types we recognise and mean to support later.
  static let plannedLinkTypes: Set<Int> = [nfcLLCP]

  /// Of the link types of a file's interfaces, the one to read: ISO 14443 first, then USB.
  static func preferred(_ linkTypes: [Int]) -> Int? {
    linkTypes.contains(iso14443) ? iso14443 : linkTypes.first { supported.contains($0) }
  }

  /// `LINKTYPE_NAME` as libpcap knows it, or `unknown link type`.
  static func name(_ linkType: Int) -> String {
    // libpcap has no names for the private-use range LINKTYPE_USER0…USER15 (147…162).
    if (147...162).contains(linkType) { return "LINKTYPE_USER\(linkType - 147)" }
    guard let dlt = Int32(exactly: linkType), let cName = pcap_datalink_val_to_name(dlt)
    else { return "unknown link type" }
    return "LINKTYPE_" + String(cString: cName)
  }

  /// `264 (LINKTYPE_ISO_14443)`.
  static func describe(_ linkType: Int) -> String { "\(linkType) (\(name(linkType)))" }

  /// The error for an input whose packets are of `linkType` (not one of `supported`).
  static func unsupported(_ linkType: Int, at location: SourceLocation) -> TraceError {
    let support = plannedLinkTypes.contains(linkType) ? "is not supported yet" : "is not supported"
    return TraceError(
      .unsupported, at: location,
      "link type \(describe(linkType)) \(support); expected link type \(describe(iso14443)), "
        + "or a USB capture of a PN53x or CCID reader (189, 220, 249)")
  }
}
