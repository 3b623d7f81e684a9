import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One run of the `nfctrace` binary: exit status, output, wall time and peak memory.
struct CLIRun: Sendable {
  /// Exit status; for a child killed by a signal, 128 + the signal number (shell convention).
  var status: Int32
  /// True when the child was killed by a signal (crash, sanitizer abort, our timeout kill).
  var signaled: Bool
  var stdout: String
  var stderr: String
  /// Wall-clock seconds from spawn to exit.
  var seconds: Double
  /// Peak resident set size of the child in KiB (`ru_maxrss` from `wait4`).
  var maxRSSKiB: Int
  /// True when the run was killed for taking longer than the kill limit.
  var timedOut: Bool
}

/// Runs the real `nfctrace` executable that SwiftPM built beside the test runner.
enum CLI {
  /// `NFCTRACE_BIN` if set, else `nfctrace` in the folder of the running test binary (the
  /// build folder of the current configuration, sanitizer builds included), else
  /// `.build/debug/nfctrace`.
  static let binary: String = {
    if let path = ProcessInfo.processInfo.environment["NFCTRACE_BIN"] { return path }
    let exe =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    let beside = URL(fileURLWithPath: exe).deletingLastPathComponent()
      .appendingPathComponent("nfctrace").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return TestPaths.root.appendingPathComponent(".build/debug/nfctrace").path
  }()

  /// Runs `nfctrace args…` with standard input from /dev/null; kills it after `killAfter`
  /// seconds (reported as `timedOut`).
  static func run(_ args: [String], killAfter: Double = 30) -> CLIRun {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-cli-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let outPath = dir.appendingPathComponent("stdout").path
    let errPath = dir.appendingPathComponent("stderr").path

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let start = Date()
    let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
    guard spawned == 0 else {
      return CLIRun(
        status: -1, signaled: false, stdout: "",
        stderr: "cannot spawn \(binary): errno \(spawned)", seconds: 0, maxRSSKiB: 0,
        timedOut: false)
    }
    var status: Int32 = 0
    var usage = rusage()
    var timedOut = false
    while true {
      let r = wait4(pid, &status, WNOHANG, &usage)
      if r == pid || (r < 0 && errno != EINTR) { break }
      if !timedOut, Date().timeIntervalSince(start) > killAfter {
        timedOut = true
        kill(pid, SIGKILL)
      }
      usleep(2_000)
    }
    let seconds = Date().timeIntervalSince(start)
    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
    let signal = status & 0x7F
    let signaled = signal != 0
    return CLIRun(
      status: signaled ? 128 + signal : (status >> 8) & 0xFF, signaled: signaled,
      stdout: read(outPath), stderr: read(errPath), seconds: seconds,
      maxRSSKiB: Int(usage.ru_maxrss), timedOut: timedOut)
  }

  private static func read(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return String(decoding: data, as: UTF8.self)
  }
}
