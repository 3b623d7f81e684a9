import TestSupport
import Testing

@testable import NFCTrace

// An app's own page loop past the CC's data area (NTAG213: pages 4–39) into the dynamic lock
// page (40), CFG0 (41), CFG1 (42) and PWD (43) (field-engineer pass, s25).

@Suite struct Type2DataAreaOverflowTests {
  @Test func pageLoopIntoLockAndConfigurationPagesIsAnError() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    for page in 4...43 { b.write(page, [0x71, 0x71, 0x71, 0x71]) }
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-write-past-data-area"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == nil)
    #expect(
      f.cause
        == "the app's page writes ran past the user memory (pages 4–39) into pages 40–43")
    #expect(f.frames.count == 4)
    // The end is the NTAG213's last user page (GET_VERSION), not the CC's word.
    #expect(
      f.message.hasPrefix(
        "Consecutive WRITEs from the user memory continued past its end (page 39, the last user "
          + "page of the NTAG213)"))
    #expect(
      f.message.contains(
        "page 40 ← 71 71 71 71 (dynamic lock bytes: 12 bits set for good; they are one-time programmable)"
      ))
    #expect(
      f.message.contains("page 41 ← 71 71 71 71 (CFG0: AUTH0 0x71, no page needs the password)"))
    #expect(
      f.message.contains(
        "(CFG1: ACCESS 0x71, CFGLCK: the configuration is now locked for good, AUTHLIM 1)"))
    #expect(f.message.contains("page 43 ← 71 71 71 71 (PWD: the password is now these bytes)"))
    // Attached to the operation whose run started in the data area.
    let op = try #require(f.operation)
    #expect(
      r.sessions[0].verdicts.first { $0.operation == op }?.verdict == .succeededWithBadContent)
  }

  /// A deliberate lock writes the lock pages alone, not as a run from the data area; a write
  /// that stays inside the area is fine.
  @Test func lockPagesWrittenAloneOrWritesInsideTheAreaAreNoOverflow() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    for page in 4...39 { b.write(page, [0x00, 0x00, 0x00, 0x00]) }
    b.write(3, [0xE1, 0x10, 0x12, 0x0F])
    b.write(40, [0xFF, 0xFF, 0xFF, 0x00])
    #expect(try b.diagnose().finding("t2t-write-past-data-area") == nil)
  }

  /// Review: NTAG215's user pages past the CC's data area (128–129) are user memory, and one
  /// write of the dynamic lock page right after a full write may be a deliberate lock.
  @Test func userPagesPastTheCCAreaAndALoneLockWriteAreNoOverflow() throws {
    var b = TraceBuilder()
    b.activateType2(version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
    b.read(3, page3(cc: [0xE1, 0x10, 0x3E, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    for page in 4...129 { b.write(page, [0, 0, 0, 0]) }
    #expect(try b.diagnose().finding("t2t-write-past-data-area") == nil)
    var lock = TraceBuilder()
    lock.activateType2(version: ntag213Version)
    lock.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    for page in 4...39 { lock.write(page, [0x61, 0x61, 0x61, 0x61]) }
    lock.write(40, [0xFF, 0xFF, 0xFF, 0x00])
    #expect(try lock.diagnose().finding("t2t-write-past-data-area") == nil)
  }

  /// A 138-byte message on NTAG213 (capacity 137): the page loop's last page is the dynamic
  /// lock page, one page past the area, and the message's own length runs into it. It is the
  /// write's tail, not a deliberate lock: one writeNDEF, flagged, with or without GET_VERSION
  /// (field engineer pass, t2-23).
  @Test(arguments: [nil, ntag213Version])
  func messageRunningIntoTheLockPageIsFlagged(_ version: [UInt8]?) throws {
    var b = TraceBuilder()
    b.activateType2(version: version)
    // NTAG213's factory Lock Control TLV, then the NDEF TLV: 5 + 2 + 138 bytes > 144.
    let lockControl: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34]
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: lockControl + [0x03, 0x00, 0xFE]))
    b.write(4, Array(lockControl.prefix(4)))
    b.write(5, [0x34, 0x03, 0x8A, 0xD1])
    for page in 6...39 { b.write(page, [0x61, 0x61, 0x61, 0x61]) }
    b.write(40, [0x79, 0xFE, 0x00, 0x00])
    let ops = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first
    ).operations.map(\.kind)
    #expect(ops == [.connect, .queryNDEFStatus, .writeNDEF])
    let r = try b.diagnose()
    let f = try #require(r.finding("t2t-write-past-data-area"))
    #expect(f.frames == [b.frames.count - 2])
    #expect(f.message.contains("page 40 ← 79 fe 00 00 (dynamic lock bytes: 12 bits set for good"))
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.succeededWithBadContent])
  }
}

/// MIFARE Ultralight C (no GET_VERSION, 3DES AUTHENTICATE answered `AF` + 8 bytes): named,
/// its READ rolls over after page 2Bh (the key pages are unreadable), its AUTH0 is page 2Ah
/// byte 0, and a WRITE refused after a failed authentication says so (field engineer pass 2
/// t2-10/t2-11; spec audit: pages 44–45 showed the UID).
@Suite struct UltralightCTests {
  @Test func identifiedWithRolloverAndAuth0() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x60])
    b.add4Bit(0x00)
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + Array(repeating: 0x11, count: 8))
    b.reader([0xAF] + Array(repeating: 0x22, count: 16))
    b.add4Bit(0x00)
    b.activateType2()
    b.read(3, page3(cc: [0xE1, 0x10, 0x12, 0x00], then: [0x03, 0x00, 0xFE, 0x00]))
    // READ 2Ah: pages 2Ah, 2Bh, then 00h, 01h (the UID).
    b.read(0x2A, [0x10, 0, 0, 0, 0x00, 0, 0, 0, 0x04, 0x11, 0x22, 0xBB, 0x33, 0x44, 0x55, 0x66])
    b.write(0x20, [1, 2, 3, 4], .nak(0))
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.tag.product == "MIFARE Ultralight C")
    #expect(s.memory.type2End.known(0, 4) == [0x04, 0x11, 0x22, 0xBB])
    #expect(s.memory.type2End.known(0x2C * 4, 4) == nil)
    let f = try #require(try b.diagnose().finding("t2t-nak-password"))
    #expect(
      f.cause.hasPrefix("the page is protected by the 3DES key and the authentication failed"))
  }

  /// Page 28h bytes 0–1 (LOCK2, LOCK3) are one-time programmable: a WRITE ORs its bits into
  /// what the tag held, as NTAG's dynamic lock page (MF0ICU2 datasheet §7.5.2).
  @Test func lockPageBitsAreOred() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + Array(repeating: 0x11, count: 8))
    b.reader([0xAF] + Array(repeating: 0x22, count: 16))
    b.add4Bit(0x00)
    b.activateType2()
    b.read(0x28, [0x01, 0x00, 0, 0] + Array(repeating: 0, count: 12))
    b.write(0x28, [0x02, 0x80, 0, 0], .ack)
    let s = try #require(
      try SessionAnalysisRun(importer: MemoryImporter(frames: b.frames)).sessions.first)
    #expect(s.memory.type2End.known(0x28 * 4, 4) == [0x03, 0x80, 0x00, 0x00])
  }
}
