#!/usr/bin/env bash
# Regenerates scripts/link-order.txt, the function order the release link uses (docs/benchmarks.md "Memory"):
# every function a replay executes, in first-call order, so lld (--symbol-ordering-file, with -function-sections)
# places the code a board actually runs in a few contiguous megabytes instead of spread over 22 MB of text. The
# kernel maps file-backed code in 64 KB fault-around windows (and whole large folios), so scattered hot code costs
# resident memory far beyond its size. Stale entries are harmless (lld skips missing symbols); rerun after large
# changes. Needs valgrind (callgrind) and a release build: make build && scripts/link-order.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/lodestar}
work=$(mktemp -d /tmp/lodestar-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the toolchain's DWARF 5; the symbol table is enough.
cp "$bin" "$work/lodestar" && strip --strip-debug "$work/lodestar"
"$work/lodestar" simulate --seed 3 --duration 600 --imu-rate 1 --format nmea "$work/drive.nmea" 2>/dev/null
# gpsd's regression logs (many receivers and sentence types) when ../shared is there, as `make bench` replays them.
if ls ../shared/data/nmea-gpsd/*.log >/dev/null 2>&1; then cat ../shared/data/nmea-gpsd/*.log >> "$work/drive.nmea"; fi
n=0
for args in "replay --quiet --output gpsd $work/drive.nmea" "replay captures/simulated-drive.lcap" \
            "replay --output nmea captures/simulated-drive.lcap" "replay --output gpsd captures/simulated-drive.lcap"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg$n.out" "$work/lodestar" $args >/dev/null 2>"$work/vg$n.err"
done
# Function names in order of first appearance across the runs ("fn=(id) name" defines a name once per file).
grep -h -o '^c\?fn=([0-9]*) .*' "$work"/cg*.out | sed 's/^c\?fn=([0-9]*) //' | grep -v '^0x' | awk '!seen[$0]++' > scripts/link-order.txt
echo "scripts/link-order.txt: $(wc -l < scripts/link-order.txt) functions"
