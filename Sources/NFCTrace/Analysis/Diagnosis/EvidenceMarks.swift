import Foundation

/// The evidence lines of a `diagnose` text report written as each session ends, before the
/// evidence frames are read again: each line is first a mark naming its frame
/// (`mark(_:answersCaptured:)`), then a second pass over the trace decodes the wanted
/// frames and `Filler` copies the text with each mark replaced by its frame's line.
///
/// A mark is `0x01`, the frame index in decimal, `0x02`, then `1` or `0` (whether the session's
/// answers were captured, `DiagnosisRender.frameLine`'s `answersCaptured`). The report's text
/// holds no other control byte: causes, messages and fixes pass through `ControlEscape`.
public struct EvidenceMarks: Sendable {
  /// The frames the marks name.
  public private(set) var wanted: Set<Int> = []

  /// No mark yet.
  public init() {}

  /// The mark of frame `index`'s line; records the frame as wanted.
  public mutating func mark(_ index: Int, answersCaptured: Bool) -> String {
    wanted.insert(index)
    return "\u{1}\(index)\u{2}" + (answersCaptured ? "1" : "0")
  }

  /// Copies marked text to an output, chunk by chunk, each mark replaced by its frame's line
  /// (the frame's index alone, `#N`, for a frame the second pass did not find).
  public struct Filler {
    private let lines: [Int: DiagnosisRender.EvidenceLine]
    private let out: OutputBuffer
    /// Bytes after the last newline of the chunks so far (a mark never spans a line).
    private var carry: [UInt8] = []

    /// A filler writing to `out` with the evidence lines by frame index.
    public init(lines: [Int: DiagnosisRender.EvidenceLine], to out: OutputBuffer) {
      self.lines = lines
      self.out = out
    }

    /// Takes the next chunk of the marked text.
    public mutating func copy(_ chunk: Data) {
      carry.append(contentsOf: chunk)
      guard let newline = carry.lastIndex(of: 0x0A) else { return }
      fill(carry[...newline])
      carry.removeSubrange(...newline)
    }

    /// Writes what is left after the last chunk.
    public mutating func finish() {
      fill(carry[...])
      carry.removeAll()
    }

    private func fill(_ text: ArraySlice<UInt8>) {
      var rest = text
      while let start = rest.firstIndex(of: 0x01) {
        rest[..<start].withUnsafeBufferPointer { out.append($0) }
        var i = rest.index(after: start)
        var index = 0
        while i < rest.endIndex, rest[i] >= 0x30, rest[i] <= 0x39, index <= (Int.max - 9) / 10 {
          index = index * 10 + Int(rest[i] - 0x30)
          i += 1
        }
        // `0x02` and the flag. Not a mark (none is written so): its bytes after the 0x01 are
        // printed as they are, not lost.
        guard i + 1 < rest.endIndex, rest[i] == 0x02 else {
          rest = rest[rest.index(after: start)...]
          continue
        }
        let captured = rest[i + 1] == 0x31
        out.write(
          lines[index]?.text(answersCaptured: captured) ?? DiagnosisRender.frameLine(index, nil))
        rest = rest[(i + 2)...]
      }
      rest.withUnsafeBufferPointer { out.append($0) }
    }
  }
}
