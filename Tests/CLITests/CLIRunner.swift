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
  /// Peak resident set size of `nfctrace` in KiB (see `CLI.run`).
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

  /// GNU time, used to measure the peak RSS of `nfctrace` alone.
  static let timeTool = "/usr/bin/time"

  /// Runs `nfctrace args…` with standard input from `stdin` (/dev/null unless given); kills it
  /// after `killAfter` seconds (reported as `timedOut`). `unwritableStdout`: standard output
  /// is opened read-only, so that every write to it fails (EBADF); `unwritableStderr` likewise
  /// for standard error; `closedStdout`: the program starts with standard output closed
  /// (`>&-`); `environment`: variables set for the run.
  ///
  /// The peak RSS comes from `/usr/bin/time -f %M` when installed: a child spawned from the
  /// test process (posix_spawn = vfork + exec) inherits the test process's RSS high-water mark
  /// in its own `ru_maxrss`, which is then the size of the test runner, not of `nfctrace`.
  /// GNU time forks from a small process, so its figure is `nfctrace`'s own. Without it,
  /// `wait4`'s `ru_maxrss` is used (an upper bound).
  static func run(
    _ args: [String], killAfter: Double = 30, stdin: String = "/dev/null",
    unwritableStdout: Bool = false, unwritableStderr: Bool = false,
    closedStdout: Bool = false, environment: [String: String] = [:]
  ) -> CLIRun {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("nfctrace-cli-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let outPath = dir.appendingPathComponent("stdout").path
    let errPath = dir.appendingPathComponent("stderr").path
    let rssPath = dir.appendingPathComponent("rss").path
    // Not through GNU time with standard output closed: its -o file would take that number.
    let timed = FileManager.default.isExecutableFile(atPath: timeTool) && !closedStdout
    let command = timed ? [timeTool, "-f", "%M", "-o", rssPath, binary] + args : [binary] + args

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
    if closedStdout {
      posix_spawn_file_actions_addclose(&actions, 1)
    } else {
      posix_spawn_file_actions_addopen(
        &actions, 1, outPath, (unwritableStdout ? O_RDONLY : O_WRONLY) | O_CREAT | O_TRUNC, 0o644)
    }
    posix_spawn_file_actions_addopen(
      &actions, 2, errPath, (unwritableStderr ? O_RDONLY : O_WRONLY) | O_CREAT | O_TRUNC, 0o644)

    // Own process group, so that a timeout kills `nfctrace` as well as GNU time.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)

    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let start = Date()
    // `environment` adds to (or replaces in) the test process's environment.
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { _, new in new }
    let envp: [UnsafeMutablePointer<CChar>?] =
      merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in envp { free(p) } }
    let spawned =
      environment.isEmpty
      ? posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
      : posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
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
        kill(-pid, SIGKILL)
      }
      usleep(2_000)
    }
    let seconds = Date().timeIntervalSince(start)
    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
    let signal = status & 0x7F
    var code = signal != 0 ? 128 + signal : (status >> 8) & 0xFF
    var stderr = read(errPath)
    var rss = Int(usage.ru_maxrss)
    if timed {
      // GNU time exits with the command's status, or 128 + N after "Command terminated by
      // signal N" (its -o file then holds that line before the figure).
      let report = read(rssPath).split(separator: "\n")
      rss = report.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? rss
      if let line = report.first(where: { $0.hasPrefix("Command terminated by signal") }) {
        stderr += "\n" + line
        code = 128 + (Int32(line.split(separator: " ").last ?? "") ?? 0)
      }
    }
    return CLIRun(
      status: code, signaled: code > 128, stdout: read(outPath), stderr: stderr,
      seconds: seconds, maxRSSKiB: rss, timedOut: timedOut)
  }

  private static func read(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return String(decoding: data, as: UTF8.self)
  }
}
