#!/usr/bin/env bash
# make bench: lodestar replay --output gpsd against Debian's gpsdecode on the same ≥ 50 MB NMEA file, in the
# same run; then the parse-only and pipeline micro-benchmarks, and peak RSS at two file sizes (memory must not
# grow with the input). Prints a table; nothing here is a pass/fail test.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/lodestar
BENCH=.build/release/LodestarBench
work=$(mktemp -d /tmp/lodestar-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
shared=../shared/data/nmea-gpsd

# 1. The input: gpsd's 33 regression logs concatenated until ≥ 50 MB, or simulated NMEA without ../shared.
if ls "$shared"/*.log >/dev/null 2>&1; then
  source_desc="../shared/data/nmea-gpsd/*.log concatenated"
  cat "$shared"/*.log > "$work/unit.nmea"
else
  source_desc="simulated receiver NMEA (lodestar simulate --format nmea: RMC GGA GSA GSV), ../shared absent"
  "$BIN" simulate --seed 3 --duration 3600 --imu-rate 1 --format nmea "$work/unit.nmea"
fi
: > "$work/big.nmea"
while [ "$(stat -c %s "$work/big.nmea")" -lt 52428800 ]; do cat "$work/unit.nmea" >> "$work/big.nmea"; done
cat "$work/big.nmea" "$work/big.nmea" > "$work/big2.nmea"
bytes=$(stat -c %s "$work/big.nmea")
sentences=$(grep -c '^[[:space:]]*[$!]' "$work/big.nmea" || true)

measure() { # command... → "seconds maxrss_kb" (wall time to the millisecond: /usr/bin/time's %e has 10 ms steps,
  # 8 % of a 0.12 s UBX run; RSS from /usr/bin/time)
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$work/time" "$@" > /dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}') $(cat "$work/time")"
}
faster() { # "seconds rss" "seconds rss" → the faster of the two
  if [ -z "$2" ] || awk -v a="$1" -v c="$2" 'BEGIN{split(a,x," ");split(c,y," ");exit !(x[1]<y[1])}'; then echo "$1"; else echo "$2"; fi
}
best_pair() { # PEER-COMMAND -- LODESTAR-COMMAND: each run 7 times, alternately, the fastest of each kept (and its RSS):
  # "peer seconds, peer rss, lodestar seconds, lodestar rss". Alternating, a slow spell of this machine (the same
  # binary's best of five moved by 10-25 % between minutes here) falls on both, not on one's five runs.
  local a=() b=() cur=a x pa="" pb=""
  for x in "$@"; do if [ "$x" = "--" ]; then cur=b; elif [ $cur = a ]; then a+=("$x"); else b+=("$x"); fi; done
  for _ in 1 2 3 4 5 6 7; do
    pa=$(faster "$(measure "${a[@]}")" "$pa")
    pb=$(faster "$(measure "${b[@]}")" "$pb")
  done
  echo "$pa $pb"
}

read -r g_s g_rss l_s l_rss < <(best_pair sh -c "gpsdecode -j < '$work/big.nmea'" -- "$BIN" replay --quiet --output gpsd "$work/big.nmea")
read -r _ l_rss2 < <(measure "$BIN" replay --quiet --output gpsd "$work/big2.nmea")

awk -v n="$sentences" -v b="$bytes" -v gs="$g_s" -v ls="$l_s" -v gr="$g_rss" -v lr="$l_rss" -v lr2="$l_rss2" -v src="$source_desc" 'BEGIN{
  printf "input: %s, %.1f MB, %d sentences\n", src, b/1048576, n
  printf "%-40s %10s %14s %12s\n", "", "seconds", "sentences/s", "peak RSS MB"
  printf "%-40s %10.3f %14.0f %12.1f\n", "gpsdecode -j (Debian gpsd 3.22)", gs, n/gs, gr/1024
  printf "%-40s %10.3f %14.0f %12.1f\n", "lodestar replay --output gpsd", ls, n/ls, lr/1024
  printf "throughput ratio lodestar/gpsdecode: %.1fx (target >= 10x)\n", gs/ls
  printf "peak RSS: lodestar %.1f MB vs gpsdecode %.1f MB + 10 MB = %.1f MB budget\n", lr/1024, gr/1024, gr/1024+10
  printf "peak RSS at 2x the input: %.1f MB (%+.1f MB: flat means streaming)\n", lr2/1024, (lr2-lr)/1024
}'
# 2. u-blox UBX: gpsd's u-blox regression logs (binary UBX, mixed UBX+NMEA; their leading '#' comment lines
# dropped) concatenated until >= 50 MB, decoded by gpsdecode and by lodestar replay --output gpsd in the same run.
ubx=../shared/data/ubx-gpsd
if ls "$ubx"/ublox-*.log >/dev/null 2>&1; then
  python3 - "$work/unit.ubx" "$ubx"/ublox-*.log <<'PY'
import sys
out = open(sys.argv[1], "wb")
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    while data.startswith(b"#"):
        data = data[data.index(b"\n") + 1:] if b"\n" in data else b""
    out.write(data)
PY
  : > "$work/big.ubx"
  while [ "$(stat -c %s "$work/big.ubx")" -lt 52428800 ]; do cat "$work/unit.ubx" >> "$work/big.ubx"; done
  ubytes=$(stat -c %s "$work/big.ubx")
  read -r gu_s gu_rss lu_s lu_rss < <(best_pair sh -c "gpsdecode -j < '$work/big.ubx'" -- "$BIN" replay --quiet --no-smoothing --output gpsd "$work/big.ubx")
  gu_tpv=$(gpsdecode -j < "$work/unit.ubx" | grep -c '"class":"TPV"' || true)
  lu_tpv=$("$BIN" replay --quiet --no-smoothing --output gpsd "$work/unit.ubx" | grep -c '"class":"TPV"' || true)
  awk -v b="$ubytes" -v gs="$gu_s" -v ls="$lu_s" -v gr="$gu_rss" -v lr="$lu_rss" -v gt="$gu_tpv" -v lt="$lu_tpv" 'BEGIN{
    printf "UBX input: ../shared/data/ubx-gpsd/ublox-*.log concatenated (comment lines dropped), %.1f MB\n", b/1048576
    printf "%-40s %10s %12s %12s\n", "", "seconds", "MB/s", "peak RSS MB"
    printf "%-40s %10.3f %12.1f %12.1f\n", "gpsdecode -j (Debian gpsd 3.22)", gs, b/1048576/gs, gr/1024
    printf "%-40s %10.3f %12.1f %12.1f\n", "lodestar replay --output gpsd", ls, b/1048576/ls, lr/1024
    printf "UBX throughput ratio lodestar/gpsdecode: %.1fx (target >= 10x); TPVs per copy of the logs: gpsdecode %d (one per message that completes a fix), lodestar %d (one per epoch)\n", gs/ls, gt, lt
  }'
else
  echo "UBX: ../shared/data/ubx-gpsd absent, UBX decoding not measured"
fi
"$BENCH" parse "$work/big.nmea"
"$BENCH" parse-mixed "$work/big.nmea"
"$BENCH" pipeline "$work/big.nmea"

# Heading: the full per-sample update (calibration, tilt compensation, interference check, true north) and a
# calibration fit of 1,000 samples.
"$BENCH" calibration
"$BENCH" vehicle
# Location services: 10,000 circular regions checked per fix (target <= 10 us), brute force in the same run.
"$BENCH" regions 10000
if [ -x .build/release/LodestarEval ]; then .build/release/LodestarEval bench; fi

# Position smoothing: one filter update, and a 29-minute drive replayed with smoothing (GSDC MTV-1 Pixel 4;
# without ../shared the shipped simulated drive, 5 minutes).
drive=../shared/data/gnss/gsdc2021-mtv1/Pixel4_chipset.nmea
if [ ! -r "$drive" ]; then drive="$work/simulated.nmea"; "$PWD/$BIN" simulate --seed 1 --duration 300 --format nmea > "$drive"; fi
"$BENCH" smoothing "$drive"

# Maps and exports (docs/maps.md) on the same drive: lodestar map (two replays, raw and smoothed, base map, SVG/HTML)
# and lodestar export to GPX; as the peer, gpsbabel converting the same NMEA to GPX (parse + write, no smoothing).
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
html_ms=$(ms "$PWD/$BIN" map "$drive" -o "$work/drive.html")
svg_ms=$(ms "$PWD/$BIN" map "$drive" -o "$work/drive.svg")
gpx_ms=$(ms "$PWD/$BIN" export "$drive" --format gpx -o "$work/drive.gpx")
if command -v gpsbabel >/dev/null; then peer_ms=$(ms gpsbabel -i nmea -f "$drive" -o gpx -F "$work/peer.gpx"); else peer_ms=""; fi
echo "maps: $(basename "$drive"): map HTML ${html_ms} ms ($(wc -c < "$work/drive.html") bytes), SVG ${svg_ms} ms; export GPX ${gpx_ms} ms; peer gpsbabel NMEA->GPX ${peer_ms:-n/a} ms"

# 5. Live latency: a sentence written into a pty until its fix line leaves on a FIFO (lodestar run), 10,000 times.
"$BENCH" latency "$PWD/$BIN" 10000

# gpsd-protocol server (docs/gpsd-compatibility.md): 200 clients, 10 Hz TPV+SKY for 30 s, one client never reads;
# publish-to-receipt latency p50/p99 (target p99 <= 5 ms), the stalled client's drops, CPU.
"$BENCH" serve 200 30

# 6. WMM2025: Lodestar's model against GeographicLib's C++ MagneticModel on the same points, with validation
# (converts WMM.COF for GeographicLib, compiles scripts/wmm-geographiclib/bench.cpp; skips without g++/GeographicLib).
scripts/wmm-geographiclib/run.sh "$BENCH"

# 6. Offline geocoding (docs/geocoding.md): load, reverse q/s on one core, forward µs/query, RSS; and as the peer in the
# same run, Python reverse_geocoder (k-d tree over GeoNames cities1000, place + country code only) one by one.
"$BENCH" geocode 1000000
peer="$work/peer"
if python3 -c "import reverse_geocoder" 2>/dev/null || python3 -m pip install -q --target "$peer" reverse_geocoder==1.5.1 >/dev/null 2>&1; then
  PYTHONPATH="$peer" python3 - <<'PY'
import random, time, resource, math
import reverse_geocoder as rg
t = time.time(); rg.search([(0.0, 0.0)], mode=1, verbose=False); load = time.time() - t
random.seed(3)
pts = [(math.degrees(math.asin(2 * random.random() - 1)), random.random() * 360 - 180) for _ in range(20000)]
t = time.time()
for p in pts: rg.search([p], mode=1, verbose=False)
one = len(pts) / (time.time() - t)
t = time.time(); rg.search(pts, mode=1, verbose=False); batch = len(pts) / (time.time() - t)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"peer reverse_geocoder 1.5.1: load {load*1000:.0f} ms; {one:.0f} queries/s one by one, {batch:.0f}/s batched; peak RSS {rss:.0f} MB")
open("/tmp/lodestar-bench-peer-qps", "w").write(f"{one:.0f}\n")
PY
else
  echo "peer reverse_geocoder: not installable here (pip), skipped"
fi
