#include "lodestar_geodata.h"
