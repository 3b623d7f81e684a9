/// NFC Forum Type 4 Tag: the NDEF Tag Application, its CC file and NDEF file.
///
/// Keeps what the tag keeps: the selected application and file, and the CC once read. It
/// names the APDUs of the NDEF procedures (NFC Forum T4T 2.0 §5.4/§5.5, nfc-facts §6.3/§6.4):
/// `SELECT NDEF application`, `SELECT CC file`, `SELECT NDEF file`, `SELECT file`, `READ CC`,
/// `READ NLEN`, `READ NDEF data`, `READ NLEN and NDEF data`, `UPDATE NLEN`, `UPDATE NDEF
/// data`, `UPDATE NLEN and NDEF data`, `UPDATE CC`, `READ file`, `UPDATE file`. A response
/// carries the name of its command plus ` response`. APDUs outside the NDEF application
/// (EMV, DESFire) get no decode from this layer (and no reason: the APDU layer decoded them).
///
/// Field keys: `aid`, `mapping`, `file_id`, `file`, `offset`, `le`, `lc`, `nlen`, `data`,
/// `message_offset`, `sw`, `result` (`ok`/`failed`/`more`); a CC read adds `cclen`,
/// `mapping_version`, `mle`, `mlc`, `ndef_tlv`, `ndef_file_id`, `ndef_file_max_size`,
/// `ndef_capacity`, `read_access`, `write_access` (hex), `read_access_meaning`,
/// `write_access_meaning`, `cc_complete`.
public struct Type4Layer: ProtocolLayer {
  /// The protocol this layer decodes.
  public static let protocolID = ProtocolID.type4

  private enum Application: Equatable {
    case unknown
    case ndef(v1: Bool)
    case other
  }

  /// What the pending command does, kept to interpret its response.
  private enum Operation {
    case selectApplication(ndef: Bool)
    case selectFile(UInt16)
    /// `le`: the bytes asked for (0 when unknown, a GET RESPONSE continuing the read).
    case readCC(offset: Int, le: Int)
    case readNDEF(offset: Int, le: Int)
    case update(offset: Int, data: [UInt8])
    case readOther(le: Int)

    /// The Le a read asked for (0: unknown or none); nil for other operations.
    var le: Int? {
      switch self {
      case .readCC(_, let le), .readNDEF(_, let le), .readOther(let le): return le
      default: return nil
      }
    }
  }

  private struct Pending {
    var operation: Operation
    var name: String
    var fields: [LayerField]
    /// The answer's data is wrapped in a discretionary data object `53` (odd INS B1).
    var wrapped = false
  }

  private var application = Application.unknown
  private var selectedFile: UInt16?
  private var ccBytes: [UInt8] = []
  private var pending: Pending?
  /// A read answered 61xx, with the data bytes received so far: the GET RESPONSE that follows
  /// fetches the rest of its data (ISO/IEC 7816-4 §7.6.1), decoded as its continuation.
  private var fetching: (pending: Pending, received: Int)?
  /// The command the last response answered.
  private var answered: Pending?
  /// The last CC parsed in this activation.
  public private(set) var capabilityContainer: CapabilityContainer4?
  /// CC byte offsets whose invalid value an `invalid-cc` finding already named.
  private var reportedCCProblems: Set<Int> = []
  /// CCs parsed, with their decode's fields and summary, by their bytes: a reader reads the
  /// same tag's CC in every session, and parsing and describing it cost as much as decoding
  /// a whole activation (`DecodeCache` explains). Kept across activations; emptied at
  /// `parsedCCLimit` entries.
  private var parsedCCs: [[UInt8]: ParsedCC] = [:]
  private static let parsedCCLimit = 64

  /// A parsed CC and what its answer's decode says of it.
  private struct ParsedCC: Sendable {
    var cc: CapabilityContainer4
    var fields: [LayerField]
    var summary: String
  }
  /// True once an activation (or a field change) was seen: from then on a READ/UPDATE BINARY
  /// before any SELECT has no file to act on, and none is assumed (`assumeNDEFFile`).
  private var activationSeen = false

  /// An idle layer.
  public init() {}

