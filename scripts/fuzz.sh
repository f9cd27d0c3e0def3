#!/usr/bin/env bash
# Runs the libFuzzer target (framer, parser, epoch assembly, encoders, capture readers) for N seconds.
# Usage: scripts/fuzz.sh [seconds]   (default 600). Crashes land in fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
export SWIFT_BACKTRACE=enable=no
swift build -c release --scratch-path .build-fuzz --product LodestarFuzz \
  --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
mkdir -p fuzz-artifacts .build-fuzz/corpus
cp -n Tests/Fuzz/corpus/* .build-fuzz/corpus/ 2>/dev/null || true
.build-fuzz/release/LodestarFuzz .build-fuzz/corpus -max_total_time="$seconds" -max_len=4096 \
  -artifact_prefix=fuzz-artifacts/ -print_final_stats=1 2>&1 | tee fuzz-artifacts/last-run.log | tail -25
