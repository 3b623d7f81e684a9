/// An NDEF message: one or more records, the first with MB, the last with ME
/// (NFC Forum NDEF 1.0 §2.3.1, §3.2.1, §3.2.2).
public struct NDEFMessage: Sendable, Equatable {
  /// Logical records in order (chunked records reassembled, layout kept in `chunks`).
  public var records: [NDEFRecord]

  /// A message made of `records`.
  public init(records: [NDEFRecord]) {
    self.records = records
  }

  /// Parses a complete message in strict mode.
  ///
  /// - Throws: `NDEFError` at the first structural error (NDEF 1.0 §2.3 / §3.2) or when a
  ///   length runs past the end; its `offset` is the byte offset in `bytes`.
  ///   Trailing bytes after the ME record are not an error here (see `NDEFMessageParser`).
  public init(parsing bytes: [UInt8]) throws(NDEFError) {
    var cursor = NDEFByteCursor(bytes)
    try self.init(parsing: &cursor)
  }

  /// Parses a message in strict mode from `cursor`, leaving it after the ME record.
  ///
  /// - Throws: `NDEFError` as `init(parsing:)`; offsets include `cursor.base`.
  public init(parsing cursor: inout NDEFByteCursor) throws(NDEFError) {
    let result = NDEFMessageParser.parse(&cursor, mode: .strict)
    if let failure = result.failure { throw failure }
    self = result.message
  }

  /// The wire records of all logical records, in order.
  public var rawRecords: [NDEFRawRecord] { records.flatMap(\.chunks) }

  /// Serialized message. MB is set on the first wire record, ME on the last, CF on every
  /// chunk but the last of each record; SR, IL, TNF, TYPE, ID and chunk sizes are kept, so a
  /// parsed valid message serializes to the bytes it was parsed from.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(records.reduce(0) { $0 + $1.chunks.reduce(0) { $0 + $1.encodedLength } })
    for (i, record) in records.enumerated() {
      for (j, chunk) in record.chunks.enumerated() {
        let mb = i == 0 && j == 0
        let me = i == records.count - 1 && j == record.chunks.count - 1
        chunk.append(to: &out, mb: mb, me: me, cf: j < record.chunks.count - 1)
      }
    }
    return out
  }

  /// Same as `bytes`.
  public func serialized() -> [UInt8] { bytes }
}

/// Result of a lenient parse: the records decoded before any damage, the structural findings,
/// and the error that stopped decoding (if any).
public struct NDEFParseResult: Sendable {
  /// Records decoded (all of them, or those before the damage).
  public var message: NDEFMessage
  /// Structural findings (NDEF 1.0 §2.3, §3.2), in byte order.
  public var findings: [NDEFFinding]
  /// Strict mode: the first structural error. Other modes: framing damage that stopped
  /// decoding (a length past the end).
  public var failure: NDEFError?
  /// Bytes used by the message (up to the end of the ME record, or where decoding stopped).
  public var consumed: Int
}

/// Lenient NDEF message parser used by the validator and by `NDEFMessage(parsing:)`.
public enum NDEFMessageParser {
  /// Most wire records one message is decoded into. NDEF sets no limit, but a tag holds at
  /// most a 64 KiB file (T4T 2.0 NLEN) of 3-byte records; past this many, the bytes are
  /// almost surely not NDEF (zeros read as empty records), and decoding stops with
  /// `too-many-records` instead of holding millions of records.
  public static let recordLimit = 16_384

  /// Parses `bytes` (offsets reported from `base`) in `mode`; never throws.
  public static func parse(_ bytes: [UInt8], mode: NDEFValidationMode, base: Int = 0)
    -> NDEFParseResult
  {
    var cursor = NDEFByteCursor(bytes, base: base)
    return parse(&cursor, mode: mode)
  }

  /// Parses from `cursor` in `mode`, leaving it after the last record read.
  public static func parse(_ cursor: inout NDEFByteCursor, mode: NDEFValidationMode)
    -> NDEFParseResult
  {
    var state = ParserState(mode: mode)
    let start = cursor.position
    if cursor.isAtEnd {
      state.report(
        NDEFStructureIssue.emptyMessage(offset: cursor.absoluteOffset))
    }
    while !cursor.isAtEnd && state.failure == nil {
      if state.index == recordLimit {
        state.tooManyRecords(at: cursor.absoluteOffset, remaining: cursor.remaining)
        break
      }
      let raw: NDEFRawRecord
      do {
        raw = try readRawRecord(&cursor)
      } catch {
        state.frameDamage(error, cursor: cursor)
        break
      }
      state.accept(raw)
      if raw.me { break }
    }
    state.finish(cursor: cursor, start: start)
    return NDEFParseResult(
      message: NDEFMessage(records: state.records), findings: state.findings,
      failure: state.failure, consumed: cursor.position - start)
  }

