import Foundation

/// Paths used by the tests: the repository root, `Traces/`, and `../shared/traces/` (or
/// `NFCTRACE_SHARED_TRACES`).
public enum TestPaths {
  /// The repository root (two levels above this file's folder).
  public static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `../shared/traces` beside the checkout, or the folder `NFCTRACE_SHARED_TRACES` names (a
  /// checkout somewhere else).
  public static let sharedTraces: URL = {
    if let path = ProcessInfo.processInfo.environment["NFCTRACE_SHARED_TRACES"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    return root.deletingLastPathComponent().appendingPathComponent("shared/traces")
  }()

  /// A file under `../shared/traces/`, e.g. `public/proxmark3/hf_14a_mfu.trace`.
  public static func shared(_ relative: String) -> String {
    sharedTraces.appendingPathComponent(relative).path
  }

  /// A file under the project's own `Traces/`.
  public static func traces(_ relative: String) -> String {
    root.appendingPathComponent("Traces").appendingPathComponent(relative).path
  }
}
