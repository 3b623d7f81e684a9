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