  /// Reads one wire record (NDEF 1.0 §3.2) without judging its flags.
  ///
  /// - Throws: `NDEFError` `header-truncated` when the length fields are cut,
  ///   `length-past-end` when TYPE, ID or PAYLOAD run past the input (checked before any
  ///   allocation, so a PAYLOAD_LENGTH of 4 GB costs nothing).
  public static func readRawRecord(_ cursor: inout NDEFByteCursor) throws(NDEFError)
    -> NDEFRawRecord
  {
    try readRawRecord(&cursor, hint: true)
  }

  private static func readRawRecord(_ cursor: inout NDEFByteCursor, hint: Bool) throws(NDEFError)
    -> NDEFRawRecord
  {
    let start = cursor.absoluteOffset
    let startPosition = cursor.position
    let header = try cursor.readByte("record header")
    let sr = header & NDEFFlag.sr != 0
    let il = header & NDEFFlag.il != 0
    let fieldsSize = 1 + (sr ? 1 : 4) + (il ? 1 : 0)
    guard cursor.remaining >= fieldsSize else {
      throw NDEFError(
        kind: .truncated, code: "header-truncated", offset: cursor.absoluteOffset,
        expected:
          "TYPE_LENGTH, \(sr ? "1-byte" : "4-byte") PAYLOAD_LENGTH\(il ? ", ID_LENGTH" : "")"
          + " (\(fieldsSize) bytes)",
        message:
          "record header at byte \(start) is cut: \(fieldsSize) bytes of lengths follow its "
          + "flags byte, only \(cursor.remaining) left")
    }
    let typeLength = Int(try cursor.readByte("TYPE_LENGTH"))
    let payloadLength =
      sr ? Int(try cursor.readByte("PAYLOAD_LENGTH")) : Int(try cursor.readUInt32("PAYLOAD_LENGTH"))
    let idLength = il ? Int(try cursor.readByte("ID_LENGTH")) : 0
    let needed = typeLength + idLength + payloadLength
    guard needed <= cursor.remaining else {
      throw NDEFError(
        kind: .truncated, code: "length-past-end", offset: cursor.absoluteOffset,
        expected: "TYPE \(typeLength) + ID \(idLength) + PAYLOAD \(payloadLength) bytes",
        message: "record at byte \(start) claims \(needed) bytes of TYPE/ID/PAYLOAD but only "
          + "\(cursor.remaining) remain" + (hint ? srHint(cursor, startPosition, header) : ""))
    }
    let type = try cursor.readBytes(typeLength, "TYPE")
    let id = try cursor.readBytes(idLength, "ID")
    let payloadOffset = cursor.absoluteOffset
    let payload = try cursor.readBytes(payloadLength, "PAYLOAD")
    return NDEFRawRecord(
      header: header, type: type, id: id, payload: payload, offset: start,
      payloadOffset: payloadOffset)
  }

  /// When a record does not fit, says whether it would with the SR flag flipped (the usual
  /// cause: SR set with a long record, or SR clear with a 1-byte length).
  private static func srHint(_ cursor: NDEFByteCursor, _ start: Int, _ header: UInt8) -> String {
    var flipped = Array(cursor.bytes[start...])
    guard !flipped.isEmpty else { return "" }
    flipped[0] = header ^ NDEFFlag.sr
    var probe = NDEFByteCursor(flipped)
    guard (try? readRawRecord(&probe, hint: false)) != nil else { return "" }
    let srNow = header & NDEFFlag.sr != 0
    return srNow
      ? "; with SR clear (4-byte PAYLOAD_LENGTH) the record would fit"
      : "; with SR set (1-byte PAYLOAD_LENGTH) the record would fit"
  }
}

/// Bookkeeping for one parse: records, open chunk, findings, failure.
private struct ParserState {
  let mode: NDEFValidationMode
  var records: [NDEFRecord] = []
  var openChunk: [NDEFRawRecord] = []
  var findings: [NDEFFinding] = []
  var failure: NDEFError?
  var index = 0
  var sawME = false
  var lastOffset = 0

  init(mode: NDEFValidationMode) { self.mode = mode }

