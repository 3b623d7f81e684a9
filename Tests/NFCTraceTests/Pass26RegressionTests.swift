import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// SELECT of the NDEF application by name, T4T 2.0 §5.4.2.
private let selectNDEFApplication: [UInt8] = [
  0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00,
]

/// A query that read NLEN, then the NDEF application's SELECT refused (hunt-t4 c1): the
/// SELECT starts the app's next call; the finished query was marked failed.
@Test func refusedReselectAfterQueryIsTheNextCall() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.queryType4(nlen: 5)
  b.apdu(selectNDEFApplication, [0x6A, 0x82])
  let ops = try #require(try sessions(b).first).operations
  #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .queryNDEFStatus])
  #expect(ops.map(\.outcome) == [.ok, .ok, .failed])
}

/// HLTA, then REQA left unanswered (a halted tag ignores REQA, ISO/IEC 14443-3 §6.3), then
/// WRITEs (review2 h1, h1b): the writes went to a tagless session of their own, diagnosed
/// `tag-not-captured` with antenna advice.
@Suite struct Pass26HaltThenREQATests {
  private func haltThenREQA(anticollision: Bool) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    b.reader([0x50, 0x00])
    b.add(.reader, [0x26], crc: false, bits: 7)
    if anticollision { b.reader([0x93, 0x20], crc: false) }
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .none)
    b.write(5, [0x1E, 0x55, 0x04, 0x6E], .none)
    return b
  }

  @Test func writesStayInTheHaltedTagsSession() throws {
    let all = try sessions(haltThenREQA(anticollision: false))
    #expect(all.count == 1)
    #expect(all[0].operations.map(\.kind) == [.connect, .queryNDEFStatus, .writeNDEF])
    let r = try haltThenREQA(anticollision: false).diagnose()
    #expect(r.codes == ["write-interrupted"])
    let f = try #require(r.finding("write-interrupted"))
    #expect(f.frames == [14, 16, 17])
    #expect(f.cause.hasPrefix("the reader halted the tag (HLTA at #14)"))
  }

  /// The anticollision after the REQA got no answer either: that connect activated nothing.
  @Test func unansweredAnticollisionConnectsNothing() throws {
    let all = try sessions(haltThenREQA(anticollision: true))
    #expect(all.count == 1)
    let ops = all[0].operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .connect, .writeNDEF])
    #expect(ops[2].outcome == .failed)
    #expect(ops[2].reason == "the tag did not answer the activation")
  }

  /// The connect whose anticollision got no answer after HLTA and REQA names the HLTA, not
  /// the antenna (review3: "hold the phone flat…").
  @Test func unansweredConnectAfterHaltNamesTheHalt() throws {
    let f = try #require(try haltThenREQA(anticollision: true).diagnose().finding("connect-failed"))
    #expect(f.frames == [14, 16])
    #expect(
      f.cause == "connect failed: the reader halted the tag (HLTA at #14) and did not wake it")
    #expect(f.fix.hasPrefix("Wake a halted tag with WUPA (52), not REQA (26)"))
  }

  /// HLTA, REQA whose ATQA the capture missed, then anticollision answered by another tag
  /// (review3 s7): that tag was not halted; its session starts at the anticollision (it
  /// started at the SAK, the anticollision kept in the halted tag's session).
  @Test func answeredAnticollisionStartsTheNextSession() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0x50, 0x00])
    b.add(.reader, [0x26], crc: false, bits: 7)
    let uid: [UInt8] = [0x08, 0x01, 0x02, 0x03]
    b.reader([0x93, 0x20], crc: false)
    b.tag(uid + [TraceBuilder.bcc(uid)], crc: false)
    b.reader([0x93, 0x70] + uid + [TraceBuilder.bcc(uid)])
    b.tag([0x00])
    let all = try sessions(b)
    #expect(all.map(\.info.firstFrame) == [0, 14])
    #expect(all.map(\.info.uid) == [[0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], uid])
  }

  /// Polls after HLTA with nothing else: the session ends, the polls belong to no tag.
  @Test func pollsAloneEndTheSession() throws {
    var b = TraceBuilder()
    b.activateType2(version: ntag213Version)
    b.reader([0x50, 0x00])
    b.add(.reader, [0x26], crc: false, bits: 7)
    b.add(.reader, [0x26], crc: false, bits: 7)
    let all = try sessions(b)
    #expect(all.count == 1)
    #expect(all[0].info.lastFrame == 12)
  }
}

