import NDEF

/// Secrets in a diff: the bytes of an NDEF record holding a secret (a Wi-Fi network key;
/// `NDEFDecodedRecord.holdsSecret`, the rule `nfctrace ndef` and `report` mask by) are
/// compared as they are but printed `••`, one per byte, wherever they appear — the message,
/// memory rows, the commands that wrote them and the answers that read them, operation
/// details — unless `nfctrace diff --show-secrets`. So are an NTAG21x / Ultralight EV1 PWD
/// and PACK and a MIFARE Ultralight C's 3DES key (`SecretAddresses`), as `report` masks them.
extension TraceDiff {
  /// What a secret byte is printed as.
  public static let maskedByte = "••"

  /// Marks the secret bytes of both sides for masking (see the extension's comment).
  mutating func maskSecrets() {
    let ownA = Self.secretAddresses(a.analysis, ndef.a)
    let ownB = Self.secretAddresses(b.analysis, ndef.b)
    // An address secret on either side is masked on both, in exchanges as in memory rows: a
    // side whose product is not identified (no GET_VERSION) has no PWD page of its own, but
    // its WRITE of the other side's PWD sends the same secret. Each side's own PWD and PACK
    // pages come first.
    let secretsA = ownA.union(ownB)
    let secretsB = ownB.union(ownA)
    for i in a.exchanges.indices { Self.mark(&a.exchanges[i], secretsA) }
    for i in b.exchanges.indices { Self.mark(&b.exchanges[i], secretsB) }
    Self.markWriteDataChains(&a.exchanges, secretsA.anyFile)
    Self.markWriteDataChains(&b.exchanges, secretsB.anyFile)
    // A memory unit shows both sides at one address.
    let both = secretsA
    for k in memory.indices {
      let m = memory[k]
      let set =
        m.file.map { both.files[$0] ?? [] }
        ?? (m.isBlock ? both.type3 : both.type2.union(both.password).union(both.ultralightCKey))
      let count = max(m.aBytes.count, m.bBytes.count)
      memory[k].secret = Set((0..<count).filter { set.contains(m.offset + $0) })
    }
    for k in ndef.differences.indices where ndef.differences[k].field == "message" {
      ndef.differences[k].aSecret = ndef.a.secretOffsets
      ndef.differences[k].bSecret = ndef.b.secretOffsets
    }
    let recordsA = ndef.a.report?.records ?? []
    let recordsB = ndef.b.report?.records ?? []
    for k in ndef.records.indices {
      // The raw payload of a record whose fields could not be decoded.
      let r = ndef.records[k]
      for f in ndef.records[k].differences.indices
      where ndef.records[k].differences[f].field == "payload" {
        if let i = r.a, i < recordsA.count, recordsA[i].holdsSecret {
          ndef.records[k].differences[f].aSecret = Set(0..<recordsA[i].record.payload.count)
        }
        if let j = r.b, j < recordsB.count, recordsB[j].holdsSecret {
          ndef.records[k].differences[f].bSecret = Set(0..<recordsB[j].record.payload.count)
        }
      }
    }
    for k in operations.indices {
      for f in operations[k].differences.indices {
        Self.mask(&operations[k].differences[f], a.exchanges, b.exchanges)
      }
    }
  }