  /// Decodes one APDU (command from the reader, response from the tag).
  public mutating func decode(_ unit: LayerUnit, context: inout LinkContext) -> LayerResult {
    switch unit.direction {
    case .reader:
      pending = nil
      guard let command = try? CommandAPDU(parsing: unit.bytes) else { return LayerResult() }
      var result = decodeCommand(command)
      for i in result.findings.indices where result.findings[i].frames.isEmpty {
        result.findings[i].frames = [unit.frameIndex]
      }
      return result
    case .tag:
      // A retransmitted answer (after R(NAK)) answers the command the first copy answered;
      // an answer to a chained command never seen whole answers none of them.
      guard !unit.answersIncompleteCommand,
        let p = pending ?? (unit.retransmission ? answered : nil),
        let response = ResponseAPDU(bytes: unit.bytes)
      else {
        pending = nil
        return LayerResult()
      }
      pending = nil
      answered = p
      return decodeResponse(response, p, frame: unit.frameIndex)
    case .event:
      return LayerResult()
    }
  }

  /// Forgets the selection and the CC (new activation).
  public mutating func reset() {
    activationSeen = true
    application = .unknown
    selectedFile = nil
    ccBytes = []
    reportedCCProblems = []
    pending = nil
    answered = nil
    capabilityContainer = nil
  }

  // MARK: - Commands

  private var inNDEFApplication: Bool {
    if case .ndef = application { return true }
    return false
  }
  private var ndefFileID: UInt16 { capabilityContainer?.ndefFile.fileID ?? 0xE104 }
  private var nlenSize: Int {
    capabilityContainer?.ndefFile.lengthFieldSize
      ?? CapabilityContainer4.lengthFieldSize(partial: ccBytes) ?? 2
  }

  private mutating func decodeCommand(_ c: CommandAPDU) -> LayerResult {
    guard c.cla & 0x80 == 0 else { return LayerResult() }
    if c.ins == 0xA4 && c.p1 == 0x04 { return selectApplication(c) }
    guard application != .other else { return LayerResult() }
    switch c.ins {
    case 0xA4 where (c.p1 == 0x00 || c.p1 == 0x02) && c.data.count == 2:
      return selectFile(c)
    case 0xB0 where c.p1 & 0x80 == 0:
      return readBinary(c)
    case 0xD6 where c.p1 & 0x80 == 0:
      return updateBinary(c)
    case 0xB1, 0xD7:
      return oddInstruction(c)
    case 0xC0 where c.p1 == 0 && c.p2 == 0:
      continueRead()
      return LayerResult()
    default:
      return LayerResult()
    }
  }

  /// GET RESPONSE after a read answered 61xx: its answer is the read's next bytes.
  private mutating func continueRead() {
    guard let (p, received) = fetching else { return }
    var next = p
    next.wrapped = false  // a B1 answer's `53` header came with its first part
    switch p.operation {
    case .readCC(let offset, _): next.operation = .readCC(offset: offset + received, le: 0)
    case .readNDEF(let offset, _): next.operation = .readNDEF(offset: offset + received, le: 0)
    default: return
    }
    pending = next
  }

  /// READ BINARY B1 / UPDATE BINARY D7 (odd INS): the offset is in an offset data object `54`
  /// of the data field, and the data in a discretionary data object `53` (ISO/IEC 7816-4
  /// §7.2.3, §7.2.5). T4T 3.0 uses them for NDEF files past offset 7FFFh (ENLEN).
  private mutating func oddInstruction(_ c: CommandAPDU) -> LayerResult {
    guard let (offset, rest) = Self.offsetDataObject(c.data[...]) else { return LayerResult() }
    if c.ins == 0xB1 {
      var result = readBinary(offset: offset, le: c.le ?? 0, assumed: true)
      pending?.wrapped = true
      result.decode?.summary += " (B1, offset DO)"
      return result
    }
    guard let data = Self.discretionaryDataObject(rest) else { return LayerResult() }
    var result = updateBinary(offset: offset, data: data)
    result.decode?.summary += " (D7, offset DO)"
    return result
  }

