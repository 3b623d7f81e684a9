import NDEF

/// Compares the NDEF message each session left on the tag, decoded with the NDEF module:
/// Type 2 from the NDEF Message TLV of the end image's data area (NFC Forum T2T 1.0 §2.3),
/// Type 4 from NLEN/ENLEN and the NDEF file (NFC Forum T4T 2.0 §5.1). Records are aligned by
/// TNF and type, then compared field by field on the typed payload's decoded fields.
public enum NDEFComparison {
  /// Compares A's and B's final messages; secrets are printed masked unless `showSecrets`.
  public static func compare(
    _ a: SessionAnalysis, _ b: SessionAnalysis, showSecrets: Bool = false
  ) -> NDEFDiff {
    let sa = side(a)
    let sb = side(b)
    var differences: [FieldDifference] = []
    func add(_ field: String, _ x: FieldValue, _ y: FieldValue) {
      if x != y { differences.append(FieldDifference(field, x, y)) }
    }
    add("state", .string(sa.state), .string(sb.state))
    if let ma = sa.message, let mb = sb.message {
      add("length", .int(ma.count), .int(mb.count))
      add("message", .hex(ma), .hex(mb))
    }
    add("unacknowledged_bytes", .int(sa.unacknowledgedBytes), .int(sb.unacknowledgedBytes))
    add(
      "errors", .string(sa.errors.joined(separator: ",")), .string(sb.errors.joined(separator: ","))
    )
    let ra = sa.report?.records ?? []
    let rb = sb.report?.records ?? []
    // Compared with secrets shown (a different Wi-Fi key is a difference), printed masked.
    let fa = ra.map { ComparedFields($0, showSecrets: showSecrets) }
    let fb = rb.map { ComparedFields($0, showSecrets: showSecrets) }
    // Records of one TNF and type pair first; two of different TNF or type in the same place
    // still pair (scored above two gaps, below any alike pair), so a changed TNF or type is
    // shown as that field's difference, not as one record removed and another added.
    let pairs = SequenceAlignment.align(ra, rb) { x, y in
      guard x.record.tnf == y.record.tnf, x.record.type == y.record.type else { return 1 }
      return x == y ? 12 : 10
    }
    let records = pairs.map { p in
      var d: [FieldDifference] = []
      if let i = p.a, let j = p.b { d = fieldDifferences(fa[i], fb[j]) }
      return NDEFRecordDiff(a: p.a, b: p.b, differences: d)
    }
    return NDEFDiff(a: sa, b: sb, differences: differences, records: records)
  }

  /// The final message of one session, from its end memory (`atStart`: the message as the
  /// session found it, from its start memory).
  public static func side(_ s: SessionAnalysis, atStart: Bool = false) -> NDEFSideState {
    let files = atStart ? s.memory.filesStart : s.memory.filesEnd
    // Without the CC in this session (a stack that kept it from an earlier one), the NDEF
    // file is the one file other than the CC the memory holds (E104 by default).
    let others = files.keys.filter { $0 != 0xE103 }
    let fallback: UInt16? =
      others.contains(0xE104) ? 0xE104 : (others.count == 1 ? others.first : nil)
    if let id = s.type4NDEFFile ?? fallback, let file = files[id] {
      var state = type4(file, lengthSize: s.type4CC?.ndefFile.lengthFieldSize ?? 2)
      state.secretAddresses.files[id] = state.secretAddresses.type2
      state.secretAddresses.type2 = []
      return state
    }
    if let aib = s.memory.type3AttributeBlock {
      var state = type3(aib, atStart ? s.memory.type3Start : s.memory.type3End)
      state.secretAddresses.type3 = state.secretAddresses.type2
      state.secretAddresses.type2 = []
      return state
    }
    let image5 = atStart ? s.memory.type5Start : s.memory.type5End
    if image5.count > 0 {
      // Type 5 memory rows are blocks, as Type 3's: their secrets share that set (a session
      // is NFC-F or NFC-V, never both).
      var state = type5(image5, memorySize: s.memory.type5MemorySize)
      state.secretAddresses.type3 = state.secretAddresses.type2
      state.secretAddresses.type2 = []
      return state
    }
    let image = atStart ? s.memory.type2Start : s.memory.type2End
    let run = image.knownRun(from: 16)
    guard !run.isEmpty else { return .without("unknown") }
    // As the report reads it: without the CC (page 3) the data area is not read as TLVs; a
    // CC that is not NDEF's holds no message (NFC Forum T2T 1.0 §6.4.1).
    guard let cc = image.known(12, 4).flatMap(Type2CapabilityContainer.init) else {
      return .without("unknown")
    }
    if cc.status == .notSupported { return .without("none") }
    return type2(run, image: image)
  }

