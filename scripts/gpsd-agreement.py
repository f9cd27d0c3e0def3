#!/usr/bin/env python3
"""Compare `lodestar replay` with gpsd's own regression output on gpsd test logs.

Usage: scripts/gpsd-agreement.py [--lodestar PATH] LOG...   (each LOG beside its LOG.chk, as in gpsd's test/daemon)

For every positioned TPV time in LOG.chk (gpsd's last TPV of that time), Lodestar's fix of the same time must have
the same time to the millisecond, lat/lon within 1e-6 degrees, and an `eph`. Smoothing is off (gpsd does not smooth).
Prints one line per log and the first misses; exits 1 when any log matches fewer than 99 % of gpsd's TPV times.
Used for gpsd's u-blox logs that are not in ../shared/data/ubx-gpsd (docs/gpsd-compatibility.md); the ones that are
run in `make test` (Tests/PipelineTests/UbxGpsdAgreementTests.swift).
"""
import argparse
import json
import os
import subprocess
import sys


def tpvs(lines):
    by_time, order = {}, []
    for line in lines:
        if not line.startswith('{"class":"TPV"'):
            continue
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if 'time' in o and 'lat' in o and 'lon' in o:
            if o['time'] not in by_time:
                order.append(o['time'])
            by_time[o['time']] = o
    return by_time, order


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lodestar', default=os.path.join(os.path.dirname(__file__), '..', '.build', 'release', 'lodestar'))
    ap.add_argument('--misses', type=int, default=3, help='misses to print per log')
    ap.add_argument('logs', nargs='+')
    a = ap.parse_args()
    total = matched_total = 0
    short = []
    for log in a.logs:
        with open(log + '.chk', errors='replace') as f:
            gpsd, order = tpvs(f)
        p = subprocess.run([a.lodestar, 'replay', '--no-smoothing', '--output', 'gpsd', log], capture_output=True)
        ours, _ = tpvs(p.stdout.decode(errors='replace').splitlines())
        matched, misses = 0, []
        for t in order:
            g, o = gpsd[t], ours.get(t)
            if o and abs(g['lat'] - o['lat']) <= 1e-6 and abs(g['lon'] - o['lon']) <= 1e-6 and 'eph' in o:
                matched += 1
            else:
                misses.append((t, g['lat'], g['lon'], o and (o.get('lat'), o.get('lon'), o.get('eph'))))
        total += len(order)
        matched_total += matched
        err = p.stderr.decode(errors='replace').strip().splitlines()
        print(f"{os.path.basename(log):36s} gpsd TPV times {len(order):4d}  matched {matched:4d}  exit {p.returncode}"
              + (f"  ({err[-1][:100]})" if p.returncode else ''))
        for m in misses[:a.misses]:
            print('    gpsd', m[0], m[1], m[2], '; lodestar', m[3] or 'no fix')
        if order and matched < 0.99 * len(order):
            short.append(os.path.basename(log))
    print(f"overall: {matched_total} of {total} gpsd TPV times matched; below 99 %: {', '.join(short) or 'none'}")
    return 1 if short else 0


if __name__ == '__main__':
    sys.exit(main())