  mutating func report(_ issue: NDEFStructureIssue) {
    let severity: NDEFSeverity =
      issue.isWarningOnly ? .warning : (issue.minor && mode != .strict ? .warning : .error)
    findings.append(issue.finding(severity: severity))
    if mode == .strict && severity == .error && failure == nil {
      failure = NDEFError(
        kind: .structure, code: issue.code, offset: issue.offset, expected: issue.expected,
        message: issue.message)
    }
  }

  mutating func frameDamage(_ error: NDEFError, cursor: NDEFByteCursor) {
    findings.append(
      NDEFFinding(
        code: error.code, severity: .error, offset: error.offset,
        message: error.message + " (NFC Forum NDEF 1.0 §3.2)",
        readersShow: "ndeflib raises DecodeError (buffer underflow); Android NdefMessage(byte[]) "
          + "throws FormatException; Core NFC reports no NDEF message",
        fix:
          "write the message with NFCNDEFTag.writeNDEF(_:completionHandler:) so lengths match the data"
      ))
    failure = error
  }

  /// Decoding stopped at `recordLimit` records: an error finding and the failure.
  mutating func tooManyRecords(at offset: Int, remaining: Int) {
    let limit = NDEFMessageParser.recordLimit
    let message =
      "decoding stopped after \(limit) records: \(remaining) byte(s) from here not decoded "
      + "(more records than any tag holds: the bytes are probably not an NDEF message)"
    findings.append(
      NDEFFinding(
        code: "too-many-records", severity: .error, offset: offset, message: message,
        readersShow: nil,
        fix: "check that the bytes are one NDEF message (an NDEF TLV's value, a Type 4 NDEF "
          + "file after NLEN)"))
    failure = NDEFError(
      kind: .structure, code: "too-many-records", offset: offset,
      expected: "at most \(limit) records", message: message)
  }

  mutating func accept(_ raw: NDEFRawRecord) {
    lastOffset = raw.offset
    for issue in NDEFStructureIssue.check(raw, index: index, inChunk: !openChunk.isEmpty) {
      report(issue)
    }
    if mode == .strict && failure != nil { return }
    if !openChunk.isEmpty, raw.tnf != .unchanged {
      // A record that is not a continuation chunk (TNF 6) begins a record of its own: the open
      // chunked record ends unterminated (`chunk-wrong-tnf` says so) and keeps what it has, as
      // ndeflib and Android read the bytes, instead of swallowing this record's payload.
      closeChunkedRecord()
    }
    if !openChunk.isEmpty {
      openChunk.append(raw)
      if !raw.cf {
        closeChunkedRecord()
      }
    } else if raw.cf {
      // CF on the ME record too: the chunked record never ends (reported by finish).
      openChunk = [raw]
    } else {
      records.append(NDEFRecord(chunks: [raw]))
    }
    index += 1
    if raw.me { sawME = true }
  }

  /// Ends the open chunked record. An Empty one (TNF 0 on the first chunk) whose chunks carry
  /// payload is not empty, though no wire record broke a rule on its own.
  mutating func closeChunkedRecord() {
    let record = NDEFRecord(chunks: openChunk)
    // A first chunk with bytes of its own was already flagged by the per-record check.
    if let first = openChunk.first, first.tnf == .empty, !record.payload.isEmpty,
      first.type.isEmpty, first.id.isEmpty, first.payload.isEmpty
    {
      report(.chunkedEmptyWithPayload(offset: first.offset, count: record.payload.count))
    }
    records.append(record)
    openChunk = []
  }

  mutating func finish(cursor: NDEFByteCursor, start: Int) {
    if !openChunk.isEmpty {
      // The message ended inside a chunked record (no chunk with CF clear): its payload is
      // incomplete (NDEF 1.0 §2.3.3), in every mode: cf-on-last, minor in relax mode, only
      // names the flag.
      // Decoding stopped by the record limit did not see the message end.
      // The last chunk read is the last wire record, also when strict mode stopped at it
      // before adding it to the chunked record.
      if failure?.code != "too-many-records" {
        report(.chunkUnterminated(offset: lastOffset))
      }
      closeChunkedRecord()
    }
    guard failure == nil || mode != .strict else { return }
    if failure == nil && !sawME && index > 0 {
      report(.meMissing(offset: lastOffset))
    }
    if sawME && !cursor.isAtEnd {
      report(.trailingBytes(offset: cursor.absoluteOffset, count: cursor.remaining))
    }
  }
}
