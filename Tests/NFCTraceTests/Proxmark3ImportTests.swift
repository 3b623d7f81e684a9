import Foundation
import NFCTrace
import TestSupport
import Testing

private func frames<I: TraceImporter>(_ importer: inout I) throws -> [Frame] {
  var out: [Frame] = []
  while let frame = try importer.next() { out.append(frame) }
  return out
}

private func binary(_ name: String) throws -> (frames: [Frame], warnings: [TraceWarning]) {
  var importer = try Proxmark3BinaryImporter(
    input: TraceInput(path: TestPaths.shared("public/proxmark3/\(name).trace")))
  return (try frames(&importer), importer.warnings)
}

private func text(_ input: TraceInput) throws -> (frames: [Frame], warnings: [TraceWarning]) {
  var importer = try Proxmark3TextImporter(input: input)
  return (try frames(&importer), importer.warnings)
}

private func textFile(_ name: String) throws -> (frames: [Frame], warnings: [TraceWarning]) {
  try text(TraceInput(path: TestPaths.shared("derived/proxmark3-text/\(name).txt")))
}

private func bytesOf(_ relative: String) throws -> Data {
  try Data(contentsOf: URL(fileURLWithPath: TestPaths.shared(relative)))
}

/// One binary record: u32 timestamp, u16 duration, u16 length|0x8000 for the tag, data, parity.
private func record(_ ts: UInt32, _ duration: UInt16, tag: Bool, _ data: [UInt8], parity: [UInt8])
  -> [UInt8]
{
  let length = UInt16(data.count) | (tag ? 0x8000 : 0)
  return withUnsafeBytes(of: ts.littleEndian, Array.init)
    + withUnsafeBytes(of: duration.littleEndian, Array.init)
    + withUnsafeBytes(of: length.littleEndian, Array.init) + data + parity
}

@Suite("Proxmark3 binary trace")
struct Proxmark3BinaryTests {
  static let counts: [(String, Int)] = [
    ("hf_14a_mfu-sim", 306), ("hf_14a_mfu", 22), ("hf_14a_mfuc", 32),
    ("hf_14a_mfuc_defaultkey", 16), ("hf_14a_mful_aes_defaultkey", 14),
    ("hf_14a_mful_aes_defaultkey_secure_message", 16), ("hf_14a_reader_4b", 6),
    ("hf_14a_reader_4b_rats", 8), ("hf_14a_reader_7b_rats", 16), ("hf_14b_cryptorf_select", 12),
    ("hf_14b_reader", 2), ("hf_14b_xerox_info", 190), ("hf_15_reader", 2),
    ("hf_iclass_sniff", 31), ("hf_mf_hid_sio_sim", 46), ("hf_mfdes_sniff", 53),
    ("hf_mfp_mad_sl3", 24), ("hf_mfp_read_sc0_sl3", 24), ("hf_seos_sniff_fc54_cn64001", 44),
    ("hf_visa_apple_ecp", 34), ("hf_visa_apple_normal", 660),
    ("hf_visa_apple_transit_bypass", 68), ("lf_HitagS256_dump", 21),
    ("lf_hitag_crypto_dump", 20),
  ]

  @Test("all 24 public traces import with their record counts", arguments: counts)
  func recordCounts(name: String, count: Int) throws {
    let result = try binary(name)
    #expect(result.frames.count == count)
    #expect(result.frames.map(\.index) == Array(0..<count))
    #expect(result.frames.last?.location.record == count)
  }

