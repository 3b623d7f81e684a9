import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the expert review and the new user's walk of 2026-12-05 (late night).
@Suite struct Pass37RegressionTests {
  /// Lock bits set while the CC keeps write access 0h: queryNDEFStatus says .readWrite, the
  /// tag refuses the writes (it was "SUCCEEDED — no problem found").
  @Test func lockBitsWithoutReadOnlyCC() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0] + [0xE1, 0x10, 0x12, 0])
    b.write(2, [0, 0, 0xFF, 0xFF])
    b.write(40, [0xFF, 0x0F, 0, 0])
    let f = try #require(try b.diagnose().finding("t2t-lock-cc-writable"))
    #expect(f.cause == "lock bits set on pages 4–39 while the CC's write access is still 0h")
    #expect(f.severity == .warning)
    #expect(f.coreNFCError == nil)
    #expect(f.message.hasSuffix("the tag stays in this state for good."))
    #expect(f.frames.count == 2)
    // LOCK0 without the CC's own bit (F7h): the CC can still be set read-only.
    var open = TraceBuilder()
    open.activateType2()
    open.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0] + [0xE1, 0x10, 0x12, 0])
    open.write(2, [0, 0, 0xF7, 0xFF])
    let g = try #require(try open.diagnose().finding("t2t-lock-cc-writable"))
    #expect(g.cause == "lock bits set on pages 4–15 while the CC's write access is still 0h")
    #expect(g.fix.hasPrefix("Write the CC's byte 3 as 0Fh"))
    // The CC set read-only first, as Android and nfcpy do: nothing to say.
    var android = TraceBuilder()
    android.activateType2()
    android.read(
      0,
      [0x04, 0x11, 0x22, 0xBF, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0] + [0xE1, 0x10, 0x12, 0])
    android.write(3, [0xE1, 0x10, 0x12, 0x0F])
    android.write(2, [0, 0, 0xFF, 0xFF])
    #expect(try android.diagnose().finding("t2t-lock-cc-writable") == nil)
  }
}

/// A stream read past its limit throws `TooLarge`, whose text names the limit.
@Test func boundedReadStopsAnEndlessStream() throws {
  let zero = try #require(FileHandle(forReadingAtPath: "/dev/zero"))
  let error = #expect(throws: BoundedRead.TooLarge.self) {
    try BoundedRead.readToEnd(zero, limit: 4 << 20)
  }
  #expect(error?.description == "more than 4 MiB")
  #expect(error?.limit == 4 << 20)
  let empty = try #require(FileHandle(forReadingAtPath: "/dev/null"))
  #expect(try BoundedRead.readToEnd(empty, limit: 10).isEmpty)
}

/// NXP's factory default password FF FF FF FF is public: shown, labelled, in text and JSON
/// (it was "present (masked)", suggesting a password had been set). Others stay masked.
@Test func factoryDefaultPasswordIsNotMasked() {
  #expect(
    ReportText.secret([0xFF, 0xFF, 0xFF, 0xFF], false, source: .dump)
      == "ff ff ff ff (NXP's factory default password, not a secret)")
  #expect(ReportText.secret([0xFF, 0xFF, 0xFF, 0xFE], false, source: .dump) == "present (masked)")
  #expect(ReportText.secret([0xFF, 0xFF], false, source: .dump) == "present (masked)")
  let out = OutputBuffer(fd: nil)
  ReportJSON.secret([0xFF, 0xFF, 0xFF, 0xFF], false, sent: true, to: out)
  #expect(out.text == "\"ffffffff\"")
}

/// An R(NAK) from the tag is flagged: only the reader sends R(NAK) (it was decoded without a
/// word).
@Test func tagRNAKIsFlagged() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
  b.tag([0xB2])
  let frames = decodeAll(b.frames).0
  let last = try #require(frames.last)
  #expect(last.findings.map(\.code) == ["tag-sent-rnak"])
  // The reader's R(NAK) is ordinary.
  var c = TraceBuilder()
  c.activateType4()
  c.reader([0xB2])
  #expect(try #require(decodeAll(c.frames).0.last).findings.isEmpty)
}

/// A tag's S(WTX) request shows its power level indication (INF bits 8–7) in the summary.
@Test func wtxPowerLevelIsShown() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.reader([0x02, 0x00, 0xB0, 0x00, 0x00, 0x02])
  b.tag([0xF2, 0xC1])
  let last = try #require(decodeAll(b.frames).0.last)
  let wtx = try #require(last.layers.first { $0.name == "S(WTX)" })
  #expect(
    wtx.summary
      == "S(WTX) request WTXM 1, power level 3 (more than sufficient power for full functionality)")
}

/// SELECT by P1 01h names a child DF, 3F00h the MF; PIV's truncated AID is named
/// (test_NFC-A_424kbps_002 #2, #8).
@Test func selectChildDFAndPIV() throws {
  let child = try CommandAPDU(parsing: [0x00, 0xA4, 0x01, 0x00, 0x02, 0x3F, 0x00])
  #expect(APDUDescription.command(child).summary == "SELECT child DF 3f00 (MF)")
  let ef = try CommandAPDU(parsing: [0x00, 0xA4, 0x02, 0x0C, 0x02, 0xE1, 0x04])
  #expect(APDUDescription.command(ef).summary == "SELECT EF e104")
  #expect(KnownAID.name([0xA0, 0, 0, 0x03, 0x08, 0, 0, 0x10, 0]) == "PIV")
  #expect(KnownAID.name([0xA0, 0, 0, 0x03, 0x08, 0, 0, 0x10, 0, 0x01, 0]) == "PIV")
}

/// Well-known FeliCa system codes are named (test_NFC-F_212kbps_001 #6: 88B4h).
@Test func feliCaSystemCodesAreNamed() {
  #expect(FeliCaMessage.systemName(0x88B4) == "FeliCa Lite / Lite-S")
  #expect(FeliCaMessage.systemName(0x12FC) == "NDEF, Type 3 Tag")
  #expect(FeliCaMessage.systemName(0x1234) == nil)
}

/// A session with no anticollision takes its UID from pages 0–1 read with both check bytes
/// right (flipper-emulation-ntag215: "UID unknown" beside READ page 0 → 04 5a 6b bd …).
@Test func uidFromPagesZeroAndOne() throws {
  var good = ByteImage()
  good.record(
    [0x04, 0x5A, 0x6B, 0xBD, 0x7C, 0x8D, 0x9E, 0xAF, 0xC0], at: 0, state: .read, frame: 1)
  var found = TagIdentity()
  found.takeUID(fromType2: good)
  #expect(found.uid == [0x04, 0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF])
  #expect(found.technology == .nfcA)
  var memory = ByteImage()
  memory.record(
    [0x04, 0x5A, 0x6B, 0xBC, 0x7C, 0x8D, 0x9E, 0xAF, 0xC0], at: 0, state: .read, frame: 1)
  var tag = TagIdentity()
  tag.takeUID(fromType2: memory)
  #expect(tag.uid.isEmpty)  // BCC0 wrong: not a UID
}
