#define _GNU_SOURCE
#include "clinux.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

int clinux_serial_open(const char *path, int exclusive) {
    int fd;
    do { fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC); } while (fd < 0 && errno == EINTR);
    if (fd < 0) return -errno;
    if (exclusive && ioctl(fd, TIOCEXCL) != 0) { int e = errno; close(fd); return -e; }
    struct termios t;
    if (tcgetattr(fd, &t) != 0) { int e = errno; close(fd); return -e; }
    cfmakeraw(&t);
    t.c_cflag |= (CLOCAL | CREAD);
    t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSANOW, &t) != 0) { int e = errno; close(fd); return -e; }
    // Discard input the tty buffered before we opened it (as gpsd does): after a restart, minutes of old
    // sentences would otherwise come out as a burst of stale fixes.
    tcflush(fd, TCIFLUSH);
    return fd;
}

int clinux_pty_open(char *name, size_t name_len) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0) { int e = errno; close(fd); return -e; }
    if (ptsname_r(fd, name, name_len) != 0) { int e = errno; close(fd); return -e; }
    struct termios t;
    if (tcgetattr(fd, &t) == 0) { cfmakeraw(&t); tcsetattr(fd, TCSANOW, &t); }
    return fd;
}

int clinux_wait_readable(int fd, int timeout_ms) {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    for (;;) {
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        return r > 0 ? 1 : 0;
    }
}

long clinux_read(int fd, void *buf, size_t len) {
    for (;;) {
        ssize_t r = read(fd, buf, len);
        if (r < 0 && errno == EINTR) continue;
        return r < 0 ? -errno : (long)r;
    }
}

long clinux_write(int fd, const void *buf, size_t len) {
    for (;;) {
        ssize_t r = write(fd, buf, len);
        if (r < 0 && errno == EINTR) continue;
        return r < 0 ? -errno : (long)r;
    }
}

int clinux_close(int fd) { return close(fd) == 0 ? 0 : -errno; }

int64_t clinux_monotonic_ns(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
int64_t clinux_realtime_ns(void) {
    struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