  @Test func mfuSimFirstFrames() throws {
    let f = try binary("hf_14a_mfu-sim").frames
    #expect(f[0].data == [0x26] && f[0].bits == 7 && f[0].direction == .reader)
    #expect(f[0].timeNs == 0 && f[0].durationNs == 77_876)  // 1056 ticks
    #expect(f[0].sourceTime == SourceTime(55_341_979, .proxmarkTicks))
    #expect(
      f[0].location
        == SourceLocation(
          file: TestPaths.shared("public/proxmark3/hf_14a_mfu-sim.trace"), unit: "record",
          record: 1,
          offset: 0))
    #expect(f[1].data == [0x44, 0x00] && f[1].bits == nil && f[1].direction == .tag)
    #expect(f[1].timeNs == 164_307 && f[1].location.offset == 10)  // 2228 ticks; 8+1+1 bytes
    #expect(f[2].data == [0x6A, 0x01, 0xCF, 0x00, 0x00, 0xAB, 0xB1] && f[2].bits == nil)
    #expect(f[3].data == [0x26] && f[3].bits == 7 && f[3].timeNs == 349_711_357)
    // WUPA: 992 ticks, still 7 bits.
    let wupa = try #require(f.first { $0.data == [0x52] })
    #expect(wupa.bits == 7 && wupa.index == 17 && wupa.durationNs == 73_156)
    #expect(f.allSatisfy { $0.parityErrors.isEmpty && $0.crc == .unchecked })
  }

  @Test func mfuSimGetVersionAnsweredWithZeros() throws {
    let f = try binary("hf_14a_mfu-sim").frames
    let at = try #require(f.firstIndex { $0.data == [0x60, 0xF8, 0x32] })
    #expect(at == 23)
    #expect(f[at + 1].direction == .tag)
    #expect(f[at + 1].data == [UInt8](repeating: 0, count: 10))
    #expect(f[at + 1].location.record == 25)
  }

  @Test func atqaParityError() throws {
    let f = try binary("hf_14a_reader_4b_rats").frames
    #expect(f[1].data == [0x04, 0x03] && f[1].direction == .tag)
    #expect(f[1].parityErrors == [1])
    #expect(f.map(\.parityErrors.count) == [0, 1, 0, 0, 0, 0, 0, 0])
  }

  @Test func crypto1ParityErrorsKept() throws {
    let f = try binary("hf_mf_hid_sio_sim").frames
    #expect(f.reduce(0) { $0 + $1.parityErrors.count } == 125)
    #expect(f.filter { !$0.parityErrors.isEmpty }.count == 26)  // rows with `!` in the listing
    #expect(f[12].data.prefix(2) == [0x44, 0x0D] && f[12].parityErrors == [0, 5, 7])
  }

  @Test func iclassZeroLengthRecordsKept() throws {
    let result = try binary("hf_iclass_sniff")
    let empty = result.frames.filter(\.data.isEmpty)
    #expect(empty.map(\.index) == [2, 20, 26])
    #expect(empty.allSatisfy { $0.direction == .tag && $0.sourceFlags == ["empty-record"] })
    #expect(empty[0].location.offset == 20 && empty[0].durationNs == 4_720)  // 64 ticks
    // iCLASS parity bytes are zero fill: not checked, and no short-frame guess for `0a`.
    #expect(result.frames.allSatisfy { $0.parityErrors.isEmpty })
    #expect(result.frames[0].data == [0x0A] && result.frames[0].bits == nil)
    #expect(result.frames[0].sourceFlags == ["parity-not-recorded"])
  }

  @Test func iso14443BNotMistakenForShortFrames() throws {
    let result = try binary("hf_14b_xerox_info")
    let oneByte = result.frames.filter { $0.data.count == 1 }
    #expect(oneByte.count == 154)
    // Three runs joined in one file: time steps back, reported once, not fatal.
    #expect(result.warnings.count == 2)
    #expect(result.warnings[0].location?.record == 39)
  }

  @Test func lfValidBitsFromFirstParityByte() throws {
    let f = try binary("lf_hitag_crypto_dump").frames
    #expect(f[0].data == [0xC0] && f[0].bits == 5)
    #expect(f[0].sourceFlags == ["parity-not-recorded", "msb-first"])
    #expect(f[4].data == [0x4E, 0xC0] && f[4].bits == 2)
    #expect(f[1].bits == nil && f[1].parityErrors.isEmpty)
  }

  @Test func truncatedRecordAfterEarlierFrames() throws {
    let whole = try bytesOf("public/proxmark3/hf_14a_reader_4b.trace")
    // Records: 10 + 11 + 11 + 14 + 19 + 12 bytes = 77; cut record 6 (offset 65) 2 bytes after its header.
    var importer = try Proxmark3BinaryImporter(
      input: TraceInput(path: "cut.trace", bytes: whole.prefix(75)))
    for expected in 0..<5 { #expect(try importer.next()?.index == expected) }
    let error = try #require(throws: TraceError.self) { try importer.next() }
    #expect(error.kind == .truncated)
    #expect(
      error.location == SourceLocation(file: "cut.trace", unit: "record", record: 6, offset: 65))
    #expect(
      error.message.contains("claims 3 data bytes") && error.message.contains("only 2 bytes left"))
  }

  @Test func everyCutKeepsTheWholeRecordsBeforeIt() throws {
    let whole = try bytesOf("public/proxmark3/hf_14a_reader_4b_rats.trace")
    let ends = [10, 21, 32, 46, 65, 77, 90, 105]  // end offset of each record
    for length in 0...whole.count {
      var importer = try Proxmark3BinaryImporter(
        input: TraceInput(path: "cut", bytes: whole.prefix(length)))
      var count = 0
      var failure: TraceError?
      do {
        while try importer.next() != nil { count += 1 }
      } catch let error as TraceError {
        failure = error
      }
      let complete = ends.filter { $0 <= length }
      #expect(count == complete.count, "cut at \(length)")
      #expect((failure == nil) == (length == 0 || ends.contains(length)), "cut at \(length)")
      if let failure {
        #expect(failure.kind == .truncated && failure.location.offset == complete.last ?? 0)
        #expect(failure.location.record == complete.count + 1)
      }
    }
  }

  @Test func truncatedHeader() throws {
    let whole = try bytesOf("public/proxmark3/hf_14a_reader_4b.trace")
    var importer = try Proxmark3BinaryImporter(
      input: TraceInput(path: "cut.trace", bytes: whole.prefix(14)))
    #expect(try importer.next()?.data == [0x52])
    let error = try #require(throws: TraceError.self) { try importer.next() }
    #expect(error.kind == .truncated && error.location.record == 2 && error.location.offset == 10)
    #expect(error.message.contains("only 4 left"))
  }

  @Test func timestampWrapAround() throws {
    let bytes =
      record(0xFFFF_FF00, 1056, tag: false, [0x26], parity: [0x00])
      + record(0x0000_0100, 2368, tag: true, [0x44, 0x00], parity: [0xC0])
    var importer = try Proxmark3BinaryImporter(input: TraceInput(path: "w", bytes: Data(bytes)))
    let f = try frames(&importer)
    #expect(f.map(\.timeNs) == [0, 37_758])  // 512 ticks later
    #expect(f[1].sourceTime == SourceTime(256, .proxmarkTicks))
    #expect(f[0].bits == 7 && f[1].parityErrors.isEmpty)
    #expect(importer.warnings.count == 1 && importer.warnings[0].message.contains("wrap-around"))
  }

  /// A u32 timestamp more than 2³¹ ticks above the previous one is later (a sniff idle for
  /// minutes), not earlier: it was read as a signed step back (−145 s, with a warning).
  @Test func largeForwardStepIsLater() throws {
    let bytes =
      record(101_832_181, 1056, tag: false, [0x26], parity: [0x00])
      + record(0x9000_0000, 2368, tag: true, [0x44, 0x00], parity: [0xC0])
    var importer = try Proxmark3BinaryImporter(input: TraceInput(path: "w", bytes: Data(bytes)))
    let f = try frames(&importer)
    let ticks: Int64 = 0x9000_0000 - 101_832_181
    #expect(abs(f[1].timeNs - ticks * 25_000 / 339) <= 1)  // 170.655 s later
    #expect(importer.warnings.isEmpty)
  }

  @Test func sniffClaimsTracesNotText() throws {
    for (name, _) in Self.counts {
      let path = TestPaths.shared("public/proxmark3/\(name).trace")
      let head = try TraceInput(path: path).head()
      #expect(Proxmark3BinaryImporter.format.sniff(head, path) >= 60, "\(name)")
      #expect(Proxmark3BinaryImporter.format.sniff(head, "x.bin") >= 40, "\(name)")
      #expect(Proxmark3TextImporter.format.sniff(head, path) == 0, "\(name)")
    }
    for other in [
      "public/ChameleonMini/NTAG215_blank.bin", "public/proxmark3/ntag216-empty.json",
      "public/nfc-laboratory/test_NFC-A_106kbps_001.json", "public/UberGuidoZ-Flipper/RickRoll.nfc",
      "derived/pcap/hf_14a_mfu-sim.text2pcap.pcapng",
      "derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap",
    ] {
      let head = try TraceInput(path: TestPaths.shared(other)).head()
      #expect(Proxmark3BinaryImporter.format.sniff(head, other) == 0, "\(other)")
      #expect(Proxmark3TextImporter.format.sniff(head, other) == 0, "\(other)")
    }
    let pcapHead: [UInt8] =
      [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00] + [UInt8](repeating: 0, count: 16)
    #expect(Proxmark3BinaryImporter.format.sniff(pcapHead, "a.trace") == 0)
    #expect(Proxmark3BinaryImporter.format.name == "pm3-trace")
  }

  /// A small trace cut inside its last record (a copy stopped short) is still recognised, so
  /// the importer keeps the records before the cut and names it; fewer than three whole records
  /// before the cut are not enough to tell it from other binary data.
  @Test func sniffClaimsCutTraces() throws {
    let whole = try bytesOf("public/proxmark3/hf_14a_reader_4b_rats.trace")
    // Record ends: 10, 21, 32, 46, …: cut in the header of record 4, then in its data.
    for cut in [34, 40] {
      #expect(Proxmark3BinaryImporter.format.sniff([UInt8](whole.prefix(cut)), "x.bin") == 60)
    }
    #expect(Proxmark3BinaryImporter.format.sniff([UInt8](whole.prefix(25)), "x.bin") == 0)
    // Two runs joined (time steps back once), cut 3 bytes short: still a trace.
    let joined = [UInt8](whole) + [UInt8](whole)
    #expect(Proxmark3BinaryImporter.format.sniff(Array(joined.dropLast(3)), "x.bin") == 60)
    // Zero-length records only, gzip and zip archives are not traces.
    #expect(Proxmark3BinaryImporter.format.sniff([UInt8](repeating: 0, count: 100), "z") == 0)
    #expect(Proxmark3BinaryImporter.format.sniff([UInt8](repeating: 0, count: 99), "z") == 0)
    let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03] + whole
    #expect(Proxmark3BinaryImporter.format.sniff(gzip, "x.trz") == 0)
  }
}

