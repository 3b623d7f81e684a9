import NDEF

/// Rule: the write the app meant to do cannot work on this tag, whatever the radio does —
/// Core NFC refuses it before sending anything (or should have).
///
/// Evidence: `queryNDEFStatus`'s result (Type 2 CC magic/version/write access, nfc-facts §5.3;
/// Type 4 NDEF application and CC write access, §6.1), its capacity (§5.4, §6.2), the message
/// the app meant to write (`--expect`) or, from a write in the trace, the length it wrote
/// (Type 2 NDEF TLV L, Type 4 NLEN); readNDEF of a length-0 message.
///
/// Codes (Core NFC errors per nfc-facts §8.2; the not-formatted case per §8.4):
/// - `tag-read-only` (400 ndefReaderSessionErrorTagNotWritable): status readOnly. With
///   `--expect` (the app meant to write) and no write: error, verdict not-attempted; without:
///   info (if the app called writeNDEF, Core NFC refused it without a command on the air).
/// - `message-too-large` (402 ndefReaderSessionErrorTagSizeTooSmall): the expected message,
///   or the length a write put in the length field, exceeds the capacity.
/// - `zero-length-message` (403 ndefReaderSessionErrorZeroLengthMessage): the expected message
///   is empty (library callers only: the CLI refuses an empty `--expect`).
/// - `ndef-empty-on-read` (warning, 403, reported): readNDEF of a message of length 0.
/// - `not-ndef-formatted` (no documented error; status notSupported): with `--expect`, error
///   and not-attempted; without, info. A Type 3 write that left block 0 not valid: error on
///   that write, bad content (`type3WriteLeftNotFormatted`).
/// - `t2t-read-access-restricted`, `t2t-cc-exceeds-memory` (warnings): see `Type2CCChecks`.
/// - `t4t-cc-invalid-value`, `t4t-cc-lock-misplaced` (warnings): see `Type4CCChecks`.
enum NDEFPreconditionRule: DiagnosisRule {
  static let codes = [
    "tag-read-only", "message-too-large", "zero-length-message", "ndef-empty-on-read",
    "not-ndef-formatted", "t4t-nlen-exceeds-file", "t2t-ndef-length-past-area",
    "t4t-read-access-restricted", "t4t-cc-invalid-value", "t4t-cc-lock-misplaced",
    "t2t-length-ff-one-byte", "t2t-read-access-restricted", "t2t-cc-exceeds-memory",
    "mifare-classic-no-core-nfc",
  ]

  static func check(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    if let f = type3WriteLeftNotFormatted(c) {
      // The write, not the tag as found, made the tag not NDEF formatted: its finding, once.
      return [f] + check(c, notFormattedSaid: true)
    }
    return check(c, notFormattedSaid: false)
  }

  private static func check(_ c: DiagnosisContext, notFormattedSaid: Bool)
    -> [DiagnosisFinding]
  {
    var out = expectedChecks(c, notFormattedSaid: notFormattedSaid)
    if let f = mifareClassic(c) { out.append(f) }
    if let f = nlenPastFile(c) { out.append(f) }
    if let f = ndefLengthPastArea(c) { out.append(f) }
    if let f = readAccessRestricted(c) { out.append(f) }
    out += Type2CCChecks.check(c)
    out += Type4CCChecks.check(c)
    out += writtenLengthChecks(c)
    out += emptyReads(c)
    if c.expected == nil, !notFormattedSaid { out += statusNotes(c) }
    return out
  }

