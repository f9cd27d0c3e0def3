// Geocoding resources compiled into the binary (#embed); see docs/geocoding.md.
#ifndef LODESTAR_GEODATA_H
#define LODESTAR_GEODATA_H
#include <stddef.h>
/// GeoNames cities1000 places, Natural Earth 10m countries and timezone-boundary-builder zones in one
/// little-endian blob (magic "LSGEODAT", version 1), built by scripts/geodata/build.py.
const unsigned char *lodestar_geodata(size_t *length);
#endif
