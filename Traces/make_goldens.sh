#!/usr/bin/env bash
# Regenerates Traces/generated/ (traces simulated from Traces/scenarios/*.json) and
# Traces/golden/ (the outputs of timeline, sessions, report and diagnose on every generated
# trace and on the demo traces of Traces/make_traces.py, as text and JSON).
#
# Run from the repository root (`make traces` does): every path is relative, so the goldens
# do not depend on where the checkout lives. Simulated traces carry a fixed capture date and
# times from the field-on event, so nothing depends on the time of day.
#
# Traces/golden/MANIFEST lists "golden-file<TAB>nfctrace arguments" for every golden; the
# golden test (Tests/NFCTracePcapTests/GoldenTests.swift) runs the same commands and compares.
set -euo pipefail
NFCTRACE=${NFCTRACE:-.build/release/nfctrace}
cd "$(dirname "$0")/.."
[ -x "$NFCTRACE" ] || { echo "make_goldens: $NFCTRACE not built (run make build)" >&2; exit 1; }

gen=Traces/generated
gold=Traces/golden
rm -rf "$gen" "$gold"
mkdir -p "$gen" "$gold"

# Scenarios → pcap (+ ground truth). The noisy one also as a Proxmark3 trace: pcap has no
# field for parity errors, the Proxmark3 tracelog keeps them.
for s in Traces/scenarios/*.json; do
  case "$s" in *.expected.json) continue ;; esac
  name=$(basename "$s" .json)
  "$NFCTRACE" simulate "$s" -o "$gen/$name.pcap" --truth "$gen/$name.truth.json" 2>/dev/null
done
"$NFCTRACE" simulate Traces/scenarios/t2-noisy-rf.json -o "$gen/t2-noisy-rf.trace" \
  --format pm3-trace 2>/dev/null

manifest="$gold/MANIFEST"
printf '# golden-file\tnfctrace arguments (run from the repository root; regenerate with make traces)\n' >"$manifest"
golden() {  # golden FILE ARGS…
  local out=$1
  shift
  printf '%s\t%s\n' "$out" "$*" >>"$manifest"
  # Exit status 1 (diagnose --fail-on) or 3 (invalid input) still yields a golden.
  "$NFCTRACE" "$@" >"$gold/$out" 2>/dev/null || true
}

for t in "$gen"/*.pcap "$gen"/*.trace Traces/*.pcap Traces/usb/*.pcap Traces/flipper/*.pcap Traces/felica/*.json Traces/android/android-dumpsys-nfc.txt; do
  base=$(basename "$t")
  golden "$base.timeline.txt" timeline "$t" --no-color
  golden "$base.timeline.json" timeline "$t" --format json
  golden "$base.sessions.txt" sessions "$t"
  golden "$base.sessions.json" sessions "$t" --format json
  golden "$base.report.txt" report "$t" --all
  golden "$base.report.json" report "$t" --all --format json
  golden "$base.diagnose.txt" diagnose "$t"
  golden "$base.diagnose.json" diagnose "$t" --format json
done
# The README's diff example: the NTAG215 write that worked against the torn one.
golden "t2t-ntag215-write-ok-vs-torn.diff.txt" diff Traces/t2t-ntag215-write-ok.pcap \
  Traces/t2t-ntag215-write-torn.pcap
golden "t2t-ntag215-write-ok-vs-torn.diff.json" diff Traces/t2t-ntag215-write-ok.pcap \
  Traces/t2t-ntag215-write-torn.pcap --format json
echo "make_goldens: $(ls "$gen" | wc -l) generated files, $(($(wc -l <"$manifest") - 1)) goldens" >&2
