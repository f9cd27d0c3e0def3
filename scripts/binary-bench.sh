#!/usr/bin/env bash
# The board binary's footprint (docs/benchmarks.md "Binary size, start-up, geodata"): stripped size and sections,
# start-up (lodestar --version; a 20 KB replay: median of 21 runs), peak RSS of a >= 50 MB replay (best of 3, as
# scripts/bench.sh makes it). Usage: scripts/binary-bench.sh [BINARY] (default .build/release/lodestar).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/lodestar}
work=${TMPDIR:-/tmp}/lodestar-binary-bench
mkdir -p "$work"
strip -o "$work/lodestar.stripped" "$BIN"
S="$work/lodestar.stripped"
echo "binary: $BIN"
echo "unstripped $(stat -c %s "$BIN") bytes, stripped $(stat -c %s "$S") bytes"
size -A "$S" | awk 'NR>2 && $2 > 100000 { printf "  %-22s %6.1f MB\n", $1, $2/1e6 }'
if [ "$(nm "$BIN" 2>/dev/null | grep -c icudt || true)" -gt 0 ]; then echo "  ICU data: linked"; else echo "  ICU data: not linked"; fi

shared=../shared/data/nmea-gpsd
if [ ! -s "$work/big.nmea" ]; then
    if [ -d "$shared" ]; then cat "$shared"/*.log > "$work/unit.nmea"
    else "$BIN" simulate --seed 3 --duration 3600 --imu-rate 1 --format nmea "$work/unit.nmea"; fi
    : > "$work/big.nmea"
    while [ "$(stat -c %s "$work/big.nmea")" -lt 52428800 ]; do cat "$work/unit.nmea" >> "$work/big.nmea"; done
    head -c 20480 "$work/unit.nmea" | sed '$d' > "$work/small.nmea"
fi

median_ms() {  # median wall time of 21 runs of "$@", in ms
    for _ in $(seq 21); do
        s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000 ))
    done | sort -n | sed -n 11p | awk '{ printf "%.1f", $1 / 1000 }'
}
cpu_ms() {  # median CPU time (user + system, all threads; getrusage of the child) of 21 runs, in ms: less
           # sensitive than wall time to other processes on a shared machine
    python3 - "$@" <<'PY'
import resource, subprocess, sys, statistics
t = []
for _ in range(21):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
print("%.1f" % statistics.median(t))
PY
}
echo "start-up wall: --version $(median_ms "$S" --version) ms; replay of 20 KB $(median_ms "$S" replay --quiet --output gpsd "$work/small.nmea") ms"
echo "start-up CPU:  --version $(cpu_ms "$S" --version) ms; replay of 20 KB $(cpu_ms "$S" replay --quiet --output gpsd "$work/small.nmea") ms"
best=""
for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$S" replay --quiet --output gpsd "$work/big.nmea" > /dev/null 2>&1
    read -r secs kb < "$work/time"
    if [ -z "$best" ] || [ "$kb" -lt "${best#* }" ]; then best="$secs $kb"; fi
done
echo "replay of $(stat -c %s "$work/big.nmea") bytes: ${best% *} s, peak RSS $(awk -v k="${best#* }" 'BEGIN { printf "%.1f", k/1024 }') MB"
