import NFCTrace

/// `nfctrace formats`: the input formats, one per line, with what they read.
enum FormatsCommand {
  static func run(_ args: [String]) throws -> Int32 {
    let arguments = try Arguments(args, options: [], flags: [])
    if let extra = arguments.positionals.first { throw UsageError("unexpected argument \(extra)") }
    for f in registry.formats {
      printOut(f.name.padding(toLength: 18, withPad: " ", startingAt: 0) + f.summary)
    }
    printOut("\nstatic tag dumps (contents, no frames; read by nfctrace report):")
    let dumps = [
      ("flipper-nfc", "Flipper Zero .nfc (format versions 2–4, NTAG/Ultralight)"),
      ("pm3-json", "Proxmark3 JSON dump (\"FileType\": \"mfu\")"),
      ("raw-type2", "raw Type 2 memory image (.bin, 4-byte pages from page 0)"),
    ]
    for (name, summary) in dumps {
      printOut(name.padding(toLength: 18, withPad: " ", startingAt: 0) + summary)
    }
    return 0
  }
}
