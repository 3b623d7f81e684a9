// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "NFCTrace",
  products: [
    .library(name: "NDEF", targets: ["NDEF"]),
    .library(name: "NFCTrace", targets: ["NFCTrace"]),
    .library(name: "NFCTracePcap", targets: ["NFCTracePcap"]),
    .library(name: "NFCTraceAndroid", targets: ["NFCTraceAndroid"]),
    .executable(name: "nfctrace", targets: ["nfctrace"]),
  ],
  targets: [
    // NDEF codec, TLV areas and validator. Pure Swift, no other dependency.
    .target(name: "NDEF"),
    // Frame model, non-pcap importers, protocol layers, sessions, analyses, rendering.
    .target(name: "NFCTrace", dependencies: ["NDEF", "CInputFault"]),
    // The SIGBUS handler of a memory-mapped input, in C: a signal handler may not reach Swift
    // globals (Sources/NFCTrace/Import/MappedFileFault.swift).
    .target(name: "CInputFault"),
    // libpcap from Debian's libpcap-dev.
    .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
    // pcap/pcapng import and export through libpcap.
    .target(name: "NFCTracePcap", dependencies: ["NFCTrace", "CPcap"]),
    // zlib from Debian's zlib1g-dev, for Android's compressed NFC snoop logs.
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
    // Android NFC snoop logs (NCI packets).
    .target(name: "NFCTraceAndroid", dependencies: ["NFCTrace", "CZlib"]),
    // The command-line tool: argument parsing and wiring only.
    // Release builds on Linux take malloc from jemalloc (Debian's libjemalloc-dev, installed by
    // scripts/setup.sh): a trace decodes into many small short-lived objects on two threads,
    // and with glibc's allocator the timeline took 10–25 % longer (docs/performance.md). A
    // linker setting, not a systemLibrary target: no jemalloc API is called. Debug builds (the
    // sanitizers' tests) keep glibc's; `swift test -c release` links it (CLITests builds the
    // executable); a static (musl) SDK build would need a static jemalloc in the SDK.
    .executableTarget(
      name: "nfctrace", dependencies: ["NDEF", "NFCTrace", "NFCTracePcap", "NFCTraceAndroid"],
      linkerSettings: [
        .linkedLibrary("jemalloc", .when(platforms: [.linux], configuration: .release))
      ]
    ),
    .executableTarget(name: "ndef-bench", dependencies: ["NDEF"], path: "Benchmarks/NDEFBench"),
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(
      name: "NDEFTests", dependencies: ["NDEF", "TestSupport"], exclude: ["ndeflib_oracle.py"]),
    .testTarget(
      name: "NFCTraceTests",
      dependencies: ["NFCTrace", "NDEF", "NFCTracePcap", "NFCTraceAndroid", "TestSupport"]),
    .testTarget(
      name: "NFCTracePcapTests", dependencies: ["NFCTracePcap", "NFCTrace", "TestSupport"]),
    // Runs the built `nfctrace` binary on generated malformed inputs (docs/robustness.md); the
    // dependency makes SwiftPM build the executable before the tests.
    .testTarget(name: "CLITests", dependencies: ["nfctrace", "TestSupport"]),
  ]
)
