// libgps for Swift, loaded on first use. 64-bit and function-like macros do not import: re-exported here as static
// const / inline.
//
// Lodestar does not link libgps: `cgps_load()` dlopen()s libgps.so.28 (gpsd 3.22, API 11) when a `--gpsd` source
// starts. Debian's libgps pulls in libdbus, libsystemd, libgcrypt, liblzma, libzstd and liblz4; a board reading its
// receiver directly never maps them (docs/benchmarks.md "Memory"), and runs without libgps installed. The
// functions below are libgps', with the `gps_` prefix replaced by `cgps_`; call them only after `cgps_load()`
// returned 0.
#ifndef LODESTAR_CGPS_SHIM_H
#define LODESTAR_CGPS_SHIM_H
#include <gps.h>
#include <stdlib.h>

static const gps_mask_t cgps_ONLINE_SET = ONLINE_SET;
static const gps_mask_t cgps_TIME_SET = TIME_SET;
static const gps_mask_t cgps_LATLON_SET = LATLON_SET;
static const gps_mask_t cgps_ALTITUDE_SET = ALTITUDE_SET;
static const gps_mask_t cgps_SPEED_SET = SPEED_SET;
static const gps_mask_t cgps_TRACK_SET = TRACK_SET;
static const gps_mask_t cgps_MODE_SET = MODE_SET;
static const gps_mask_t cgps_STATUS_SET = STATUS_SET;
static const gps_mask_t cgps_SATELLITE_SET = SATELLITE_SET;
static const gps_mask_t cgps_PACKET_SET = PACKET_SET;
static const gps_mask_t cgps_ERROR_SET = ERROR_SET;
static const int cgps_API_MAJOR = GPSD_API_MAJOR_VERSION;
static const int cgps_API_MINOR = GPSD_API_MINOR_VERSION;
static const unsigned int cgps_WATCH_ENABLE = WATCH_ENABLE;
static const unsigned int cgps_WATCH_DISABLE = WATCH_DISABLE;
static const unsigned int cgps_WATCH_JSON = WATCH_JSON;
static const unsigned int cgps_WATCH_NMEA = WATCH_NMEA;
static const unsigned int cgps_WATCH_RAW = WATCH_RAW;
static const unsigned int cgps_WATCH_DEVICE = WATCH_DEVICE;

/// Heap-allocated gps_data_t (~24 KB: never on a Swift stack).
static inline struct gps_data_t *cgps_alloc(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}
static inline void cgps_free(struct gps_data_t *p) { free(p); }
/// Loads libgps.so.28 and resolves every function below (once; thread-safe). 0, or -1 with `cgps_load_error()`.
int cgps_load(void);
/// Why `cgps_load` failed (dlerror's text), or NULL.
const char *cgps_load_error(void);

int cgps_open(const char *host, const char *port, struct gps_data_t *data);
int cgps_close(struct gps_data_t *data);
int cgps_read(struct gps_data_t *data, char *message, int message_len);
int cgps_unpack(char *buf, struct gps_data_t *data);
int cgps_stream(struct gps_data_t *data, unsigned int flags, void *d);
const char *cgps_errstr(const int code);
#endif