  /// `54 L offset` (L 1–3, big-endian): the offset and the bytes after the object.
  static func offsetDataObject(_ d: ArraySlice<UInt8>) -> (Int, ArraySlice<UInt8>)? {
    guard d.count >= 3, d.first == 0x54 else { return nil }
    let length = Int(d[d.startIndex + 1])
    let start = d.startIndex + 2
    guard (1...3).contains(length), start + length <= d.endIndex else { return nil }
    return (ByteImage.bigEndian(d[start..<(start + length)]), d[(start + length)...])
  }

  /// The value of a discretionary data object `53` (BER length: one byte below 80h, or 81h /
  /// 82h and one or two length bytes), nil when `d` is not one. `partial`: the object may
  /// continue in a later answer (61xx), so a value shorter than its length is its first part.
  static func discretionaryDataObject(_ d: ArraySlice<UInt8>, partial: Bool = false) -> [UInt8]? {
    guard d.count >= 2, d.first == 0x53 else { return nil }
    var i = d.startIndex + 1
    var length = Int(d[i])
    i += 1
    if length == 0x81 || length == 0x82 {
      let n = length - 0x80
      guard i + n <= d.endIndex else { return nil }
      length = ByteImage.bigEndian(d[i..<(i + n)])
      i += n
    } else if length > 0x7F {
      return nil
    }
    guard i + length <= d.endIndex else { return partial ? Array(d[i...]) : nil }
    return Array(d[i..<(i + length)])
  }

  private mutating func selectApplication(_ c: CommandAPDU) -> LayerResult {
    let v1 = c.data == KnownAID.ndefV1
    guard v1 || c.data == KnownAID.ndefV2 else {
      pending = Pending(operation: .selectApplication(ndef: false), name: "", fields: [])
      return LayerResult()
    }
    let mapping = v1 ? "1.0" : "2.0/3.0"
    let fields = [LayerField("aid", .hex(c.data)), LayerField("mapping", .string(mapping))]
    let name = "SELECT NDEF application"
    let summary = v1 ? name + " (mapping 1.0 AID)" : name
    application = .ndef(v1: v1)
    selectedFile = nil
    return emit(.selectApplication(ndef: true), name, summary, fields)
  }

  private mutating func selectFile(_ c: CommandAPDU) -> LayerResult {
    let id = UInt16(c.data[0]) << 8 | UInt16(c.data[1])
    let kind = fileKind(id)
    // Outside the NDEF application only the CC and NDEF files are the tag's NDEF procedure:
    // a SELECT of 3F00 (the master file, ISO/IEC 7816-4 §7.1.1) or another file of a payment
    // or transit card is its own application's, left to the APDU layer.
    if kind == "file", !inNDEFApplication {
      selectedFile = id
      return LayerResult()
    }
    let name = kind == "file" ? "SELECT file" : "SELECT \(kind)"
    let fields = [LayerField("file_id", .hex(c.data)), LayerField("file", .string(kind))]
    let summary =
      kind == "file"
      ? "SELECT file \(Hex.string(c.data)) of the NDEF application"
      : "\(name) \(Hex.string(c.data))"
    return emit(.selectFile(id), name, summary, fields)
  }

  /// A trace that starts after the NDEF file was selected: no activation and no SELECT in the
  /// trace so far, and a READ/UPDATE BINARY of the 2-byte NLEN at offset 0, the NDEF
  /// procedures' first access to the file (T4T 2.0 §5.4.5, §5.4.6). The NDEF file is then
  /// assumed selected, with an `t4t-file-assumed` finding. After an activation the trace
  /// shows, no NDEF file is selected until a SELECT (ISO/IEC 7816-4: after a reset the current
  /// file is the MF at most; T4T 2.0 §5.4 selects the application and the file first): such a
  /// command names no file.
  private mutating func assumeNDEFFile(offset: Int, count: Int) -> Finding? {
    guard !activationSeen, selectedFile == nil, application == .unknown, offset == 0,
      count == 2
    else {
      return nil
    }
    selectedFile = ndefFileID
    return Finding(
      "t4t-file-assumed", .info,
      "No SELECT in the trace: this access to the 2 bytes at offset 0 is taken for the NLEN of "
        + "the NDEF file \(Hex.string(bytes(ndefFileID))) (the capture started after it was "
        + "selected)")
  }

