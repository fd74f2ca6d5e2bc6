/* Shared by the benchmark's C programs (echo, rtt, load): sockets, request files, clocks and
 * the /proc counters of the process under test. Plain C, libc only. */
#ifndef LAYOUTD_BENCH_H
#define LAYOUTD_BENCH_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static inline void die(const char *program, const char *what) {
    fprintf(stderr, "%s: %s: %s\n", program, what, errno ? strerror(errno) : "failed");
    exit(1);
}

static inline uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A file of request (or reply) lines, each kept with its newline, cycled through by index. */
struct lines {
    char **line;
    size_t *length;
    size_t count;
};

static inline struct lines read_lines(const char *program, const char *path) {
    struct lines result = {0};
    FILE *file = fopen(path, "rb");
    if (!file) die(program, path);
    char *text = NULL;
    size_t capacity = 0;
    ssize_t got;
    while ((got = getline(&text, &capacity, file)) > 0) {
        if (text[got - 1] != '\n') { errno = 0; die(program, "every line must end with a newline"); }
        if (got == 1) continue;
        result.line = realloc(result.line, (result.count + 1) * sizeof *result.line);
        result.length = realloc(result.length, (result.count + 1) * sizeof *result.length);
        if (!result.line || !result.length) die(program, "realloc");
        result.line[result.count] = malloc((size_t)got);
        if (!result.line[result.count]) die(program, "malloc");
        memcpy(result.line[result.count], text, (size_t)got);
        result.length[result.count] = (size_t)got;
        result.count++;
    }
    free(text);
    fclose(file);
    if (result.count == 0) { errno = 0; die(program, "no lines in the file"); }
    return result;
}

static inline int connect_unix(const char *program, const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) { errno = ENAMETOOLONG; die(program, path); }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die(program, "socket");
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die(program, path);
    return fd;
}

static inline void write_all(const char *program, int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t wrote = send(fd, bytes, length, MSG_NOSIGNAL);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            die(program, "write");
        }
        bytes += wrote;
        length -= (size_t)wrote;
    }
}

/* A reply line is an error when its first bytes read {"id":...,"error" (the protocol puts
 * "id" first, then "result" or "error"). */
static inline int is_error_head(const char *head, size_t length) {
    return memmem(head, length, "\"error\"", 7) != NULL;
}

/* What the process under test has spent: CPU in clock ticks (utime + stime of the whole
 * process) and context switches summed over every thread alive at the sample. */
struct proc_sample {
    unsigned long long ticks;
    unsigned long long switches;
};

static inline int sample_proc(int pid, struct proc_sample *out) {
    char path[64], buffer[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    size_t got = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    buffer[got] = 0;
    char *field = strrchr(buffer, ')'); /* the command name may hold spaces */
    if (!field) return -1;
    unsigned long long utime = 0, stime = 0;
    /* After ") ": state (3) ... utime (14), stime (15). */
    if (sscanf(field + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return -1;
    out->ticks = utime + stime;
    out->switches = 0;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks) return -1;
    struct dirent *entry;
    while ((entry = readdir(tasks))) {
        if (entry->d_name[0] == '.') continue;
        char status[300];
        snprintf(status, sizeof status, "/proc/%d/task/%s/status", pid, entry->d_name);
        FILE *task = fopen(status, "r");
        if (!task) continue; /* the thread just exited */
        char line[256];
        unsigned long long value;
        while (fgets(line, sizeof line, task)) {
            if (sscanf(line, "voluntary_ctxt_switches: %llu", &value) == 1 ||
                sscanf(line, "nonvoluntary_ctxt_switches: %llu", &value) == 1)
                out->switches += value;
        }
        fclose(task);
    }
    closedir(tasks);
    return 0;
}

/* Appends the per-request /proc figures to a JSON object being printed (leading comma). */
static inline void print_proc_delta(int pid, const struct proc_sample *before, const struct proc_sample *after,
                                    unsigned long long requests) {
    long tick = sysconf(_SC_CLK_TCK);
    double cpu_us = (double)(after->ticks - before->ticks) * 1e6 / (double)tick;
    printf(",\"pid\":%d,\"clk_tck\":%ld,\"cpu_ticks\":%llu,\"cpu_us_per_request\":%.3f,\"ctx_switches\":%llu,\"ctx_switches_per_request\":%.4f",
           pid, tick, after->ticks - before->ticks, cpu_us / (double)requests, after->switches - before->switches,
           (double)(after->switches - before->switches) / (double)requests);
}

#endif
