#!/usr/bin/env bash
# Runs the libFuzzer target for N seconds per harness, then merges what grew into the seed corpus.
# Usage: scripts/fuzz.sh [seconds] [harness...]   (default 600 s, harness "all"; see docs/fuzzing.md for the list).
# Crashes land in fuzz-artifacts/; per-harness statistics in fuzz-artifacts/<harness>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
harnesses=("${@:-all}")
export SWIFT_BACKTRACE=enable=no
swift build -c release --scratch-path .build-fuzz --product LodestarFuzz \
  --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
mkdir -p fuzz-artifacts .build-fuzz/corpus
cp -n Tests/Fuzz/corpus/* .build-fuzz/corpus/ 2>/dev/null || true
for h in "${harnesses[@]}"; do
  LODESTAR_FUZZ_TARGET="$h" .build-fuzz/release/LodestarFuzz .build-fuzz/corpus -max_total_time="$seconds" \
    -max_len=4096 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1 2>&1 | tee "fuzz-artifacts/$h.log" | tail -12
done
# Keep the seed corpus growing: add the inputs that reach new coverage (minimised by libFuzzer's merge).
LODESTAR_FUZZ_TARGET=all .build-fuzz/release/LodestarFuzz -merge=1 Tests/Fuzz/corpus .build-fuzz/corpus 2>&1 | tail -2
grep -h "stat::number_of_executed_units" fuzz-artifacts/*.log | awk '{s+=$2} END {print "executions (all logs in fuzz-artifacts/):", s}'