  /// The memory addresses of the secret bytes of the session's messages: the final one and
  /// the one it found (a key read before it was overwritten).
  static func secretAddresses(_ s: SessionAnalysis, _ end: NDEFSideState) -> SecretAddresses {
    var out = end.secretAddresses
    out.formUnion(NDEFComparison.side(s, atStart: true).secretAddresses)
    // A key written or read past what the length claims (a cut write, a wrong length).
    for image in [s.memory.type2Start, s.memory.type2End] {
      out.type2.formUnion(NDEFComparison.unclaimedSecrets(type2: image))
    }
    let size = s.type4CC?.ndefFile.lengthFieldSize ?? 2
    for files in [s.memory.filesStart, s.memory.filesEnd] {
      for (id, file) in files where id != 0xE103 {
        out.files[id, default: []].formUnion(
          NDEFComparison.unclaimedSecrets(file: file, lengthSize: size))
      }
    }
    if s.tag.isUltralightC { out.ultralightCKey = Set(UltralightCAuthentication.keyAddresses) }
    guard let c = s.tag.ntagProduct.flatMap(Type2Configuration.init(product:)) else { return out }
    (out.pwdPage, out.packPage) = (c.pwdPage, c.packPage)
    for image in [s.memory.type2Start, s.memory.type2End] {
      if let pwd = image.known(c.pwdPage * 4, 4), isSecret(password: pwd) {
        out.password.formUnion(c.pwdPage * 4..<c.pwdPage * 4 + 4)
      }
      if let pack = image.known(c.packPage * 4, 2), pack.contains(where: { $0 != 0 }) {
        out.password.formUnion(c.packPage * 4..<c.packPage * 4 + 2)
      }
    }
    return out
  }

  /// Whether a PWD is masked: not zeros (what a READ answers there) nor NXP's factory default
  /// `FF FF FF FF` (public; NTAG213/215/216 datasheet §8.8.1), as `report` decides.
  static func isSecret(password: [UInt8]) -> Bool {
    password.contains { $0 != 0 } && !ReportJSON.isFactoryDefaultPassword(password)
  }

  /// Marks the bytes of `r` that carry memory at secret addresses: a Type 2 WRITE's data and a
  /// READ or FAST_READ answer (by page), an UPDATE BINARY's data and a READ BINARY answer (by
  /// offset, in whichever file: the exchange does not say which one is selected).
  static func mark(_ r: inout ExchangeRecord, _ secrets: SecretAddresses) {
    let request = Array(r.requestPayload)
    // A PWD_AUTH of the wrong length stays raw, but its bytes after 1B are still a password.
    if r.command == nil, request.first == 0x1B, r.requestRawReason?.hasPrefix("PWD_AUTH") == true {
      return markPasswordAuth(&r, request, raw: true)
    }
    guard let c = r.command else { return }
    let response = r.responsePayload.map(Array.init) ?? []
    func page(_ key: String) -> Int? {
      if case .int(let p)? = c.field(key) { return p }
      return nil
    }
    if c.protocolID == .type2, c.name == "PWD_AUTH" { return markPasswordAuth(&r, request) }
    guard !secrets.isEmpty else { return }
    switch c.protocolID {
    case .type2:
      let set = secrets.type2.union(secrets.password).union(secrets.ultralightCKey)
      switch c.name {
      case "WRITE", "COMPATIBILITY_WRITE":
        // WRITE `A2 page d0…d3`; COMPATIBILITY_WRITE's data frame, 16 bytes, the first 4 stored.
        guard let p = page("page"), request.count == 16 || request.count >= 6 else { return }
        let start = request.count == 16 ? 0 : request.count - 4
        let data = Array(request[start..<start + 4])
        r.secretRequest = Set(
          (0..<4).filter { set.contains(p * 4 + $0) || writesPassword(page: p, data, $0, secrets) }
            .map { start + $0 })
      case "READ", "FAST_READ":
        guard let p = page("page") ?? page("start_page") else { return }
        // PWD and PACK read as zeros whatever they hold: such zeros are no secret.
        r.secretResponse = Set(
          response.indices.filter {
            secrets.type2.contains(p * 4 + $0)
              || (secrets.password.contains(p * 4 + $0) && response[$0] != 0)
          })
      default: return
      }
    case .felica:
      markType3(&r, c, request, response, secrets.type3)
    case .type4, .iso7816:
      let set = secrets.anyFile
      if c.name == "DESFire WRITE DATA" || c.name == "DESFire READ DATA" {
        return markDESFireData(&r, request, response, set)
      }
      guard !set.isEmpty, request.count >= 5, request[2] & 0x80 == 0 else { return }
      let offset = Int(request[2]) << 8 | Int(request[3])
      switch request[1] {
      case 0xD6:  // UPDATE BINARY: data after Lc (1 byte, or 00 + 2 bytes extended)
        let start = request[4] == 0 && request.count > 7 ? 7 : 5
        r.secretRequest = Set(
          (start..<request.count).filter { set.contains(offset + $0 - start) })
      case 0xB0:  // READ BINARY: the data before SW1 SW2
        r.secretResponse = Set(
          (0..<max(0, response.count - 2)).filter { set.contains(offset + $0) })
      default: return
      }
    default: return
    }
  }

