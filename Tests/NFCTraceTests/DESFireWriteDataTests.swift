import Foundation
import NDEF
import TestSupport
import Testing

@testable import NFCTrace

/// DESFire / NTAG 424 DNA WriteData to the NDEF file: plain (the file image updated as by
/// UPDATE BINARY), MAC/Full (the range written with a value not known), outside the NDEF
/// application (no NDEF write); the operation stays a transceive that diagnose judges as a
/// write.
@Suite struct DESFireWriteDataTests {
  private let ok: [UInt8] = [0x90, 0x00]
  private let desfireOK: [UInt8] = [0x91, 0x00]
  /// The message on the tag before the write (19 bytes) and the one written (20 bytes).
  private let old = Array("d1010f55046e666374726163652e6465762f72".hexBytes)
  private let new = Array("d1011055046e666374726163652e6465762f7434".hexBytes)

  /// Activation, the NDEF query (NLEN 19) and the read of the old message.
  private func readOldMessage() -> TraceBuilder {
    var t = TraceBuilder()
    t.activateType4()
    t.queryType4(nlen: UInt16(old.count))
    t.apdu([0x00, 0xB0, 0x00, 0x02, UInt8(old.count)], old + ok)
    return t
  }

  /// WriteData wrapped in CLA 90 (`ins` 8D NTAG 424 DNA, 3D DESFire): file, offset and length
  /// LSB first, the data, Le 00.
  private func writeData(ins: UInt8 = 0x8D, file: UInt8 = 0x02, offset: Int, _ data: [UInt8])
    -> [UInt8]
  {
    let header: [UInt8] = [
      file, UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), 0,
      UInt8(data.count & 0xFF), UInt8(data.count >> 8 & 0xFF), 0,
    ]
    return [0x90, ins, 0x00, 0x00, UInt8(header.count + data.count)] + header + data + [0x00]
  }

  @Test func plainWriteDataUpdatesTheNDEFFile() throws {
    var t = readOldMessage()
    let written = [0x00, 0x14] + new
    t.apdu(writeData(offset: 0, written), desfireOK)
    let session = try #require(try sessions(t).last)
    let write = try #require(session.operations.last)
    #expect(write.kind == .transceive)
    #expect(write.outcome == .ok)
    #expect(write.writesNDEFFile)
    let file = try #require(session.memory.filesEnd[0xE104])
    #expect(file.known(0, 22) == written)
    #expect(file.state(2) == .written)
    #expect(session.memory.filesStart[0xE104]?.known(2, 19) == old)

    let report = try t.diagnose(expect: new)
    #expect(!report.codes.contains("no-write-sent"))
    let index = session.operations.count - 1
    let verdict = try #require(report.sessions.last?.verdicts.first { $0.operation == index })
    #expect(verdict.kind == .transceive)
    #expect(verdict.verdict == .succeeded)
  }

  /// DESFire's safe order in three WriteData (3D): NLEN 0, the data, NLEN; the native
  /// (unwrapped) form is read alike.
  @Test func desfireWriteDataInTheSafeOrder() throws {
    var t = readOldMessage()
    t.apdu(writeData(ins: 0x3D, offset: 0, [0x00, 0x00]), desfireOK)
    t.apdu(writeData(ins: 0x3D, offset: 2, new), desfireOK)
    // Native: 3D, file 02, offset 0, length 2, NLEN 0014; answered 00.
    t.apdu([0x3D, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x14], [0x00])
    let session = try #require(try sessions(t).last)
    #expect(session.memory.filesEnd[0xE104]?.known(0, 22) == [0x00, 0x14] + new)
    // Three calls (sendCommand), each its own transceive.
    #expect(session.operations.filter(\.writesNDEFFile).count == 3)
    #expect(!session.operations.contains { $0.kind == .writeNDEF })
    let report = try t.diagnose(expect: new)
    #expect(!report.codes.contains("no-write-sent"))
  }

  /// After AuthenticateEV2First, WriteData in Full mode (ciphertext and MAC, longer than its
  /// length field): the range is written with a value not known; the old message is gone.
  @Test func encryptedWriteDataLeavesTheRangeUnknown() throws {
    var t = readOldMessage()
    t.authenticateEV2First()
    let cipher = Array(repeating: UInt8(0x44), count: 40)
    let header: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x15, 0x00, 0x00]
    t.apdu(
      [0x90, 0x8D, 0x00, 0x00, UInt8(header.count + cipher.count)] + header + cipher + [0x00],
      Array(repeating: 0x55, count: 8) + desfireOK)
    let session = try #require(try sessions(t).last)
    let file = try #require(session.memory.filesEnd[0xE104])
    #expect(file.state(0) == .writtenUnknown)
    #expect(file.state(0x14) == .writtenUnknown)
    #expect(file.count == 0x15)
    #expect(file.known(0, 2) == nil)
    #expect(session.operations.last?.writesNDEFFile == true)
    let rows = MemoryRow.type4(session.memory.filesEnd).filter { $0.file == 0xE104 }
    #expect(rows.first?.state == .writtenUnknown)
    #expect(rows.first?.known == Array(repeating: false, count: 16))
  }

  /// After an authentication a WriteData whose data is exactly as long as its length field is
  /// still MAC or Full mode (value unknown); a new activation ends the authentication, and
  /// the same write is then plain (final review: the state survived the re-activation).
  @Test func authenticationDecidesTheModeUntilReactivation() throws {
    var t = readOldMessage()
    t.authenticateEV2First()
    t.apdu(writeData(offset: 0, [0x00, 0x14] + new), desfireOK)
    let during = try #require(try sessions(t).last?.memory.filesEnd[0xE104])
    #expect(during.state(2) == .writtenUnknown)
    t.event(.fieldOff, gapUs: 200_000)
    t.activateType4()
    t.queryType4(nlen: 0)
    t.apdu(writeData(offset: 0, [0x00, 0x14] + new), desfireOK)
    let after = try #require(try sessions(t).last?.memory.filesEnd[0xE104])
    #expect(after.state(2) == .written)
    #expect(after.known(0, 22) == [0x00, 0x14] + new)
  }

  /// A command refused after an acknowledged WriteData is another call: the write keeps its
  /// own transceive and verdict (the refusal had made it FAILED).
  @Test func refusalAfterWriteDataIsAnotherCall() throws {
    var t = readOldMessage()
    t.apdu(writeData(offset: 0, [0x00, 0x14] + new), desfireOK)
    t.apdu([0x90, 0xF5, 0x00, 0x00, 0x01, 0x02, 0x00], [0x91, 0xAE])  // GET FILE SETTINGS
    let report = try t.diagnose()
    let ops = try #require(report.sessions.last?.analysis.operations)
    let write = try #require(ops.firstIndex { $0.writesNDEFFile })
    #expect(ops[write].outcome == .ok)
    #expect(ops.last?.outcome == .failed)
    #expect(write != ops.count - 1)
    let verdict = report.sessions.last?.verdicts.first { $0.operation == write }
    #expect(verdict?.verdict == .succeeded)
  }

  /// A plain WriteData the tag never answered: its bytes are written-unacknowledged, as an
  /// unanswered UPDATE BINARY's (they were left as the old message, read).
  @Test func unansweredWriteDataIsUnacknowledged() throws {
    var t = readOldMessage()
    t.apdu(writeData(offset: 0, [0x00, 0x14] + new), nil)
    t.event(.fieldOff, gapUs: 20_000)
    let session = try #require(try sessions(t).last)
    let file = try #require(session.memory.filesEnd[0xE104])
    #expect(file.state(2) == .unacknowledged)
    #expect(file.known(0, 22) == [0x00, 0x14] + new)
    #expect(session.operations.last?.outcome == .interrupted)
  }

  /// A WriteData after a DESFire SELECT APPLICATION of the PICC level (AID 000000): file 02
  /// there is no NDEF file.
  @Test func writeDataOutsideTheNDEFApplicationIsNoNDEFWrite() throws {
    var t = readOldMessage()
    t.apdu([0x90, 0x5A, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00], desfireOK)
    t.apdu(writeData(ins: 0x3D, offset: 0, [0x00, 0x00]), desfireOK)
    let session = try #require(try sessions(t).last)
    #expect(session.operations.filter(\.writesNDEFFile).isEmpty)
    #expect(session.memory.filesEnd[0xE104]?.known(0, 2) == [0x00, 0x13])
  }

  /// A CreateStdDataFile with an ISO file id (04h ↔ E104, LSB first) names the NDEF file's
  /// number; a WriteData answered 91AF goes on in ADDITIONAL FRAMEs, its data with them.
  @Test func createdFileNumberAndChainedWriteData() throws {
    var t = readOldMessage()
    t.apdu(
      [0x90, 0xCD, 0x00, 0x00, 0x09, 0x04, 0x04, 0xE1, 0x00, 0xEE, 0xE0, 0x00, 0x01, 0x00, 0x00],
      desfireOK)
    let head: [UInt8] = [0x04, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00]
    let written = [0x00, 0x14] + new
    t.apdu([0x90, 0x3D, 0x00, 0x00, 0x11] + head + written.prefix(10) + [0x00], [0x91, 0xAF])
    t.apdu([0x90, 0xAF, 0x00, 0x00, 0x0C] + written.dropFirst(10) + [0x00], desfireOK)
    let session = try #require(try sessions(t).last)
    #expect(session.memory.filesEnd[0xE104]?.known(0, 22) == written)
    #expect(session.operations.last?.writesNDEFFile == true)
  }
}

extension String {
  /// The bytes of a hex string (pairs of digits; anything else ends it).
  fileprivate var hexBytes: [UInt8] {
    var out: [UInt8] = []
    var i = startIndex
    while i < endIndex, let j = index(i, offsetBy: 2, limitedBy: endIndex),
      let b = UInt8(self[i..<j], radix: 16)
    {
      out.append(b)
      i = j
    }
    return out
  }
}

extension TraceBuilder {
  /// AuthenticateEV2First, both steps (91AF, then 9100), with made-up cryptograms.
  mutating func authenticateEV2First() {
    apdu(
      [0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00],
      Array(repeating: 0x11, count: 16) + [0x91, 0xAF])
    apdu(
      [0x90, 0xAF, 0x00, 0x00, 0x20] + Array(repeating: 0x22, count: 32) + [0x00],
      Array(repeating: 0x33, count: 32) + [0x91, 0x00])
  }
}