  /// Type 3: the write whose UPDATE of block 0 left no valid Attribute Information Block (a
  /// wrong checksum, a block of zeros, a mapping version newer than 1.x, an Nbr or Nbw of 0:
  /// NFC Forum T3T 1.0 §7.1, §7.4.1 — readers then find no NDEF, as Android's `rw_t3t.cc`
  /// NDEF detection does on a wrong checksum): `not-ndef-formatted` on that write (error,
  /// verdict `succeeded-with-bad-content`), not on an earlier query that found the tag
  /// formatted. The block stands as the session leaves it: the write's acknowledged UPDATE, or
  /// a read-back of it.
  private static func type3WriteLeftNotFormatted(_ c: DiagnosisContext) -> DiagnosisFinding? {
    let m = c.session.memory
    let ops = c.session.operations
    guard c.session.tag.technology == .nfcF, let aib = m.type3AttributeBlock,
      let why = aib.invalidReason, let at = m.type3End.frame(0),
      let here = c.operation(at: at)
    else { return nil }
    // The UPDATE's own answer, or a read-back after the write that wrote block 0.
    let write: Int?
    if ops[here].kind == .writeNDEF || ops[here].kind == .writeLock {
      write = here
    } else {
      write = c.writeOperations.last {
        $0 < here && ops[$0].outcome == .ok
          && (ops[$0].kind == .writeLock || ops[$0].detail("write_flag_set") != nil)
      }
    }
    guard let i = write, ops[i].outcome == .ok else { return nil }
    // The write's last step (its UPDATE of block 0 and the answer), and the read-back.
    let last = ops[i].lastFrame
    let evidence = [last - 1, last].filter { $0 >= ops[i].firstFrame } + (here == i ? [] : [at])
    var f = DiagnosisFinding(
      code: "not-ndef-formatted", severity: .error, operation: i,
      frames: evidence.isEmpty ? [at] : evidence,
      cause: "the write left block 0 no valid Attribute Information Block: the tag is no "
        + "longer NDEF formatted",
      message: "The \(ops[i].kind.rawValue) wrote block 0 of the NDEF service, and the tag "
        + "acknowledged it, but the block it left is no valid Attribute Information Block ("
        + why + "). Readers detecting NDEF (NFC Forum T3T 1.0 §7.4.1) now find none: "
        + "queryNDEFStatus reports .notSupported and readNDEF fails, though every command of "
        + "the write was acknowledged.",
      coreNFCError: nil,
      fix: "Write the message again with writeNDEF(_:completionHandler:), which writes block 0 "
        + "itself. A writer of its own (NFCFeliCaTag's writeWithoutEncryption(serviceCode:"
        + "blockList:blockData:completionHandler:)) must keep Ver, Nbr, Nbw and NmaxB, and set "
        + "the checksum to the sum of bytes 0–13 (T3T 1.0 §7.1).")
    f.effect = .badContent
    return f
  }

  private static var queryFix: String {
    "Call queryNDEFStatus(completionHandler:) before writeNDEF and handle each status: "
      + ".readWrite → write; .readOnly → tell the user the tag is locked; .notSupported → the "
      + "tag is not NDEF formatted (Core NFC does not format tags)."
  }

  private static func queryOp(_ c: DiagnosisContext) -> Int? {
    c.session.operations.lastIndex { $0.kind == .queryNDEFStatus }
  }

  /// The query's first frame and what decided its status: a refusal in it (the 6A82 to the
  /// NDEF application's SELECT) and the CC's answer — not a closing S(DESELECT) or HLTA.
  private static func queryFrames(_ c: DiagnosisContext, _ q: Int?) -> [Int] {
    guard let q else { return [] }
    var frames = [c.session.operations[q].firstFrame]
    if let refusal = c.commands(in: q).last(where: \.refused) {
      frames += [refusal.frame] + (refusal.answerFrame.map { [$0] } ?? [])
    }
    // The CC as the query read it: a later write of it (a format) is not the query's evidence.
    let m = c.session.memory
    let last = c.session.operations[q].lastFrame
    let cc = [
      m.type2End.frame(12), m.type2Start.frame(12), m.filesEnd[0xE103]?.frame(0),
      m.filesStart[0xE103]?.frame(0),
    ].lazy.compactMap { $0 }.first { $0 <= last }
    return frames + (cc.map { [$0] } ?? [])
  }