  /// Type 3: Ln bytes from block 1 (an Attribute Information Block that is not valid holds
  /// no message).
  private static func type3(_ aib: Type3AttributeBlock, _ image: ByteImage) -> NDEFSideState {
    guard aib.invalidReason == nil else { return .without("none") }
    let body = image.known(16, aib.ln)
    return message(
      body ?? [], complete: body != nil, range: 0..<(16 + aib.ln), image: image,
      address: { 16 + $0 })
  }

  /// Type 5: the first NDEF Message TLV of the TLV area after the CC (NFC Forum T5T 1.0
  /// §4.3–§4.4), as the report reads it.
  private static func type5(_ image: ByteImage, memorySize: Int?) -> NDEFSideState {
    let head = image.knownRun(from: 0)
    guard let cc = Type5CapabilityContainer(head.prefix(8)) else {
      let partial = head.count < 8 && head.count >= 3 && head[2] == 0
      return .without(head.count < 4 || partial ? "unknown" : "none")
    }
    let (area, known) = cc.tlvArea(image, memorySize: memorySize)
    guard known > 0 else { return .without("unknown") }
    guard let tlv = area.ndef else {
      return .without(area.endsAtTerminator ? "none" : "incomplete")
    }
    let base = area.baseAddress + tlv.valueOffset
    return message(
      tlv.value, complete: tlv.isComplete,
      range: (area.baseAddress + tlv.offset)..<(base + tlv.length),
      image: image, address: { base + $0 })
  }

  private static func type2(_ run: [UInt8], image: ByteImage) -> NDEFSideState {
    let area = Type2TLVArea(parsing: run, baseAddress: 16)
    guard let tlv = area.ndef else {
      let ended = area.tlvs.contains { $0.tag == .terminator }
      return .without(ended ? "none" : "incomplete")
    }
    let start = area.baseAddress + tlv.offset
    let range = start..<max(start, area.ndefValueEndAddress ?? area.baseAddress + tlv.valueEnd)
    // The value runs around lock and reserved bytes (NFC Forum T2T 1.0 §2.3.1, §2.3.2).
    let map = area.ndefAddressMap
    let base = area.baseAddress + tlv.valueOffset
    return message(
      tlv.value, complete: tlv.isComplete, range: range, image: image,
      address: { map?.address(of: $0) ?? base + $0 })
  }

  private static func type4(_ file: ByteImage, lengthSize: Int) -> NDEFSideState {
    guard let nlen = file.knownBigEndian(0, lengthSize) else {
      return .without("unknown")
    }
    let body = file.known(lengthSize, nlen)
    return message(
      body ?? [], complete: body != nil, range: 0..<(lengthSize + nlen), image: file,
      address: { lengthSize + $0 })
  }

  /// The state of the message `bytes` of `image`, message offset `m` at `address(m)` (its
  /// secret bytes placed there in `secretAddresses.type2`, which the caller moves to the
  /// image's kind).
  private static func message(
    _ bytes: [UInt8], complete: Bool, range: Range<Int>, image: ByteImage,
    address: (Int) -> Int
  ) -> NDEFSideState {
    let unacknowledged = range.filter { image.state($0) == .unacknowledged }.count
    guard complete else {
      return .without("incomplete", unacknowledged: unacknowledged)
    }
    if bytes.isEmpty {
      var empty = NDEFSideState.without("empty", unacknowledged: unacknowledged)
      empty.message = []
      return empty
    }
    let report = NDEFValidator.validate(bytes, mode: .relax)
    var errors = report.findings.filter { $0.severity == .error }.map(\.code)
    if let f = report.failure, !errors.contains(f.code) { errors.insert(f.code, at: 0) }
    let secrets = secretOffsets(report)
    var state = NDEFSideState(
      state: "message", message: bytes, unacknowledgedBytes: unacknowledged, report: report,
      errors: errors)
    state.secretOffsets = secrets
    state.secretAddresses.type2 = Set(secrets.map(address))
    return state
  }

  /// The offsets in the message of the bytes that belong to a secret: the payload of every
  /// record that holds one (`NDEFDecodedRecord.holdsSecret`, the rule that makes
  /// `nfctrace ndef --format json` print its `payload` as null), chunk by chunk.
  public static func secretOffsets(_ report: NDEFReport) -> Set<Int> {
    var out = Set<Int>()
    for r in report.records where r.holdsSecret {
      for chunk in r.record.chunks {
        out.formUnion(chunk.payloadOffset..<(chunk.payloadOffset + chunk.payload.count))
      }
    }
    return out
  }

