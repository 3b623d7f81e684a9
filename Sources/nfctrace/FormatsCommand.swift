import NFCTrace

/// `nfctrace formats`: the input formats, one per line, with what they read.
enum FormatsCommand {
  static func run(_ args: [String]) throws -> Int32 {
    _ = try Arguments(args, options: [], flags: [])
    for f in registry.formats {
      print(f.name.padding(toLength: 14, withPad: " ", startingAt: 0) + f.summary)
    }
    return 0
  }
}
