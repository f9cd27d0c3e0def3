#!/usr/bin/env python3
"""Convert NOAA's WMM.COF into GeographicLib's magnetic model format (for the `make bench` comparison).

Usage: convert.py WMM.COF OUTDIR [NAME]      (NAME defaults to wmm2025)

Writes OUTDIR/NAME.wmm (text metadata, "WMMF-2") and OUTDIR/NAME.wmm.cof (binary coefficients), which
GeographicLib::MagneticModel(NAME, OUTDIR) loads. Debian's libgeographiclib-dev ships no model files.

The .cof layout, as GeographicLib's MagneticModel and SphericalEngine::coeff::readcoeffs read it:
  - 8 bytes: the ID, identical to the metadata's ID line;
  - then NumModels + 1 + NumConstants = 2 coefficient sets: the main field g, h (nT) at Epoch, then the secular
    variation ġ, ḣ (nT/year). With NumModels 1 the last set is used as the rate: B(t) = B0 + (t − Epoch) Ḃ.
    Each set is int32 N, int32 M, then C (cosine, g) and S (sine, h) as little-endian IEEE doubles, both in
    column-major order: C for m = 0…M, n = m…N ((M+1)(2N−M+2)/2 values, including the zero degree-0 term,
    which GeographicLib requires to be 0); S the same without the m = 0 column (Csize − (N+1) values).
  - nothing after (GeographicLib rejects extra data).
Schmidt semi-normalisation (the WMM's) is declared with "Normalization schmidt". Values are the file's own
decimals converted to double, so GeographicLib sees exactly the coefficients Lodestar parses.
"""
import struct
import sys
from pathlib import Path


def read_cof(path):
    lines = Path(path).read_text().splitlines()
    header = lines[0].split()
    if len(header) < 2:
        sys.exit(f"{path}: line 1: expected '<epoch> <name> [<release date>]'")
    epoch, name = float(header[0]), header[1]
    release = header[2] if len(header) > 2 else None
    coeffs = {}
    terminated = False
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split()
        if not fields:
            continue
        if set(line.strip()) == {"9"}:
            terminated = True
            break
        if len(fields) != 6:
            sys.exit(f"{path}: line {number}: expected 'n m g h gdot hdot'")
        n, m = int(fields[0]), int(fields[1])
        if not (1 <= n and 0 <= m <= n):
            sys.exit(f"{path}: line {number}: bad degree/order {n} {m}")
        if (n, m) in coeffs:
            sys.exit(f"{path}: line {number}: ({n}, {m}) given twice")
        coeffs[(n, m)] = tuple(float(v) for v in fields[2:])
    if not terminated:
        sys.exit(f"{path}: no terminator line of 9s")
    nmax = max(n for n, _ in coeffs)
    missing = [(n, m) for n in range(1, nmax + 1) for m in range(n + 1) if (n, m) not in coeffs]
    if missing:
        sys.exit(f"{path}: missing coefficients {missing[:5]}")
    return epoch, name, release, nmax, coeffs


def coefficient_set(nmax, coeffs, g_index, h_index):
    """int32 N, int32 M, C[], S[] for one model (column-major, little-endian)."""
    c = [0.0 if n == 0 else coeffs[(n, m)][g_index] for m in range(nmax + 1) for n in range(m, nmax + 1)]
    s = [coeffs[(n, m)][h_index] for m in range(1, nmax + 1) for n in range(m, nmax + 1)]
    csize = (nmax + 1) * (2 * nmax - nmax + 2) // 2
    assert len(c) == csize and len(s) == csize - (nmax + 1)
    return struct.pack("<ii", nmax, nmax) + struct.pack(f"<{len(c)}d", *c) + struct.pack(f"<{len(s)}d", *s)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: convert.py WMM.COF OUTDIR [NAME]")
    source, outdir = sys.argv[1], Path(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) == 4 else "wmm2025"
    epoch, model, release, nmax, coeffs = read_cof(source)
    year = int(epoch)
    ident = f"WMM{year}A"                       # GeographicLib's IDs are exactly 8 characters
    assert len(ident) == 8
    if release and release.count("/") == 2:     # 11/13/2024 → 2024-11-13
        mm, dd, yyyy = release.split("/")
        release = f"{yyyy}-{int(mm):02d}-{int(dd):02d}"
    outdir.mkdir(parents=True, exist_ok=True)
    metadata = f"""WMMF-2
# {model} converted from {Path(source).name} by Lodestar's scripts/wmm-geographiclib/convert.py
Name            {name}
Description     World Magnetic Model {year} ({model})
ReleaseDate     {release or 'UNKNOWN'}
DataVersion     1
Radius          6371200
NumModels       1
NumConstants    0
Epoch           {epoch:g}
DeltaEpoch      5
MinTime         {epoch:g}
MaxTime         {epoch + 5:g}
MinHeight       -10000
MaxHeight       850000
Normalization   schmidt
ByteOrder       little
Type            linear
# Coefficients: {name}.wmm.cof (main field, then secular variation per year)
ID              {ident}
"""
    (outdir / f"{name}.wmm").write_text(metadata)
    blob = ident.encode("ascii") + coefficient_set(nmax, coeffs, 0, 1) + coefficient_set(nmax, coeffs, 2, 3)
    (outdir / f"{name}.wmm.cof").write_bytes(blob)
    print(f"{outdir}/{name}.wmm(.cof): {model}, epoch {epoch:g}, degree {nmax}, {len(coeffs)} coefficients, "
          f"{len(blob)} bytes")


if __name__ == "__main__":
    main()
