# NFCTrace — common tasks. `make demo` is the quick start; `make test` runs the test suite.
SWIFT ?= swift
# Seconds per fuzzer for `make fuzz` (`make fuzz-smoke` uses FUZZ_SMOKE_SECONDS).
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
DEMO_TRACE ?= Traces/generated/t2-removed-mid-write.pcap

.PHONY: setup build demo test test-long test-asan test-tsan fuzz fuzz-smoke format lint traces bench bench-ndef clean

setup:
	bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release --product nfctrace

demo: build
	.build/release/nfctrace timeline $(DEMO_TRACE)

test:
	bash scripts/setup.sh --test
	$(SWIFT) test

# The round-trip property test with 5000 random scenarios instead of 300.
test-long:
	bash scripts/setup.sh --test
	NFCTRACE_ROUNDTRIP_CASES=5000 $(SWIFT) test --filter roundTrip

# The test suite under AddressSanitizer (separate build folder, the normal build is untouched).
# Leak checking is off: every leak LeakSanitizer reports comes from the toolchain (Foundation's
# Data(contentsOf:) on an empty file, XCTest, Foundation.Process), see docs/robustness.md.
test-asan:
	bash scripts/setup.sh --test
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --sanitize=address --build-path .build/asan

# The decoding thread (Sources/NFCTrace/Pipeline/DecodeThread.swift) under ThreadSanitizer.
test-tsan:
	bash scripts/setup.sh --test
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --build-path .build/tsan

# libFuzzer targets of Fuzz/ (docs/robustness.md): every fuzzer FUZZ_SECONDS seconds.
fuzz: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash scripts/fuzz.sh

# The same, about 20 s per fuzzer (CI).
fuzz-smoke: setup
	FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) SWIFT=$(SWIFT) bash scripts/fuzz.sh

format:
	$(SWIFT) format -i -r --configuration .swift-format Sources Tests

lint:
	$(SWIFT) format lint -r --configuration .swift-format Sources Tests

# Demo traces (Traces/make_traces.py), the libnfc logs, USB captures, Android snoop logs and
# Flipper debug pcaps built by their generators, then the simulated traces of Traces/scenarios/ into
# Traces/generated/ and the goldens of every trace into Traces/golden/ (Traces/make_goldens.sh).
traces: build
	python3 Traces/make_traces.py Traces
	python3 Traces/libnfc/make_fixtures.py
	python3 Traces/usb/make_usb_captures.py
	python3 Traces/android/make_nfcsnoop.py
	python3 Traces/flipper/make_debug_pcaps.py
	python3 Traces/felica/make_t3t.py
	bash Traces/make_goldens.sh

bench:
	bash scripts/bench.sh

bench-ndef:
	$(SWIFT) run -c release ndef-bench

clean:
	rm -rf .build Fuzz/.build
