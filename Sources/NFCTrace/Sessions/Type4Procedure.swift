import NDEF

/// The NDEF procedures of an NFC Forum Type 4 tag, as seen from the APDUs (NFC Forum T4T 2.0
/// §5; nfc-facts §6): `queryNDEFStatus` = SELECT NDEF application, SELECT and READ the CC file,
/// SELECT the NDEF file, READ NLEN; `readNDEF` = READ BINARY of the message; `writeNDEF` =
/// UPDATE BINARY of the NDEF file (NLEN = 0 → data → NLEN); `writeLock` = UPDATE of the CC.
struct Type4Procedure: Sendable {
  /// The parsed CC, once READ CC answered.
  private(set) var cc: CapabilityContainer4?
  /// Why the CC, read whole, is not a valid T4T CC (mapping version, CCLEN, no NDEF File
  /// Control TLV): NDEF detection fails, the tag is not NDEF (NFC Forum T4T 2.0 §5.1; nfcpy
  /// `tt4.py` `_discover_ndef`).
  private var invalidCC: String?
  /// The NDEF file id named by the CC.
  var ndefFileID: UInt16? { cc.map { $0.ndefFile.fileID } }
  /// The NDEF file the commands address: the CC's, else E104 (the Type 4 layer's default,
  /// e.g. when the trace starts after the CC was read).
  private var ndefFile: UInt16 { ndefFileID ?? 0xE104 }
  /// The NLEN field size: 2, or 4 (ENLEN) when the CC names an extended NDEF file.
  var nlenSize: Int { cc?.ndefFile.lengthFieldSize ?? partialCC?.nlenSize ?? 2 }
  /// A CC read only in part: its NLEN size when its first bytes give it, and how many of
  /// its CCLEN bytes were read.
  private(set) var partialCC: (nlenSize: Int?, read: Int, length: Int)?
  private(set) var status: (status: NDEFStatus, capacity: Int?, reason: String)?
  private var nlenRead = false
  /// Why the detection's READ NLEN failed: its answer was shorter than the length field.
  private var shortNLEN: String?
  /// True once NDEF detection read NLEN (since its last READ CC): the query has finished.
  var detectionFinished: Bool { nlenRead }
  /// The answer frame of the last READ of NLEN at offset 0.
  private(set) var nlenFrame: Int?
  /// The answer frame of the last step that decided `status` (READ CC, READ NLEN, or the
  /// refusal that ended the detection): a query operation without one after its start did not
  /// find the status itself (a SELECT of the application again, refused or alone).
  private var statusDecidedAt: Int?
  /// Whether the reader's last SELECT chose the NDEF file (T4T 2.0 §5.4.3).
  private(set) var ndefFileSelected = false
  /// The refusal that made the operation fail, while no other did, when a reader's repeat of
  /// the command can make up for it: 6581 (memory failure; the same command again), 6Cxx
  /// (wrong Le; the command again with Le = xx, ISO/IEC 7816-4 §5.6) or 6700 to a READ BINARY
  /// (the same read with another Le). `key`: CLA INS P1 P2
  /// and the data; `le`: the Le the repeat must carry (6Cxx).
  /// `offset`: the READ/UPDATE BINARY offset, so the repeat joins the operation even when a
  /// smaller Le renames it ("READ NLEN" after "READ NLEN and NDEF data").
  private var retriable: (key: [UInt8], le: Int?, frames: [Int], offset: Int?, verb: Substring?)?
  /// The command answered 61xx whose data GET RESPONSE fetches (ISO/IEC 7816-4 §5.6,
  /// §7.6.1), with the number of bytes fetched so far: GET RESPONSE joins its operation.
  private(set) var awaitingResponse: (command: LayerDecode, fetched: Int)?
  /// Frames of VERIFY answers 63xx (password required, 63Cx wrong with x tries left; ISO/IEC
  /// 7816-4 §7.5.6): a later VERIFY answered 9000 means the password was given after all.
  private var verifyRefusals: [Int] = []
  /// A SELECT the tag refused (`data`: the file id or AID it named) with the frames of the
  /// refusals since: the same file or application selected in another form (P1 P2, Le) and
  /// accepted makes up for them, as the reader got past (ISO/IEC 7816-4 §11.1.1).
  private var refusedSelect: (data: [UInt8], frames: [Int])?

  /// The AID of the last NDEF application SELECT the tag accepted (2.0 or 1.0).
  private var servedAID: [UInt8]?

  /// An earlier session on this tag (same UID) served the NDEF application
  /// (`SessionAnalyzer.carryNDEFApplication`): its NDEF file is known to the stack, so an
  /// NLEN reset written after a re-activation is writeNDEF's (`startsWriteUnselected`).
  var ndefApplicationCarried = false