/// 6D00 (instruction not supported) to READ BINARY (review2 x3, x4).
@Suite struct Pass26InstructionNotSupportedTests {
  /// The first READ BINARY refused: the tag lacks B0 (was the generic `t4t-error-status`).
  @Test func readBinaryNeverAccepted() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], [0x6D, 0x00])
    let f = try #require(try b.diagnose().finding("t4t-ins-not-supported"))
    #expect(
      f.cause == "the tag does not implement READ BINARY (B0) (SW 6D00 to READ CC offset 0 Le 15)")
  }

  /// 6D00 after the tag carried out a READ BINARY: it has B0, the refusal stays generic.
  @Test func readBinaryAcceptedBefore() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4NDEFFile()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x6D, 0x00])
    let r = try b.diagnose()
    #expect(r.finding("t4t-ins-not-supported") == nil)
    #expect(r.finding("t4t-error-status") != nil)
  }

  /// The tag decoded B0 after all — answered later, or with a warning or 6Cxx (review3 y1–y3):
  /// it has READ BINARY; the refusal stays generic.
  @Test(arguments: [[0x90, 0x00], [0x62, 0x82], [0x6C, 0x0F]] as [[UInt8]])
  func readBinaryDecodedElsewhere(_ status: [UInt8]) throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], [0x6D, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], status)
    let r = try b.diagnose()
    #expect(r.finding("t4t-ins-not-supported") == nil)
  }

  /// READ BINARY with an offset data object (B1) past 7FFFh of an extended NDEF file refused.
  @Test func offsetDataObjectRead() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.selectType4CC()
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x11], TraceBuilder.enlenCC + [0x90, 0x00])
    b.apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00])
    b.apdu([0x00, 0xB0, 0x00, 0x00, 0x04], [0x00, 0x00, 0x90, 0x10, 0x90, 0x00])
    b.apdu([0x00, 0xB1, 0x00, 0x00, 0x05, 0x54, 0x03, 0x00, 0x80, 0x00, 0x00], [0x6D, 0x00])
    let f = try #require(try b.diagnose().finding("t4t-ins-not-supported"))
    #expect(
      f.cause.hasPrefix(
        "the tag does not implement READ BINARY with an offset data object (B1) (SW"))
    #expect(f.message.contains("the file's bytes past 32 KiB cannot be read"))
  }
}

/// An APDU of another application refused (an EMV GET PROCESSING OPTIONS answered 6986,
/// public/proxmark3/hf_visa_apple_ecp.trace): the fix sent the user to NFC Forum T4T and
/// readNDEF/writeNDEF; it names the status word's meaning and the application's own spec.
@Test func foreignAPDURefusalPointsToItsOwnSpec() throws {
  var b = TraceBuilder()
  b.activateType4()
  b.apdu([0x80, 0xA8, 0x00, 0x00, 0x02, 0x83, 0x00, 0x00], [0x69, 0x86])
  let f = try #require(try b.diagnose().finding("apdu-refused"))
  #expect(f.message.hasPrefix("The tag answered 6986 (command not allowed, no current EF) to"))
  #expect(f.message.contains("raises no NFCReaderError"))
  #expect(f.fix.contains("e.g. EMV"))
  #expect(!f.fix.contains("NFC Forum T4T"))
}