  private static func expectedChecks(_ c: DiagnosisContext, notFormattedSaid: Bool)
    -> [DiagnosisFinding]
  {
    guard let e = c.expected, let st = c.session.ndefStatus else { return [] }
    let wrote = c.session.operations.contains { $0.kind == .writeNDEF || $0.writesNDEFFile }
    let q = queryOp(c)
    let frames = queryFrames(c, q)
    var f: DiagnosisFinding?
    if e.isEmpty {
      f = DiagnosisFinding(
        code: "zero-length-message", severity: .error, operation: q, frames: frames,
        cause: "the message to write is empty",
        message: "The message the app meant to write has no bytes; Core NFC refuses to write a "
          + "zero-length message.",
        coreNFCError: .zeroLengthMessage,
        fix: "Build the NFCNDEFMessage from at least one NFCNDEFPayload (for example "
          + "NFCNDEFPayload.wellKnownTypeURIPayload(url:)) before calling writeNDEF.")
    } else if st.status == .notSupported {
      guard !notFormattedSaid else { return [] }
      f = DiagnosisFinding(
        code: "not-ndef-formatted", severity: .error, operation: q, frames: frames,
        cause: "the tag is not NDEF formatted, so the write was never attempted",
        message:
          "queryNDEFStatus reports .notSupported (\(c.session.ndefStatusReason ?? "no NDEF")). "
          + "Core NFC's writeNDEF does not format tags.", coreNFCError: nil,
        fix: "Use NDEF-formatted tags, or format the tag first with a tool that writes the "
          + "capability container. " + queryFix)
    } else if st.status == .readOnly, !wrote {
      f = readOnly(c, q, frames, severity: .error)
    } else if let cap = st.capacity, e.count > cap {
      f = tooLarge(e.count, cap, q, frames, source: "the message to write")
      if wrote { f?.effect = .none }
    }
    if f?.severity == .error, !wrote { f?.effect = .notAttempted }
    return f.map { [$0] } ?? []
  }

  /// `--expect` given for a MIFARE Classic tag (SAK 08/09/18/19/88) that no NDEF procedure
  /// touched: Core NFC has no MIFARE Classic support (nfc-facts §8.3; NFCMiFareTag covers
  /// Ultralight, Plus and DESFire), so an iPhone never hands the app this tag and writeNDEF is
  /// never attempted. Code `mifare-classic-no-core-nfc` (error, not-attempted, no Core NFC
  /// error: the session simply detects no usable tag). Not for a session that wrote Classic
  /// blocks itself (a gen1a backdoor WRITE, MF1S50yyX datasheet §12.3): that reader handled
  /// Classic, as one that authenticated did.
  private static func mifareClassic(_ c: DiagnosisContext) -> DiagnosisFinding? {
    // A tag that answered RATS is an ISO-DEP card (an emulated or dual-interface one); a
    // reader that authenticated with Crypto1 or wrote blocks handled Classic itself (an
    // Android phone, a Proxmark3).
    guard c.expected != nil, c.session.ndefStatus == nil, !c.session.tag.isISODEP,
      !c.session.tag.sawMIFAREClassicAuth,
      !c.session.operations.contains(where: \.writesClassicBlocks),
      let product = c.session.tag.product,
      product.hasPrefix("MIFARE Classic")
        || product == "MIFARE Mini",
      !c.session.operations.contains(where: { $0.kind == .writeNDEF })
    else { return nil }
    let connect = c.session.operations.firstIndex { $0.kind == .connect }
    var f = DiagnosisFinding(
      code: "mifare-classic-no-core-nfc", severity: .error, operation: connect,
      frames: connect.map { i in
        let op = c.session.operations[i]
        return Array((op.firstFrame...max(op.firstFrame, op.lastFrame)).prefix(12))
      } ?? [],
      cause: "the tag is a \(product), which Core NFC does not support",
      message:
        "The tag answered as a \(product) (SAK \(c.session.tag.sak.map { Hex.string([$0]) } ?? "?")). "
        + "Core NFC has no MIFARE Classic support: an NFCNDEFReaderSession never reports it and "
        + "an NFCTagReaderSession gives no tag to connect to, so the app's writeNDEF was never "
        + "called. MIFARE Classic NDEF (the MAD layout) works only on Android phones with an NXP "
        + "NFC controller.",
      coreNFCError: nil,
      fix: "Use NFC Forum tags an iPhone can write: Type 2 (NTAG21x, MIFARE Ultralight) or "
        + "Type 4 (NTAG 424 DNA, DESFire with an NDEF application).")
    f.effect = .notAttempted
    return f
  }

