/// Writes sent after `queryNDEFStatus` reported `.readOnly` cannot be Core NFC's `writeNDEF`:
/// it refuses a read-only tag with 400 (ndefReaderSessionErrorTagNotWritable) before sending
/// any command (nfc-facts §8.2). The WRITEs / UPDATE BINARYs on the air are the app's own
/// (`sendMiFareCommand`, `sendCommand(apdu:)`), which hand back the tag's NAK or status word
/// and raise no NFCReaderError. So the error a finding on such a write names is 400 — what the
/// app's writeNDEF got, if it called it — not 401 for the refusal, and a write the tag
/// accepted is pointed out (`write-to-read-only-tag`, info): the CC's write
/// access does not stop a Type 2 tag from writing (only lock bits do), but every NDEF reader
/// still reports the tag read-only.
enum AppsOwnWrites {
  static let codes = ["write-to-read-only-tag"]

  /// Findings that prove an operation's commands were the app's own because Core NFC's
  /// writeNDEF would not have sent them: a message larger than the capacity or the file, page
  /// writes past the user memory or outside the NDEF area, pages the tag does not have, an
  /// UPDATE BINARY with Le or longer than MLc.
  /// (A CC that declares more memory than the chip has, `t2t-cc-exceeds-memory`, sends
  /// writeNDEF itself past the memory: then those two Type 2 findings prove nothing. Whether
  /// Core NFC honours MLc is not known, so an oversized UPDATE proves nothing either.)
  static let provesOwnWrites: Set<String> = [
    "message-too-large", "t4t-write-past-file", "t2t-write-past-data-area",
    "t2t-nak-beyond-memory", "t2t-nak-outside-ndef-area", "t4t-update-with-le",
  ]

  /// Findings that prove nothing when the CC overstates the memory.
  private static let pastMemory: Set<String> = [
    "t2t-write-past-data-area", "t2t-nak-beyond-memory",
  ]

  static func adjust(_ findings: [DiagnosisFinding], _ c: DiagnosisContext) -> [DiagnosisFinding] {
    let findings = ownBySize(findings, c)
    let own = ownWrites(c)
    guard !own.isEmpty else { return findings }
    var out = findings.map { f -> DiagnosisFinding in
      guard let i = f.operation, own.contains(i) else { return f }
      // The generic "query before writing" fix speaks to a writeNDEF: here the app wrote
      // with its own commands after the query said .readOnly (new-user trial).
      var f = f
      if f.fix.hasPrefix(genericReadOnlyFix) { f.fix = ownWriteFix(c) }
      // Only a refusal (NAK, status word: 401) becomes writeNDEF's 400; a tag that left the
      // field fails sendMiFareCommand with 100 too, so interruptions keep theirs.
      guard f.coreNFCError == .tagUpdateFailure else { return f }
      f.coreNFCError = .tagNotWritable
      if !f.message.contains("anyway") {
        f.message +=
          " queryNDEFStatus had reported .readOnly, so Core NFC's writeNDEF fails with 400 "
          + "without sending anything (the error the app got if it called writeNDEF): the "
          + "writes on the air were the app's own (\(ownCommands(c))), "
          + "which return the tag's answer without an NFCReaderError."
      }
      return f
    }
    for i in own.sorted() where c.session.operations[i].outcome == .ok {
      out.append(accepted(i, c))
    }
    return out
  }

  /// The start of the fix a refusal of a write to a read-only tag gets (`Type4StatusRule`).
  static let genericReadOnlyFix = "Call queryNDEFStatus before writeNDEF and write only"

  /// The fix of a refusal of writes sent after queryNDEFStatus reported .readOnly.
  static func ownWriteFix(_ c: DiagnosisContext) -> String {
    let calls =
      [.nfcV, .nfcF].contains(c.session.tag.technology)
      ? ownCommands(c) : "sendCommand(apdu:) / sendMiFareCommand"
    return
      "queryNDEFStatus reported .readOnly before these writes, so Core NFC's writeNDEF fails with "
      + "400 without sending anything: the writes on the air were the app's own "
      + "(\(calls)), and the tag refused them as well. Check the status first and "
      + "write neither way when it is .readOnly (writeNDEF's 400 says so); use another tag."
  }

  /// The Core NFC calls that send a tag's write commands as they are: per technology.
  static func ownCommands(_ c: DiagnosisContext) -> String {
    switch c.session.tag.technology {
    case .nfcV: return "NFCISO15693Tag's writeSingleBlock / writeMultipleBlocks"
    case .nfcF: return "NFCFeliCaTag's writeWithoutEncryption"
    default: return "sendMiFareCommand / sendCommand(apdu:)"
    }
  }