/// A query's re-SELECT of the NDEF application refused, or alone (review3 q4, q17): the new
/// operation showed the earlier query's status and capacity, the SELECT-only one as ok.
@Suite struct Pass26RequeryTests {
  @Test func refusedRequeryHasNoStatus() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu(selectNDEFApplication, [0x6A, 0x82])
    let op = try #require(try sessions(b).first?.operations.last)
    #expect(op.kind == .queryNDEFStatus && op.outcome == .failed)
    #expect(op.detail("status") == nil && op.detail("capacity") == nil)
  }

  @Test func selectOnlyRequeryIsUnknown() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 5)
    b.apdu(selectNDEFApplication, [0x90, 0x00])
    b.apdu(selectNDEFApplication, [0x90, 0x00])
    let ops = try #require(try sessions(b).first).operations
    #expect(ops.map(\.kind) == [.connect, .queryNDEFStatus, .queryNDEFStatus])
    #expect(ops[2].outcome == .unknown)
    #expect(ops[2].detail("status") == nil)
  }
}

/// The official Proxmark3 client's `hf list mf` prints the decrypted copy of a frame as a row
/// with source `dec` (Proxmark/proxmark3 client/cmdhflist.c, printTraceLine): each gave a
/// "source column is not Rdr or Tag" warning; a copy's continuation row would join the
/// frame above.
@Test func officialClientDecryptedRowsAreSkipped() throws {
  let text = """
          Start |        End | Src | Data (! denotes parity error, ' denotes short bytes)            | CRC | Annotation         |
    ------------|------------|-----|-----------------------------------------------------------------|-----|--------------------|
          80000 |      84768 | Rdr | 9a  1b  2c  3d                                                  |     |
                |          * | dec |30 04 26 ee                                                      |  ok | >READBLOCK(4)
          86000 |     106864 | Tag | 10  11  12  13  14  15  16  17  18  19  1a  1b  1c  1d  1e  1f  |     |
                |            |     | 20  21                                                          |     |
                |          * | dec |40 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 23 80            |  ok |
                |            |     | 99 99                                                           |     |
         120000 |     124768 | Rdr | 50  00  57  cd                                                  |  ok | HALT

    """
  var importer = try Proxmark3TextImporter(
    input: TraceInput(path: "dec.txt", bytes: Data(text.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  #expect(importer.warnings.isEmpty)
  #expect(frames.map(\.data.count) == [4, 18, 4])
  #expect(frames[1].data.suffix(2) == [0x20, 0x21])
}

/// Clients that print bytes as `%02x  ` put `-c`'s CRC mark `[` on the CRC's first digit
/// (proxmark3 cmdtrace.c before 2021: `30  04  [6  ee  ]`): every frame with a CRC was lost
/// ("data column is not hex bytes"). The digit is restored from the CRC of the bytes before.
@Test func overwrittenCRCDigitIsRestored() throws {
  let text = """
          Start |        End | Src | Data (! denotes parity error)                                           | CRC | Annotation
    ------------+------------+-----+-------------------------------------------------------------------------+-----+--------------------
          30388 |      33908 | Tag |04  [a  17  ]                                                            |  ok |
          40000 |      44768 | Rdr |30  04  [6  ee  ]                                                        |  ok | READBLOCK(4)
          48000 |      52768 | Rdr |30  05  [1  ee  ]                                                        | !crc| READBLOCK(5)
          56000 |      60768 | Rdr |30  04  [6  ee  ]                                                        | !crc| READBLOCK(4)
          64000 |      70000 | Rdr |05  00  08  [9  73  ]                                                    |  ok | WUPB

    """
  var importer = try Proxmark3TextImporter(input: TraceInput(path: "c.txt", bytes: Data(text.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  // A `!crc` row keeps the unknown digit (review4: restored to a valid CRC); a Type B frame
  // in a listing the old client headed ISO14443A gets its CRC_B digit.
  #expect(
    frames.map(\.data) == [
      [0x04, 0xDA, 0x17], [0x30, 0x04, 0x26, 0xEE], [0x30, 0x05, 0x01, 0xEE],
      [0x30, 0x04, 0x06, 0xEE], [0x05, 0x00, 0x08, 0x39, 0x73],
    ])
  #expect(importer.warnings.count == 2)
  #expect(
    importer.warnings.first?.message.hasPrefix(
      "the `[` CRC mark overwrote the first hex digit of byte 3 of 4") == true)
}
