// libgps loaded on first use (see include/cgps.h). Each function pointer has libgps' own prototype (typeof of
// gps.h's declaration), so the compiler checks every trampoline against the header.
#include "cgps.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// The library whose ABI matches the gps.h compiled against: gpsd 3.22 (Debian 12) is API 11, soname libgps.so.28.
// Other versions load the development symlink of the libgps-dev that provided the header.
#if GPSD_API_MAJOR_VERSION == 11
#define CGPS_LIBRARY "libgps.so.28"
#else
#define CGPS_LIBRARY "libgps.so"
#endif

#define GPS_FUNCTIONS(X) X(open) X(close) X(read) X(unpack) X(stream) X(errstr)
#define POINTER(name) static __typeof__(&gps_##name) p_##name;
GPS_FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static const char *error = NULL;

static void load(void) {
    void *lib = dlopen(CGPS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { error = dlerror(); return; }
#define RESOLVE(name) \
    p_##name = (__typeof__(p_##name))dlsym(lib, "gps_" #name); \
    if (!p_##name) { error = dlerror(); return; }
    GPS_FUNCTIONS(RESOLVE)
    loaded = 0;
}

int cgps_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *cgps_load_error(void) { return error; }

int cgps_open(const char *host, const char *port, struct gps_data_t *data) { return p_open(host, port, data); }
int cgps_close(struct gps_data_t *data) { return p_close(data); }
int cgps_read(struct gps_data_t *data, char *message, int message_len) { return p_read(data, message, message_len); }
int cgps_unpack(char *buf, struct gps_data_t *data) { return p_unpack(buf, data); }
int cgps_stream(struct gps_data_t *data, unsigned int flags, void *d) { return p_stream(data, flags, d); }
const char *cgps_errstr(const int code) { return cgps_load() == 0 ? p_errstr(code) : NULL; }
