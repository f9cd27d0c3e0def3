// libmosquitto (Debian libmosquitto1 / libmosquitto-dev) for Swift, loaded on first use.
//
// Lodestar does not link libmosquitto: `cmosq_load()` dlopen()s libmosquitto.so.1 the first time an MQTT output or
// lodestar-fleet needs it. A board that never uses MQTT then never maps libmosquitto, libssl and libcrypto (1.7 MB
// of resident memory in every `lodestar` process, docs/benchmarks.md "Memory"), and a board without libmosquitto
// installed still runs everything else. The functions below are libmosquitto's, with the `mosquitto_` prefix
// replaced by `cmosq_`; call them only after `cmosq_load()` returned 0.
#ifndef LODESTAR_CMOSQUITTO_H
#define LODESTAR_CMOSQUITTO_H
#include <mosquitto.h>
#include <stdbool.h>

static const int cmosq_LOG_ERR = MOSQ_LOG_ERR;
static const int cmosq_LOG_WARNING = MOSQ_LOG_WARNING;
static const int cmosq_ERR_SUCCESS = MOSQ_ERR_SUCCESS;
static const int cmosq_ERR_NO_CONN = MOSQ_ERR_NO_CONN;
static const int cmosq_ERR_CONN_LOST = MOSQ_ERR_CONN_LOST;
static const int cmosq_ERR_TLS = MOSQ_ERR_TLS;
static const int cmosq_ERR_ERRNO = MOSQ_ERR_ERRNO;

/// Loads libmosquitto.so.1 and resolves every function below (once; thread-safe). 0, or -1 with `cmosq_load_error()`.
int cmosq_load(void);
/// Why `cmosq_load` failed (dlerror's text), or NULL.
const char *cmosq_load_error(void);

int cmosq_lib_init(void);
struct mosquitto *cmosq_new(const char *id, bool clean_session, void *obj);
void cmosq_destroy(struct mosquitto *mosq);
void cmosq_user_data_set(struct mosquitto *mosq, void *obj);
void cmosq_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
void cmosq_disconnect_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int));
void cmosq_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
void cmosq_subscribe_callback_set(struct mosquitto *mosq, void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *));
void cmosq_message_callback_set(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
void cmosq_log_callback_set(struct mosquitto *mosq, void (*on_log)(struct mosquitto *, void *, int, const char *));
int cmosq_max_inflight_messages_set(struct mosquitto *mosq, unsigned int max_inflight_messages);
int cmosq_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int cmosq_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
int cmosq_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile,
                  int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
int cmosq_connect(struct mosquitto *mosq, const char *host, int port, int keepalive);
int cmosq_loop(struct mosquitto *mosq, int timeout, int max_packets);
int cmosq_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
int cmosq_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
int cmosq_disconnect(struct mosquitto *mosq);
const char *cmosq_strerror(int mosq_errno);
const char *cmosq_connack_string(int connack_code);
#endif
