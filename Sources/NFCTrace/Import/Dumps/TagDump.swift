/// A static image of a tag's memory read from a dump file (no exchange, no frames): what a
/// Flipper Zero `.nfc` file, a Proxmark3 JSON dump or a raw Type 2 image holds.
///
/// Pages are the 4-byte pages of a Type 2 tag (MIFARE Ultralight / NTAG21x) counted from
/// page 0 (UID0–2 + BCC0), as in NFC Forum T2T 1.0 §2.1 and the NTAG213/215/216 datasheet §8.5.
public struct TagDump: Sendable {
  /// Which reader produced it: `flipper-nfc`, `pm3-json` or `raw-type2`.
  public var format: String
  /// The input's path as given.
  public var path: String
  /// The UID (4, 7 or 10 bytes) as the dump states it, or as pages 0–1 give it for raw images.
  public var uid: [UInt8]?
  /// ATQA as a 16-bit value (`0x0044` for NTAG21x; air order is LSB first, ISO/IEC 14443-3
  /// §6.5.2), nil when the dump does not say.
  public var atqa: UInt16?
  /// SAK, nil when the dump does not say.
  public var sak: UInt8?
  /// The ATS (TL first, no CRC; ISO/IEC 14443-4 §5.2) of an ISO-DEP tag, when stored.
  public var ats: [UInt8]?
  /// The 8-byte GET_VERSION answer (NTAG213/215/216 datasheet §10.1), when stored.
  public var version: [UInt8]?
  /// The 32-byte READ_SIG answer (originality signature), when stored.
  public var signature: [UInt8]?
  /// The three one-way counters (READ_CNT values, 24 bit), in counter order; empty if absent.
  public var counters: [Int]
  /// The product as the dump names it (Flipper `Device type` / `NTAG/Ultralight type`, e.g.
  /// `Mifare Ultralight C`, `NTAG215`), nil when it does not.
  public var statedProduct: String?
  /// Pages from page 0, 4 bytes each; unknown pages hold zeros.
  public var pages: [[UInt8]]
  /// Per page: false where the dump marks the page unknown or not read.
  public var pageKnown: [Bool]
  /// Problems noticed while reading that did not stop it.
  public var warnings: [TraceWarning]
  /// The warnings about reading the file (with a place in it: a line left out), which
  /// `report` prints on standard error like a trace's.
  public var inputWarnings: [TraceWarning] { warnings.filter { $0.location != nil } }
  /// The warnings about the dump's contents (pages missing, a UID that disagrees): part of
  /// the report.
  public var notes: [TraceWarning] { warnings.filter { $0.location == nil } }

  /// Creates a dump; `pageKnown` defaults to all pages known.
  public init(
    format: String, path: String, uid: [UInt8]? = nil, atqa: UInt16? = nil, sak: UInt8? = nil,
    version: [UInt8]? = nil, signature: [UInt8]? = nil, counters: [Int] = [],
    pages: [[UInt8]] = [], pageKnown: [Bool]? = nil, warnings: [TraceWarning] = []
  ) {
    self.format = format
    self.path = path
    self.uid = uid
    self.atqa = atqa
    self.sak = sak
    self.version = version
    self.signature = signature
    self.counters = counters
    self.pages = pages
    self.pageKnown = pageKnown ?? Array(repeating: true, count: pages.count)
    self.warnings = warnings
  }

  /// `bytes`, or nil when they are all zeros: dump formats store a GET_VERSION or READ_SIG
  /// answer the tag did not give as zeros (Flipper `.nfc`, Proxmark3 `mfu_dump_t`).
  static func stored(_ bytes: [UInt8]) -> [UInt8]? { bytes.allSatisfy { $0 == 0 } ? nil : bytes }

  /// The UID as pages 0–1 hold it for a 7-byte-UID Type 2 tag (UID0–2, skipping BCC0, then
  /// UID3–6), nil when those pages are missing or unknown.
  public var uidFromPages: [UInt8]? {
    guard pages.count >= 2, pageKnown.prefix(2).allSatisfy({ $0 }) else { return nil }
    return Array(pages[0].prefix(3)) + pages[1]
  }
}
