import NFCTrace
/// The pcap formats (filled in by the pcap importer).
public enum PcapFormats { public static let all: [TraceFormat] = [] }
