#define _GNU_SOURCE
#include <stdio.h>
#include "clinux.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <string.h>

extern char **environ;

int clinux_fifo_ensure(const char *path, unsigned int mode) {
    struct stat st;
    if (stat(path, &st) == 0) return S_ISFIFO(st.st_mode) ? 0 : -EEXIST;
    if (errno != ENOENT) return -errno;
    if (mkfifo(path, (mode_t)mode) != 0 && errno != EEXIST) return -errno;
    chmod(path, (mode_t)mode); // umask must not narrow the requested mode
    return 0;
}

int clinux_fifo_open_writer(const char *path) {
    int fd;
    do { fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

void clinux_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

int clinux_spawn(const char *path, char *const argv[], int stdout_fd, int stderr_fd, pid_t *pid) {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdout_fd, 1);
    if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stderr_fd, 2);
    /* Nothing else of the parent's: a server started while another thread of the parent has a pipe open would
       otherwise hold that pipe's write end, and whoever reads it to its end waits for the server to stop. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    int r = posix_spawnp(pid, path, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return r == 0 ? 0 : -r;
}

int clinux_kill_and_reap(pid_t pid, int sig, int timeout_ms) {
    if (kill(pid, sig) != 0 && errno != ESRCH) return -errno;
    int status = 0;
    for (int waited = 0; ; waited += 10) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -errno;
        if (waited >= timeout_ms) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            return status;
        }
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

static volatile sig_atomic_t stop_signal = 0;
static void on_stop(int sig) { stop_signal = sig; }

void clinux_install_stop_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    // Swift Testing and some parents block these: make sure they can be delivered.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT); sigaddset(&set, SIGTERM); sigaddset(&set, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int clinux_stop_requested(void) { return stop_signal; }

int clinux_sleep_ns(int64_t ns) {
    if (ns <= 0) return 0;
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    while (!stop_signal) {
        int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts);
        if (r == 0) return 0;
        if (r != EINTR) return -r;
    }
    return -EINTR;
}

// Flushes stdio's stdout: 0, or -errno of the failed flush (-EIO when an earlier buffered write had failed).
int clinux_flush_stdout(void) {
    errno = 0;
    if (fflush(stdout) != 0) return -(errno ? errno : EIO);
    if (ferror(stdout)) return -EIO;
    return 0;
}