  /// The ISO file id of each DESFire file number of the NDEF application: NTAG 424 DNA's are
  /// fixed (NTAG 424 DNA datasheet NT4H2421Gx, file management: 01h = E103 CC, 02h = E104
  /// NDEF, 03h = E105 proprietary). A DESFire formatted for NDEF is assumed to number its CC
  /// and NDEF files alike (an assumption: a formatter may choose other numbers, such as
  /// 03h/04h); a CREATE STD DATA FILE naming an ISO file id (MIFARE DESFire EV1 datasheet,
  /// CreateStdDataFile with ISOFileID, LSB first) replaces the entry of its file number.
  private var desfireFileIDs: [UInt8: UInt16] = [0x01: 0xE103, 0x02: 0xE104, 0x03: 0xE105]
  /// Whether the DESFire commands address the NDEF application: an ISO SELECT of it or a
  /// DESFire SELECT APPLICATION of the AID EEEE10h (the NDEF application's DESFire AID in
  /// NXP's DESFire NDEF formatting, NXP AN11004) accepted last.
  private var ndefApplicationCurrent = false
  /// Whether a DESFire / NTAG 424 DNA authentication completed since the last SELECT
  /// APPLICATION (which ends it): WriteData may then be in MAC or Full mode.
  private var desfireAuthenticated = false
  /// A DESFire authentication's first step was answered 91AF: its next ADDITIONAL FRAME
  /// answered 9100 completes it.
  private var authenticating = false
  /// A WriteData answered 91AF (more data in ADDITIONAL FRAMEs): its file number, offset,
  /// length and the data bytes so far.
  private var pendingWrite: WriteData?
  /// A plain ReadData of the NDEF file answered 91AF (more data in ADDITIONAL FRAMEs): the
  /// file and the offset where the next part's bytes go.
  private var pendingRead: (file: UInt16, offset: Int)?
  /// The settings of each file number of the NDEF application that a GetFileSettings answer
  /// gave in this trace (a ChangeFileSettings the tag accepted makes them unknown again).
  private var fileSettings: [UInt8: FileSettings] = [:]

  /// A DESFire / NTAG 424 DNA file's communication mode and access conditions, as a
  /// GetFileSettings answer gives them: FileType, FileOption (bits 1–0 CommMode: 00b or 10b
  /// CommMode.Plain, 01b CommMode.MAC, 11b CommMode.Full), AccessRights (2 bytes: RW key
  /// number and Change key number, then Read and Write key numbers; Eh = free access),
  /// FileSize (NTAG 424 DNA datasheet NT4H2421Gx §10.7 GetFileSettings, §8.2 access rights;
  /// MIFARE DESFire EV1 datasheet, GetFileSettings).
  struct FileSettings: Sendable, Equatable {
    /// FileOption bits 1–0.
    var commMode: UInt8
    /// The Read, Write and ReadWrite access conditions (a key number 0h–4h, Eh free, Fh none).
    var read: UInt8
    var write: UInt8
    var readWrite: UInt8

    /// The settings in a GetFileSettings answer's data (its first 4 bytes: FileType,
    /// FileOption, AccessRights); nil when shorter than the 7 bytes of a standard file's.
    init?(_ data: [UInt8]) {
      guard data.count >= 7 else { return nil }
      commMode = data[1] & 0x03
      readWrite = data[2] >> 4
      read = data[3] >> 4
      write = data[3] & 0x0F
    }

    /// Whether the file is in CommMode.Plain (FileOption bits 1–0 00b or 10b).
    var plain: Bool { commMode & 0x01 == 0 }
    /// Whether a WriteData to the file carries its data in clear text: CommMode.Plain, or free
    /// write access (Eh, Write or ReadWrite: no key, so no session key to MAC or encipher
    /// with; derived from NT4H2421Gx §8.2 and §9). The caller also checks that the data is
    /// exactly as long as its length field, which a MAC or ciphertext never is.
    var writesPlain: Bool { plain || write == 0x0E || readWrite == 0x0E }
    /// Whether a ReadData of the file answers in clear text (as `writesPlain`, for Read).
    var readsPlain: Bool { plain || read == 0x0E || readWrite == 0x0E }
  }

  /// A new activation (REQA/WUPA): the tag starts over with no application selected and no
  /// authentication (MIFARE DESFire EV1 datasheet: both end with the tag's deselection).
  mutating func activated() {
    ndefApplicationCurrent = false
    desfireAuthenticated = false
    authenticating = false
    pendingWrite = nil
    pendingRead = nil
  }

  /// After discovery SELECTs whose effect on the NDEF procedures is undone (`SessionAnalyzer`
  /// keeps them in `connect`): the application they selected stays selected on the tag, so a
  /// DESFire / NTAG 424 DNA WriteData or ReadData that follows addresses its files.
  mutating func keepSelection(of other: Type4Procedure) {
    ndefApplicationCurrent = other.ndefApplicationCurrent
    desfireAuthenticated = other.desfireAuthenticated
    fileSettings = other.fileSettings
  }

  /// The AID a SELECT by name carries.
  private static func aid(_ d: LayerDecode?) -> [UInt8]? {
    if case .hex(let b)? = d?.field("aid") { return b }
    return nil
  }

  /// Follows the reader's SELECTs (called for each Type 4 command).
  mutating func command(_ d: LayerDecode) {
    if d.name.hasPrefix("SELECT") { ndefFileSelected = d.name == "SELECT NDEF file" }
  }

  func classify(_ d: LayerDecode, current: OperationKind?) -> OperationKind {
    let name = d.name
    if let r = retriable, let current, r.offset != nil, d.binaryOffset == r.offset,
      d.name.split(separator: " ").first == r.verb
    {
      return current  // the repeat of a command refused with 6581/6Cxx (same verb and offset)
    }
    if name.hasPrefix("SELECT") {
      // SELECTs belong to the procedure they start; after the query they join what follows.
      if name == "SELECT NDEF application" && status == nil { return .queryNDEFStatus }
      // Another file of the NDEF application before the CC was read (ST25TA's system file
      // E101): not a detection step (T4T 2.0 §5.4 selects the CC first), the app's own access.
      if name == "SELECT file", current == .queryNDEFStatus, cc == nil { return .transceive }
      if let current, current != .connect, current != .transceive { return current }
      return .queryNDEFStatus
    }
    switch name {
    case "READ CC": return .queryNDEFStatus
    // NLEN read again after the detection read it (since its last READ CC): readNDEF's first
    // step (T4T 2.0 §5.4.6), also when it follows the query directly.
    case "READ NLEN": return nlenRead ? .readNDEF : .queryNDEFStatus
    case "READ NLEN and NDEF data" where cc != nil:
      // A stack that reads NLEN and the message at once (READ BINARY offset 0, Le past NLEN)
      // reads the message: the status is known from the CC already.
      return .readNDEF
    case "READ NDEF data", "READ NLEN and NDEF data":
      return current == .queryNDEFStatus && !nlenRead ? .queryNDEFStatus : .readNDEF
    case "UPDATE NLEN", "UPDATE NDEF data", "UPDATE NLEN and NDEF data": return .writeNDEF
    case "UPDATE CC": return writesWriteAccess(d) ? .writeLock : .transceive
    case "UPDATE file" where startsWriteUnselected(d): return .writeNDEF
    default: return .transceive
    }
  }

