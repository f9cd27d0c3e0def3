// Geocoding resources compiled into the binary (#embed); see docs/geocoding.md.
#ifndef LODESTAR_GEODATA_H
#define LODESTAR_GEODATA_H
#include <stddef.h>
/// GeoNames cities1000 places, Natural Earth 10m countries and marine polygons, timezone-boundary-builder zones in one
/// little-endian blob (magic "LSGEODAT", version 1), built by scripts/geodata/build.py.
const unsigned char *lodestar_geodata(size_t *length);

/// GeoNames ids of national capitals and admin1 seats ("LSCAPITL", built by scripts/geodata/capitals.py).
const unsigned char *lodestar_capitals(size_t *length);

/// Cache prefetch hint for the k-d tree search (the implicit layout knows a subtree's node address before reading
/// its parent, so the next levels can be fetched in parallel).
static inline void lodestar_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
#endif
