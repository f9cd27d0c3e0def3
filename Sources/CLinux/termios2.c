// termios2 (BOTHER) lives in <asm/termbits.h>, which clashes with glibc's <termios.h>: kept in its own file.
#include <asm/termbits.h>
#include <asm/ioctls.h>
#include <errno.h>
#include <sys/ioctl.h>
#include "clinux.h"

int clinux_serial_set_baud(int fd, unsigned int baud) {
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0) return -errno;
    t.c_cflag &= ~CBAUD;
    t.c_cflag |= BOTHER;
    t.c_cflag &= ~(CBAUD << IBSHIFT);
    t.c_cflag |= BOTHER << IBSHIFT;
    t.c_ispeed = baud;
    t.c_ospeed = baud;
    if (ioctl(fd, TCSETS2, &t) != 0) return -errno;
    return 0;
}

long clinux_serial_get_baud(int fd) {
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0) return -errno;
    return (long)t.c_ospeed;
}