@Suite("Proxmark3 trace list text")
struct Proxmark3TextTests {
  static let files: [(String, Int)] = [
    ("hf_14a_mfu-sim.list_14a", 306), ("hf_14a_mfu-sim.list_14a_c", 306),
    ("hf_14a_mfu-sim.list_14a_frame", 306), ("hf_14a_mfu-sim.list_14a_r_u", 306),
    ("hf_14a_mfu-sim.list_14a_x", 306), ("hf_14a_mfu-sim.list_14a_x.hexonly", 306),
    ("hf_14a_mfu.list_14a", 22), ("hf_14a_mfu.list_14a_x.hexonly", 22),
    ("hf_14a_mfu.list_raw", 22), ("hf_14a_mfuc.list_14a", 32),
    ("hf_14a_mfuc_defaultkey.list_14a", 16), ("hf_14a_mful_aes_defaultkey.list_14a", 14),
    ("hf_14a_reader_4b.list_14a", 6), ("hf_14a_reader_4b_rats.list_14a", 8),
    ("hf_14a_reader_7b_rats.list_14a", 16), ("hf_14a_reader_7b_rats.list_14a_x.hexonly", 16),
    ("hf_mf_hid_sio_sim.list_14a", 46), ("hf_mf_hid_sio_sim.list_mf", 46),
    ("hf_mfdes_sniff.list_des", 53), ("hf_visa_apple_ecp.list_14a_x.hexonly", 34),
    ("hf_visa_apple_ecp.list_7816", 34), ("hf_visa_apple_normal.list_7816", 660),
  ]