  /// A Type 3 UPDATE's block data and a CHECK answer's, of the NDEF service: the last 16 bytes
  /// per block of the list, in its order (JIS X 6319-4; NFC Forum T3T 1.0 §5.2/§5.3), marked
  /// by block × 16 + byte. A frame whose data does not fill its block list is not marked.
  static func markType3(
    _ r: inout ExchangeRecord, _ c: LayerDecode, _ request: [UInt8], _ response: [UInt8],
    _ set: Set<Int>
  ) {
    guard !set.isEmpty, c.name == "CHECK" || c.name == "UPDATE",
      FeliCaMessage.addressesNDEFService(c)
    else { return }
    let blocks = FeliCaMessage.blocks(c)
    let bytes = c.name == "UPDATE" ? request : response
    // Before the data: LEN, code, IDm and the service and block lists (UPDATE) or SF1 SF2 and
    // the block count (CHECK answer; SF1 00 = success).
    let start = bytes.count - 16 * blocks.count
    guard !blocks.isEmpty, start >= 13, c.name == "UPDATE" || bytes[start - 3] == 0 else {
      return
    }
    let marked = Set(
      blocks.enumerated().flatMap { i, block in
        (0..<16).filter { set.contains(block * 16 + $0) }.map { start + 16 * i + $0 }
      })
    if c.name == "UPDATE" { r.secretRequest = marked } else { r.secretResponse = marked }
  }

  /// Whether byte `i` of a WRITE of `data` to `page` is a new PWD or PACK: masked whether the
  /// tag took it or not, unless the PWD written is zeros or the factory default (`isSecret`)
  /// or the PACK zeros.
  static func writesPassword(page: Int, _ data: [UInt8], _ i: Int, _ s: SecretAddresses) -> Bool {
    if page == s.pwdPage { return isSecret(password: data) }
    return page == s.packPage && i < 2 && data.prefix(2).contains { $0 != 0 }
  }

  /// A PWD_AUTH (`1B` + 4-byte PWD) and its PACK answer: the password is masked unless it is
  /// NXP's factory default, the PACK always (`report`'s rule for what was sent on the air).
  /// `raw`: a PWD_AUTH of the wrong length the Type 2 layer left raw: whatever bytes follow
  /// `1B` are masked, and a 2-byte answer (a PACK's size).
  static func markPasswordAuth(_ r: inout ExchangeRecord, _ request: [UInt8], raw: Bool = false) {
    guard request.count >= 5 || raw else { return }
    let password = Array(request.dropFirst().prefix(4))
    if raw || !ReportJSON.isFactoryDefaultPassword(password) {
      r.secretRequest = Set(1..<request.count)
    }
    // A PACK is 2 bytes (+ CRC); a 4-bit NAK refusing the password is no secret.
    let answer = r.responsePayload?.count ?? 0
    if r.answer?.name == "PACK" || (raw && answer == 2) {
      r.secretResponse = Set(0..<min(2, answer))
    }
  }

