/// Where the bytes of an NDEF message sit when they are not contiguous: a Type 2 NDEF
/// Message TLV's value runs around the lock bytes a Lock Control TLV declares and the reserved
/// bytes a Memory Control TLV declares, which readers skip (NFC Forum T2T 1.0 §2.3.1,
/// §2.3.2; nfc-facts §5.2). Message offset `m` is the `m`-th byte of `runs`.
public struct NDEFAddressMap: Sendable, Equatable {
  /// The addresses of the message's bytes, in order, as contiguous runs.
  public let runs: [Range<Int>]

  /// A map over `runs` (empty runs are dropped).
  public init(runs: [Range<Int>]) {
    self.runs = runs.filter { !$0.isEmpty }
  }

  /// The address of message offset `offset`. An offset at or past the message's end (a
  /// finding's "where it ends") continues from the last run's end; one before the message
  /// counts back from the first run's start; with no runs the offset is returned as it is.
  public func address(of offset: Int) -> Int {
    guard let first = runs.first, let last = runs.last else { return offset }
    if offset < 0 { return first.lowerBound + offset }
    var left = offset
    for r in runs {
      if left < r.count { return r.lowerBound + left }
      left -= r.count
    }
    return last.upperBound + left
  }
}

extension Type2TLVArea {
  /// The addresses of the first NDEF TLV's value bytes (in the parsed input's coordinates
  /// plus `baseAddress`: tag byte addresses), lock and reserved bytes skipped as readers skip
  /// them (NFC Forum T2T 1.0 §2.3.1, §2.3.2); nil without an NDEF TLV. The value's length is
  /// capped at what the TLV announces.
  public var ndefAddressMap: NDEFAddressMap? {
    guard let ndef else { return nil }
    return NDEFAddressMap(
      runs: Self.runs(
        from: baseAddress + ndef.valueOffset, count: ndef.length, skipping: reservedAreas))
  }
}

extension NDEFReport {
  /// This report with every offset it shows (record headers and payloads, findings, the
  /// failure, the input range) moved from message offsets (a report validated with base 0)
  /// to `map`'s addresses. A finding message that names a record's place ("record at byte
  /// N") names the address too. Nested records (Smart Poster, Handover) keep their offsets:
  /// no output shows them.
  public func relocated(_ map: NDEFAddressMap) -> NDEFReport {
    func move(_ f: NDEFFinding) -> NDEFFinding {
      NDEFFinding(
        code: f.code, severity: f.severity, offset: map.address(of: f.offset),
        message: Self.relocatedText(f.message, map), readersShow: f.readersShow, fix: f.fix)
    }
    func move(_ r: NDEFRecord) -> NDEFRecord {
      NDEFRecord(
        chunks: r.chunks.map { c in
          var c = c
          c.offset = map.address(of: c.offset)
          c.payloadOffset = map.address(of: c.payloadOffset)
          return c
        })
    }
    let failure = self.failure.map {
      NDEFError(
        kind: $0.kind, code: $0.code, offset: map.address(of: $0.offset), expected: $0.expected,
        message: Self.relocatedText($0.message, map))
    }
    let lower = map.address(of: input.lowerBound)
    let upper = input.isEmpty ? lower : map.address(of: input.upperBound - 1) + 1
    return NDEFReport(
      mode: mode, message: NDEFMessage(records: message.records.map(move)),
      records: records.map { NDEFDecodedRecord(record: move($0.record), payload: $0.payload) },
      findings: findings.map(move), failure: failure, consumed: consumed, input: lower..<upper)
  }

  /// `text` with each "at byte N" (the parser's record places) moved through `map`.
  static func relocatedText(_ text: String, _ map: NDEFAddressMap) -> String {
    let marker = "at byte "
    var out = ""
    var rest = Substring(text)
    while let r = rest.range(of: marker) {
      out += rest[..<r.upperBound]
      rest = rest[r.upperBound...]
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      if let n = Int(digits) {
        out += String(map.address(of: n))
        rest = rest.dropFirst(digits.count)
      }
    }
    return out + rest
  }
}

extension NDEFValidator {
  /// Validates a message whose bytes sit at `map`'s addresses (a Type 2 NDEF TLV's value
  /// around lock and reserved bytes, NFC Forum T2T 1.0 §2.3.1/§2.3.2): offsets in the report
  /// are those addresses, not `base + message offset`.
  public static func validate(
    _ bytes: [UInt8], mode: NDEFValidationMode = .relax, maxDepth: Int = defaultMaxDepth,
    at map: NDEFAddressMap
  ) -> NDEFReport {
    validate(bytes, mode: mode, maxDepth: maxDepth, base: 0).relocated(map)
  }
}
