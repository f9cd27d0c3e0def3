#include "lodestar_geodata.h"
#pragma clang diagnostic ignored "-Wc23-extensions"

// Built by scripts/geodata/build.py; format in docs/geocoding.md. Aligned so the Swift side can read
// 32-bit little-endian arrays in place (zero-copy).
static const unsigned char geodata[] __attribute__((aligned(16))) = {
#embed "geodata.bin"
};

const unsigned char *lodestar_geodata(size_t *length) {
    *length = sizeof geodata;
    return geodata;
}

// Built by scripts/geodata/capitals.py: GeoNames ids of national capitals and admin1 seats (forward-search ranking).
static const unsigned char capitals[] __attribute__((aligned(16))) = {
#embed "capitals.bin"
};

const unsigned char *lodestar_capitals(size_t *length) {
    *length = sizeof capitals;
    return capitals;
}
