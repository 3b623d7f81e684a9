import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the seventeenth session's field-failure pass on Type 4 tags.
@Suite struct Pass21Type4Tests {
  /// An UPDATE of the CC that does not touch its write access byte (an NLEN write sent while
  /// the CC was still selected) is the app's own command, not a writeLock; the tag's 6982 is
  /// explained as a write to the wrong file, with no Core NFC error (sendCommand(apdu:)).
  @Test func ccUpdateOutsideWriteAccessIsNoLock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu(
      [0x00, 0xB0, 0x00, 0x00, 0x0F],
      [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0xFF, 0x00, 0x00]
        + [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause == "the app's UPDATE BINARY went to the CC file (SW 6982 to UPDATE CC offset 0 Lc 2)")
    #expect(f.coreNFCError == nil)
  }

  /// An UPDATE of the CC's write access byte (offset 14) stays a writeLock.
  @Test func ccWriteAccessUpdateIsWriteLock() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4()
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00])
    b.apdu([0x00, 0xD6, 0x00, 0x0E, 0x01, 0xFF], [0x69, 0x82])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.last?.kind == .writeLock)
    let f = try #require(try b.diagnose().finding("t4t-security-not-satisfied"))
    #expect(
      f.cause == "the tag refused an update of its CC file (SW 6982 to UPDATE CC offset 14 Lc 1)")
  }

  /// After a new activation nothing is selected: an UPDATE BINARY at offset 0 before any
  /// SELECT is not taken for NLEN of the NDEF file (that assumption is for captures that
  /// start mid-session), and its 6A82 is explained by the lost selection.
  @Test func updateAfterReactivationWithoutSelectNamesNoFile() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 0x10)
    b.activateType4()
    b.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x6A, 0x82])
    let (frames, _) = decodeAll(b.frames)
    let update = try #require(frames.last { $0.frame.direction == .reader })
    #expect(update.innermost?.summary == "UPDATE file (none selected) offset 0 Lc 2")
    #expect(!update.findings.contains { $0.code == "t4t-file-assumed" })
    let f = try #require(try b.diagnose().finding("t4t-file-not-found"))
    #expect(
      f.cause
        == "no file was selected since the tag was activated again (SW 6A82 to UPDATE file "
        + "(none selected) offset 0 Lc 2)")
  }
}