  private mutating func readBinary(_ c: CommandAPDU) -> LayerResult {
    // No Le field: Ne = 0, no data expected (ISO/IEC 7816-4 §5.1).
    readBinary(offset: Int(c.p1) << 8 | Int(c.p2), le: c.le ?? 0)
  }

  private mutating func readBinary(offset: Int, le: Int, assumed: Bool = false) -> LayerResult {
    if !assumed, let finding = assumeNDEFFile(offset: offset, count: le) {
      var result = readBinary(offset: offset, le: le, assumed: true)
      result.findings.append(finding)
      return result
    }
    var fields = [LayerField("offset", .int(offset)), LayerField("le", .int(le))]
    let position = "offset \(offset) Le \(le)"
    switch selectedFile {
    case 0xE103:
      return emit(.readCC(offset: offset, le: le), "READ CC", "READ CC \(position)", fields)
    case let id? where id == ndefFileID:
      let name = ndefPart(offset: offset, count: le, verb: "READ")
      if offset >= nlenSize { fields.append(LayerField("message_offset", .int(offset - nlenSize))) }
      return emit(.readNDEF(offset: offset, le: le), name, "\(label(name)) \(position)", fields)
    case let id?:
      fields.insert(LayerField("file_id", .hex(bytes(id))), at: 0)
      return emit(
        .readOther(le: le), "READ file", "READ file \(Hex.string(bytes(id))) \(position)", fields)
    case nil:
      return emit(
        .readOther(le: le), "READ BINARY", "READ BINARY \(position) (no file selected)", fields)
    }
  }

  private mutating func updateBinary(_ c: CommandAPDU) -> LayerResult {
    updateBinary(offset: Int(c.p1) << 8 | Int(c.p2), data: c.data)
  }

  private mutating func updateBinary(offset: Int, data: [UInt8], assumed: Bool = false)
    -> LayerResult
  {
    if !assumed, let finding = assumeNDEFFile(offset: offset, count: data.count) {
      var result = updateBinary(offset: offset, data: data, assumed: true)
      result.findings.append(finding)
      return result
    }
    var fields = [LayerField("offset", .int(offset)), LayerField("lc", .int(data.count))]
    let position = "offset \(offset) Lc \(data.count)"
    let op = Operation.update(offset: offset, data: data)
    switch selectedFile {
    case 0xE103:
      fields.append(LayerField("data", .hex(data)))
      return emit(op, "UPDATE CC", "UPDATE CC \(position)", fields)
    case let id? where id == ndefFileID:
      let name = ndefPart(offset: offset, count: data.count, verb: "UPDATE")
      var summary = "\(label(name)) \(position)"
      if offset == 0, let nlen = lengthPrefix(data) {
        fields.append(LayerField("nlen", .int(nlen)))
        summary =
          name == "UPDATE NLEN"
          ? label("UPDATE NLEN \(nlen)") : label("\(name) NLEN \(nlen) Lc \(data.count)")
      } else if offset >= nlenSize {
        fields.append(LayerField("message_offset", .int(offset - nlenSize)))
      }
      fields.append(LayerField("data", .hex(data)))
      return emit(op, name, summary, fields)
    default:
      let file = selectedFile.map { Hex.string(bytes($0)) } ?? "(none selected)"
      if let id = selectedFile { fields.insert(LayerField("file_id", .hex(bytes(id))), at: 0) }
      fields.append(LayerField("data", .hex(data)))
      return emit(op, "UPDATE file", "UPDATE file \(file) \(position)", fields)
    }
  }

  /// A summary as the file's length field is named: ENLEN (4 bytes) in a T4T 3.0 file with
  /// the Extended NDEF File Control TLV, NLEN otherwise. Decode names keep `NLEN` (they name
  /// the procedure step, whatever the field's size).
  private func label(_ text: String) -> String { Self.label(text, lengthFieldSize: nlenSize) }

  /// `text` with NLEN named ENLEN when the length field has 4 bytes (T4T 3.0).
  static func label(_ text: String, lengthFieldSize: Int) -> String {
    lengthFieldSize == 4 ? text.replacingOccurrences(of: "NLEN", with: "ENLEN") : text
  }

