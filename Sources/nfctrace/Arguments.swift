/// A usage error: the CLI prints it with the command's usage and exits with status 2.
struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ message: String) { description = message }
}

/// `--help` or `-h` among a command's options (not after `--`, not an option's value): the
/// CLI prints the command's help and exits with status 0.
struct HelpRequested: Error {}

/// Command-line arguments split into positionals, options with values, and flags.
///
/// `--name value` and `--name=value` are accepted for options; `-` alone is a positional
/// (standard input); `--` ends options. `--no-color` is accepted by every command (only the
/// timeline colours its output), so scripts can pass it throughout.
struct Arguments {
  private(set) var positionals: [String] = []
  private var options: [String: String] = [:]
  private var flags: Set<String> = []

  /// Parses `args` given which names take a value and which are flags.
  /// - Throws: `HelpRequested` when `--help` or `-h` is among the options (before any usage
  ///   error of the others), else `UsageError` for the first option that is wrong.
  init(_ args: [String], options valued: Set<String>, flags known: Set<String>) throws {
    var firstError: UsageError?
    var help = false
    parse(args, valued: valued, known: known, help: &help, firstError: &firstError)
    if help { throw HelpRequested() }
    if let firstError { throw firstError }
  }

  private mutating func parse(
    _ args: [String], valued: Set<String>, known: Set<String>, help: inout Bool,
    firstError: inout UsageError?
  ) {
    var i = 0
    var onlyPositionals = false
    func fail(_ e: UsageError) { if firstError == nil { firstError = e } }
    while i < args.count {
      let a = args[i]
      i += 1
      if onlyPositionals || a == "-" || !a.hasPrefix("-") {
        positionals.append(a)
        continue
      }
      if a == "--" {
        onlyPositionals = true
        continue
      }
      if a == "--help" || a == "-h" {
        help = true
        continue
      }
      var name = a
      var inline: String?
      if let eq = a.firstIndex(of: "=") {
        name = String(a[..<eq])
        inline = String(a[a.index(after: eq)...])
      }
      if valued.contains(name) {
        let value: String
        if let inline {
          value = inline
        } else if i < args.count {
          value = args[i]
          i += 1
        } else {
          fail(UsageError("option \(name) needs a value"))
          continue
        }
        // No option takes an empty value (`-o ''` would name no file).
        guard !value.isEmpty else {
          fail(UsageError("option \(name) needs a value, got an empty one"))
          continue
        }
        options[name] = value
      } else if known.contains(name) || name == "--no-color", inline == nil {
        flags.insert(name)
      } else {
        fail(UsageError("unknown option \(a)"))
      }
    }
  }

  /// The value of option `name`, if given.
  func value(_ name: String) -> String? { options[name] }

  /// True if flag `name` was given.
  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The value of `name`, which must be one of `allowed`; `fallback` when absent.
  func choice(_ name: String, _ allowed: [String], default fallback: String) throws -> String {
    guard let v = options[name] else { return fallback }
    guard allowed.contains(v) else {
      throw UsageError("\(name) must be one of \(allowed.joined(separator: ", ")), not \(v)")
    }
    return v
  }

  /// Exactly one positional (the input file), or a usage error.
  func singleInput() throws -> String {
    guard positionals.count == 1 else {
      throw UsageError(positionals.isEmpty ? "missing input file" : "expected one input file")
    }
    return positionals[0]
  }
}
