// Data files compiled into the binary (#embed), so a static `lodestar` needs no resource bundle at run time.
#ifndef LODESTAR_DATA_H
#define LODESTAR_DATA_H
#include <stddef.h>
/// NOAA World Magnetic Model 2025 coefficients (WMM.COF, from PyPI wmm-calculator 1.4.4; see docs/magnetics.md).
const unsigned char *lodestar_wmm_cof(size_t *length);
#endif