  @Test("every derived listing imports without warnings", arguments: files)
  func importsEveryListing(name: String, count: Int) throws {
    let result = try textFile(name)
    #expect(result.frames.count == count)
    #expect(result.warnings.isEmpty, "\(result.warnings.prefix(3))")
    let path = TestPaths.shared("derived/proxmark3-text/\(name).txt")
    let head = try TraceInput(path: path).head()
    #expect(Proxmark3TextImporter.format.sniff(head, path) >= 85)
    #expect(Proxmark3BinaryImporter.format.sniff(head, path) == 0)
  }

  /// What a listing keeps of each frame, compared with the binary trace.
  enum Keeps { case ticks, micros, hexDump, ticksNoParity }

  static let pairs: [(String, String, Keeps)] = [
    ("hf_14a_mfu-sim", "list_14a", .ticks), ("hf_14a_mfu-sim", "list_14a_c", .ticks),
    ("hf_14a_mfu-sim", "list_14a_frame", .ticks), ("hf_14a_mfu-sim", "list_14a_r_u", .micros),
    ("hf_14a_mfu-sim", "list_14a_x", .hexDump), ("hf_14a_mfu-sim", "list_14a_x.hexonly", .hexDump),
    ("hf_14a_reader_7b_rats", "list_14a", .ticks),
    ("hf_14a_reader_7b_rats", "list_14a_x.hexonly", .hexDump),
    ("hf_visa_apple_ecp", "list_14a_x.hexonly", .hexDump),
    ("hf_visa_apple_ecp", "list_7816", .ticks), ("hf_14a_mfuc", "list_14a", .ticks),
    ("hf_14a_mfu", "list_raw", .ticks), ("hf_mf_hid_sio_sim", "list_mf", .ticks),
    ("hf_mfdes_sniff", "list_des", .ticks), ("hf_14a_reader_4b_rats", "list_14a", .ticks),
    ("hf_visa_apple_normal", "list_7816", .ticksNoParity),
  ]

