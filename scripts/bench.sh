#!/usr/bin/env bash
# make bench: generates link-type-264 pcaps of mixed Type 2 and Type 4 sessions with the
# simulator (250k, 500k and 1M frames) and prints frames/s and peak RSS of nfctrace's commands
# next to tshark (summary and -V) and a no-op libpcap read loop, as ratios (fastest of
# BENCH_RUNS runs each). Not a test: the
# numbers depend on the machine; docs/performance.md records them with this command.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${BENCH_SIZES:-"250000 500000 1000000"}
out=.build/bench
mkdir -p "$out"
bash scripts/setup.sh --test >/dev/null
swift build -c release --product nfctrace >/dev/null
bin=.build/release/nfctrace
gcc -O2 -o "$out/pcap_noop" scripts/bench/pcap_noop.c -lpcap

# run NAME FRAMES CMD… : prints "NAME seconds frames/s peakRSS(MiB)", the fastest of
# BENCH_RUNS runs (default 3): on a shared machine the fastest run is the least disturbed one.
runs=${BENCH_RUNS:-3}
run() {
  local name=$1 frames=$2
  shift 2
  local best="" kb=0 t secs k
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$out/time.txt" -f "%e %M" "$@" >/dev/null 2>&1 || true
    t=$(tail -1 "$out/time.txt")
    secs=${t% *} k=${t#* }
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$secs; fi
    [ "$k" -gt "$kb" ] && kb=$k
  done
  awk -v n="$name" -v s="$best" -v f="$frames" -v k="$kb" \
    'BEGIN { r = (s > 0 ? f / s : 0); printf "%-22s %9.2f s %12.0f frames/s %8.1f MiB\n", n, s, r, k / 1024 }'
}

for n in $sizes; do
  f="$out/mixed-$n.pcap"
  [ -f "$f" ] || "$bin" simulate scripts/bench/t2-read-write.json scripts/bench/t4-read-write.json \
    --frames "$n" -o "$f" 2>/dev/null
  echo "== $n frames ($(du -h "$f" | cut -f1)) =="
  {
    run "libpcap no-op loop" "$n" "$out/pcap_noop" "$f"
    run "tshark -r" "$n" tshark -r "$f"
    [ "$n" = 1000000 ] || [ -n "${BENCH_TSHARK_V_ALL:-}" ] && run "tshark -r -V" "$n" tshark -r "$f" -V
    run "timeline (text)" "$n" "$bin" timeline "$f" --no-color
    run "timeline (json)" "$n" "$bin" timeline "$f" --format json
    run "sessions" "$n" "$bin" sessions "$f"
    run "report --all" "$n" "$bin" report "$f" --all
    run "diagnose" "$n" "$bin" diagnose "$f"
  } | tee "$out/results-$n.txt"
  awk '
    /^libpcap/ { noop = $(NF-3) }
    /^tshark -r  / { ts = $(NF-3) }
    /^tshark -r -V/ { tv = $(NF-3) }
    /^timeline \(text\)/ { tl = $(NF-3) }
    END {
      if (ts > 0) printf "timeline(text) / tshark -r      = %.2fx\n", tl / ts
      if (tv > 0) printf "timeline(text) / tshark -r -V   = %.2fx\n", tl / tv
      if (noop > 0) printf "timeline(text) / no-op libpcap  = %.3fx\n", tl / noop
    }' "$out/results-$n.txt"
done
