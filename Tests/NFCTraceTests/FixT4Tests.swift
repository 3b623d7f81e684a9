import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Type 4 fixes: writeNDEF after a re-activation without SELECT (6986), a wrong ST25TA write
/// password (VERIFY 63Cx, then 6982), READ BINARY B1 answered 6282, UPDATE BINARY D7 counted as
/// a write at its data object 54 offset, and the fixes for 6Cxx and 6700 to a READ BINARY.
@Suite struct FixT4Tests {
  private let ok: [UInt8] = [0x90, 0x00]

  /// Reads a message of `length` bytes: SELECT application, CC (mapping 3.0 with ENLEN when
  /// `enlen`, MLe/MLc FFh/`mlc`, file size `size`, write access `write`), SELECT E104.
  private func query(
    enlen: Bool = false, size: Int = 0x30, write: UInt8 = 0x00, mlc: UInt8 = 0x40
  ) -> TraceBuilder {
    var t = TraceBuilder()
    t.activateType4()
    t.selectType4CC()
    let cc: [UInt8] =
      enlen
      ? [0x00, 0x11, 0x30, 0x00, 0xFF, 0x00, mlc, 0x06, 0x08, 0xE1, 0x04]
        + [0x00, 0x00, UInt8(size >> 8), UInt8(size & 0xFF), 0x00, write]
      : [0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, mlc, 0x04, 0x06, 0xE1, 0x04]
        + [UInt8(size >> 8), UInt8(size & 0xFF), 0x00, write]
    t.apdu([0x00, 0xB0, 0x00, 0x00, UInt8(cc.count)], cc + ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    return t
  }

  /// `uri` "https://example.com": the 16-byte message.
  private let message: [UInt8] = [
    0xD1, 0x01, 0x0C, 0x55, 0x04, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x63, 0x6F,
    0x6D,
  ]

  // MARK: 1. writeNDEF after a re-activation, no SELECT (6986)

  /// The simulator's `reactivate-before-write`: Android's writeNDEF re-activates the tag and
  /// writes NLEN 0 with no SELECT; the tag answers 6986. Ground truth: writeNDEF failed, 401.
  /// The analyzer names the operation writeNDEF (401), not a transceive, and its fix does not
  /// tell the app to use writeNDEF.
  @Test func writeAfterReactivationIsWriteNDEF() throws {
    let json = """
      {"name": "t4-reactivate", "seed": 5,
       "tag": {"type": "type4", "uid": "04c3d4e5f60719",
               "ndef": "d1010c55046578616d706c652e636f6d", "mlc": 15},
       "reader": "android",
       "actions": [{"op": "connect"}, {"op": "queryNDEFStatus"}, {"op": "readNDEF"},
         {"op": "writeNDEF", "ndef": "d101185402656e48656c6c6f2066726f6d20416e64726f6964212121"},
         {"op": "disconnect"}],
       "faults": [{"kind": "reactivate-before-write"}]}
      """
    let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    let (result, report) = try diagnoseSimulated(scenario)
    #expect(result.truth.expectedError?.code == 401)
    let session = try #require(report.sessions.last)
    #expect(session.analysis.operations.map(\.kind) == [.connect, .writeNDEF])
    #expect(session.analysis.operations.last?.outcome == .failed)
    let f = try #require(report.finding("t4t-file-not-found"))
    #expect(f.coreNFCError?.code == 401)
    #expect(f.frames == [41, 42])
    #expect(
      f.cause
        == "writeNDEF wrote after the tag was activated again, with no SELECT (SW 6986 to UPDATE file (none selected) offset 0 Lc 2)"
    )
    #expect(f.fix.hasPrefix("Hold the tag still until writeNDEF's completion handler is called"))
    #expect(!f.fix.contains("NFCNDEFTag.readNDEF/writeNDEF, which do"))
  }

