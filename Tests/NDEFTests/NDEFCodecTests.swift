import NDEF
import Testing

@Suite("NDEF codec")
struct NDEFCodecTests {
  @Test("Short Text record parses to exact fields and serializes back")
  func shortTextRoundTrip() throws {
    let bytes = hx("D1 01 0F 54 02 65 6E 48 65 6C 6C 6F 20 57 6F 72 6C 64 21")
    let m = try NDEFMessage(parsing: bytes)
    #expect(m.records.count == 1)
    let r = try #require(m.records.first)
    #expect(r.tnf == .wellKnown)
    #expect(r.type == [0x54])
    #expect(r.id == [])
    #expect(r.payload == hx("02 65 6E") + Array("Hello World!".utf8))
    #expect(r.chunks[0].header == 0xD1)
    #expect(r.payloadOffset == 4)
    #expect(m.bytes == bytes)
  }

  @Test("Long record (SR clear) with ID keeps its layout")
  func longRecordWithID() throws {
    // MB ME IL, TNF 2, type "a/b", 4-byte length 3, id "x".
    let bytes = hx("CA 03 00 00 00 03 01 61 2F 62 78 01 02 03")
    let m = try NDEFMessage(parsing: bytes)
    let r = try #require(m.records.first)
    #expect(r.tnf == .media)
    #expect(r.typeText == "a/b")
    #expect(r.idText == "x")
    #expect(r.payload == [1, 2, 3])
    #expect(r.chunks[0].sr == false)
    #expect(m.serialized() == bytes)
  }

  @Test("IL set with ID_LENGTH 0 survives a round trip")
  func emptyIDWithIL() throws {
    let bytes = hx("D9 01 01 00 55 00")
    let m = try NDEFMessage(parsing: bytes)
    #expect(m.records[0].id == [])
    #expect(m.records[0].chunks[0].il)
    #expect(m.bytes == bytes)
  }

  @Test("Chunked record is reassembled and keeps its chunk layout")
  func chunkedRecord() throws {
    // Initial chunk MB CF SR TNF 2 "t/x" "ab", middle TNF 6 "cd", terminating ME "e".
    let bytes = hx("B2 03 02 74 2F 78 61 62  36 00 02 63 64  56 00 01 65")
    let m = try NDEFMessage(parsing: bytes)
    #expect(m.records.count == 1)
    let r = try #require(m.records.first)
    #expect(r.isChunked)
    #expect(r.chunks.count == 3)
    #expect(r.chunks.map(\.payload.count) == [2, 2, 1])
    #expect(r.payload == Array("abcde".utf8))
    #expect(r.typeText == "t/x")
    #expect(m.bytes == bytes)
    let built = NDEFMessage(records: [
      NDEFRecord(
        tnf: .media, type: Array("t/x".utf8), chunkPayloads: [[0x61, 0x62], [0x63, 0x64], [0x65]])
    ])
    #expect(built.bytes == bytes)
  }

  @Test("Three records: MB only on the first, ME only on the last")
  func flagsOnEncode() {
    let m = NDEFMessage(records: [.uri("https://a.io"), .text("hi"), .empty])
    let raws = (try? NDEFMessage(parsing: m.bytes))?.rawRecords ?? []
    #expect(raws.map(\.header) == [0x91, 0x11, 0x50])
    #expect(hexString(m.bytes) == "910105550461" + "2e696f" + "110105540265" + "6e6869" + "500000")
  }

  @Test("A 4 GB PAYLOAD_LENGTH fails with the offset and does not allocate")
  func hugeLength() {
    let bytes = hx("C1 01 FF FF FF FF 55 00")
    #expect(throws: NDEFError.self) { try NDEFMessage(parsing: bytes) }
    do {
      _ = try NDEFMessage(parsing: bytes)
    } catch {
      #expect(error.code == "length-past-end")
      #expect(error.offset == 6)
      #expect(error.kind == .truncated)
    }
  }

  @Test("Every TNF 0-7 value decodes to its enum case")
  func allTNFs() {
    for v in UInt8(0)...7 {
      let raw = NDEFRawRecord(header: 0xD0 | v, type: [], id: [], payload: [])
      #expect(raw.tnf.rawValue == v)
    }
    #expect(NDEFTNF.reserved.name == "Reserved")
    #expect(NDEFTNF.external.coreNFCName == "nfcExternal")
  }

  @Test("Long payload (300 bytes) is written with a 4-byte length")
  func longPayloadEncode() throws {
    let r = NDEFRecord.mime("application/octet-stream", payload: Array(repeating: 7, count: 300))
    let bytes = NDEFMessage(records: [r]).bytes
    #expect(Array(bytes.prefix(6)) == [0xC2, 24, 0, 0, 0x01, 0x2C])
    #expect(try NDEFMessage(parsing: bytes).records[0].payload.count == 300)
  }

  @Test("Nested Smart Poster message round-trips")
  func nestedRoundTrip() throws {
    let inner = NDEFMessage(records: [.uri("https://nfc.example"), .text("Tap", language: "en")])
    let outer = NDEFMessage(records: [.smartPoster(inner)])
    let parsed = try NDEFMessage(parsing: outer.bytes)
    #expect(parsed.records[0].typeText == "Sp")
    #expect(
      try NDEFMessage(parsing: parsed.records[0].payload) == (try NDEFMessage(parsing: inner.bytes))
    )
    #expect(parsed.bytes == outer.bytes)
  }
}