  /// Whether `d`, an UPDATE BINARY sent with no file selected in this activation, is
  /// writeNDEF's first step on a tag an earlier session found the NDEF application on: the
  /// length field (NLEN, 2 bytes, or ENLEN, 4) set to 0 at offset 0 (NFC Forum T4T 2.0 §5.5,
  /// 3.0 §5.5; nfc-facts §6.2, §6.4). A stack that activated the tag again inside writeNDEF
  /// (after HLTA or S(DESELECT)) and wrote without selecting the NDEF application and file
  /// again sends exactly this; the tag has no current file then (ISO/IEC 7816-4 §5.6, 6986).
  private func startsWriteUnselected(_ d: LayerDecode) -> Bool {
    guard ndefApplicationCarried, servedAID == nil, d.field("file_id") == nil,
      d.binaryOffset == 0, case .hex(let data)? = d.field("data")
    else { return false }
    return (data.count == 2 || data.count == 4) && data.allSatisfy { $0 == 0 }
  }

  /// Whether UPDATE CC `d` restricts the NDEF File Control TLV's write access byte (CC offset
  /// 14, 16 in the Extended TLV; T4T 2.0 §5.1, 3.0 §5.1): setting it to FFh (no write access)
  /// is the read-only step (libnfc-nci rw_t4t.cc, RW_T4tSetNDefReadOnly), 80h–FEh a
  /// proprietary lock (ST25TA: 80h password, FEh permanent). Setting it to 00h (write access
  /// granted, an unlock attempt), an RFU value, or any update of the CC that leaves it alone is
  /// an app's own command, often an NLEN write sent before the NDEF file was selected.
  private func writesWriteAccess(_ d: LayerDecode) -> Bool {
    guard case .int(let offset)? = d.field("offset"), case .int(let lc)? = d.field("lc") else {
      return true
    }
    let at =
      cc.map(\.writeAccessOffset)
      ?? (nlenSize == 4 ? 16 : 14)
    guard offset <= at && at < offset + lc else { return false }
    guard case .hex(let data)? = d.field("data"), at - offset < data.count else { return true }
    return data[at - offset] >= 0x80
  }