  /// The NLEN the tag held when the session read it announces more bytes than the NDEF file
  /// can hold (its maximum size from the CC, minus the NLEN field; nfc-facts §6.2, nfcpy's
  /// capacity): the message cannot be there, and readers reading NLEN bytes run past the
  /// file's end (6282, 6B00).
  private static func nlenPastFile(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard let cc = c.session.type4CC, let id = c.session.type4NDEFFile,
      let image = c.session.memory.filesStart[id]
    else { return nil }
    let size = cc.ndefFile.lengthFieldSize
    guard let nlen = image.knownBigEndian(0, size) else { return nil }
    let room = cc.ndefFile.capacity
    guard nlen > room else { return nlenPastFileEnd(c, nlen: nlen, size: size) }
    let frame = image.frame(0)
    return DiagnosisFinding(
      code: "t4t-nlen-exceeds-file", severity: .error,
      operation: frame.flatMap { c.operation(at: $0) }, frames: frame.map { [$0] } ?? [],
      cause: "the NLEN on the tag announces more bytes than its NDEF file holds",
      message: "The NDEF file's length field says \(nlen) bytes, but the CC gives the file a "
        + "maximum size of \(room + size) bytes, so at most \(room) bytes of message fit. "
        + "Reads of NLEN bytes run past the file's end; the NDEF file is corrupt, not the "
        + "reader.",
      coreNFCError: nil,
      fix: "Rewrite the tag's NDEF file with writeNDEF(_:completionHandler:) (NLEN 0, the "
        + "message, the real NLEN), or reformat it with the vendor's tool; treat readNDEF "
        + "errors on this tag as a damaged tag.")
  }

  /// A read of the NDEF file met its end (6282) before the bytes NLEN announces, within the
  /// size the CC gives: the file holds less than the CC and NLEN say (Type4Procedure's
  /// `ndef_file_end`).
  private static func nlenPastFileEnd(_ c: DiagnosisContext, nlen: Int, size: Int)
    -> DiagnosisFinding?
  {
    guard
      let i = c.session.operations.firstIndex(where: {
        if case .int(let end)? = $0.detail("ndef_file_end") { return end < nlen + size }
        return false
      }), case .int(let end)? = c.session.operations[i].detail("ndef_file_end")
    else { return nil }
    let name = size == 4 ? "ENLEN" : "NLEN"
    return DiagnosisFinding(
      code: "t4t-nlen-exceeds-file", severity: .error, operation: i,
      frames: c.session.operations[i].failedFrames,
      cause: "the NDEF file ends before the \(nlen) bytes its \(name) announces",
      message: "The \(name) says the message is \(nlen) bytes long, but a READ BINARY of the "
        + "NDEF file was answered SW 6282 (end of file reached before Le bytes): the file ends "
        + "at byte \(end), \(bytesText(nlen + size - end)) short. The reader did not stop early; "
        + "the tag has no more. The message cannot be read whole, so readers fail or show it "
        + "cut; the NDEF file is corrupt or smaller than its CC says, not the reader.",
      coreNFCError: nil,
      fix: "Rewrite the tag's NDEF file with writeNDEF(_:completionHandler:) (NLEN 0, the "
        + "message, the real NLEN), or reformat it with the vendor's tool; treat readNDEF "
        + "errors on this tag as a damaged tag.")
  }

  /// The NDEF TLV the tag held when the session read it announces more bytes than the data
  /// area the CC declares holds after it (CC2 × 8 bytes from byte 16, reserved and lock bytes
  /// skipped; NFC Forum T2T 1.0 §2.3, nfc-facts §5.3): the message cannot be there, and
  /// readers reading that many bytes run into the lock and configuration pages or past the
  /// tag's end. The Type 2 twin of `t4t-nlen-exceeds-file`.
  private static func ndefLengthPastArea(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard c.session.type4CC == nil else { return nil }
    let image = c.session.memory.type2Start
    guard let cc = image.known(12, 4).flatMap(Type2CapabilityContainer.init), cc.hasMagic
    else { return nil }
    let areaEnd = 16 + cc.dataAreaSize
    let run = image.knownRun(from: 16).prefix(cc.dataAreaSize)
    guard !run.isEmpty else { return nil }
    let area = Type2TLVArea(parsing: Array(run), baseAddress: 16)
    guard let ndef = area.ndef, let valueEnd = area.ndefValueEndAddress, valueEnd > areaEnd
    else { return nil }
    let lengthAddress = 16 + ndef.offset + 1
    let frame = image.frame(lengthAddress)
    return DiagnosisFinding(
      code: "t2t-ndef-length-past-area", severity: .error,
      operation: frame.flatMap { c.operation(at: $0) }, frames: frame.map { [$0] } ?? [],
      cause: "the NDEF TLV on the tag announces more bytes than the data area holds",
      message: "The NDEF TLV (its length at tag byte \(lengthAddress)) announces \(ndef.length) "
        + "bytes, which would end at byte \(valueEnd), but the CC's data area ends at byte "
        + "\(areaEnd): the message cannot be there. Readers reading that many bytes run into the "
        + "lock and configuration pages (or past the tag's end) and reject the message; the "
        + "tag's NDEF data is corrupt, not the reader.",
      coreNFCError: nil,
      fix: "Rewrite the tag with writeNDEF(_:completionHandler:) (length 0, the message, the "
        + "real length) with a message within queryNDEFStatus's capacity; treat readNDEF "
        + "errors on this tag as a damaged tag.")
  }