  /// `READ NLEN`, `READ NDEF data` or `READ NLEN and NDEF data` by the byte range touched.
  private func ndefPart(offset: Int, count: Int, verb: String) -> String {
    if offset >= nlenSize { return "\(verb) NDEF data" }
    if offset + count <= nlenSize { return "\(verb) NLEN" }
    return "\(verb) NLEN and NDEF data"
  }

  private func lengthPrefix(_ data: [UInt8]) -> Int? {
    guard data.count >= nlenSize else { return nil }
    return ByteImage.bigEndian(data[0..<nlenSize])
  }

  private func fileKind(_ id: UInt16) -> String {
    if id == 0xE103 { return "CC file" }
    if id == ndefFileID { return "NDEF file" }
    return "file"
  }

  private func bytes(_ id: UInt16) -> [UInt8] { [UInt8(id >> 8), UInt8(id & 0xFF)] }

  private mutating func emit(
    _ op: Operation, _ name: String, _ summary: String, _ fields: [LayerField]
  ) -> LayerResult {
    pending = Pending(operation: op, name: name, fields: fields)
    return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
  }

  // MARK: - Responses

  private mutating func decodeResponse(_ r: ResponseAPDU, _ p: Pending, frame: Int)
    -> LayerResult
  {
    // A READ BINARY asking past the file's end returns the bytes up to it with the warning
    // 6282 (ISO/IEC 7816-4 §5.6): they are the file's, decoded as after 9000.
    var endOfFile = false
    switch p.operation {
    case .readCC, .readNDEF, .readOther: endOfFile = r.status.value == 0x6282 && !r.data.isEmpty
    default: break
    }
    let ok = r.status.value == 0x9000 || endOfFile
    let name = p.name + " response"
    fetching = nil
    if r.status.value >> 8 == 0x61 { return moreData(r, p, name: name, frame: frame) }
    var fields = [
      LayerField("sw", .string(r.status.hex)), LayerField("result", .string(ok ? "ok" : "failed")),
    ]
    guard ok else {
      // A failed SELECT leaves the previous selection in place, except that a missing NDEF
      // application means nothing NDEF is selected.
      if case .selectApplication(true) = p.operation { application = .unknown }
      guard !p.name.isEmpty else { return LayerResult() }
      return LayerResult(
        decode: LayerDecode(.type4, name, "\(label(p.name)) failed: \(r.status)", fields))
    }
    var result = successResponse(r, p, name: name, fields: &fields, frame: frame)
    if endOfFile { result.decode?.summary += " (SW 6282: the file ended before Le bytes)" }
    return result
  }

  /// 61xx: the command succeeded and xx more bytes (00: 256) wait for GET RESPONSE (ISO/IEC
  /// 7816-4 §5.6, §7.6.1). A SELECT took effect; a READ's data comes with GET RESPONSE.
  private mutating func moreData(_ r: ResponseAPDU, _ p: Pending, name: String, frame: Int)
    -> LayerResult
  {
    let count = r.status.value & 0xFF == 0 ? 256 : Int(r.status.value & 0xFF)
    let note = "SW \(r.status.hex): \(count) more byte(s) to fetch with GET RESPONSE"
    var fields = [
      LayerField("sw", .string(r.status.hex)), LayerField("result", .string("more")),
    ]
    let data =
      p.wrapped ? Self.discretionaryDataObject(r.data[...], partial: true) ?? r.data : r.data
    fetching = (p, data.count)
    switch p.operation {
    case .selectApplication, .selectFile:
      var result = successResponse(r, p, name: name, fields: &fields, frame: frame)
      result.decode?.summary += " (\(note))"
      return result
    default:
      guard !p.name.isEmpty else { return LayerResult() }
      // The answer may carry the first part of the data before 61xx (ISO/IEC 7816-4 §5.6).
      var summary = "\(label(p.name)): \(note)"
      if !data.isEmpty {
        fields.append(LayerField("data", .hex(data)))
        summary = "\(label(p.name)): \(data.count) byte(s), \(note)"
      }
      return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
    }
  }

