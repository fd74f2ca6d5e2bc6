/* Test helpers: start a real layoutd on a temporary socket, wait until it serves, stop it. */
#ifndef LAYOUTD_TESTUTIL_H
#define LAYOUTD_TESTUTIL_H
#include "layoutd/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int t_failures, t_checks;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        t_checks++;                                                                        \
        if (!(cond)) {                                                                     \
            t_failures++;                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)

static inline double t_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
    pid_t pid;
    char dir[128];
    char path[200];
    char log[200];
} td_daemon;

static inline const char *td_binary(void)
{
    const char *b = getenv("LAYOUTD_BINARY");
    return b && *b ? b : "../../.build/debug/layoutd";
}

/* Starts the daemon (socket dir/run/ipc.sock unless d->path is set already) and waits until a
   fresh connection gets a reply to daemon.hello. */
static inline int td_start(td_daemon *d, const char *const *flags)
{
    if (!d->dir[0]) {
        snprintf(d->dir, sizeof d->dir, "/tmp/layoutd-c-XXXXXX");
        if (!mkdtemp(d->dir)) { perror("mkdtemp"); return -1; }
        snprintf(d->path, sizeof d->path, "%s/run/ipc.sock", d->dir);
        snprintf(d->log, sizeof d->log, "%s/layoutd.log", d->dir);
    }
    const char *argv[64];
    int n = 0;
    argv[n++] = td_binary();
    argv[n++] = "--socket";
    argv[n++] = d->path;
    argv[n++] = "--set";
    argv[n++] = "default-plugin-dir=none";
    for (int i = 0; flags && flags[i] && n < 62; i++) argv[n++] = flags[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return -1; }
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); }
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        unsetenv("LAYOUTD_SOCKET");
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    d->pid = pid;
    double deadline = t_now() + 10;
    while (t_now() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "layoutd (%s) exited at start (status %d); log %s\n", argv[0], status, d->log);
            d->pid = 0;
            return -1;
        }
        layoutd_client *c = layoutd_client_connect(d->path, NULL);
        if (c) {
            layoutd_hello_result h;
            int ok = layoutd_hello(c, &h, NULL) == 0;
            if (ok) layoutd_hello_free(&h);
            layoutd_client_close(c);
            if (ok) return 0;
        }
        struct pollfd none;
        poll(&none, 0, 10); /* retry until it serves */
    }
    fprintf(stderr, "layoutd did not serve within 10 s\n");
    return -1;
}

static inline void td_wait_exit(td_daemon *d, int sig)
{
    if (d->pid <= 0) return;
    kill(d->pid, sig);
    double deadline = t_now() + 15;
    int status;
    while (waitpid(d->pid, &status, WNOHANG) == 0) {
        if (t_now() > deadline) { kill(d->pid, SIGKILL); waitpid(d->pid, &status, 0); break; }
        struct pollfd none;
        poll(&none, 0, 10);
    }
    d->pid = 0;
}

static inline void td_stop(td_daemon *d) { td_wait_exit(d, SIGTERM); }

static inline void td_cleanup(td_daemon *d)
{
    td_stop(d);
    char cmd[300];
    if (d->dir[0] && !getenv("KEEP_TMP")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
        if (system(cmd)) {}
    }
}

static inline int t_report(const char *name)
{
    printf("%s: %d checks, %d failures\n", name, t_checks, t_failures);
    return t_failures ? 1 : 0;
}
#endif
