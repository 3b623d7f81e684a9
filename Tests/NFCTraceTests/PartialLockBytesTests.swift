import Testing

@testable import NFCTrace

/// Lock bits are one-time programmable (NXP NTAG213/215/216 datasheet §8.5.2–8.5.3): a bit an
/// acknowledged WRITE set is certain even when the lock page was never read, and only the byte
/// that holds a page's bit need be known (protocol review: a writeLock WRITE of LOCK2 = FF
/// over an unread page left "dynamic lock bits not known", pages 16–31 not listed).
@Suite struct PartialLockBytesTests {
  /// An NTAG213 session: CC read, then WRITE page 40 ← `lock` acknowledged, the page unread.
  static func lockWrite(_ lock: [UInt8], page2: Bool = true) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    if page2 {
      b.read(
        0,
        [0x04, 0x11, 0x22, 0xB9, 0x33, 0x44, 0x55, 0x66, 0x44, 0x48, 0, 0] + [
          0xE1, 0x10, 0x12, 0x00,
        ])
    }
    b.read(
      3,
      page3(
        cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9)))
    b.write(40, lock)
    return b
  }

  @Test func lock2SetOverAnUnreadPageLocksItsPages() throws {
    let s = try #require(try sessions(Self.lockWrite([0xFF, 0x00, 0x00, 0x00])).first)
    let locks = try #require(TagReport(session: s).end.locks)
    let d = try #require(locks.dynamic)
    #expect(d.page == 40)
    #expect(d.unknownBytes == [1, 2])
    #expect(
      d.lockedRanges == [16...17, 18...19, 20...21, 22...23, 24...25, 26...27, 28...29, 30...31])
    #expect(locks.lockedPages == Array(16...31))
    #expect(locks.dynamicUnknown)
    let text = ReportText.locks(TagReport(session: s).end)
    #expect(
      text.contains(
        "page 40: LOCK2 ff LOCK3 ?? LOCK4 ?? (2 pages per bit): pages 16–31 locked\n"))
    #expect(text.contains("read-only pages 16–31 (some dynamic lock bits not known)\n"))
  }

  /// The CC still says write access 0: later writeNDEFs reaching pages 16–31 fail.
  @Test func lockedPagesWithAWritableCCAreDiagnosed() throws {
    let frames = Self.lockWrite([0xFF, 0x00, 0x00, 0x00]).frames
    let report = try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    let f = try #require(report.findings.first { $0.code == "t2t-lock-cc-writable" })
    #expect(
      f.message.hasPrefix("The tag acknowledged the lock bits of pages 16–31 of the data area"))
  }

  /// Both LOCK2 and LOCK3 written 00 over an unread page: nothing is known, as before.
  @Test func zerosOverAnUnreadPageStayUnknown() throws {
    let s = try #require(try sessions(Self.lockWrite([0x00, 0x00, 0x00, 0x00])).first)
    let locks = try #require(TagReport(session: s).end.locks)
    #expect(locks.dynamic == nil)
    #expect(locks.dynamicUnknown)
  }
  /// A lock byte written non-zero over a value never read: its set bits are certain, its
  /// clear bits are not (review: LOCK2 0F over an unread page made pages 24–31 "not locked").
  @Test func clearBitsOfALockByteWrittenOverAnUnreadOneAreUnknown() throws {
    let s = try #require(try sessions(Self.lockWrite([0x0F, 0x00, 0x00, 0x00])).first)
    let g = Type2Geometry(s)
    #expect(g.pageLocked(16) == true)
    #expect(g.pageLocked(23) == true)
    #expect(g.pageLocked(24) == nil)
    #expect(g.pageLocked(32) == nil)
  }

  /// The report says so too: LOCK2 0F is known by its set bits only (it showed `0f` as if
  /// read, and "read-only pages 16–23" with no caveat).
  @Test func reportMarksALockByteKnownBySetBitsOnly() throws {
    let s = try #require(try sessions(Self.lockWrite([0x0F, 0x00, 0x00, 0x00])).first)
    let end = TagReport(session: s).end
    let locks = try #require(end.locks)
    #expect(locks.setBitsOnly == ["LOCK2"])
    #expect(locks.lockedPages == Array(16...23))
    let text = ReportText.locks(end)
    #expect(
      text.contains(
        "page 40: LOCK2 0f (set bits only) LOCK3 ?? LOCK4 ?? (2 pages per bit): pages 16–23 locked\n"
      ))
    #expect(text.contains("read-only pages 16–23 (some dynamic lock bits not known)\n"))
    #expect(
      end.unknowns.contains(
        "lock byte LOCK2 (page 40) written 0f over a value never read: only the bits it set are "
          + "known, so more pages may be locked than listed"))
    let out = OutputBuffer(fd: nil)
    ReportJSON.locks(locks, to: out)
    #expect(out.text.hasSuffix(",\"set_bits_only\":[\"LOCK2\"]}"))
  }

  /// A lock byte read after the WRITE is known whole.
  @Test func aLockByteReadBackIsKnownWhole() throws {
    var b = Self.lockWrite([0x0F, 0x00, 0x00, 0x00])
    b.read(40, [0x0F, 0x00, 0x00, 0x00] + Array(repeating: 0, count: 12))
    let s = try #require(try sessions(b).first)
    let locks = try #require(TagReport(session: s).end.locks)
    #expect(locks.setBitsOnly.isEmpty)
    #expect(!locks.dynamicUnknown)
    // The diagnosis reads it whole too: LOCK2 bit 4 (pages 24–25) is clear, not unknown.
    #expect(Type2Geometry(s).pageLocked(24) == false)
  }

  /// The session's own lock-page WRITE is the cause of a later NAK, named as such (it said
  /// "page 40, read from the tag" for a page never read).
  @Test func nakAfterTheSessionsOwnDynamicLockNamesTheWrite() throws {
    var b = Self.lockWrite([0xFF, 0x00, 0x00, 0x00])
    b.write(16, [0x11, 0x22, 0x33, 0x44], .nak(0x00))
    let report = try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(
      expected: nil)
    let f = try #require(report.findings.first { $0.code == "t2t-nak-locked-page" })
    #expect(f.cause.hasPrefix("the page was locked by this session's own lock bits"))
    #expect(f.message.hasPrefix("The dynamic lock page 40 (0x28), written in this session"))
  }

  /// LOCK1 set by a WRITE of an unread page 2 and LOCK0 written 00: whether the CC page is
  /// locked is not known, and not said to be unlocked.
  @Test func ccLockUnknownIsNotCalledUnlocked() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(
      3,
      page3(
        cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9)))
    b.write(2, [0x00, 0x00, 0x00, 0x01])
    let report = try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(
      expected: nil)
    let f = try #require(report.findings.first { $0.code == "t2t-lock-cc-writable" })
    #expect(f.cause == "lock bits set on page 8 while the CC's write access is still 0h")
    #expect(f.message.contains("Whether the CC page is locked is not known (LOCK0 was not read)"))
    #expect(!f.message.contains("The CC page is not locked"))
    let s = try #require(try sessions(b).first)
    #expect(
      TagReport(session: s).end.unknowns.contains(
        "lock byte LOCK0 (page 2) not known (written 00 over a value never read: its bits may be "
          + "set)"))
  }
}
