import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// Findings of the ISO-DEP review of 2026-12-06: the stack's GetVersion probe, R(ACK) to an
/// unchained I-block, a PPS response with another CID.
@Suite struct Pass41DiscoveryProbeTests {
  private static let ok: [UInt8] = [0x90, 0x00]
  private static let getVersion: [UInt8] = [0x90, 0x60, 0x00, 0x00, 0x00]
  private static let selectNDEF: [UInt8] =
    [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

  /// Android's NXP stack probes with DESFire GetVersion before the NDEF SELECT (nfc-facts
  /// §8.4): refused 6E00, it is part of connect — no failed transceive, no `apdu-refused`.
  @Test func androidGetVersionProbeBelongsToConnect() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.getVersion, [0x6E, 0x00])
    let probeEnd = b.frames.count - 1
    b.queryType4(nlen: 0)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations[0].outcome == .ok)
    #expect(s.operations[0].lastFrame == probeEnd)
    #expect(s.operations[1].firstFrame == probeEnd + 1)
    #expect(s.operations[1].detail("status") == .string("readWrite"))
    let report = try b.diagnose()
    #expect(report.codes.filter { $0 == "apdu-refused" } == [])
    // The timeline still decodes the probe and its refusal.
    let (decoded, _) = decodeAll(b.frames)
    #expect(decoded[probeEnd - 1].innermost?.summary == "DESFire GET VERSION Le 256")
    #expect(decoded[probeEnd].innermost?.summary == "SW 6e00 CLA not supported")
  }

  /// A DESFire answers the probe 91AF; the ADDITIONAL FRAMEs fetching the rest are the probe.
  @Test func answeredProbeWithAdditionalFramesBelongsToConnect() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.getVersion, [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF])
    b.apdu([0x90, 0xAF, 0x00, 0x00, 0x00], [0x04, 0x01, 0x01, 0x01, 0x00, 0x18, 0x05, 0x91, 0xAF])
    b.apdu(
      [0x90, 0xAF, 0x00, 0x00, 0x00],
      [
        0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x20, 0x91,
        0x00,
      ])
    let probeEnd = b.frames.count - 1
    b.queryType4(nlen: 0)
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus])
    #expect(s.operations[0].lastFrame == probeEnd)
    #expect(s.tag.product == "MIFARE DESFire EV1 4K")
  }

  /// The probe after discovery SELECTs the tag refused: discovery too, no query (the status
  /// stays unknown), one connect.
  @Test func probeAfterRefusedDiscoverySelectsIsConnect() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.apdu(Self.selectNDEF, [0x6A, 0x82])
    b.apdu(Self.getVersion, [0x6A, 0x81])
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect])
    #expect(s.operations[0].lastFrame == b.frames.count - 1)
    #expect(s.ndefStatus == nil)
  }

  /// An app's own GetVersion, long after connect or after the NDEF procedures, is its own
  /// operation, refused as before.
  @Test func appsOwnGetVersionStaysATransceive() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.timeNs += 2_000_000_000
    b.apdu(Self.getVersion, [0x6E, 0x00])
    let late = try #require(try sessions(b).first)
    #expect(late.operations.map(\.kind) == [.connect, .transceive])
    #expect(late.operations[1].outcome == .failed)
    var c = TraceBuilder()
    c.activateType4()
    c.queryType4(nlen: 0)
    c.apdu(Self.getVersion, [0x6E, 0x00])
    let after = try #require(try sessions(c).first)
    #expect(after.operations.map(\.kind) == [.connect, .queryNDEFStatus, .transceive])
    #expect(after.operations[2].outcome == .failed)
    #expect(try c.diagnose().codes.filter { $0 == "apdu-refused" } == ["apdu-refused"])
  }
}