  private mutating func successResponse(
    _ r: ResponseAPDU, _ p: Pending, name: String, fields: inout [LayerField], frame: Int
  ) -> LayerResult {
    // B1's answer wraps the file bytes in a discretionary data object 53 (ISO/IEC 7816-4 §7.2.3).
    var data = p.wrapped ? Self.discretionaryDataObject(r.data[...]) ?? r.data : r.data
    var overLe: Finding?
    if !p.wrapped, let le = p.operation.le, le > 0, data.count > le {
      overLe = Finding(
        "response-longer-than-le", .warning,
        "the answer holds \(data.count) data bytes, more than the Le \(le) asked for (a response "
          + "holds at most Ne bytes, ISO/IEC 7816-4 §5.1): only the first \(le) are taken as the "
          + "file's", frames: [frame])
      data = Array(data.prefix(le))
    }
    var result = successResponse(r, p, data: data, name: name, fields: &fields, frame: frame)
    if let overLe { result.findings.append(overLe) }
    return result
  }

  private mutating func successResponse(
    _ r: ResponseAPDU, _ p: Pending, data: [UInt8], name: String, fields: inout [LayerField],
    frame: Int
  ) -> LayerResult {
    switch p.operation {
    case .selectApplication(let ndef):
      if !ndef { application = .other }
      selectedFile = nil
      guard ndef else { return LayerResult() }
      return LayerResult(decode: LayerDecode(.type4, name, "NDEF application selected", fields))
    case .selectFile(let id):
      selectedFile = id
      let summary = "\(fileKind(id)) \(Hex.string(bytes(id))) selected"
      return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
    case .readCC(let offset, let le):
      var result = ccResponse(data, offset: offset, name: name, fields: fields, frame: frame)
      if r.status.value == 0x9000, let f = shortCCAnswer(data.count, offset: offset, le: le, frame)
      {
        result.findings.append(f)
      }
      return result
    case .readNDEF(let offset, _):
      return ndefResponse(data, offset: offset, name: name, fields: &fields)
    case .update(let offset, let data):
      if selectedFile == 0xE103 { merge(data, at: offset) }
      let summary = "\(label(p.name)): \(data.count) byte(s) written at offset \(offset)"
      return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
    case .readOther:
      fields.append(LayerField("data", .hex(data)))
      let summary = "\(p.name): \(data.count) byte(s)"
      return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
    }
  }

  private mutating func ndefResponse(
    _ data: [UInt8], offset: Int, name: String, fields: inout [LayerField]
  ) -> LayerResult {
    var summary = "\(data.count) byte(s)"
    if offset == 0, let nlen = lengthPrefix(data) {
      fields.append(LayerField("nlen", .int(nlen)))
      summary = nlenSize == 4 ? "ENLEN \(nlen)" : "NLEN \(nlen)"
      if data.count > nlenSize { summary += ", \(data.count - nlenSize) byte(s) of NDEF data" }
    } else if offset >= nlenSize {
      fields.append(LayerField("message_offset", .int(offset - nlenSize)))
      summary = "NDEF data at message offset \(offset - nlenSize): \(data.count) byte(s)"
    }
    fields.append(LayerField("data", .hex(data)))
    return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
  }

  private mutating func ccResponse(
    _ data: [UInt8], offset: Int, name: String, fields: [LayerField], frame: Int
  ) -> LayerResult {
    merge(data, at: offset)
    var fields = fields + [LayerField("data", .hex(data))]
    do {
      let parsed = try parseCC()
      let cc = parsed.cc
      capabilityContainer = cc
      fields += parsed.fields
      // Each bad value once, on the answer that completed the CC (a CC read in pieces parses
      // only then, so its earlier pieces' values are reported here too).
      let fresh = cc.valueProblems.filter { !reportedCCProblems.contains($0.offset) }
      reportedCCProblems.formUnion(fresh.map(\.offset))
      let findings =
        fresh
        .map {
          Finding(
            "invalid-cc", .warning, "Type 4 Capability Container: \($0)", frames: [frame],
            offset: $0.offset)
        }
      return LayerResult(
        decode: LayerDecode(.type4, name, parsed.summary, fields), findings: findings)
    } catch {
      let summary = "\(data.count) CC byte(s) at offset \(offset)"
      guard ccBytes.count >= 7 else {
        return LayerResult(decode: LayerDecode(.type4, name, summary, fields))
      }
      if error.incomplete {
        return LayerResult(
          decode: LayerDecode(.type4, name, "\(summary) (\(error.message))", fields))
      }
      let finding = Finding(
        "invalid-cc", .warning, "Type 4 Capability Container: \(error)", frames: [frame],
        offset: error.offset)
      fields.append(LayerField("cc_error", .string(error.description)))
      return LayerResult(
        decode: LayerDecode(.type4, name, "CC invalid: \(error)", fields), findings: [finding])
    }
  }