  /// Without an earlier session that served the NDEF application, the same UPDATE after an
  /// activation is the app's own command: a transceive, no Core NFC error.
  @Test func unselectedUpdateWithoutEarlierQueryStaysTransceive() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x86])
    let report = try t.diagnose()
    #expect(report.sessions.last?.analysis.operations.map(\.kind) == [.connect, .transceive])
    let f = try #require(report.finding("t4t-file-not-found"))
    #expect(f.coreNFCError == nil)
    #expect(f.cause.hasPrefix("no file was selected since the tag was activated again"))
  }

  // MARK: 2. Wrong ST25TA write password

  /// ST25TA-style NDEF file with write access 80h: VERIFY of the write password (P2 02)
  /// answered 63C2, then UPDATE answered 6982: the password was wrong (2 tries left), the
  /// APDUs were the app's own (no Core NFC error), and the fix asks for the right password.
  @Test func wrongWritePasswordBeforeRefusedUpdate() throws {
    var t = query(size: 0x00FF, write: 0x80)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + ok)
    t.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x11, count: 16), [0x63, 0xC2])
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x12, 0x00, 0x10] + message, [0x69, 0x82])
    let report = try t.diagnose()
    #expect(report.codes == ["t4t-write-password-wrong", "apdu-refused"])
    let f = try #require(report.finding("t4t-write-password-wrong"))
    #expect(f.severity == .error)
    #expect(f.coreNFCError == nil)
    #expect(f.frames == [20, 21])
    #expect(
      f.cause
        == "the write password sent with VERIFY at #18 was refused (SW 63C2): wrong write "
        + "password, 2 tries left (SW 6982 to UPDATE NLEN and NDEF data NLEN 16 Lc 18)")
    #expect(f.message.contains("the VERIFY at #18 (VERIFY P1 00 P2 02 Lc 16) was answered 63C2"))
    #expect(
      f.fix
        == "Send VERIFY with the tag's right write password (ST25TA: 00 20 00 02 10 + the "
        + "16-byte password) and go on to UPDATE BINARY only after it answers 9000; do not retry "
        + "with the same password. Only 2 tries are left before the tag blocks the password for "
        + "good (6983).")
  }

  /// A VERIFY the tag accepted after the wrong one: the 6982 is not a wrong password's.
  @Test func acceptedVerifyAfterWrongOneIsNotWrongPassword() throws {
    var t = query(size: 0x00FF, write: 0x80)
    t.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x11, count: 16), [0x63, 0xC2])
    t.apdu([0x00, 0x20, 0x00, 0x02, 0x10] + Array(repeating: 0x22, count: 16), ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x12, 0x00, 0x10] + message, [0x69, 0x82])
    let report = try t.diagnose()
    #expect(report.finding("t4t-write-password-wrong") == nil)
    #expect(report.finding("t4t-security-not-satisfied") != nil)
  }

  // MARK: 3. READ BINARY B1 answered 6282

  /// B1 (offset in data object 54) answered 6282 with the file's last bytes: a warning that the
  /// file ended before Ne bytes (ISO/IEC 7816-4 §5.6), no refusal, as for B0.
  @Test func oddReadBinaryShortReadIsNoRefusal() throws {
    var t = query(enlen: true, size: 0x14)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x10] + ok)
    t.apdu(
      [0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x00, 0x04, 0x1C],
      [0x53, 0x10] + message + [0x62, 0x82])
    let report = try t.diagnose()
    #expect(report.codes == [])
    #expect(report.sessions.last?.analysis.operations.last?.kind == .readNDEF)
    #expect(report.sessions.last?.analysis.operations.last?.outcome == .ok)
  }

  // MARK: 5. UPDATE BINARY D7 counted as a write at its DO 54 offset

  /// D7 whose data runs past the file (6A84): `t4t-write-past-file` as for D6, no Core NFC
  /// error, the end computed from the data object 54 offset (12) and the 53 value (40 bytes).
  @Test func oddUpdatePastFileIsWritePastFile() throws {
    var t = query(enlen: true, size: 0x30)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x00] + ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00], ok)
    let data = Array(UInt8(0)..<40)
    t.apdu(
      [0x00, 0xD7, 0x00, 0x00, 0x2F, 0x54, 0x03, 0x00, 0x00, 0x0C, 0x53, 0x28] + data,
      [0x6A, 0x84])
    let report = try t.diagnose()
    let f = try #require(report.finding("t4t-write-past-file"))
    #expect(f.coreNFCError == nil)
    #expect(f.frames == [20, 21])
    #expect(
      f.message.contains("the write ends at byte 52, and the CC gives the NDEF file 48 bytes"))
  }

  /// D7 at an offset past the file answered 6B00: the message names data object 54, not P1 P2,
  /// as where the offset is.
  @Test func oddUpdateOffsetPastFileNamesDataObject() throws {
    var t = query(enlen: true, size: 0x30)
    t.apdu(
      [0x00, 0xD7, 0x00, 0x00, 0x0B, 0x54, 0x03, 0x00, 0x00, 0x40, 0x53, 0x04, 1, 2, 3, 4],
      [0x6B, 0x00])
    let report = try t.diagnose()
    let f = try #require(report.finding("t4t-write-past-file"))
    #expect(f.coreNFCError == nil)
    #expect(
      f.message.hasPrefix(
        "The tag answered 6B00 (wrong parameters: D7's offset, in data object 54 (P1 P2 are "
          + "0000), lies past the file) to UPDATE NDEF data offset 64 Lc 4 (D7, offset DO): the "
          + "write ends at byte 68"))
  }

  /// The tag lost on the second D7 chunk: the first D7, acknowledged, is in the evidence and in
  /// the bytes the message says the tag holds.
  @Test func interruptedOddUpdateKeepsAcknowledgedChunks() throws {
    var t = query(enlen: true, size: 0x1000)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x10] + ok)
    t.apdu([0x00, 0xD6, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00], ok)
    let chunk = Array(repeating: UInt8(0x78), count: 40)
    t.apdu([0x00, 0xD7, 0x00, 0x00, 0x2F, 0x54, 0x03, 0x00, 0x00, 0x04, 0x53, 0x28] + chunk, ok)
    t.apdu([0x00, 0xD7, 0x00, 0x00, 0x2F, 0x54, 0x03, 0x00, 0x00, 0x2C, 0x53, 0x28] + chunk, nil)
    let report = try t.diagnose()
    let f = try #require(report.finding("write-interrupted"))
    #expect(f.coreNFCError?.code == 100)
    #expect(f.frames == [18, 19, 20, 21, 22])
    #expect(f.message.contains("The tag acknowledged 4 bytes at offset 0, 40 bytes at offset 4"))
  }

  // MARK: 6. Fix texts for 6Cxx and 6700 to READ BINARY

  /// 6C10 to a READ BINARY the reader did not repeat: Le was wrong, 10h is the length to use.
  @Test func wrongLeWithoutRetryNamesTheLength() throws {
    var t = query(size: 0x30)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x10] + ok)
    t.apdu([0x00, 0xB0, 0x00, 0x02, 0x20], [0x6C, 0x10])
    let report = try t.diagnose()
    let f = try #require(report.finding("t4t-error-status"))
    #expect(f.coreNFCError?.code == 102)
    #expect(
      f.cause
        == "the Le was wrong: the tag gives 16 bytes as the length to ask for (SW 6C10 to READ "
        + "NDEF data offset 2 Le 32)")
    #expect(
      f.fix
        == "Send the same command again with Le = 10h (16 bytes), as 6Cxx asks; with "
        + "sendCommand(apdu:), set expectedResponseLength to 16 and repeat the APDU.")
  }

  /// 6700 to a READ BINARY within MLe: a read-side fix (a smaller Le), not writeNDEF.
  @Test func wrongLengthToReadGivesReadFix() throws {
    var t = query(size: 0x30)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x10] + ok)
    t.apdu([0x00, 0xB0, 0x00, 0x02, 0x10], [0x67, 0x00])
    let report = try t.diagnose()
    let f = try #require(report.finding("t4t-wrong-length"))
    #expect(f.coreNFCError?.code == 102)
    #expect(
      f.cause
        == "the tag refused the READ BINARY's length (Le 16) (SW 6700 to READ NDEF data offset 2 Le 16)"
    )
    #expect(!f.fix.contains("writeNDEF"))
    #expect(f.fix.hasPrefix("Read again with a smaller Le"))
  }

  /// 6700 to an UPDATE in the extended length form (Lc 00 00 06) on a mapping 2.0 tag: the
  /// form was refused, not the length (review s21: "check Lc/Le against MLc/MLe" for Lc 6).
  @Test func extendedUpdateRefusedNamesTheLengthForm() throws {
    var t = query(size: 0x30)
    t.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, 0x00] + ok)
    t.apdu(
      [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x04, 0xD1, 0x01, 0x00, 0x55], [0x67, 0x00])
    let f = try #require(try t.diagnose().finding("t4t-wrong-length"))
    #expect(f.cause.hasPrefix("the tag refused the extended length form of the APDU"))
    #expect(f.fix.hasPrefix("Send short APDUs"))
  }

  /// Without a CC read, a 6700 to an extended APDU says nothing of the form (late review).
  @Test func extendedUpdateWithoutCCIsTheGenericLengthError() throws {
    var t = TraceBuilder()
    t.activateType4()
    t.apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok)
    t.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok)
    t.apdu(
      [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x04, 0xD1, 0x01, 0x00, 0x55], [0x67, 0x00])
    let f = try #require(try t.diagnose().finding("t4t-wrong-length"))
    #expect(f.cause.hasPrefix("the tag rejected the APDU's length"))
  }
}
