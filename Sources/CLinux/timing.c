#include "clinux.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/pps.h>

_Static_assert(sizeof(clinux_sock_sample) == 40, "chrony's struct sock_sample is 40 bytes on 64-bit Linux");
_Static_assert(offsetof(clinux_sock_sample, offset) == sizeof(struct timeval), "offset follows the timeval");
_Static_assert(offsetof(clinux_sock_sample, magic) == 36, "magic at 36");

int clinux_pps_open(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int clinux_pps_fetch(int fd, int timeout_ms, int64_t *assert_sec, int32_t *assert_nsec, uint32_t *sequence) {
    struct pps_fdata data;
    memset(&data, 0, sizeof data);
    data.timeout.sec = timeout_ms / 1000;
    data.timeout.nsec = (timeout_ms % 1000) * 1000000;
    data.timeout.flags = 0; /* not PPS_TIME_INVALID: wait up to the timeout */
    for (;;) {
        if (ioctl(fd, PPS_FETCH, &data) == 0) break;
        if (errno == EINTR) continue;
        return -errno;
    }
    *assert_sec = data.info.assert_tu.sec;
    *assert_nsec = data.info.assert_tu.nsec;
    *sequence = data.info.assert_sequence;
    return 0;
}

int clinux_unix_dgram_connect(const char *path) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) return -ENAMETOOLONG;
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int clinux_chrony_send(int fd, int64_t tv_sec, int64_t tv_usec, double offset, int pulse, int leap) {
    clinux_sock_sample s;
    memset(&s, 0, sizeof s);
    s.tv_sec = tv_sec;
    s.tv_usec = tv_usec;
    s.offset = offset;
    s.pulse = pulse;
    s.leap = leap;
    s.magic = CLINUX_SOCK_MAGIC;
    for (;;) {
        ssize_t n = send(fd, &s, sizeof s, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof s) return 0;
        if (n < 0 && errno == EINTR) continue;
        return n < 0 ? -errno : -EMSGSIZE;
    }
}
