import Testing

@testable import NFCTrace

/// MIFARE Classic frames the sniffer missed or cut (rev-mfc 2): a missing or cut nonce nt, an
/// authentication abandoned after nt, and what follows them.
@Suite struct ClassicCaptureGapTests {
  private static let uid: [UInt8] = [0x11, 0x22, 0x33, 0x44]
  private static let nrar: [UInt8] = [0x8F, 0x7F, 0x89, 0x38, 0x5E, 0xB0, 0x94, 0x23]

  /// AUTH key A block 4, answered by `nonce` (nil: no answer captured), then the reader's
  /// {nr}{ar}, the tag's {at}, an encrypted READ and its 18-byte answer.
  private static func auth(nonce: [UInt8]?) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle(uid, sak: 0x08)
    b.reader([0x60, 0x04])
    if let nonce { b.tag(nonce, crc: false) }
    b.reader(nrar, crc: false)
    b.tag([0x55, 0x51, 0x82, 0x56], crc: false)
    b.reader([0x8B, 0x96, 0xE8, 0xA4], crc: false)
    b.tag(Array(repeating: 0xFE, count: 18), crc: false)
    return b
  }

  /// A reader sends {nr}{ar} only on receiving nt (MF1S50yyX §10.3): 8 bytes without a valid
  /// CRC_A after an AUTH with no captured answer are {nr}{ar}, and the rest is ciphertext.
  @Test func readerAnswerAfterUncapturedNonceIsEncrypted() throws {
    let b = Self.auth(nonce: nil)
    let (decoded, _) = decodeAll(b.frames)
    let nrar = decoded[7]
    #expect(nrar.frame.crc == .encrypted)
    #expect(nrar.innermost?.name == "AUTH (nr, ar)")
    #expect(
      nrar.innermost?.summary
        == "AUTH reader nonce nr + answer ar (encrypted); the tag's nonce nt, which the reader "
        + "answers, is not in the capture")
    #expect(nrar.innermost?.field("nt_not_captured") == .bool(true))
    #expect(decoded[8].innermost?.name == "AUTH (at)")
    #expect(decoded[9].frame.crc == .encrypted && decoded[10].frame.crc == .encrypted)
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.shortText) == ["connect ok", "authenticate ok", "transceive ok"])
    #expect(ops[1].detail("nt_not_captured") == .int(6))
    #expect(ops[1].unansweredFrames.isEmpty)
    #expect(try b.diagnose().codes.isEmpty)
  }

  /// A nonce cut to 3 bytes carries no CRC_A to check; the 8 bytes after it are {nr}{ar}.
  @Test func cutNonceIsNamedAndCiphertextFollows() throws {
    let b = Self.auth(nonce: [0x1E, 0xD2, 0x4A])
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[7].frame.crc == .absent)
    #expect(
      decoded[7].innermost?.summary
        == "AUTH tag nonce nt cut short: 3 of its 4 bytes captured (1ed24a)")
    #expect(decoded[7].innermost?.field("cut") == .bool(true))
    #expect(decoded[8].frame.crc == .encrypted)
    #expect(
      decoded[8].innermost?.summary
        == "AUTH reader nonce nr + answer ar (encrypted); the capture has the tag's nonce nt cut "
        + "short")
    #expect(decoded[8].innermost?.field("nt_not_captured") == nil)
    #expect(decoded[9].innermost?.name == "AUTH (at)")
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.shortText) == ["connect ok", "authenticate ok", "transceive ok"])
    #expect(try b.diagnose().codes.isEmpty)
  }

  /// An unanswered AUTH sent again with its CRC_A stays plaintext: only 8 bytes without a
  /// valid CRC_A show that nt came.
  @Test func plaintextRetryAfterUnansweredAuthStaysPlain() throws {
    var b = TraceBuilder()
    b.activateSingle(Self.uid, sak: 0x08)
    b.reader([0x60, 0x04])
    b.reader([0x60, 0x04])
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[7].frame.crc == .ok)
    #expect(decoded[7].innermost?.summary == "AUTH key A block 4 (sector 1)")
  }

  /// AUTH key A block 0 answered by the plaintext nonce nt `01 20 01 45`.
  private static func nonceAnswered() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateSingle([0xDE, 0xAD, 0xBE, 0xEF], sak: 0x08)
    b.reader([0x60, 0x00])
    b.tag([0x01, 0x20, 0x01, 0x45], crc: false)
    return b
  }

  /// The gen1a wake-ups, their ACKs, and a plaintext READ of block 0.
  private static func magicRead(_ b: inout TraceBuilder) {
    b.add(.reader, [0x40], crc: false, bits: 7)
    b.add4Bit(0x0A)
    b.add(.reader, [0x43], crc: false)
    b.add4Bit(0x0A)
    b.reader([0x30, 0x00])
    b.tag([0xDE, 0xAD, 0xBE, 0xEF, 0x22, 0x08, 0x04, 0x00] + Array(0x62...0x69))
  }

  /// A plaintext HLTA instead of {nr}{ar}: the authentication never completed (only {at}
  /// completes it, MF1S50yyX §10.3), and the HLTA resets the Classic layer, so the gen1a `40`
  /// after it is a wake-up, not ciphertext.
  @Test func authenticationAbandonedAfterNonceIsNotOk() throws {
    var b = Self.nonceAnswered()
    b.reader([0x50, 0x00])
    Self.magicRead(&b)
    let (decoded, _) = decodeAll(b.frames)
    #expect(
      decoded[8...].map { $0.innermost?.summary ?? "-" } == [
        "HLTA", "magic WUPC1 (gen1a backdoor)", "ACK", "magic WUPC2 (gen1a backdoor)", "ACK",
        "READ block 0", "READ block 0 → deadbeef220804006263646566676869",
      ])
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.shortText) == ["connect ok", "authenticate unknown", "transceive ok"])
    #expect(
      ops[1].reason
        == "no {nr}{ar} and {at} after the tag's nonce nt (frame 7): the reader did not "
        + "complete the authentication, so whether its key is right is not known")
    #expect(ops[1].detail("classic_auth_abandoned") == .int(7))
  }

  /// A 7-bit short frame right after nt is never ciphertext (whole bytes), HLTA or not.
  @Test func shortFrameAfterNonceIsPlaintext() throws {
    var b = Self.nonceAnswered()
    Self.magicRead(&b)
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[8].innermost?.summary == "magic WUPC1 (gen1a backdoor)")
    #expect(decoded[12].frame.crc == .ok)
    #expect(decoded[12].innermost?.summary == "READ block 0")
  }

  /// {nr}{ar} cut to 7 bytes is still the reader's answer; the tag's 4 bytes are {at}.
  @Test func cutReaderAnswerIsNamed() throws {
    var b = Self.nonceAnswered()
    b.reader(Array(Self.nrar.prefix(7)), crc: false)
    b.tag([0x97, 0x3A, 0xEA, 0x8D], crc: false)
    b.reader([0x37, 0x17, 0x97, 0x06], crc: false)
    b.tag(Array(repeating: 0x07, count: 18), crc: false)
    let (decoded, _) = decodeAll(b.frames)
    #expect(
      decoded[8].innermost?.summary
        == "AUTH reader nonce nr + answer ar (encrypted), cut short: 7 of its 8 bytes captured")
    #expect(decoded[9].innermost?.name == "AUTH (at)")
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.shortText) == ["connect ok", "authenticate ok", "transceive ok"])
  }

  /// In a pcap (no bit counts) the tag's 4-bit answer is a plain byte: the 6-byte frame after
  /// it is still a value operation's operand, answered only on error (MF1S50yyX §12.6).
  @Test func encryptedValueOperandWithoutBitCounts() throws {
    var b = Self.auth(nonce: [0x1E, 0xD2, 0x4A, 0x6A])
    b.reader([0x2C, 0xE0, 0x37, 0x53], crc: false)
    b.add(.tag, [0x05], crc: false)
    b.reader([0xC9, 0xBD, 0xFA, 0x0F, 0xF0, 0x16], crc: false)
    b.reader([0x9D, 0xC9, 0x57, 0x56], crc: false)
    b.add(.tag, [0x0C], crc: false)
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[14].innermost?.field("value_operand") == .bool(true))
    #expect(decoded[14].expectsResponse == false)
    let ops = try #require(try sessions(b).first?.operations)
    #expect(ops.map(\.shortText) == ["connect ok", "authenticate ok", "transceive ok"])
    #expect(try b.diagnose().codes.isEmpty)
  }

  /// A gen1a clone written through the backdoor (no AUTH) with the expected message: the
  /// reader handled Classic itself, so no `mifare-classic-no-core-nfc`.
  @Test func backdoorWriteIsNoCoreNFCSession() throws {
    let message: [UInt8] = [
      0xD1, 0x01, 0x0C, 0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x63, 0x6F,
      0x6D,
    ]
    var b = TraceBuilder()
    b.activateSingle([0xDE, 0xAD, 0xBE, 0xEF], sak: 0x08)
    b.reader([0x50, 0x00])
    b.add(.reader, [0x40], crc: false, bits: 7)
    b.add4Bit(0x0A)
    b.add(.reader, [0x43], crc: false, bits: 7)
    b.add4Bit(0x0A)
    let block4 = [0x03, 0x10] + Array(message.prefix(14))
    let block5 = Array(message.suffix(2)) + [0xFE] + Array(repeating: 0, count: 13)
    for (block, data) in [(UInt8(4), block4), (5, block5)] {
      b.reader([0xA0, block])
      b.add4Bit(0x0A)
      b.reader(data)
      b.add4Bit(0x0A)
    }
    let r = try b.diagnose(expect: message)
    #expect(r.codes.isEmpty)
    #expect(r.sessions.first?.verdicts.map(\.verdict) == [.succeeded])
  }

  /// Crypto1 encrypts the parity bits: the evidence line of ciphertext marks no parity error.
  @Test func ciphertextEvidenceHasNoParityMark() {
    var b = Self.nonceAnswered()
    b.reader(Self.nrar, crc: false)
    b.parityError(at: 0)
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[8].frame.crc == .encrypted)
    #expect(
      DiagnosisRender.frameLine(8, decoded[8])
        == "#8     R→T  8f 7f 89 38 5e b0 94 23   AUTH reader nonce nr + answer ar (encrypted)")
  }

  /// An authenticated session (encrypted READ answered), then the frames of `uid`'s
  /// activation after a WUPA the capture missed: from its ATQA (`atqa`) or its SELECT on.
  private static func missedWUPA(atqa: Bool, select: [UInt8]? = nil) -> TraceBuilder {
    var b = Self.auth(nonce: [0x1E, 0xD2, 0x4A, 0x6A])
    let uid: [UInt8] = [0x55, 0x66, 0x77, 0x88]
    if atqa {
      b.tag([0x04, 0x00], crc: false)
      b.reader([0x93, 0x20], crc: false)
      b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    }
    b.reader(select ?? [0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x08])
    return b
  }

  /// Encrypted reader frames have 4, 6, 8 or 18 bytes (MF1S50yyX): a plaintext ANTICOLLISION
  /// ends Crypto1 and starts the activation whose WUPA the capture missed.
  @Test func plaintextAnticollisionEndsCrypto1() throws {
    let b = Self.missedWUPA(atqa: true)
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[12].frame.crc == .encrypted)
    #expect(decoded[13].innermost?.summary == "ANTICOLL CL1")
    #expect(decoded[13].startsActivation)
    #expect(decoded[13].findings.map(\.code) == ["poll-not-captured"])
    #expect(decoded[15].frame.crc == .ok)
    #expect(decoded[15].innermost?.summary == "SELECT CL1 55 66 77 88")
    #expect(decoded[16].innermost?.name == "SAK")
    let all = try sessions(b)
    #expect(
      all.map { $0.operations.map(\.shortText) } == [
        ["connect ok", "authenticate ok", "transceive ok"], ["connect ok"],
      ])
    #expect(all.last?.tag.uid == [0x55, 0x66, 0x77, 0x88])
  }

  /// A valid plaintext SELECT (NVB 70, BCC, CRC_A) alone ends Crypto1 too.
  @Test func plaintextSelectEndsCrypto1() {
    let (decoded, _) = decodeAll(Self.missedWUPA(atqa: false).frames)
    #expect(decoded[12].innermost?.summary == "SELECT CL1 55 66 77 88")
    #expect(decoded[12].startsActivation)
    #expect(decoded[13].frame.crc == .ok)
  }

  /// 9 bytes shaped like SELECT whose BCC does not fit stay ciphertext.
  @Test func selectShapeWithBadBCCStaysEncrypted() {
    let bad: [UInt8] = [0x93, 0x70, 0x55, 0x66, 0x77, 0x88, 0x00]
    let (decoded, _) = decodeAll(Self.missedWUPA(atqa: false, select: bad).frames)
    #expect(decoded[12].frame.crc == .encrypted)
    #expect(decoded[12].innermost?.name == "ciphertext")
    #expect(!decoded[12].startsActivation)
  }

  /// Plaintext READs of blocks 0 and 1 (a gen1a clone) are reported as read, not as "nothing
  /// read"; without them the report says nothing was read.
  @Test func classicReadsAreNamedInTheReport() throws {
    var b = TraceBuilder()
    b.activateSingle([0xDE, 0xAD, 0xBE, 0xEF], sak: 0x08)
    let bare = try #require(try sessions(b).first)
    #expect(ReportText.memory(TagReport(session: bare)) == "\nMemory: nothing read\n")
    for block in [UInt8(1), 0, 1] {
      b.reader([0x30, block])
      b.tag(Array(repeating: block, count: 16))
    }
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.classicReads == [1, 0, 1])
    #expect(
      ReportText.memory(TagReport(session: s))
        == "\nMemory: MIFARE Classic blocks 0, 1 read, not shown: MIFARE Classic memory is not "
        + "decoded\n")
  }
}