  /// The CC bytes read so far, parsed (once per distinct CC: `parsedCCs`).
  /// - Throws: `CapabilityContainer4`'s parse error (not remembered).
  private mutating func parseCC() throws(CapabilityContainerError) -> ParsedCC {
    if let hit = parsedCCs[ccBytes] { return hit }
    let cc = try CapabilityContainer4(parsing: ccBytes)
    let parsed = ParsedCC(cc: cc, fields: Self.ccFields(cc), summary: Self.ccSummary(cc))
    if parsedCCs.count >= Self.parsedCCLimit { parsedCCs.removeAll(keepingCapacity: true) }
    parsedCCs[ccBytes] = parsed
    return parsed
  }

  /// A CC answer with 9000 and fewer bytes than Le asked for, ending before the CCLEN the CC
  /// gives: the tag's CC file is shorter than its CCLEN (ISO/IEC 7816-4 §5.6 has a READ past a
  /// file's end answered 6282, and T4T readers read CCLEN bytes). Nil otherwise.
  private func shortCCAnswer(_ count: Int, offset: Int, le: Int, _ frame: Int) -> Finding? {
    guard count < le, ccBytes.count >= 2 else { return nil }
    let ccLen = Int(ccBytes[0]) << 8 | Int(ccBytes[1])
    guard offset + count < ccLen else { return nil }
    return Finding(
      "invalid-cc", .warning,
      "Type 4 Capability Container: the tag answered \(count) of the \(le) byte(s) asked for at "
        + "offset \(offset) with 9000, ending at CC byte \(offset + count) before CCLEN \(ccLen): "
        + "its CC file is shorter than CCLEN says",
      frames: [frame], offset: offset + count)
  }

  /// Keeps the CC bytes read so far, in file order (readers may read it in pieces).
  private mutating func merge(_ data: [UInt8], at offset: Int) {
    guard offset <= ccBytes.count, offset < 0x8000 else { return }
    let end = offset + data.count
    if end > ccBytes.count { ccBytes += [UInt8](repeating: 0, count: end - ccBytes.count) }
    ccBytes.replaceSubrange(offset..<end, with: data)
  }

  static func ccFields(_ cc: CapabilityContainer4) -> [LayerField] {
    let f = cc.ndefFile
    return [
      LayerField("cclen", .int(cc.ccLen)),
      LayerField("mapping_version", .string(cc.versionString)),
      LayerField("mle", .int(cc.mle)), LayerField("mlc", .int(cc.mlc)),
      LayerField("ndef_tlv", .hex([f.tlvType])),
      LayerField("ndef_file_id", .hex([UInt8(f.fileID >> 8), UInt8(f.fileID & 0xFF)])),
      LayerField("ndef_file_max_size", .int(f.maxSize)),
      LayerField("ndef_capacity", .int(f.capacity)),
      LayerField("read_access", .hex([f.readAccess])),
      LayerField("read_access_meaning", .string(CapabilityContainer4.accessMeaning(f.readAccess))),
      LayerField("write_access", .hex([f.writeAccess])),
      LayerField(
        "write_access_meaning", .string(CapabilityContainer4.accessMeaning(f.writeAccess))),
      LayerField("cc_complete", .bool(!cc.isTruncated)),
    ]
  }

  static func ccSummary(_ cc: CapabilityContainer4) -> String {
    let f = cc.ndefFile
    let id = Hex.string([UInt8(f.fileID >> 8), UInt8(f.fileID & 0xFF)])
    return "CC mapping \(cc.versionString), MLe \(cc.mle), MLc \(cc.mlc), NDEF file \(id) "
      + "max \(f.maxSize) bytes, read \(CapabilityContainer4.accessMeaning(f.readAccess)), "
      + "write \(CapabilityContainer4.accessMeaning(f.writeAccess))"
  }
}