  /// Where a DESFire / NTAG 424 DNA WriteData (8D, 3D) or ReadData (AD, BD) request keeps
  /// things, wrapped in CLA 90 (`90 INS 00 00 Lc`, then Le) or native (`INS`): its command
  /// byte, the file offset (3 bytes LSB first, after the file number) and the range of the
  /// data it carries (a WriteData's; empty for a ReadData). NT4H2421Gx §10.
  static func desfireDataLayout(_ request: [UInt8]) -> (
    command: UInt8, offset: Int, data: Range<Int>
  )? {
    guard let ins = request.first else { return nil }
    let wrapped = ins == 0x90
    let file = wrapped ? 5 : 1
    // ReadData has WriteData's 7-byte header: file number, offset, length.
    guard let offset = Type4Procedure.writeData(Array(request[min(file, request.count)...]))?.offset
    else { return nil }
    let start = file + 7
    let end = wrapped ? max(start, request.count - 1) : request.count  // Le 00 is no data
    return (wrapped ? request[1] : ins, offset, start..<end)
  }

  /// Whether a DESFire answer says more frames follow (91AF wrapped, AF first natively).
  static func moreFrames(_ response: [UInt8]) -> Bool {
    response.suffix(2) == [0x91, 0xAF] || (response.count != 2 && response.first == 0xAF)
  }

  /// A WriteData (its data) or ReadData (its answer's data, before SW1 SW2 wrapped, after the
  /// status byte natively): secret bytes are marked by their offset in the file.
  static func markDESFireData(
    _ r: inout ExchangeRecord, _ request: [UInt8], _ response: [UInt8], _ set: Set<Int>
  ) {
    guard !set.isEmpty, let layout = desfireDataLayout(request) else { return }
    let offset = layout.offset
    if layout.command == 0x8D || layout.command == 0x3D {
      let start = layout.data.lowerBound
      r.secretRequest = Set(layout.data.filter { set.contains(offset + $0 - start) })
    } else {
      let wrapped = request.first == 0x90
      let range = wrapped ? 0..<max(0, response.count - 2) : min(1, response.count)..<response.count
      let first = range.lowerBound
      r.secretResponse = Set(range.filter { set.contains(offset + $0 - first) })
    }
  }

  /// The ADDITIONAL FRAMEs (AF) that carry the rest of a WriteData answered 91AF: their data
  /// continues the file from where the frame before stopped, so their secret bytes are
  /// marked as the WriteData's are.
  static func markWriteDataChains(_ records: inout [ExchangeRecord], _ set: Set<Int>) {
    guard !set.isEmpty else { return }
    var next: Int?  // the file offset of the next ADDITIONAL FRAME's first data byte
    for i in records.indices {
      guard let c = records[i].command else { continue }
      let request = Array(records[i].requestPayload)
      let more = moreFrames(records[i].responsePayload.map(Array.init) ?? [])
      switch c.name {
      case "DESFire WRITE DATA":
        next = desfireDataLayout(request).flatMap { more ? $0.offset + $0.data.count : nil }
      case "DESFire ADDITIONAL FRAME":
        guard let at = next else { continue }
        let wrapped = request.first == 0x90
        let start = wrapped ? 5 : 1
        let data = start..<max(start, wrapped ? request.count - 1 : request.count)
        records[i].secretRequest.formUnion(data.filter { set.contains(at + $0 - start) })
        next = more ? at + data.count : nil
      default: next = nil
      }
    }
  }

  /// Masks a difference of operations: the secret bytes of a `message` detail (an NDEF
  /// message read or written), and a reason quoting a command whose bytes are secret.
  static func mask(
    _ d: inout FieldDifference, _ ra: [ExchangeRecord], _ rb: [ExchangeRecord]
  ) {
    if d.field == "details.message" {
      if case .hex(let bytes)? = d.a { d.aSecret = NDEFComparison.secretOffsets(message: bytes) }
      if case .hex(let bytes)? = d.b { d.bSecret = NDEFComparison.secretOffsets(message: bytes) }
    }
    // An authenticate's PWD and PACK, masked as in its PWD_AUTH exchange.
    if d.field == "details.password" || d.field == "details.pack" {
      func secret(_ v: FieldValue?) -> Set<Int> {
        guard case .hex(let bytes)? = v else { return [] }
        let isDefault = d.field == "details.password" && ReportJSON.isFactoryDefaultPassword(bytes)
        return isDefault ? [] : Set(bytes.indices)
      }
      d.aSecret = secret(d.a)
      d.bSecret = secret(d.b)
    }
    func quoted(_ v: FieldValue?, _ records: [ExchangeRecord]) -> FieldValue? {
      guard case .string(var text)? = v else { return v }
      for r in records where !r.secretRequest.isEmpty {
        let plain = r.commandSummary
        if text.contains(plain) {
          text = text.replacingOccurrences(of: plain, with: r.shownCommandSummary)
        }
      }
      return .string(text)
    }
    d.a = quoted(d.a, ra)
    d.b = quoted(d.b, rb)
  }
}

