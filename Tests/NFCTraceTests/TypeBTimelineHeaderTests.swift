import Foundation
import TestSupport
import Testing

@testable import NFCTrace

/// The text timeline of `frames`, as `nfctrace timeline` streams it.
private func timelineLines(_ frames: [Frame]) throws -> [String] {
  let out = OutputBuffer(fd: nil)
  let r = TimelineTextRenderer(out: out, color: false)
  _ = try SessionAnalysisRun(importer: MemoryImporter(frames: frames)) { item in
    switch item {
    case .frame(let f): r.render(f)
    case .event(let e): r.render(e)
    case .session: break
    }
  }
  r.finish()
  return out.text.split(separator: "\n").map(String.init)
}

/// ISO/IEC 14443-3 type B slotted anticollision in the text timeline.
@Suite struct TypeBTimelineHeaderTests {
  /// REQB with 4 slots: tag 11223344 answers in slot 1, tag aabbccdd after Slot-MARKER 2, and
  /// ATTRIB selects aabbccdd, the only PICC that becomes ACTIVE (ISO/IEC 14443-3 §7.10): the
  /// session header names its PUPI, not the first ATQB's.
  @Test func timelineHeaderNamesThePUPIAttribSelected() throws {
    let frames = typeB([
      (.reader, "050002"),
      (.tag, "5011223344000000000081 71"),
      (.reader, "15"),
      (.tag, "50aabbccdd000000000051 81"),
      (.reader, "1daabbccdd00080100"),
      (.tag, "00"),
    ])
    let lines = try timelineLines(frames)
    #expect(lines.first?.hasPrefix("── session 0 · NFC-B · PUPI AA:BB:CC:DD ─") == true)
    #expect(lines.filter { $0.hasPrefix("── session") }.count == 1)
    #expect(lines.filter { $0.hasPrefix("#") }.count == 6)
    // One tag answering: its ATQB names it, no ATTRIB needed for the header.
    let one = try timelineLines(
      Array(typeB([(.reader, "050000"), (.tag, "50aabbccdd000000000051 81")])))
    #expect(one.first?.hasPrefix("── session 0 · NFC-B · PUPI AA:BB:CC:DD ─") == true)
  }
}
