// Geocoding resources compiled into the binary (#embed); see docs/geocoding.md.
#ifndef LODESTAR_GEODATA_H
#define LODESTAR_GEODATA_H
#include <stddef.h>
#endif