extension ExchangeRecord {
  /// `commandSummary` with the hex of secret bytes printed `••`.
  public var shownCommandSummary: String {
    Self.masking(commandSummary, Array(requestPayload), secretRequest)
  }

  /// `answerSummary` with the hex of secret bytes printed `••`.
  public var shownAnswerSummary: String {
    Self.masking(answerSummary, responsePayload.map(Array.init) ?? [], secretResponse)
  }

  /// The request as captured, lower-case hex without spaces, secret bytes as `••`.
  public var shownRequestHex: String {
    var raw: Set<Int> = []
    let infCount = Self.payload(request[...], requestCRC).count - requestPrologue
    // Chained: the captured frame is the last part, the tail of the assembled APDU.
    let shift = assembledRequest.map { $0.count - infCount } ?? 0
    for k in secretRequest where k >= shift { raw.insert(requestPrologue + k - shift) }
    return Self.hex(request, masked: Self.withCRC(raw, request.count, requestCRC), separator: "")
  }

  /// The response as captured (the first part of a chained one), secret bytes as `••`.
  public var shownResponseHex: String? {
    response.map {
      let raw = Set(secretResponse.map { responsePrologue + $0 })
      return Self.hex($0, masked: Self.withCRC(raw, $0.count, responseCRC), separator: "")
    }
  }

  /// `masked` and, when it is not empty, the frame's CRC_A / CRC_B: a CRC over a 4-byte PWD
  /// would give away 16 of its 32 bits.
  static func withCRC(_ masked: Set<Int>, _ count: Int, _ crc: CRCStatus?) -> Set<Int> {
    guard !masked.isEmpty, crc == .ok || crc == .bad, count >= 2 else { return masked }
    return masked.union([count - 2, count - 1])
  }

  /// Hex of `bytes`, the bytes at `masked` positions printed `••`.
  public static func hex(_ bytes: [UInt8], masked: Set<Int>, separator: String) -> String {
    bytes.enumerated().map {
      masked.contains($0.offset) ? TraceDiff.maskedByte : Hex.string([$0.element])
    }
    .joined(separator: separator)
  }

  /// `text` with its secret bytes printed `••`: every run of space-separated hex in `text`
  /// that spells bytes of `bytes` in order (at least 3 of them, or up to their end or the
  /// text's `…` cut) has the bytes at `secret` positions replaced.
  static func masking(_ text: String, _ bytes: [UInt8], _ secret: Set<Int>) -> String {
    guard !secret.isEmpty else { return text }
    var tokens = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    let hex = bytes.map { Hex.string([$0]) }
    var i = 0
    while i < tokens.count {
      var best = (k: 0, n: 0)
      for k in hex.indices where hex[k] == tokens[i] {
        var n = 0
        while i + n < tokens.count, k + n < hex.count, tokens[i + n] == hex[k + n] { n += 1 }
        if n > best.n { best = (k, n) }
      }
      let next = i + best.n < tokens.count ? tokens[i + best.n] : "…"
      guard best.n > 0, best.n >= 3 || best.k + best.n == hex.count || next.hasPrefix("…")
      else {
        i += 1
        continue
      }
      for t in 0..<best.n where secret.contains(best.k + t) { tokens[i + t] = TraceDiff.maskedByte }
      i += best.n
    }
    return tokens.joined(separator: " ")
  }
}