  /// The CC grants no free read access to the NDEF file (read access 80h–FEh proprietary,
  /// FFh none; nfc-facts §6.1): NFC Forum readers — nfcpy, Core NFC's NDEF reading — treat the
  /// message as unreadable, and a READ BINARY may get 6982.
  private static func readAccessRestricted(_ c: DiagnosisContext) -> DiagnosisFinding? {
    guard let cc = c.session.type4CC, cc.ndefFile.readAccess != 0 else { return nil }
    let access = cc.ndefFile.readAccess
    let frame = c.session.memory.filesEnd[0xE103]?.frame(13)
    return DiagnosisFinding(
      code: "t4t-read-access-restricted", severity: .warning,
      operation: frame.flatMap { c.operation(at: $0) }, frames: frame.map { [$0] } ?? [],
      cause: "the CC does not grant free read access to the NDEF file",
      message: "The CC's NDEF File Control TLV gives read access 0x\(Hex.string([access])) ("
        + CapabilityContainer4.accessMeaning(access) + "): only 00 lets any reader read the "
        + "NDEF file. Readers that follow NFC Forum T4T treat the message as unreadable, and "
        + "the tag may refuse READ BINARY (6982) until the vendor's access condition is met.",
      coreNFCError: nil,
      fix: "Set the NDEF file's read access to free (00) with the tag vendor's tool (e.g. NTAG "
        + "424 DNA ChangeFileSettings), or read it with the vendor's protocol through "
        + "NFCISO7816Tag.sendCommand(apdu:).")
  }

  private static func readOnly(
    _ c: DiagnosisContext, _ q: Int?, _ frames: [Int], severity: Severity
  ) -> DiagnosisFinding {
    let type4 = c.session.type4CC != nil
    let type3 = c.session.tag.technology == .nfcF
    let type5 = c.session.tag.technology == .nfcV
    // The frame that delivered the write access byte: CC3 (Type 2 page 3 byte 3), byte 14
    // of the CC file (T4T 2.0 §5.1.2.1, the NDEF File Control TLV's write access), or the
    // Type 3 Attribute Information Block's RW Flag (block 0 byte 10, T3T 1.0 §7.1).
    let ccFrame =
      type3
      ? c.session.memory.type3End.frame(10)
      : type5
        ? c.session.memory.type5End.frame(1)
        : type4
          ? c.session.memory.filesEnd[0xE103]?.frame(14) : c.session.memory.type2End.frame(15)
    let permanence =
      type3
      ? " On a Type 3 tag read-only is the Attribute Information Block's RW Flag (00h, block 0 "
        + "of the NDEF service): a writer of its own can set it back to 01h unless the blocks themselves are write-protected (on a FeliCa Lite / Lite-S, "
        + "by its Memory Configuration block 88h, a one-time setting)."
      : type4
        ? " On a Type 4 tag the write access is a file setting of the tag: some (NTAG 424 DNA, "
          + "DESFire) can change it with the issuer's key (ChangeFileSettings), which Core NFC's "
          + "NDEF API cannot send."
        : type5
          ? " On a Type 5 tag the CC's write access is a byte of block 0: a writer of its own "
            + "can set it back unless block 0 is locked (LOCK BLOCK, permanent), as writeLock "
            + "leaves it."
          : " A Type 2 tag made read-only stays so: its lock bits and CC write access are "
            + "one-time programmable."
    return DiagnosisFinding(
      code: "tag-read-only", severity: severity, operation: q,
      frames: frames + (ccFrame.map { [$0] } ?? []),
      cause: "the tag is read-only, so no write was sent",
      message:
        "queryNDEFStatus reports .readOnly (\(c.session.ndefStatusReason ?? "write access denied")). "
        + "If the app called writeNDEF, Core NFC refused it with 400 without sending any command.",
      coreNFCError: .tagNotWritable,
      fix: queryFix + permanence)
  }

