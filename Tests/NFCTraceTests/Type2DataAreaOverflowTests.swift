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
        == "the app's page writes ran past the NDEF data area (pages 4–39) into pages 40–43")
    #expect(f.frames.count == 4)
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
