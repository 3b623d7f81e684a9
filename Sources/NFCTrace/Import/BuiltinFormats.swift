/// The trace formats of this module (pcap lives in NFCTracePcap and is added by the CLI).
public enum BuiltinFormats {
  /// Every non-pcap importer, in the order `nfctrace formats` lists them.
  public static let all: [TraceFormat] = [
    Proxmark3BinaryImporter.format,
    Proxmark3TextImporter.format,
    NFCLabImporter.format,
    LibnfcLogImporter.format,
  ]
}
