import NDEF

/// The JSON form of one `nfctrace report` entry (docs/json.md, "nfctrace report"):
/// `{"session","static_dump","frames","tag","operations","ndef_status","cc","locks","config",
/// "ulc_auth","tlvs","tlv_findings","ndef","ndef_note","ndef_start","memory","memory_start","notes",
/// "unknowns","warnings"}`.
/// `ndef` uses `NDEFJSONRenderer`'s record and finding shapes. Secrets are masked unless
/// `showSecrets`.
public enum ReportJSON {
  /// What a secret is replaced with.
  public static let masked = "present (masked)"
  /// Operation detail keys that hold secrets.
  public static let secretKeys: Set<String> = ["password", "pack"]

  /// Writes the report object of `r`.
  public static func report(_ r: TagReport, showSecrets: Bool = false, to out: OutputBuffer) {
    out.write("{\"session\":")
    JSON.int(r.sessionIndex, to: out)
    out.write(",\"static_dump\":\(r.isDump),\"frames\":")
    if case .session(let info) = r.origin {
      out.write("{\"first\":\(info.firstFrame),\"last\":\(info.lastFrame)}")
    } else {
      out.write("null")
    }
    out.write(",\"tag\":")
    tag(r.tag, to: out)
    out.write(",\"operations\":[")
    JSON.elements(r.operations, to: out) { op in
      operation(op, showSecrets: showSecrets, to: out)
    }
    out.write("],\"ndef_status\":")
    status(r, to: out)
    out.write(",\"cc\":")
    cc(r.end, to: out)
    out.write(",\"locks\":")
    locks(r.end.locks, to: out)
    out.write(",\"config\":")
    config(r, showSecrets: showSecrets, to: out)
    ultralightCAuth(r.end.ultralightCAuth, to: out)
    contents(r, showSecrets: showSecrets, to: out)
    memory(r, showSecrets: showSecrets, to: out)
    strings("notes", r.notes, to: out)
    strings("unknowns", r.end.unknowns, to: out)
    strings("warnings", r.warnings, to: out)
    out.write("}")
  }

  // MARK: Identity and operations

  /// The same tag object as the session JSON (`SessionsRender.tag`).
  static func tag(_ t: TagIdentity, to out: OutputBuffer) { SessionsRender.tag(t, to: out) }

  static func operation(_ op: Operation, showSecrets: Bool, to out: OutputBuffer) {
    SessionsRender.operation(showSecrets ? op : masking(op), to: out)
  }

  /// The hex of NDEF message `message` with the bytes of its records holding a secret (a
  /// Wi-Fi network key, `NDEFComparison.secretOffsets`) as `**`; nil when it holds none.
  static func maskedMessage(_ message: [UInt8], separator: String) -> String? {
    let secret = NDEFComparison.secretOffsets(message: message)
    guard !secret.isEmpty else { return nil }
    return message.indices.map { secret.contains($0) ? "**" : Hex.string([message[$0]]) }
      .joined(separator: separator)
  }

  /// `op` with its secrets masked: the secret details, and the secret bytes where the reason
  /// quotes them (a refused PWD_AUTH's reason names the command with its password).
  static func masking(_ op: Operation) -> Operation {
    var shown = op
    // A message read or written: the bytes of a record holding a secret (a Wi-Fi network key).
    if case .hex(let message)? = op.detail("message"),
      let masked = maskedMessage(message, separator: "")
    {
      shown.set("message", .string(masked))
    }
    for d in op.details where secretKeys.contains(d.key) && !isFactoryDefault(d.value) {
      shown.set(d.key, .string(masked))
      if case .hex(let secret) = d.value, !secret.isEmpty {
        shown.reason = shown.reason?.replacingOccurrences(
          of: Hex.string(secret, separator: " "), with: masked)
      }
    }
    return shown
  }

  static func status(_ r: TagReport, to out: OutputBuffer) {
    guard let s = r.ndefStatus else { return out.write("null") }
    out.write("{\"status\":\"\(s.status.rawValue)\",\"capacity\":")
    JSON.int(s.capacity, to: out)
    out.write(",\"reason\":")
    JSON.optionalString(s.reason, to: out)
    out.write("}")
  }

