#include "clinux.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

_Static_assert(sizeof(struct i2c_msg) == 16, "i2c_msg layout changed");

int clinux_i2c_open(int bus) {
    char path[32];
    snprintf(path, sizeof path, "/dev/i2c-%d", bus);
    int fd;
    do { fd = open(path, O_RDWR | O_CLOEXEC); } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

int clinux_i2c_read_registers(int fd, uint16_t address, uint8_t reg, uint8_t *out, uint16_t len) {
    struct i2c_msg msgs[2] = {
        { .addr = address, .flags = 0, .len = 1, .buf = &reg },
        { .addr = address, .flags = I2C_M_RD, .len = len, .buf = out },
    };
    struct i2c_rdwr_ioctl_data data = { .msgs = msgs, .nmsgs = 2 };
    int r;
    do { r = ioctl(fd, I2C_RDWR, &data); } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

int clinux_i2c_write_registers(int fd, uint16_t address, uint8_t reg, const uint8_t *data, uint16_t len) {
    uint8_t buf[64];
    if (len > sizeof buf - 1) return -EMSGSIZE;
    buf[0] = reg;
    if (len) memcpy(buf + 1, data, len);
    struct i2c_msg msg = { .addr = address, .flags = 0, .len = (uint16_t)(len + 1), .buf = buf };
    struct i2c_rdwr_ioctl_data d = { .msgs = &msg, .nmsgs = 1 };
    int r;
    do { r = ioctl(fd, I2C_RDWR, &d); } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static int select_slave(int fd, uint16_t address) {
    return ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0 ? -errno : 0;
}

int clinux_smbus_read_byte(int fd, uint16_t address, uint8_t reg) {
    int r = select_slave(fd, address);
    if (r < 0) return r;
    __s32 v = i2c_smbus_read_byte_data(fd, reg);
    return v < 0 ? -errno : (int)v;
}

int clinux_smbus_write_byte(int fd, uint16_t address, uint8_t reg, uint8_t value) {
    int r = select_slave(fd, address);
    if (r < 0) return r;
    return i2c_smbus_write_byte_data(fd, reg, value) < 0 ? -errno : 0;
}

int clinux_i2c_funcs(int fd, uint32_t *out) {
    unsigned long funcs = 0;
    if (ioctl(fd, I2C_FUNCS, &funcs) < 0) return -errno;
    *out = (uint32_t)funcs;
    return 0;
}

int clinux_smbus_read_i2c_block(int fd, uint16_t address, uint8_t reg, uint8_t *out, uint8_t len) {
    if (len > I2C_SMBUS_BLOCK_MAX) return -EMSGSIZE;
    int r = select_slave(fd, address);
    if (r < 0) return r;
    __s32 n = i2c_smbus_read_i2c_block_data(fd, reg, len, out);
    return n < 0 ? -errno : (int)n;
}

int clinux_smbus_write_i2c_block(int fd, uint16_t address, uint8_t reg, const uint8_t *data, uint8_t len) {
    if (len > I2C_SMBUS_BLOCK_MAX) return -EMSGSIZE;
    int r = select_slave(fd, address);
    if (r < 0) return r;
    return i2c_smbus_write_i2c_block_data(fd, reg, len, data) < 0 ? -errno : 0;
}