  /// On an operation whose commands were the app's own, no finding names writeNDEF's 401:
  /// sendMiFareCommand fails a NAK with 102 (readerTransceiveErrorTagResponseError, as the
  /// simulator's ground truth has it), and sendCommand(apdu:) returns the status word without
  /// an error. One error per operation, not 401 beside another.
  private static func ownBySize(_ findings: [DiagnosisFinding], _ c: DiagnosisContext)
    -> [DiagnosisFinding]
  {
    let ccOverstates = findings.contains { $0.code == "t2t-cc-exceeds-memory" }
    let ops = Set(
      findings.filter {
        provesOwnWrites.contains($0.code)
          && !($0.code == "message-too-large" && $0.coreNFCError != nil)
          && !(ccOverstates && pastMemory.contains($0.code))
      }
      .compactMap(\.operation))
    guard !ops.isEmpty else { return findings }
    let type4 = c.session.tag.isISODEP || c.session.type4CC != nil
    return findings.map { f in
      guard let op = f.operation, ops.contains(op),
        f.coreNFCError == .tagUpdateFailure || (type4 && f.coreNFCError == .tagResponseError)
      else { return f }
      var f = f
      if type4 {
        f.coreNFCError = nil
        f.message +=
          " These commands were the app's own (sendCommand(apdu:)), which returns the status "
          + "word without an NFCReaderError."
      } else {
        f.coreNFCError = .tagResponseError
        f.message += " These writes were the app's own " + ownRefusal(c)
      }
      return f
    }
  }

  /// How the app's own write call reports a refusal (102 in both cases), per technology.
  private static func ownRefusal(_ c: DiagnosisContext) -> String {
    switch c.session.tag.technology {
    case .nfcV:
      return "(\(ownCommands(c))), which fail an ISO 15693 error response with 102 "
        + "(readerTransceiveErrorTagResponseError, the error code under "
        + "NFCISO15693TagResponseErrorKey), not writeNDEF's 401."
    default:
      return "(sendMiFareCommand), which fails a NAK with 102 "
        + "(readerTransceiveErrorTagResponseError), not writeNDEF's 401."
    }
  }

  /// The writeNDEFs that follow a queryNDEFStatus of the same session that said readOnly (the
  /// last successful query before each decides), in one pass over the operations.
  private static func ownWrites(_ c: DiagnosisContext) -> Set<Int> {
    var out = Set<Int>()
    var readOnly = false
    for (i, op) in c.session.operations.enumerated() {
      if op.kind == .queryNDEFStatus, op.outcome == .ok {
        readOnly = op.detail("status") == .string(NDEFStatus.readOnly.rawValue)
      } else if op.kind == .writeNDEF, readOnly {
        out.insert(i)
      }
    }
    return out
  }

  private static func accepted(_ i: Int, _ c: DiagnosisContext) -> DiagnosisFinding {
    let op = c.session.operations[i]
    let reason = c.session.ndefStatusReason.map { " (\($0))" } ?? ""
    let type4 = c.session.tag.isISODEP || c.session.type4CC != nil
    let access = c.session.type4CC?.ndefFile.writeAccess
    let type3 = c.session.tag.technology == .nfcF
    let why: String
    if type3 {
      why =
        "The Attribute Information Block's RW Flag is what NDEF readers obey, not what the tag "
        + "enforces (on a FeliCa Lite / Lite-S only the Memory Configuration block, 88h, makes "
        + "blocks read-only), so every NDEF reader still treats the tag as read-only."
    } else if let access, (0x80...0xFE).contains(access) {
      // 80h–FEh is proprietary (T4T 2.0 §5.1.2.1): e.g. ST25TA's password-protected write.
      why =
        "Its CC gives the NDEF file the proprietary write access \(Hex.string([access]))h (for "
        + "example an ST25TA write password): the app met the vendor's condition itself (a "
        + "VERIFY) before writing, which Core NFC's NDEF API cannot do, so NDEF readers still "
        + "treat the tag as read-only."
    } else if type4 {
      why =
        "The tag's file accepts updates its CC declares forbidden: its file settings and its "
        + "CC disagree, and every NDEF reader still obeys the CC and treats the tag as read-only."
    } else {
      why =
        "The CC's write access is what NDEF readers obey, not what the tag enforces (only lock "
        + "bits or a password stop writes), so every NDEF reader still treats the tag as "
        + "read-only."
    }
    let proprietary = access.map { (0x80...0xFE).contains($0) } ?? false
    // The last write and its answer, not the S(DESELECT) that may close the operation.
    let last = c.commands(in: i).last(where: \.isWrite)
    let evidence =
      [op.firstFrame] + (last.map { [$0.frame] + ($0.answerFrame.map { [$0] } ?? []) } ?? [])
    return DiagnosisFinding(
      code: "write-to-read-only-tag", severity: .info, operation: i,
      frames: evidence,
      cause: "the app wrote a tag that queryNDEFStatus reports read-only, and the tag accepted it",
      message: "queryNDEFStatus reported .readOnly\(reason), yet the write was sent and the tag "
        + "accepted it: the app sent the commands itself (writeNDEF would have failed with 400). "
        + why,
      coreNFCError: nil,
      fix: proprietary
        ? "Nothing to fix if the app is meant to write this protected tag with the vendor's "
          + "commands (sendCommand(apdu:)); NDEF readers will keep reporting it read-only."
        : "Respect .readOnly: do not write such tags. If the tag must stay writable, leave its "
          + (type3
            ? "RW Flag at 01h instead of setting it to 00h."
            : "CC write access at 0 instead of locking it."))
  }
}