@Suite struct Pass41ISODEPBlockTests {
  /// A Type 4 query of an NDEF file with NLEN 16, then READ NDEF data (I-block 1) that the
  /// tag answers with R(ACK) 1, and two S(DESELECT) left unanswered (review case s23b).
  private func readAnsweredByACK() -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType4()
    b.queryType4(nlen: 16)
    b.reader([0x03, 0x00, 0xB0, 0x00, 0x02, 0x10])
    b.tag([0xA3])
    b.reader([0xC2])
    b.reader([0xC2], gapUs: 50_000)
    return b
  }

  /// The tag's R(ACK) to an unchained I-block breaks the block rules: R(ACK) acknowledges a
  /// chained block or answers an R(NAK) (ISO/IEC 14443-4 §7.5.4). Flagged on the R(ACK).
  @Test func tagACKToAnUnchainedIBlockIsFlagged() throws {
    let b = readAnsweredByACK()
    let decoded = decodeAll(b.frames).0
    let ack = decoded[b.frames.count - 3]
    #expect(ack.innermost?.summary == "R(ACK) 1")
    #expect(ack.findings.map(\.code) == ["tag-ack-to-unchained-block"])
    #expect(ack.findings.first?.severity == .warning)
    #expect(
      ack.findings.first?.message
        == "R(ACK) from the tag answering an unchained I-block: a tag sends R(ACK) only to "
        + "acknowledge a chained block or to answer an R(NAK) (ISO/IEC 14443-4 §7.5.4, PICC "
        + "rules); the command got no response APDU")
  }

  /// The read the tag answered with that R(ACK) and nothing else failed (it was `unknown`).
  @Test func readAnsweredOnlyByACKFails() throws {
    let b = readAnsweredByACK()
    let s = try #require(try sessions(b).first)
    #expect(s.operations.map(\.kind) == [.connect, .queryNDEFStatus, .readNDEF])
    let read = s.operations[2]
    #expect(read.outcome == .failed)
    #expect(read.failedFrames == [b.frames.count - 3])
    #expect(
      read.reason
        == "answer to READ NDEF data offset 2 Le 16 not understood: the tag answered with "
        + "R(ACK) 1, which acknowledges only a chained block (ISO/IEC 14443-4 §7.5.4)")
  }

  /// R(ACK)s the rules ask for stay unflagged: to each chained part of a reader command, and
  /// to the reader's R(NAK) (a presence check) after the last answer.
  @Test func tagACKsTheRulesAskForAreNotFlagged() throws {
    var b = TraceBuilder()
    b.activateType4()
    b.chainedAPDU([0x00, 0xD6, 0x00, 0x00, 0x04, 0x01, 0x02, 0x03, 0x04], part: 4, [0x90, 0x00])
    b.reader([0xB2])
    b.tag([0xA3])
    let codes = decodeAll(b.frames).0.flatMap { $0.findings.map(\.code) }
    #expect(!codes.contains("tag-ack-to-unchained-block"))
  }

  /// A PPS response whose CID differs from the request's decodes as a PPS response with a
  /// finding (it was "PCB 0xd0 is not an I-, R- or S-block").
  @Test func ppsResponseWithAnotherCID() throws {
    var b = TraceBuilder()
    b.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x20)
    b.reader([0xE0, 0x82])
    b.tag([0x05, 0x78, 0x77, 0x70, 0x02])
    b.reader([0xD2, 0x11, 0x05])
    b.tag([0xD0])
    let decoded = decodeAll(b.frames).0
    let request = decoded[b.frames.count - 2]
    #expect(request.findings.isEmpty)
    let response = try #require(decoded.last)
    #expect(response.undecodedReason == nil)
    #expect(response.innermost?.name == "PPS response")
    #expect(response.innermost?.summary == "PPS response CID 0")
    #expect(response.findings.map(\.code) == ["pps-response-cid"])
    #expect(response.findings.first?.severity == .warning)
    #expect(
      response.findings.first?.message
        == "PPS response carries CID 0, the PPS request CID 2: the PICC answers with the "
        + "request's PPSS (ISO/IEC 14443-4 §5.4)")
    // The matching answer stays as it was.
    var c = TraceBuilder()
    c.activateSingle([0x08, 0x12, 0x34, 0x56], sak: 0x20)
    c.reader([0xE0, 0x82])
    c.tag([0x05, 0x78, 0x77, 0x70, 0x02])
    c.reader([0xD2, 0x11, 0x05])
    c.tag([0xD2])
    let same = try #require(decodeAll(c.frames).0.last)
    #expect(same.innermost?.summary == "PPS response CID 2")
    #expect(same.findings.isEmpty)
  }
}