  /// The Type 2 addresses of secret bytes on the tag past what its NDEF TLV's length claims:
  /// a write cut off while the length was still 0, or a length that does not cover the
  /// records written, leaves a Wi-Fi record's bytes there. The known bytes from the TLV's
  /// value on are read as a message (relax mode).
  public static func unclaimedSecrets(type2 image: ByteImage) -> Set<Int> {
    let run = image.knownRun(from: 16)
    guard !run.isEmpty, let tlv = Type2TLVArea(parsing: run, baseAddress: 16).ndef else {
      return []
    }
    let base = 16 + tlv.valueOffset
    return Set(secretOffsets(message: image.knownRun(from: base)).map { base + $0 })
  }

  /// The same for a Type 4 NDEF file: the known bytes after its length field (NLEN 2 bytes,
  /// ENLEN 4), read as a message.
  public static func unclaimedSecrets(file: ByteImage, lengthSize: Int) -> Set<Int> {
    Set(secretOffsets(message: file.knownRun(from: lengthSize)).map { lengthSize + $0 })
  }

  /// `secretOffsets` of the message `bytes` (decoded in relax mode).
  public static func secretOffsets(message bytes: [UInt8]) -> Set<Int> {
    secretOffsets(NDEFValidator.validate(bytes, mode: .relax))
  }

  // MARK: Fields

  /// A record as ordered (path, value) leaves: `tnf`, `type`, `id`, `kind`, then the payload's
  /// decoded fields (nested objects as `a.b`, lists as `a[0]`).
  /// A name repeated in one object (two Wi-Fi credentials) gets `_2`, `_3`… on its repeats, as
  /// in the JSON. Secrets (a Wi-Fi network key) are masked unless `showSecrets`.
  public static func fields(_ r: NDEFDecodedRecord, showSecrets: Bool = false) -> [(
    String, FieldValue
  )] {
    var out: [(String, FieldValue)] = [
      ("tnf", .string(r.record.tnf.name)),
      ("type", r.record.typeText.map { .string($0) } ?? .hex(r.record.type)),
    ]
    if !r.record.id.isEmpty {
      out.append(("id", r.record.idText.map { .string($0) } ?? .hex(r.record.id)))
    }
    out.append(("kind", .string(r.payload.kindName)))
    let payload = r.payload.fields(showSecrets: showSecrets)
    for (f, name) in zip(payload, NDEFField.uniqueNames(payload)) {
      flatten(f.value, path: name, into: &out)
    }
    if payload.isEmpty { out.append(("payload", .hex(r.record.payload))) }
    return out
  }

  /// A record's fields twice: masked for printing, with secrets for comparing (same paths).
  private struct ComparedFields {
    let shown: [(String, FieldValue)]
    let secret: [(String, FieldValue)]
    init(_ r: NDEFDecodedRecord, showSecrets: Bool) {
      shown = NDEFComparison.fields(r, showSecrets: showSecrets)
      secret = NDEFComparison.fields(r, showSecrets: true)
    }
  }

  private static func flatten(_ v: NDEFValue, path: String, into out: inout [(String, FieldValue)])
  {
    switch v {
    case .text(let s): out.append((path, .string(s)))
    case .int(let i): out.append((path, .int(i)))
    case .bool(let b): out.append((path, .bool(b)))
    case .bytes(let b): out.append((path, .hex(b)))
    case .list(let items):
      for (i, item) in items.enumerated() { flatten(item, path: "\(path)[\(i)]", into: &out) }
    case .object(let fields):
      for (f, name) in zip(fields, NDEFField.uniqueNames(fields)) {
        flatten(f.value, path: path + "." + name, into: &out)
      }
    }
  }

  /// Differences of two records' fields, paired by path (paths are unique within a record).
  /// A secret that differs while its masked text does not is shown as differing, masked.
  private static func fieldDifferences(_ a: ComparedFields, _ b: ComparedFields)
    -> [FieldDifference]
  {
    var out: [FieldDifference] = []
    let bIndex = Dictionary(
      b.secret.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first })
    var seen = Set<String>()
    for (i, (k, v)) in a.secret.enumerated() {
      seen.insert(k)
      let j = bIndex[k]
      guard j.map({ b.secret[$0].1 }) != v else { continue }
      var shownA: FieldValue? = a.shown[i].1
      var shownB: FieldValue? = j.map { b.shown[$0].1 }
      if shownA == shownB, case .string(let text)? = shownA {
        shownA = .string(text + " (masked; differs)")
        shownB = shownA
      }
      out.append(FieldDifference(k, shownA, shownB))
    }
    for (j, (k, _)) in b.secret.enumerated() where !seen.contains(k) {
      out.append(FieldDifference(k, nil, b.shown[j].1))
    }
    return out
  }
}