  @Test("a listing gives the binary trace's frames", arguments: pairs)
  func sameFramesAsBinary(trace: String, listing: String, keeps: Keeps) throws {
    let expected = try binary(trace).frames
    let got = try textFile("\(trace).\(listing)").frames
    try #require(got.count == expected.count)
    for (a, b) in zip(got, expected) {
      #expect(
        a.data == b.data && a.direction == b.direction && a.bits == b.bits, "frame \(b.index)")
      if keeps != .ticksNoParity {
        #expect(a.parityErrors == b.parityErrors, "frame \(b.index)")
      }
      switch keeps {
      case .ticks, .ticksNoParity:
        #expect(a.timeNs == b.timeNs && a.durationNs == b.durationNs, "frame \(b.index)")
        #expect(a.sourceTime?.unit == .proxmarkTicks)
      case .micros:
        #expect(abs(a.timeNs - b.timeNs) <= 5_000, "frame \(b.index)")
        #expect(abs((a.durationNs ?? 0) - (b.durationNs ?? 0)) <= 100, "frame \(b.index)")
        #expect(a.sourceTime?.unit == .microseconds)
      case .hexDump:
        #expect(a.timeNs == b.timeNs && a.durationNs == nil, "frame \(b.index)")
        #expect(a.sourceTime == b.sourceTime)
      }
    }
    if keeps == .ticksNoParity {
      // `-t 7816` prints no parity marks; the binary has 15 parity errors.
      #expect(got.allSatisfy { $0.parityErrors.isEmpty })
      #expect(expected.reduce(0) { $0 + $1.parityErrors.count } == 15)
    }
  }

  @Test func rowDetails() throws {
    let result = try textFile("hf_14a_mfu-sim.list_14a")
    let f = result.frames
    #expect(
      f[0].location.record == 8 && f[0].location.offset == 483 && f[0].location.unit == "line")
    #expect(f[0].sourceTime == SourceTime(0, .proxmarkTicks) && f[0].durationNs == 77_876)
    #expect(f[1].sourceTime == SourceTime(2228, .proxmarkTicks))
    let rats = try textFile("hf_14a_reader_4b_rats.list_14a").frames
    #expect(rats[1].data == [0x04, 0x03] && rats[1].parityErrors == [1])
  }

  @Test func continuationRowsJoinTheirFrame() throws {
    let f = try textFile("hf_14a_mfuc.list_14a").frames
    let auth2 = try #require(f.first { $0.data.first == 0xAF && $0.direction == .reader })
    #expect(auth2.data.count == 19 && auth2.data.last == 0x31)
    #expect(auth2.location.record == 22)
    let apdu = try textFile("hf_visa_apple_ecp.list_7816").frames
    #expect(apdu.map(\.data.count).max() == 64)
  }

  @Test func mifareDecryptedRowsAreNotFrames() throws {
    let f = try textFile("hf_mf_hid_sio_sim.list_mf").frames
    #expect(f[14].data == [0x44, 0x70, 0x9A, 0x44] && f[14].parityErrors == [1, 2])
    #expect(f[15].data.prefix(3) == [0xF7, 0x6C, 0x8F] && f[15].direction == .tag)
    #expect(f[15].data.count == 18 && f[15].location.record == 25)
  }

  @Test func microsecondColumnsAreRebuiltFromGaps() throws {
    let f = try textFile("hf_14a_mfu-sim.list_14a_r_u").frames
    #expect(f[0].timeNs == 0 && f[0].durationNs == 77_876)
    #expect(f[1].sourceTime == SourceTime(164, .microseconds))  // 77.9 + 86.4 µs
    #expect(f[3].data == [0x26] && f[3].bits == 7)
  }

  @Test func absoluteMicrosecondColumns() throws {
    let listing = """
      [=] ISO14443A - all times are in microseconds
            Start |        End | Src | Data (! denotes parity error)     | CRC | Annotation
               0.0 |       77.9 | Rdr |26(7)                             |     | REQA
             164.3 |      338.9 | Tag |44  00                            |     |
      """
    let f = try text(TraceInput(path: "u.txt", bytes: Data(listing.utf8))).frames
    #expect(f.map(\.timeNs) == [0, 164_307])  // 164.3 µs = 2228 ticks
    #expect(f[1].sourceTime == SourceTime(164, .microseconds))
    #expect(f[1].durationNs == 174_558)  // 338.9 µs = 4595 ticks: 2367 ticks long
    #expect(f[0].bits == 7)
  }

  @Test func crlfAndTabsReadTheSame() throws {
    let original = try bytesOf("derived/proxmark3-text/hf_14a_mfu-sim.list_14a_c.txt")
    let lf = try text(TraceInput(path: "lf.txt", bytes: original)).frames
    let crlf = String(decoding: original, as: UTF8.self).replacingOccurrences(
      of: "\n", with: "\r\n")
    let tabbed = crlf.replacingOccurrences(of: " | ", with: "\t|\t")
      .replacingOccurrences(of: "  ", with: "\t")
    for variant in [crlf, tabbed] {
      let result = try text(TraceInput(path: "crlf.txt", bytes: Data(variant.utf8)))
      #expect(result.warnings.isEmpty)
      #expect(result.frames.count == lf.count)
      for (a, b) in zip(result.frames, lf) {
        #expect(a.data == b.data && a.bits == b.bits && a.timeNs == b.timeNs)
        #expect(a.direction == b.direction && a.parityErrors == b.parityErrors)
        #expect(a.durationNs == b.durationNs && a.location.record == b.location.record)
      }
    }
    let crlfFrames = try text(TraceInput(path: "crlf.txt", bytes: Data(crlf.utf8))).frames
    #expect(crlfFrames[1].location.offset == lf[1].location.offset + 8)  // 8 lines, 8 more CRs
  }

  @Test func colouredOutputIsStripped() throws {
    let esc = "\u{1B}"
    let listing = """
      [usb] pm3 --> hf 14a list
      \(esc)[33m      Start |        End | Src | Data (! denotes parity error)  | CRC | Annotation\(esc)[0m
      ------------+------------+-----+--------------------------------+-----+------
      \(esc)[33m          0\(esc)[0m | \(esc)[33m      1056\(esc)[0m | \(esc)[33mRdr\(esc)[0m |\(esc)[33m26(7)   \(esc)[0m | \(esc)[33m    \(esc)[0m| \(esc)[33mREQA\(esc)[0m
             2228 |       4596 | Tag |44  03!     |     |
      """
    let f = try text(TraceInput(path: "c.txt", bytes: Data(listing.utf8))).frames
    #expect(f.count == 2 && f[0].bits == 7 && f[0].data == [0x26])
    #expect(f[1].data == [0x44, 0x03] && f[1].parityErrors == [1] && f[1].timeNs == 164_307)
  }

  @Test func unreadableLineInsideTableIsAWarning() throws {
    var listing = try String(
      decoding: bytesOf("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt"), as: UTF8.self)
    let insertAt = try #require(listing.range(of: "       2100 |"))
    listing.insert(contentsOf: "this is not a row\n", at: insertAt.lowerBound)
    let result = try text(TraceInput(path: "w.txt", bytes: Data(listing.utf8)))
    #expect(result.frames.count == 6)
    #expect(result.warnings.count == 1)
    let warning = try #require(result.warnings.first)
    #expect(warning.location?.record == 9 && warning.location?.unit == "line")
    #expect(
      warning.location?.offset
        == listing.utf8.distance(from: listing.utf8.startIndex, to: insertAt.lowerBound))
    #expect(warning.message.contains("this is not a row"))
  }

  /// A listing cut inside a row (the last line, without its line end, unreadable) is a
  /// truncated input, not a skipped line: the frames before it come first, then the error
  /// naming the line; the same row with its line end stays a warning.
  @Test func listingCutInsideARowIsTruncated() throws {
    let listing = try String(
      decoding: bytesOf("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt"), as: UTF8.self)
    let row = try #require(listing.range(of: "       2100 |"))
    let lineStart = listing.utf8.distance(from: listing.utf8.startIndex, to: row.lowerBound)
    let cut = String(listing[..<row.lowerBound]) + "       2100 |       4468 | Tag |44  0"
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "c.txt", bytes: Data(cut.utf8)))
    var count = 0
    let error = try #require(throws: TraceError.self) {
      while try importer.next() != nil { count += 1 }
    }
    #expect(count == 1)
    #expect(error.kind == .truncated)
    #expect(
      error.location == SourceLocation(file: "c.txt", unit: "line", record: 9, offset: lineStart))
    let ended = try text(TraceInput(path: "c.txt", bytes: Data((cut + "\n").utf8)))
    #expect(ended.frames.count == 1 && ended.warnings.count == 1)
  }

  /// A last row without its line end and short of the header's columns is cut even when its
  /// bytes parse (`Tag |04  00` lost its CRC and annotation columns); the session's last
  /// operation is then unknown (the answers after the cut are not in the trace), not a
  /// failed activation. A shell prompt after the table is no row and stays a warning.
  @Test func rowShortOfColumnsIsACut() throws {
    let listing = try String(
      decoding: bytesOf("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt"), as: UTF8.self)
    let row = try #require(listing.range(of: "      74164 |"))
    let cut = String(listing[..<row.lowerBound]) + "      74164 |      77684 | Tag |08  B6  DD"
    let run = try SessionAnalysisRun(
      importer: Proxmark3TextImporter(input: TraceInput(path: "c.txt", bytes: Data(cut.utf8))))
    #expect(run.error?.kind == .truncated && run.error?.location.record == 13)
    let connect = try #require(run.sessions.first?.operations.first)
    #expect(connect.kind == .connect && connect.outcome == .unknown)
    #expect(connect.reason?.hasPrefix("the trace was cut at c.txt: line 13") == true)
    #expect(connect.detail("trace_cut") != nil)
    let diagnosis = try DiagnosisRun(
      importer: Proxmark3TextImporter(input: TraceInput(path: "c.txt", bytes: Data(cut.utf8)))
    ).diagnose(expected: nil)
    #expect(diagnosis.sessions.first?.findings.map(\.code) == ["trace-cut"])
    let prompt = listing + "\nuser@host:~$ "
    let prompted = try text(TraceInput(path: "p.txt", bytes: Data(prompt.utf8)))
    #expect(prompted.frames.count == 6 && prompted.warnings.count == 1)
  }

  /// A `-x` hex-dump listing cut inside its last data row is a cut too (exit 3 after the
  /// frames before it), though its rows have no `|`.
  @Test func hexDumpListingCutInsideARow() throws {
    let whole = try bytesOf("derived/proxmark3-text/hf_14a_mfu.list_14a_x.hexonly.txt")
    var importer = try Proxmark3TextImporter(
      input: TraceInput(path: "x.txt", bytes: whole.prefix(whole.count - 12)))
    var count = 0
    let error = try #require(throws: TraceError.self) {
      while try importer.next() != nil { count += 1 }
    }
    #expect(error.kind == .truncated && error.location.record == 44)
    #expect(count == 21)
  }

  @Test func noTableIsMalformed() throws {
    let input = TraceInput(path: "n.txt", bytes: Data("[+] hello\nsome words\n\n".utf8))
    var importer = try Proxmark3TextImporter(input: input)
    let error = try #require(throws: TraceError.self) { try importer.next() }
    #expect(error.kind == .malformed && error.location.unit == "line")
    #expect(
      Proxmark3TextImporter.format.sniff([UInt8]("[+] hello\nsome words\n".utf8), "n.txt") == 0)
  }

  @Test func hexDumpBitsAndEmptyRecords() throws {
    let dump = """
      0.0000001000
      000000 00 fe 00 01 52 
      0.0000002100
      000000 00 ff 00 02 44 00 
      <empty trace - possible error>
      0.0000009000
      000000 00 ff 00 01 0a 
      """
    let f = try text(TraceInput(path: "x.txt", bytes: Data(dump.utf8))).frames
    #expect(f.map(\.bits) == [7, nil, 4])
    #expect(f.map(\.timeNs) == [0, 81_121, 589_971])  // 1100 and 8000 ticks
    #expect(f[2].location.record == 7)
  }

  @Test func hitagListingRealignedLikeTheBinary() throws {
    let listing = """
      [=] Hitag1 / Hitag2 / HitagS - Timings in ETU (8us)
            Start |        End | Src | Data (! denotes parity error)   | CRC | Annotation
               0 |          0 | Rdr |18(5)                           |     |
             117 |        117 | Tag |21  A5  B4  73                  |     |
      """
    let f = try text(TraceInput(path: "h.txt", bytes: Data(listing.utf8))).frames
    #expect(f[0].data == [0xC0] && f[0].bits == 5)
    // As the binary importer flags an LF file's frames: no type A parity, bits MSB first.
    #expect(f[0].sourceFlags == ["parity-not-recorded", "msb-first"])
    #expect(f.map(\.technology) == [.lowFrequency, .lowFrequency])
    #expect(f[1].data == [0x21, 0xA5, 0xB4, 0x73] && f[1].bits == nil)
  }
}