  // MARK: CC, locks, configuration

  static func cc(_ c: TagContents, to out: OutputBuffer) {
    if let cc = c.type2CC {
      out.write("{\"type\":\"type2\",\"bytes\":\"\(Hex.string(cc.bytes))\"")
      out.write(",\"magic\":\"\(Hex.string([cc.bytes[0]]))\",\"ndef_magic\":\(cc.hasMagic)")
      out.write(",\"version\":\"\(cc.version.major).\(cc.version.minor)\"")
      out.write(",\"data_area_size\":\(cc.dataAreaSize),\"read_access\":\(cc.readAccess)")
      out.write(",\"write_access\":\(cc.writeAccess)}")
    } else if let a = c.type3AIB {
      out.write("{\"type\":\"type3\",\"bytes\":\"\(Hex.string(a.bytes))\"")
      out.write(",\"version\":\"\(a.versionText)\",\"nbr\":\(a.nbr),\"nbw\":\(a.nbw)")
      out.write(",\"nmaxb\":\(a.nmaxb),\"capacity\":\(a.capacity)")
      out.write(",\"write_flag\":\"\(Hex.string([a.writeFlag]))\",\"write_in_progress\":")
      out.write("\(a.writeInProgress),\"rw_flag\":\"\(Hex.string([a.rwFlag]))\",\"ln\":\(a.ln)")
      out.write(",\"checksum\":\"\(Hex.string(a.bytes.suffix(2)))\"")
      out.write(",\"checksum_valid\":\(a.checksumValid),\"problem\":")
      JSON.optionalString(a.invalidReason, to: out)
      out.write("}")
    } else if let cc = c.type5CC {
      out.write("{\"type\":\"type5\",\"bytes\":\"\(Hex.string(cc.bytes))\"")
      out.write(",\"magic\":\"\(Hex.string([cc.magic]))\",\"version\":\"\(cc.version)\"")
      out.write(",\"area_size\":\(cc.areaSize),\"read_access\":\((cc.versionAccess >> 2) & 3)")
      out.write(
        ",\"write_access\":\(cc.versionAccess & 3),\"features\":\"\(Hex.string([cc.features]))\"}")
    } else if let cc = c.type4CC {
      let f = cc.ndefFile
      out.write(
        "{\"type\":\"type4\",\"cclen\":\(cc.ccLen),\"mapping_version\":\"\(cc.versionString)\"")
      out.write(",\"mle\":\(cc.mle),\"mlc\":\(cc.mlc),\"ndef_file_id\":")
      out.write("\"\(Hex.string([UInt8(f.fileID >> 8), UInt8(f.fileID & 0xFF)]))\"")
      out.write(",\"extended\":\(f.tlvType == 0x06),\"max_size\":\(f.maxSize)")
      out.write(",\"read_access\":\"\(Hex.string([f.readAccess]))\"")
      out.write(",\"write_access\":\"\(Hex.string([f.writeAccess]))\",\"proprietary_files\":[")
      for (i, p) in cc.proprietaryFiles.enumerated() {
        out.write(i > 0 ? ",{" : "{")
        out.write("\"file_id\":\"\(Hex.string([UInt8(p.fileID >> 8), UInt8(p.fileID & 0xFF)]))\"")
        out.write(",\"max_size\":\(p.maxSize),\"read_access\":\"\(Hex.string([p.readAccess]))\"")
        out.write(",\"write_access\":\"\(Hex.string([p.writeAccess]))\"}")
      }
      out.write("],\"problems\":[")
      for (i, p) in cc.valueProblems.enumerated() {
        if i > 0 { out.write(",") }
        JSON.string(p.description, to: out)
      }
      out.write("]}")
    } else {
      out.write("null")
    }
  }

  static func pageRanges(_ ranges: [ClosedRange<Int>], to out: OutputBuffer) {
    out.write(
      "[" + ranges.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]")
  }

  /// Consecutive pages joined into ranges.
  static func ranges(_ pages: [Int]) -> [ClosedRange<Int>] {
    var out: [ClosedRange<Int>] = []
    for p in pages {
      if let last = out.last, last.upperBound + 1 == p {
        out[out.count - 1] = last.lowerBound...p
      } else {
        out.append(p...p)
      }
    }
    return out
  }