  mutating func answer(_ x: Exchange, op: inout Operation, memory: inout TagMemory) {
    // A damaged answer (CRC failed) neither refuses nor fills the file image: the reader gets
    // it again (R(NAK)) and the intact copy decides (a damaged copy the exchange ends on:
    // `SessionAnalyzer`, `last_answer_damaged`).
    guard let response = x.response, response.frame.crc != .bad else { return }
    let frame = response.frame.index
    guard let a = response.layer(.type4) ?? response.layer(.iso7816) else { return }
    if a.field("cut") == .bool(true) {
      // The capture kept only the answer's first bytes: the status word, which decides, is not
      // among them. Written bytes stay unacknowledged; the outcome is not known.
      if let request = x.request { unanswered(request, memory: &memory) }
      if op.outcome == .ok {
        op.outcome = .unknown
        op.reason =
          "the answer to \(x.request?.innermost?.summary ?? "the command") was cut by the "
          + "capture: its status word is not in it"
      }
      op.set("answer_not_captured", .int(frame))
      op.set("answer_cut", .bool(true))
      return
    }
    if a.name == "MIFARE Plus answer", a.field("success") == .bool(false) {
      // A MIFARE Plus native command's status byte other than 90 (`MIFAREPlusNative`).
      op.fail("\(x.request?.innermost?.summary ?? "command") refused: \(a.summary)", frame: frame)
      return
    }
    let sw: String
    if case .string(let s)? = a.field("sw") { sw = s } else { return }
    var command = x.request?.layer(.type4)
    // GET RESPONSE fetching what a 61xx answer announced: its data is that command's.
    var shift = 0
    let fetch = x.request?.layer(.iso7816)?.name == "GET RESPONSE" ? awaitingResponse : nil
    awaitingResponse = nil
    if command == nil, let fetch {
      command = fetch.command
      shift = fetch.fetched
    }
    if sw.hasPrefix("61"), let command {
      var fetched = 0
      if case .hex(let d)? = a.field("data") { fetched = d.count }
      awaitingResponse = (command, shift + fetched)
    }
    // The NDEF procedures expect 9000 (T4T 2.0 §5.4); an app's own APDU also succeeds with the
    // other normal-processing words (61xx, DESFire 9100 and 91AF "additional frame"). A READ
    // BINARY asking past the file's end gets the bytes up to it with the warning 6282 (ISO/IEC
    // 7816-4 §5.6, nfc-facts §3.4): the data is the file's when the Type 4 layer says so.
    let ok =
      sw == "9000" || sw.hasPrefix("61")
      || (!(command.map { Self.isNDEFProcedure($0.name) } ?? false)
        && response.layer(.iso7816)?.field("sw_kind") == .string("success"))
      || (sw == "6282" && a.field("result") == .string("ok"))
      || (sw == "910c" && Self.endsTransaction(x.request))
    // VERIFY answers and retries are rare: the keys are built only when one is in play.
    let apdu = x.request?.layer(.iso7816)
    if sw.hasPrefix("63") || (ok && !verifyRefusals.isEmpty), apdu?.field("ins") == .hex([0x20]) {
      verified(ok: ok, sw: sw, frame: frame, op: &op)
    }
    if !ok || refusedSelect != nil {
      followSelect(apdu, ok: ok, frame: frame, op: &op)
    }
    if !ok {
      if command == nil {
        authenticating = false
        pendingWrite = nil
        pendingRead = nil
      }
      if sw == "91de", command == nil, apdu?.name.hasPrefix("DESFire CREATE") == true {
        // DUPLICATE_ERROR: the application or file to create is already there (MIFARE DESFire
        // EV1 datasheet, status codes; NT4H2421Gx §10 Table 23). A formatter goes on with it
        // (Android's NDEF formatting of a DESFire selects the existing application next):
        // harmless, it fails nothing; the first such answer is noted (`duplicate_error`).
        if op.detail("duplicate_error") == nil { op.set("duplicate_error", .int(frame)) }
        return
      }
      let first = op.outcome == .ok
      // The same APDU refused 6581 again (the stack retries, up to 5 times): still retriable.
      let again =
        sw == "6581"
        && retriable.map {
          op.failedLastBy($0.frames) && $0.frames.count < CallBoundary.maxRetries
            && x.request.flatMap(Self.retryKey) == $0.key
        } ?? false
      refused(command, sw: sw, answer: a, op: &op, frame: frame, memory: &memory)
      if again {
        retriable?.frames.append(frame)
        return
      }
      retriable = nil
      let wrongLe = sw.lowercased().hasPrefix("6c")
      // 6700 to a READ BINARY: Le above what the tag sends at once (its MLe); readers read
      // again with a smaller Le (libnfc-nci caps Le at MLe), which may be any Le.
      let readLength = sw == "6700" && apdu?.field("ins") == .hex([0xB0])
      if first, sw == "6581" || wrongLe || readLength, let key = x.request.flatMap(Self.retryKey) {
        retriable = (
          key, wrongLe ? Int(sw.suffix(2), radix: 16) : nil, [frame], command?.binaryOffset,
          command?.name.split(separator: " ").first
        )
      }
      return
    }
    if retriable != nil {
      recoverRetry(key: x.request.flatMap(Self.retryKey), le: x.request.flatMap(Self.le), op: &op)
    }
    guard let command else {
      var answer: [UInt8] = []
      if case .hex(let d)? = a.field("data") { answer = d }
      desfireCommand(apdu, sw: sw, answer: answer, frame: frame, op: &op, memory: &memory)
      return
    }
    switch command.name {
    case "SELECT NDEF application":
      op.set("ndef_application", .bool(true))
      ndefApplicationCurrent = true
      desfireAuthenticated = false  // selecting an application ends an authentication
      servedAID = Self.aid(command)
      // An earlier refusal of it no longer stands: the detection starts over here.
      if status?.status == .notSupported { status = nil }
      nlenRead = false  // a detection starts over at the application: its NLEN is to come
      shortNLEN = nil
    case "READ CC":
      if case .hex(let data)? = a.field("data") {
        memory.type4Read(data, file: 0xE103, at: offset(command) + shift, frame: frame)
        statusDecidedAt = frame
        nlenRead = false  // a detection starts over: its NLEN is still to come
        shortNLEN = nil
        let run = memory.filesEnd[0xE103]?.knownRun(from: 0) ?? []
        do {
          cc = try CapabilityContainer4(parsing: run)
          invalidCC = nil
          partialCC = nil
        } catch {
          cc = nil
          invalidCC = !error.incomplete && run.count >= 7 ? error.message : nil
          partialCC =
            error.incomplete && run.count >= 2
            ? (
              CapabilityContainer4.lengthFieldSize(partial: run), run.count,
              Int(run[0]) << 8 | Int(run[1])
            ) : nil
        }
      }
    default:
      // Only commands on the NDEF file (as the Type 4 layer names them) or the CC touch the
      // image; reads and updates of other files are not NDEF memory.
      if Self.ndefReads.contains(command.name), case .hex(let data)? = a.field("data") {
        memory.type4Read(data, file: ndefFile, at: offset(command) + shift, frame: frame)
        if sw == "6282" { fileEnded(at: offset(command) + shift + data.count, frame, &op, memory) }
        if offset(command) + shift == 0 {
          nlenRead = true
          nlenFrame = frame
          if op.kind == .queryNDEFStatus { statusDecidedAt = frame }
          // An answer shorter than the NLEN asked for ends NDEF detection (libnfc-nci
          // rw_t4t.cc, rw_t4t_sm_detect_ndef: the READ must return the whole length field).
          // A reader that asks for part of it (Le 1, or Le 2 of a 4-byte ENLEN) reads on.
          if op.kind == .queryNDEFStatus, data.count < nlenSize,
            data.count < Self.expected(command, nlenSize)
          {
            shortNLEN =
              "READ NLEN answered \(data.count) of its \(nlenSize) bytes: NDEF detection stops "
              + "without the message length"
            op.set("ndef_detection_failed", .int(frame))
          }
        }
      } else if let file = file(of: command), case .hex(let data)? = command.field("data") {
        memory.type4Write(data, file: file, at: offset(command), acknowledged: true, frame: frame)
      } else if command.name == "READ file", case .hex(let id)? = command.field("file_id"),
        id.count == 2, case .hex(let data)? = a.field("data")
      {
        // Another file of the NDEF application (a proprietary file such as E105, ST25TA's
        // system file E101): shown in the report's memory map, not NDEF memory.
        let file = UInt16(id[0]) << 8 | UInt16(id[1])
        memory.type4Read(data, file: file, at: offset(command) + shift, frame: frame)
      }
    }
    if op.kind == .queryNDEFStatus { updateStatus() }
  }

