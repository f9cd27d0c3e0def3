#!/usr/bin/env bash
# WMM2025: Lodestar's WorldMagneticModel against GeographicLib's C++ MagneticModel, same points, same run.
# Usage: scripts/wmm-geographiclib/run.sh LODESTARBENCH [N [K]]
#   LODESTARBENCH  path to a release LodestarBench binary (bench.sh passes .build/release/LodestarBench)
#   N              evaluations per timed run (default 200000); each program takes the best of 3 runs, and the two
#                  programs run alternately twice (the best of both rounds is kept: the machine is shared)
#   K              sweep points compared for validation, besides the 12 fixed points (default 2000)
# Converts Sources/LodestarData/WMM.COF with convert.py into a temporary directory (Debian ships no magnetic
# model files), compiles bench.cpp, runs both, prints ns/evaluation, the speed ratio and the agreement of D, I, F
# (and X, Y, Z, Ḟ). Skips (exit 0) when g++, python3 or GeographicLib is missing; exits 1 when the two disagree
# beyond 1e-6 nT / 1e-8° (then the comparison is not apples to apples).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LODESTARBENCH [N [K]]" >&2; exit 64; }
lodestar_bench=$1
n=${2:-200000}
k=${3:-2000}
[ -x "$lodestar_bench" ] || { echo "wmm: $lodestar_bench is not an executable" >&2; exit 66; }

echo "== WMM2025: Lodestar vs GeographicLib MagneticModel =="
have_lib() { [ -f /usr/include/GeographicLib/MagneticModel.hpp ] && ldconfig -p 2>/dev/null | grep -q 'libGeographicLib\.so'; }
if ! have_lib && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "wmm: installing libgeographiclib-dev"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq libgeographiclib-dev >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq libgeographiclib-dev >/dev/null 2>&1; } || true
fi
for tool in g++ python3; do
  command -v "$tool" >/dev/null || { echo "wmm: SKIPPED: $tool not found (apt-get install g++ python3)"; exit 0; }
done
have_lib || { echo "wmm: SKIPPED: GeographicLib not found (apt-get install libgeographiclib-dev)"; exit 0; }