  static func locks(_ l: Type2Locks?, to out: OutputBuffer) {
    guard let l else { return out.write("null") }
    out.write("{\"lock0\":")
    JSON.optionalString(l.lock0.map { Hex.string([$0]) }, to: out)
    out.write(",\"lock1\":")
    JSON.optionalString(l.lock1.map { Hex.string([$0]) }, to: out)
    out.write(",\"static_locked_pages\":")
    pageRanges(ranges(l.staticLockedPages), to: out)
    out.write(",\"block_locks\":[")
    out.write(l.blockLocks.map { "\"\($0.rawValue)\"" }.joined(separator: ","))
    out.write("],\"dynamic\":")
    if let d = l.dynamic {
      let bytes = d.bytes.indices.map {
        d.unknownBytes.contains($0) ? "??" : Hex.string([d.bytes[$0]])
      }
      out.write("{\"page\":\(d.page),\"bytes\":\"\(bytes.joined())\"")
      out.write(",\"pages_per_bit\":\(d.pagesPerBit),\"locked_pages\":")
      pageRanges(d.lockedRanges, to: out)
      out.write("}")
    } else {
      out.write("null")
    }
    out.write(",\"locked_pages\":")
    pageRanges(ranges(l.lockedPages), to: out)
    out.write(",\"set_bits_only\":[")
    out.write(l.setBitsOnly.map { "\"\($0)\"" }.joined(separator: ","))
    out.write("]}")
  }

  /// As `ReportText.secret`: zeros are the tag's read-back (NTAG21x returns PWD and PACK as
  /// zeros), not the secret, so they are shown as they are.
  /// A password or PACK: masked unless `showSecrets`. Read back as zeros (`sent` false), it is
  /// shown: a tag never returns PWD and PACK, so zeros are not the secret. Sent on the air
  /// (`sent`, PWD_AUTH), zeros are the password itself and are masked like any other.
  /// NXP's factory default, FF FF FF FF, is shown whatever `showSecrets` says.
  static func secret(_ b: [UInt8]?, _ showSecrets: Bool, sent: Bool = false, to out: OutputBuffer) {
    JSON.optionalString(
      b.map {
        showSecrets || (!sent && $0.allSatisfy { $0 == 0 }) || isFactoryDefaultPassword($0)
          ? Hex.string($0) : masked
      },
      to: out)
  }

  /// Whether `b` is NXP's factory default password FF FF FF FF (NTAG213/215/216 datasheet
  /// §8.8.1; Ultralight EV1 the same): public knowledge, not a secret to mask.
  static func isFactoryDefaultPassword(_ b: [UInt8]) -> Bool {
    b.count == 4 && b.allSatisfy { $0 == 0xFF }
  }

  /// Whether a secret detail's value is the factory default password.
  static func isFactoryDefault(_ v: FieldValue) -> Bool {
    if case .hex(let b) = v { return isFactoryDefaultPassword(b) }
    return false
  }

  static func config(_ r: TagReport, showSecrets: Bool, to out: OutputBuffer) {
    let c = r.end.config
    let known =
      c.map { $0.cfg0 != nil || $0.cfg1 != nil || $0.pwd != nil || $0.pack != nil } ?? false
    guard known || !r.passwordAuths.isEmpty || !r.counters.isEmpty else { return out.write("null") }
    out.write("{\"cfg0_page\":")
    JSON.int(c?.cfg0Page, to: out)
    out.write(",\"cfg0\":")
    JSON.optionalString(c?.cfg0.map { Hex.string($0) }, to: out)
    out.write(",\"cfg1\":")
    JSON.optionalString(c?.cfg1.map { Hex.string($0) }, to: out)
    out.write(",\"mirror_conf\":")
    JSON.int(c?.mirrorConf, to: out)
    out.write(",\"mirror_byte\":")
    JSON.int(c?.mirrorByte, to: out)
    out.write(",\"mirror_page\":")
    JSON.int(c?.mirrorPage, to: out)
    out.write(",\"strong_modulation\":")
    bool(c?.strongModulation, to: out)
    out.write(",\"sleep_en\":")
    bool(c?.sleepEnabled, to: out)
    out.write(",\"fdp_conf\":")
    JSON.int(c?.fieldDetectConf, to: out)
    out.write(",\"auth0\":")
    JSON.int(c?.auth0, to: out)
    out.write(",\"protected_pages\":")
    if let p = c?.protectedPages { pageRanges([p], to: out) } else { out.write("null") }
    access(c, to: out)
    out.write(",\"pwd\":")
    secret(c?.pwd, showSecrets, to: out)
    out.write(",\"pack\":")
    secret(c?.pack, showSecrets, to: out)
    passwordAuths(r.passwordAuths, showSecrets: showSecrets, to: out)
    out.write(",\"counters\":[")
    out.write(
      r.counters.map { "{\"counter\":\($0.counter),\"value\":\($0.value)}" }.joined(separator: ","))
    out.write("]}")
  }

