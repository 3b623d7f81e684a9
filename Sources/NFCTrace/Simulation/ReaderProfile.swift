/// How a reader stack drives tags: the procedures the simulator follows for each operation.
///
/// Common to both profiles (ISO/IEC 14443-3/-4):
/// - polling: field on, 5.1 ms guard time, WUPA → ATQA, CL1 anticollision (`93 20`); a collision
///   there makes the reader select each tag with bit-oriented anticollision and HLTA it, waking
///   the next with REQA, and report the count (Core NFC: `didDetect` with several tags);
/// - connect: SELECT CL1 (after the polling's anticollision, or WUPA + anticollision again),
///   CL2/CL3, and RATS `E0 80` (FSD 256, CID 0) when SAK has bit 0x20;
/// - retries: when a frame gets no valid answer (silence, bad CRC/parity, NAK 1 or 5) the reader
///   sends it once more (ISO-DEP: R(NAK), ISO/IEC 14443-4 §7.5.4); after that it gives up,
///   switches the field off and the operation fails with Core NFC error 100;
/// - timeouts: 0.5 ms for activation frames, 5 ms for Type 2 commands, 10 ms for WRITE,
///   FWT + ΔFWT for ISO-DEP blocks (FWT × WTXM after an S(WTX));
/// - Type 4 (both): queryNDEFStatus = reference/nfc-facts.md §6.3 steps 1–5 (SELECT AID with
///   Le 00, SELECT E103 P2 0C, READ BINARY 15, SELECT NDEF file, READ BINARY 2); readNDEF =
///   READ BINARY of NLEN, then chunks of at most min(MLe, 255) bytes from offset 2; writeNDEF =
///   §6.4 (one UPDATE BINARY when NLEN + message ≤ MLc, else NLEN 0000, chunks ≤ min(MLc, 255),
///   then NLEN); any status word other than 9000 fails the write with 401; writeLock is not
///   offered for Type 4 (error 1, nothing sent); disconnect = S(DESELECT), field off.
public struct ReaderProfile: Sendable, Hashable {
  /// Which stack.
  public let kind: ReaderKind
  /// Type 2 detection starts with GET_VERSION (`60`) and then READ 3 (iOS), or READ 0 (Android).
  let type2DetectsWithGetVersion: Bool
  /// Type 2 NDEF reads use FAST_READ (`3A`), at most this many pages per command; 0 = READ.
  let fastReadPages: Int
  /// Type 2 NDEF write writes the Terminator TLV last, after the length (Android libnfc-nci).
  let terminatorLast: Bool
  /// Type 2 writeLock sets the dynamic lock bits before the static ones.
  let dynamicLockFirst: Bool
  /// Reader gap before a frame: `gapBase` + 0…`gapJitter` ticks.
  let gapBase: Int64
  let gapJitter: UInt64

  /// iOS Core NFC. Type 2: queryNDEFStatus = GET_VERSION, READ 3 (CC + first TLV bytes), then
  /// READs of 4 pages until the NDEF TLV header is known (an unformatted tag, CC not `E1`,
  /// is `notSupported`; CC3 low nibble 0 → readWrite, else readOnly; capacity by nfcpy's rule,
  /// §5.4); readNDEF = READ 16-byte blocks from the NDEF TLV's page (zero length → 403);
  /// writeNDEF = length-last (§5.5, iOS reported): the page(s) holding the TLV's L field with
  /// L = 0, then the other pages of TLV + message + Terminator, then the L page(s) again with
  /// the real length (read-only → 400, too big → 402, NAK → 102); writeLock = WRITE 3 with
  /// CC3 = 0F, then static lock bytes `FF FF` (page 2), then the dynamic lock page (order after
  /// CC3 unverified); sendMiFareCommand = the app's bytes + CRC_A.
  public static let iOS = ReaderProfile(
    kind: .ios, type2DetectsWithGetVersion: true, fastReadPages: 0, terminatorLast: false,
    dynamicLockFirst: false, gapBase: 4_000, gapJitter: 2_000)

  /// Android `Ndef` over libnfc-nci. Type 2: detection = READ 0 (static lock bytes + CC), then
  /// READs of 4 pages for the TLVs; readNDEF = FAST_READ of the message pages, at most 64 pages
  /// per command (`3A 04 49` is reported to work on Android); writeNDEF in libnfc-nci's order
  /// (§5.5): first block with length 0, the following blocks, the first block with the new
  /// length, then the block holding the Terminator TLV; writeLock = CC3 0F, dynamic lock bits,
  /// then static lock bytes (§5.3).
  public static let android = ReaderProfile(
    kind: .android, type2DetectsWithGetVersion: false, fastReadPages: 64, terminatorLast: true,
    dynamicLockFirst: true, gapBase: 6_800, gapJitter: 2_000)

  /// The profile for `kind`.
  public static func profile(_ kind: ReaderKind) -> ReaderProfile {
    kind == .ios ? .iOS : .android
  }
}