  /// A command outside the Type 4 procedures the tag accepted (`apdu`, its ISO/IEC 7816 or
  /// DESFire decode; `answer`, the data of the tag's answer): follows the DESFire application,
  /// authentication, file numbers and file settings, and takes a WriteData to the NDEF file
  /// and a plain ReadData of it into the file's image.
  private mutating func desfireCommand(
    _ apdu: LayerDecode?, sw: String, answer: [UInt8], frame: Int, op: inout Operation,
    memory: inout TagMemory
  ) {
    guard let apdu else { return }
    var data: [UInt8] = []
    if case .hex(let d)? = apdu.field("data") { data = d }
    let more = sw == "91af"
    let name = apdu.name
    if name != "DESFire ADDITIONAL FRAME" {
      pendingWrite = nil
      pendingRead = nil
    }
    if name.hasPrefix("DESFire AUTHENTICATE") {
      authenticating = more
      return
    }
    switch name {
    case "DESFire ADDITIONAL FRAME":
      if authenticating {
        authenticating = more
        if sw == "9100" { desfireAuthenticated = true }
      } else if let read = pendingRead {
        memory.type4Read(answer, file: read.file, at: read.offset, frame: frame)
        pendingRead = more ? (read.file, read.offset + answer.count) : nil
      } else if pendingWrite != nil {
        // Appended in place: a copy per ADDITIONAL FRAME made long chains quadratic.
        pendingWrite?.data += data
        guard let p = pendingWrite else { return }
        if !more { pendingWrite = nil }
        if sw == "9100" { wroteData(p, frame: frame, op: &op, memory: &memory) }
      }
    case "DESFire SELECT APPLICATION":
      // SelectApplication ends any authentication (MIFARE DESFire EV1 datasheet).
      desfireAuthenticated = false
      selectApplication(ndef: data == [0x10, 0xEE, 0xEE])
    case "SELECT":
      if apdu.field("p1") == .hex([0x04]) {
        // Another application selected by name (P1 04, ISO/IEC 7816-4 §11.1.1).
        selectApplication(ndef: false)
      } else if apdu.field("p1") == .hex([0x00]), data.count == 2 {
        // ISOSelectFile by file identifier (P1 00): NTAG 424 DNA's NDEF application is the DF
        // E110h, its PICC level the MF 3F00h (NT4H2421Gx §8.2, §10.9 ISOSelectFile).
        // Selecting either ends an authentication; EFs (E103, E104…) leave both alone.
        let id = UInt16(data[0]) << 8 | UInt16(data[1])
        if id == 0xE110 || id == 0x3F00 {
          desfireAuthenticated = false
          selectApplication(ndef: id == 0xE110)
        }
      }
    case "DESFire GET FILE SETTINGS" where ndefApplicationCurrent && sw == "9100":
      // The answer is plain, or the settings then an 8-byte MAC (CommMode.MAC after an
      // authentication, NT4H2421Gx §10.7): its first bytes are the settings either way.
      if let file = data.first, let settings = FileSettings(answer) {
        fileSettings[file] = settings
      }
    case "DESFire CHANGE FILE SETTINGS" where sw == "9100":
      // CommMode.Full: the new settings are enciphered, so not known.
      if let file = data.first { fileSettings[file] = nil }
    case "DESFire READ DATA" where sw == "9100" || more:
      readData(data, answer: answer, more: more, frame: frame, memory: &memory)
    case "DESFire CREATE STD DATA FILE"
    where data.count == 9 || (data.count == 17 && desfireAuthenticated):
      // The ISO form: file number, ISO file id (LSB first), then settings and size (9 bytes;
      // 17 with the 8-byte MAC of an authenticated EV2 session). The form without an ISO file
      // id has 7 (15 with a MAC): its settings must not be read as an id.
      desfireFileIDs[data[0]] = UInt16(data[2]) << 8 | UInt16(data[1])
    case "DESFire WRITE DATA":
      guard let write = Self.writeData(data) else {
        authenticating = false
        return
      }
      if more {
        pendingWrite = write
      } else if sw == "9100" {
        wroteData(write, frame: frame, op: &op, memory: &memory)
      }
    default:
      authenticating = false
    }
  }

  /// Follows the application the reader selected: whether it is the NDEF application. The
  /// file settings known are those of the NDEF application's files, forgotten when another
  /// application is selected.
  private mutating func selectApplication(ndef: Bool) {
    ndefApplicationCurrent = ndef
    if !ndef { fileSettings = [:] }
  }

  /// A ReadData (`90 AD` / `90 BD`: file number, offset and length, 3 bytes each LSB first)
  /// the tag answered with `answer` (9100, or 91AF with more to come in ADDITIONAL FRAMEs).
  /// Of the NDEF file, in plain communication mode, the answer is the file's bytes from the
  /// offset: they fill the file's image as a READ BINARY's do. Plain: the file's settings say
  /// so (`FileSettings.readsPlain`), or, with no GetFileSettings in the trace, no
  /// authentication preceded (without one the tag serves only plain access, NT4H2421Gx
  /// §10.8 ReadData) and the command carries no MAC (7 bytes). After an authentication the
  /// answer must be exactly the length asked for (a MAC would make it longer).
  private mutating func readData(
    _ data: [UInt8], answer: [UInt8], more: Bool, frame: Int, memory: inout TagMemory
  ) {
    guard let r = Self.writeData(data), ndefApplicationCurrent,
      let file = desfireFileIDs[r.file], file == ndefFile, r.offset < ByteImage.limit,
      !answer.isEmpty
    else { return }
    let plain = fileSettings[r.file]?.readsPlain ?? (!desfireAuthenticated && data.count == 7)
    guard plain, r.length == 0 || answer.count <= r.length,
      !desfireAuthenticated || answer.count == r.length || more
    else { return }
    memory.type4Read(answer, file: file, at: r.offset, frame: frame)
    if more { pendingRead = (file, r.offset + answer.count) }
  }

