#!/usr/bin/env bash
# Installs what the build needs (libpcap-dev, zlib1g-dev, libjemalloc-dev) and, with --test, what the tests use as oracles
# (tshark for ISO 14443 framing, ndeflib from PyPI for NDEF). Installs only what is missing.
set -euo pipefail
want_tests=0
[ "${1:-}" = "--test" ] && want_tests=1

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    $sudo_cmd apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}

if [ ! -f /usr/include/pcap/pcap.h ]; then
  echo "setup: installing libpcap-dev" >&2
  apt_install libpcap-dev
fi
if [ ! -f /usr/include/zlib.h ]; then
  echo "setup: installing zlib1g-dev" >&2
  apt_install zlib1g-dev
fi
if [ ! -f /usr/include/jemalloc/jemalloc.h ]; then
  # Release builds link jemalloc (Package.swift), `swift test -c release` included (the CLI
  # tests build the executable); debug builds (make test, the sanitizer runs) do not need it.
  echo "setup: installing libjemalloc-dev" >&2
  apt_install libjemalloc-dev
fi
if [ "$want_tests" = 1 ]; then
  # The tests read real captures from ../shared/traces beside the checkout; say so up front
  # instead of failing a few hundred tests with "no such file".
  shared="${NFCTRACE_SHARED_TRACES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/traces}"
  if [ ! -d "$shared/public" ]; then
    echo "setup: the tests need the shared captures at $shared (../shared/traces beside the" >&2
    echo "checkout); clone beside them or set NFCTRACE_SHARED_TRACES to their folder" >&2
    exit 1
  fi
  if ! command -v tshark >/dev/null 2>&1; then
    echo "setup: installing tshark (test oracle)" >&2
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo_cmd debconf-set-selections || true
    apt_install tshark
  fi
  if ! python3 -c 'import ndef' >/dev/null 2>&1; then
    echo "setup: installing ndeflib (test oracle)" >&2
    python3 -m pip install -q ndeflib 2>/dev/null || python3 -m pip install -q --break-system-packages ndeflib
  fi
fi
