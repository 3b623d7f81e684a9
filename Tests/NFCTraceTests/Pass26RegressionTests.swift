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
