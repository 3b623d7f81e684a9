#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (with AddressSanitizer) and runs each for
# FUZZ_SECONDS seconds over a seed corpus copied from Traces/ and ../shared/traces into a
# temporary folder. Crashes, leaks, hangs (> FUZZ_TIMEOUT s per input) and inputs using more
# than FUZZ_RSS_MB MiB are written to fuzz-out/ and make the script fail.
#
#   scripts/fuzz.sh                 # every fuzzer
#   scripts/fuzz.sh fuzz-pcap ...   # only these
#   FUZZ_SECONDS=600 scripts/fuzz.sh   (also FUZZ_TIMEOUT, FUZZ_RSS_MB, FUZZ_MAX_LEN)
# A crash file is replayed with: Fuzz/.build/release/fuzz-X fuzz-out/fuzz-X-crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
shared="$root/../shared/traces"
seconds="${FUZZ_SECONDS:-600}"
timeout_s="${FUZZ_TIMEOUT:-10}"
rss_mb="${FUZZ_RSS_MB:-2048}"
# Longest input libFuzzer builds. Seeds above it are cut: the 80 KiB text logs otherwise keep
# the text fuzzer at ~20 inputs/s.
max_len="${FUZZ_MAX_LEN:-16384}"
swift="${SWIFT:-swift}"
all=(fuzz-pcap fuzz-pm3-trace fuzz-pm3-text fuzz-nfclab-json fuzz-libnfc-log fuzz-tag-dump
  fuzz-ndef fuzz-tlv fuzz-nfcsnoop)
targets=("$@")
[ ${#targets[@]} = 0 ] && targets=("${all[@]}")

# ld.gold stops with an internal error on the sanitizer-instrumented objects; lld links them.
echo "fuzz: building ${#targets[@]} fuzzers (release, -sanitize=fuzzer,address)" >&2
(cd Fuzz && "$swift" build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
  2>&1 | grep -v '^\[' || true)
bin="$root/Fuzz/.build/release"

work="$(mktemp -d "${TMPDIR:-/tmp}/nfctrace-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p fuzz-out
# Inputs saved by this run only (fuzz-out/ keeps earlier runs' too).
started="$work/started"
touch "$started"

# Copies the seed files matching the globs into corpus folder $1 (missing ones are skipped).
seed() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/"; done
  return 0
}

# Writes each hex argument as one binary seed file into folder $1.
seed_hex() {
  local dir="$1" i=0 h
  shift
  mkdir -p "$dir"
  for h in "$@"; do
    python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' "$h" >"$dir/hex-$i"
    i=$((i + 1))
  done
}

# Well-formed NDEF messages: URI, Text, Smart Poster (nested URI + Text), MIME, empty,
# a chunked record, short and long records.
ndef_seeds=(
  d101055501676f6f676c652e636f6d
  d1010f5402656e48656c6c6f2c20776f726c6421
  d1021f5370910109550365786d706c652e636f6d5101095402656e4869
  d2100a746578742f706c61696e6869207468657265
  d00000
  b6011055016578616d706c652e636f6d160005000000000474657374
  c10100000005550173652e6575
)
# Type 2 TLV areas: Lock Control, Memory Control, NDEF, Terminator; the 3-byte length form.
tlv_seeds=(
  0303d00000fe
  01030ca03402030bd101075504736e2e6f7267fe
  0300fe
  03ff0010d1010c5502676f6f676c652e636f6dfe
  0000fd00fe
)

for t in "${targets[@]}"; do
  c="$work/$t"
  case "$t" in
    fuzz-pcap)
      seed "$c" Traces/*.pcap Traces/usb/*.pcap "$shared"/derived/pcap/*.pcapng \
        "$shared"/derived/synthetic/*.pcap* ;;
    fuzz-pm3-trace) seed "$c" Traces/*.trace "$shared"/public/proxmark3/*.trace ;;
    fuzz-pm3-text) seed "$c" "$shared"/derived/proxmark3-text/*.txt ;;
    fuzz-nfclab-json) seed "$c" "$shared"/public/nfc-laboratory/*.json ;;
    fuzz-libnfc-log) seed "$c" Traces/libnfc/*.log ;;
    fuzz-nfcsnoop) seed "$c" Traces/android/*.txt ;;
    fuzz-tag-dump)
      seed "$c" "$shared"/public/UberGuidoZ-Flipper/*.nfc "$shared"/public/ChameleonMini/*.bin \
        "$shared"/public/proxmark3/*.json ;;
    fuzz-ndef) seed_hex "$c" "${ndef_seeds[@]}" ;;
    fuzz-tlv) seed_hex "$c" "${tlv_seeds[@]}" ;;
    *) echo "fuzz: unknown fuzzer $t (known: ${all[*]})" >&2; exit 2 ;;
  esac
done

# Let libFuzzer and ASan report crashes (Swift's backtracer would catch the signal first and
# its memory reader then trips ASan, burying the real report).
export SWIFT_BACKTRACE=enable=no
failed=()
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${seconds}s ($(ls "$work/$t" | wc -l) seeds)" >&2
  log="$work/$t.log"
  if "$bin/$t" -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
    -max_len="$max_len" -artifact_prefix="fuzz-out/$t-" -print_final_stats=1 "$work/$t" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$log" | tr '\n' ' ' >&2 || true
    echo >&2
  else
    failed+=("$t")
    echo "fuzz: $t FAILED; input in fuzz-out/, log tail:" >&2
    tail -40 "$log" >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in ${failed[*]}" >&2
  # Last in the output, which CI logs cut from the top: each failure's kind, its first stack
  # frames of our code and the input (hex, first 512 bytes), so that it can be rebuilt.
  for t in "${failed[@]}"; do
    log="$work/$t.log"
    echo "fuzz: $t: $(grep -m1 -E 'ERROR: |ALARM|out-of-memory|deadly signal' "$log" || echo '?')" >&2
    grep -E '^ +#[0-9]+ 0x' "$log" | grep -E '/(Sources|Fuzz)/' | head -8 >&2 || true
    for a in fuzz-out/"$t"-*; do
      [ -f "$a" ] && [ "$a" -nt "$started" ] || continue
      echo "fuzz: input $a ($(wc -c <"$a") bytes): $(head -c 512 "$a" | od -An -tx1 | tr -d ' \n')" >&2
    done
  done
  exit 1
fi
echo "fuzz: no crash, hang or memory blow-up in ${targets[*]}" >&2
