// libgps for Swift. 64-bit and function-like macros do not import: re-exported here as static const / inline.
#ifndef LODESTAR_CGPS_SHIM_H
#define LODESTAR_CGPS_SHIM_H
#include <gps.h>

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
#endif
