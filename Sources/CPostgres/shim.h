// libpq (Debian libpq-dev) for Swift; used only by lodestar-fleet, never by the board's `lodestar` binary.
#ifndef LODESTAR_CPOSTGRES_SHIM_H
#define LODESTAR_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
