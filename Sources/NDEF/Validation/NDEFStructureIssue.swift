/// A structural rule broken by one wire record or by the message as a whole
/// (NFC Forum NDEF 1.0 §2.3 and §3.2; facts §7.1, §7.2).
struct NDEFStructureIssue: Sendable {
  let code: String
  /// Tolerated by ndeflib's `relax` mode: a warning outside strict mode.
  let minor: Bool
  /// Never an error (e.g. trailing bytes after ME).
  let isWarningOnly: Bool
  let offset: Int
  let expected: String
  let message: String
  let readersShow: String?
  let fix: String?

  init(
    _ code: String, minor: Bool = false, warningOnly: Bool = false, offset: Int,
    expected: String, message: String, readersShow: String? = nil, fix: String? = nil
  ) {
    self.code = code
    self.minor = minor
    self.isWarningOnly = warningOnly
    self.offset = offset
    self.expected = expected
    self.message = message
    self.readersShow = readersShow
    self.fix = fix
  }

  func finding(severity: NDEFSeverity) -> NDEFFinding {
    NDEFFinding(
      code: code, severity: severity, offset: offset, message: message,
      readersShow: readersShow, fix: fix)
  }

  static let buildFix =
    "build the message with NFCNDEFMessage(records:) and write it with NFCNDEFTag.writeNDEF(_:completionHandler:); "
    + "Core NFC sets MB, ME, CF and the lengths itself"

  static func emptyMessage(offset: Int) -> NDEFStructureIssue {
    NDEFStructureIssue(
      "empty-message", offset: offset, expected: "at least one NDEF record",
      message: "no bytes: an NDEF message holds at least one record (NDEF 1.0 §2.3.1)",
      readersShow: "ndeflib yields no records; an empty NDEF TLV / NLEN 0 means 'no message'",
      fix: "to erase a tag write NFCNDEFMessage(records: [NFCNDEFPayload(format: .empty, "
        + "type: Data(), identifier: Data(), payload: Data())])")
  }

  static func meMissing(offset: Int) -> NDEFStructureIssue {
    NDEFStructureIssue(
      "me-missing", minor: true, offset: offset, expected: "ME flag on the last record",
      message: "the input ends without a record with ME set (NDEF 1.0 §3.2.2)",
      readersShow: "ndeflib strict: 'ME flag not set in last record'; relax decodes the records; "
        + "Android NdefMessage(byte[]) rejects it", fix: buildFix)
  }

  static func chunkUnterminated(offset: Int) -> NDEFStructureIssue {
    NDEFStructureIssue(
      "chunk-unterminated", offset: offset,
      expected: "a terminating chunk (TNF 6, CF clear) before the message ends",
      message: "the message ends inside a chunked record: its last chunk has CF set, so the "
        + "payload shown is incomplete (NDEF 1.0 §2.3.3)",
      readersShow: "Android NdefMessage(byte[]) rejects it; ndeflib shows the chunks it read",
      fix: buildFix)
  }

  /// A chunked record whose first chunk is TNF 0 (Empty) and whose chunks carry payload bytes:
  /// each wire record may look empty, the record is not.
  static func chunkedEmptyWithPayload(offset: Int, count: Int) -> NDEFStructureIssue {
    NDEFStructureIssue(
      "empty-not-empty", offset: offset, expected: "no payload in a TNF 0 (Empty) record",
      message: "TNF 0 (Empty) record chunked (CF) with \(count) payload byte(s) in its chunks; "
        + "an Empty record has none (NDEF 1.0 §3.2.6)",
      readersShow: "ndeflib shows an Empty record, then the chunk as an 'unchanged' record; "
        + "Android rejects TNF_EMPTY with a payload",
      fix: "NFCNDEFPayload(format: .empty, type: Data(), identifier: Data(), payload: Data())")
  }

  static func trailingBytes(offset: Int, count: Int) -> NDEFStructureIssue {
    NDEFStructureIssue(
      "trailing-bytes", warningOnly: true, offset: offset, expected: "end of input after ME",
      message: "\(count) byte(s) after the record with ME are not part of the message "
        + "(NDEF 1.0 §3.2.2)",
      readersShow: "ndeflib stops at ME and ignores them; Android NdefMessage(byte[]) rejects "
        + "the message ('trailing data')",
      fix: "write exactly the message bytes (NFCNDEFTag.writeNDEF(_:completionHandler:) does)")
  }

