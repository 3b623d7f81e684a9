import Testing

@testable import NFCTrace

/// MIFARE Ultralight C 3DES AUTHENTICATE (MF0ICU2 datasheet §7.5.5–7.5.7: 1A 00 → AF
/// ek(RndB); AF ek(RndA ‖ RndB') → 00 ek(RndA')), protocol review.
@Suite struct UltralightCAuthTests {
  static func auth(second: TraceBuilder.T2Answer?) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.tag([0xAF] + Array(repeating: 0x57, count: 8))
    switch second {
    case nil: break
    case .ack?:
      b.reader([0xAF] + Array(repeating: 0x0A, count: 16))
      b.tag([0x00] + Array(repeating: 0x3B, count: 8))
    case .nak(let code)?:
      b.reader([0xAF] + Array(repeating: 0x11, count: 16))
      b.add4Bit(code)
    case .none?: break
    }
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    return b
  }

  static func authenticate(_ b: TraceBuilder) throws -> Operation {
    let s = try #require(try sessions(b).first)
    return try #require(s.operations.first { $0.kind == .authenticate })
  }

  /// The reader stopped after the tag's ek(RndB): not authenticated, so not `ok` (it was).
  @Test func firstStepOnlyIsUnknown() throws {
    let op = try Self.authenticate(Self.auth(second: nil))
    #expect(op.outcome == .unknown)
    #expect(
      op.reason
        == "the reader never sent the second step (AF + ek(RndA ‖ RndB')): the tag is not "
        + "authenticated, and whether the key is right is not known")
  }

  @Test func bothStepsAnsweredAreOK() throws {
    #expect(try Self.authenticate(Self.auth(second: .ack)).outcome == .ok)
  }

  /// A NAK to the second step is a wrong 3DES key: the fix speaks of the key, not PWD_AUTH.
  @Test func refusedSecondStepGetsTheKeyFix() throws {
    let frames = Self.auth(second: .nak(0x00)).frames
    let report = try DiagnosisRun(importer: MemoryImporter(frames: frames)).diagnose(expected: nil)
    let f = try #require(report.findings.first { $0.code == "authentication-failed" })
    #expect(f.fix.hasPrefix("Check the key and its byte order: a NAK to the second step"))
    #expect(!f.fix.contains("PWD_AUTH"))
    #expect(f.coreNFCError == .tagResponseError)
  }
  /// A NAK to the first step: no key was tried, so no key advice (review).
  @Test func refusedFirstStepIsNoKeyProblem() throws {
    var b = TraceBuilder()
    b.activateType2()
    b.reader([0x1A, 0x00])
    b.add4Bit(0x00)
    b.read(3, [0xE1, 0x10, 0x12, 0x00, 0x03, 0x00, 0xFE])
    let report = try DiagnosisRun(importer: MemoryImporter(frames: b.frames)).diagnose(
      expected: nil)
    let f = try #require(report.findings.first { $0.code == "authentication-failed" })
    #expect(f.fix.hasPrefix("The tag refused AUTHENTICATE's first step (1A + key number)"))
    #expect(!f.fix.contains("ek(RndA"))
  }
}