  /// `"ulc_auth"`: a MIFARE Ultralight C's AUTH0/AUTH1, or null.
  static func ultralightCAuth(_ a: UltralightCAuthentication?, to out: OutputBuffer) {
    out.write(",\"ulc_auth\":")
    guard let a else { return out.write("null") }
    out.write("{\"auth0\":")
    JSON.int(a.auth0.map(Int.init), to: out)
    out.write(",\"auth1\":")
    JSON.optionalString(a.auth1.map { Hex.string([$0]) }, to: out)
    out.write(",\"protected_pages\":")
    if let p = a.protectedPages { pageRanges([p], to: out) } else { out.write("null") }
    out.write(",\"reads_protected\":")
    // No page protected: reads are free whatever AUTH1 says.
    // AUTH1 bit 0 = 1 frees reads whatever AUTH0 is.
    let reads =
      a.readsProtected == false
      ? false
      : a.auth0 == nil ? nil : a.protectedPages == nil ? false : a.readsProtected
    bool(reads, to: out)
    out.write("}")
  }

  static func access(_ c: Type2Configuration?, to out: OutputBuffer) {
    out.write(",\"access\":")
    guard let c, let a = c.access else { return out.write("null") }
    out.write("{\"byte\":\"\(Hex.string([a]))\",\"prot\":")
    bool(c.prot, to: out)
    out.write(",\"cfglck\":")
    bool(c.cfgLock, to: out)
    out.write(",\"nfc_cnt_en\":")
    bool(c.nfcCounterEnabled, to: out)
    out.write(",\"nfc_cnt_pwd_prot\":")
    bool(c.nfcCounterPasswordProtected, to: out)
    out.write(",\"authlim\":")
    JSON.int(c.authLimit, to: out)
    out.write("}")
  }

  static func passwordAuths(
    _ auths: [TagReport.PasswordAuth], showSecrets: Bool, to out: OutputBuffer
  ) {
    out.write(",\"pwd_auth\":[")
    JSON.elements(auths, to: out) { a in
      out.write("{\"frame\":\(a.frame),\"password\":")
      secret(a.password, showSecrets, sent: true, to: out)
      out.write(",\"pack\":")
      secret(a.pack, showSecrets, sent: true, to: out)
      out.write(",\"outcome\":\"\(a.outcome.rawValue)\"}")
    }
    out.write("]")
  }

  static func bool(_ b: Bool?, to out: OutputBuffer) {
    out.write(b.map { $0 ? "true" : "false" } ?? "null")
  }

  // MARK: TLVs, NDEF

  static func contents(_ r: TagReport, showSecrets: Bool, to out: OutputBuffer) {
    out.write(",\"tlvs\":")
    tlvs(r.end, to: out)
    out.write(",\"tlv_findings\":[")
    JSON.elements(r.end.tlvFindings, to: out) { f in
      out.write("{\"code\":")
      JSON.string(f.code, to: out)
      out.write(",\"severity\":\"\(f.severity.rawValue)\",\"offset\":\(f.offset),\"message\":")
      JSON.string(f.message, to: out)
      out.write("}")
    }
    out.write("],\"ndef\":")
    message(r.end.message, showSecrets: showSecrets, to: out)
    out.write(",\"ndef_note\":")
    JSON.optionalString(
      r.end.unreadableReason.map { "not readable: \($0); the message is the data area's bytes" }
        ?? note(r.end.message, type3: r.layout == .type3), to: out)
    out.write(",\"ndef_start\":")
    if r.changed {
      message(r.start.message, showSecrets: showSecrets, to: out)
    } else {
      out.write("null")
    }
  }