  /// A DESFire / NTAG 424 DNA WriteData the tag acknowledged (9100, native 00). To the NDEF
  /// file of the NDEF application it writes the file as UPDATE BINARY does: in plain
  /// communication mode (no authentication, the data as long as the length field says) its
  /// bytes at its offset; in MAC or Full mode (after an authentication, or data of another
  /// length: a MAC or padded ciphertext) the range is written with a value not known. The
  /// operation stays the app's own command (`transceive`), with detail `ndef_file_written`.
  /// NTAG 424 DNA datasheet (NT4H2421Gx) §10, WriteData; MIFARE DESFire EV1 datasheet.
  private func wroteData(
    _ w: WriteData, frame: Int, op: inout Operation, memory: inout TagMemory
  ) {
    guard let file = ndefTarget(w) else { return }
    if isPlain(w) {
      memory.type4Write(w.data, file: file, at: w.offset, acknowledged: true, frame: frame)
    } else {
      let end = min(w.offset + w.length, ByteImage.limit)
      memory.type4WriteUnknown(file: file, range: w.offset..<end, frame: frame)
    }
    if op.detail("ndef_file_written") == nil { op.set("ndef_file_written", .int(frame)) }
  }

  /// A READ BINARY of the NDEF file answered 6282 (end of file reached before Le bytes,
  /// ISO/IEC 7816-4 §5.6): the file ends at byte `end`. Short of what NLEN announces, the
  /// message cannot be read whole: the read fails there (detail `ndef_file_end`).
  private func fileEnded(at end: Int, _ frame: Int, _ op: inout Operation, _ memory: TagMemory) {
    op.set("ndef_file_end", .int(end))
    guard let nlen = memory.filesEnd[ndefFile]?.knownBigEndian(0, nlenSize), end < nlen + nlenSize
    else { return }
    op.fail(
      "the NDEF file ends at byte \(end) (SW 6282), short of the \(nlen) bytes its "
        + "\(nlenSize == 4 ? "ENLEN" : "NLEN") announces", frame: frame)
  }

  private mutating func refused(
    _ command: LayerDecode?, sw: String, answer: LayerDecode, op: inout Operation, frame: Int,
    memory: inout TagMemory
  ) {
    // As the summaries name the length field: ENLEN in a T4T 3.0 extended file.
    // An app's own command is named by its answer's decode (`DESFire SELECT APPLICATION`).
    var named: String?
    if case .string(let name)? = answer.field("command") { named = name }
    let what =
      command.map { Type4Layer.label($0.name, lengthFieldSize: nlenSize) } ?? named ?? "APDU"
    if command?.name == "SELECT NDEF application" {
      // The tag served the application before (its detection found NDEF): dropping it now is
      // the tag's failure, not a tag without NDEF.
      if let known = status?.status, known == .readWrite || known == .readOnly {
        // Another version's AID probed after the served one (T4T 1.0 after 2.0) loses nothing.
        if Self.aid(command) == servedAID {
          op.fail(
            "SELECT NDEF application refused: SW \(sw.uppercased()), after the tag had served it",
            frame: frame)
        }
        return
      }
      status = (.notSupported, nil, "SELECT of the NDEF application answered SW \(sw.uppercased())")
      statusDecidedAt = frame
      op.set("ndef_application", .bool(false))
      return  // Core NFC reports notSupported, not an error
    }
    if op.kind == .queryNDEFStatus, let name = command?.name, Self.detectionSteps.contains(name) {
      // NDEF detection stops at the NDEF file (T4T 2.0 §5.4.4–5.4.5): the tag is not NDEF to
      // the stack, whatever its CC said (Android: not an Ndef tag; Core NFC: notSupported).
      status = (
        .notSupported, nil,
        "\(what) answered SW \(sw.uppercased()): NDEF detection stops at the NDEF file "
          + Hex.word(ndefFile)
      )
      statusDecidedAt = frame
      op.set("ndef_detection_failed", .int(frame))
      return  // as for the application: Core NFC reports notSupported, not an error
    }
    let givesReason = op.outcome == .ok
    // The answer's summary names the command again ("UPDATE NLEN failed: SW …"): say it once.
    let said = answer.summary.range(of: " failed: ").map { answer.summary[$0.upperBound...] }
    op.fail("\(what) refused: \(said.map(String.init) ?? answer.summary)", frame: frame)
    if givesReason { op.set("sw", .string(sw)) }
    // SW1 65 (error) and 63 (warning): the non-volatile memory changed (6581 memory failure,
    // ISO/IEC 7816-4 §5.1.3): the update started, so its bytes are uncertain, as for a Type 2
    // NAK 5.
    if Self.memoryChanged(sw), let command, let file = file(of: command),
      case .hex(let data)? = command.field("data")
    {
      memory.type4Write(data, file: file, at: offset(command), acknowledged: false, frame: frame)
    }
  }

  /// Whether status word `sw` says the non-volatile memory changed: SW1 63 (warning) or 65
  /// (error), ISO/IEC 7816-4 §5.1.3.
  static func memoryChanged(_ sw: String) -> Bool { sw.hasPrefix("63") || sw.hasPrefix("65") }

