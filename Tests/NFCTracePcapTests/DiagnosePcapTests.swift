import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

/// Diagnoses a pcap/pcapng file.
private func diagnosePcap(_ path: String, expect: [UInt8]? = nil) throws -> DiagnosisReport {
  try DiagnosisRun(importer: try PcapImporter(input: try TraceInput(path: path)))
    .diagnose(expected: expect)
}

/// `nfctrace diagnose` on the pcap fixtures: the shipped demo pcaps and the synthetic pcaps
/// with real faults, and no errors on the clean ones.
@Suite struct DiagnosePcapTests {
  @Test func tornDemoPcap() throws {
    let r = try diagnosePcap(TestPaths.traces("t2t-ntag215-write-torn.pcap"))
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.interrupted])
    let w = try #require(r.findings.first { $0.code == "write-interrupted" })
    #expect(w.coreNFCError?.code == 100)
    #expect(w.frames == [19, 20, 21, 22, 23, 24])
    #expect(w.message.contains("acknowledged pages 4–5"))
    let t = try #require(r.findings.first { $0.code == "ndef-torn" })
    #expect(t.message.contains("claims 0x14 (20) bytes"))
    #expect(t.frames == [19, 23, 24])
  }

  /// The NAK is on page 0x28: the CC declares a 144-byte data area (pages 4–0x27), so 0x28 is
  /// the first page after it — the dynamic lock page of NTAG213 / Ultralight C, not memory
  /// the tag lacks (NTAG213 ends at 0x2C, Ultralight C at 0x2F).
  @Test func syntheticType2NAKIsOnTheDynamicLockPage() throws {
    let r = try diagnosePcap(
      TestPaths.shared("derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"))
    let f = try #require(r.findings.first { $0.severity == .error })
    #expect(f.code == "t2t-nak-lock-page")
    #expect(f.frames == [19, 20])
    // The WRITE sets no lock bit; inside Core NFC's writeNDEF, the advice on raw writes is
    // not given (the app sent none).
    #expect(f.message.contains("this WRITE sets no lock bit (lock bytes 00 00 00"))
    #expect(f.message.contains("smaller tag answers for a page it does not have"))
    #expect(!f.fix.contains("GET_VERSION (0x60) before raw writes"))
    #expect(!f.fix.contains("need not send it"))
    #expect(f.coreNFCError == .tagUpdateFailure)
    // A lock-page WRITE is a lock operation: authenticate, then lock (it said "then call
    // writeNDEF", new-user trial).
    #expect(
      f.fix.hasSuffix(
        "Authenticate, then call writeLock (or send the lock page's WRITE again) on that same "
          + "NFCMiFareTag, in the same connection."))
    // The readNDEF after it finds the emptied message: Core NFC reports 403.
    #expect(r.sessions[0].verdicts.map(\.verdict) == [.failed, .failed])
    #expect(
      r.sessions[0].analysis.operations.last?.reason
        == "The NDEF TLV's length is 0: the tag holds no NDEF message, so Core NFC's readNDEF "
        + "reports 403 ndefReaderSessionErrorZeroLengthMessage")
    #expect(!r.findings.contains { $0.code == "t2t-nak-beyond-memory" })
    // Pages 4–5 landed first: length 0, so the tag now holds an empty message.
    #expect(r.findings.contains { $0.code == "ndef-emptied" && $0.severity == .warning })
  }

  @Test func syntheticType4UpdateRefusedOnReadOnlyTag() throws {
    let r = try diagnosePcap(
      TestPaths.shared("derived/synthetic/synthetic_t4t_ndef_read_failed_update.pcap"))
    #expect(
      r.findings.filter { $0.severity == .error }.map(\.code) == ["t4t-security-not-satisfied"])
    #expect(r.findings[0].frames == [25, 26])
    #expect(r.findings[0].coreNFCError == .tagNotWritable)
  }

  @Test func noErrorsOnCleanPcaps() throws {
    for path in [
      TestPaths.shared("derived/pcap/hf_14a_mfu.text2pcap.pcapng"),
      TestPaths.shared("derived/pcap/hf_14a_mfu-sim.text2pcap.pcapng"),
      TestPaths.shared("derived/pcap/hf_14a_reader_7b_rats.text2pcap.pcapng"),
      TestPaths.shared("derived/pcap/hf_visa_apple_ecp.text2pcap.pcapng"),
      TestPaths.shared("derived/synthetic/synthetic_nfcgate_style.pcapng"),
      TestPaths.traces("t2t-ntag215-write-ok.pcap"), TestPaths.traces("t4t-write-ok.pcap"),
    ] {
      let r = try diagnosePcap(path)
      #expect(r.findings.filter { $0.severity == .error }.isEmpty, "\(path)")
    }
  }
}

/// The same capture as pcap and as Proxmark3 trace: both failed reads (NAK 1) are errors,
/// whichever operation the cluster of damaged frames lands next to (the pcap made the readNDEF
/// failure a warning, the trace that of queryNDEFStatus: new-user pass).
@Test func failedReadsAreErrorsWhateverTheFormat() throws {
  let pcap = try diagnosePcap(TestPaths.traces("generated/t2-noisy-rf.pcap"))
  let input = try TraceInput(path: TestPaths.traces("generated/t2-noisy-rf.trace"))
  let importer = try FormatRegistry(BuiltinFormats.all).detect(input).open(input)
  let trace = try DiagnosisRun(importer: importer).diagnose()
  for report in [pcap, trace] {
    #expect(report.findings.filter { $0.code == "read-failed" }.map(\.operation) == [1, 5])
    #expect(report.findings.filter { $0.severity == .error }.count == 2)
  }
}

/// `ndef-empty-on-read` cites the answer that delivered the zero length (it cited the
/// operation's first and last frames: the READ and the HLTA after it).
@Test func emptyReadCitesTheLengthsAnswer() throws {
  let report = try diagnosePcap(
    TestPaths.shared("derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap"))
  let f = try #require(report.findings.first { $0.code == "ndef-empty-on-read" })
  #expect(f.frames == [22])
}
