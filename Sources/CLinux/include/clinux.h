// Lodestar's C shim over Linux: termios/termios2, pseudo-terminals, i2c-dev, FIFOs, signals, spawning.
// Every function returns 0 (or a value >= 0) on success and -errno on failure; EINTR is retried inside.
#ifndef LODESTAR_CLINUX_H
#define LODESTAR_CLINUX_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// ---- serial ----
/// Open a tty raw (8N1, no flow control), O_NOCTTY|O_NONBLOCK|O_CLOEXEC, exclusive (TIOCEXCL). Returns fd or -errno.
int clinux_serial_open(const char *path, int exclusive);
/// Set any baud rate: standard rates through termios, others through termios2/BOTHER. 0 or -errno.
int clinux_serial_set_baud(int fd, unsigned int baud);
/// The baud rate currently set (termios2 c_ospeed), or -errno.
long clinux_serial_get_baud(int fd);

// ---- pseudo-terminals ----
/// Open a pty pair: master fd returned; the slave's path written into name. Master is raw, non-blocking.
int clinux_pty_open(char *name, size_t name_len);

// ---- poll helper ----
/// Wait until fd is readable or timeout_ms passes. 1 readable, 0 timeout, -errno. POLLHUP/POLLERR count as readable.
int clinux_wait_readable(int fd, int timeout_ms);
/// read() with EINTR retry: bytes read, 0 at EOF, -errno (including -EAGAIN).
long clinux_read(int fd, void *buf, size_t len);
/// write() with EINTR retry: bytes written or -errno.
long clinux_write(int fd, const void *buf, size_t len);
int clinux_close(int fd);

// ---- monotonic clock (sources only: the core never reads a clock) ----
int64_t clinux_monotonic_ns(void);
int64_t clinux_realtime_ns(void);

// ---- i2c-dev ----
int clinux_i2c_open(int bus);
/// Combined write-register/read transaction (I2C_RDWR, repeated start).
int clinux_i2c_read_registers(int fd, uint16_t address, uint8_t reg, uint8_t *out, uint16_t len);
/// Single write of reg followed by data bytes (I2C_RDWR).
int clinux_i2c_write_registers(int fd, uint16_t address, uint8_t reg, const uint8_t *data, uint16_t len);
/// SMBus byte-data read through libi2c (after I2C_SLAVE). Value 0..255 or -errno.
int clinux_smbus_read_byte(int fd, uint16_t address, uint8_t reg);
int clinux_smbus_write_byte(int fd, uint16_t address, uint8_t reg, uint8_t value);
/// The adapter's I2C_FUNCS mask (I2C_FUNC_I2C = 0x1, SMBus byte data 0x180000, I2C block 0xc000000) in *out; 0 or -errno.
int clinux_i2c_funcs(int fd, uint32_t *out);
/// SMBus "read I2C block data" (command byte, repeated start, len <= 32 bytes). Bytes read or -errno.
int clinux_smbus_read_i2c_block(int fd, uint16_t address, uint8_t reg, uint8_t *out, uint8_t len);
/// SMBus "write I2C block data" (len <= 32). 0 or -errno.
int clinux_smbus_write_i2c_block(int fd, uint16_t address, uint8_t reg, const uint8_t *data, uint8_t len);

// ---- FIFOs ----
/// Create path as a FIFO with mode if missing. 0 if it exists as a FIFO or was created, -ENOTSUP... -errno otherwise
/// (-EEXIST when the path exists and is not a FIFO).
int clinux_fifo_ensure(const char *path, unsigned int mode);
/// open(O_WRONLY|O_NONBLOCK|O_CLOEXEC): fd, or -ENXIO while no reader is attached.
int clinux_fifo_open_writer(const char *path);

// ---- signals / processes ----
/// Ignore SIGPIPE for the whole process (idempotent), so EPIPE arrives as an error instead of a signal.
void clinux_ignore_sigpipe(void);
/// posix_spawn with an empty signal mask and default dispositions (Swift Testing threads block SIGTERM; children
/// must not inherit that). stdin is /dev/null, stdout/stderr redirected to the given fds when >= 0, and no other fd
/// of the parent is inherited. Returns 0 and sets *pid, or -errno.
int clinux_spawn(const char *path, char *const argv[], int stdout_fd, int stderr_fd, pid_t *pid);

/* memrchr(3) (a GNU extension the Glibc module does not import): the last byte c in s[0..n). */
const void *clinux_memrchr(const void *s, int c, size_t n);
/// Send sig to pid and reap it, waiting at most timeout_ms before SIGKILL. Returns the wait status or -errno.
int clinux_kill_and_reap(pid_t pid, int sig, int timeout_ms);

/// fflush(stdout): 0, or -errno (-EIO when an earlier buffered write had already failed).
int clinux_flush_stdout(void);

// ---- graceful stop ----
/// Installs SIGINT/SIGTERM/SIGHUP handlers that only set a flag (async-signal-safe); SA_RESTART is not set,
/// so blocking reads return EINTR and loops can check the flag.
void clinux_install_stop_handlers(void);
/// The signal number that requested a stop, or 0.
int clinux_stop_requested(void);
/// Sleep for ns nanoseconds (monotonic), returning early (-EINTR) when a stop is requested.
int clinux_sleep_ns(int64_t ns);
#endif

/* PPS (RFC 2783 over the Linux PPS API, <linux/pps.h>) and chrony's refclock SOCK sample (issue 15). */
/* Opens /dev/ppsN read-only; returns the fd or -errno. */
int clinux_pps_open(const char *path);
/* Waits up to timeout_ms for the next assert edge (PPS_FETCH); fills its time and sequence number.
   Returns 0, or -errno (-ETIMEDOUT when no pulse came). */
int clinux_pps_fetch(int fd, int timeout_ms, int64_t *assert_sec, int32_t *assert_nsec, uint32_t *sequence);
/* chrony's struct sock_sample (refclock_sock.c): sent as one datagram to chronyd's SOCK socket. */
typedef struct {
    int64_t tv_sec;   /* struct timeval on 64-bit Linux */
    int64_t tv_usec;
    double offset;
    int32_t pulse;
    int32_t leap;
    int32_t _pad;
    int32_t magic;
} clinux_sock_sample;
#define CLINUX_SOCK_MAGIC 0x534f434b
/* Fills a sample for a receive time (sec/usec) and offset; sends it on the connected datagram socket fd
   (MSG_DONTWAIT). Returns 0 or -errno. */
int clinux_chrony_send(int fd, int64_t tv_sec, int64_t tv_usec, double offset, int pulse, int leap);
/* A datagram socket connected to the Unix socket at path; returns the fd or -errno. */
int clinux_unix_dgram_connect(const char *path);