work=$(mktemp -d /tmp/lodestar-wmm.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 "$here/convert.py" "$root/Sources/LodestarData/WMM.COF" "$work/model" wmm2025 >/dev/null
g++ -O2 -std=c++17 -o "$work/geobench" "$here/bench.cpp" -lGeographicLib

# Alternate the two programs; the first round prints the validation points.
"$work/geobench" "$work/model" "$n" "$k" > "$work/g1"
"$lodestar_bench" wmm "$n" "$k" > "$work/l1" || echo "wmm: warning: LodestarBench wmm exited with status $?" >&2
"$work/geobench" "$work/model" "$n" 0 > "$work/g2"
"$lodestar_bench" wmm "$n" 0 > "$work/l2" || echo "wmm: warning: LodestarBench wmm exited with status $?" >&2

python3 - "$work" "$n" "$k" <<'PY'
import sys
work, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def parse(path):
    scalars, points, library = {}, {}, ""
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "library":
            library = " ".join(f[1:])
        elif f[0] == "check":
            points[("check", tuple(float(v) for v in f[1:5]))] = [float(v) for v in f[1:]]
        elif f[0] == "sweep":
            points[("sweep", int(f[1]))] = [float(v) for v in f[2:]]
        elif f[0] == "cache_samples":
            scalars["cache_samples"], scalars["reevaluations"] = float(f[1]), float(f[3])
        else:
            try:
                scalars[f[0]] = float(f[1])
            except (IndexError, ValueError):
                scalars[f[0]] = f[1] if len(f) > 1 else ""
    return library, scalars, points

g_lib, g1, g_points = parse(f"{work}/g1")
l_lib, l1, l_points = parse(f"{work}/l1")
_, g2, _ = parse(f"{work}/g2")
_, l2, _ = parse(f"{work}/l2")
best = lambda a, b, key: min(a[key], b[key])
gw, gc = best(g1, g2, "ns_per_eval_wall"), best(g1, g2, "ns_per_eval_cpu")
lw, lc = best(l1, l2, "ns_per_eval_wall"), best(l1, l2, "ns_per_eval_cpu")
hw, hc = best(l1, l2, "cache_hit_ns_per_sample_wall"), best(l1, l2, "cache_hit_ns_per_sample_cpu")

print(f"{n} full evaluations (field + secular variation + elements and rates) over the same sweep of points;")
print("best of 3 runs in each program, programs run alternately twice, best round kept")
print(f"{'':52} {'ns/eval wall':>13} {'ns/eval CPU':>12}")
print(f"{'GeographicLib ' + g_lib.split(' (')[0].replace('GeographicLib ', ''):52} {gw:13.1f} {gc:12.1f}")
print(f"{'Lodestar WorldMagneticModel.field (Swift, release)':52} {lw:13.1f} {lc:12.1f}")
print(f"speed ratio Lodestar/GeographicLib: {gc / lc:.2f}x (CPU time), {gw / lw:.2f}x (wall clock)")
print(f"Lodestar true-north correction per sample on a DeclinationCache hit: {hw:.1f} ns wall, {hc:.1f} ns CPU "
      f"({int(l1['cache_samples'])} samples, {int(l1['reevaluations'])} model evaluations)")
if l1.get("benchmark_sweep_checksum_matches") != "yes":
    print("WARNING: WorldMagneticModel.benchmarkSweep no longer walks the sweep that WMMBench.swift/bench.cpp define")

# Validation: the same inputs must give the same field.
keys = list(l_points) + [key for key in g_points if key not in l_points]   # printed order
missing = [key for key in keys if key not in g_points or key not in l_points]
names = ["D", "I", "F", "X", "Y", "Z", "Fdot"]
worst = dict.fromkeys(names, 0.0)
where = dict.fromkeys(names, None)
inputs_differ = 0
for key in keys:
    if key in missing:
        continue
    a, b = g_points[key], l_points[key]
    if a[:4] != b[:4]:
        inputs_differ += 1
    for i, name in enumerate(names):
        d = abs(a[4 + i] - b[4 + i])
        if name == "D":
            d = min(d, 360 - d)   # ±180° is one direction
        if d > worst[name] or d != d:
            worst[name], where[name] = d, key
print(f"validation: {sum(1 for key in keys if key[0] == 'check')} fixed points + {k} sweep points, "
      f"{'identical inputs' if inputs_differ == 0 else f'{inputs_differ} INPUTS DIFFER'}"
      f"{'' if not missing else f', {len(missing)} MISSING'}")
print("  max |Δ| Lodestar − GeographicLib: " +
      ", ".join(f"{name} {worst[name]:.1e}{'°' if name in 'DI' else ' nT/yr' if name == 'Fdot' else ' nT'}"
                for name in names))
rel = abs(g1["checksum"] - l1["checksum"]) / max(1.0, abs(g1["checksum"]))
print(f"  sweep checksum (Σ D + F·1e-6 + Ḟ·1e-6 over {n} points): GeographicLib {g1['checksum']:.10f}, "
      f"Lodestar {l1['checksum']:.10f} (relative difference {rel:.1e})")
print(f"  {'lat':>8} {'lon':>8} {'h km':>6} {'year':>8} {'D Lodestar':>18} {'ΔD':>8} {'I Lodestar':>18} {'ΔI':>8} "
      f"{'F Lodestar nT':>18} {'ΔF':>8}")
for key in keys:
    if key[0] != "check" or key in missing:
        continue
    a, b = g_points[key], l_points[key]
    print(f"  {b[0]:8.3f} {b[1]:8.3f} {b[2]:6.2f} {b[3]:8.2f} {b[4]:18.12f} {b[4] - a[4]:8.1e} {b[5]:18.12f} "
          f"{b[5] - a[5]:8.1e} {b[6]:18.9f} {b[6] - a[6]:8.1e}")
angle_ok = worst["D"] <= 1e-8 and worst["I"] <= 1e-8
field_ok = all(worst[name] <= 1e-6 for name in ["F", "X", "Y", "Z", "Fdot"])
ok = angle_ok and field_ok and inputs_differ == 0 and not missing and rel <= 1e-9
print(f"  agreement: {'OK' if ok else 'FAILED'} (tolerance 1e-8° for D and I, 1e-6 nT for F, X, Y, Z and nT/yr for Ḟ;"
      f" 1e-9 relative for the checksum)")
sys.exit(0 if ok else 1)
PY
