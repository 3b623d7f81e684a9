/// A usage error: the CLI prints it with the command's usage and exits with status 2.
struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ message: String) { description = message }
}

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
  init(_ args: [String], options valued: Set<String>, flags known: Set<String>) throws {
    var i = 0
    var onlyPositionals = false
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
          throw UsageError("option \(name) needs a value")
        }
        // No option takes an empty value (`-o ''` would name no file).
        guard !value.isEmpty else {
          throw UsageError("option \(name) needs a value, got an empty one")
        }
        options[name] = value
      } else if known.contains(name) || name == "--no-color", inline == nil {
        flags.insert(name)
      } else {
        throw UsageError("unknown option \(a)")
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
