// libmosquitto (Debian libmosquitto-dev) for Swift. Constants re-exported as static const.
#ifndef LODESTAR_CMOSQUITTO_SHIM_H
#define LODESTAR_CMOSQUITTO_SHIM_H
#include <mosquitto.h>

static const int cmosq_LOG_ERR = MOSQ_LOG_ERR;
static const int cmosq_LOG_WARNING = MOSQ_LOG_WARNING;
static const int cmosq_ERR_SUCCESS = MOSQ_ERR_SUCCESS;
static const int cmosq_ERR_NO_CONN = MOSQ_ERR_NO_CONN;
static const int cmosq_ERR_CONN_LOST = MOSQ_ERR_CONN_LOST;
static const int cmosq_ERR_TLS = MOSQ_ERR_TLS;
static const int cmosq_ERR_ERRNO = MOSQ_ERR_ERRNO;
#endif
