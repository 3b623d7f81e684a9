import Foundation
import TestSupport
import Testing

// Golden outputs: every command of Traces/golden/MANIFEST (written by Traces/make_goldens.sh)
// is run with the nfctrace binary from the repository root and must print exactly its golden.

/// One line of the manifest: the golden file and the nfctrace arguments that produce it.
struct GoldenCase: CustomTestStringConvertible, Sendable {
  var golden: String
  var arguments: [String]
  var testDescription: String { golden }

  /// The manifest's entries; empty when the manifest is missing (the test then fails).
  static let all: [GoldenCase] = {
    let path = TestPaths.traces("golden/MANIFEST")
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      guard !line.hasPrefix("#") else { return nil }
      let parts = line.split(separator: "\t", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      return GoldenCase(
        golden: String(parts[0]), arguments: parts[1].split(separator: " ").map(String.init))
    }
  }()
}

/// The nfctrace binary built with the tests (beside the test bundle), else a release build.
private func nfctraceBinary() -> URL? {
  var candidates: [URL] = []
  if let exe = Bundle.main.executableURL {
    candidates.append(exe.deletingLastPathComponent().appendingPathComponent("nfctrace"))
  }
  if let argv0 = CommandLine.arguments.first {
    candidates.append(
      URL(fileURLWithPath: argv0).deletingLastPathComponent().appendingPathComponent("nfctrace"))
  }
  candidates += ["debug", "release"].map {
    TestPaths.root.appendingPathComponent(".build/\($0)/nfctrace")
  }
  return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Runs nfctrace from the repository root; returns standard output.
private func runNFCTrace(_ binary: URL, _ arguments: [String]) throws -> String {
  let p = Process()
  p.executableURL = binary
  p.arguments = arguments
  p.currentDirectoryURL = TestPaths.root
  let out = Pipe()
  p.standardOutput = out
  p.standardError = FileHandle.nullDevice
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}

/// A unified-diff-like excerpt around the first differing line (3 lines of context).
func diffExcerpt(expected: String, actual: String, name: String) -> String {
  let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
  let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
  let lo = max(first - 3, 0)
  var lines = ["--- Traces/golden/\(name)", "+++ actual", "@@ line \(first + 1) @@"]
  lines += a[lo..<first].map { " " + $0 }
  lines += a[first..<min(first + 6, a.count)].map { "-" + $0 }
  lines += b[first..<min(first + 6, b.count)].map { "+" + $0 }
  return lines.joined(separator: "\n")
}

@Test func goldenManifestIsPresent() {
  // 11 simulated pcaps + the noisy Proxmark3 trace + 3 demo pcaps + 4 USB captures + 2
  // Flipper debug pcaps + 3 Type 3 Tag NFC-Laboratory exports + 1 Android snoop log, × 8
  // outputs each; and the README's diff example, text and JSON.
  #expect(GoldenCase.all.count == 25 * 8 + 2)
  #expect(GoldenCase.all.contains { $0.golden == "t2t-ntag215-write-ok-vs-torn.diff.txt" })
  #expect(GoldenCase.all.contains { $0.golden == "t2-removed-mid-write.pcap.diagnose.txt" })
}

@Test(arguments: GoldenCase.all)
func outputMatchesGolden(_ c: GoldenCase) throws {
  let binary = try #require(nfctraceBinary(), "nfctrace is not built: run swift build first")
  let expected = try String(contentsOfFile: TestPaths.traces("golden/\(c.golden)"), encoding: .utf8)
  let actual = try runNFCTrace(binary, c.arguments)
  // Issue.record rather than #expect: the whole of a JSON timeline is too long to print.
  if actual != expected {
    Issue.record(
      """
      output of `nfctrace \(c.arguments.joined(separator: " "))` drifted from its golden:
      \(diffExcerpt(expected: expected, actual: actual, name: c.golden))
      If the change is intended, regenerate the goldens with `make traces` and review the diff.
      """)
  }
}