  static func tlvs(_ c: TagContents, to out: OutputBuffer) {
    out.write("[")
    JSON.elements((c.tlvArea?.tlvs ?? []), to: out) { t in
      let address = (c.tlvArea?.baseAddress ?? 16) + t.offset
      out.write("{\"type\":")
      JSON.string(t.tag.name, to: out)
      out.write(",\"t\":\"\(Hex.string([typeByte(t.tag)]))\",\"offset\":\(address)")
      let unit = c.tlvUnit
      out.write(",\"\(unit.name)\":\(address / unit.size),\"length\":")
      JSON.int(t.lengthFieldSize > 0 ? t.length : nil, to: out)
      out.write("}")
    }
    out.write("]")
  }

  static func typeByte(_ tag: Type2TLV.Tag) -> UInt8 {
    switch tag {
    case .null: return 0x00
    case .lockControl: return 0x01
    case .memoryControl: return 0x02
    case .ndef: return 0x03
    case .proprietary: return 0xFD
    case .terminator: return 0xFE
    case .unknown(let t): return t
    }
  }

  /// `{"records","findings"}` for a decoded or empty message, else null.
  static func message(_ m: TagContents.Message, showSecrets: Bool, to out: OutputBuffer) {
    switch m {
    case .decoded(let report):
      out.write(NDEFJSONRenderer.render(report, showSecrets: showSecrets))
    case .empty: out.write("{\"records\":[],\"findings\":[]}")
    default: out.write("null")
    }
  }

  static func note(_ m: TagContents.Message, type3: Bool = false) -> String? {
    switch m {
    case .unknown(let why): return "unknown: " + why
    case .absent(let why): return "none: " + why
    case .empty: return type3 ? "empty: Ln 0" : "empty: NDEF TLV / NLEN of length 0"
    case .incomplete(let length, let known): return "incomplete: \(length) bytes, \(known) known"
    case .pastDataArea(let length, let available):
      return "incomplete: \(length) bytes, \(available) in the data area"
    case .decoded: return nil
    }
  }

  // MARK: Memory

  static func memory(_ r: TagReport, showSecrets: Bool = false, to out: OutputBuffer) {
    out.write(",\"memory\":")
    rows(r.rows(showSecrets: showSecrets), to: out)
    out.write(",\"memory_start\":")
    rows(r.rows(atStart: true, showSecrets: showSecrets), to: out)
  }

  static func rows(_ rows: [MemoryRow], to out: OutputBuffer) {
    out.write("[")
    JSON.elements(rows, to: out) { row in
      if let file = row.file {
        out.write(
          "{\"file\":\"\(Hex.string([UInt8(file >> 8), UInt8(file & 0xFF)]))\",\"offset\":\(row.address)"
        )
      } else if row.isBlock {
        out.write("{\"block\":\(row.address)")
      } else {
        out.write("{\"page\":\(row.address)")
      }
      out.write(",\"data\":")
      if row.known.contains(true) {
        let hex = zip(row.bytes, row.known).enumerated().map { i, b in
          row.isMasked(i) ? "**" : b.1 ? Hex.string([b.0]) : "??"
        }.joined()
        out.write("\"\(hex)\"")
      } else {
        out.write("null")
      }
      out.write(",\"state\":\"\(row.state.rawValue)\",\"frame\":")
      JSON.int(row.frame, to: out)
      out.write(",\"earlier_session\":\(row.earlierSession)}")
    }
    out.write("]")
  }

  static func strings(_ key: String, _ values: [String], to out: OutputBuffer) {
    out.write(",\"\(key)\":[")
    JSON.elements(values, to: out) { v in
      JSON.string(v, to: out)
    }
    out.write("]")
  }
}
