// NDEF decode/encode throughput in records/s.
// Run: swift run -c release ndef-bench [seconds-per-case]
import Foundation
import NDEF

/// Small message: one URI record (typical tag). Large: 200 records mixing Text, URI, MIME
/// (300-byte long records) and chunked records.
func messages() -> [(String, NDEFMessage)] {
  let small = NDEFMessage(records: [.uri("https://www.example.com/product/42")])
  var records: [NDEFRecord] = []
  for i in 0..<200 {
    switch i % 4 {
    case 0: records.append(.text("Record \(i) — grüße", language: "de"))
    case 1: records.append(.uri("https://example.com/\(i)"))
    case 2:
      records.append(
        .mime("application/octet-stream", payload: Array(repeating: UInt8(i & 0xFF), count: 300)))
    default:
      records.append(
        NDEFRecord(
          tnf: .media, type: Array("text/plain".utf8),
          chunkPayloads: [Array("abc".utf8), Array("def".utf8)]))
    }
  }
  return [("small (1 record)", small), ("large (200 records)", NDEFMessage(records: records))]
}

func measure(_ seconds: Double, _ body: () -> Int) -> Double {
  var records = 0
  let start = Date()
  var elapsed = 0.0
  repeat {
    for _ in 0..<100 { records += body() }
    elapsed = Date().timeIntervalSince(start)
  } while elapsed < seconds
  return Double(records) / elapsed
}

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 1.0
for (name, message) in messages() {
  let bytes = message.bytes
  let n = message.records.count
  let decode = measure(seconds) { ((try? NDEFMessage(parsing: bytes))?.records.count) ?? 0 }
  let validate = measure(seconds) { NDEFValidator.validate(bytes, mode: .relax).records.count }
  let encode = measure(seconds) { message.bytes.isEmpty ? 0 : n }
  print(
    String(
      format:
        "%-20@ %6d bytes  decode %12.0f rec/s  decode+validate %12.0f rec/s  encode %12.0f rec/s",
      name as NSString, bytes.count, decode, validate, encode))
}
