// swift-tools-version:6.0
// libFuzzer targets for NFCTrace, kept out of the main package graph so that `swift build` and
// `swift test` of the root package are unaffected. Build and run with `make fuzz-smoke` /
// `make fuzz` from the repository root (see docs/robustness.md).
import PackageDescription

/// One fuzzer per input path: name of the executable and of its source folder.
let fuzzers = [
  "fuzz-pcap", "fuzz-pm3-trace", "fuzz-pm3-text", "fuzz-nfclab-json", "fuzz-libnfc-log",
  "fuzz-tag-dump", "fuzz-ndef", "fuzz-tlv", "fuzz-nfcsnoop",
]

let package = Package(
  name: "NFCTraceFuzz",
  dependencies: [.package(name: "NFCTrace", path: "..")],
  targets: [
    // Declares libFuzzer's LLVMFuzzerRunDriver, which the fuzzers' entry points call.
    .target(name: "CFuzzerDriver"),
    .target(
      name: "FuzzSupport",
      dependencies: [
        "CFuzzerDriver",
        .product(name: "NFCTrace", package: "NFCTrace"),
        .product(name: "NFCTracePcap", package: "NFCTrace"),
        .product(name: "NFCTraceAndroid", package: "NFCTrace"),
        .product(name: "NDEF", package: "NFCTrace"),
      ]),
  ]
    + fuzzers.map { name in
      // main.swift hands its test function to libFuzzer's driver (see Fuzz.run).
      .executableTarget(name: name, dependencies: ["FuzzSupport"])
    }
)