  private static func tooLarge(_ n: Int, _ cap: Int, _ q: Int?, _ frames: [Int], source: String)
    -> DiagnosisFinding
  {
    DiagnosisFinding(
      code: "message-too-large", severity: .error, operation: q, frames: frames,
      cause: "\(source) (\(bytesText(n))) is larger than the tag's capacity (\(bytesText(cap)))",
      message: "The tag can hold at most \(bytesText(cap)) of NDEF message (queryNDEFStatus "
        + "capacity); \(source) needs \(bytesText(n)).", coreNFCError: .tagSizeTooSmall,
      fix: "Compare the message size with queryNDEFStatus's capacity before writeNDEF; shorten "
        + "the message (a shorter URL, no extra records) or use a tag with more memory.")
  }

  private static func writtenLengthChecks(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let cap = c.session.ndefStatus?.capacity else { return [] }
    var out: [DiagnosisFinding] = []
    for i in c.writeOperations where c.session.operations[i].kind == .writeNDEF {
      let op = c.session.operations[i]
      if c.session.tag.technology == .nfcV {
        if let f = type5TooLarge(c, i, capacity: cap) { out.append(f) }
        continue
      }
      guard let st = NDEFWriteState.after(op, in: c.session, log: c.log),
        st.lengthWrittenHere,
        st.claimed > cap
      else { continue }
      if let f = oneByteFF(c, i, st: st, capacity: cap) {
        out.append(f)
        continue
      }
      out.append(
        ownWritesTooLarge(
          st.claimed, cap, i, st.lengthFrame, lengthName: st.lengthName, op: op, c))
    }
    return out
  }

  /// `message-too-large` for a length written past the capacity: Core NFC refuses such a
  /// message with 402 before sending anything, so these writes were the app's own, and raised
  /// no error.
  private static func ownWritesTooLarge(
    _ claimed: Int, _ cap: Int, _ i: Int, _ lengthFrame: Int?, lengthName: String,
    op: Operation, _ c: DiagnosisContext
  ) -> DiagnosisFinding {
    let nfcV = c.session.tag.technology == .nfcV
    var f = tooLarge(
      claimed, cap, i, [lengthFrame].compactMap { $0 },
      source: "the message its \(lengthName) announces")
    f.coreNFCError = nil
    f.fix =
      "Write NDEF with writeNDEF(_:completionHandler:), which checks the size, or check the "
      + "message against queryNDEFStatus's capacity before writing "
      + (nfcV ? "blocks" : "pages") + "; shorten the message or use a tag with more memory."
    f.message +=
      " The writes were sent anyway, so the app wrote them itself ("
      + (nfcV
        ? "NFCISO15693Tag's writeSingleBlock / writeMultipleBlocks"
        : "sendMiFareCommand / sendCommand(apdu:)")
      + "): Core NFC's writeNDEF refuses such a message with 402 "
      + "(ndefReaderSessionErrorTagSizeTooSmall) before writing anything."
    // A tag that accepted it all holds a length past its capacity: readers that trust the
    // CC reject the message (its verdict is bad content, not success).
    if op.outcome == .ok { f.effect = .badContent }
    return f
  }

  /// Type 5: the NDEF TLV's length (after the CC, T5T 1.0 §4.3) written by operation `i`
  /// announces more than the capacity.
  private static func type5TooLarge(_ c: DiagnosisContext, _ i: Int, capacity: Int)
    -> DiagnosisFinding?
  {
    let m = c.session.memory
    let op = c.session.operations[i]
    guard let cc = m.type5CC,
      let tlv = cc.tlvArea(m.type5End, memorySize: m.type5MemorySize)
        .area.ndef, tlv.length > capacity
    else { return nil }
    let area = cc.tlvArea(m.type5End, memorySize: m.type5MemorySize).area
    // The length field (1 byte, or FF hi lo across a block boundary): the WRITE that
    // completed it, the last one to write any of its bytes.
    let lengthAt = area.ndefLengthAddresses ?? []
    guard !lengthAt.isEmpty, lengthAt.allSatisfy({ m.type5End.state($0).isWritten }),
      let frame = lengthAt.compactMap({ m.type5End.frame($0) }).max(),
      frame >= op.firstFrame, frame <= op.lastFrame
    else { return nil }
    var f = ownWritesTooLarge(
      tlv.length, capacity, i, frame, lengthName: "NDEF TLV length", op: op, c)
    // The WRITE with its answer (the image keeps the answer's frame).
    f.frames = DiagnosisContext.exchange(answeredBy: frame, in: op)
    return f
  }