  /// Rules judged on one wire record. `index` counts wire records; `inChunk` is true for
  /// middle and terminating chunks.
  static func check(_ r: NDEFRawRecord, index: Int, inChunk: Bool) -> [NDEFStructureIssue] {
    var out: [NDEFStructureIssue] = []
    flagIssues(r, index: index, into: &out)
    // A middle/last chunk with the wrong TNF is reported once, as chunk-wrong-tnf.
    if !(inChunk && r.tnf != .unchanged) { tnfIssues(r, into: &out) }
    chunkIssues(r, inChunk: inChunk, into: &out)
    if r.type.contains(where: { $0 >= 0x80 }) {
      out.append(
        NDEFStructureIssue(
          "type-not-ascii", offset: r.offset, expected: "US-ASCII TYPE",
          message: "TYPE contains non-ASCII bytes; record types are US-ASCII "
            + "(NFC Forum RTD 1.0 §2.1, RFC 2046, RFC 3986)",
          readersShow: "ndeflib raises UnicodeDecodeError", fix: nil))
    } else if let bad = Self.typeName(r).firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
      out.append(
        NDEFStructureIssue(
          "type-invalid-characters", warningOnly: true, offset: r.offset,
          expected: "TYPE without control characters or spaces",
          message: "TYPE byte \(bad - r.type.startIndex) is 0x\(hex2(r.type[bad])), a control "
            + "character or space: no record type has one (well-known and external names are "
            + "URN characters, NFC Forum RTD 1.0 §2.1, RFC 2141; MIME types RFC 2046; URIs RFC "
            + "3986)",
          readersShow: "ndeflib and Android keep the bytes; no reader matches the type",
          fix: "write the type's name exactly (e.g. NFCTypeNameFormat.nfcWellKnown with type "
            + "\"U\" or \"T\")"))
    }
    return out
  }

  /// The TYPE's name: a media type's up to its parameters (`text/plain; charset=utf-8`: RFC
  /// 2045 §5.1 allows spaces there; Android's normalizeMimeType cuts at `;`), else the whole TYPE.
  private static func typeName(_ r: NDEFRawRecord) -> ArraySlice<UInt8> {
    guard r.tnf == .media, let semicolon = r.type.firstIndex(of: 0x3B) else {
      return r.type[...]
    }
    return r.type[..<semicolon]
  }

  private static func flagIssues(
    _ r: NDEFRawRecord, index: Int, into out: inout [NDEFStructureIssue]
  ) {
    if index == 0 && !r.mb {
      out.append(
        NDEFStructureIssue(
          "mb-missing", minor: true, offset: r.offset,
          expected: "MB flag (0x80) on the first record",
          message: "first record has MB clear (header 0x\(hex2(r.header))) (NDEF 1.0 §3.2.1)",
          readersShow: "ndeflib strict: 'MB flag not set in first record'; relax decodes it; "
            + "Android NdefMessage(byte[]) rejects it ('expected MB flag')", fix: buildFix))
    }
    if index > 0 && r.mb {
      out.append(
        NDEFStructureIssue(
          "mb-in-middle", minor: true, offset: r.offset,
          expected: "MB clear after the first record",
          message: "record \(index) has MB set; only the first record may (NDEF 1.0 §3.2.1)",
          readersShow: "ndeflib strict: 'MB flag set in middle record'; Android rejects it",
          fix: buildFix))
    }
    if r.me && r.cf {
      out.append(
        NDEFStructureIssue(
          "cf-on-last", minor: true, offset: r.offset, expected: "CF clear on the ME record",
          message: "last record has CF set: a chunked payload must end inside the message "
            + "(NDEF 1.0 §2.3.3)",
          readersShow: "ndeflib strict: 'CF flag set in last record'; Android rejects it",
          fix: buildFix))
    }
  }

  private static func tnfIssues(_ r: NDEFRawRecord, into out: inout [NDEFStructureIssue]) {
    switch r.tnf {
    case .reserved:
      out.append(
        NDEFStructureIssue(
          "tnf-reserved", offset: r.offset, expected: "TNF 0–6",
          message: "TNF 7 is reserved (NDEF 1.0 §3.2.6)",
          readersShow: "ndeflib: 'TNF field value must be between 0 and 6'; Android "
            + (r.type.isEmpty
              ? "treats it as TNF_UNKNOWN"
              : "rejects it: a TNF_RESERVED record has no TYPE"),
          fix: nil))
    case .empty where !r.type.isEmpty || !r.id.isEmpty || !r.payload.isEmpty:
      out.append(
        NDEFStructureIssue(
          "empty-not-empty", offset: r.offset, expected: "TYPE_LENGTH, ID_LENGTH, PAYLOAD_LENGTH 0",
          message: "TNF 0 (Empty) with TYPE \(r.type.count), ID \(r.id.count), PAYLOAD "
            + "\(r.payload.count) bytes; all must be 0 (NDEF 1.0 §3.2.6)",
          readersShow: "ndeflib: 'TYPE_LENGTH/ID_LENGTH/PAYLOAD_LENGTH must be 0 for TNF value 0'",
          fix: "NFCNDEFPayload(format: .empty, type: Data(), identifier: Data(), payload: Data())"))
    case .wellKnown where r.type.isEmpty, .media where r.type.isEmpty,
      .absoluteURI where r.type.isEmpty, .external where r.type.isEmpty:
      out.append(
        NDEFStructureIssue(
          "type-missing", offset: r.offset, expected: "TYPE_LENGTH > 0",
          message: "TNF \(r.tnfValue) (\(r.tnf.name)) needs a TYPE but TYPE_LENGTH is 0 "
            + "(NDEF 1.0 §3.2.6)",
          readersShow: "ndeflib: 'TYPE_LENGTH must be > 0'", fix: nil))
    case .unknown where !r.type.isEmpty, .unchanged where !r.type.isEmpty:
      out.append(
        NDEFStructureIssue(
          "type-not-allowed", offset: r.offset, expected: "TYPE_LENGTH 0",
          message: "TNF \(r.tnfValue) (\(r.tnf.name)) must have TYPE_LENGTH 0, has "
            + "\(r.type.count) (NDEF 1.0 §3.2.6)",
          readersShow: "ndeflib: 'TYPE_LENGTH must be 0'", fix: nil))
    default:
      break
    }
  }

  private static func chunkIssues(
    _ r: NDEFRawRecord, inChunk: Bool, into out: inout [NDEFStructureIssue]
  ) {
    if inChunk && r.tnf != .unchanged {
      out.append(
        NDEFStructureIssue(
          "chunk-wrong-tnf", offset: r.offset, expected: "TNF 6 (Unchanged) in a middle/last chunk",
          message: "chunk has TNF \(r.tnfValue) (\(r.tnf.name)); middle and terminating chunks "
            + "must be TNF 6 with TYPE_LENGTH 0 (NDEF 1.0 §2.3.3)",
          readersShow: "Android: 'expected TNF_UNCHANGED in non-leading chunk'; ndeflib does "
            + "not check and shows the chunk as a separate record", fix: buildFix))
    }
    if inChunk && r.il {
      out.append(
        NDEFStructureIssue(
          "chunk-il-set", offset: r.offset, expected: "IL clear in a middle/last chunk",
          message: "chunk has IL set; middle and terminating chunks carry no ID "
            + "(NDEF 1.0 §2.3.3)",
          readersShow: "Android: 'unexpected IL flag in non-leading chunk'; ndeflib does not check",
          fix: buildFix))
    }
    if !inChunk && r.tnf == .unchanged {
      out.append(
        NDEFStructureIssue(
          "unchanged-outside-chunk", offset: r.offset,
          expected: "TNF 6 only in middle/terminating chunks",
          message: "TNF 6 (Unchanged) on a first chunk or unchunked record (NDEF 1.0 §3.2.6)",
          readersShow: "Android: 'unexpected TNF_UNCHANGED in first chunk or unchunked "
            + "record'; ndeflib shows type 'unchanged'", fix: buildFix))
    }
  }
}

/// Two lower-case hex digits.
func hex2(_ b: UInt8) -> String {
  // Two ASCII digits straight into the string: no character array per call.
  String(unsafeUninitializedCapacity: 2) { buffer in
    let digits: StaticString = "0123456789abcdef"
    buffer[0] = digits.utf8Start[Int(b >> 4)]
    buffer[1] = digits.utf8Start[Int(b & 0x0F)]
    return 2
  }
}
