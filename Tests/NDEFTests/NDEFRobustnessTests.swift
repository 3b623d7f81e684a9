import NDEF
import Testing

@Suite("NDEF bad input")
struct NDEFRobustnessTests {
  @Test("200,000 random and mutated byte strings decode or fail with an error, never crash")
  func randomBytes() {
    var rng = SplitMix64(seed: 7)
    var failures = 0
    var decoded = 0
    let seeds: [[UInt8]] = [
      NDEFMessage(records: [.smartPoster(NDEFMessage(records: [.uri("https://a.io"), .text("x")]))])
        .bytes,
      hx(NDEFRenderTests.bose).dropFirst(2).dropLast().map { $0 },
      NDEFMessage(records: [
        NDEFRecord(
          tnf: .wellKnown, type: Array("Hs".utf8),
          payload: [0x12] + NDEFMessage(records: [.text("y")]).bytes)
      ]).bytes,
    ]
    for i in 0..<200_000 {
      var bytes: [UInt8]
      if i % 2 == 0 {
        bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in
          UInt8.random(in: 0...255, using: &rng)
        }
      } else {
        bytes = seeds[i % seeds.count]
        for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
          bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(
            in: 0...255, using: &rng)
        }
      }
      let mode = NDEFValidationMode.allCases[i % 3]
      let report = NDEFValidator.validate(bytes, mode: mode)
      if report.failure != nil { failures += 1 } else { decoded += 1 }
      if let f = report.failure { #expect(f.offset >= 0 && f.offset <= bytes.count) }
      _ = Type2TLVArea(parsing: bytes)
    }
    #expect(failures + decoded == 200_000)
    #expect(failures > 0 && decoded > 0)
  }

  @Test("Every finding offset lies inside the input")
  func offsetsInside() {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 1...40, using: &rng)).map { _ in
        UInt8.random(in: 0...255, using: &rng)
      }
      for f in NDEFValidator.validate(bytes, mode: .relax).findings {
        #expect(f.offset >= 0 && f.offset <= bytes.count, "\(f) for \(hexString(bytes))")
      }
    }
  }
}

/// Zeros read as NDEF are 6-byte empty records: decoding stops at the record limit with
/// `too-many-records` (and the memory it holds stays bounded) instead of decoding millions.
@Suite struct NDEFRecordLimitTests {
  @Test func zerosStopAtTheRecordLimit() {
    let zeros = [UInt8](repeating: 0, count: 6 * NDEFMessageParser.recordLimit + 600)
    let r = NDEFMessageParser.parse(zeros, mode: .relax)
    #expect(r.message.records.count == 16_384)
    #expect(r.failure?.code == "too-many-records")
    #expect(r.failure?.offset == 98_304)
    #expect(r.consumed == 98_304)
    #expect(r.findings.map(\.code) == ["mb-missing", "too-many-records"])
    #expect(
      r.findings.last?.message.hasPrefix("decoding stopped after 16384 records: 600 byte(s)")
        == true)
  }

  /// A message of exactly the limit still decodes whole.
  @Test func theLimitItselfDecodes() {
    var bytes = [UInt8]()
    for i in 0..<NDEFMessageParser.recordLimit {
      let mb: UInt8 = i == 0 ? 0x80 : 0
      let me: UInt8 = i == NDEFMessageParser.recordLimit - 1 ? 0x40 : 0
      bytes += [mb | me | 0x10, 0x00, 0x00]  // SR, TNF 0: an empty record
    }
    let r = NDEFMessageParser.parse(bytes, mode: .strict)
    #expect(r.failure == nil)
    #expect(r.message.records.count == 16_384)
  }
}
