import Foundation
import NDEF
import NFCTrace

/// `nfctrace ndef INPUT [--tlv] [--mode strict|relax|ignore] [--format text|json] [--show-secrets]`.
enum NDEFCommandCLI {
  static let usage =
    "nfctrace ndef INPUT [--tlv] [--mode strict|relax|ignore] [--format text|json] [--show-secrets]"
    + "\n  INPUT: hex (spaces and colons allowed), @FILE (binary), or - (standard input)"

  static func run(_ args: [String]) throws -> Int32 {
    let a = try Arguments(
      args, options: ["--mode", "--format"], flags: ["--tlv", "--show-secrets"])
    let input = try a.singleInput()
    let mode: NDEFValidationMode
    switch try a.choice("--mode", ["strict", "relax", "ignore"], default: "relax") {
    case "strict": mode = .strict
    case "ignore": mode = .ignore
    default: mode = .relax
    }
    let json = try a.choice("--format", ["text", "json"], default: "text") == "json"
    let options = NDEFCommandOptions(
      tlv: a.flag("--tlv"), mode: mode, format: json ? .json : .text,
      showSecrets: a.flag("--show-secrets"))
    let result = NDEFCommand.run(input: input, options: options)
    var output = result.output
    if !output.hasSuffix("\n") { output += "\n" }
    if json, output.hasPrefix("{") {
      // The same envelope as every other command's JSON document.
      output = "{\"tool\":\"nfctrace\",\"version\":\"\(Version.string)\"," + output.dropFirst()
    } else if !json, output.hasPrefix("error: ") {
      // An input that is not hex or is empty: an error message, on standard error like the
      // other commands' (exit 3).
      StandardError.write(Data(("nfctrace: " + output).utf8))
      return 3
    }
    let out = OutputBuffer()
    out.write(output)
    out.flush()
    return result.failed ? 3 : 0
  }
}