/// A listing saved by Windows PowerShell (`>` writes UTF-16LE with a BOM) reads like the UTF-8
/// one; binary data that merely starts with FF FE stays binary.
@Suite struct UTF16TextTests {
  @Test func powerShellListingReadsLikeUTF8() throws {
    let utf8 = try Data(
      contentsOf: URL(
        fileURLWithPath: TestPaths.shared("derived/proxmark3-text/hf_14a_reader_4b.list_14a.txt")))
    let text = String(decoding: utf8, as: UTF8.self)
    var utf16 = Data([0xFF, 0xFE])
    utf16.append(try #require(text.data(using: .utf16LittleEndian)))
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-utf16-\(UUID().uuidString).txt").path
    try utf16.write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let input = try TraceInput(path: path)
    #expect(input.transcodedFrom == "UTF-16LE")
    #expect(input.bytes == utf8)
    var importer = try Proxmark3TextImporter(input: input)
    var count = 0
    while try importer.next() != nil { count += 1 }
    #expect(count == 6)
    // FF FE then bytes that are not ASCII text in UTF-16: not converted.
    #expect(UTF16Text.utf8(from: Data([0xFF, 0xFE, 0x10, 0x27, 0x00, 0x00])) == nil)
    #expect(
      UTF16Text.utf8(from: Data([0xFE, 0xFF, 0x00, 0x41, 0x00, 0x0A]))?.bytes == Data("A\n".utf8))
    // Non-ASCII text and colour codes convert; a lone surrogate and an odd last byte are
    // repaired as U+FFFD (and said to be).
    let accented = UTF16Text.utf8(from: Data([0xFF, 0xFE, 0xE9, 0x00, 0x1B, 0x00, 0x0A, 0x00]))
    #expect(accented?.bytes == Data("é\u{1B}\n".utf8) && accented?.repaired == false)
    let broken = UTF16Text.utf8(from: Data([0xFF, 0xFE, 0x41, 0x00, 0x00, 0xD8, 0x42]))
    #expect(broken?.bytes == Data("A\u{FFFD}\u{FFFD}".utf8) && broken?.repaired == true)
    // A surrogate pair (an emoji) is valid: nothing repaired.
    let emoji = UTF16Text.utf8(from: Data([0xFF, 0xFE, 0x3D, 0xD8, 0x42, 0xDE, 0x0A, 0x00]))
    #expect(emoji?.bytes == Data("🙂\n".utf8) && emoji?.repaired == false)
  }
}