  /// Tracks refused SELECTs: a refusal is remembered (with the earlier ones of the same data
  /// when they made the operation fail); an accepted SELECT of the same data recovers the
  /// operation they failed and the NDEF detection they stopped. Any other answer forgets them.
  private mutating func followSelect(
    _ apdu: LayerDecode?, ok: Bool, frame: Int, op: inout Operation
  ) {
    let previous = refusedSelect
    refusedSelect = nil
    guard apdu?.field("ins") == .hex([0xA4]), case .hex(let data)? = apdu?.field("data") else {
      return
    }
    if !ok {
      let same = previous.map { $0.data == data && op.failedLastBy($0.frames) } ?? false
      if op.outcome == .ok || same {
        refusedSelect = (data, (same ? previous?.frames ?? [] : []) + [frame])
      }
      return
    }
    guard let previous else { return }
    guard previous.data == data else {
      // A file's SELECT refused before any application was selected (6A82), then the NDEF
      // application's: the file's SELECT that follows may still make up for the refusal.
      if ok, data.starts(with: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01]), previous.data.count == 2 {
        refusedSelect = previous
      }
      return
    }
    if op.failedLastBy(previous.frames) { op.recover(dropping: ["sw"]) }
    if case .int(let f)? = op.detail("ndef_detection_failed"), previous.frames.contains(f) {
      op.details.removeAll { $0.key == "ndef_detection_failed" }
    }
  }

  /// A VERIFY answer: 63xx refusals are remembered; a VERIFY answered 9000 after them makes
  /// the operation ok when they were its only refusals (the app found the password).
  private mutating func verified(ok: Bool, sw: String, frame: Int, op: inout Operation) {
    if !ok, sw.hasPrefix("63") {
      if verifyRefusals.count < 64 { verifyRefusals.append(frame) }
      return
    }
    guard ok, op.outcome == .failed, !op.failedFrames.isEmpty,
      op.failedFrames.allSatisfy(verifyRefusals.contains)
    else { return }
    op.recover(dropping: ["sw"])
    verifyRefusals = []
  }

  /// The command refused with 6581, 6Cxx or 6700 sent again (with the Le the tag asked for
  /// after 6Cxx) and answered: the operation did not fail (the refusal stays in
  /// `failedFrames`).
  private mutating func recoverRetry(key: [UInt8]?, le: Int?, op: inout Operation) {
    guard let r = retriable, let key else { return }
    retriable = nil
    // 6C00 asks for Le 256, which a short APDU writes as Le 00 (decoded as 256).
    guard key == r.key, r.le == nil || le == r.le || (r.le == 0 && le == 256),
      op.failedLastBy(r.frames)
    else { return }
    op.recover(dropping: ["sw"])
  }

  /// DESFire CommitTransaction / AbortTransaction: answered 910C (NO_CHANGES, nothing to
  /// commit or abort) they succeed (MIFARE DESFire EV1 datasheet, status codes).
  private static func endsTransaction(_ f: DecodedFrame?) -> Bool {
    guard let name = f?.layer(.iso7816)?.name else { return false }
    return name == "DESFire COMMIT TRANSACTION" || name == "DESFire ABORT TRANSACTION"
  }

  /// CLA INS P1 P2 and the data of a command APDU: what a repeat keeps.
  private static func retryKey(_ f: DecodedFrame) -> [UInt8]? {
    guard let l = f.layer(.iso7816), case .hex(let cla)? = l.field("cla"),
      case .hex(let ins)? = l.field("ins"), case .hex(let p1)? = l.field("p1"),
      case .hex(let p2)? = l.field("p2")
    else { return nil }
    let data: [UInt8]
    if case .hex(let d)? = l.field("data") { data = d } else { data = [] }
    return cla + ins + p1 + p2 + data
  }

  /// The bytes READ `d` asks for (its Le), or `fallback` when its decode has none.
  private static func expected(_ d: LayerDecode, _ fallback: Int) -> Int {
    if case .int(let le)? = d.field("le") { return le }
    return fallback
  }

  private static func le(_ f: DecodedFrame) -> Int? {
    if case .int(let le)? = f.layer(.iso7816)?.field("le") { return le }
    return nil
  }

  mutating func unanswered(_ f: DecodedFrame, memory: inout TagMemory) {
    if let d = f.innermost, d.name == "DESFire WRITE DATA" {
      return unansweredWriteData(d, frame: f.frame.index, memory: &memory)
    }
    guard let c = f.layer(.type4), let file = file(of: c), case .hex(let data)? = c.field("data")
    else { return }
    memory.type4Write(data, file: file, at: offset(c), acknowledged: false, frame: f.frame.index)
  }

  /// A plain WriteData to the NDEF file that got no answer: its bytes may or may not be in
  /// the file (`written-unacknowledged`), as for an unanswered UPDATE BINARY. One in MAC or
  /// Full mode changes what is known of nothing: its value was never known.
  private func unansweredWriteData(_ d: LayerDecode, frame: Int, memory: inout TagMemory) {
    guard case .hex(let data)? = d.field("data"), let w = Self.writeData(data),
      let file = ndefTarget(w), isPlain(w)
    else { return }
    memory.type4Write(w.data, file: file, at: w.offset, acknowledged: false, frame: frame)
  }

  /// A DESFire / NTAG 424 DNA WriteData's fields: file number, offset and length (3 bytes
  /// each, LSB first) and the data after them (NT4H2421Gx §10, WriteData).
  typealias WriteData = (file: UInt8, offset: Int, length: Int, data: [UInt8])

  /// The fields of a WriteData's data field (`file off(3) len(3) data`); nil when shorter
  /// than its 7-byte header.
  static func writeData(_ data: [UInt8]) -> WriteData? {
    guard data.count >= 7 else { return nil }
    return (
      data[0], Int(data[1]) | Int(data[2]) << 8 | Int(data[3]) << 16,
      Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16, Array(data.dropFirst(7))
    )
  }

  /// The NDEF file `w` writes: its file number maps to it and the NDEF application is
  /// selected; nil for any other target.
  private func ndefTarget(_ w: WriteData) -> UInt16? {
    guard ndefApplicationCurrent, let file = desfireFileIDs[w.file], file == ndefFile,
      w.length > 0, w.offset < ByteImage.limit
    else { return nil }
    return file
  }

  /// Plain communication mode: the data exactly as long as the length field (a MAC or padded
  /// ciphertext is longer), and the file's settings from a GetFileSettings answer say so
  /// (`FileSettings.writesPlain`: CommMode.Plain or free write access) — or, with none in the
  /// trace, no authentication preceded: without one the tag accepts only plain access, after
  /// one a file in CommMode.MAC or Full takes a MAC (NT4H2421Gx §9, §10.8 WriteData).
  private func isPlain(_ w: WriteData) -> Bool {
    guard w.data.count == w.length else { return false }
    return fileSettings[w.file]?.writesPlain ?? !desfireAuthenticated
  }

  /// Whether a command the Type 4 layer named is a step of the NDEF procedures (those expect
  /// 9000), not a file access outside the NDEF application ("SELECT file", "READ file",
  /// "READ BINARY" with no file selected, "UPDATE file").
  static func isNDEFProcedure(_ name: String) -> Bool {
    switch name {
    case "SELECT file", "READ file", "READ BINARY", "UPDATE file": return false
    default: return true
    }
  }

  /// The NDEF detection steps past the CC (T4T 2.0 §5.4.4–5.4.5): their refusal makes the tag
  /// not NDEF.
  private static let detectionSteps: Set<String> = ["SELECT NDEF file", "READ NLEN"]

  /// READ commands of the NDEF file, as the Type 4 layer names them.
  static let ndefReads: Set<String> = ["READ NLEN", "READ NDEF data", "READ NLEN and NDEF data"]
  /// UPDATE commands of the NDEF file, as the Type 4 layer names them.
  static let ndefUpdates: Set<String> = [
    "UPDATE NLEN", "UPDATE NDEF data", "UPDATE NLEN and NDEF data",
  ]

  /// The file an UPDATE writes: the CC (E103) or the NDEF file; nil for other files.
  private func file(of c: LayerDecode) -> UInt16? {
    if c.name == "UPDATE CC" { return 0xE103 }
    if Self.ndefUpdates.contains(c.name) { return ndefFile }
    return nil
  }

  private func offset(_ d: LayerDecode) -> Int { d.binaryOffset ?? 0 }

  private mutating func updateStatus() {
    if cc == nil, let invalidCC {
      status = (.notSupported, nil, "the CC is not a valid Type 4 CC: \(invalidCC)")
    }
    guard let cc else { return }
    if let shortNLEN {
      status = (.notSupported, nil, shortNLEN)
      return
    }
    let f = cc.ndefFile
    let capacity = f.capacity
    // No read access (FFh) or an RFU value (01h–7Fh) makes the CC invalid for NDEF
    // detection: libnfc-nci's rw_t4t_validate_cc_file refuses it (its older versions
    // anything but 00h), so Android finds no NDEF. Proprietary 80h–FEh passes there.
    if f.readAccess == 0xFF || (0x01...0x7F).contains(f.readAccess) {
      status = (
        .notSupported, nil,
        "CC NDEF file read access \(Hex.string([f.readAccess])) "
          + "(\(CapabilityContainer4.accessMeaning(f.readAccess))): NDEF detection needs 00 "
          + "or a proprietary 80–FE"
      )
      return
    }
    switch f.writeAccess {
    case 0x00:
      status = (.readWrite, capacity, "CC NDEF file write access 00 (granted)")
    case 0xFF:
      status = (.readOnly, capacity, "CC NDEF file write access FF (no write access)")
    default:
      status = (
        .readOnly, capacity,
        "CC NDEF file write access \(Hex.string([f.writeAccess])) "
          + "(\(CapabilityContainer4.accessMeaning(f.writeAccess)))"
      )
    }
  }

  mutating func settleQuery(_ op: inout Operation) {
    guard let status, op.outcome != .interrupted,
      let decided = statusDecidedAt, decided >= op.firstFrame
    else { return }
    if status.status == .notSupported || cc != nil {
      op.set("status", .string(status.status.rawValue))
      if let c = status.capacity { op.set("capacity", .int(c)) }
      op.set("rule", .string(status.reason))
    }
    if let cc {
      op.set("mle", .int(cc.mle))
      op.set("mlc", .int(cc.mlc))
    }
  }

  /// Whether the NDEF file's whole message (NLEN and the bytes it announces) is known.
  func messageKnown(_ memory: TagMemory) -> Bool {
    guard let file = memory.filesEnd[ndefFile], let nlen = file.knownBigEndian(0, nlenSize)
    else { return false }
    return file.known(nlenSize, nlen) != nil
  }

  func settleRead(_ op: inout Operation, memory: TagMemory) {
    guard let file = memory.filesEnd[ndefFile] else { return }
    let size = nlenSize
    guard let nlen = file.knownBigEndian(0, size) else { return }
    op.set("ndef_length", .int(nlen))
    if nlen == 0 { return op.failEmptyRead(lengthField: size == 4 ? "ENLEN" : "NLEN") }
    if let message = file.known(size, nlen) {
      op.set("message", .hex(message))
    } else if op.outcome == .ok {
      op.outcome = .unknown
      op.reason = "reads stopped before the end of the \(nlen)-byte message"
    }
  }
}
