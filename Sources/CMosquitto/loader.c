// libmosquitto loaded on first use (see include/cmosquitto.h). Each function pointer has libmosquitto's own
// prototype (typeof of the header's declaration), so the compiler checks every trampoline against mosquitto.h.
#include "cmosquitto.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define MOSQ_FUNCTIONS(X) \
    X(lib_init) X(new) X(destroy) X(user_data_set) X(connect_callback_set) X(disconnect_callback_set) \
    X(publish_callback_set) X(subscribe_callback_set) X(message_callback_set) X(log_callback_set) \
    X(max_inflight_messages_set) X(username_pw_set) X(will_set) X(tls_set) X(connect) X(loop) X(publish) \
    X(subscribe) X(disconnect) X(strerror) X(connack_string)

#define POINTER(name) static __typeof__(&mosquitto_##name) p_##name;
MOSQ_FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static const char *error = NULL;

static void load(void) {
    void *lib = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { error = dlerror(); return; }
#define RESOLVE(name) \
    p_##name = (__typeof__(p_##name))dlsym(lib, "mosquitto_" #name); \
    if (!p_##name) { error = dlerror(); return; }
    MOSQ_FUNCTIONS(RESOLVE)
    loaded = 0;
}

int cmosq_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *cmosq_load_error(void) { return error; }

int cmosq_lib_init(void) { return p_lib_init(); }
struct mosquitto *cmosq_new(const char *id, bool clean_session, void *obj) { return p_new(id, clean_session, obj); }
void cmosq_destroy(struct mosquitto *mosq) { p_destroy(mosq); }
void cmosq_user_data_set(struct mosquitto *mosq, void *obj) { p_user_data_set(mosq, obj); }
void cmosq_connect_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, int)) { p_connect_callback_set(mosq, f); }
void cmosq_disconnect_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, int)) { p_disconnect_callback_set(mosq, f); }
void cmosq_publish_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, int)) { p_publish_callback_set(mosq, f); }
void cmosq_subscribe_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, int, int, const int *)) {
    p_subscribe_callback_set(mosq, f);
}
void cmosq_message_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, const struct mosquitto_message *)) {
    p_message_callback_set(mosq, f);
}
void cmosq_log_callback_set(struct mosquitto *mosq, void (*f)(struct mosquitto *, void *, int, const char *)) { p_log_callback_set(mosq, f); }
int cmosq_max_inflight_messages_set(struct mosquitto *mosq, unsigned int n) { return p_max_inflight_messages_set(mosq, n); }
int cmosq_username_pw_set(struct mosquitto *mosq, const char *u, const char *p) { return p_username_pw_set(mosq, u, p); }
int cmosq_will_set(struct mosquitto *mosq, const char *topic, int len, const void *payload, int qos, bool retain) {
    return p_will_set(mosq, topic, len, payload, qos, retain);
}
int cmosq_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile,
                  int (*pw)(char *, int, int, void *)) {
    return p_tls_set(mosq, cafile, capath, certfile, keyfile, pw);
}
int cmosq_connect(struct mosquitto *mosq, const char *host, int port, int keepalive) { return p_connect(mosq, host, port, keepalive); }
int cmosq_loop(struct mosquitto *mosq, int timeout, int max_packets) { return p_loop(mosq, timeout, max_packets); }
int cmosq_publish(struct mosquitto *mosq, int *mid, const char *topic, int len, const void *payload, int qos, bool retain) {
    return p_publish(mosq, mid, topic, len, payload, qos, retain);
}
int cmosq_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) { return p_subscribe(mosq, mid, sub, qos); }
int cmosq_disconnect(struct mosquitto *mosq) { return p_disconnect(mosq); }
const char *cmosq_strerror(int e) { return p_strerror(e); }
const char *cmosq_connack_string(int c) { return p_connack_string(c); }