/// An LF trace (Hitag: parity fields hold the valid-bit count `[k, 0…]`, no 14443-A parity)
/// is kept raw as LF: its frames were checked as CRC_A (false `bad-crc`) and read as Type 2
/// commands.
@Test func proxmark3LFTraceFramesAreLowFrequency() throws {
  let (frames, _) = try binary("lf_HitagS256_dump")
  #expect(frames.allSatisfy { $0.data.isEmpty || $0.technology == .lowFrequency })
  let (decoded, _) = decodeAll(frames)
  #expect(!decoded.flatMap { $0.findings.map(\.code) }.contains("bad-crc"))
  #expect(decoded[0].undecodedReason == "low-frequency (125/134 kHz) frames not decoded yet")
  // An ISO 14443-A trace stays NFC-A.
  #expect(try binary("hf_14a_mfu").frames.allSatisfy { $0.technology == .nfcA })
}

/// An older client's listing ends with its prompt `proxmark3> `: no "line skipped" warning
/// (hunt importers, cosmetic).
@Test func olderClientPromptIsIgnored() throws {
  let list = try bytesOf("derived/proxmark3-text/hf_14a_mfu.list_14a.txt")
  let (frames, warnings) = try text(
    TraceInput(path: "old.txt", bytes: list + Data("proxmark3> \n".utf8)))
  #expect(frames.count == 22)
  #expect(warnings.isEmpty)
}

