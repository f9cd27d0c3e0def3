#ifndef LODESTAR_CUDEV_SHIM_H
#define LODESTAR_CUDEV_SHIM_H
#include <libudev.h>
#endif