  /// A Type 2 NDEF TLV whose length byte is `FF` followed by an NDEF record header (MB set,
  /// TNF 1–4): the writer meant a 1-byte length of 255, but `FF` announces the 3-byte form, so
  /// readers take the record header as the length (a TLV length of 255 or more is `FF hi lo`,
  /// nfc-facts §5.1).
  private static func oneByteFF(
    _ c: DiagnosisContext, _ i: Int, st: NDEFWriteState, capacity: Int
  ) -> DiagnosisFinding? {
    let image = c.session.memory.type2End
    guard let address = c.session.memory.type2Area?.ndefLengthAddress,
      let field = image.known(address, 2), field[0] == 0xFF,
      field[1] & 0x80 != 0, (1...4).contains(field[1] & 0x07)
    else { return nil }
    var f = DiagnosisFinding(
      code: "t2t-length-ff-one-byte", severity: .error, operation: i,
      frames: [st.lengthFrame].compactMap { $0 },
      cause: "the NDEF TLV length was written as one byte FF, which starts the 3-byte form",
      message: "The NDEF TLV's length byte is FF, followed by what looks like the message's "
        + "first record header (\(Hex.string([field[1]]))): the writer meant a 1-byte length of "
        + "255. But FF announces a 3-byte length, so readers take the next two bytes as the "
        + "length (\(st.claimed) bytes, more than the \(capacity) the tag holds) and find no "
        + "message. A 255-byte message needs 03 FF 00 FF.",
      coreNFCError: nil,
      fix: "Use the 3-byte TLV length for messages of 255 bytes and more (03 FF hi lo), or "
        + "write the message with writeNDEF(_:completionHandler:), which builds the TLV itself.")
    f.effect = .badContent
    return f
  }

  private static func emptyReads(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    c.session.operations.indices.compactMap { i -> DiagnosisFinding? in
      let op = c.session.operations[i]
      guard op.kind == .readNDEF, case .int(0)? = op.detail("ndef_length") else { return nil }
      return DiagnosisFinding(
        code: "ndef-empty-on-read", severity: .warning, operation: i,
        frames: lengthEvidence(c, op) ?? [op.firstFrame, op.lastFrame],
        cause: "the tag holds an empty NDEF message (length 0)",
        message: "The NDEF length on the tag is 0: the tag is formatted but holds no message. "
          + "readNDEF reports 403 for such a tag (reported, not verified).",
        coreNFCError: .zeroLengthMessage,
        fix: "Treat error 403 from readNDEF as \"empty tag\", not as a failure; write a message "
          + "with writeNDEF first.")
    }
  }

  /// The answer that last gave the zero length's byte to operation `op` (Type 2 TLV length,
  /// Type 4 NLEN, Type 3 Ln in block 0), with its command when the command log has it; nil
  /// when the answer is not one of the operation's frames.
  private static func lengthEvidence(_ c: DiagnosisContext, _ op: Operation) -> [Int]? {
    let m = c.session.memory
    var answer: Int?
    if let address = m.type2Area?.ndefLengthAddress {
      answer = m.type2End.frame(address)
    } else if let id = c.session.type4NDEFFile, let file = m.filesEnd[id] {
      answer = file.frame(0)
    } else if m.type3AttributeBlock != nil {
      answer = m.type3End.frame(13)
    }
    guard let answer, answer > op.firstFrame, answer <= op.lastFrame else { return nil }
    // Reads are not in the command log (S(WTX) or a chain may lie between a read and its
    // answer): the answer alone then.
    let command = c.log.commands.last(where: { $0.answerFrame == answer })?.frame
    return (command.map { [$0] } ?? []) + [answer]
  }