/// `trace list -t raw` names no protocol: a 14443-B listing's 1-byte frames are whole bytes,
/// not short 14443-A frames by duration (hunt importers #5: `b1(1)`); a 14443-A one (REQA
/// first) keeps the duration rule.
@Test func rawListingAppliesTheDurationRuleOnlyToISO14443A() throws {
  let header =
    "      Start |        End | Src | Data (! denotes parity error)     | CRC | Annotation\n"
    + "------------+------------+-----+----------------------------------+-----+-----------\n"
  let b =
    header + "          0 |       2048 | Rdr |0D  37  21  92  F2                 |     | \n"
    + "      35824 |      36080 | Rdr |B1                                |     | \n"
  let (frames, _) = try text(TraceInput(path: "b.txt", bytes: Data(b.utf8)))
  #expect(frames.map(\.bits) == [nil, nil])
  let a =
    header + "          0 |       1056 | Rdr |26                                |     | \n"
    + "       2228 |       4596 | Tag |44  00                            |     | \n"
  let (aFrames, _) = try text(TraceInput(path: "a.txt", bytes: Data(a.utf8)))
  #expect(aFrames.map(\.bits) == [7, nil])
}

/// A bit-count mark no client prints, `(9)` or `(0)`, is warned of (it was dropped silently);
/// `DA!!` marks one parity error, not two.
@Test func oddBitMarksAreWarnedAndParityMarksCountOnce() throws {
  let listing = """
    [=] ISO14443A - all times are in carrier periods (1/13.56MHz)
          Start |        End | Src | Data (! denotes parity error)     | CRC | Annotation
              0 |       1056 | Rdr |26(7)                             |     | REQA
           2228 |       4596 | Tag |44  00(9)                         |     |
           7000 |       9000 | Tag |DA!!  20                          |     |
    """
  var importer = try Proxmark3TextImporter(
    input: TraceInput(path: "odd.txt", bytes: Data(listing.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  #expect(frames.count == 3)
  #expect(frames[1].bits == nil)
  #expect(
    importer.warnings.map(\.message) == [
      "bit-count mark (9) ignored: expected 1 to 7 valid bits in the last byte; the frame is "
        + "read as whole bytes"
    ])
  #expect(frames[2].parityErrors == [0])
}

/// The official client of about 2015 printed `iso14443a - …` and `iClass - …` over every
/// listing: that preamble names no protocol, so an iCLASS listing's ACTALL `0a` (352 ticks)
/// stays a whole byte, not a 2-bit type A frame, and its frames decode as iCLASS.
@Test func officialClient2015PreambleNamesNoProtocol() throws {
  let listing = """
    Recorded Activity (TraceLen = 504 bytes)

    Start = Start of Start Bit, End = End of last modulation. Src = Source of Transfer
    iso14443a - All times are in carrier periods (1/13.56Mhz)
    iClass    - Timings are not as accurate

          Start |        End | Src | Data (! denotes parity error)              | CRC | Annotation |
    ------------|------------|-----|--------------------------------------------|-----|------------|
              0 |        352 | Rdr |0a                                          |     |
          53088 |      53440 | Rdr |0c                                          |     |
        1211424 |    1212832 | Tag |73  a2  05! 60! ff! 5f! 02  1c  9c! f2      |  ok |
    """
  var importer = try Proxmark3TextImporter(
    input: TraceInput(path: "2015.txt", bytes: Data(listing.utf8)))
  var frames: [Frame] = []
  while let f = try importer.next() { frames.append(f) }
  #expect(frames.map(\.bits) == [nil, nil, nil])
  #expect(frames.map(\.data.count) == [1, 1, 10])
  let (decoded, _) = decodeAll(frames)
  #expect(decoded.map(\.decodedTechnology) == [.iClass, .iClass, .iClass])
}
