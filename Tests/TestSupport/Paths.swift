import Foundation

/// Paths used by the tests: the repository root, `Traces/`, and `../shared/traces/`.
public enum TestPaths {
  /// The repository root (two levels above this file's folder).
  public static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `../shared/traces` beside the checkout.
  public static let sharedTraces: URL = root.deletingLastPathComponent()
    .appendingPathComponent("shared/traces")

  /// A file under `../shared/traces/`, e.g. `public/proxmark3/hf_14a_mfu.trace`.
  public static func shared(_ relative: String) -> String {
    sharedTraces.appendingPathComponent(relative).path
  }

  /// A file under the project's own `Traces/`.
  public static func traces(_ relative: String) -> String {
    root.appendingPathComponent("Traces").appendingPathComponent(relative).path
  }
}