  /// The answer to the command at which the query's NDEF detection stopped
  /// (`ndef_detection_failed`), when the log holds it.
  private static func detectionFailure(_ c: DiagnosisContext, _ q: Int?)
    -> SessionCommandLog.Answer?
  {
    guard let q, case .int(let frame)? = c.session.operations[q].detail("ndef_detection_failed")
    else { return nil }
    return c.log.commands.first { $0.frame == frame || $0.answerFrame == frame }?.answer
  }

  private static func statusNotes(_ c: DiagnosisContext) -> [DiagnosisFinding] {
    guard let st = c.session.ndefStatus else { return [] }
    let q = queryOp(c)
    let frames = queryFrames(c, q)
    let wrote = !c.writeOperations.isEmpty
    switch st.status {
    case .readOnly where !wrote:
      return [readOnly(c, q, frames, severity: .info)]
    case .notSupported:
      // A formatted tag whose NDEF file refused to be read (6982, 6985): the security finding
      // of Type4StatusRule names the cause; "not NDEF formatted" would be wrong.
      if let failed = detectionFailure(c, q), failed == .sw("6982") || failed == .sw("6985") {
        return []
      }
      // A query that failed on a read-protected data area returned an error, not a status:
      // the refused READ's finding explains it.
      if let q, c.session.operations[q].outcome == .failed,
        c.session.operations[q].detail("read_protected_from") != nil
      {
        return []
      }
      // A valid CC (magic E1h) with the data area behind the password: formatted, protected.
      if let q, case .int(let from)? = c.session.operations[q].detail("read_protected_from"),
        c.session.memory.type2End.known(12, 1) == [0xE1]
      {
        return [readProtected(q, frames, from: from, ultralightC: c.session.tag.isUltralightC)]
      }
      return [
        DiagnosisFinding(
          code: "not-ndef-formatted", severity: .info, operation: q, frames: frames,
          cause: "the tag is not NDEF formatted",
          message:
            "queryNDEFStatus reports .notSupported (\(c.session.ndefStatusReason ?? "no NDEF")): "
            + "readNDEF and writeNDEF cannot be used on this tag.", coreNFCError: nil, fix: queryFix
        )
      ]
    default: return []
    }
  }

  /// A query answered `.notSupported` because a READ rolled over to page 0 at AUTH0 after a
  /// valid CC (reads need the password: NTAG21x PROT set, NXP NTAG213/215/216 datasheet §8.8;
  /// Ultralight C AUTH1 bit 0 clear, 3DES authentication, MF0ICU2 datasheet §7.5.8): detection
  /// saw UID pages where the data area is, so the tag may hold NDEF behind the password.
  private static func readProtected(_ q: Int, _ frames: [Int], from: Int, ultralightC: Bool)
    -> DiagnosisFinding
  {
    let protection =
      ultralightC
      ? "AUTH0 = \(from), AUTH1 bit 0 clear: reads need the 3DES authentication; NXP MF0ICU2 "
        + "datasheet §7.5.8"
      : "AUTH0 = \(from), PROT set; NXP NTAG213/215/216 datasheet §8.8"
    let fix =
      ultralightC
      ? "Authenticate with the tag's 3DES key (AUTHENTICATE 1A 00 and AF …, sendMiFareCommand) "
        + "before queryNDEFStatus and readNDEF, which cannot authenticate themselves; or set "
        + "AUTH1 bit 0 (write protection only) or raise AUTH0 on the tag so that reading is free."
      : "Send PWD_AUTH with the tag's password (sendMiFareCommand, 1B + password) before "
        + "queryNDEFStatus and readNDEF, which cannot send it themselves; or clear PROT / raise "
        + "AUTH0 on the tag so that reading is free."
    return DiagnosisFinding(
      code: "t2t-read-protected", severity: .info, operation: q, frames: frames,
      cause: "the data area is read-protected (password), not unformatted",
      message:
        "queryNDEFStatus reports .notSupported: the READ rolled over to page 0 after page "
        + "\(Type2Geometry.page(from - 1)), so the tag is read-protected from page "
        + "\(Type2Geometry.page(from)) (\(protection)). NDEF detection read the UID pages in "
        + "place of the data area and found no NDEF TLV; the tag's NDEF message, if any, is "
        + "behind the password.",
      coreNFCError: nil, fix: fix)
  }
}
